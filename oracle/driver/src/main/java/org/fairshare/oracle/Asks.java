package org.fairshare.oracle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.OracleBridge;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;

/**
 * An AM's container requests, turned into ResourceRequests as AMRMClient does and handed to
 * the scheduler in one allocate call, validated on the way as ApplicationMasterService
 * (DefaultAMSProcessor) and FairScheduler.allocate validate them.
 */
final class Asks {
  private static final String ANY = ResourceRequest.ANY;

  private final Driver d;
  private final FairScheduler scheduler;

  Asks(Driver driver) {
    this.d = driver;
    this.scheduler = driver.scheduler;
  }

  /** One container request of the scenario: its size, priority, place. */
  static final class Req {
    final long count;
    final Resource asked;
    final int priority;
    final String locality;
    final boolean relax;
    Resource capability;

    Req(long count, Resource asked, int priority, String locality, boolean relax) {
      this.count = count;
      this.asked = asked;
      this.priority = priority;
      this.locality = locality;
      this.relax = relax;
    }
  }

  /** A request step's requests, in one allocate call. */
  void request(AppState app, JsonNode specs) throws Exception {
    List<Req> reqs = new ArrayList<>();
    for (JsonNode s : specs) {
      reqs.add(new Req(s.path("count").asLong(1), Res.of(s.path("resources")),
          s.path("priority").asInt(1), s.path("locality").asText("*"),
          s.path("relax-locality").asBoolean(true)));
    }
    allocate(app, reqs);
  }

  /**
   * AMRMClient.addContainerRequest for each request, then one allocate: a host request asks at
   * the host, its rack and ANY, a rack request at the rack and ANY; each ResourceRequest
   * carries the new total for its place; sizes at one priority get their own
   * allocationRequestId (fairshare's core/lifecycle/asks.py key_for). Validation as
   * ApplicationMasterService (SchedulerUtils.normalizeAndValidateRequest) and
   * FairScheduler.allocate do it: a refused call records nothing.
   */
  void allocate(AppState app, List<Req> reqs) throws Exception {
    FSAppAttempt attempt = app.fsAttempt(scheduler);
    String queue = attempt.getQueueName();
    Resource max = scheduler.getMaximumResourceCapability(queue);
    Map<String, ResourceRequest> asks = new LinkedHashMap<>();
    Map<String, Long> callKeys = new LinkedHashMap<>(); // "priority/capability" → id
    for (Req r : reqs) {
      r.capability = scheduler.getNormalizedResource(r.asked, max);
      long keyId = keyFor(attempt, r, callKeys);
      for (String[] place : places(r)) {
        String k = r.priority + "/" + keyId + "/" + place[0];
        ResourceRequest ask = asks.get(k);
        long current = ask != null ? ask.getNumContainers()
            : attempt.getAppSchedulingInfo().getPendingAsk(new SchedulerRequestKey(
                Priority.newInstance(r.priority), keyId, null), place[0]).getCount();
        ResourceRequest next = ResourceRequest.newBuilder()
            .priority(Priority.newInstance(r.priority)).resourceName(place[0])
            .capability(Resource.newInstance(r.asked)).numContainers((int) (current + r.count))
            .relaxLocality(Boolean.parseBoolean(place[1])).allocationRequestId(keyId).build();
        asks.remove(k);
        asks.put(k, next);
      }
    }
    List<ResourceRequest> list = new ArrayList<>(asks.values());
    String refused = null;
    try {
      for (ResourceRequest ask : list) {
        SchedulerUtils.normalizeAndValidateRequest(ask, max, queue, false, d.cluster.context,
            null, false);
      }
      d.act("released", () -> scheduler.allocate(app.attemptId(), list, null,
          Collections.emptyList(), null, null, new ContainerUpdates()));
    } catch (YarnException | RuntimeException e) {
      if (!(e instanceof YarnException) && !e.getClass().getSimpleName().contains("Invalid")) {
        throw e;
      }
      refused = e.getMessage();
    }
    if (refused != null) {
      d.log.emit("requests-rejected", "app", app.name, "queue", app.queue, "reason", refused);
      return;
    }
    for (Req r : reqs) {
      d.log.emit("containers-requested", "app", app.name, "priority", (long) r.priority,
          "locality", r.locality, "count", r.count, "resource", Res.map(r.capability),
          "asked", Res.map(r.asked));
    }
  }

  /** The places of a request, with the relaxLocality flag of each (AMRMClientImpl). */
  private List<String[]> places(Req r) {
    List<String[]> out = new ArrayList<>();
    String relax = Boolean.toString(r.relax);
    if (r.locality.equals("*")) {
      out.add(new String[] {ANY, "true"});
    } else if (r.locality.startsWith("/")) {
      out.add(new String[] {r.locality, "true"});
      out.add(new String[] {ANY, relax});
    } else {
      RmStubs.NodeRecord node = d.nodes.get(r.locality);
      out.add(new String[] {r.locality, "true"});
      out.add(new String[] {node == null ? "/default-rack" : node.rack, relax});
      out.add(new String[] {ANY, relax});
    }
    return out;
  }

  /**
   * The allocationRequestId of a request: that of the key at its priority whose outstanding
   * ANY ask has the same size, else that of an inactive allocator of that size (host and rack
   * asks left when its ANY ask ran out), else the smallest id no key at that priority uses
   * (outstanding, inactive, in this call, or holding delay-scheduling state) from -1, as
   * fairshare's key_for numbers sizes from 0 and its REST layer shows them, one less.
   */
  private long keyFor(FSAppAttempt attempt, Req r, Map<String, Long> callKeys) {
    String local = r.priority + "/" + r.capability;
    if (callKeys.containsKey(local)) {
      return callKeys.get(local);
    }
    TreeSet<Long> taken = new TreeSet<>();
    for (SchedulerRequestKey key : attempt.getAppSchedulingInfo().getSchedulerKeys()) {
      if (key.getPriority().getPriority() != r.priority) {
        continue;
      }
      taken.add(key.getAllocationRequestId());
      var ask = attempt.getAppSchedulingInfo().getPendingAsk(key, ANY);
      if (ask.getCount() > 0 && ask.getPerAllocationResource().equals(r.capability)) {
        callKeys.put(local, key.getAllocationRequestId());
        return key.getAllocationRequestId();
      }
    }
    // an allocator left with host and rack asks when its ANY ask ran out (no scheduler key):
    // this size's key if it holds this size, else its id stays taken (key_for)
    for (ResourceRequest rr : attempt.getAppSchedulingInfo().getAllResourceRequests()) {
      if (rr.getPriority().getPriority() != r.priority || rr.getNumContainers() <= 0
          || ANY.equals(rr.getResourceName())) {
        continue;
      }
      long id = rr.getAllocationRequestId();
      if (taken.contains(id)) {
        continue;
      }
      if (rr.getCapability().equals(r.capability)) {
        callKeys.put(local, id);
        return id;
      }
      taken.add(id);
    }
    for (SchedulerRequestKey key : OracleBridge.localityKeys(attempt)) {
      if (key.getPriority().getPriority() == r.priority) {
        taken.add(key.getAllocationRequestId());
      }
    }
    for (Map.Entry<String, Long> e : callKeys.entrySet()) {
      if (e.getKey().startsWith(r.priority + "/")) {
        taken.add(e.getValue());
      }
    }
    // a client's first size keeps ResourceRequest's default id, -1 (what AMRMClient and
    // MapReduce's AM send; captured from Hadoop 3.4.2's RM), the next ones count up from it
    long id = -1;
    while (taken.contains(id)) {
      id++;
    }
    callKeys.put(local, id);
    return id;
  }
}

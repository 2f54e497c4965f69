package org.fairshare.oracle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSLeafQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.OracleBridge;
import org.apache.hadoop.yarn.util.resource.Resources;

/**
 * A snapshot step: the real scheduler's state in fairshare's snapshot fields
 * (docs/scenario-format.md, "Snapshots"), only those it reports itself: queues from the
 * QueueManager's tree, apps from their FSAppAttempt, nodes from their FSSchedulerNode.
 */
final class Snapshots {
  private Snapshots() {}

  static Map<String, Object> take(Driver d, JsonNode label) {
    Map<String, Object> snap = new LinkedHashMap<>();
    if (label != null && label.isTextual()) {
      snap.put("label", label.asText());
    }
    snap.put("time-ms", d.cluster.clock.getTime());
    snap.put("cluster", cluster(d));
    Map<String, Object> queues = new LinkedHashMap<>();
    Map<String, long[]> apps = appCounts(d);
    queue(d.scheduler.getQueueManager().getRootQueue(), apps, queues);
    snap.put("queues", queues);
    snap.put("apps", apps(d));
    snap.put("nodes", nodes(d));
    return snap;
  }

  private static Map<String, Object> cluster(Driver d) {
    Resource allocated = Resources.createResource(0, 0);
    Resource reserved = Resources.createResource(0, 0);
    long containers = 0;
    for (RmStubs.NodeRecord node : d.nodes.values()) {
      FSSchedulerNode sn = d.schedulerNode(node);
      Resources.addTo(allocated, sn.getAllocatedResource());
      RMContainer r = sn.getReservedContainer();
      if (r != null) {
        Resources.addTo(reserved, r.getReservedResource());
      }
      containers += sn.getNumContainers();
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("capacity", Res.map(d.scheduler.getClusterResource()));
    out.put("allocated", Res.map(allocated));
    out.put("reserved", Res.map(reserved));
    out.put("nodes", (long) d.nodes.size());
    out.put("containers-allocated", containers);
    return out;
  }

  /** Per queue (and its ancestors): {runnable, not runnable} apps, from each attempt. */
  private static Map<String, long[]> appCounts(Driver d) {
    Map<String, long[]> counts = new LinkedHashMap<>();
    for (AppState app : d.apps.values()) {
      FSAppAttempt attempt = app.live() ? app.fsAttempt(d.scheduler) : null;
      if (attempt == null) {
        continue;
      }
      int which = OracleBridge.isRunnable(attempt.getQueue(), attempt) ? 0 : 1;
      FSQueue q = attempt.getQueue();
      while (q != null) {
        counts.computeIfAbsent(q.getName(), k -> new long[2])[which]++;
        q = q.getParent();
      }
    }
    return counts;
  }

  private static void queue(FSQueue q, Map<String, long[]> apps, Map<String, Object> out) {
    Map<String, Object> e = new LinkedHashMap<>();
    boolean leaf = q instanceof FSLeafQueue;
    e.put("type", leaf ? "leaf" : "parent");
    e.put("policy", q.getPolicy().getName().toLowerCase(Locale.ROOT));
    e.put("weight", q.getWeight());
    e.put("preemptable", q.isPreemptable());
    e.put("steady-fair-share", Res.map(q.getSteadyFairShare()));
    e.put("fair-share", Res.map(q.getFairShare()));
    e.put("min-share", Res.map(q.getMinShare()));
    e.put("max-share", Res.map(q.getMaxShare()));
    e.put("usage", Res.map(q.getResourceUsage()));
    e.put("demand", Res.map(q.getDemand()));
    // the queue's ReservedMB/VCores metrics and their custom-type counterparts
    // (FSQueue.getReservedResource reports memory and vcores only)
    e.put("reserved", Res.map(q.getMetrics().getReservedResources()));
    if (leaf) {
      e.put("am-usage", Res.map(OracleBridge.amResourceUsage((FSLeafQueue) q)));
      e.put("max-am-share", Res.map(q.getMetrics().getMaxAMShare()));
    }
    long[] counts = apps.getOrDefault(q.getName(), new long[2]);
    e.put("num-runnable-apps", counts[0]);
    e.put("num-non-runnable-apps", counts[1]);
    out.put(q.getName(), e);
    for (FSQueue child : q.getChildQueues()) {
      queue(child, apps, out);
    }
  }

  private static Map<String, Object> apps(Driver d) {
    Map<String, Object> out = new LinkedHashMap<>();
    FairScheduler scheduler = d.scheduler;
    for (AppState app : d.apps.values()) {
      if (!app.accepted) {
        continue; // rejected
      }
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("queue", app.queue);
      e.put("attempt", (long) app.attemptId().getAttemptId());
      FSAppAttempt a = app.ended ? null : app.fsAttempt(scheduler);
      if (a != null) {
        e.put("runnable", OracleBridge.isRunnable(a.getQueue(), a));
        e.put("am-running", a.isAmRunning());
        e.put("usage", Res.map(a.getResourceUsage()));
        e.put("demand", Res.map(a.getDemand()));
        e.put("fair-share", Res.map(a.getFairShare()));
        e.put("live-containers", (long) a.getLiveContainers().size());
        e.put("reserved-containers", (long) a.getReservedContainers().size());
        Resource fs = OracleBridge.fairshareStarvation(a);
        Resource ms = OracleBridge.minshareStarvation(a);
        e.put("fairshare-starvation", Res.map(fs));
        e.put("minshare-starvation", Res.map(ms));
        e.put("starved", !Resources.isNone(fs) || !Resources.isNone(ms));
        e.put("to-be-preempted", Res.map(OracleBridge.resourcesToBePreempted(a)));
        e.put("to-be-preempted-containers",
            (long) OracleBridge.containersToBePreempted(a).size());
      } else {
        e.put("live-containers", 0L);
      }
      e.put("preempted-containers", app.preempted);
      out.put(app.name, e);
    }
    return out;
  }

  private static Map<String, Object> nodes(Driver d) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (RmStubs.NodeRecord node : d.nodes.values()) {
      FSSchedulerNode sn = d.schedulerNode(node);
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("rack", node.rack);
      e.put("capacity", Res.map(sn.getTotalResource()));
      e.put("allocated", Res.map(sn.getAllocatedResource()));
      e.put("unallocated", Res.map(sn.getUnallocatedResource()));
      List<RMContainer> running = new ArrayList<>(sn.getCopiedListOfRunningContainers());
      e.put("containers", (long) running.size());
      e.put("am-containers", running.stream().filter(RMContainer::isAMContainer).count());
      RMContainer reserved = sn.getReservedContainer();
      e.put("reserved-by", reserved == null ? null
          : d.byId.get(reserved.getApplicationAttemptId().getApplicationId()).name);
      e.put("marked-for-preemption",
          (long) OracleBridge.containersForPreemption(sn).size());
      out.put(node.name, e);
    }
    return out;
  }
}

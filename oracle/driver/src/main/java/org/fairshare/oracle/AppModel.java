package org.fairshare.oracle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.hadoop.fs.Path;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.QueueACL;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.event.Event;
import org.apache.hadoop.yarn.exceptions.YarnException;
import org.apache.hadoop.yarn.server.resourcemanager.placement.ApplicationPlacementContext;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppAttemptRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.AppRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.AllocationFileLoaderService;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSQueue;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.OracleBridge;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;
import org.apache.hadoop.yarn.util.Records;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * Apps as the ResourceManager drives them (RMAppManager, RMAppImpl, RMAppAttemptImpl,
 * ApplicationMasterService) and as fairshare's app model behaves (docs/scenario-format.md,
 * "The app model"; core/apps.py): submission with placement, asks through allocate in
 * AMRMClient's way, releases, ends, moves, reloads, and a new attempt when the AM is lost.
 */
final class AppModel {
  /** ApplicationIds: a fixed cluster timestamp, ids in submission order from 1. */
  static final long CLUSTER_TIMESTAMP = 1_700_000_000_000L;
  private static final String ANY = ResourceRequest.ANY;

  private final Driver d;
  private final FairScheduler scheduler;
  private ApplicationAttemptId movedApp; // reported by move() itself, not as a promotion

  AppModel(Driver driver) {
    this.d = driver;
    this.scheduler = driver.scheduler;
  }

  // ---- submit: RMAppManager.submitApplication → AppAddedSchedulerEvent → attempt ----

  void submit(JsonNode step) throws Exception {
    String name = step.path("app").asText();
    String user = step.path("user").asText();
    String requested = step.path("queue").asText();
    JsonNode amSpec = step.path("am");
    Resource am = amSpec.isObject() ? Res.of(amSpec) : null;
    boolean recovering = step.path("recovering").asBoolean(false);
    ApplicationId id = ApplicationId.newInstance(CLUSTER_TIMESTAMP, d.apps.size() + 1);
    AppState app = new AppState(name, id, user, am);
    d.apps.put(name, app);
    d.byId.put(id, app);

    ApplicationSubmissionContext asc = Records.newRecord(ApplicationSubmissionContext.class);
    asc.setApplicationId(id);
    asc.setApplicationName(name);
    asc.setQueue(requested);
    asc.setUnmanagedAM(am == null);
    // RMAppManager.placeApplication: the placement rules the scheduler configured
    ApplicationPlacementContext placement;
    try {
      placement = d.cluster.context.getQueuePlacementManager().placeApplication(asc, user,
          recovering);
    } catch (YarnException e) {
      reject(app, requested, e.getMessage());
      return;
    }
    if (placement != null) {
      asc.setQueue(placement.getFullQueuePath()); // copyPlacementQueueToSubmissionContext
    }
    List<ResourceRequest> amRequests = null;
    if (am != null) {
      ResourceRequest amAsk = ResourceRequest.newInstance(Priority.newInstance(0), ANY,
          Resource.newInstance(am), 1, true);
      try { // RMAppManager.validateAndCreateResourceRequest
        SchedulerUtils.normalizeAndValidateRequest(amAsk,
            scheduler.getMaximumResourceCapability(asc.getQueue()), asc.getQueue(), recovering,
            d.cluster.context, null, false);
      } catch (YarnException e) {
        reject(app, requested, e.getMessage());
        return;
      }
      amRequests = Collections.singletonList(amAsk);
    }
    String denied = placement == null ? null : aclDenial(asc.getQueue(), user, id);
    if (denied != null) {
      reject(app, requested, denied);
      return;
    }
    app.record = new RmStubs.AppRecord(asc, amRequests);
    d.cluster.context.getRMApps().put(id, RmStubs.app(id, user, app.record));
    scheduler.handle(new AppAddedSchedulerEvent(user, asc, recovering, Priority.newInstance(0),
        placement));
    String rejection = acceptance(id);
    if (rejection != null) {
      reject(app, requested, rejection);
      return;
    }
    app.accepted = true;
    app.queue = scheduler.getSchedulerApplications().get(id).getQueue().getQueueName();
    d.log.emit("app-submitted", "app", name, "queue", app.queue, "user", user,
        "requested-queue", requested,
        "am", am == null ? null : Res.map(amRequests.get(0).getCapability()));
    newAttempt(app, 1, recovering);
    if (am != null && !recovering) {
      askAm(app);
    }
    if (step.path("requests").size() > 0) {
      request(app, step.path("requests"));
    }
  }

  /** RMAppManager's ACL check (only with yarn.acl.enable): the queue, or its nearest
   *  existing ancestor, must let the user submit or administer. */
  private String aclDenial(String queueName, String user, ApplicationId id) {
    if (!YarnConfiguration.isAclEnabled(d.cluster.conf)) {
      return null;
    }
    UserGroupInformation ugi = UserGroupInformation.createRemoteUser(user);
    String name = queueName;
    FSQueue queue = scheduler.getQueueManager().getQueue(name);
    while (queue == null && name.contains(".")) {
      name = name.substring(0, name.lastIndexOf('.'));
      queue = scheduler.getQueueManager().getQueue(name);
    }
    if (queue == null || queue.hasAccess(QueueACL.SUBMIT_APPLICATIONS, ugi)
        || queue.hasAccess(QueueACL.ADMINISTER_QUEUE, ugi)) {
      return null;
    }
    return "User " + user + " does not have permission to submit " + id + " to queue "
        + queueName + " denied by ACL for queue " + name;
  }

  /** The scheduler's answer to APP_ADDED: null (APP_ACCEPTED) or the rejection's text. */
  private String acceptance(ApplicationId id) {
    String rejection = "not accepted";
    for (Event<?> e : d.cluster.dispatcher.drain()) {
      if (e instanceof RMAppEvent && ((RMAppEvent) e).getApplicationId().equals(id)) {
        RMAppEvent event = (RMAppEvent) e;
        if (event.getType() == RMAppEventType.APP_ACCEPTED) {
          rejection = null;
        } else if (event.getType() == RMAppEventType.APP_REJECTED) {
          rejection = event.getDiagnosticMsg();
        }
      }
    }
    return rejection;
  }

  private void reject(AppState app, String requested, String reason) {
    app.ended = true;
    d.log.emit("app-rejected", "app", app.name, "user", app.user, "requested-queue", requested,
        "reason", reason);
  }

  /** AppAttemptAddedSchedulerEvent for attempt {@code number}; reports its runnability. */
  private void newAttempt(AppState app, int number, boolean recovering) throws Exception {
    ApplicationAttemptId attemptId = ApplicationAttemptId.newInstance(app.id, number);
    app.attempt = new RmStubs.AttemptRecord(attemptId, d.cluster.context);
    app.record.currentAttempt = RmStubs.attempt(app.attempt);
    scheduler.handle(new AppAttemptAddedSchedulerEvent(attemptId, false, recovering));
    d.cluster.dispatcher.drain(); // ATTEMPT_ADDED: nothing to report
    FSAppAttempt attempt = app.fsAttempt(scheduler);
    if (OracleBridge.isRunnable(attempt.getQueue(), attempt)) {
      d.log.emit("app-runnable", "app", app.name, "queue", app.queue, "promoted", false);
    } else {
      d.log.emit("app-not-runnable", "app", app.name, "queue", app.queue);
    }
  }

  /** RMAppAttemptImpl.ScheduleTransition: the AM ask, priority 0, ANY, one container. */
  private void askAm(AppState app) throws Exception {
    ResourceRequest amAsk = app.record.amRequests.get(0);
    ResourceRequest ask = ResourceRequest.newInstance(Priority.newInstance(0), ANY,
        Resource.newInstance(amAsk.getCapability()), 1, true);
    d.act("released", () -> scheduler.allocate(app.attemptId(),
        new ArrayList<>(Collections.singletonList(ask)), null, Collections.emptyList(), null,
        null, new ContainerUpdates()));
    d.log.emit("containers-requested", "app", app.name, "priority", 0L, "locality", "*",
        "count", 1L, "resource", Res.map(ask.getCapability()), "asked", Res.map(app.am));
  }

  // ---- request: one allocate call, asks built as AMRMClient builds them ----

  /** One container request of the scenario: its size, priority, place. */
  private static final class Req {
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

  void request(AppState app, JsonNode specs) throws Exception {
    List<Req> reqs = new ArrayList<>();
    for (JsonNode s : specs) {
      reqs.add(new Req(s.path("count").asLong(1), Res.of(s.path("resources")),
          s.path("priority").asInt(1), s.path("locality").asText("*"),
          s.path("relax-locality").asBoolean(true)));
    }
    allocateRequests(app, reqs, true);
  }

  /**
   * AMRMClient.addContainerRequest for each request, then one allocate: a host request asks at
   * the host, its rack and ANY, a rack request at the rack and ANY; each ResourceRequest
   * carries the new total for its place; sizes at one priority get their own
   * allocationRequestId (fairshare's core/asks.py key_for). Validation as
   * ApplicationMasterService (SchedulerUtils.normalizeAndValidateRequest) and
   * FairScheduler.allocate do it: a refused call records nothing.
   */
  private void allocateRequests(AppState app, List<Req> reqs, boolean report)
      throws Exception {
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
    if (!report) {
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
   * ANY ask has the same size, else the smallest id no key at that priority uses (outstanding,
   * in this call, or holding delay-scheduling state), as fairshare's key_for numbers sizes.
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
    long id = 0;
    while (taken.contains(id)) {
      id++;
    }
    callKeys.put(local, id);
    return id;
  }

  // ---- release, finish, kill ----

  /** The AM releases containers: allocate with a release list. */
  void release(AppState app, int count, String which) throws Exception {
    List<ContainerId> chosen = new ArrayList<>();
    List<RMContainer> containers = d.containersOf(app.fsAttempt(scheduler));
    if (which.equals("am")) {
      containers.stream().filter(RMContainer::isAMContainer).limit(1)
          .forEach(c -> chosen.add(c.getContainerId()));
    } else {
      List<RMContainer> tasks = new ArrayList<>();
      containers.stream().filter(c -> !c.isAMContainer()).forEach(tasks::add);
      if (which.equals("newest")) {
        Collections.reverse(tasks);
      }
      tasks.stream().limit(count).forEach(c -> chosen.add(c.getContainerId()));
    }
    if (chosen.isEmpty()) {
      return;
    }
    d.act("released", () -> scheduler.allocate(app.attemptId(), Collections.emptyList(), null,
        chosen, null, null, new ContainerUpdates()));
  }

  /** The app ends: AppAttemptRemovedSchedulerEvent, then AppRemovedSchedulerEvent. */
  void end(AppState app, boolean finished) throws Exception {
    app.ended = true;
    d.act("app-ended", () -> {
      scheduler.handle(new AppAttemptRemovedSchedulerEvent(app.attemptId(),
          finished ? RMAppAttemptState.FINISHED : RMAppAttemptState.KILLED, false));
      scheduler.handle(new AppRemovedSchedulerEvent(app.id,
          finished ? RMAppState.FINISHED : RMAppState.KILLED));
    });
    d.log.emit("app-finished", "app", app.name, "queue", app.queue,
        "state", finished ? "finished" : "killed");
  }

  /**
   * The AM container is gone: the attempt fails (its other containers are killed), the RM
   * starts the next one, which asks for its AM, for what the old attempt still asked for, and
   * for one container per task killed with it (fairshare's restart_attempt).
   */
  void restart(AppState app) throws Exception {
    FSAppAttempt old = app.fsAttempt(scheduler);
    List<ResourceRequest> outstanding = new ArrayList<>();
    for (ResourceRequest rr : old.getAppSchedulingInfo().getAllResourceRequests()) {
      if (rr.getNumContainers() > 0) {
        outstanding.add(ResourceRequest.clone(rr));
      }
    }
    List<Req> killed = new ArrayList<>();
    for (RMContainer c : d.containersOf(old)) {
      if (!c.isAMContainer()) {
        killed.add(new Req(1, c.getAllocatedResource(),
            c.getAllocatedSchedulerKey().getPriority().getPriority(), "*", true));
      }
    }
    d.act("attempt-failed", () -> scheduler.handle(new AppAttemptRemovedSchedulerEvent(
        app.attemptId(), RMAppAttemptState.FAILED, false)));
    d.log.emit("app-attempt-restarted", "app", app.name, "queue", app.queue);
    newAttempt(app, app.attemptId().getAttemptId() + 1, false);
    if (!outstanding.isEmpty()) {
      d.act("released", () -> scheduler.allocate(app.attemptId(), outstanding, null,
          Collections.emptyList(), null, null, new ContainerUpdates()));
    }
    askAm(app);
    if (!killed.isEmpty()) {
      allocateRequests(app, killed, true);
    }
  }

  // ---- runnability: apps MaxRunningAppsEnforcer made runnable ----

  List<ApplicationAttemptId> nonRunnable() {
    List<ApplicationAttemptId> out = new ArrayList<>();
    for (AppState app : d.apps.values()) {
      FSAppAttempt attempt = app.live() ? app.fsAttempt(scheduler) : null;
      if (attempt != null && !OracleBridge.isRunnable(attempt.getQueue(), attempt)) {
        out.add(attempt.getApplicationAttemptId());
      }
    }
    return out;
  }

  /** app-runnable (promoted) for the attempts that were waiting and now run, in
   *  MaxRunningAppsEnforcer's order (start time, then application id). */
  void reportPromotions(List<ApplicationAttemptId> waiting) {
    List<FSAppAttempt> promoted = new ArrayList<>();
    for (ApplicationAttemptId id : waiting) {
      if (id.equals(movedApp)) {
        continue;
      }
      FSAppAttempt attempt = scheduler.getSchedulerApp(id);
      AppState app = d.byId.get(id.getApplicationId());
      if (attempt != null && app.live() && app.attemptId().equals(id)
          && OracleBridge.isRunnable(attempt.getQueue(), attempt)) {
        promoted.add(attempt);
      }
    }
    movedApp = null;
    promoted.sort(Comparator.comparingLong(FSAppAttempt::getStartTime)
        .thenComparing(FSAppAttempt::getApplicationId));
    for (FSAppAttempt attempt : promoted) {
      AppState app = d.byId.get(attempt.getApplicationId());
      d.log.emit("app-runnable", "app", app.name, "queue", app.queue, "promoted", true);
    }
  }

  // ---- reload and move ----

  /**
   * AllocationFileLoaderService.reloadAllocations on the new text; an exception leaves the
   * configuration as it was (the reload thread logs it and keeps the old one).
   */
  void reload(String text) throws Exception {
    d.cluster.writeAllocations(text);
    AllocationFileLoaderService loader = (AllocationFileLoaderService) Stubs.field(scheduler,
        FairScheduler.class, "allocsLoader");
    if (!d.cluster.hasAllocationFile) {
      // started without a file: from now on there is one (as if configured and created)
      Path path = new Path("file", null, d.cluster.allocationFile.toString());
      Stubs.setField(loader, AllocationFileLoaderService.class, "allocFile", path);
      Stubs.setField(loader, AllocationFileLoaderService.class, "fs",
          path.getFileSystem(d.cluster.conf));
      d.cluster.hasAllocationFile = true;
    }
    d.act("released", () -> {
      try {
        loader.reloadAllocations();
      } catch (Exception e) {
        d.log.emit("config-error", "message", String.valueOf(e.getMessage()));
        return;
      }
      d.log.emit("config-reloaded", "queues", (long) scheduler.getQueueManager().getQueues()
          .size());
    });
  }

  /** ClientRMService.moveApplicationAcrossQueues: preValidateMoveApplication, then
   *  FairScheduler.moveApplication; a YarnException is the move's refusal. */
  void move(AppState app, String queue) throws Exception {
    String target = queue.equals("root") || queue.startsWith("root.") ? queue : "root." + queue;
    d.act("released", () -> {
      String from = app.queue;
      try {
        scheduler.preValidateMoveApplication(app.id, queue);
        String to = scheduler.moveApplication(app.id, queue);
        if (!to.equals(from)) {
          app.queue = to;
          d.log.emit("app-moved", "app", app.name, "from-queue", from, "to-queue", to);
          // FairScheduler.executeMove re-adds the app to its new leaf (runnable or not), as
          // fairshare's move re-admits it: reported as such, not as a promotion
          movedApp = app.attemptId();
          FSAppAttempt attempt = app.fsAttempt(scheduler);
          if (OracleBridge.isRunnable(attempt.getQueue(), attempt)) {
            d.log.emit("app-runnable", "app", app.name, "queue", to, "promoted", false);
          } else {
            d.log.emit("app-not-runnable", "app", app.name, "queue", to);
          }
        }
      } catch (YarnException e) {
        d.log.emit("move-rejected", "app", app.name, "queue", target, "reason", e.getMessage());
      }
    });
  }
}

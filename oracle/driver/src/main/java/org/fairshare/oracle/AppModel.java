package org.fairshare.oracle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

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
import org.apache.hadoop.yarn.exceptions.SchedulerInvalidResoureRequestException;
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
import org.apache.hadoop.yarn.util.Records;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * Apps as the ResourceManager drives them (RMAppManager, RMAppImpl, RMAppAttemptImpl,
 * ApplicationMasterService) and as fairshare's app model behaves (docs/scenario-format.md,
 * "The app model"; core/lifecycle/apps.py): submission with placement, asks through allocate in
 * AMRMClient's way, releases, ends, moves, reloads, and a new attempt when the AM is lost.
 */
final class AppModel {
  /** ApplicationIds: a fixed cluster timestamp, ids in submission order from 1. */
  static final long CLUSTER_TIMESTAMP = 1_700_000_000_000L;
  private static final String ANY = ResourceRequest.ANY;

  private final Driver d;
  private final FairScheduler scheduler;
  private final Asks asks;
  private ApplicationAttemptId movedApp; // reported by move() itself, not as a promotion

  AppModel(Driver driver) {
    this.d = driver;
    this.scheduler = driver.scheduler;
    this.asks = new Asks(driver);
  }

  /** A request step: one allocate call (see {@link Asks}). */
  void request(AppState app, JsonNode specs) throws Exception {
    asks.request(app, specs);
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
    app.submittedMs = d.cluster.clock.getTime();
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
    String denied = placement == null || recovering ? null
        : aclDenial(asc.getQueue(), user, id);
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
        "am", am == null ? null : Res.map(normalizedAm(app)));
    newAttempt(app, 1, recovering);
    if (am != null && !recovering) {
      askAm(app);
    }
    if (step.path("requests").size() > 0) {
      asks.request(app, step.path("requests"));
    }
  }

  /** RMAppManager's ACL check (only with yarn.acl.enable, not for a recovered app): the
   *  queue, or its nearest existing ancestor, must let the user submit or administer. */
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

  /**
   * The scheduler's answer to APP_ADDED: null when it took the app (APP_ACCEPTED; a
   * recovering app is taken silently), else APP_REJECTED's diagnostic text.
   */
  private String acceptance(ApplicationId id) {
    String rejection = null;
    for (Event<?> e : d.cluster.dispatcher.drain()) {
      if (e instanceof RMAppEvent && ((RMAppEvent) e).getApplicationId().equals(id)
          && ((RMAppEvent) e).getType() == RMAppEventType.APP_REJECTED) {
        rejection = ((RMAppEvent) e).getDiagnosticMsg();
      }
    }
    if (rejection == null && !scheduler.getSchedulerApplications().containsKey(id)) {
      rejection = "not accepted";
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
    app.attempts.add(app.attempt);
    scheduler.handle(new AppAttemptAddedSchedulerEvent(attemptId, false, recovering));
    d.cluster.dispatcher.drain(); // ATTEMPT_ADDED: nothing to report
    FSAppAttempt attempt = app.fsAttempt(scheduler);
    if (OracleBridge.isRunnable(attempt.getQueue(), attempt)) {
      d.log.emit("app-runnable", "app", app.name, "queue", app.queue, "promoted", false);
    } else {
      d.log.emit("app-not-runnable", "app", app.name, "queue", app.queue);
    }
  }

  /** The AM container's size: the AM ask as FairScheduler.allocate normalises it (the RM
   *  only validates it at submission). */
  private Resource normalizedAm(AppState app) {
    return scheduler.getNormalizedResource(app.record.amRequests.get(0).getCapability(),
        scheduler.getMaximumResourceCapability(app.queue));
  }

  /** RMAppAttemptImpl.ScheduleTransition: the AM ask, priority 0, ANY, one container. */
  private void askAm(AppState app) throws Exception {
    ResourceRequest amAsk = app.record.amRequests.get(0);
    ResourceRequest ask = ResourceRequest.newInstance(Priority.newInstance(0), ANY,
        Resource.newInstance(amAsk.getCapability()), 1, true);
    Resource normalized = normalizedAm(app);
    try {
      d.act("released", () -> scheduler.allocate(app.attemptId(),
          new ArrayList<>(Collections.singletonList(ask)), null, Collections.emptyList(), null,
          null, new ContainerUpdates()));
    } catch (SchedulerInvalidResoureRequestException e) {
      // a new attempt's AM ask for a resource its queue's max share has none of any more (a
      // percentage of a cluster that lost it): the RM's ScheduleTransition would fail; reported
      // as fairshare reports it
      d.log.emit("requests-rejected", "app", app.name, "queue", app.queue, "reason",
          e.getMessage());
      return;
    }
    d.log.emit("containers-requested", "app", app.name, "priority", 0L, "locality", "*",
        "count", 1L, "resource", Res.map(normalized), "asked", Res.map(app.am));
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

  /**
   * One container given back by name (a task of a traced workload that has run its time);
   * nothing when YARN does not run a container of that name.
   */
  void releaseContainer(AppState app, String name) throws Exception {
    for (RMContainer c : d.containersOf(app.fsAttempt(scheduler))) {
      if (Driver.containerName(c.getContainerId(), app).equals(name)) {
        List<ContainerId> release = Collections.singletonList(c.getContainerId());
        d.act("released", () -> scheduler.allocate(app.attemptId(), Collections.emptyList(),
            null, release, null, null, new ContainerUpdates()));
        return;
      }
    }
  }

  /** The app ends: AppAttemptRemovedSchedulerEvent, then AppRemovedSchedulerEvent. */
  void end(AppState app, boolean finished) throws Exception {
    app.ended = true;
    app.killed = !finished;
    app.finishedMs = d.cluster.clock.getTime();
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
    List<Asks.Req> killed = new ArrayList<>();
    for (RMContainer c : d.containersOf(old)) {
      if (!c.isAMContainer()) {
        killed.add(new Asks.Req(1, c.getAllocatedResource(),
            c.getAllocatedSchedulerKey().getPriority().getPriority(), "*", true));
      }
    }
    d.act("attempt-failed", () -> scheduler.handle(new AppAttemptRemovedSchedulerEvent(
        app.attemptId(), RMAppAttemptState.FAILED, false)));
    d.log.emit("app-attempt-restarted", "app", app.name, "queue", app.queue);
    newAttempt(app, app.attemptId().getAttemptId() + 1, false);
    if (!outstanding.isEmpty()) {
      try {
        d.act("released", () -> scheduler.allocate(app.attemptId(), outstanding, null,
            Collections.emptyList(), null, null, new ContainerUpdates()));
      } catch (SchedulerInvalidResoureRequestException e) {  // the new AM's allocate fails
        d.log.emit("requests-rejected", "app", app.name, "queue", app.queue, "reason",
            e.getMessage());
      }
    }
    askAm(app);
    if (!killed.isEmpty()) {
      asks.allocate(app, killed);
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

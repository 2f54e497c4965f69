package org.fairshare.oracle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.hadoop.net.NetUtils;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceOption;
import org.apache.hadoop.yarn.event.Event;
import org.apache.hadoop.yarn.server.resourcemanager.ClusterMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.event.RMAppAttemptContainerFinishedEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerImpl;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ContainerUpdates;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeAddedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeRemovedSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeResourceUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.event.NodeUpdateSchedulerEvent;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerApplicationAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSSchedulerNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;

/**
 * Runs one normalised scenario's steps on the real FairScheduler and writes down what it did.
 * Every step is one or more scheduler calls wrapped in {@link #act}: afterwards the events the
 * scheduler sent to the (recording) dispatcher become container-allocated / -completed /
 * -preempted events, node reservations are compared with before (container-reserved /
 * -unreserved), apps made runnable are reported, and an attempt that lost its AM container is
 * replaced ({@link AppModel#restart}).
 */
final class Driver {
  /** A call into the scheduler; Hadoop's checked exceptions pass through. */
  interface Call {
    void run() throws Exception;
  }

  /** A container the driver saw allocated and not yet completed. */
  static final class Live {
    final AppState app;
    final int attempt;
    final String node;
    final Resource resource;
    final RMContainer rm;

    Live(AppState app, int attempt, String node, Resource resource, RMContainer rm) {
      this.app = app;
      this.attempt = attempt;
      this.node = node;
      this.resource = resource;
      this.rm = rm;
    }
  }

  final Cluster cluster;
  final FairScheduler scheduler;
  final EventLog log;
  final Map<String, AppState> apps = new LinkedHashMap<>();
  final Map<ApplicationId, AppState> byId = new HashMap<>();
  final Map<String, RmStubs.NodeRecord> nodes = new LinkedHashMap<>();
  private int registrations; // nodes registered so far: each one's ordinal picks its port
  final Map<String, RmStubs.NodeRecord> nodesById = new HashMap<>();
  final Map<ContainerId, Live> live = new HashMap<>();
  // the order containers were allocated in, which fairshare keeps an app's containers in
  private final Map<ContainerId, Long> allocationOrder = new HashMap<>();
  final Map<ContainerId, AppState> beneficiaries = new HashMap<>();
  final List<Object> snapshots = new ArrayList<>();
  // per snapshot, the RM's REST answers (Rest.take), endpoint → body
  final List<Map<String, String>> rest = new ArrayList<>();
  // lost nodes, as RMContext.getInactiveRMNodes keeps them (a ConcurrentHashMap by NodeId)
  final Map<NodeId, RmStubs.NodeRecord> lostNodes = new ConcurrentHashMap<>();
  final AppModel appModel;
  final Preemption preemption;
  private final List<AppState> lostAm = new ArrayList<>();
  private boolean restarting; // an attempt is being replaced: later ones wait their turn
  private final List<RMContainer> unpulled = new ArrayList<>();
  private String completion = "released";
  private int depth;

  Driver(Cluster cluster) {
    this.cluster = cluster;
    this.scheduler = cluster.scheduler;
    this.log = new EventLog(cluster.clock);
    this.appModel = new AppModel(this);
    this.preemption = new Preemption(this);
  }

  void run(JsonNode scenario) throws Exception {
    log.step = -1;
    for (JsonNode node : scenario.path("nodes")) {
      addNode(node);
    }
    int index = 0;
    for (JsonNode step : scenario.path("steps")) {
      log.step = index++;
      runStep(step);
    }
  }

  private void runStep(JsonNode step) throws Exception {
    String kind = step.path("step").asText();
    AppState named = apps.get(step.path("app").asText(""));
    if (named != null && !kind.equals("submit") && !kind.equals("move") && !named.live()) {
      // fairshare let this app run but YARN rejected it (or it has ended there): the
      // divergence is already in the events; YARN has nothing to do with the step. A move
      // still goes to YARN, which answers that the app is not found.
      return;
    }
    switch (kind) {
      case "add-node": addNode(step); break;
      case "remove-node": removeNode(step.path("name").asText()); break;
      case "resize-node": resizeNode(step.path("name").asText(), Res.of(step.path("resources")));
        break;
      case "submit": appModel.submit(step); break;
      case "request": appModel.request(apps.get(step.path("app").asText()),
          step.path("requests"));
        break;
      case "update": preemption.update(); break;
      case "heartbeat": heartbeat(step.path("node").asText(), step.path("times").asInt(1)); break;
      case "advance": preemption.advance(step.path("ms").asLong()); break;
      case "release": appModel.release(apps.get(step.path("app").asText()),
          step.path("count").asInt(1), step.path("which").asText("newest"));
        break;
      case "release-container": appModel.releaseContainer(named,
          step.path("container").asText());
        break;
      case "finish": appModel.end(apps.get(step.path("app").asText()), true); break;
      case "kill": appModel.end(apps.get(step.path("app").asText()), false); break;
      case "reload": appModel.reload(step.path("allocations").asText()); break;
      case "move": appModel.move(apps.get(step.path("app").asText()),
          step.path("queue").asText());
        break;
      case "snapshot":
        snapshots.add(Snapshots.take(this, step.path("label")));
        rest.add(Rest.take(this));
        break;
      case "expect": break;
      default: throw new IllegalArgumentException("unknown step " + kind);
    }
  }

  // ---- nodes: NodeAddedSchedulerEvent, NodeRemovedSchedulerEvent, NodeResourceUpdate… ----

  private void addNode(JsonNode spec) throws Exception {
    RmStubs.NodeRecord node = new RmStubs.NodeRecord(spec.path("name").asText(),
        spec.path("rack").asText("/default-rack"), Res.of(spec.path("resources")),
        registrations++);
    node.rmNode = RmStubs.node(node, cluster.context);
    // container tokens name the node's address (BuilderUtils.newContainerToken): resolve the
    // scenario's host names statically, without DNS
    NetUtils.addStaticResolution(node.name, "127.0.0.1");
    node.lastHeartbeatMs = cluster.clock.getTime();
    nodes.put(node.name, node);
    nodesById.put(node.id.getHost(), node);
    nodeJoined(node);
    cluster.context.getRMNodes().put(node.id, node.rmNode);
    act("released", () -> scheduler.handle(new NodeAddedSchedulerEvent(node.rmNode)));
    log.emit("node-added", "node", node.name, "rack", node.rack,
        "capacity", Res.map(node.total));
  }

  private void removeNode(String name) throws Exception {
    RmStubs.NodeRecord node = nodes.get(name);
    long lost = live.values().stream().filter(c -> c.node.equals(name)).count();
    act("lost", () -> scheduler.handle(new NodeRemovedSchedulerEvent(node.rmNode)));
    log.emit("node-removed", "node", name, "lost-containers", lost);
    nodes.remove(name);
    cluster.context.getRMNodes().remove(node.id);
    // RMNodeImpl.DeactivateNodeTransition to LOST: the node moves to the inactive nodes
    ClusterMetrics.getMetrics().decrNumActiveNodes();
    ClusterMetrics.getMetrics().incrNumLostNMs();
    lostNodes.put(node.id, node);
  }

  /**
   * RMNodeImpl.AddNodeTransition's ClusterMetrics: one more active node; a host that was lost
   * rejoins (its inactive entry goes, one lost node fewer). The driver gives every
   * registration a new port (portInRegistrationOrder), where a restarted NodeManager keeps
   * its own: the rejoining node is found by host.
   */
  private void nodeJoined(RmStubs.NodeRecord node) {
    for (NodeId lost : new ArrayList<>(lostNodes.keySet())) {
      if (lost.getHost().equals(node.id.getHost())) {
        lostNodes.remove(lost);
        ClusterMetrics.getMetrics().decrNumLostNMs();
      }
    }
    ClusterMetrics.getMetrics().incrNumActiveNodes();
  }

  private void resizeNode(String name, Resource total) throws Exception {
    RmStubs.NodeRecord node = nodes.get(name);
    node.total = total;
    // -1: no over-commit timeout, containers that no longer fit keep running (rmadmin's default)
    act("released", () -> scheduler.handle(new NodeResourceUpdateSchedulerEvent(node.rmNode,
        ResourceOption.newInstance(total, -1))));
    log.emit("node-resized", "node", name, "capacity", Res.map(total));
  }

  /** NodeUpdateSchedulerEvent: FairScheduler.nodeUpdate → attemptScheduling. */
  private void heartbeat(String which, int times) throws Exception {
    List<RmStubs.NodeRecord> targets = which.equals("*")
        ? new ArrayList<>(nodes.values()) : Collections.singletonList(nodes.get(which));
    for (int i = 0; i < times; i++) {
      for (RmStubs.NodeRecord node : targets) {
        node.lastHeartbeatMs = cluster.clock.getTime();
        act("released", () -> scheduler.handle(new NodeUpdateSchedulerEvent(node.rmNode)));
      }
    }
  }

  // ---- one scheduler action and what it caused ----

  /**
   * Runs {@code call}; containers it completes get the status {@code status} (unless YARN says
   * preempted). Then: reservations compared, promotions reported, lost AMs replaced.
   */
  void act(String status, Call call) throws Exception {
    Map<String, RMContainer> reservedBefore = reservations();
    List<ApplicationAttemptId> waiting = appModel.nonRunnable();
    String outer = completion;
    completion = status;
    depth++;
    try {
      call.run();
      collect();
      pullAndLaunch();
    } finally {
      completion = outer;
      depth--;
    }
    reservationChanges(reservedBefore);
    appModel.reportPromotions(waiting);
    // the ResourceManager fails and replaces attempts one by one, in the order their AM
    // containers ended (the dispatcher's CONTAINER_FINISHED events); a restart's own actions
    // must not start the next one before it is done
    while (depth == 0 && !restarting && !lostAm.isEmpty()) {
      restarting = true;
      try {
        appModel.restart(lostAm.remove(0));
      } finally {
        restarting = false;
      }
    }
  }

  /** The dispatcher's events, in the order the scheduler sent them. */
  private void collect() {
    for (Event<?> event : cluster.dispatcher.drain()) {
      if (event instanceof RMAppAttemptContainerFinishedEvent) {
        finished(((RMAppAttemptContainerFinishedEvent) event).getContainerStatus());
      } else if (event instanceof RMAppAttemptEvent && ((RMAppAttemptEvent) event).getType()
          == RMAppAttemptEventType.CONTAINER_ALLOCATED) {
        allocated(((RMAppAttemptEvent) event).getApplicationAttemptId());
      }
    }
  }

  /**
   * What follows an allocation in a real cluster: the AM's next allocate call pulls its new
   * containers (ACQUIRED, SchedulerApplicationAttempt.pullNewlyAllocatedContainers) and their
   * NodeManager reports them running (LAUNCHED). An AM can release a container only then.
   */
  private void pullAndLaunch() throws Exception {
    List<ApplicationAttemptId> attempts = new ArrayList<>();
    for (RMContainer c : unpulled) {
      if (!attempts.contains(c.getApplicationAttemptId())) {
        attempts.add(c.getApplicationAttemptId());
      }
    }
    for (ApplicationAttemptId attempt : attempts) {
      scheduler.allocate(attempt, new ArrayList<>(), null, new ArrayList<>(), null, null,
          new ContainerUpdates());
    }
    for (RMContainer c : unpulled) {
      c.handle(new RMContainerEvent(c.getContainerId(), RMContainerEventType.LAUNCHED));
    }
    unpulled.clear();
    collect(); // ACQUIRED/LAUNCHED notifications: nothing to report
  }

  /**
   * RMContainerImpl sends CONTAINER_ALLOCATED (no container id) for each new container, in
   * allocation order: the attempt's oldest container the driver has not seen yet is it.
   */
  private void allocated(ApplicationAttemptId attemptId) {
    AppState app = byId.get(attemptId.getApplicationId());
    FSAppAttempt attempt = scheduler.getSchedulerApp(attemptId);
    // one CONTAINER_ALLOCATED event per allocation, in order: the attempt's first container
    // not seen yet in its own list of new containers, which keeps allocation order (a
    // reservation fulfilled after other containers has the older id)
    RMContainer fresh = null;
    @SuppressWarnings("unchecked")
    List<RMContainer> newest = (List<RMContainer>) Stubs.field(attempt,
        SchedulerApplicationAttempt.class, "newlyAllocatedContainers");
    for (RMContainer c : newest) {
      if (!live.containsKey(c.getContainerId())) {
        fresh = c;
        break;
      }
    }
    if (fresh == null) {
      return;
    }
    String node = fresh.getAllocatedNode().getHost();
    Live c = new Live(app, attemptId.getAttemptId(), node, fresh.getAllocatedResource(), fresh);
    live.put(fresh.getContainerId(), c);
    allocationOrder.put(fresh.getContainerId(), (long) allocationOrder.size());
    unpulled.add(fresh);
    if (app.managed() && app.attempt.master == null) {
      // RMAppAttemptImpl.AMContainerAllocatedTransition: the attempt's first container is
      // its AM container
      ((RMContainerImpl) fresh).setAMContainer(true);
      app.attempt.master = fresh.getContainer();
    }
    log.emit("container-allocated", "app", app.name, "queue", app.queue,
        "container", containerName(fresh.getContainerId(), app), "node", node,
        "resource", Res.map(c.resource), "am", fresh.isAMContainer());
  }

  private void finished(ContainerStatus status) {
    Live c = live.remove(status.getContainerId());
    if (c == null) {
      return;
    }
    AppState app = c.app;
    String id = containerName(status.getContainerId(), app);
    boolean am = c.rm.isAMContainer();
    if (status.getExitStatus() == ContainerExitStatus.PREEMPTED) {
      app.preempted++;
      // the beneficiary's queue now (it may have moved since the warning), as fairshare reports
      AppState to = beneficiaries.remove(status.getContainerId());
      log.emit("container-preempted", "container", id, "app", app.name, "queue", app.queue,
          "node", c.node, "resource", Res.map(c.resource), "am", am,
          "beneficiary-app", to == null ? null : to.name,
          "beneficiary-queue", to == null ? null : to.queue);
    } else {
      beneficiaries.remove(status.getContainerId());
      log.emit("container-completed", "app", app.name, "queue", app.queue, "container", id,
          "node", c.node, "resource", Res.map(c.resource), "am", am, "status", completion);
    }
    if (am && !app.ended && c.attempt == app.attemptId().getAttemptId()
        && !completion.equals("attempt-failed")) {
      lostAm.add(app);
    }
  }

  static String containerName(ContainerId id, AppState app) {
    long sequence = id.getContainerId() & 0xffffffffffL; // without the RM epoch
    return String.format("container_%s_%02d_%06d", app.name,
        id.getApplicationAttemptId().getAttemptId(), sequence);
  }

  // ---- reservations: FSSchedulerNode.getReservedContainer before and after ----

  FSSchedulerNode schedulerNode(RmStubs.NodeRecord node) {
    return (FSSchedulerNode) scheduler.getNodeTracker().getNode(node.id);
  }

  private Map<String, RMContainer> reservations() {
    Map<String, RMContainer> out = new LinkedHashMap<>();
    for (RmStubs.NodeRecord node : nodes.values()) {
      FSSchedulerNode sn = schedulerNode(node);
      out.put(node.name, sn == null ? null : sn.getReservedContainer());
    }
    return out;
  }

  private void reservationChanges(Map<String, RMContainer> before) {
    Map<String, RMContainer> after = reservations();
    for (Map.Entry<String, RMContainer> e : before.entrySet()) {
      RMContainer was = e.getValue();
      RMContainer now = after.get(e.getKey());
      if (was != null && !sameReservation(was, now)) {
        AppState app = byId.get(was.getApplicationAttemptId().getApplicationId());
        log.emit("container-unreserved", "app", app.name, "node", e.getKey(),
            "resource", Res.map(was.getReservedResource()));
      }
    }
    for (Map.Entry<String, RMContainer> e : after.entrySet()) {
      RMContainer now = e.getValue();
      if (now != null && !sameReservation(before.get(e.getKey()), now)) {
        AppState app = byId.get(now.getApplicationAttemptId().getApplicationId());
        log.emit("container-reserved", "app", app.name, "queue", app.queue, "node", e.getKey(),
            "resource", Res.map(now.getReservedResource()),
            "priority", (long) now.getReservedSchedulerKey().getPriority().getPriority());
      }
    }
  }

  private static boolean sameReservation(RMContainer a, RMContainer b) {
    return a != null && b != null && a.getContainerId().equals(b.getContainerId());
  }

  /** Live containers of an attempt, oldest first. */
  List<RMContainer> containersOf(FSAppAttempt attempt) {
    // in allocation order (a reserved container's id is older than its allocation), then any
    // the driver did not see allocated (recovered) by id
    List<RMContainer> out = new ArrayList<>(attempt.getLiveContainers());
    out.sort(Comparator.comparing(
        (RMContainer c) -> allocationOrder.getOrDefault(c.getContainerId(), Long.MAX_VALUE))
        .thenComparing(RMContainer::getContainerId));
    return out;
  }
}

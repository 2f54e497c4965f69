package org.fairshare.oracle;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationSubmissionContext;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.api.records.ResourceUtilization;
import org.apache.hadoop.yarn.event.Dispatcher;
import org.apache.hadoop.yarn.event.Event;
import org.apache.hadoop.yarn.event.EventHandler;
import org.apache.hadoop.yarn.server.resourcemanager.RMContext;
import org.apache.hadoop.yarn.server.resourcemanager.OracleContext;
import org.apache.hadoop.yarn.server.resourcemanager.RMContextImpl;
import org.apache.hadoop.yarn.server.resourcemanager.ahs.RMApplicationHistoryWriter;
import org.apache.hadoop.yarn.server.resourcemanager.metrics.NoOpSystemMetricPublisher;
import org.apache.hadoop.yarn.server.resourcemanager.nodelabels.RMNodeLabelsManager;
import org.apache.hadoop.yarn.server.resourcemanager.placement.PlacementManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.ContainerAllocationExpirer;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.constraint.AllocationTagsManager;
import org.apache.hadoop.yarn.server.resourcemanager.security.NMTokenSecretManagerInRM;
import org.apache.hadoop.yarn.server.resourcemanager.security.RMContainerTokenSecretManager;
import org.apache.hadoop.yarn.server.api.records.OpportunisticContainersStatus;
import org.apache.hadoop.util.VersionInfo;

/**
 * The ResourceManager around the scheduler, reduced to what FairScheduler calls: an RMContext
 * (RMContextImpl without a state store) whose dispatcher runs nothing but records every event
 * the scheduler sends (RMAppEvent APP_ACCEPTED/APP_REJECTED, RMAppAttemptEvent
 * CONTAINER_ALLOCATED, RMAppAttemptContainerFinishedEvent, ...), and stand-ins for RMApp,
 * RMAppAttempt and RMNode answering the few calls the scheduler makes on them.
 */
final class RmStubs {
  private RmStubs() {}

  /** An inline dispatcher: events are recorded in order; the driver reads and clears them. */
  static final class Recorder implements Dispatcher {
    final List<Event<?>> events = new ArrayList<>();
    private final EventHandler<Event> handler = events::add;

    @Override
    @SuppressWarnings("rawtypes")
    public EventHandler<Event> getEventHandler() {
      return handler;
    }

    @Override
    @SuppressWarnings("rawtypes")
    public void register(Class<? extends Enum> eventType, EventHandler handler) {
      // nothing registers: the recorder handles everything
    }

    List<Event<?>> drain() {
      List<Event<?>> out = new ArrayList<>(events);
      events.clear();
      return out;
    }
  }

  /** RMNodeLabelsManager without labels: node resource changes have nothing to update. */
  private static final class NoLabels extends RMNodeLabelsManager {
    @Override
    public void updateNodeResource(NodeId node, Resource newResource) {
      // node labels are not used by the oracle's scenarios
    }
  }

  static RMContextImpl context(Configuration conf, Recorder dispatcher,
      ResourceScheduler scheduler) {
    // the secret managers sign the containers an AM pulls (SchedulerApplicationAttempt
    // .pullNewlyAllocatedContainers); their key rollers are never started
    RMContainerTokenSecretManager containerTokens = new RMContainerTokenSecretManager(conf);
    containerTokens.rollMasterKey();
    NMTokenSecretManagerInRM nmTokens = new NMTokenSecretManagerInRM(conf);
    nmTokens.rollMasterKey();
    RMContextImpl ctx = OracleContext.create(dispatcher,
        new ContainerAllocationExpirer(dispatcher), containerTokens, nmTokens, scheduler);
    ctx.setYarnConfiguration(conf);
    ctx.setRMApplicationHistoryWriter(new RMApplicationHistoryWriter());
    ctx.setSystemMetricsPublisher(new NoOpSystemMetricPublisher());
    ctx.setNodeLabelManager(new NoLabels());
    ctx.setAllocationTagsManager(new AllocationTagsManager(ctx));
    ctx.setQueuePlacementManager(new PlacementManager());
    return ctx;
  }

  /** What RMAppImpl holds and the scheduler reads: submission context, AM asks, attempt. */
  static final class AppRecord {
    final ApplicationSubmissionContext submission;
    final List<ResourceRequest> amRequests; // null: unmanaged
    RMAppAttempt currentAttempt;
    String queue;

    AppRecord(ApplicationSubmissionContext submission, List<ResourceRequest> amRequests) {
      this.submission = submission;
      this.amRequests = amRequests;
      this.queue = submission.getQueue();
    }
  }

  static RMApp app(ApplicationId id, String user, AppRecord record) {
    Map<String, Stubs.Answer> answers = new HashMap<>();
    answers.put("getApplicationId", a -> id);
    answers.put("getUser", a -> user);
    answers.put("getApplicationSubmissionContext", a -> record.submission);
    answers.put("getAMResourceRequests", a -> record.amRequests);
    answers.put("getCurrentAppAttempt", a -> record.currentAttempt);
    answers.put("getQueue", a -> record.queue);
    answers.put("setQueue", a -> {
      record.queue = (String) a[0];
      return null;
    });
    answers.put("getApplicationSchedulingEnvs", a -> Collections.emptyMap());
    return Stubs.proxy(RMApp.class, answers);
  }

  /** An attempt: the master container is set once the driver marks the AM, as
   *  RMAppAttemptImpl.AMContainerAllocatedTransition does. */
  static final class AttemptRecord {
    final ApplicationAttemptId id;
    final RMAppAttemptMetrics metrics;
    Container master;

    AttemptRecord(ApplicationAttemptId id, RMContext ctx) {
      this.id = id;
      this.metrics = new RMAppAttemptMetrics(id, ctx);
    }
  }

  static RMAppAttempt attempt(AttemptRecord record) {
    Map<String, Stubs.Answer> answers = new HashMap<>();
    answers.put("getAppAttemptId", a -> record.id);
    answers.put("getMasterContainer", a -> record.master);
    answers.put("getRMAppAttemptMetrics", a -> record.metrics);
    return Stubs.proxy(RMAppAttempt.class, answers);
  }

  /** A registered NodeManager: its id, rack and total (mutable for resize-node). */
  static final class NodeRecord {
    final String name;
    final String rack;
    final NodeId id;
    Resource total;
    RMNode rmNode;
    long lastHeartbeatMs; // the virtual clock at its registration or last heartbeat

    NodeRecord(String name, String rack, Resource total, int ordinal) {
      this.name = name;
      this.rack = rack;
      this.id = NodeId.newInstance(name, portInRegistrationOrder(name, ordinal));
      this.total = total;
    }
  }

  /**
   * A NodeManager port for the node registered {@code ordinal}-th (from 0) such that the
   * scheduler's node map (ClusterNodeTracker.nodes, a HashMap keyed by NodeId) iterates in
   * registration order: its bucket among 1024 is the ordinal, which keeps it the ordinal in
   * every table of up to 1024 buckets that holds the nodes. YARN searches nodes for preemption
   * victims in that map's order (FSPreemptionThread, getNodesByResourceName("*")), and a real
   * cluster's order depends on its ports, which a scenario does not give; fairshare uses
   * registration order (docs/fidelity.md), so the driver picks ports that make YARN's the same.
   */
  static int portInRegistrationOrder(String host, int ordinal) {
    for (int port = 1024; port < 65536; port++) {
      int h = NodeId.newInstance(host, port).hashCode();
      if (((h ^ (h >>> 16)) & 1023) == ordinal % 1024) {
        return port;
      }
    }
    throw new IllegalStateException("no port puts " + host + " in bucket " + ordinal);
  }

  static RMNode node(NodeRecord record, RMContext ctx) {
    return Stubs.proxy(RMNode.class, nodeAnswers(record, ctx));
  }

  /**
   * The node as the REST layer reads it (NodeInfo, ResourceUtilizationInfo): the scheduler's
   * stand-in, plus what RMNodeImpl holds for a healthy NodeManager of this build that reports
   * no utilisation, no opportunistic containers, no attributes or tags. A separate object:
   * the scheduler's stand-in answers as it always has.
   */
  static RMNode nodeView(NodeRecord record, RMContext ctx, NodeState state) {
    Map<String, Stubs.Answer> answers = nodeAnswers(record, ctx);
    answers.put("getState", a -> state);
    answers.put("getHealthReport", a -> "");
    answers.put("getLastHealthReportTime", a -> record.lastHeartbeatMs);
    answers.put("getNodeManagerVersion", a -> VersionInfo.getVersion());
    answers.put("getOpportunisticContainersStatus",
        a -> OpportunisticContainersStatus.newInstance());
    return Stubs.proxy(RMNode.class, answers);
  }

  private static Map<String, Stubs.Answer> nodeAnswers(NodeRecord record, RMContext ctx) {
    Map<String, Stubs.Answer> answers = new HashMap<>();
    answers.put("getNodeID", a -> record.id);
    answers.put("getHostName", a -> record.name);
    answers.put("getRackName", a -> record.rack);
    answers.put("getTotalCapability", a -> record.total);
    answers.put("getNodeAddress", a -> record.name + ":" + record.id.getPort());
    answers.put("getHttpAddress", a -> record.name + ":8042");
    answers.put("getCommandPort", a -> record.id.getPort());
    answers.put("getHttpPort", a -> 8042);
    answers.put("getRMContext", a -> ctx);
    answers.put("getState", a -> NodeState.RUNNING);
    answers.put("pullContainerUpdates", a -> Collections.emptyList());
    answers.put("getNodeLabels", a -> Collections.emptySet());
    // a NodeManager's heartbeat always carries its utilisation (NodeStatusUpdaterImpl), which
    // AbstractYarnScheduler.updateNodeResourceUtilization copies to the SchedulerNode for the
    // REST layer (SchedulerNodeReport); the Fair Scheduler does not read it. Nothing measured.
    answers.put("getNodeUtilization", a -> ResourceUtilization.newInstance(0, 0, 0f));
    answers.put("getAggregatedContainersUtilization",
        a -> ResourceUtilization.newInstance(0, 0, 0f));
    return answers;
  }
}

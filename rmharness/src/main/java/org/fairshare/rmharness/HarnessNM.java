package org.fairshare.rmharness;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerState;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceUtilization;
import org.apache.hadoop.yarn.server.api.protocolrecords.NodeHeartbeatRequest;
import org.apache.hadoop.yarn.server.api.protocolrecords.NodeHeartbeatResponse;
import org.apache.hadoop.yarn.server.api.protocolrecords.RegisterNodeManagerRequest;
import org.apache.hadoop.yarn.server.api.protocolrecords.RegisterNodeManagerResponse;
import org.apache.hadoop.yarn.server.api.records.MasterKey;
import org.apache.hadoop.yarn.server.api.records.NodeHealthStatus;
import org.apache.hadoop.yarn.server.api.records.NodeStatus;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceTrackerService;
import org.apache.hadoop.yarn.util.Records;
import org.apache.hadoop.yarn.util.YarnVersionInfo;

/**
 * A NodeManager stand-in that talks to the RM's ResourceTrackerService in-process, like
 * Hadoop's MockNM (RM test jar), with two differences that a watched RM needs:
 *
 * <ul>
 *   <li>every heartbeat carries a node and containers {@link ResourceUtilization}. MockNM
 *       sends none, AbstractYarnScheduler.updateNodeResourceUtilization copies that null
 *       into the SchedulerNode, and {@code /ws/v1/cluster/nodes} then answers 503 (an NPE in
 *       NodeInfo). The utilization reported is the containers' allocation (as if each
 *       container used what it asked for): physical = virtual = allocated MB, CPU = the
 *       allocated vcores;</li>
 *   <li>it keeps its containers' lifecycle: a container the AM launched is reported
 *       RUNNING on every heartbeat until its duration ends (then COMPLETE, exit 0) or the
 *       RM asks for its clean-up (preemption, app end), then COMPLETE once, as
 *       NodeStatusUpdaterImpl reports finished containers.</li>
 * </ul>
 *
 * <p>All methods are synchronized: the heartbeat loop and the AM threads share it.
 */
final class HarnessNM {
  private final NodeId nodeId;
  private final int httpPort;
  private final Resource capability;
  private final ResourceTrackerService tracker;
  private int responseId;
  private MasterKey containerTokenKey;
  private MasterKey nmTokenKey;
  private long tokenSequenceNo;
  /** Running containers: their allocation and the epoch ms they end at (0: never). */
  private final Map<ContainerId, Running> running = new LinkedHashMap<>();
  /** Finished containers to report COMPLETE in the next heartbeat. */
  private final List<ContainerStatus> finished = new ArrayList<>();

  private record Running(Resource resource, long endsAt) {}

  HarnessNM(String host, int port, int httpPort, Resource capability,
      ResourceTrackerService tracker) {
    this.nodeId = NodeId.newInstance(host, port);
    this.httpPort = httpPort;
    this.capability = capability;
    this.tracker = tracker;
  }

  NodeId getNodeId() {
    return nodeId;
  }

  Resource getCapability() {
    return capability;
  }

  synchronized void register() throws Exception {
    RegisterNodeManagerRequest req = Records.newRecord(RegisterNodeManagerRequest.class);
    req.setNodeId(nodeId);
    req.setHttpPort(httpPort);
    req.setResource(capability);
    req.setNMVersion(YarnVersionInfo.getVersion());
    req.setNodeStatus(status(new ArrayList<>()));
    RegisterNodeManagerResponse resp = tracker.registerNodeManager(req);
    containerTokenKey = resp.getContainerTokenMasterKey();
    nmTokenKey = resp.getNMTokenMasterKey();
    responseId = 0;
  }

  /** The AM started this container here; {@code durationMs} 0 means it runs until stopped. */
  synchronized void launch(ContainerId id, Resource resource, long durationMs) {
    long endsAt = durationMs > 0 ? System.currentTimeMillis() + durationMs : 0;
    running.put(id, new Running(resource, endsAt));
  }

  /** The container's process ended by itself (the AM finished): COMPLETE, exit 0. */
  synchronized void finish(ContainerId id) {
    if (running.remove(id) != null) {
      finished.add(ContainerStatus.newInstance(id, ContainerState.COMPLETE, "finished",
          ContainerExitStatus.SUCCESS));
    }
  }

  /** Reports every running container, finishes those due, and obeys the RM's clean-ups. */
  synchronized void heartbeat() throws Exception {
    long now = System.currentTimeMillis();
    List<ContainerStatus> statuses = new ArrayList<>(finished);
    finished.clear();
    List<ContainerId> due = new ArrayList<>();
    for (Map.Entry<ContainerId, Running> e : running.entrySet()) {
      Running r = e.getValue();
      if (r.endsAt() > 0 && r.endsAt() <= now) {
        due.add(e.getKey());
        statuses.add(ContainerStatus.newInstance(e.getKey(), ContainerState.COMPLETE,
            "finished", ContainerExitStatus.SUCCESS));
      } else {
        statuses.add(ContainerStatus.newInstance(e.getKey(), ContainerState.RUNNING, "",
            ContainerExitStatus.INVALID));
      }
    }
    due.forEach(running::remove);
    NodeHeartbeatRequest req = Records.newRecord(NodeHeartbeatRequest.class);
    req.setNodeStatus(status(statuses));
    req.setLastKnownContainerTokenMasterKey(containerTokenKey);
    req.setLastKnownNMTokenMasterKey(nmTokenKey);
    req.setTokenSequenceNo(tokenSequenceNo);
    NodeHeartbeatResponse resp = tracker.nodeHeartbeat(req);
    responseId = resp.getResponseId();
    if (resp.getContainerTokenMasterKey() != null) {
      containerTokenKey = resp.getContainerTokenMasterKey();
    }
    if (resp.getNMTokenMasterKey() != null) {
      nmTokenKey = resp.getNMTokenMasterKey();
    }
    tokenSequenceNo = resp.getTokenSequenceNo();
    Set<ContainerId> cleanup = new HashSet<>(resp.getContainersToCleanup());
    for (ContainerId id : running.keySet()) {
      if (resp.getApplicationsToCleanup().contains(
          id.getApplicationAttemptId().getApplicationId())) {
        cleanup.add(id);
      }
    }
    for (ContainerId id : cleanup) {
      if (running.remove(id) != null) {
        finished.add(ContainerStatus.newInstance(id, ContainerState.COMPLETE,
            "Container killed by the ApplicationMaster or the ResourceManager.",
            ContainerExitStatus.KILLED_BY_RESOURCEMANAGER));
      }
    }
  }

  private NodeStatus status(List<ContainerStatus> statuses) {
    NodeStatus status = Records.newRecord(NodeStatus.class);
    status.setResponseId(responseId);
    status.setNodeId(nodeId);
    status.setContainersStatuses(statuses);
    NodeHealthStatus health = Records.newRecord(NodeHealthStatus.class);
    health.setHealthReport("");
    health.setIsNodeHealthy(true);
    health.setLastHealthReportTime(System.currentTimeMillis());
    status.setNodeHealthStatus(health);
    long mb = 0;
    long vcores = 0;
    for (Running r : running.values()) {
      mb += r.resource().getMemorySize();
      vcores += r.resource().getVirtualCores();
    }
    // in vcores, as the NM's ContainersMonitorImpl reports it (NodeInfo's cpuUtilization
    // divides it by the node's vcores)
    float cpu = (float) vcores;
    ResourceUtilization used = ResourceUtilization.newInstance((int) mb, (int) mb, cpu);
    status.setContainersUtilization(used);
    status.setNodeUtilization(ResourceUtilization.newInstance((int) mb, (int) mb, cpu));
    return status;
  }
}

package org.fairshare.rmharness;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.NodeId;
import org.apache.hadoop.yarn.api.records.NodeState;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;

/**
 * The cluster's NodeManagers and their heartbeat loop. One thread heartbeats every node every
 * {@code intervalMs}: with the FairScheduler's default (no continuous scheduling) each
 * heartbeat is where FairScheduler.nodeUpdate → attemptScheduling places containers, so
 * this loop is the cluster's scheduling clock.
 */
final class Nodes {
  private final Map<NodeId, HarnessNM> nodes = new LinkedHashMap<>();
  private final long intervalMs;
  private final Events events;
  private volatile boolean stopping;
  private Thread loop;

  Nodes(long intervalMs, Events events) {
    this.intervalMs = intervalMs;
    this.events = events;
  }

  /**
   * Registers {@code count} nodes {@code 127.0.0.1:<firstPort + i>}: an IP literal needs no
   * resolution (a MockNM host like {@code h1} loops on UnknownHostException while the RM
   * builds container tokens).
   */
  void register(MockRM rm, int count, Resource capability, int firstPort) throws Exception {
    for (int i = 0; i < count; i++) {
      HarnessNM nm = new HarnessNM("127.0.0.1", firstPort + i, firstPort + 1000 + i,
          capability, rm.getResourceTrackerService());
      nm.register();
      rm.drainEvents();
      rm.waitForState(nm.getNodeId(), NodeState.RUNNING);
      nm.heartbeat();
      synchronized (nodes) {
        nodes.put(nm.getNodeId(), nm);
      }
    }
  }

  /** One {@code node_registered} event per node (after {@code PORT}, which comes first). */
  void announce() {
    for (HarnessNM nm : all()) {
      events.event("node_registered").with("node", nm.getNodeId().toString())
          .with("mb", nm.getCapability().getMemorySize())
          .with("vcores", nm.getCapability().getVirtualCores()).emit();
    }
  }

  void start() {
    loop = new Thread(this::beat, "harness-heartbeats");
    loop.setDaemon(true);
    loop.start();
  }

  void stop() throws InterruptedException {
    stopping = true;
    if (loop != null) {
      loop.join(2000);
    }
  }

  private List<HarnessNM> all() {
    synchronized (nodes) {
      return new ArrayList<>(nodes.values());
    }
  }

  private void beat() {
    while (!stopping) {
      for (HarnessNM nm : all()) {
        try {
          nm.heartbeat();
        } catch (Exception e) {
          if (!stopping) {
            System.err.println("heartbeat of " + nm.getNodeId() + " failed: " + e);
          }
        }
      }
      try {
        Thread.sleep(intervalMs);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  private HarnessNM node(NodeId id) {
    synchronized (nodes) {
      HarnessNM nm = nodes.get(id);
      if (nm == null) {
        throw new IllegalStateException("container on unknown node " + id);
      }
      return nm;
    }
  }

  /** The AM started the container on its node (an NM startContainers call). */
  void launch(Container c, long durationMs) {
    node(c.getNodeId()).launch(c.getId(), c.getResource(), durationMs);
  }

  /** The container's process exited by itself. */
  void finish(Container c) {
    node(c.getNodeId()).finish(c.getId());
  }
}

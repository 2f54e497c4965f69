package org.fairshare.rmharness;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.apache.hadoop.yarn.api.protocolrecords.AllocateResponse;
import org.apache.hadoop.yarn.api.protocolrecords.FinishApplicationMasterRequest;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Container;
import org.apache.hadoop.yarn.api.records.ContainerExitStatus;
import org.apache.hadoop.yarn.api.records.ContainerId;
import org.apache.hadoop.yarn.api.records.ContainerStatus;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.PreemptionContainer;
import org.apache.hadoop.yarn.api.records.PreemptionMessage;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.ResourceRequest;
import org.apache.hadoop.yarn.server.resourcemanager.MockAM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmissionData;
import org.apache.hadoop.yarn.server.resourcemanager.MockRMAppSubmitter;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppState;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptState;

/**
 * One application's life, on its own thread: submit through ClientRMService (as the script's
 * user), wait — however long contention makes it — until the scheduler allocates the AM
 * container, launch and register the AM (MockRM.sendAMLaunched, MockAM.registerAppAttempt),
 * then call ApplicationMasterService.allocate every poll, as a real AM's heartbeat does: that
 * is how allocated containers are picked up (and started on their node) and how completed
 * ones, including the containers FSPreemptionThread killed (exit
 * {@link ContainerExitStatus#PREEMPTED}), are seen.
 */
final class AppDriver implements Runnable {
  private final MockRM rm;
  private final Script.App spec;
  private final Nodes nodes;
  private final Events events;
  private final long epochMs;
  private final long pollMs;
  private volatile boolean stopping;
  private volatile String appId = "";
  private volatile String queue = "";
  private volatile String phase = "waiting";
  private int allocated;
  private int preempted;
  private int completed;
  private final Set<ContainerId> warned = new HashSet<>();
  private final Map<Integer, Long> durationByPriority = new HashMap<>();

  AppDriver(MockRM rm, Script.App spec, Nodes nodes, Events events, long epochMs, long pollMs) {
    this.rm = rm;
    this.spec = spec;
    this.nodes = nodes;
    this.events = events;
    this.epochMs = epochMs;
    this.pollMs = pollMs;
  }

  void stop() {
    stopping = true;
  }

  /** A line of the {@code status} answer. */
  synchronized Map<String, Object> summary() {
    Map<String, Object> m = new HashMap<>();
    m.put("app", appId);
    m.put("name", spec.name());
    m.put("queue", queue);
    m.put("phase", phase);
    m.put("allocated", allocated);
    m.put("preempted", preempted);
    m.put("completed", completed);
    return m;
  }

  @Override
  public void run() {
    try {
      drive();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      if (!stopping) {
        phase = "error";
        events.event("error").with("app", appId).with("name", spec.name())
            .with("message", String.valueOf(e)).emit();
        e.printStackTrace();
      }
    }
  }

  private boolean sleepUntil(long epoch) throws InterruptedException {
    while (!stopping && System.currentTimeMillis() < epoch) {
      Thread.sleep(Math.min(50, Math.max(1, epoch - System.currentTimeMillis())));
    }
    return !stopping;
  }

  private void drive() throws Exception {
    if (!sleepUntil(epochMs + spec.atMs())) {
      return;
    }
    RMApp app;
    if (spec.existing().isEmpty()) {
      MockRMAppSubmissionData data = MockRMAppSubmissionData.Builder
          .createWithResource(Resource.newInstance(spec.amMb(), spec.amVcores()), rm)
          .withAppName(spec.name()).withUser(spec.user()).withQueue(spec.queue())
          .withAppType(spec.type()).withMaxAppAttempts(1)
          .withWaitForAppAcceptedState(false).build();
      app = MockRMAppSubmitter.submit(rm, data);
    } else {
      // submitted through RMWebServices: MockRM starts no AM launcher, so the attempt waits
      // in ALLOCATED until this driver plays its AM (sendAMLaunched, register, allocate)
      app = rm.getRMContext().getRMApps().get(ApplicationId.fromString(spec.existing()));
      if (app == null) {
        throw new IllegalArgumentException("drive: no app " + spec.existing());
      }
    }
    appId = app.getApplicationId().toString();
    while (!stopping && app.getState() != RMAppState.ACCEPTED
        && app.getState() != RMAppState.RUNNING && !isFinal(app.getState())) {
      Thread.sleep(20);
    }
    queue = app.getQueue();
    events.event("app_submitted").with("app", appId).with("name", spec.name())
        .with("user", spec.user()).with("queue", queue).with("state", app.getState().name())
        .emit();
    if (isFinal(app.getState())) {
      phase = "rejected";
      events.event("app_rejected").with("app", appId).with("queue", queue)
          .with("diagnostics", app.getDiagnostics().toString()).emit();
      return;
    }
    phase = "am_pending";
    RMAppAttempt attempt = app.getCurrentAppAttempt();
    while (!stopping && attempt.getAppAttemptState() != RMAppAttemptState.ALLOCATED) {
      if (isFinal(app.getState())) {
        return;
      }
      Thread.sleep(20);
    }
    if (stopping) {
      return;
    }
    Container master = attempt.getMasterContainer();
    nodes.launch(master, 0);
    events.event("am_allocated").with("app", appId).with("queue", queue)
        .with("container", master.getId().toString())
        .with("node", master.getNodeId().toString()).emit();
    MockAM am = rm.sendAMLaunched(attempt.getAppAttemptId());
    am.registerAppAttempt();
    phase = "running";
    long registered = System.currentTimeMillis();
    events.event("am_registered").with("app", appId).with("queue", queue)
        .with("attempt", attempt.getAppAttemptId().toString()).emit();
    List<Script.Ask> unsent = new ArrayList<>(spec.asks());
    while (!stopping) {
      long now = System.currentTimeMillis();
      List<ResourceRequest> asks = new ArrayList<>();
      for (Script.Ask a : List.copyOf(unsent)) {
        if (registered + a.afterMs() <= now) {
          unsent.remove(a);
          durationByPriority.put(a.priority(), a.durationMs());
          asks.add(ResourceRequest.newInstance(Priority.newInstance(a.priority()),
              ResourceRequest.ANY, Resource.newInstance(a.mb(), a.vcores()), a.containers()));
          events.event("asked").with("app", appId).with("queue", queue)
              .with("containers", a.containers()).with("mb", a.mb())
              .with("vcores", a.vcores()).with("priority", a.priority()).emit();
        }
      }
      observe(am.allocate(asks, new ArrayList<>()));
      if (spec.finishAfterMs() > 0 && registered + spec.finishAfterMs() <= now) {
        finish(am, master);
        return;
      }
      Thread.sleep(pollMs);
    }
  }

  private void observe(AllocateResponse resp) {
    synchronized (this) {
      for (Container c : resp.getAllocatedContainers()) {
        allocated++;
        long duration = durationByPriority.getOrDefault(c.getPriority().getPriority(), 0L);
        nodes.launch(c, duration);
        events.event("allocated").with("app", appId).with("queue", queue)
            .with("container", c.getId().toString()).with("node", c.getNodeId().toString())
            .with("mb", c.getResource().getMemorySize())
            .with("vcores", c.getResource().getVirtualCores()).emit();
      }
      for (ContainerStatus s : resp.getCompletedContainersStatuses()) {
        boolean wasPreempted = s.getExitStatus() == ContainerExitStatus.PREEMPTED;
        if (wasPreempted) {
          preempted++;
        } else {
          completed++;
        }
        events.event(wasPreempted ? "preempted" : "completed").with("app", appId)
            .with("queue", queue).with("container", s.getContainerId().toString())
            .with("exit_status", s.getExitStatus()).with("diagnostics", s.getDiagnostics())
            .emit();
      }
    }
    PreemptionMessage msg = resp.getPreemptionMessage();
    List<String> fresh = new ArrayList<>();
    if (msg != null && msg.getStrictContract() != null) {
      for (PreemptionContainer pc : msg.getStrictContract().getContainers()) {
        if (warned.add(pc.getId())) {
          fresh.add(pc.getId().toString());
        }
      }
    }
    if (msg != null && msg.getContract() != null) {
      for (PreemptionContainer pc : msg.getContract().getContainers()) {
        if (warned.add(pc.getId())) {
          fresh.add(pc.getId().toString());
        }
      }
    }
    if (!fresh.isEmpty()) {
      events.event("preemption_warned").with("app", appId).with("queue", queue)
          .with("containers", fresh).emit();
    }
  }

  private void finish(MockAM am, Container master) throws Exception {
    am.unregisterAppAttempt(FinishApplicationMasterRequest.newInstance(
        FinalApplicationStatus.SUCCEEDED, "", ""), false);
    nodes.finish(master);
    phase = "finished";
    events.event("app_finished").with("app", appId).with("queue", queue).emit();
  }

  private static boolean isFinal(RMAppState s) {
    return s == RMAppState.FAILED || s == RMAppState.KILLED || s == RMAppState.FINISHED;
  }
}

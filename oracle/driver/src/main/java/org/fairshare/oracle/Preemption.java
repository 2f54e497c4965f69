package org.fairshare.oracle;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainerEventType;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.SchedulerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.OracleBridge;

/**
 * The update step and FSPreemptionThread's work, single-threaded: after FairScheduler.update()
 * the starved-apps queue is drained without blocking; for each app the thread's own
 * identifyContainersToPreempt runs (it tracks the victims against their node and warns their
 * apps), a kill is scheduled waitTimeBeforeKill later on the virtual clock (what
 * PreemptContainersTask does on the thread's Timer), then preemptionTriggered.
 */
final class Preemption {
  /** One PreemptContainersTask: its containers, due at {@code at}. */
  private static final class Kill {
    final long at;
    final List<RMContainer> containers;

    Kill(long at, List<RMContainer> containers) {
      this.at = at;
      this.containers = containers;
    }
  }

  private final Driver d;
  private final FairScheduler scheduler;
  private final Thread thread; // FSPreemptionThread, never started; null: preemption off
  private final List<Kill> timers = new ArrayList<>(); // in due order (stable for ties)

  Preemption(Driver driver) {
    this.d = driver;
    this.scheduler = driver.scheduler;
    this.thread = OracleBridge.preemptionThread(scheduler);
    if (thread != null) {
      OracleBridge.cancelTimer(thread); // its Timer thread is never used
    }
  }

  void update() throws Exception {
    d.act("released", scheduler::update);
    if (thread == null) {
      return;
    }
    long warn = OracleBridge.warnTimeBeforeKill(thread);
    long delay = OracleBridge.delayBeforeNextStarvationCheck(thread);
    FSAppAttempt starved;
    while ((starved = OracleBridge.pollStarvedApp(scheduler)) != null) {
      preemptFor(starved, warn);
      OracleBridge.preemptionTriggered(starved, delay);
    }
  }

  private void preemptFor(FSAppAttempt starved, long warn) throws Exception {
    AppState app = d.byId.get(starved.getApplicationId());
    d.log.emit("starvation", "app", app.name, "queue", app.queue,
        "fairshare-starvation", Res.map(OracleBridge.fairshareStarvation(starved)),
        "minshare-starvation", Res.map(OracleBridge.minshareStarvation(starved)));
    List<RMContainer> victims = OracleBridge.identifyContainersToPreempt(thread, starved);
    long at = d.cluster.clock.getTime() + warn;
    for (RMContainer victim : victims) {
      Driver.Live c = d.live.get(victim.getContainerId());
      d.beneficiaries.put(victim.getContainerId(), app);
      d.log.emit("preemption-warned", "container",
          Driver.containerName(victim.getContainerId(), c.app), "app", c.app.name,
          "queue", c.app.queue, "node", c.node, "resource", Res.map(c.resource),
          "am", victim.isAMContainer(), "beneficiary-app", app.name,
          "beneficiary-queue", app.queue, "kill-at-ms", at);
    }
    schedule(new Kill(at, victims));
    if (warn <= 0) {
      fireDue(d.cluster.clock.getTime());
    }
  }

  private void schedule(Kill kill) {
    int i = timers.size();
    while (i > 0 && timers.get(i - 1).at > kill.at) {
      i--;
    }
    timers.add(i, kill);
  }

  /** The clock moves by {@code ms}; kills due on the way fire at their own time, in order. */
  void advance(long ms) throws Exception {
    long target = d.cluster.clock.getTime() + ms;
    fireDue(target);
    d.cluster.clock.set(target);
  }

  private void fireDue(long until) throws Exception {
    while (!timers.isEmpty() && timers.get(0).at <= until) {
      Kill kill = timers.remove(0);
      d.cluster.clock.set(Math.max(d.cluster.clock.getTime(), kill.at));
      d.act("preempted", () -> {
        for (RMContainer container : kill.containers) {
          scheduler.completedContainer(container,
              SchedulerUtils.createPreemptedContainerStatus(container.getContainerId(),
                  SchedulerUtils.PREEMPTED_CONTAINER), RMContainerEventType.KILL);
        }
      });
    }
  }
}

package org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.PriorityBlockingQueue;

import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.RMContainer;
import org.apache.hadoop.yarn.server.scheduler.SchedulerRequestKey;

/**
 * The fairshare oracle's window on the Fair Scheduler's package-private members (it lives in
 * Hadoop's package for that reason only; nothing here changes what the scheduler does). What
 * is private is reached by reflection, as issue 19 allows: the preemption thread's
 * container identification and its timing fields, the starved-apps queue, and the delay
 * scheduling state of an app.
 */
public final class OracleBridge {
  private static final Method IDENTIFY = accessible(FSPreemptionThread.class,
      "identifyContainersToPreempt", FSAppAttempt.class);

  private OracleBridge() {}

  private static Method accessible(Class<?> type, String name, Class<?>... params) {
    try {
      Method m = type.getDeclaredMethod(name, params);
      m.setAccessible(true);
      return m;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Object field(Object owner, Class<?> type, String name) {
    try {
      java.lang.reflect.Field f = type.getDeclaredField(name);
      f.setAccessible(true);
      return f.get(owner);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The preemption thread init() created (never started), or null with preemption off. */
  public static Thread preemptionThread(FairScheduler scheduler) {
    return scheduler.preemptionThread;
  }

  /** FSPreemptionThread's Timer thread is created with it; it would outlive the scenario. */
  public static void cancelTimer(Thread thread) {
    ((java.util.Timer) field(thread, FSPreemptionThread.class, "preemptionTimer")).cancel();
  }

  public static long warnTimeBeforeKill(Thread thread) {
    return (Long) field(thread, FSPreemptionThread.class, "warnTimeBeforeKill");
  }

  public static long delayBeforeNextStarvationCheck(Thread thread) {
    return (Long) field(thread, FSPreemptionThread.class, "delayBeforeNextStarvationCheck");
  }

  /**
   * The next starved app, without blocking (FSStarvedApps.take would block): the queue the
   * update pass filled, in the order the preemption thread would take them.
   */
  @SuppressWarnings("unchecked")
  public static FSAppAttempt pollStarvedApp(FairScheduler scheduler) {
    FSStarvedApps starved = scheduler.getContext().getStarvedApps();
    PriorityBlockingQueue<FSAppAttempt> queue = (PriorityBlockingQueue<FSAppAttempt>)
        field(starved, FSStarvedApps.class, "appsToProcess");
    return queue.poll();
  }

  /** FSPreemptionThread.identifyContainersToPreempt (private): finds, tracks, warns. */
  @SuppressWarnings("unchecked")
  public static List<RMContainer> identifyContainersToPreempt(Thread thread,
      FSAppAttempt starvedApp) {
    try {
      return (List<RMContainer>) IDENTIFY.invoke(thread, starvedApp);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (cause instanceof RuntimeException) {
        throw (RuntimeException) cause;
      }
      throw new IllegalStateException(cause);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  public static void preemptionTriggered(FSAppAttempt app, long delay) {
    app.preemptionTriggered(delay);
  }

  public static Resource fairshareStarvation(FSAppAttempt app) {
    return app.getFairshareStarvation();
  }

  public static Resource minshareStarvation(FSAppAttempt app) {
    return app.getMinshareStarvation();
  }

  public static boolean isStarved(FSAppAttempt app) {
    return app.isStarved();
  }

  public static Resource resourcesToBePreempted(FSAppAttempt app) {
    return (Resource) field(app, FSAppAttempt.class, "resourcesToBePreempted");
  }

  @SuppressWarnings("unchecked")
  public static Set<RMContainer> containersToBePreempted(FSAppAttempt app) {
    return (Set<RMContainer>) field(app, FSAppAttempt.class, "containersToBePreempted");
  }

  /** The scheduler keys FSAppAttempt keeps delay-scheduling state for (allowedLocalityLevel). */
  @SuppressWarnings("unchecked")
  public static List<SchedulerRequestKey> localityKeys(FSAppAttempt app) {
    Map<SchedulerRequestKey, ?> levels = (Map<SchedulerRequestKey, ?>)
        field(app, FSAppAttempt.class, "allowedLocalityLevel");
    return new ArrayList<>(levels.keySet());
  }

  public static Resource amResourceUsage(FSLeafQueue queue) {
    return queue.getAmResourceUsage();
  }

  public static Set<RMContainer> containersForPreemption(FSSchedulerNode node) {
    return node.getContainersForPreemption();
  }

  public static Resource totalReserved(FSSchedulerNode node) {
    return node.getTotalReserved();
  }

  public static boolean isRunnable(FSLeafQueue queue, FSAppAttempt app) {
    return queue.isRunnableApp(app);
  }
}

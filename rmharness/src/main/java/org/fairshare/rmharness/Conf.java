package org.fairshare.rmharness;

import java.nio.file.Path;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.conf.YarnConfiguration;

/**
 * The RM's configuration (what a yarn-site.xml would say). Preemption is made to happen within
 * seconds: FairScheduler's defaults wait 15 s before killing a warned container
 * (yarn.scheduler.fair.waitTimeBeforeKill) and 10 s before checking a starved app again;
 * the harness shortens both. The starvation timeouts themselves are in the allocation file.
 */
final class Conf {
  private Conf() {}

  static Configuration build(Main.Options o, Path allocations) {
    YarnConfiguration conf = new YarnConfiguration();
    conf.setBoolean("mockrm.webapp.enabled", true);       // MockRM.ENABLE_WEBAPP
    conf.set(YarnConfiguration.RM_WEBAPP_ADDRESS, "127.0.0.1:" + o.port);
    conf.set(YarnConfiguration.RM_BIND_HOST, "127.0.0.1");
    conf.setLong(YarnConfiguration.RM_NM_HEARTBEAT_INTERVAL_MS, o.heartbeatMs);
    if (o.scheduler.equals("capacity")) {
      conf.set(YarnConfiguration.RM_SCHEDULER,
          "org.apache.hadoop.yarn.server.resourcemanager.scheduler.capacity.CapacityScheduler");
      // two leaves, like the contention allocation file (CapacitySchedulerConfiguration keys)
      conf.set("yarn.scheduler.capacity.root.queues", "a,b");
      conf.set("yarn.scheduler.capacity.root.a.capacity", "50");
      conf.set("yarn.scheduler.capacity.root.b.capacity", "50");
      conf.set("yarn.scheduler.capacity.root.a.maximum-capacity", "100");
      conf.set("yarn.scheduler.capacity.root.b.maximum-capacity", "100");
      conf.set("yarn.scheduler.capacity.root.a.user-limit-factor", "10");
      conf.set("yarn.scheduler.capacity.root.b.user-limit-factor", "10");
      return conf;
    }
    conf.set(YarnConfiguration.RM_SCHEDULER,
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler");
    conf.set("yarn.scheduler.fair.allocation.file", allocations.toString());
    conf.setBoolean("yarn.scheduler.fair.preemption", true);
    conf.setFloat("yarn.scheduler.fair.preemption.cluster-utilization-threshold",
        o.utilizationThreshold);
    conf.setLong("yarn.scheduler.fair.waitTimeBeforeKill", o.killWaitMs);
    conf.setLong("yarn.scheduler.fair.waitTimeBeforeNextStarvationCheck", 1000);
    conf.setBoolean("yarn.scheduler.fair.user-as-default-queue", false);
    if (o.site != null) {
      // a site file's properties win over the ones above, as a yarn-site.xml over defaults
      Configuration site = new Configuration(false);
      site.addResource(new org.apache.hadoop.fs.Path(Path.of(o.site).toAbsolutePath().toUri()));
      for (java.util.Map.Entry<String, String> e : site) {
        conf.set(e.getKey(), e.getValue());
      }
    }
    return conf;
  }

  /** MockRM's constructor calls GenericTestUtils.setRootLogLevel(DEBUG); undo that. */
  static void quietLogs(String level) {
    org.apache.log4j.Level l = org.apache.log4j.Level.toLevel(level,
        org.apache.log4j.Level.WARN);
    org.apache.log4j.LogManager.getRootLogger().setLevel(l);
    // the preemption decisions are worth keeping in the log
    org.apache.log4j.LogManager.getLogger(
        "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSPreemptionThread")
        .setLevel(org.apache.log4j.Level.INFO);
  }
}

package org.fairshare.oracle;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.yarn.security.YarnAuthorizationProvider;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.ClusterMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.RMContextImpl;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.QueueMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairSchedulerConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.SchedulingPolicy;
import org.apache.hadoop.yarn.util.resource.ResourceUtils;
import org.apache.hadoop.yarn.util.resource.Resources;

/**
 * One scenario's scheduler, built as the ResourceManager builds it (ResourceManager's
 * RMActiveServices: an RMContext, then FairScheduler.setRMContext and init), minus start():
 * no update thread, no allocation reload thread, no continuous scheduling, no preemption
 * thread. Static state Hadoop keeps per JVM (queue metrics, the metrics system, the
 * authorizer, resource types, the groups cache) is reset first.
 */
final class Cluster {
  /** yarn-default.xml parsed once per JVM; each scenario copies it. */
  private static Configuration base;

  final Configuration conf;
  final VirtualClock clock;
  final RmStubs.Recorder dispatcher = new RmStubs.Recorder();
  final RMContextImpl context;
  final FairScheduler scheduler;
  final Path allocationFile;
  boolean hasAllocationFile;

  Cluster(JsonNode scenario, Path workDir) throws IOException, ReflectiveOperationException {
    conf = new YarnConfiguration(baseConfiguration());
    Iterator<Map.Entry<String, JsonNode>> site = scenario.path("site").fields();
    while (site.hasNext()) {
      Map.Entry<String, JsonNode> e = site.next();
      conf.set(e.getKey(), e.getValue().asText());
    }
    // absolute: AllocationFileLoaderService looks a relative name up on the class path
    allocationFile = workDir.toAbsolutePath().resolve("fair-scheduler.xml");
    JsonNode allocations = scenario.path("allocations");
    hasAllocationFile = !allocations.isNull() && !allocations.isMissingNode();
    if (hasAllocationFile) {
      writeAllocations(allocations.asText());
      conf.set(FairSchedulerConfiguration.ALLOCATION_FILE, allocationFile.toString());
    } else {
      // a relative name found nowhere on the class path: AllocationFileLoaderService then
      // runs without a file, as YARN does when fair-scheduler.xml does not exist
      conf.set(FairSchedulerConfiguration.ALLOCATION_FILE, "fairshare-oracle-no-file.xml");
    }
    resetStatics(scenario.path("groups"));
    clock = new VirtualClock(scenario.path("start-ms").asLong(0));
    scheduler = new FairScheduler();
    scheduler.setClock(clock);
    context = RmStubs.context(conf, dispatcher, scheduler);
    scheduler.setRMContext(context);
    scheduler.init(conf);
    // ClusterNodeTracker caps the maximum allocation by the largest node once the RM has run
    // for scheduling-wait-ms of wall-clock time; fairshare uses the configured maximum, and
    // the wall clock has no place here: keep the configured one.
    scheduler.getNodeTracker().setForceConfiguredMaxAllocation(true);
    scheduler.getNodeTracker().setConfiguredMaxAllocationWaitTime(Long.MAX_VALUE);
  }

  private static synchronized Configuration baseConfiguration() {
    if (base == null) {
      base = new YarnConfiguration();
      ScenarioGroups.configure(base);
      base.size(); // parse the default resources now, once
    }
    return base;
  }

  private void resetStatics(JsonNode groupsNode) throws ReflectiveOperationException {
    QueueMetrics.clearQueueMetrics();
    ClusterMetrics.destroy(); // the node counts the REST answers read (Rest)
    DefaultMetricsSystem.shutdown();
    YarnAuthorizationProvider.destroy();
    ResourceUtils.resetResourceTypes(conf);
    // Resources.none() and unbounded() keep one entry per resource type known when they were
    // first built, and rebuild only when types are added (YARN-7307): with fewer types than an
    // earlier scenario's, none() would no longer equal a zero resource
    for (Resource fixed : new Resource[] {Resources.none(), Resources.unbounded()}) {
      Stubs.method(fixed.getClass(), "initResourceMap").invoke(fixed);
    }
    // SchedulingPolicy.getInstance keeps one policy per class for the JVM's life: each
    // scenario gets its own. (DominantResourceFairnessPolicy also counts the resource types
    // once per JVM, in a static final field; the oracle gives a JVM scenarios of one set of
    // resource types: oracle/run.py, driver_batches.)
    ((Map<?, ?>) Stubs.field(null, SchedulingPolicy.class, "instances")).clear();
    Map<String, List<String>> groups = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> users = groupsNode.fields();
    while (users.hasNext()) {
      Map.Entry<String, JsonNode> e = users.next();
      List<String> names = new ArrayList<>();
      e.getValue().forEach(g -> names.add(g.asText()));
      groups.put(e.getKey(), names);
    }
    ScenarioGroups.install(groups, conf);
  }

  void writeAllocations(String text) throws IOException {
    Files.write(allocationFile, text.getBytes(StandardCharsets.UTF_8));
  }
}

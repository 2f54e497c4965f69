package org.fairshare.oracle;

import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.ApplicationResourceUsageReport;
import org.apache.hadoop.yarn.api.records.FinalApplicationStatus;
import org.apache.hadoop.yarn.api.records.LogAggregationStatus;
import org.apache.hadoop.yarn.api.records.Priority;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.api.records.YarnApplicationState;
import org.apache.hadoop.yarn.server.resourcemanager.RMServerUtils;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMApp;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.RMAppMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttempt;
import org.apache.hadoop.yarn.server.resourcemanager.rmapp.attempt.RMAppAttemptMetrics;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.AppInfo;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.AppsInfo;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.ResourceRequestInfo;
import org.apache.hadoop.yarn.util.resource.Resources;

/**
 * RMWebServices.getApps for the apps the scheduler took: an AppInfo per app, built by
 * Hadoop's own constructor from a view of the app as RMAppImpl and RMAppAttemptImpl would
 * answer it. What the scheduler decides is the scheduler's own: the attempt's usage report
 * (FairScheduler.getAppResourceUsageReport: allocated, reserved, running containers, queue and
 * cluster usage), its pending ANY asks (getPendingResourceRequestsForAttempt), the AM
 * container, and the preemption counts RMContainerImpl adds to each attempt's
 * RMAppAttemptMetrics. The RM's own lifecycle (state, progress, tracking, times) is a
 * stand-in's: RMAppImpl's state machine does not run here (docs/fidelity.md, "The REST
 * comparison", says which of those fields are compared).
 */
final class RestApps {
  private RestApps() {}

  /** The ResourceManager AppInfo reads: its context, configuration and cluster timestamp. */
  private static ResourceManager rm(Driver d) throws ReflectiveOperationException {
    ResourceManager rm = new ResourceManager();
    Stubs.setField(rm, ResourceManager.class, "rmContext", d.cluster.context);
    Stubs.setField(rm, org.apache.hadoop.service.AbstractService.class, "config",
        d.cluster.conf);
    // the static its setClusterTimeStamp sets (reached as a field: ResourceManager's methods
    // name timeline-service classes the driver does not load)
    Stubs.setField(null, ResourceManager.class, "clusterTimeStamp", AppModel.CLUSTER_TIMESTAMP);
    return rm;
  }

  static AppsInfo apps(Driver d) throws Exception {
    ResourceManager rm = rm(d);
    // ClientRMService.getApplications walks RMContext.getRMApps(), a ConcurrentHashMap by
    // ApplicationId, in its hash order
    Map<ApplicationId, AppState> listed = new ConcurrentHashMap<>();
    for (AppState app : d.apps.values()) {
      if (app.accepted) {
        listed.put(app.id, app);
      }
    }
    AppsInfo out = new AppsInfo();
    for (AppState app : listed.values()) {
      AppInfo info = new AppInfo(rm, view(d, app), true,
          org.apache.hadoop.yarn.webapp.util.WebAppUtils.getHttpSchemePrefix(d.cluster.conf));
      // Times.elapsed reads the wall clock for a running app: the virtual clock's instead
      long end = app.ended ? app.finishedMs : d.cluster.clock.getTime();
      Stubs.setField(info, AppInfo.class, "elapsedTime", end - app.submittedMs);
      // an AM's asks reach the scheduler through ApplicationMasterService, whose
      // RMServerUtils.normalizeAndValidateRequests gives an ANY ask without a label the
      // queue's default, "" (captured); the driver calls FairScheduler.allocate directly
      @SuppressWarnings("unchecked")
      List<ResourceRequestInfo> asks = (List<ResourceRequestInfo>) Stubs.field(info,
          AppInfo.class, "resourceRequests");
      for (ResourceRequestInfo ask : asks == null ? List.<ResourceRequestInfo>of() : asks) {
        if (Stubs.field(ask, ResourceRequestInfo.class, "nodeLabelExpression") == null) {
          Stubs.setField(ask, ResourceRequestInfo.class, "nodeLabelExpression", "");
        }
      }
      out.add(info);
    }
    return out;
  }

  private static RMApp view(Driver d, AppState app) {
    Map<String, Stubs.Answer> answers = new HashMap<>();
    RmStubs.AppRecord record = app.record;
    YarnApplicationState state = state(app);
    answers.put("getApplicationId", a -> app.id);
    answers.put("getUser", a -> app.user);
    answers.put("getName", a -> record.submission.getApplicationName());
    answers.put("getQueue", a -> app.queue);
    answers.put("getApplicationSubmissionContext", a -> record.submission);
    answers.put("getAMResourceRequests", a -> record.amRequests);
    // ApplicationSubmissionContext's applicationType, "YARN" unless the client says
    // (yarn_protos.proto's default)
    answers.put("getApplicationType", a -> "YARN");
    answers.put("getApplicationTags", a -> Collections.emptySet());
    answers.put("getApplicationPriority", a -> Priority.newInstance(0));
    answers.put("getApplicationTimeouts", a -> Collections.emptyMap());
    answers.put("createApplicationState", a -> state);
    answers.put("getFinalApplicationStatus", a -> !app.ended ? FinalApplicationStatus.UNDEFINED
        : app.killed ? FinalApplicationStatus.KILLED : FinalApplicationStatus.SUCCEEDED);
    answers.put("getProgress", a -> app.ended ? 1f : 0f);
    answers.put("getDiagnostics", a -> new StringBuilder());
    // RMAppImpl's times are epoch ms: the virtual clock's from the cluster timestamp (an app
    // that ended at the clock's 0 has ended: AppInfo's trackingUI reads finishTime 0 as running)
    long epoch = AppModel.CLUSTER_TIMESTAMP;
    answers.put("getStartTime", a -> epoch + app.submittedMs);
    answers.put("getSubmitTime", a -> epoch + app.submittedMs);
    answers.put("getLaunchTime", a -> 0L);
    answers.put("getFinishTime", a -> app.ended ? epoch + app.finishedMs : 0L);
    // RMAppAttemptImpl's proxied tracking URL, through the RM's web proxy
    answers.put("getTrackingUrl", a -> app.managed()
        ? "http://localhost:8088/proxy/" + app.id + "/" : null);
    answers.put("getLogAggregationStatusForAppReport", a -> LogAggregationStatus.DISABLED);
    answers.put("getCurrentAppAttempt", a -> attemptView(d, app));
    answers.put("getRMAppMetrics", a -> metrics(app));
    return Stubs.proxy(RMApp.class, answers);
  }

  /**
   * The YarnApplicationState RMAppImpl would report: ACCEPTED once the scheduler took it,
   * RUNNING once its AM container was allocated (an unmanaged AM's at once), then FINISHED or
   * KILLED — as fairshare's RM records say (server/snapshots.py, rm_records_of).
   */
  private static YarnApplicationState state(AppState app) {
    if (app.ended) {
      return app.killed ? YarnApplicationState.KILLED : YarnApplicationState.FINISHED;
    }
    boolean amAllocated = !app.managed() || app.attempt.master != null;
    return amAllocated ? YarnApplicationState.RUNNING : YarnApplicationState.ACCEPTED;
  }

  /** RMAppAttemptImpl: its master container, its metrics, the scheduler's usage report. */
  private static RMAppAttempt attemptView(Driver d, AppState app) {
    RmStubs.AttemptRecord attempt = app.attempt;
    Map<String, Stubs.Answer> answers = new HashMap<>();
    answers.put("getAppAttemptId", a -> attempt.id);
    answers.put("getMasterContainer", a -> attempt.master);
    answers.put("getRMAppAttemptMetrics", a -> attempt.metrics);
    answers.put("getHost", a -> "N/A");
    answers.put("getRpcPort", a -> -1);
    answers.put("getApplicationResourceUsageReport", a -> {
      // RMAppAttemptImpl.getApplicationResourceUsageReport: the scheduler's report, or the
      // dummy one once the scheduler no longer holds the attempt
      ApplicationResourceUsageReport report = app.ended ? null
          : d.scheduler.getAppResourceUsageReport(attempt.id);
      return report == null ? RMServerUtils.DUMMY_APPLICATION_RESOURCE_USAGE_REPORT : report;
    });
    return Stubs.proxy(RMAppAttempt.class, answers);
  }

  /**
   * RMAppImpl.getRMAppMetrics over every attempt: what preemption took, AM and other
   * containers preempted. The resource-seconds are left empty: RMContainerImpl times a
   * container by the wall clock, which the driver does not run on.
   */
  private static RMAppMetrics metrics(AppState app) {
    Resource preempted = Resources.createResource(0, 0);
    int am = 0;
    int nonAm = 0;
    int allocated = 0;
    for (RmStubs.AttemptRecord attempt : app.attempts) {
      RMAppAttemptMetrics m = attempt.metrics;
      Resources.addTo(preempted, m.getResourcePreempted());
      am += m.getIsPreempted() ? 1 : 0;
      nonAm += m.getNumNonAMContainersPreempted();
      allocated += m.getTotalAllocatedContainers();
    }
    return new RMAppMetrics(preempted, nonAm, am, new HashMap<>(), new HashMap<>(), allocated);
  }
}

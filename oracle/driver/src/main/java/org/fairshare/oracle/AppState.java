package org.fairshare.oracle;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.yarn.api.records.ApplicationAttemptId;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FSAppAttempt;

/** What the driver knows of one scenario app: its YARN ids and the RM-side records. */
final class AppState {
  final String name;
  final ApplicationId id;
  final String user;
  final Resource am; // asked AM size; null: unmanaged
  RmStubs.AppRecord record;
  RmStubs.AttemptRecord attempt;
  String queue;
  boolean accepted;
  boolean ended;
  long preempted;
  // what RMAppImpl keeps for the REST layer (Rest): every attempt, the clock at submission
  // and at the end, and whether it was killed
  final List<RmStubs.AttemptRecord> attempts = new ArrayList<>();
  long submittedMs;
  long finishedMs;
  boolean killed;

  AppState(String name, ApplicationId id, String user, Resource am) {
    this.name = name;
    this.id = id;
    this.user = user;
    this.am = am;
  }

  boolean managed() {
    return am != null;
  }

  ApplicationAttemptId attemptId() {
    return attempt.id;
  }

  boolean live() {
    return accepted && !ended;
  }

  FSAppAttempt fsAttempt(org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair
      .FairScheduler scheduler) {
    return attempt == null ? null : scheduler.getSchedulerApp(attempt.id);
  }
}

package org.fairshare.oracle;

import org.apache.hadoop.yarn.util.Clock;

/**
 * The scheduler's clock: moved only by the scenario (like Hadoop's test ControlledClock), so a
 * run never reads the wall clock. Installed with {@code FairScheduler.setClock} before init().
 */
final class VirtualClock implements Clock {
  private long now;

  VirtualClock(long startMs) {
    this.now = startMs;
  }

  @Override
  public long getTime() {
    return now;
  }

  void set(long ms) {
    now = ms;
  }
}

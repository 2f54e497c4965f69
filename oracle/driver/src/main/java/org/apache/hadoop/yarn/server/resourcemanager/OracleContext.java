package org.apache.hadoop.yarn.server.resourcemanager;

import org.apache.hadoop.yarn.event.Dispatcher;
import org.apache.hadoop.yarn.server.resourcemanager.rmcontainer.ContainerAllocationExpirer;
import org.apache.hadoop.yarn.server.resourcemanager.scheduler.ResourceScheduler;
import org.apache.hadoop.yarn.server.resourcemanager.security.NMTokenSecretManagerInRM;
import org.apache.hadoop.yarn.server.resourcemanager.security.RMContainerTokenSecretManager;

/**
 * The fairshare oracle's RMContext, built with RMContextImpl's package-private setters (the
 * class lives in Hadoop's package for that only). RMContextImpl's test constructor would also
 * build and init a NullRMStateStore on a fresh YarnConfiguration, which parses every default
 * resource again for each scenario; the scheduler never uses the state store.
 */
public final class OracleContext {
  private OracleContext() {}

  public static RMContextImpl create(Dispatcher dispatcher, ContainerAllocationExpirer expirer,
      RMContainerTokenSecretManager containerTokens, NMTokenSecretManagerInRM nmTokens,
      ResourceScheduler scheduler) {
    RMContextImpl ctx = new RMContextImpl();
    ctx.setDispatcher(dispatcher);
    RMActiveServiceContext active = new RMActiveServiceContext();
    active.setContainerAllocationExpirer(expirer);
    active.setContainerTokenSecretManager(containerTokens);
    active.setNMTokenSecretManager(nmTokens);
    active.setScheduler(scheduler);
    ctx.setActiveServiceContext(active);
    return ctx;
  }
}

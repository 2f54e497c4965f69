package org.fairshare.oracle;

import java.io.ByteArrayOutputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import javax.ws.rs.core.MediaType;
import javax.ws.rs.ext.ContextResolver;
import javax.ws.rs.ext.Providers;
import javax.xml.bind.JAXBContext;

import com.sun.jersey.core.header.OutBoundHeaders;
import com.sun.jersey.json.impl.provider.entity.JSONRootElementProvider;

import org.apache.hadoop.yarn.conf.YarnConfiguration;
import org.apache.hadoop.yarn.server.resourcemanager.rmnode.RMNode;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.JAXBContextResolver;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.ClusterMetricsInfo;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.FairSchedulerInfo;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.NodeInfo;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.NodesInfo;
import org.apache.hadoop.yarn.server.resourcemanager.webapp.dao.SchedulerTypeInfo;

/**
 * At a snapshot step, the ResourceManager's own REST answers for the real scheduler: the DAOs
 * RMWebServices builds (getSchedulerInfo, getClusterMetricsInfo, getNodes) marshalled as Jersey
 * writes an application/json answer — JSONRootElementProvider.App with the RM's
 * JAXBContextResolver (JSONJAXBContext, natural notation), the provider and context RMWebApp
 * binds. Each document is kept as the text Jersey wrote: its repeated "entry" keys, its field
 * order and its number forms are the contract (docs/fidelity.md, "The REST comparison").
 */
final class Rest {
  /** The endpoints, as RMWSConsts names them under /ws/v1/cluster. */
  static final String SCHEDULER = "scheduler";
  static final String METRICS = "metrics";
  static final String NODES = "nodes";
  static final String APPS = "apps";

  private static final MediaType JSON = MediaType.valueOf("application/json; charset=utf-8");
  private static JSONRootElementProvider provider; // one per JVM: JAXB contexts are costly

  private Rest() {}

  /** One snapshot's documents: endpoint → the body Jersey would send. */
  static Map<String, String> take(Driver d) throws Exception {
    Map<String, String> out = new LinkedHashMap<>();
    // RMWebServices.getSchedulerInfo: new SchedulerTypeInfo(new FairSchedulerInfo(fs))
    out.put(SCHEDULER, write(new SchedulerTypeInfo(new FairSchedulerInfo(d.scheduler))));
    // RMWebServices.getClusterMetricsInfo
    ClusterMetricsInfo metrics = new ClusterMetricsInfo(d.scheduler);
    // containers assigned in the last second of the wall clock (ClusterMetrics samples a
    // counter on a timer thread): not a scheduler decision, and the driver has no wall clock
    Stubs.setField(metrics, ClusterMetricsInfo.class, "containerAssignedPerSecond", 0);
    out.put(METRICS, write(metrics));
    out.put(NODES, write(nodes(d)));
    out.put(APPS, write(RestApps.apps(d)));
    return out;
  }

  /** YARN's ids of the scenario's apps (ApplicationId.toString → the app's name). */
  static Map<String, Object> ids(Driver d) {
    Map<String, Object> out = new LinkedHashMap<>();
    for (AppState app : d.apps.values()) {
      out.put(app.id.toString(), app.name);
    }
    return out;
  }

  /**
   * RMWebServices.getNodes without a states filter: RMServerUtils.queryRMNodes gives the
   * active nodes (RMContext.getRMNodes, in its hash order), then the inactive ones; an
   * inactive node's HTTP address is blanked.
   */
  private static NodesInfo nodes(Driver d) {
    NodesInfo out = new NodesInfo();
    List<RMNode> views = new ArrayList<>();
    for (RMNode active : d.cluster.context.getRMNodes().values()) {
      views.add(RmStubs.nodeView(d.nodesById.get(active.getNodeID().getHost()),
          d.cluster.context, org.apache.hadoop.yarn.api.records.NodeState.RUNNING));
    }
    for (RmStubs.NodeRecord lost : d.lostNodes.values()) {
      views.add(RmStubs.nodeView(lost, d.cluster.context,
          org.apache.hadoop.yarn.api.records.NodeState.LOST));
    }
    for (RMNode view : views) {
      NodeInfo info = new NodeInfo(view, d.scheduler);
      if (view.getState() == org.apache.hadoop.yarn.api.records.NodeState.LOST) {
        info.setNodeHTTPAddress("");
      }
      out.add(info);
    }
    return out;
  }

  /** The body JSONRootElementProvider writes for {@code dao} (UTF-8, not formatted). */
  static String write(Object dao) throws Exception {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    provider().writeTo(dao, dao.getClass(), dao.getClass(), new Annotation[0], JSON,
        new OutBoundHeaders(), body);
    return body.toString(StandardCharsets.UTF_8);
  }

  private static synchronized JSONRootElementProvider provider() throws Exception {
    if (provider == null) {
      // RMWebApp binds JAXBContextResolver, built from the RM's configuration (it reads the
      // custom DAO classes only, none here)
      JAXBContextResolver resolver = new JAXBContextResolver(new YarnConfiguration());
      provider = new JSONRootElementProvider.App(providers(resolver));
    }
    return provider;
  }

  /** The Providers Jersey injects: only the JAXBContext resolver is asked for. */
  private static Providers providers(JAXBContextResolver resolver) {
    return new Providers() {
      @Override
      @SuppressWarnings("unchecked")
      public <T> ContextResolver<T> getContextResolver(Class<T> type, MediaType mediaType) {
        return type == JAXBContext.class ? (ContextResolver<T>) resolver : null;
      }

      @Override
      public <T> javax.ws.rs.ext.MessageBodyReader<T> getMessageBodyReader(Class<T> type,
          Type genericType, Annotation[] annotations, MediaType mediaType) {
        return null;
      }

      @Override
      public <T> javax.ws.rs.ext.MessageBodyWriter<T> getMessageBodyWriter(Class<T> type,
          Type genericType, Annotation[] annotations, MediaType mediaType) {
        return null;
      }

      @Override
      public <T extends Throwable> javax.ws.rs.ext.ExceptionMapper<T> getExceptionMapper(
          Class<T> type) {
        return null;
      }
    };
  }
}

package org.fairshare.rmharness;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.yarn.api.records.Resource;
import org.apache.hadoop.yarn.server.resourcemanager.MockRM;
import org.apache.hadoop.yarn.server.resourcemanager.ResourceManager;
import org.apache.hadoop.yarn.webapp.WebApp;

/**
 * {@code java -jar rmharness.jar [options]}: Hadoop's own ResourceManager (MockRM from the RM
 * test jar: the real RMContext, scheduler, update and preemption threads, and the real RM web
 * app on a loopback port; only the RPC servers and the AM launcher are mocked), NodeManager
 * stand-ins heartbeating it, and a script of apps creating contention. See README.md.
 *
 * <p>Standard output: {@code PORT <n>} once the REST API answers, then one JSON event per
 * line (Events). Standard input: {@code status}, {@code submit <app JSON>},
 * {@code drive <app JSON with "app": an id>} (play the AM of a REST-submitted app), {@code quit};
 * end of input also quits. Hadoop's own logging goes to standard error.
 */
public final class Main {
  private Main() {}

  public static void main(String[] argv) throws Exception {
    PrintStream stdout = System.out;
    System.setOut(System.err);            // Hadoop's prints never reach the event channel
    Events events = new Events(stdout);
    Options opts;
    List<Script.App> script;
    Path allocations;
    try {
      opts = Options.parse(argv);
      script = opts.script == null ? List.of() : Script.load(opts.script);
      allocations = allocations(opts);
    } catch (IllegalArgumentException | IOException e) {
      System.err.println("rmharness: " + e.getMessage());
      System.exit(2);
      return;
    }
    try {
      run(opts, script, allocations, events);
    } catch (Exception e) {
      e.printStackTrace();
      System.err.println("rmharness: failed: " + e);
      System.exit(1);
    }
  }

  private static void run(Options opts, List<Script.App> script, Path allocations,
      Events events) throws Exception {
    if (opts.port == 0) {
      // the RM derives its proxy (trackingUrl) address from the configured port: with 0
      // it would serve "http://localhost:0/proxy/…"; so a free port is chosen here
      try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1,
          java.net.InetAddress.getByName("127.0.0.1"))) {
        opts.port = s.getLocalPort();
      }
    }
    Configuration conf = Conf.build(opts, allocations);
    MockRM rm = new MockRM(conf);
    Conf.quietLogs(opts.logLevel);      // MockRM's constructor sets the root logger to DEBUG
    rm.start();
    int port = webPort(rm);
    Nodes nodes = new Nodes(opts.heartbeatMs, events);
    nodes.register(rm, opts.nodeCount, opts.nodeCapability, opts.firstNodePort);
    nodes.start();
    waitServing(port);
    events.port(port);
    events.event("rm_started").with("port", port).with("scheduler", opts.scheduler)
        .with("cluster_timestamp", ResourceManager.getClusterTimeStamp())
        .with("nodes", opts.nodeCount).emit();
    nodes.announce();
    long epoch = System.currentTimeMillis();
    List<AppDriver> drivers = new ArrayList<>();
    for (Script.App a : script) {
      drivers.add(start(rm, a, nodes, events, epoch, opts.amPollMs));
    }
    control(rm, nodes, events, drivers, opts.amPollMs);
    events.event("stopping").emit();
    drivers.forEach(AppDriver::stop);
    nodes.stop();
    try {
      rm.stop();
    } finally {
      events.event("stopped").emit();
      System.exit(0);
    }
  }

  private static AppDriver start(MockRM rm, Script.App a, Nodes nodes, Events events,
      long epoch, long pollMs) {
    AppDriver d = new AppDriver(rm, a, nodes, events, epoch, pollMs);
    Thread t = new Thread(d, "harness-app-" + a.name());
    t.setDaemon(true);
    t.start();
    return d;
  }

  /** Reads commands until {@code quit} or end of input. */
  private static void control(MockRM rm, Nodes nodes, Events events, List<AppDriver> drivers,
      long pollMs) throws IOException {
    ObjectMapper json = new ObjectMapper();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in,
        StandardCharsets.UTF_8));
    String line;
    while ((line = in.readLine()) != null) {
      String cmd = line.trim();
      if (cmd.isEmpty()) {
        continue;
      }
      if (cmd.equals("quit")) {
        return;
      } else if (cmd.equals("status")) {
        List<Map<String, Object>> apps = new ArrayList<>();
        synchronized (drivers) {
          drivers.forEach(d -> apps.add(d.summary()));
        }
        events.event("status").with("apps", apps).emit();
      } else if (cmd.startsWith("submit ") || cmd.startsWith("drive ")) {
        String verb = cmd.substring(0, cmd.indexOf(' '));
        try {
          Script.App a = Script.app(json.readTree(cmd.substring(verb.length() + 1)), verb);
          if (verb.equals("drive") && a.existing().isEmpty()) {
            throw new IllegalArgumentException("drive: 'app' must name a submitted app");
          }
          synchronized (drivers) {
            drivers.add(start(rm, a, nodes, events, System.currentTimeMillis(), pollMs));
          }
        } catch (IOException | IllegalArgumentException e) {
          events.event("error").with("command", verb).with("message", e.getMessage())
              .emit();
        }
      } else {
        events.event("error").with("command", cmd)
            .with("message", "unknown command (status, submit <json>, drive <json>, quit)").emit();
      }
    }
  }

  /** The bound port: ResourceManager.getWebapp() is package-private; with port 0 only it knows. */
  private static int webPort(ResourceManager rm) throws Exception {
    Method m = ResourceManager.class.getDeclaredMethod("getWebapp");
    m.setAccessible(true);
    return ((WebApp) m.invoke(rm)).port();
  }

  private static void waitServing(int port) throws Exception {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    HttpRequest req = HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + port + "/ws/v1/cluster/info"))
        .timeout(Duration.ofSeconds(5)).build();
    long deadline = System.currentTimeMillis() + 60_000;
    while (true) {
      try {
        if (http.send(req, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        if (System.currentTimeMillis() > deadline) {
          throw e;
        }
      }
      Thread.sleep(50);
    }
  }

  /** The allocation file: the given one, or the built-in contention one copied out. */
  private static Path allocations(Options opts) throws IOException {
    if (opts.allocations != null) {
      Path p = Path.of(opts.allocations).toAbsolutePath();
      if (!Files.isReadable(p)) {
        throw new IllegalArgumentException("--allocations: cannot read " + p);
      }
      return p;
    }
    Path tmp = Files.createTempFile("rmharness-", "-fair-scheduler.xml");
    tmp.toFile().deleteOnExit();
    try (InputStream in = Main.class.getResourceAsStream("/scripts/contention.xml")) {
      Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
    }
    return tmp;
  }

  /** Parsed command line. */
  static final class Options {
    String allocations;
    int port;
    int nodeCount = 4;
    Resource nodeCapability = Resource.newInstance(8192, 8);
    int firstNodePort = 45454;
    String script;
    String scheduler = "fair";
    long heartbeatMs = 150;
    long amPollMs = 200;
    long killWaitMs = 1000;
    float utilizationThreshold = 0.8f;
    String logLevel = "WARN";
    String site;  // a yarn-site.xml laid over the harness's settings (ACLs, group mapping)

    static Options parse(String[] argv) {
      Options o = new Options();
      for (int i = 0; i < argv.length; i++) {
        String a = argv[i];
        if (a.equals("--help") || a.equals("-h")) {
          throw new IllegalArgumentException("usage: java -jar rmharness.jar "
              + "[--allocations FILE] [--port 0] [--nodes 4x8192/8] "
              + "[--script FILE|contention|churn|idle] [--scheduler fair|capacity] "
              + "[--heartbeat-ms 150] [--am-poll-ms 200] [--kill-wait-ms 1000] "
              + "[--utilization-threshold 0.8] [--log-level WARN] [--site yarn-site.xml]");
        }
        if (i + 1 >= argv.length) {
          throw new IllegalArgumentException(a + ": missing value");
        }
        String v = argv[++i];
        try {
          switch (a) {
            case "--allocations" -> o.allocations = v;
            case "--port" -> o.port = Integer.parseInt(v);
            case "--nodes" -> o.nodes(v);
            case "--script" -> o.script = v;
            case "--scheduler" -> o.scheduler = v;
            case "--heartbeat-ms" -> o.heartbeatMs = Long.parseLong(v);
            case "--am-poll-ms" -> o.amPollMs = Long.parseLong(v);
            case "--kill-wait-ms" -> o.killWaitMs = Long.parseLong(v);
            case "--utilization-threshold" -> o.utilizationThreshold = Float.parseFloat(v);
            case "--log-level" -> o.logLevel = v;
            case "--site" -> o.site = v;
            case "--first-node-port" -> o.firstNodePort = Integer.parseInt(v);
            default -> throw new IllegalArgumentException(a + ": unknown option");
          }
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(a + ": not a number: " + v);
        }
      }
      if (!o.scheduler.equals("fair") && !o.scheduler.equals("capacity")) {
        throw new IllegalArgumentException("--scheduler: fair or capacity, not " + o.scheduler);
      }
      return o;
    }

    /** {@code COUNTxMB/VCORES}, e.g. {@code 4x8192/8}. */
    private void nodes(String v) {
      String[] cx = v.split("x", 2);
      String[] mv = cx.length == 2 ? cx[1].split("/", 2) : new String[0];
      if (mv.length != 2) {
        throw new IllegalArgumentException("--nodes: COUNTxMB/VCORES (4x8192/8), not " + v);
      }
      nodeCount = Integer.parseInt(cx[0]);
      nodeCapability = Resource.newInstance(Integer.parseInt(mv[0]), Integer.parseInt(mv[1]));
    }
  }
}

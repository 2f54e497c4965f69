package org.fairshare.oracle;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code java -jar oracle-driver.jar IN_DIR...}: for each directory, runs IN_DIR/scenario.json
 * on a fresh FairScheduler and writes IN_DIR/oracle/events.jsonl and snapshots.json (or
 * error.txt with the stack trace when Hadoop throws); prints "ok DIR" or "error DIR".
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
    if (args.length == 0) {
      System.err.println("usage: java -jar oracle-driver.jar IN_DIR...");
      System.exit(2);
    }
    ObjectMapper json = new ObjectMapper();
    for (String arg : args) {
      Path dir = Paths.get(arg);
      System.out.println((runOne(json, dir) ? "ok " : "error ") + arg);
      System.out.flush();
    }
    System.exit(0);
  }

  static boolean runOne(ObjectMapper json, Path dir) {
    Path out = dir.resolve("oracle");
    try {
      Files.createDirectories(out);
      Files.deleteIfExists(out.resolve("error.txt"));
      JsonNode scenario = json.readTree(dir.resolve("scenario.json").toFile());
      Cluster cluster = new Cluster(scenario, out);
      Driver driver = new Driver(cluster);
      try {
        driver.run(scenario);
      } finally {
        cluster.scheduler.stop();
      }
      write(out.resolve("events.jsonl"), driver.log.text());
      write(out.resolve("snapshots.json"), snapshots(driver.snapshots));
      write(out.resolve("rest.jsonl"), rest(driver.rest, Rest.ids(driver)));
      return true;
    } catch (Throwable e) {
      StringWriter trace = new StringWriter();
      e.printStackTrace(new PrintWriter(trace));
      try {
        Files.createDirectories(out);
        Files.deleteIfExists(out.resolve("events.jsonl"));
        Files.deleteIfExists(out.resolve("snapshots.json"));
        Files.deleteIfExists(out.resolve("rest.jsonl"));
        write(out.resolve("error.txt"), trace.toString());
      } catch (Exception ignored) {
        // nothing more to do: the line on stdout says error
      }
      return false;
    }
  }

  private static String snapshots(List<Object> snapshots) {
    if (snapshots.isEmpty()) {
      return "[]\n";
    }
    StringBuilder text = new StringBuilder("[\n");
    for (int i = 0; i < snapshots.size(); i++) {
      text.append(JsonWriter.write(snapshots.get(i)));
      text.append(i + 1 < snapshots.size() ? ",\n" : "\n");
    }
    return text.append("]\n").toString();
  }

  /**
   * rest.jsonl: one line per snapshot and endpoint, {"snapshot":i,"endpoint":name,"body":…}
   * with the body as Jersey wrote it, byte for byte (a JSON value, repeated keys and all);
   * the apps line also has "ids", YARN's application id → the scenario's app name.
   */
  private static String rest(List<Map<String, String>> snapshots, Map<String, Object> ids) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < snapshots.size(); i++) {
      for (Map.Entry<String, String> doc : snapshots.get(i).entrySet()) {
        text.append("{\"snapshot\":").append(i).append(",\"endpoint\":")
            .append(JsonWriter.write(doc.getKey()));
        if (doc.getKey().equals(Rest.APPS)) {
          text.append(",\"ids\":").append(JsonWriter.write(ids));
        }
        text.append(",\"body\":")
            .append(doc.getValue()).append("}\n");
      }
    }
    return text.toString();
  }

  private static void write(Path path, String text) throws java.io.IOException {
    Files.write(path, text.getBytes(StandardCharsets.UTF_8));
  }
}

package org.fairshare.rmharness;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The driver script: which apps arrive when, in which queue, and what they ask for. The
 * harness only feeds these asks (and heartbeats) to the RM; Hadoop's scheduler decides every
 * allocation and preemption.
 *
 * <pre>{"apps": [{"at_ms": 0, "name": "alice-etl", "user": "alice", "queue": "root.a",
 *   "type": "MAPREDUCE", "am_mb": 1024, "am_vcores": 1, "finish_after_ms": 0,
 *   "asks": [{"after_ms": 0, "containers": 40, "mb": 1024, "vcores": 1,
 *             "priority": 1, "duration_ms": 0}]}]}</pre>
 *
 * <p>{@code at_ms} counts from the moment the harness printed {@code PORT}; an ask's
 * {@code after_ms} counts from its AM's registration; {@code duration_ms} 0 keeps a container
 * running until the harness stops (or the RM preempts it); {@code finish_after_ms} 0 keeps
 * the app running. {@code app} (the stdin command {@code drive}) names an app already
 * submitted through the REST API, whose AM the harness then plays. A name without {@code /} or {@code .json} is a built-in script.
 */
final class Script {
  private static final ObjectMapper JSON = new ObjectMapper();

  record Ask(long afterMs, int containers, int mb, int vcores, int priority, long durationMs) {}

  /**
   * One app. {@code existing} is the id of an app already submitted (through the REST API)
   * whose AM the harness is to play ({@code drive}); empty: the harness submits it itself.
   */
  record App(long atMs, String name, String user, String queue, String type, int amMb,
      int amVcores, long finishAfterMs, List<Ask> asks, String existing) {}

  private Script() {}

  /** A built-in script ({@code contention}) or a JSON file. */
  static List<App> load(String nameOrPath) throws IOException {
    if (!nameOrPath.contains("/") && !nameOrPath.endsWith(".json")) {
      try (InputStream in = Script.class.getResourceAsStream(
          "/scripts/" + nameOrPath + ".json")) {
        if (in == null) {
          throw new IllegalArgumentException("--script: no built-in script '" + nameOrPath
              + "' (built-in: contention, churn, idle)");
        }
        return parse(JSON.readTree(in), "built-in " + nameOrPath);
      }
    }
    return parse(JSON.readTree(Files.readAllBytes(Path.of(nameOrPath))), nameOrPath);
  }

  static List<App> parse(JsonNode root, String where) {
    JsonNode apps = root.path("apps");
    if (!apps.isArray()) {
      throw new IllegalArgumentException(where + ": 'apps' must be a list");
    }
    List<App> out = new ArrayList<>();
    for (int i = 0; i < apps.size(); i++) {
      out.add(app(apps.get(i), where + ": apps[" + i + "]"));
    }
    return out;
  }

  /** One app spec, e.g. from the stdin command {@code submit {...}}. */
  static App app(JsonNode a, String where) {
    if (!a.isObject()) {
      throw new IllegalArgumentException(where + ": must be an object");
    }
    List<Ask> asks = new ArrayList<>();
    JsonNode list = a.path("asks");
    for (int j = 0; j < list.size(); j++) {
      JsonNode k = list.get(j);
      String at = where + ".asks[" + j + "]";
      asks.add(new Ask(num(k, "after_ms", 0, at), (int) num(k, "containers", 1, at),
          (int) num(k, "mb", 1024, at), (int) num(k, "vcores", 1, at),
          (int) num(k, "priority", j + 1, at), num(k, "duration_ms", 0, at)));
    }
    String queue = a.path("queue").asText("default");
    return new App(num(a, "at_ms", 0, where), a.path("name").asText("harness-app"),
        a.path("user").asText("harness"), queue, a.path("type").asText("MAPREDUCE"),
        (int) num(a, "am_mb", 1024, where), (int) num(a, "am_vcores", 1, where),
        num(a, "finish_after_ms", 0, where), asks, a.path("app").asText(""));
  }

  private static long num(JsonNode n, String field, long dflt, String where) {
    JsonNode v = n.get(field);
    if (v == null || v.isNull()) {
      return dflt;
    }
    if (!v.canConvertToLong() || v.asLong() < 0) {
      throw new IllegalArgumentException(where + "." + field
          + ": must be a non-negative integer, got " + v);
    }
    return v.asLong();
  }
}

package org.fairshare.rmharness;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The harness's machine-readable channel: one JSON object per line on the process's real
 * standard output. Everything else Hadoop prints goes to standard error (Main swaps
 * System.out), so a test can parse every stdout line after {@code PORT <n>} as JSON.
 *
 * <p>Every event carries {@code t_ms} (milliseconds since the harness started) and
 * {@code time} (epoch milliseconds, the clock the RM stamps {@code startedTime} with), so
 * a recorder's samples can be lined up with what the RM did.
 */
final class Events {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final PrintStream out;
  private final long started = System.currentTimeMillis();

  Events(PrintStream out) {
    this.out = out;
  }

  /** Starts an event; finish it with {@link Event#emit()}. */
  Event event(String name) {
    return new Event(name);
  }

  /** The plain first line the fixture waits for: the web app serves on this port. */
  synchronized void port(int port) {
    out.println("PORT " + port);
    out.flush();
  }

  private synchronized void write(Map<String, Object> fields) {
    try {
      out.println(JSON.writeValueAsString(fields));
    } catch (JsonProcessingException e) {
      out.println("{\"event\":\"error\",\"message\":\"unserialisable event\"}");
    }
    out.flush();
  }

  /** One JSON line under construction; fields keep insertion order. */
  final class Event {
    private final Map<String, Object> fields = new LinkedHashMap<>();

    private Event(String name) {
      long now = System.currentTimeMillis();
      fields.put("event", name);
      fields.put("t_ms", now - started);
      fields.put("time", now);
    }

    Event with(String key, Object value) {
      fields.put(key, value);
      return this;
    }

    void emit() {
      write(fields);
    }
  }
}

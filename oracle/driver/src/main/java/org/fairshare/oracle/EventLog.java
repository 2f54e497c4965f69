package org.fairshare.oracle;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** events.jsonl: t, type, seq, the event's keys (fairshare's names), then step. */
final class EventLog {
  private final VirtualClock clock;
  private final List<String> lines = new ArrayList<>();
  int step = -1;

  EventLog(VirtualClock clock) {
    this.clock = clock;
  }

  /** {@code keys}: name, value, name, value, … in the contract's order. */
  void emit(String type, Object... keys) {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("t", clock.getTime());
    event.put("type", type);
    event.put("seq", (long) lines.size() + 1);
    for (int i = 0; i < keys.length; i += 2) {
      event.put((String) keys[i], keys[i + 1]);
    }
    event.put("step", (long) step);
    lines.add(JsonWriter.write(event));
  }

  String text() {
    StringBuilder out = new StringBuilder();
    for (String line : lines) {
      out.append(line).append('\n');
    }
    return out.toString();
  }
}

"""The oracle's output files: what the driver writes (fairshare's formats restricted to what
the real scheduler tells, each event with its ``step``), and reading them back — malformed
content is an :class:`OracleOutputError` naming ``file:line``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EVENTS = "events.jsonl"
SNAPSHOTS = "snapshots.json"

# The keys the driver writes per event type, besides t, type, seq and step (the contract).
DRIVER_EVENT_KEYS: dict[str, tuple[str, ...]] = {
    "node-added": ("node", "rack", "capacity"),
    "node-removed": ("node", "lost-containers"),
    "node-resized": ("node", "capacity"),
    "app-submitted": ("app", "queue", "user", "requested-queue", "am"),
    "app-rejected": ("app", "user", "requested-queue", "reason"),
    "app-runnable": ("app", "queue", "promoted"),
    "app-not-runnable": ("app", "queue"),
    "containers-requested": ("app", "priority", "locality", "count", "resource", "asked"),
    "requests-rejected": ("app", "queue", "reason"),
    "container-allocated": ("app", "queue", "container", "node", "resource", "am"),
    "container-reserved": ("app", "queue", "node", "resource", "priority"),
    "container-unreserved": ("app", "node", "resource"),
    "container-completed": ("app", "queue", "container", "node", "resource", "am", "status"),
    "starvation": ("app", "queue", "fairshare-starvation", "minshare-starvation"),
    "preemption-warned": ("container", "app", "queue", "node", "resource", "am",
                          "beneficiary-app", "beneficiary-queue", "kill-at-ms"),
    "container-preempted": ("container", "app", "queue", "node", "resource", "am",
                            "beneficiary-app", "beneficiary-queue"),
    "app-attempt-restarted": ("app", "queue"),
    "app-finished": ("app", "queue", "state"),
    "app-moved": ("app", "from-queue", "to-queue"),
    "move-rejected": ("app", "queue", "reason"),
    "config-reloaded": ("queues",),
    "config-error": ("message",),
}

# The snapshot fields the driver can read from the real scheduler, per section.
DRIVER_SNAPSHOT_FIELDS: dict[str, tuple[str, ...]] = {
    "cluster": ("capacity", "allocated", "reserved", "nodes", "containers-allocated"),
    "queues": ("type", "policy", "weight", "preemptable", "steady-fair-share", "fair-share",
               "min-share", "max-share", "usage", "demand", "reserved", "am-usage",
               "max-am-share", "num-runnable-apps", "num-non-runnable-apps"),
    "apps": ("queue", "runnable", "am-running", "attempt", "usage", "demand", "fair-share",
             "live-containers", "reserved-containers", "fairshare-starvation",
             "minshare-starvation", "starved", "to-be-preempted", "to-be-preempted-containers",
             "preempted-containers"),
    "nodes": ("rack", "capacity", "allocated", "unallocated", "containers", "am-containers",
              "reserved-by", "marked-for-preemption"),
}


class OracleOutputError(ValueError):
    """An output file that cannot be read: the message names it (``file:line: what``)."""


# -- reading --------------------------------------------------------------------------------------

def read_events(path: Path) -> list[dict[str, Any]]:
    """``events.jsonl``: one JSON object per line, each with an integer ``step``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise OracleOutputError(f"{path}: cannot read: {e}") from None
    events = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as e:
            raise OracleOutputError(f"{path}:{number}: not JSON: {e.msg}") from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise OracleOutputError(f"{path}:{number}: not an event (an object with a 'type')")
        step = event.get("step")
        if not isinstance(step, int) or isinstance(step, bool) or step < -1:
            raise OracleOutputError(f"{path}:{number}: {event['type']} event without a valid "
                                    f"'step' (an integer ≥ -1), got {step!r}")
        events.append(event)
    return events


def read_snapshots(path: Path) -> list[dict[str, Any]]:
    """``snapshots.json``: a JSON list of snapshot objects."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise OracleOutputError(f"{path}: cannot read: {e}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise OracleOutputError(f"{path}:{e.lineno}: not JSON: {e.msg}") from None
    if not isinstance(doc, list) or not all(isinstance(s, dict) for s in doc):
        raise OracleOutputError(f"{path}:1: not a list of snapshot objects")
    return doc

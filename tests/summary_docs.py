"""A complete ``summary.json`` document of schema 1 with every number 0 (or null where the
model allows it), for tests that make up a summary and set only the numbers they are about."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


def pair() -> dict[str, Any]:
    return {"memory-mb": 0, "vcores": 0}


def no_pair() -> dict[str, Any]:
    return {"memory-mb": None, "vcores": None}


def waits() -> dict[str, Any]:
    return {"p50": None, "p95": None, "max": None, "apps": 0, "not-reached": 0}


def queue_doc() -> dict[str, Any]:
    return {
        "usage": pair(), "steady-fair-share": pair(), "fair-share": pair(),
        "usage-to-steady-fair-share": no_pair(), "usage-to-fair-share": no_pair(),
        "demand": pair(), "time-starved-ms": 0, "time-short-of-fair-share-threshold-ms": 0,
        "during-contention": {"ms": 0, "usage": no_pair(), "steady-fair-share": no_pair(),
                              "fair-share": no_pair(), "demand": no_pair()},
        "am-wait-ms": waits(), "first-task-wait-ms": waits(), "turnaround-ms": waits(),
        "containers-allocated": 0, "containers-recovered": 0, "containers-completed": 0,
        "containers-preempted-from": 0, "containers-preempted-for": 0,
        "waiting": {"app-ms": 0, "causes": []},
        "settings": None}


def app_doc(queue: str) -> dict[str, Any]:
    return {"queue": queue, "requested-queue": queue, "user": "u", "managed": False,
            "state": "finished", "rejected-reason": None, "submit-ms": 0, "start-ms": 0,
            "finish-ms": 0, "wait-ms": 0, "run-ms": 0, "am-wait-ms": None,
            "first-task-wait-ms": 0, "turnaround-ms": 0, "unmet-demand-ms": 0,
            "tasks-done": 1, "tasks-total": 1, "preempted-containers": 0, "lost-work-ms": 0}


def summary_doc(queues: Sequence[str] = ("root",), apps: Mapping[str, str] | None = None,
                name: str = "s") -> dict[str, Any]:
    """``queues`` in order; ``apps``: app → its queue."""
    counts = ("apps", "apps-submitted", "apps-rejected", "apps-finished", "apps-unfinished",
              "containers-allocated", "containers-recovered", "containers-completed",
              "containers-preempted", "events", "lost-work-ms", "preempted-container-ms")
    return {
        "schema": 1,
        "scenario": {"name": name, "description": "", "seed": 1, "overrides": []},
        "span": {"start-ms": 0, "end-ms": 1000, "snapshot-every-ms": 500, "samples": 3},
        "counts": dict.fromkeys(counts, 0),
        "cluster": {"capacity": {"memory-mb": 8192, "vcores": 8}, "nodes": 1,
                    "utilization": no_pair(), "average-allocated": pair(),
                    "preemption": {"enabled": True, "utilization-threshold": 0.8}},
        "idle-tail": None,
        "queues": {q: queue_doc() for q in queues},
        "apps": {a: app_doc(q) for a, q in (apps or {}).items()},
        "changes": [],
    }


def numbers(value: Any) -> int:
    """How many numbers and nulls ``value`` holds in objects (lists are not walked)."""
    if isinstance(value, dict):
        return sum(numbers(v) for v in value.values())
    return int(value is None or (isinstance(value, int | float) and not isinstance(value, bool)))

"""What a simulated workload is made of: apps arriving over time with groups of tasks.

Every workload source (the scenario's own ``apps`` list, SLS traces, SYNTH, CSV) turns into
these plain records; the event loop (:mod:`fairshare.sim.loop`) runs them.
"""

from __future__ import annotations

from dataclasses import dataclass

from fairshare.resources.vector import Resource


@dataclass(frozen=True, slots=True)
class TaskGroup:
    """``count`` tasks of one size and priority, each running ``duration_ms`` once placed."""

    count: int
    resource: Resource
    duration_ms: int
    priority: int = 20


@dataclass(frozen=True, slots=True)
class AppSpec:
    """One app: submitted ``at_ms`` after the simulation starts (scripted steps may have moved
    the clock first); ``am`` None is an unmanaged AM (tasks asked at once)."""

    id: str
    at_ms: int
    queue: str
    user: str
    am: Resource | None
    tasks: tuple[TaskGroup, ...]

"""What a simulated workload is made of: apps arriving over time with groups of tasks.

Every workload source (the scenario's own ``apps`` list, SLS traces, SYNTH, CSV) turns into
these plain records; the event loop (:mod:`fairshare.sim.run.loop`) runs them.
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
class RunningContainer:
    """A container running when the simulation starts (an imported cluster): recovered on
    ``node`` at the app's arrival, then it completes ``remaining_ms`` later (the AM: None, it
    runs as long as its app). A task belongs to task group ``group`` of its app, whose
    duration a re-run takes after it is preempted or lost."""

    node: str
    resource: Resource
    am: bool
    priority: int
    remaining_ms: int | None
    group: int  # index into AppSpec.tasks; -1 for the AM
    container_id: str | None = None


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
    # running when it arrives (recovered, not asked for): each task counts in its group's count
    running: tuple[RunningContainer, ...] = ()

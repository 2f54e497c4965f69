"""The loop's vocabulary: what it keeps of each app (:class:`AppProgress`, which the summary
reports), what it tells observers (:class:`SimObserver`), and what it raises when the engine
refuses what the app model did (:class:`AppRefused`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from fairshare.core import EngineError, Event
from fairshare.sim.sources.workload import AppSpec


class AppRefused(EngineError):
    """The engine refused what the app model did for one app (``app``)."""

    def __init__(self, app: str, message: str) -> None:
        super().__init__(message)
        self.app = app


class SimObserver(Protocol):
    """What the loop tells recorders: events as they happen, snapshot ticks, the end."""

    def on_events(self, events: Sequence[Event]) -> None:
        """Every engine event, in order, exactly once; ``events`` is cleared after the call."""

    def on_snapshot(self, now_ms: int) -> None:
        """At start + k × snapshot interval (k = 0, 1, …), after everything else due then."""

    def on_end(self, now_ms: int) -> None:
        """Once, when the run stops."""


WaitingKey = tuple[int, tuple[int, ...]]  # (priority, normalised size): what YARN matches on


@dataclass(slots=True)
class RunningTask:
    group: int
    key: WaitingKey
    started_ms: int


@dataclass(slots=True)
class AppProgress:
    """What the app model knows of one app, and what the summary reports."""

    spec: AppSpec
    submitted_ms: int | None = None
    started_ms: int | None = None  # first container (the AM, for a managed app)
    first_task_ms: int | None = None  # first task container
    finished_ms: int | None = None
    tasks_done: int = 0
    preempted_containers: int = 0
    lost_work_ms: int = 0
    asked_tasks: bool = False
    running: dict[str, RunningTask] = field(default_factory=dict)  # container → task
    # (priority, normalised size) → [group index, containers asked and not yet placed], in the
    # order asked: groups of one size and priority share YARN's request, and a container placed
    # for it runs the first waiting group's task (as SLS's AM hands out its pending containers)
    waiting: dict[WaitingKey, list[list[int]]] = field(default_factory=dict)

    @property
    def total_tasks(self) -> int:
        return sum(group.count for group in self.spec.tasks)

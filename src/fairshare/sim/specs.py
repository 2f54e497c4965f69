"""The plain records a scenario parses into that workload sources produce too.

:mod:`fairshare.sim.scenario` re-exports them; they live here so that the workload sources
(:mod:`fairshare.sim.sources`) and the scenario parser can both build them without importing
each other.

``line`` is where a record starts in ``source``: the scenario file itself when ``source`` is ""
(``cluster.nodes``, ``workload.apps``), else the trace file the record was read from (an SLS job
trace or topology file, a SYNTH description, a CSV file), as the scenario names it. Later errors
about a record point there.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["NodeSpec", "Resources", "TaskSpec", "WorkloadApp", "minimum_span"]

Resources = dict[str, int]  # YARN resource name ("memory-mb", "vcores", "yarn.io/gpu") → amount


@dataclass(frozen=True)
class NodeSpec:
    """A node: name, rack and total resources."""

    name: str
    rack: str
    resources: Resources
    line: int = 0
    source: str = ""


@dataclass(frozen=True)
class TaskSpec:
    """A group of ``count`` tasks of ``resources``, each running ``duration_ms``."""

    count: int
    resources: Resources
    duration_ms: int
    priority: int = 20


@dataclass(frozen=True)
class WorkloadApp:
    """One app of the workload; ``am`` None is an unmanaged AM."""

    id: str
    at_ms: int
    queue: str
    user: str
    am: Resources | None
    tasks: tuple[TaskSpec, ...]
    line: int = 0
    source: str = ""


def minimum_span(apps: Iterable[WorkloadApp]) -> tuple[int, WorkloadApp | None]:
    """How long a workload runs at least, from its start, and the app that makes it so: the
    latest end of an app's arrival plus its longest task, as if every container were granted
    at once (contention only makes a run longer)."""
    span, longest = 0, None
    for app in apps:
        end = app.at_ms + max((task.duration_ms for task in app.tasks), default=0)
        if end > span:
            span, longest = end, app
    return span, longest

"""The plain records a scenario parses into that workload sources produce too.

:mod:`fairshare.sim.parse.scenario` re-exports them; they live here so that the workload sources
(:mod:`fairshare.sim.sources`) and the scenario parser can both build them without importing
each other.

``line`` is where a record starts in ``source``: the scenario file itself when ``source`` is ""
(``cluster.nodes``, ``workload.apps``), else the trace file the record was read from (an SLS job
trace or topology file, a SYNTH description, a CSV file), as the scenario names it. Later errors
about a record point there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fairshare.core import AM_PRIORITY
from fairshare.sim.parse.scenario_schema import RunningModel
from fairshare.sim.parse.schema_values import DEFAULT_TASK_PRIORITY

__all__ = ["MinimumSpan", "NodeSpec", "Resources", "RunningSpec", "TaskSpec", "WorkloadApp",
           "minimum_span"]

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
class RunningSpec:
    """A container of an app already running when the scenario starts (``workload.apps[].
    running``, written by ``fairshare import``): recovered on its node as YARN's
    work-preserving recovery does, then it runs ``remaining_ms`` more (None: the AM, which
    runs as long as its app)."""

    node: str
    resources: Resources
    am: bool = False
    priority: int = 20
    remaining_ms: int | None = None
    container: str | None = None


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
    running: tuple[RunningSpec, ...] = ()  # recovered at its arrival (an imported cluster)


@dataclass(frozen=True)
class MinimumSpan:
    """A lower bound on how long a workload runs, from its start, and why."""

    ms: int
    why: str  # "app a1 arrives at … and its longest task lasts …"
    app: WorkloadApp | None  # the app that sets it, if one does


def minimum_span(apps: Sequence[WorkloadApp], capacity: Mapping[str, int]) -> MinimumSpan:
    """How long a workload runs at least on a cluster of ``capacity`` (memory-mb, vcores):

    * an app's arrival plus its longest task, as if every container were granted at once;
    * the first arrival plus the work of all tasks (size × duration, summed) over the
      cluster's capacity, for memory and for vcores: a cluster cannot do more work per
      millisecond than it has room for.

    Contention only makes a run longer. AM containers are left out (still a lower bound)."""
    span = MinimumSpan(0, "", None)
    for app in apps:
        longest = max((task.duration_ms for task in app.tasks), default=0)
        if app.at_ms + longest > span.ms:
            span = MinimumSpan(app.at_ms + longest, f"app {app.id} arrives at {app.at_ms:,} ms "
                               f"and its longest task lasts {longest:,} ms", app)
    first = min((app.at_ms for app in apps), default=0)
    for name, unit in (("memory-mb", "MB"), ("vcores", "vcores")):
        room = capacity.get(name, 0)
        work = sum(task.count * task.duration_ms * task.resources.get(name, 0)
                   for app in apps for task in app.tasks)
        if room > 0 and first + -(-work // room) > span.ms:
            span = MinimumSpan(first + -(-work // room),
                               f"its tasks need {work:,} {unit}·ms and the cluster has "
                               f"{room:,} {unit}", None)
    return span


def running_specs(models: Sequence[RunningModel]) -> tuple[RunningSpec, ...]:
    """``running`` entries as parsed; a priority not given is the RM's AM priority (0) for the
    AM, a task's default priority otherwise."""
    return tuple(RunningSpec(m.node, m.resources(), m.am, running_priority(m.am, m.priority),
                             m.remaining_ms, m.container) for m in models)


def running_priority(am: bool, given: int | None) -> int:
    """A running container's priority as given, else the AM's (0) or a task's default."""
    if given is not None:
        return given
    return AM_PRIORITY if am else DEFAULT_TASK_PRIORITY

"""What a simulation records besides its events: the timeline's rows and the summary.

:class:`SimRecorder` is an observer of :class:`fairshare.sim.loop.Simulation`
(``SimObserver``). At every snapshot tick it samples every queue of the tree — one row per queue,
depth-first, the columns of :data:`TIMELINE_COLUMNS` — hands the rows to an optional sink (the
``timeline.csv`` / ``.parquet`` writer) and adds them to running time integrals; from the
events it counts containers allocated, completed and preempted per queue. :func:`build_summary`
turns that and the app model's progress into ``summary.json`` (docs/outputs.md).

Time averages and the time a queue was starved come from the samples: a sample stands for the
interval from its tick to the next one (the last, to the end of the run), so they are exact to
``snapshot-every-ms``. Sampling reads the queues' runtime records and one pass over the live
apps (for pending asks, starvation and counts), never a scan per queue: at a thousand queues a
sample costs a few milliseconds. Nothing here prints or writes files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from fairshare.core.asks import pending_demand
from fairshare.core.engine import Engine
from fairshare.core.events import ContainerAllocated, ContainerCompleted, ContainerPreempted, Event
from fairshare.core.scheduler import Scheduler
from fairshare.core.state import App, AppState
from fairshare.core.tree import QueueTree
from fairshare.sim.loop import AppProgress

TIMELINE_COLUMNS = (
    "time_ms", "queue",
    "steady_fair_share_mb", "steady_fair_share_vcores",
    "fair_share_mb", "fair_share_vcores",
    "min_share_mb", "min_share_vcores",
    "usage_mb", "usage_vcores",
    "demand_mb", "demand_vcores",
    "pending_mb", "pending_vcores",
    "starving_mb", "starving_vcores",
    "running_apps", "pending_apps", "containers",
)
VALUES = TIMELINE_COLUMNS[2:]  # the integer columns, in the order of a sample's values
_COL = {name: i for i, name in enumerate(VALUES)}
_APP_STATS = 7  # pending mb, vcores; starving mb, vcores; running, pending apps; containers

Matrix = npt.NDArray[np.int64]

# (time_ms, queue names in depth-first order, their VALUES: one row per queue)
RowSink = Callable[[int, list[str], Matrix], None]


class QueueSampler:
    """Samples every queue of the tree, depth-first, with the values of :data:`VALUES`.

    ``pending`` is the apps' outstanding ANY asks (size × count, spec §2.2). ``starving`` is,
    summed over the apps, their fair-share + min-share starvation as the last update pass left
    it (``App.starvation``: 0 while preemption is off, frozen while utilization is below the
    threshold) capped by what the app still asks for: YARN keeps an app's starvation through
    its post-preemption back-off (§4.6) and behind the early break (§4.3) even once its
    containers came; the cap leaves out that stale part. Parents add up their subtree;
    ``demand`` is the queue's own (as the last update pass computed it).
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._tree: QueueTree | None = None  # what the layout below was computed for
        self._names: list[str] = []
        self._min_shares: list[tuple[int, ...]] = []
        self._leaves: list[str] = []

    def _layout(self) -> None:
        tree = self.engine.tree  # immutable: a new object whenever a queue comes or goes
        if tree is self._tree:
            return
        s = self.engine.s
        self._tree = tree
        self._names = [node.name for node in tree.depth_first()]
        self._min_shares = [s.settings(name).min_share.values for name in self._names]
        self._leaves = [node.name for node in tree.leaves()]

    def sample(self) -> tuple[list[str], list[list[int]]]:
        self._layout()
        s = self.engine.s
        stats = _app_stats(s, self._leaves)
        queues = s.state.queues
        rows: list[list[int]] = []
        for name, mins in zip(self._names, self._min_shares, strict=True):
            q = queues[name]
            steady, fair = s.steady_fair_share(name).values, q.fair_share.values
            usage, demand = q.usage.values, q.demand.values
            rows.append([steady[0], steady[1], fair[0], fair[1], mins[0], mins[1], usage[0],
                         usage[1], demand[0], demand[1], *stats.get(name, _ZERO_STATS)])
        return self._names, rows


_ZERO_STATS = [0] * _APP_STATS


def _app_stats(s: Scheduler, leaves: list[str]) -> dict[str, list[int]]:
    """One pass over the live apps (they sit in their leaf's lists), summed up the tree."""
    per_queue: dict[str, list[int]] = {}
    for leaf in leaves:
        runtime = s.state.queues[leaf]
        if not runtime.runnable_apps and not runtime.non_runnable_apps:
            continue
        total = [0] * _APP_STATS
        for app in runtime.runnable_apps:
            _add_app(total, app, running=app.state is AppState.RUNNING)
        for app in runtime.non_runnable_apps:
            _add_app(total, app, running=False)
        for name in s.ancestry(leaf):
            into = per_queue.setdefault(name, [0] * _APP_STATS)
            for i, v in enumerate(total):
                into[i] += v
    return per_queue


def _add_app(total: list[int], app: App, *, running: bool) -> None:
    pending, starving = pending_demand(app).values, app.starvation.values
    total[0] += pending[0]
    total[1] += pending[1]
    total[2] += min(starving[0], pending[0])  # what is still unmet of it
    total[3] += min(starving[1], pending[1])
    total[4 if running else 5] += 1
    total[6] += len(app.containers)


class _Integrals:
    """Per queue: Σ value × interval for every column, and the time it was starving."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.sums: Matrix = np.zeros((0, len(VALUES)), dtype=np.int64)
        self.starved: Matrix = np.zeros(0, dtype=np.int64)
        self._names: list[str] = []
        self._rows: Matrix = np.zeros(0, dtype=np.int64)

    def rows_of(self, names: list[str]) -> Matrix:
        if names != self._names:
            for name in names:
                self.index.setdefault(name, len(self.index))
            grow = len(self.index) - len(self.sums)
            if grow:
                self.sums = np.vstack([self.sums, np.zeros((grow, len(VALUES)), np.int64)])
                self.starved = np.concatenate([self.starved, np.zeros(grow, np.int64)])
            self._names, self._rows = names, np.array([self.index[n] for n in names], np.int64)
        return self._rows

    def add(self, names: list[str], values: Matrix, dt: int, *, starved: bool = True) -> None:
        rows = self.rows_of(names)
        self.sums[rows] += values * dt
        if starved:
            starving = ((values[:, _COL["starving_mb"]] > 0)
                        | (values[:, _COL["starving_vcores"]] > 0))
            self.starved[rows] += starving * dt


class SimRecorder:
    """Observer of a :class:`~fairshare.sim.loop.Simulation`: samples, integrals, counts."""

    def __init__(self, engine: Engine, snapshot_every_ms: int,
                 rows: RowSink | None = None) -> None:
        self.engine = engine
        self.snapshot_every_ms = snapshot_every_ms
        self.sampler = QueueSampler(engine)
        self._sink = rows
        self.integrals = _Integrals()
        self.cluster_sums = np.zeros(4, dtype=np.int64)  # capacity mb, vcores; allocated ...
        self.start_ms: int | None = None
        self.end_ms: int | None = None
        self.weight_ms = 0  # what the integrals were weighted by in all: end − start
        self.samples = 0
        self._last: tuple[int, list[str], Matrix, Matrix] | None = None
        self.events = 0
        # per leaf queue (parents are added up when the summary is built)
        self.allocated: Counter[str] = Counter()
        self.completed: Counter[str] = Counter()
        self.preempted_from: Counter[str] = Counter()
        self.preempted_for: Counter[str] = Counter()

    # -- SimObserver -------------------------------------------------------------------------------

    def on_events(self, events: Sequence[Event]) -> None:
        self.events += len(events)
        for event in events:
            if isinstance(event, ContainerAllocated):
                self.allocated[event.queue] += 1
            elif isinstance(event, ContainerCompleted):
                self.completed[event.queue] += 1
            elif isinstance(event, ContainerPreempted):
                self.preempted_from[event.queue] += 1
                self.preempted_for[event.beneficiary_queue] += 1

    def on_snapshot(self, now_ms: int) -> None:
        names, rows = self.sampler.sample()
        values = np.array(rows, dtype=np.int64).reshape(len(rows), len(VALUES))
        if self._sink is not None:
            self._sink(now_ms, names, values)
        self._close_interval(now_ms)
        state = self.engine.state
        cluster = np.array([*state.capacity.values[:2], *state.allocated.values[:2]], np.int64)
        self._last = (now_ms, names, values, cluster)
        self.samples += 1
        if self.start_ms is None:
            self.start_ms = now_ms

    def on_end(self, now_ms: int) -> None:
        self._close_interval(now_ms)
        self.end_ms = now_ms
        if self._last is not None and self.weight_ms == 0:
            # a run of zero length: its only sample stands for it (weight 1, never starved)
            _, names, values, cluster = self._last
            self.integrals.add(names, values, 1, starved=False)
            self.cluster_sums += cluster
            self.weight_ms = 1
            self._last = (now_ms, names, values, cluster)

    def _close_interval(self, now_ms: int) -> None:
        """The previous sample stands for the time from its tick up to ``now_ms``."""
        if self._last is None:
            return
        time_ms, names, values, cluster = self._last
        dt = now_ms - time_ms
        if dt > 0:
            self.integrals.add(names, values, dt)
            self.cluster_sums += cluster * dt
            self.weight_ms += dt
            self._last = (now_ms, names, values, cluster)

    # -- what the summary reads ----------------------------------------------------------------

    def average(self, queue: str, column: str) -> float:
        """Time average of one timeline column over the run (0 where the queue did not exist)."""
        row = self.integrals.index.get(queue)
        if row is None or self.weight_ms == 0:
            return 0.0
        return int(self.integrals.sums[row, _COL[column]]) / self.weight_ms

    def integral(self, queue: str, column: str) -> int:
        row = self.integrals.index.get(queue)
        return 0 if row is None else int(self.integrals.sums[row, _COL[column]])

    def time_starved_ms(self, queue: str) -> int:
        row = self.integrals.index.get(queue)
        return 0 if row is None else int(self.integrals.starved[row])


# -- summary.json -----------------------------------------------------------------------------


def build_summary(engine: Engine, recorder: SimRecorder, apps: Mapping[str, AppProgress],
                  scenario: Mapping[str, Any]) -> dict[str, Any]:
    """The ``summary.json`` document; ``scenario`` gives ``name``, ``description``, ``seed``
    and the ``overrides`` the run was made with.

    Keys come in a fixed order and queues in tree order, so a run gives the same bytes again.
    """
    app_entries = {app_id: app_entry(engine, p) for app_id, p in apps.items()}
    return {
        "scenario": dict(scenario),
        "span": {"start-ms": recorder.start_ms, "end-ms": recorder.end_ms,
                 "snapshot-every-ms": recorder.snapshot_every_ms, "samples": recorder.samples},
        "counts": _counts(recorder, app_entries),
        "cluster": _cluster(engine, recorder),
        "queues": _queues(engine, recorder),
        "apps": app_entries,
    }


def app_entry(engine: Engine, p: AppProgress) -> dict[str, Any]:
    spec, app = p.spec, engine.state.apps.get(p.spec.id)
    state = "not-submitted" if p.submitted_ms is None or app is None else str(app.state)
    start, finish = p.started_ms, p.finished_ms
    return {
        "queue": (app.queue or None) if app is not None else None,
        "requested-queue": spec.queue,
        "user": spec.user,
        "state": state,
        "submit-ms": p.submitted_ms,
        "start-ms": start,
        "finish-ms": finish,
        "wait-ms": None if start is None or p.submitted_ms is None else start - p.submitted_ms,
        "run-ms": None if start is None or finish is None else finish - start,
        "tasks-done": p.tasks_done,
        "tasks-total": p.total_tasks,
        "preempted-containers": p.preempted_containers,
        "lost-work-ms": p.lost_work_ms,
    }


def _counts(recorder: SimRecorder, apps: Mapping[str, dict[str, Any]]) -> dict[str, int]:
    states = Counter(entry["state"] for entry in apps.values())
    submitted = len(apps) - states["not-submitted"]
    return {
        "apps": len(apps),
        "apps-submitted": submitted,
        "apps-rejected": states[str(AppState.REJECTED)],
        "apps-finished": states[str(AppState.FINISHED)],
        "apps-unfinished": submitted - states[str(AppState.REJECTED)]
        - states[str(AppState.FINISHED)],
        "containers-allocated": sum(recorder.allocated.values()),
        "containers-completed": sum(recorder.completed.values()),
        "containers-preempted": sum(recorder.preempted_from.values()),
        "events": recorder.events,
        "lost-work-ms": sum(entry["lost-work-ms"] for entry in apps.values()),
    }


def _cluster(engine: Engine, recorder: SimRecorder) -> dict[str, Any]:
    state, types = engine.state, engine.types
    cap_mb, cap_vc, alloc_mb, alloc_vc = (int(v) for v in recorder.cluster_sums)
    weight = recorder.weight_ms or 1
    return {
        "capacity": types.as_dict(state.capacity),
        "nodes": len(state.nodes),
        "utilization": {"memory-mb": _ratio(alloc_mb, cap_mb, 4),
                        "vcores": _ratio(alloc_vc, cap_vc, 4)},
        "average-allocated": {"memory-mb": round(alloc_mb / weight, 3),
                              "vcores": round(alloc_vc / weight, 3)},
    }


def _ratio(part: int, whole: int, digits: int) -> float | None:
    return None if whole <= 0 else round(part / whole, digits)


def _queues(engine: Engine, recorder: SimRecorder) -> dict[str, dict[str, Any]]:
    counts = {name: _subtree(engine, counter) for name, counter in (
        ("allocated", recorder.allocated), ("completed", recorder.completed),
        ("from", recorder.preempted_from), ("for", recorder.preempted_for))}
    seen = set(recorder.integrals.index).union(*counts.values())  # every count is ≥ 1
    return {name: _queue_entry(recorder, name, counts) for name in _queue_order(engine, recorder,
                                                                              seen)}


def _queue_order(engine: Engine, recorder: SimRecorder, seen: set[str]) -> list[str]:
    """The final tree depth-first, then queues gone by then (a reload, an emptied dynamic
    queue) in the order they were first sampled, then any seen in events only, by name."""
    order = [node.name for node in engine.tree.depth_first() if node.name in seen]
    listed = set(order)
    order += [name for name in recorder.integrals.index if name not in listed]
    listed.update(order)
    return order + sorted(seen - listed)


def _subtree(engine: Engine, counter: Counter[str]) -> Counter[str]:
    """Per-leaf counts added up to every ancestor, as YARN's queue metrics do."""
    total: Counter[str] = Counter()
    for leaf, n in counter.items():
        for name in engine.s.ancestry(leaf):
            total[name] += n
    return total


def _pair(recorder: SimRecorder, queue: str, prefix: str) -> dict[str, float]:
    return {"memory-mb": round(recorder.average(queue, f"{prefix}_mb"), 3),
            "vcores": round(recorder.average(queue, f"{prefix}_vcores"), 3)}


def _ratios(recorder: SimRecorder, queue: str, share: str) -> dict[str, float | None]:
    return {resource: _ratio(recorder.integral(queue, f"usage_{suffix}"),
                             recorder.integral(queue, f"{share}_{suffix}"), 4)
            for resource, suffix in (("memory-mb", "mb"), ("vcores", "vcores"))}


def _queue_entry(recorder: SimRecorder, name: str,
                 counts: Mapping[str, Counter[str]]) -> dict[str, Any]:
    return {
        "usage": _pair(recorder, name, "usage"),
        "steady-fair-share": _pair(recorder, name, "steady_fair_share"),
        "fair-share": _pair(recorder, name, "fair_share"),
        "usage-to-steady-fair-share": _ratios(recorder, name, "steady_fair_share"),
        "usage-to-fair-share": _ratios(recorder, name, "fair_share"),
        "demand": _pair(recorder, name, "demand"),
        "time-starved-ms": recorder.time_starved_ms(name),
        "containers-allocated": counts["allocated"][name],
        "containers-completed": counts["completed"][name],
        "containers-preempted-from": counts["from"][name],
        "containers-preempted-for": counts["for"][name],
    }


__all__ = ["TIMELINE_COLUMNS", "VALUES", "Matrix", "QueueSampler", "RowSink", "SimRecorder",
           "app_entry", "build_summary"]

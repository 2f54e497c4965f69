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

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from fairshare.config.model import TIMEOUT_NEVER_MS, UNSET_THRESHOLD, UNSET_TIMEOUT_MS
from fairshare.core import (
    App,
    AppFinished,
    AppRejected,
    AppState,
    ContainerAllocated,
    ContainerCompleted,
    ContainerPreempted,
    ContainerRecovered,
    ContainersRequested,
    Engine,
    Event,
    QueueTree,
    pending_demand,
)
from fairshare.resources.vector import float32_decimal
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

    ``pending`` is the apps' outstanding ANY asks (size × count, docs/semantics.md §2.2).
    ``starving`` is, summed over the apps, their fair-share + min-share starvation as the last
    update pass left it (``App.starvation``: 0 while preemption is off, frozen while utilization is
    below the threshold) capped by what the app still asks for: YARN keeps an app's starvation
    through its post-preemption back-off (§4.6) and behind the early break (§4.3) even once its
    containers came; the cap leaves out that stale part. Parents add up their subtree;
    ``demand`` is the queue's own (as the last update pass computed it).
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._tree: QueueTree | None = None  # what the layout below was computed for
        self._names: list[str] = []
        self._min_shares: list[tuple[int, ...]] = []
        self._leaves: list[str] = []
        self.thresholds: npt.NDArray[np.float64] = np.zeros(0)  # per queue, as ``sample`` names

    def _layout(self) -> None:
        tree = self.engine.tree  # immutable: a new object whenever a queue comes or goes
        if tree is self._tree:
            return
        settings = self.engine.settings
        self._tree = tree
        self._names = [node.name for node in tree.tree_view()]
        self._min_shares = [settings(name).min_share.values for name in self._names]
        self._leaves = [node.name for node in tree.leaves()]
        self.thresholds = np.array([_threshold(settings(name).fair_share_preemption_threshold)
                                    for name in self._names], dtype=np.float64)

    def sample(self) -> tuple[list[str], list[list[int]]]:
        self._layout()
        engine = self.engine
        stats = _app_stats(engine, self._leaves)
        queues = engine.state.queues
        rows: list[list[int]] = []
        for name, mins in zip(self._names, self._min_shares, strict=True):
            q = queues[name]
            steady, fair = engine.steady_fair_share(name).values, q.fair_share.values
            usage, demand = q.usage.values, q.demand.values
            rows.append([steady[0], steady[1], fair[0], fair[1], mins[0], mins[1], usage[0],
                         usage[1], demand[0], demand[1], *stats.get(name, _ZERO_STATS)])
        return self._names, rows


_ZERO_STATS = [0] * _APP_STATS
DEFAULT_FAIR_SHARE_THRESHOLD = 0.5  # defaultFairSharePreemptionThreshold's default (§1.3.1)


def _threshold(configured: float) -> float:
    """The fair-share threshold a queue is measured against: its effective one; without an
    allocation file YARN leaves it unset (never starved), and then the file default is used."""
    return DEFAULT_FAIR_SHARE_THRESHOLD if configured < 0 else configured


def _app_stats(engine: Engine, leaves: list[str]) -> dict[str, list[int]]:
    """One pass over the live apps (they sit in their leaf's lists), summed up the tree."""
    per_queue: dict[str, list[int]] = {}
    for leaf in leaves:
        runtime = engine.state.queues[leaf]
        if not runtime.runnable_apps and not runtime.non_runnable_apps:
            continue
        total = [0] * _APP_STATS
        for app in runtime.runnable_apps:
            _add_app(total, app, running=app.state is AppState.RUNNING)
        for app in runtime.non_runnable_apps:
            _add_app(total, app, running=False)
        for name in engine.ancestry(leaf):
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
    """Per queue: Σ value × interval for every column, over the whole run and over the samples
    with unmet demand (*contention*: pending asks), and the time it was starving, in
    contention, and short of its fair-share threshold."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.sums: Matrix = np.zeros((0, len(VALUES)), dtype=np.int64)
        self.contention_sums: Matrix = np.zeros((0, len(VALUES)), dtype=np.int64)
        self.starved: Matrix = np.zeros(0, dtype=np.int64)
        self.contention: Matrix = np.zeros(0, dtype=np.int64)
        self.short: Matrix = np.zeros(0, dtype=np.int64)
        self._names: list[str] = []
        self._rows: Matrix = np.zeros(0, dtype=np.int64)

    def rows_of(self, names: list[str]) -> Matrix:
        if names != self._names:
            for name in names:
                self.index.setdefault(name, len(self.index))
            grow = len(self.index) - len(self.sums)
            if grow:
                wide = np.zeros((grow, len(VALUES)), np.int64)
                self.sums = np.vstack([self.sums, wide])
                self.contention_sums = np.vstack([self.contention_sums, wide])
                for name in ("starved", "contention", "short"):
                    setattr(self, name, np.concatenate([getattr(self, name),
                                                        np.zeros(grow, np.int64)]))
            self._names, self._rows = names, np.array([self.index[n] for n in names], np.int64)
        return self._rows

    def add(self, names: list[str], values: Matrix, thresholds: npt.NDArray[np.float64],
            dt: int, *, timed: bool = True) -> None:
        """``values`` stand for ``dt`` ms; ``timed=False`` for a run of zero length, whose one
        sample counts in the averages but adds no time to starvation or contention."""
        rows = self.rows_of(names)
        self.sums[rows] += values * dt
        contended = (values[:, _COL["pending_mb"]] > 0) | (values[:, _COL["pending_vcores"]] > 0)
        self.contention_sums[rows] += values * (contended * dt)[:, None]
        if timed:
            starving = ((values[:, _COL["starving_mb"]] > 0)
                        | (values[:, _COL["starving_vcores"]] > 0))
            self.starved[rows] += starving * dt
            self.contention[rows] += contended * dt
            self.short[rows] += (contended & _short_of_threshold(values, thresholds)) * dt


def _short_of_threshold(values: Matrix, thresholds: npt.NDArray[np.float64]
                        ) -> npt.NDArray[np.bool_]:
    """Usage below threshold × instantaneous fair share in memory or vcores — the test of
    fair-share starvation (§4.2), made on the queue's own numbers whether or not preemption is
    on. Under ``fair`` the vcore share is 0, so only memory can fall short."""
    short = np.zeros(len(values), dtype=np.bool_)
    for usage, share in (("usage_mb", "fair_share_mb"), ("usage_vcores", "fair_share_vcores")):
        short |= values[:, _COL[usage]] < thresholds * values[:, _COL[share]]
    return short


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
        self._last: _Sample | None = None
        self.events = 0
        # per leaf queue (parents are added up when the summary is built)
        self.allocated: Counter[str] = Counter()
        self.completed: Counter[str] = Counter()
        self.preempted_from: Counter[str] = Counter()
        self.preempted_for: Counter[str] = Counter()
        self.apps = _AppTimes()

    # -- SimObserver -------------------------------------------------------------------------------

    def on_events(self, events: Sequence[Event]) -> None:
        self.events += len(events)
        apps = self.apps
        for event in events:
            if isinstance(event, ContainerAllocated):
                self.allocated[event.queue] += 1
                apps.allocated(event)
            elif isinstance(event, ContainerRecovered):  # running since before the start
                apps.held_since[event.container] = event.time
            elif isinstance(event, ContainerCompleted):
                self.completed[event.queue] += 1
                apps.held_since.pop(event.container, None)
            elif isinstance(event, ContainerPreempted):
                self.preempted_from[event.queue] += 1
                self.preempted_for[event.beneficiary_queue] += 1
                apps.preempted(event)
            elif isinstance(event, ContainersRequested):
                apps.requested(event)
            elif isinstance(event, AppFinished | AppRejected):
                apps.ended(event)

    def on_snapshot(self, now_ms: int) -> None:
        names, rows = self.sampler.sample()
        values = np.array(rows, dtype=np.int64).reshape(len(rows), len(VALUES))
        if self._sink is not None:
            self._sink(now_ms, names, values)
        self._close_interval(now_ms)
        state = self.engine.state
        cluster = np.array([*state.capacity.values[:2], *state.allocated.values[:2]], np.int64)
        self._last = _Sample(now_ms, names, values, self.sampler.thresholds, cluster)
        self.samples += 1
        if self.start_ms is None:
            self.start_ms = now_ms

    def on_end(self, now_ms: int) -> None:
        self._close_interval(now_ms)
        self.end_ms = now_ms
        self.apps.close(now_ms)
        last = self._last
        if last is not None and self.weight_ms == 0:
            # a run of zero length: its only sample stands for it (weight 1, never starved)
            self.integrals.add(last.names, last.values, last.thresholds, 1, timed=False)
            self.cluster_sums += last.cluster
            self.weight_ms = 1
            last.time_ms = now_ms

    def _close_interval(self, now_ms: int) -> None:
        """The previous sample stands for the time from its tick up to ``now_ms``."""
        last = self._last
        if last is None:
            return
        dt = now_ms - last.time_ms
        if dt > 0:
            self.integrals.add(last.names, last.values, last.thresholds, dt)
            self.cluster_sums += last.cluster * dt
            self.weight_ms += dt
            last.time_ms = now_ms

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

    def time_in_contention_ms(self, queue: str) -> int:
        row = self.integrals.index.get(queue)
        return 0 if row is None else int(self.integrals.contention[row])

    def time_short_ms(self, queue: str) -> int:
        row = self.integrals.index.get(queue)
        return 0 if row is None else int(self.integrals.short[row])

    def contention_average(self, queue: str, column: str) -> float | None:
        """Time average of a column over the samples in which the queue had pending asks."""
        row = self.integrals.index.get(queue)
        if row is None or not self.integrals.contention[row]:
            return None
        return (int(self.integrals.contention_sums[row, _COL[column]])
                / int(self.integrals.contention[row]))


@dataclass(slots=True)
class _Sample:
    """The last sample, standing for the time from ``time_ms`` on."""

    time_ms: int
    names: list[str]
    values: Matrix
    thresholds: npt.NDArray[np.float64]
    cluster: Matrix


@dataclass
class _AppTimes:
    """From the events, per app: how long it had asks outstanding (*unmet demand*), why it
    was rejected; and how long preempted containers had run (the compute thrown away)."""

    outstanding: Counter[str] = field(default_factory=Counter)  # containers asked, not placed
    unmet_since: dict[str, int] = field(default_factory=dict)
    unmet_ms: Counter[str] = field(default_factory=Counter)
    rejected: dict[str, str] = field(default_factory=dict)  # app → reason
    held_since: dict[str, int] = field(default_factory=dict)  # live container → allocation
    preempted_container_ms: int = 0

    def requested(self, event: ContainersRequested) -> None:
        if not self.outstanding[event.app]:
            self.unmet_since[event.app] = event.time
        self.outstanding[event.app] += event.count

    def allocated(self, event: ContainerAllocated) -> None:
        self.held_since[event.container] = event.time
        self.outstanding[event.app] -= 1
        if self.outstanding[event.app] <= 0:
            self._met(event.app, event.time)

    def preempted(self, event: ContainerPreempted) -> None:
        since = self.held_since.pop(event.container, None)
        if since is not None:
            self.preempted_container_ms += event.time - since

    def ended(self, event: AppFinished | AppRejected) -> None:
        if isinstance(event, AppRejected):
            self.rejected[event.app] = event.reason
        self._met(event.app, event.time)

    def _met(self, app: str, now_ms: int) -> None:
        del self.outstanding[app]
        since = self.unmet_since.pop(app, None)
        if since is not None:
            self.unmet_ms[app] += now_ms - since

    def close(self, now_ms: int) -> None:
        """At the end of the run: apps still waiting count up to it."""
        for app in list(self.unmet_since):
            self._met(app, now_ms)


# -- summary.json -----------------------------------------------------------------------------


def build_summary(engine: Engine, recorder: SimRecorder, apps: Mapping[str, AppProgress],
                  scenario: Mapping[str, Any]) -> dict[str, Any]:
    """The ``summary.json`` document; ``scenario`` gives ``name``, ``description``, ``seed``
    and the ``overrides`` the run was made with.

    Keys come in a fixed order and queues in tree order, so a run gives the same bytes again.
    """
    app_entries = {app_id: app_entry(engine, recorder, p) for app_id, p in apps.items()}
    return {
        "scenario": dict(scenario),
        "span": {"start-ms": recorder.start_ms, "end-ms": recorder.end_ms,
                 "snapshot-every-ms": recorder.snapshot_every_ms, "samples": recorder.samples},
        "counts": _counts(recorder, app_entries),
        "cluster": _cluster(engine, recorder),
        "queues": _queues(engine, recorder, app_entries),
        "apps": app_entries,
    }


def app_entry(engine: Engine, recorder: SimRecorder, p: AppProgress) -> dict[str, Any]:
    spec, app = p.spec, engine.state.apps.get(p.spec.id)
    state = "not-submitted" if p.submitted_ms is None or app is None else str(app.state)
    submit, start, finish = p.submitted_ms, p.started_ms, p.finished_ms
    am_start = start if spec.am is not None else None
    return {
        "queue": (app.queue or None) if app is not None else None,
        "requested-queue": spec.queue,
        "user": spec.user,
        "managed": spec.am is not None,
        "state": state,
        "rejected-reason": recorder.apps.rejected.get(spec.id),
        "submit-ms": submit,
        "start-ms": start,
        "finish-ms": finish,
        "wait-ms": _since(submit, start),
        "run-ms": _since(start, finish),
        "am-wait-ms": _since(submit, am_start),
        "first-task-wait-ms": _since(submit, p.first_task_ms),
        "turnaround-ms": _since(submit, finish),
        "unmet-demand-ms": recorder.apps.unmet_ms[spec.id] if submit is not None else None,
        "tasks-done": p.tasks_done,
        "tasks-total": p.total_tasks,
        "preempted-containers": p.preempted_containers,
        "lost-work-ms": p.lost_work_ms,
    }


def _since(start: int | None, end: int | None) -> int | None:
    return None if start is None or end is None else end - start


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
        "preempted-container-ms": recorder.apps.preempted_container_ms,
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
        # what the report draws the utilization gate with (§4.1)
        "preemption": {"enabled": engine.site.preemption,
                       "utilization-threshold": float32_decimal(
                           engine.site.preemption_cluster_utilization_threshold)},
    }


def _ratio(part: int, whole: int, digits: int) -> float | None:
    return None if whole <= 0 else round(part / whole, digits)


def _queues(engine: Engine, recorder: SimRecorder, apps: Mapping[str, dict[str, Any]]
            ) -> dict[str, dict[str, Any]]:
    counts = {name: _subtree(engine, counter) for name, counter in (
        ("allocated", recorder.allocated), ("completed", recorder.completed),
        ("from", recorder.preempted_from), ("for", recorder.preempted_for))}
    seen = set(recorder.integrals.index).union(*counts.values())  # every count is ≥ 1
    waits = _app_waits(engine, apps, recorder.end_ms)
    return {name: {**_queue_entry(recorder, name, counts, waits.get(name, {})),
                   "settings": _settings(engine, name)}
            for name in _queue_order(engine, recorder, seen)}


# summary key, QueueConfig attribute, AllocationConfig default attribute, its element
_PREEMPTION_SETTINGS = (
    ("fair-share-preemption-timeout-ms", "fair_share_preemption_timeout_ms",
     "default_fair_share_preemption_timeout_ms", "defaultFairSharePreemptionTimeout"),
    ("fair-share-preemption-threshold", "fair_share_preemption_threshold",
     "default_fair_share_preemption_threshold", "defaultFairSharePreemptionThreshold"),
    ("min-share-preemption-timeout-ms", "min_share_preemption_timeout_ms",
     "default_min_share_preemption_timeout_ms", "defaultMinSharePreemptionTimeout"),
)


def _settings(engine: Engine, name: str) -> dict[str, Any] | None:
    """The queue's effective preemption settings at the end, and where each comes from: the
    queue itself or the ancestor that sets it (inherited, §1.3.3), the file's top-level
    default, or YARN's default — what ``fairshare explain`` tells a starved queue by. A
    timeout of ``null`` never expires (Long.MAX_VALUE: unset in the whole file)."""
    if name not in engine.tree:
        return None  # gone by the end (a reload, an emptied dynamic queue)
    settings = engine.settings(name)
    entry: dict[str, Any] = {
        "weight": float32_decimal(settings.weight),
        "policy": str(settings.policy),
        "min-share": engine.types.as_dict(settings.min_share),
        "preemptable": settings.preemptable,
    }
    origins: dict[str, str] = {}
    for key, attr, default_attr, element in _PREEMPTION_SETTINGS:
        value = getattr(settings, attr)
        if key.endswith("-ms"):
            value = None if value in (TIMEOUT_NEVER_MS, UNSET_TIMEOUT_MS) else value
        else:
            value = None if value == UNSET_THRESHOLD else float32_decimal(value)
        entry[key] = value
        origins[key] = _origin(engine, name, attr, default_attr, element)
    entry["set-in"] = origins
    return entry


def _origin(engine: Engine, queue: str, attr: str, default_attr: str, element: str) -> str:
    allocations = engine.allocations
    for name in engine.ancestry(queue):  # the queue first, then up to root
        own = allocations.queue(name)
        if own is not None and getattr(own, attr) is not None:
            return name
    if not allocations.has_file:
        return "no allocation file"
    if getattr(allocations, default_attr) is not None:
        return f"<{element}>"
    return "YARN default"


# An app's times that a queue reports percentiles of (AM waits: managed apps only)
_WAITS = ("am-wait-ms", "first-task-wait-ms", "turnaround-ms")


def _app_waits(engine: Engine, apps: Mapping[str, dict[str, Any]], end_ms: int | None
               ) -> dict[str, dict[str, list[tuple[int, bool]]]]:
    """Per queue (an app counts in its queue and every ancestor), per wait: (ms, reached?)
    of each submitted app placed there; an app that has not reached the point by the end
    (no AM, no task, not finished) counts with its wait so far, as not reached."""
    out: dict[str, dict[str, list[tuple[int, bool]]]] = {}
    for entry in apps.values():
        queue, submit = entry["queue"], entry["submit-ms"]
        if queue is None or submit is None or end_ms is None:
            continue
        queues = engine.ancestry(queue) if queue in engine.tree else (queue,)
        for key in _WAITS:
            if key == "am-wait-ms" and not entry["managed"]:
                continue
            value = entry[key]
            sample = (value, True) if value is not None else (end_ms - submit, False)
            for name in queues:
                out.setdefault(name, {}).setdefault(key, []).append(sample)
    return out


def _percentiles(samples: Iterable[tuple[int, bool]]) -> dict[str, int | None]:
    """Nearest-rank percentiles (the smallest value at or above p % of them) and the maximum,
    in ms; ``apps`` counted, ``not-reached`` of them counted with their wait so far."""
    samples = list(samples)
    ordered = sorted(value for value, _ in samples)

    def rank(p: int) -> int | None:
        return ordered[max(0, math.ceil(p * len(ordered) / 100) - 1)] if ordered else None

    return {"p50": rank(50), "p95": rank(95), "max": ordered[-1] if ordered else None,
            "apps": len(samples), "not-reached": sum(not reached for _, reached in samples)}


def _queue_order(engine: Engine, recorder: SimRecorder, seen: set[str]) -> list[str]:
    """The final tree depth-first, then queues gone by then (a reload, an emptied dynamic
    queue) in the order they were first sampled, then any seen in events only, by name."""
    order = [node.name for node in engine.tree.tree_view() if node.name in seen]
    listed = set(order)
    order += [name for name in recorder.integrals.index if name not in listed]
    listed.update(order)
    return order + sorted(seen - listed)


def _subtree(engine: Engine, counter: Counter[str]) -> Counter[str]:
    """Per-leaf counts added up to every ancestor, as YARN's queue metrics do."""
    total: Counter[str] = Counter()
    for leaf, n in counter.items():
        for name in engine.ancestry(leaf):
            total[name] += n
    return total


def _pair(recorder: SimRecorder, queue: str, prefix: str) -> dict[str, float]:
    return {"memory-mb": round(recorder.average(queue, f"{prefix}_mb"), 3),
            "vcores": round(recorder.average(queue, f"{prefix}_vcores"), 3)}


def _ratios(recorder: SimRecorder, queue: str, share: str) -> dict[str, float | None]:
    return {resource: _ratio(recorder.integral(queue, f"usage_{suffix}"),
                             recorder.integral(queue, f"{share}_{suffix}"), 4)
            for resource, suffix in (("memory-mb", "mb"), ("vcores", "vcores"))}


def _contention_pair(recorder: SimRecorder, queue: str, prefix: str
                     ) -> dict[str, float | None]:
    pair: dict[str, float | None] = {}
    for resource, suffix in (("memory-mb", "mb"), ("vcores", "vcores")):
        value = recorder.contention_average(queue, f"{prefix}_{suffix}")
        pair[resource] = None if value is None else round(value, 3)
    return pair


def _queue_entry(recorder: SimRecorder, name: str, counts: Mapping[str, Counter[str]],
                 waits: Mapping[str, list[tuple[int, bool]]]) -> dict[str, Any]:
    return {
        "usage": _pair(recorder, name, "usage"),
        "steady-fair-share": _pair(recorder, name, "steady_fair_share"),
        "fair-share": _pair(recorder, name, "fair_share"),
        "usage-to-steady-fair-share": _ratios(recorder, name, "steady_fair_share"),
        "usage-to-fair-share": _ratios(recorder, name, "fair_share"),
        "demand": _pair(recorder, name, "demand"),
        "time-starved-ms": recorder.time_starved_ms(name),
        "time-short-of-fair-share-threshold-ms": recorder.time_short_ms(name),
        "during-contention": {
            "ms": recorder.time_in_contention_ms(name),
            "usage": _contention_pair(recorder, name, "usage"),
            "steady-fair-share": _contention_pair(recorder, name, "steady_fair_share"),
            "fair-share": _contention_pair(recorder, name, "fair_share"),
            "demand": _contention_pair(recorder, name, "demand"),
        },
        **{key: _percentiles(waits.get(key, ())) for key in _WAITS},
        "containers-allocated": counts["allocated"][name],
        "containers-completed": counts["completed"][name],
        "containers-preempted-from": counts["from"][name],
        "containers-preempted-for": counts["for"][name],
    }


__all__ = ["TIMELINE_COLUMNS", "VALUES", "Matrix", "QueueSampler", "RowSink", "SimRecorder",
           "app_entry", "build_summary"]

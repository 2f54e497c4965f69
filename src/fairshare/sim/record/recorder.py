"""What a simulation records besides its events: the timeline's rows and the summary's
integrals and counts.

:class:`SimRecorder` is an observer of :class:`fairshare.sim.run.loop.Simulation`
(``SimObserver``). At every snapshot tick it samples every queue of the tree — one row per queue,
depth-first, the columns of :data:`TIMELINE_COLUMNS` — hands the rows to an optional sink (the
``timeline.csv`` / ``.parquet`` writer) and adds them to running time integrals; from the
events it counts containers allocated, completed and preempted per queue.
:func:`~fairshare.sim.record.summary.build_summary` turns that and the app model's progress into
``summary.json`` (docs/outputs.md).

Time averages and the time a queue was starved come from the samples: a sample stands for the
interval from its tick to the next one (the last, to the end of the run), so they are exact to
``snapshot-every-ms``. Sampling reads the queues' runtime records and one pass over the live
apps (for pending asks, starvation and counts), never a scan per queue: at a thousand queues a
sample costs a few milliseconds. Nothing here prints or writes files.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

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
from fairshare.sim.record.contention import in_contention, short_of_threshold, threshold_of
from fairshare.sim.record.waiting import WaitRecorder

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
        self.thresholds = np.array([threshold_of(settings(name).fair_share_preemption_threshold)
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

    def copy(self) -> _Integrals:
        """An independent copy: ``add`` on it leaves this one as it is (its arrays are added
        to in place, and a queue first seen grows its index)."""
        other = copy.copy(self)
        other.index = dict(self.index)
        other.sums, other.contention_sums = self.sums.copy(), self.contention_sums.copy()
        other.starved, other.contention = self.starved.copy(), self.contention.copy()
        other.short = self.short.copy()
        return other

    def add(self, names: list[str], values: Matrix, thresholds: npt.NDArray[np.float64],
            dt: int, *, timed: bool = True) -> None:
        """``values`` stand for ``dt`` ms; ``timed=False`` for a run of zero length, whose one
        sample counts in the averages but adds no time to starvation or contention."""
        rows = self.rows_of(names)
        self.sums[rows] += values * dt
        contended = in_contention(values[:, _PENDING])
        self.contention_sums[rows] += values * (contended * dt)[:, None]
        if timed:
            starving = ((values[:, _COL["starving_mb"]] > 0)
                        | (values[:, _COL["starving_vcores"]] > 0))
            self.starved[rows] += starving * dt
            self.contention[rows] += contended * dt
            short = short_of_threshold(values[:, _USAGE], values[:, _FAIR], thresholds)
            self.short[rows] += (contended & short) * dt


_PENDING = [_COL["pending_mb"], _COL["pending_vcores"]]
_USAGE = [_COL["usage_mb"], _COL["usage_vcores"]]
_FAIR = [_COL["fair_share_mb"], _COL["fair_share_vcores"]]


_WORK = tuple(_COL[c] for c in ("usage_mb", "usage_vcores", "pending_mb", "pending_vcores",
                                  "running_apps", "pending_apps", "containers"))


def _busy(names: list[str], values: Matrix) -> bool:
    """Whether root (the first row: depth-first order) had anything: an app, a container, an
    ask pending. Without rows: taken as busy (nothing known)."""
    return not names or bool(values[0, list(_WORK)].any())


class SimRecorder:
    """Observer of a :class:`~fairshare.sim.run.loop.Simulation`: samples, integrals, counts."""

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
        # the trailing run of samples in which the cluster had nothing to run (no app, no
        # container, nothing pending): since when, and the cluster sums and weight by then
        self._idle: tuple[int, Matrix, int] | None = None
        self.events = 0
        # per leaf queue (parents are added up when the summary is built)
        self.allocated: Counter[str] = Counter()
        self.recovered: Counter[str] = Counter()  # running before the start, taken over
        self.completed: Counter[str] = Counter()
        self.preempted_from: Counter[str] = Counter()
        self.preempted_for: Counter[str] = Counter()
        self.apps = _AppTimes()
        self.waiting = WaitRecorder(engine)  # why the apps waited (sim/record/waiting.py)

    # -- SimObserver -------------------------------------------------------------------------------

    def on_events(self, events: Sequence[Event]) -> None:
        self.events += len(events)
        self.waiting.on_events(events)
        apps = self.apps
        for event in events:
            if isinstance(event, ContainerAllocated):
                self.allocated[event.queue] += 1
                apps.allocated(event)
            elif isinstance(event, ContainerRecovered):  # running since before the start
                self.recovered[event.queue] += 1
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
        self.waiting.on_snapshot(now_ms)
        state = self.engine.state
        cluster = np.array([*state.capacity.values[:2], *state.allocated.values[:2]], np.int64)
        self._last = _Sample(now_ms, names, values, self.sampler.thresholds, cluster)
        self.samples += 1
        if not _busy(names, values):
            if self._idle is None:
                self._idle = (now_ms, self.cluster_sums.copy(), self.weight_ms)
        else:
            self._idle = None
        if self.start_ms is None:
            self.start_ms = now_ms

    def on_end(self, now_ms: int) -> None:
        self._close_interval(now_ms)
        self.waiting.on_end(now_ms)
        self.end_ms = now_ms
        self.apps.close(now_ms)
        last = self._last
        if last is not None and self.weight_ms == 0:
            # a run of zero length: its only sample stands for it (weight 1, never starved)
            self.integrals.add(last.names, last.values, last.thresholds, 1, timed=False)
            self.cluster_sums += last.cluster
            self.weight_ms = 1
            last.time_ms = now_ms

    def forget(self, app_id: str) -> None:
        """What is kept of the ended app ``app_id`` for its summary entry, once its caller
        has made that entry and keeps it (``fairshare serve`` forgets the apps its RM
        forgot)."""
        self.apps.forget(app_id)

    def ended(self, now_ms: int) -> SimRecorder:
        """What this recorder would hold had the run ended at ``now_ms`` (:meth:`on_end`),
        leaving this one as it is, to be told more samples and events: a copy of just what
        ``on_end`` changes (the integrals, the cluster sums, the last sample's time, the wait
        and unmet-demand clocks), the rest shared. What ``fairshare serve`` writes a
        ``summary.json`` from while its session goes on; the summary built from the copy is
        the one a run stopped at ``now_ms`` would write. Read it, do not feed it."""
        view = copy.copy(self)
        view.integrals = self.integrals.copy()
        view.cluster_sums = self.cluster_sums.copy()
        view._last = None if self._last is None else replace(self._last)
        view.waiting = copy.copy(self.waiting)  # on_end adds the last interval to ``ms``
        view.waiting.ms = {leaf: Counter(times) for leaf, times in self.waiting.ms.items()}
        view.apps = self.apps.copy()
        view._sink = None
        view.on_end(now_ms)
        return view

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

    def idle_tail(self) -> tuple[int, Matrix, int] | None:
        """(start, cluster sums, weight) at the start of the run's idle tail: the samples up
        to the end in which the cluster had nothing left to run. None when there is none, or
        when the cluster was idle from the first sample (nothing to compare with)."""
        idle, end = self._idle, self.end_ms
        if idle is None or end is None or end <= idle[0] or idle[2] == 0:
            return None
        return idle

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

    def forget(self, app: str) -> None:
        """An ended app's times, no longer read (its summary entry is kept elsewhere)."""
        self.unmet_ms.pop(app, None)
        self.rejected.pop(app, None)

    def copy(self) -> _AppTimes:
        """A copy that :meth:`close` can be called on, leaving this one open."""
        return replace(self, outstanding=Counter(self.outstanding),
                       unmet_since=dict(self.unmet_since), unmet_ms=Counter(self.unmet_ms))

    def close(self, now_ms: int) -> None:
        """At the end of the run: apps still waiting count up to it."""
        for app in list(self.unmet_since):
            self._met(app, now_ms)


__all__ = ["TIMELINE_COLUMNS", "VALUES", "Matrix", "QueueSampler", "RowSink", "SimRecorder"]

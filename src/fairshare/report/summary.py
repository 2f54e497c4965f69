"""What the page reads of ``summary.json`` (docs/outputs.md): the report's view of it.

The file is read and checked by :mod:`fairshare.sim.record.summary_read` (the one model of the
summary every reader uses: a file that is not a fairshare summary — a key missing, a string
where a number belongs, another schema — is refused there, as a :class:`ConfigError` naming
the file and the field); here it becomes what the charts and tables need: queues in tree order
with whether each is a leaf and its parent's policy, the timed changes as chart marks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from fairshare.config.errors import ConfigError
from fairshare.sim.record import summary_model as model
from fairshare.sim.record.outputs import SUMMARY
from fairshare.sim.record.summary_model import MaybePair, Percentiles, Summary, as_json
from fairshare.sim.record.summary_read import load_summary as read_model

WAITS = ("am-wait-ms", "first-task-wait-ms", "turnaround-ms")


@dataclass(frozen=True, slots=True)
class QueueSummary:
    name: str
    leaf: bool
    usage: MaybePair  # time averages over the whole run
    steady: MaybePair
    fair: MaybePair  # instantaneous fair share
    demand: MaybePair
    usage_to_steady: MaybePair
    usage_to_fair: MaybePair
    starved_ms: int  # YARN's own starvation (only with preemption on)
    short_ms: int  # in contention and below threshold × instantaneous fair share
    contention_ms: int
    contention: Mapping[str, MaybePair]  # usage, steady-fair-share, fair-share, demand
    waits: Mapping[str, Percentiles]  # WAITS
    preempted_from: int
    preempted_for: int
    policy: str | None = None  # its schedulingPolicy at the end (settings.policy; None: gone)
    waiting: model.Waiting | None = None  # why its apps waited (sim/record/causes.py)

    @property
    def preempted(self) -> int:
        return self.preempted_from + self.preempted_for


@dataclass(frozen=True, slots=True)
class AppSummary:
    app: str
    queue: str | None
    state: str
    waits: Mapping[str, int | None]  # WAITS, null until reached (or never: unmanaged)
    lost_work_ms: int
    preempted: int


@dataclass(frozen=True, slots=True)
class Change:
    """A timed change of the workload (``changes`` in summary.json): a reload, a node added,
    lost or decommissioning; ``queues``: those whose settings a reload changed."""

    time_ms: int
    kind: str
    label: str
    mark: str  # a few words for the charts
    queues: Mapping[str, tuple[str, ...]]  # queue → what the reload changed of it


@dataclass(frozen=True, slots=True)
class IdleTail:
    """``idle-tail`` in summary.json: the end of the run with nothing left to run."""

    start_ms: int
    ms: int
    span_without_ms: int
    utilization_without: MaybePair
    usage_factor_without: float


@dataclass(frozen=True, slots=True)
class RunSummary:
    name: str
    description: str
    overrides: tuple[str, ...]
    start_ms: int
    end_ms: int
    every_ms: int  # the sample interval
    samples: int
    capacity: MaybePair  # at the end
    nodes: int
    utilization: MaybePair  # ∫ allocated ÷ ∫ capacity
    preemption: bool
    threshold: float  # yarn.scheduler.fair.preemption.cluster-utilization-threshold
    counts: Mapping[str, int]
    queues: tuple[QueueSummary, ...]  # depth-first tree order
    apps: tuple[AppSummary, ...]
    changes: tuple[Change, ...] = ()  # in time order (a summary from before them: none)
    idle_tail: IdleTail | None = None  # the end in which there was nothing left to run

    @property
    def marks(self) -> list[tuple[int, str]]:
        """The changes as the charts mark them: one per time, their words joined."""
        by_time: dict[int, list[str]] = {}
        for c in self.changes:
            if c.mark:
                by_time.setdefault(c.time_ms, []).append(c.mark)
        return [(t, " · ".join(words)) for t, words in by_time.items()]

    @property
    def span_ms(self) -> int:
        return self.end_ms - self.start_ms

    def queue(self, name: str) -> QueueSummary:
        return next(q for q in self.queues if q.name == name)

    def has_vcore_share(self, q: QueueSummary) -> bool:
        """Whether the queue's fair shares have vcores at all: its parent's policy computes
        them (FSParentQueue.recomputeShares), and ``fair`` and ``fifo`` compute memory only,
        leaving the vcores 0 (docs/semantics.md §2.6.1) — so vcores used there are not "over"
        anything. Root holds the whole cluster. A parent gone by the end: the vcore shares
        were 0 throughout while the memory share was not."""
        if "." not in q.name:
            return True
        parent = next((p for p in self.queues if p.name == q.name.rsplit(".", 1)[0]), None)
        if parent is not None and parent.policy is not None:
            return parent.policy.lower() == "drf"
        return bool(q.steady.vcores or q.fair.vcores) or not (q.steady.memory_mb
                                                              or q.fair.memory_mb)


def load_summary(outdir: Path) -> RunSummary:
    """The run's summary; a missing, unreadable or malformed file is a ConfigError
    (:func:`fairshare.sim.record.summary_read.load_summary` checks every field)."""
    summary = read_model(outdir)
    if summary.span.start_ms is None or summary.span.end_ms is None:
        raise _refused(outdir, "span: the run took no sample (start-ms and end-ms are null)")
    if summary.span.end_ms < summary.span.start_ms:
        raise _refused(outdir, "span.end-ms is before span.start-ms")
    if "root" not in summary.queues:
        raise _refused(outdir, "queues has no root")  # the page's totals are root's
    return run_view(summary)


def _refused(outdir: Path, why: str) -> ConfigError:
    return ConfigError(f"not a fairshare summary (docs/outputs.md): {why}",
                       str(outdir / SUMMARY))


def run_view(summary: Summary) -> RunSummary:
    """What the page reads of a summary (one that has a span and a root queue)."""
    span, cluster, scenario = summary.span, summary.cluster, summary.scenario
    names = list(summary.queues)
    parents = {n.rsplit(".", 1)[0] for n in names if "." in n}
    return RunSummary(
        name=scenario.name, description=scenario.description, overrides=scenario.overrides,
        start_ms=span.start_ms or 0, end_ms=span.end_ms or 0, every_ms=span.snapshot_every_ms,
        samples=span.samples,
        capacity=MaybePair(cluster.capacity.get("memory-mb"), cluster.capacity.get("vcores")),
        nodes=cluster.nodes, utilization=_res(cluster.utilization),
        preemption=cluster.preemption.enabled,
        threshold=float(cluster.preemption.utilization_threshold or 0.0),
        counts=as_json(summary.counts),
        queues=tuple(_queue(n, q, n not in parents) for n, q in summary.queues.items()),
        apps=tuple(_app(a, e) for a, e in summary.apps.items()),
        changes=tuple(Change(c.t, c.kind, c.label, c.mark, c.queues) for c in summary.changes),
        idle_tail=None if summary.idle_tail is None else _idle_tail(summary.idle_tail))


def _idle_tail(t: model.IdleTail) -> IdleTail:
    return IdleTail(t.start_ms, t.ms, t.span_without_ms, _res(t.utilization_without),
                    t.usage_factor_without)


def _queue(name: str, q: model.QueueEntry, leaf: bool) -> QueueSummary:
    during = q.during_contention
    return QueueSummary(
        name=name, leaf=leaf, usage=_res(q.usage), steady=_res(q.steady_fair_share),
        fair=_res(q.fair_share), demand=_res(q.demand),
        usage_to_steady=_res(q.usage_to_steady_fair_share),
        usage_to_fair=_res(q.usage_to_fair_share),
        starved_ms=q.time_starved_ms, short_ms=q.time_short_of_fair_share_threshold_ms,
        contention_ms=during.ms,
        contention={"usage": _res(during.usage), "steady-fair-share":
                    _res(during.steady_fair_share), "fair-share": _res(during.fair_share),
                    "demand": _res(during.demand)},
        waits=q.waits(),
        preempted_from=q.containers_preempted_from, preempted_for=q.containers_preempted_for,
        policy=None if q.settings is None else q.settings.policy,
        waiting=q.waiting)


def _app(app: str, e: model.AppEntry) -> AppSummary:
    return AppSummary(app=app, queue=e.queue, state=e.state, waits=e.waits(),
                      lost_work_ms=e.lost_work_ms, preempted=e.preempted_containers)


def _res(pair: model.Pair | model.MaybePair) -> MaybePair:
    return MaybePair(pair.memory_mb, pair.vcores)

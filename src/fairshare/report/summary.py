"""``summary.json`` (docs/outputs.md) read into typed, frozen values.

Everything the page shows from the summary goes through here, so that a file that is not a
fairshare summary — a key missing, a string where a number belongs — is refused once, as a
:class:`ConfigError` naming the file and the key, and never turns into a traceback halfway
through drawing a chart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.sim.record.causes import waiting_of
from fairshare.sim.record.outputs import SUMMARY, read_summary

WAITS = ("am-wait-ms", "first-task-wait-ms", "turnaround-ms")


@dataclass(frozen=True, slots=True)
class Res:
    """Memory (MB) and vcores; None where the summary has null (nothing to average over)."""

    memory_mb: float | None
    vcores: float | None


@dataclass(frozen=True, slots=True)
class Waits:
    """Nearest-rank percentiles of a wait over a queue's apps (None when it had none)."""

    p50: int | None
    p95: int | None
    max: int | None
    apps: int
    not_reached: int


@dataclass(frozen=True, slots=True)
class QueueSummary:
    name: str
    leaf: bool
    usage: Res  # time averages over the whole run
    steady: Res
    fair: Res  # instantaneous fair share
    demand: Res
    usage_to_steady: Res
    usage_to_fair: Res
    starved_ms: int  # YARN's own starvation (only with preemption on)
    short_ms: int  # in contention and below threshold × instantaneous fair share
    contention_ms: int
    contention: Mapping[str, Res]  # usage, steady-fair-share, fair-share, demand
    waits: Mapping[str, Waits]  # WAITS
    preempted_from: int
    preempted_for: int
    policy: str | None = None  # its schedulingPolicy at the end (settings.policy; None: gone)
    waiting: Mapping[str, Any] | None = None  # why its apps waited (sim/record/causes.py)

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
    utilization_without: Res
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
    capacity: Res  # at the end
    nodes: int
    utilization: Res  # ∫ allocated ÷ ∫ capacity
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
    """The run's summary; a missing, unreadable or malformed file is a ConfigError."""
    display = str(outdir / SUMMARY)
    doc = read_summary(outdir)
    try:
        return _run(doc)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ConfigError(f"not a fairshare summary (docs/outputs.md): {_why(e)}",
                          display) from None


def _why(e: Exception) -> str:
    return f"no key {e.args[0]!r}" if isinstance(e, KeyError) else str(e)


def _run(doc: Any) -> RunSummary:
    if not isinstance(doc, dict):
        raise TypeError("not a JSON object")
    span, cluster, counts = doc["span"], doc["cluster"], doc["counts"]
    start, end = _int(span["start-ms"], "span.start-ms"), _int(span["end-ms"], "span.end-ms")
    if end < start:
        raise ValueError("span.end-ms is before span.start-ms")
    names = list(_object(doc["queues"], "queues"))
    if "root" not in names:
        raise ValueError("queues has no root")  # the page's totals are root's
    parents = {n.rsplit(".", 1)[0] for n in names if "." in n}
    scenario = doc.get("scenario") or {}
    return RunSummary(
        name=str(scenario.get("name") or ""), description=str(scenario.get("description") or ""),
        overrides=tuple(str(o) for o in scenario.get("overrides") or ()),
        start_ms=start, end_ms=end,
        every_ms=_int(span["snapshot-every-ms"], "span.snapshot-every-ms"),
        samples=_int(span["samples"], "span.samples"),
        capacity=_res(cluster["capacity"], "cluster.capacity"),
        nodes=_int(cluster["nodes"], "cluster.nodes"),
        utilization=_res(cluster["utilization"], "cluster.utilization"),
        preemption=bool(cluster["preemption"]["enabled"]),
        threshold=_float(cluster["preemption"]["utilization-threshold"], "cluster.preemption"),
        counts={k: _int(v, f"counts.{k}") for k, v in _object(counts, "counts").items()},
        queues=tuple(_queue(n, doc["queues"][n], n not in parents) for n in names),
        apps=tuple(_app(a, e) for a, e in _object(doc["apps"], "apps").items()),
        changes=tuple(_change(i, c) for i, c in enumerate(doc.get("changes") or ())),
        idle_tail=_idle_tail(doc.get("idle-tail")))


def _idle_tail(tail: Any) -> IdleTail | None:
    """A summary written before ``idle-tail``, or without a tail: None."""
    if tail is None:
        return None
    t = _object(tail, "idle-tail")
    return IdleTail(_int(t["start-ms"], "idle-tail.start-ms"), _int(t["ms"], "idle-tail.ms"),
                    _int(t["span-without-ms"], "idle-tail.span-without-ms"),
                    _res(t["utilization-without"], "idle-tail.utilization-without"),
                    _float(t["usage-factor-without"], "idle-tail.usage-factor-without"))


def _change(index: int, c: Any) -> Change:
    where = f"changes[{index}]"
    c = _object(c, where)
    queues = {str(q): tuple(str(w) for w in what)
              for q, what in _object(c["queues"], where).items()}
    return Change(_int(c["t"], where), str(c["kind"]), str(c["label"]), str(c["mark"]),
                  queues)


def _queue(name: str, q: Any, leaf: bool) -> QueueSummary:
    where = f"queues.{name}"
    during = q["during-contention"]
    return QueueSummary(
        name=name, leaf=leaf, usage=_res(q["usage"], where), steady=_res(q["steady-fair-share"],
                                                                         where),
        fair=_res(q["fair-share"], where), demand=_res(q["demand"], where),
        usage_to_steady=_res(q["usage-to-steady-fair-share"], where),
        usage_to_fair=_res(q["usage-to-fair-share"], where),
        starved_ms=_int(q["time-starved-ms"], where),
        short_ms=_int(q["time-short-of-fair-share-threshold-ms"], where),
        contention_ms=_int(during["ms"], where),
        contention={k: _res(during[k], f"{where}.during-contention")
                    for k in ("usage", "steady-fair-share", "fair-share", "demand")},
        waits={w: _waits(q[w], f"{where}.{w}") for w in WAITS},
        preempted_from=_int(q["containers-preempted-from"], where),
        preempted_for=_int(q["containers-preempted-for"], where),
        policy=_policy(q.get("settings"), where),
        waiting=_waiting(q, where))


def _policy(settings: Any, where: str) -> str | None:
    """``settings.policy``; None for a queue gone by the end, or a summary from before it."""
    if settings is None:
        return None
    policy = _object(settings, f"{where}.settings").get("policy")
    return None if policy is None else str(policy)


def _waiting(q: Any, where: str) -> Mapping[str, Any] | None:
    try:
        return waiting_of(q)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None


def _app(app: str, e: Any) -> AppSummary:
    where = f"apps.{app}"
    return AppSummary(
        app=app, queue=None if e["queue"] is None else str(e["queue"]), state=str(e["state"]),
        waits={w: _opt_int(e[w], f"{where}.{w}") for w in WAITS},
        lost_work_ms=_int(e["lost-work-ms"], where),
        preempted=_int(e["preempted-containers"], where))


def _waits(w: Any, where: str) -> Waits:
    return Waits(_opt_int(w["p50"], where), _opt_int(w["p95"], where),
                 _opt_int(w["max"], where), _int(w["apps"], where),
                 _int(w["not-reached"], where))


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise TypeError(f"{where} is not an object")
    return value


def _res(value: Any, where: str) -> Res:
    r = _object(value, where)
    return Res(_opt_float(r["memory-mb"], where), _opt_float(r["vcores"], where))


def _int(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{where}: expected a whole number, got {value!r:.40}")
    return value


def _opt_int(value: Any, where: str) -> int | None:
    return None if value is None else _int(value, where)


def _float(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{where}: expected a number, got {value!r:.40}")
    return float(value)


def _opt_float(value: Any, where: str) -> float | None:
    return None if value is None else _float(value, where)

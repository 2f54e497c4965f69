"""Preemption Tuning for a window of the recorded cluster: the report's own table
(:func:`fairshare.report.tables.tuning_table` over :class:`fairshare.report.summary.QueueSummary`)
filled from the history's tallies (:class:`QueueTally`) — one implementation of the table for a
simulated run and a watched RM.

Per queue, memory and vcores (Cloudera Manager's ``avgYarnPool…DuringContention`` and our
whole-window twins):

* **in contention**: the samples with ``pendingContainers`` > 0
  (:func:`fairshare.sim.record.contention.in_contention`);
* **averages during contention**: Σ value × interval ÷ time in contention
  (:meth:`QueueTally.contention_average`), of steady fair share, instantaneous fair share,
  allocation (``usedResources``) and demand;
* **container wait ratio**: pending ÷ (pending + allocated) containers, time-averaged during
  contention — Cloudera's ``container_wait_ratio``, "percent of pending containers when
  pending containers is more than zero" (its formula is unpublished; this is its words
  taken literally); beside it, the **share of the window in contention** (time in contention
  ÷ time covered);
* **time short of threshold × share**: in contention and below
  ``fairSharePreemptionThreshold`` × instantaneous fair share
  (:func:`fairshare.sim.record.contention.short_of_threshold`).

What an RM's REST API cannot give is marked n/a, not 0: YARN's own starvation time (the RM
exposes no starvation state, ``FSLeafQueue`` keeps it internal) and containers preempted *for*
a queue (the RM reports the victims' apps, not whom a preemption served).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fairshare.report.summary import QueueSummary
from fairshare.report.tables import ratio, tuning_table
from fairshare.sim.record.summary_model import MaybePair
from fairshare.web.history.model import Preemption, QueueTally
from fairshare.web.pages.source import ShownSettings

NA_TITLE = {"time-starved-ms": "not in the RM's REST API: FairScheduler keeps starvation "
                               "internal (FSLeafQueue)",
            "containers-preempted-for": "not in the RM's REST API: it reports the victims, "
                                        "not the queue a preemption served"}


def _pair(f: Callable[[str], float | None], memory: str, vcores: str) -> MaybePair:
    return MaybePair(f(memory), f(vcores))


def _ratio_of_sums(t: QueueTally, usage: str, share: str) -> float | None:
    total = t.sums.get(share, 0)
    return None if not total else round(t.sums.get(usage, 0) / total, 4)


def queue_summary(t: QueueTally, leaf: bool, preempted_from: int,
                  settings: ShownSettings | None) -> QueueSummary:
    """The report's record of one queue, from a window's tally (see the module docstring).
    Its ``waits`` stay empty: the tuning table shows none, and the Applications page computes
    them (a 30-day window would otherwise read every app of the month here)."""
    avg, during = t.average, t.contention_average
    return QueueSummary(
        name=t.name, leaf=leaf,
        usage=_pair(avg, "used_mb", "used_vcores"),
        steady=_pair(avg, "steady_fair_share_mb", "steady_fair_share_vcores"),
        fair=_pair(avg, "fair_share_mb", "fair_share_vcores"),
        demand=_pair(avg, "demand_mb", "demand_vcores"),
        usage_to_steady=MaybePair(_ratio_of_sums(t, "used_mb", "steady_fair_share_mb"),
                                  _ratio_of_sums(t, "used_vcores", "steady_fair_share_vcores")),
        usage_to_fair=MaybePair(_ratio_of_sums(t, "used_mb", "fair_share_mb"),
                                _ratio_of_sums(t, "used_vcores", "fair_share_vcores")),
        starved_ms=0,  # n/a: see NA_TITLE
        short_ms=t.short_ms, contention_ms=t.contention_ms,
        contention={"usage": _pair(during, "used_mb", "used_vcores"),
                    "steady-fair-share": _pair(during, "steady_fair_share_mb",
                                               "steady_fair_share_vcores"),
                    "fair-share": _pair(during, "fair_share_mb", "fair_share_vcores"),
                    "demand": _pair(during, "demand_mb", "demand_vcores")},
        waits={}, preempted_from=preempted_from, preempted_for=0,
        policy=None if settings is None else settings.policy)


def leaves(names: Sequence[str]) -> set[str]:
    parents = {n.rsplit(".", 1)[0] for n in names if "." in n}
    return {n for n in names if n not in parents}


def summaries(tallies: Sequence[QueueTally], preemptions: Sequence[Preemption],
              settings: Mapping[str, ShownSettings] | None) -> list[QueueSummary]:
    """Every tallied queue in tree order; containers preempted from a queue are those taken
    from the apps placed in it (as the simulator's recorder counts them: the leaf's)."""
    names = [t.name for t in tallies]
    leafy = leaves(names)
    taken: dict[str, int] = {}
    for p in preemptions:
        taken[p.queue] = taken.get(p.queue, 0) + p.containers
    return [queue_summary(t, t.name in leafy, taken.get(t.name, 0),
                          None if settings is None else settings.get(t.name)) for t in tallies]


def live_tuning_table(queues: Sequence[QueueSummary]) -> str:
    """:func:`tuning_table`, with the columns an RM cannot fill shown as n/a (their cells are
    the same in every row: :func:`queue_summary` fills them with 0), the whole-span columns
    read as the window's, contention measured on pending containers."""
    return tuning_table(queues, span="Whole window", pending="pending containers",
                        unavailable=NA_TITLE)


def contention_share(t: QueueTally) -> float | None:
    """Time in contention ÷ time covered (None: nothing covered)."""
    return t.contention_ms / t.weight_ms if t.weight_ms else None


def wait_ratio(t: QueueTally) -> float | None:
    """The container wait ratio: pending ÷ (pending + allocated) containers, time-averaged
    during contention (Cloudera's ``container_wait_ratio`` in its words; None: never in
    contention)."""
    pending = t.contention_sums.get("pending_containers", 0)
    total = pending + t.contention_sums.get("allocated_containers", 0)
    return pending / total if total else None


def _json_pair(p: MaybePair) -> dict[str, float | None]:
    return {"memory_mb": p.memory_mb, "vcores": p.vcores}


def tuning_rows(tallies: Sequence[QueueTally], queues: Sequence[QueueSummary]) -> list[Any]:
    """``/api/tuning``'s rows: the table's numbers, unrounded, with the wait ratios."""
    out = []
    for t, q in zip(tallies, queues, strict=True):
        out.append({
            "queue": q.name, "leaf": q.leaf, "samples": t.samples, "covered_ms": t.weight_ms,
            "contention_ms": t.contention_ms, "contention_samples": t.contention_samples,
            "container_wait_ratio": wait_ratio(t), "contention_share": contention_share(t),
            "short_ms": t.short_ms,
            "short_ratio": t.short_ms / t.weight_ms if t.weight_ms else None,
            "during_contention": {k: _json_pair(v) for k, v in q.contention.items()},
            "whole_window": {"usage": _json_pair(q.usage), "steady-fair-share":
                             _json_pair(q.steady), "fair-share": _json_pair(q.fair),
                             "demand": _json_pair(q.demand)},
            "usage_to_fair_share_during_contention":
                _json_pair(ratio(q.contention["usage"], q.contention["fair-share"])),
            "containers_preempted_from": q.preempted_from,
            "containers_preempted_for": None, "time_starved_ms": None})
    return out

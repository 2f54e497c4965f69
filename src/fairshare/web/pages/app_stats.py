"""Apps' waits and lost work over a window, per queue: Cloudera Manager's "Historical
Applications By YARN Pool", from the apps the history recorded (:class:`AppRecord`).

* **AM wait**: ``launchTime − startTime`` (the RM's ``AppInfo``: from the app's acceptance to
  its AM container's launch); not reached while ``launchTime`` is 0.
* **First-container wait**: the first sample that saw a container beyond the AM's, minus
  ``startTime`` (as precise as the polling interval); not reached while there was none.
* **Turnaround**: ``finishTime − startTime``; not reached while running.
* Percentiles are nearest-rank (:func:`fairshare.sim.record.summary.percentiles`, the rule
  of ``summary.json``) over the apps that reached the point.
* **Lost work**: the RM's ``preemptedMemorySeconds`` (MB·s of containers preempted: the work
  they had done, lost) shown in **GB·h** (÷ 1,024 ÷ 3,600), and ``preemptedVcoreSeconds`` in
  vcore·h.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from fairshare.sim.record.summary import percentiles as summary_percentiles
from fairshare.sim.record.summary_model import Percentiles
from fairshare.web.history.model import AppRecord

WAITS = ("am-wait-ms", "first-task-wait-ms", "turnaround-ms")  # report.summary.WAITS' keys
MB_S_PER_GB_H = 1024 * 3600
S_PER_H = 3600


def am_wait_ms(a: AppRecord) -> int | None:
    return a.launched_ms - a.started_ms if a.launched_ms else None


def first_container_wait_ms(a: AppRecord) -> int | None:
    return None if a.first_container_ms is None else a.first_container_ms - a.started_ms


def turnaround_ms(a: AppRecord) -> int | None:
    return a.finished_ms - a.started_ms if a.finished_ms else None


MEASURES: Mapping[str, Callable[[AppRecord], int | None]] = {
    "am-wait-ms": am_wait_ms, "first-task-wait-ms": first_container_wait_ms,
    "turnaround-ms": turnaround_ms}


def percentiles(values: Iterable[int | None]) -> Percentiles:
    """Over the apps that reached the point (the summary's nearest rank); the others are
    counted as not reached."""
    found = list(values)
    reached = summary_percentiles((v, True) for v in found if v is not None)
    return replace(reached, apps=len(found), not_reached=len(found) - reached.apps)


def waits(apps: Sequence[AppRecord]) -> dict[str, Percentiles]:
    return {key: percentiles(f(a) for a in apps) for key, f in MEASURES.items()}


@dataclass(frozen=True, slots=True)
class QueueApps:
    """One queue's apps over a window (the apps placed in it, not below it: as the report's
    per-queue waits)."""

    queue: str
    apps: tuple[AppRecord, ...]
    waits: Mapping[str, Percentiles]
    preempted_containers: int  # AM and non-AM
    preempted_am_containers: int
    lost_gb_h: float
    lost_vcore_h: float


def by_queue(records: Sequence[AppRecord], order: Sequence[str]) -> list[QueueApps]:
    """Per queue with apps, in ``order`` (tree order) and then any queue no longer there."""
    grouped: dict[str, list[AppRecord]] = {}
    for r in records:
        grouped.setdefault(r.queue, []).append(r)
    names = [n for n in order if n in grouped] + sorted(set(grouped) - set(order))
    return [summarize(n, grouped[n]) for n in names]


def summarize(queue: str, apps: Sequence[AppRecord]) -> QueueApps:
    return QueueApps(
        queue, tuple(apps), waits(apps),
        sum(a.preempted + a.am_preempted for a in apps), sum(a.am_preempted for a in apps),
        sum(a.preempted_memory_seconds for a in apps) / MB_S_PER_GB_H,
        sum(a.preempted_vcore_seconds for a in apps) / S_PER_H)

"""The report's tables: Preemption Tuning (every queue), recovery after preemption, and waits.

Preemption Tuning follows Cloudera Manager's report of that name: per queue, the averages of
steady fair share, instantaneous fair share and allocation (usage) *during contention* — the
samples in which the queue had pending asks — beside the whole-run averages. A queue whose
allocation during contention stays well below its instantaneous fair share is one more
aggressive preemption (a shorter ``fairSharePreemptionTimeout``, a higher
``fairSharePreemptionThreshold``) could help; the time short of its threshold says for how
long, whether or not preemption was on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from fairshare.report import units
from fairshare.report.html_kit import (
    attrs,
    count_cell,
    esc,
    header_row,
    ms_cell,
    ratio_cell,
    res_cell,
    table,
)
from fairshare.report.summary import AppSummary, QueueSummary
from fairshare.sim.record.summary_model import MaybePair

if TYPE_CHECKING:  # the charts bring matplotlib: the live pages use these tables without it
    from fairshare.report.queue_charts import QueueView


def queue_cell(q: QueueSummary) -> str:
    depth = q.name.count(".")
    label = q.name.rsplit(".", 1)[-1] if depth else q.name
    pad = f' style="padding-left:{8 + 14 * depth}px"' if depth else ""
    return f'<td class="queue"{pad} title="{esc(q.name)}">{esc(label)}</td>'


def _row_open(q: QueueSummary) -> str:
    return f'<tr class="{"leaf" if q.leaf else "parent"}"{attrs(data_queue=q.name)}>'


def ratio(usage: MaybePair, share: MaybePair) -> MaybePair:
    """Usage ÷ share per resource (None where the share is 0 or unknown)."""
    def one(u: float | None, s: float | None) -> float | None:
        return None if u is None or not s else round(u / s, 4)
    return MaybePair(one(usage.memory_mb, share.memory_mb), one(usage.vcores, share.vcores))


def tuning_table(queues: Sequence[QueueSummary], *, span: str = "Whole run",
                 pending: str = "pending asks",
                 unavailable: Mapping[str, str] | None = None) -> str:
    """The Preemption Tuning table. ``span`` names the whole-span columns' group (a run, or a
    watched cluster's window), ``pending`` what contention is measured on; ``unavailable``:
    the cells (by data key) that the source cannot give, with why — drawn n/a, not 0."""
    groups = (f'<tr><th rowspan="2">Queue</th><th colspan="5">During contention ({esc(pending)})'
              f': time averages</th><th colspan="4">{esc(span)}: time averages</th>'
              '<th colspan="2">Time</th><th colspan="2">Containers preempted</th></tr>')
    head = header_row([
        ("in contention", True), ("steady fair share", True),
        ("instantaneous fair share", True), ("allocation (usage)", True),
        ("usage ÷ instant. share", True), ("steady fair share", True),
        ("instantaneous fair share", True), ("usage", True), ("usage ÷ instant. share", True),
        ("short of fair-share threshold", True), ("starved (YARN)", True), ("from it", True),
        ("for it", True)])
    return table(groups + head, [_tuning_row(q, unavailable or {}) for q in queues],
                 css="tuning")


def _na(key: str, why: str) -> str:
    return f'<td class="num na"{attrs(data_key=key)} title="{esc(why)}">n/a</td>'


def _tuning_row(q: QueueSummary, unavailable: Mapping[str, str]) -> str:
    def ms(key: str, value: int) -> str:
        return _na(key, unavailable[key]) if key in unavailable else ms_cell(key, value)

    def count(key: str, value: int) -> str:
        return _na(key, unavailable[key]) if key in unavailable else count_cell(key, value)

    during = q.contention
    never = q.contention_ms == 0
    return "".join([
        _row_open(q), queue_cell(q),
        ms_cell("during-contention.ms", q.contention_ms),
        res_cell("during-contention.steady-fair-share", during["steady-fair-share"]),
        res_cell("during-contention.fair-share", during["fair-share"]),
        res_cell("during-contention.usage", during["usage"]),
        ratio_cell("during-contention.usage-to-fair-share",
                   ratio(during["usage"], during["fair-share"]),
                   "never in contention" if never else
                   "average allocation ÷ average instantaneous fair share, in contention"),
        res_cell("steady-fair-share", q.steady), res_cell("fair-share", q.fair),
        res_cell("usage", q.usage),
        ratio_cell("usage-to-fair-share", q.usage_to_fair, "∫ usage ÷ ∫ instantaneous share"),
        ms_cell("time-short-of-fair-share-threshold-ms", q.short_ms,
                css="num short" if q.short_ms else "num"),
        ms("time-starved-ms", q.starved_ms),
        count("containers-preempted-from", q.preempted_from),
        count("containers-preempted-for", q.preempted_for), "</tr>"])


def recovery_table(views: Sequence[QueueView], start_ms: int) -> str:
    """Every episode of preemption for a charted queue: its kills and when the queue was back
    at its share (series.Episode)."""
    head = header_row([("Queue", False), ("containers preempted for it", True),
                       ("first kill", True), ("last kill", True),
                       ("back at its share", True), ("after the last kill", True),
                       ("how", False)])
    rows = []
    for view in views:
        for e in view.episodes:
            restored = e.restored_ms
            data = attrs(data_queue=view.name, data_first_kill_ms=e.first_kill_ms,
                         data_last_kill_ms=e.last_kill_ms, data_kills=e.kills,
                         data_restored_ms=restored)
            rows.append(
                f"<tr{data}><td class=queue>{esc(view.name)}</td>"
                f'<td class="num">{e.kills:,}</td>'
                f'<td class="num">{units.clock(e.first_kill_ms, start_ms)}</td>'
                f'<td class="num">{units.clock(e.last_kill_ms, start_ms)}</td>'
                f'<td class="num restored">'
                f'{units.clock(restored, start_ms) if restored is not None else units.DASH}</td>'
                f'<td class="num">'
                f'{units.duration(restored - e.last_kill_ms) if restored is not None else "–"}'
                f"</td><td>{esc(e.how)}</td></tr>")
    return table(head, rows, css="recovery")


def waits_table(queues: Sequence[QueueSummary], apps: Sequence[AppSummary]) -> str:
    head = header_row([("Queue", False), ("apps", True), ("AM wait p50", True),
                       ("AM wait p95", True), ("AM wait max", True),
                       ("first task p50", True), ("first task p95", True),
                       ("turnaround p50", True), ("turnaround p95", True),
                       ("not reached by the end", True), ("lost work", True)])
    lost = _lost_work(queues, apps)
    rows = []
    for q in queues:
        am, first, turn = (q.waits[k] for k in ("am-wait-ms", "first-task-wait-ms",
                                                "turnaround-ms"))
        rows.append("".join([
            _row_open(q), queue_cell(q), count_cell("turnaround-ms.apps", turn.apps),
            ms_cell("am-wait-ms.p50", am.p50), ms_cell("am-wait-ms.p95", am.p95),
            ms_cell("am-wait-ms.max", am.max), ms_cell("first-task-wait-ms.p50", first.p50),
            ms_cell("first-task-wait-ms.p95", first.p95), ms_cell("turnaround-ms.p50", turn.p50),
            ms_cell("turnaround-ms.p95", turn.p95),
            count_cell("turnaround-ms.not-reached", turn.not_reached),
            ms_cell("lost-work-ms", lost[q.name]), "</tr>"]))
    return table(head, rows, css="waits")


def _lost_work(queues: Sequence[QueueSummary], apps: Sequence[AppSummary]) -> Mapping[str, int]:
    """The lost work of the apps placed in each queue or below it."""
    by_leaf: dict[str, int] = {}
    for a in apps:
        if a.queue is not None:
            by_leaf[a.queue] = by_leaf.get(a.queue, 0) + a.lost_work_ms
    return {q.name: sum(ms for leaf, ms in by_leaf.items()
                        if leaf == q.name or leaf.startswith(q.name + "."))
            for q in queues}

"""The report's tuning advice: per leaf queue whose apps waited, what held them (summary.json
``waiting``, by cause) and what would help — more aggressive preemption only where the
waiting was preemption's kind, otherwise the limit that held the queue with its setting and
value (the causes and their words: sim/record/causes.py, shared with ``fairshare explain``)."""

from __future__ import annotations

from collections.abc import Sequence

from fairshare.report import units
from fairshare.report.html_kit import attrs, esc
from fairshare.report.summary import QueueSummary
from fairshare.sim.record.causes import advice, advice_text, cause_of
from fairshare.sim.record.summary_model import Waiting

SHOWN = 20  # queues advised, those that waited longest first


def tuning_advice(queues: Sequence[QueueSummary]) -> str:
    waited = [(q, q.waiting) for q in queues
              if q.leaf and q.waiting is not None and q.waiting.app_ms > 0]
    if not any(q.waiting is not None for q in queues):
        return ("<p class=muted>This summary has no account of waiting by cause (written "
                "before it); advice needs a run by this version.</p>")
    if not waited:
        return "<p>Advice: no app waited at any sample.</p>"
    ranked = sorted(waited, key=lambda item: -item[1].app_ms)
    items = [_item(q, waiting) for q, waiting in ranked[:SHOWN]]
    more = (f"<p class=muted>{len(ranked) - SHOWN:,} more queues whose apps waited: "
            f"<code>fairshare explain --queue</code> gives each.</p>"
            if len(ranked) > SHOWN else "")
    return ("<h3>Advice: what held each queue</h3><p>Per leaf queue whose apps waited, the "
            "time they waited (app time, summed over its apps, from the samples), what held "
            "them by cause with its share of that time, and what would help. More aggressive "
            "preemption is advised only where the waiting was of that kind; otherwise the "
            "limit that held the queue is named with its setting and value "
            "(<code>summary.json</code> <code>waiting</code>).</p>"
            f"<ul class=advice>{''.join(items)}</ul>{more}")


def _item(q: QueueSummary, waiting: Waiting) -> str:
    causes = waiting.causes
    shares = "; ".join(f"{units.percent(c.share)} {esc(cause_of(c.cause).words)} "
                       f"(<code>{esc(c.limit)}</code>)" for c in causes[:4])
    chosen = advice(waiting)
    preemption = any(cause.preemption for cause, _ in chosen)
    helps = " ".join(f"{esc(advice_text(cause, entry))[:1].upper()}"
                     f"{esc(advice_text(cause, entry))[1:]}." for cause, entry in chosen)
    if not preemption:
        helps += " More aggressive preemption would not have helped."
    data = attrs(data_queue=q.name, data_cause=causes[0].cause,
                 data_preemption=str(preemption).lower(), data_ms=waiting.app_ms)
    return (f"<li{data}><strong>{esc(q.name)}</strong>: its apps waited "
            f"{units.duration(waiting.app_ms)} — {shares}. {helps}</li>")

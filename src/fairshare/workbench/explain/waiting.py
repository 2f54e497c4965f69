"""What ``fairshare explain --queue`` says of why a queue's apps waited: ``summary.json``'s
``waiting`` (written by the run, sim/record/waiting.py) in words, each cause with its share of
the time and the events behind it, then what would have helped — more aggressive preemption
only where the waiting was of that kind (sim/record/causes.py, shared with the report)."""

from __future__ import annotations

from collections.abc import Iterator

from fairshare.sim.record.causes import advice, advice_text, cause_of
from fairshare.sim.record.summary_model import QueueEntry, Waiting
from fairshare.workbench.explain.model import Statement, at, pct


def waiting_statements(q: QueueEntry) -> Iterator[Statement]:
    """The account of the queue's waiting time by cause."""
    waiting = q.waiting
    total = waiting.app_ms
    if not total:
        yield Statement(None, "Its apps never waited (no app was held or had asks "
                              "outstanding at a sample).")
        return
    yield Statement(None, f"Its apps waited {at(total)} in all (app time: two apps waiting "
                          f"for a minute count two minutes), by cause:")
    for entry in waiting.causes:
        cause = cause_of(entry.cause)
        yield Statement(None, f"{pct(entry.share)} ({at(entry.ms)}): held by "
                        f"{cause.words} — {entry.limit}.", entry.seqs)
    yield from _advice(waiting)


def _advice(waiting: Waiting) -> Iterator[Statement]:
    chosen = advice(waiting)
    helps = [c for c, _ in chosen if c.preemption]
    for cause, entry in chosen:
        yield Statement(None, f"What would help ({pct(entry.share)} of the wait): "
                        f"{advice_text(cause, entry)}.")
    if not helps:
        yield Statement(None, "More aggressive preemption would not have helped: what held "
                              "the queue is above.")


def held_by_other_than_preemption(q: QueueEntry) -> str | None:
    """The words of the largest cause when it is not preemption's, else None."""
    if not q.waiting.causes:
        return None
    top = q.waiting.causes[0]
    cause = cause_of(top.cause)
    return None if cause.preemption else f"{cause.words} ({top.limit})"

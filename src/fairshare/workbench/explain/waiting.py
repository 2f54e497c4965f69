"""What ``fairshare explain --queue`` says of why a queue's apps waited: ``summary.json``'s
``waiting`` (written by the run, sim/record/waiting.py) in words, each cause with its share of
the time and the events behind it, then what would have helped — more aggressive preemption
only where the waiting was of that kind (sim/record/causes.py, shared with the report)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from fairshare.sim.record.causes import advice, advice_text, cause_of, waiting_of
from fairshare.workbench.explain.model import Statement, at, pct


def waiting_statements(q: Mapping[str, Any]) -> Iterator[Statement]:
    """The account of the queue's waiting time by cause (nothing for a summary without it)."""
    waiting = waiting_of(q)
    if waiting is None:
        return
    total = waiting["app-ms"]
    if not total:
        yield Statement(None, "Its apps never waited (no app was held or had asks "
                              "outstanding at a sample).")
        return
    yield Statement(None, f"Its apps waited {at(total)} in all (app time: two apps waiting "
                          f"for a minute count two minutes), by cause:")
    for entry in waiting["causes"]:
        cause = cause_of(entry["cause"])
        yield Statement(None, f"{pct(entry['share'])} ({at(entry['ms'])}): held by "
                        f"{cause.words} — {entry['limit']}.", tuple(entry["seqs"]))
    yield from _advice(waiting)


def _advice(waiting: Mapping[str, Any]) -> Iterator[Statement]:
    chosen = advice(waiting)
    helps = [c for c, _ in chosen if c.preemption]
    for cause, entry in chosen:
        yield Statement(None, f"What would help ({pct(entry['share'])} of the wait): "
                        f"{advice_text(cause, entry)}.")
    if not helps:
        yield Statement(None, "More aggressive preemption would not have helped: what held "
                              "the queue is above.")


def held_by_other_than_preemption(q: Mapping[str, Any]) -> str | None:
    """The words of the largest cause when it is not preemption's, else None."""
    waiting = waiting_of(q)
    if waiting is None or not waiting.get("causes"):
        return None
    top = waiting["causes"][0]
    cause = cause_of(top["cause"])
    return None if cause.preemption else f"{cause.words} ({top['limit']})"

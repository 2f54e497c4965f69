"""Which queues get a chart of their own.

A small tree (up to :data:`MAX_CHARTED` queues under root) is charted whole, in tree order. A
big one — the benchmark's has 1,000 leaves — cannot be: twelve charts is what a page can show
and an admin can read. Then only leaf queues compete (a parent adds up its subtree, so it would
win every ranking), taken in turn from three rankings of what preemption tuning is about:

1. most time starved (YARN's own starvation, ``time-starved-ms``);
2. most containers preempted, from and for the queue;
3. most time short of its fair-share threshold while in contention — starvation YARN would
   recognise with preemption on, and the one ranking that still speaks when it is off.

A queue is taken once (the first ranking to reach it names the reason); a ranking stops at
queues with nothing to show. Places still free go to the busiest queues (time-averaged memory
usage). Ties go to tree order, so the choice is the same on every run.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fairshare.report import units
from fairshare.report.summary import QueueSummary

MAX_CHARTED = 12


@dataclass(frozen=True, slots=True)
class Charted:
    queue: QueueSummary
    reason: str  # why it was chosen, for the chart's heading


@dataclass(frozen=True, slots=True)
class Choice:
    charted: tuple[Charted, ...]  # in tree order
    left_out: tuple[str, ...]  # queues under root without a chart, in tree order
    whole_tree: bool  # every queue under root is charted


_Ranking = tuple[str, Callable[[QueueSummary], float], Callable[[QueueSummary], str]]
_RANKINGS: tuple[_Ranking, ...] = (
    ("most starved", lambda q: q.starved_ms, lambda q: f"{units.duration(q.starved_ms)} starved"),
    ("most preempted", lambda q: q.preempted,
     lambda q: f"{q.preempted_from:,} containers preempted from it, {q.preempted_for:,} for it"),
    ("longest short of its fair-share threshold", lambda q: q.short_ms,
     lambda q: f"{units.duration(q.short_ms)} short of threshold"),
    ("busiest", lambda q: q.usage.memory_mb or 0.0,
     lambda q: f"{units.memory(q.usage.memory_mb)} used on average"),
)


def choose_queues(queues: Sequence[QueueSummary], limit: int = MAX_CHARTED) -> Choice:
    """The queues to chart: all under root when they fit, else ``limit`` leaves."""
    under_root = [q for q in queues if q.name != "root"]
    if len(under_root) <= limit:
        return Choice(tuple(Charted(q, "every queue is shown") for q in under_root), (), True)
    leaves = [q for q in under_root if q.leaf]
    picked: dict[str, str] = {}
    ranked = [(label, reason, [q for q in sorted(leaves, key=lambda q: -key(q)) if key(q) > 0])
              for label, key, reason in _RANKINGS]
    for rankings in (ranked[:3], ranked[3:]):  # the busiest only fill what is left
        depth = 0
        while len(picked) < limit and any(depth < len(r) for _, _, r in rankings):
            for label, reason, ranking in rankings:
                if depth < len(ranking) and len(picked) < limit:
                    q = ranking[depth]
                    picked.setdefault(q.name, f"{label} (#{depth + 1}: {reason(q)})")
            depth += 1
    charted = tuple(Charted(q, picked[q.name]) for q in under_root if q.name in picked)
    left_out = tuple(q.name for q in under_root if q.name not in picked)
    return Choice(charted, left_out, False)

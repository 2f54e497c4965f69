"""The causes a queue's apps waited for, their words, and the advice each calls for.

:mod:`fairshare.sim.record.waiting` finds, at every sample, what held each waiting app and
writes the time by cause into ``summary.json`` (``queues.<q>.waiting``, docs/outputs.md). Both
``fairshare explain --queue`` and the report read that, and word it with what is here: one
list of causes, one wording, one rule for when more aggressive preemption is the advice.

A cause is *preemption's* when tuning preemption (turning it on, a shorter timeout, a lower
utilization threshold, shorter waits around a round) would have shortened the wait; every
other cause is a limit or a state that preemption does not change, and the advice names it
with its setting and value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Cause:
    key: str
    words: str  # what held the apps, as a clause after "held by"
    preemption: bool  # would more aggressive preemption have helped?
    advice: str  # what to change; ``{limit}`` stands for the limit's words


CAUSES: tuple[Cause, ...] = (
    Cause("max-running-apps", "the queue's maxRunningApps (apps held not runnable)", False,
          "raise the queue's maxRunningApps ({limit}), or spread the apps over queues: its apps "
          "were held not runnable, and preemption does not change that"),
    Cause("user-max-apps", "a user's maxRunningApps (apps held not runnable)", False,
          "raise the user's maxRunningApps ({limit}): the user's apps were held not runnable, "
          "and preemption does not change that"),
    Cause("max-container-allocation", "maxContainerAllocation (asks refused)", False,
          "ask for smaller containers or raise the limit ({limit}): YARN refused the asks above "
          "it"),
    Cause("max-am-share", "maxAMShare (AMs not started)", False,
          "raise maxAMShare ({limit}): AMs waited for the queue's AM share, not for room"),
    Cause("max-share", "its max share (maxResources)", False,
          "raise maxResources ({limit}): the queue was at its max share, and preemption never "
          "takes more for a queue than that"),
    Cause("reserved-by-others", "reservations other apps held on nodes with room", False,
          "look at the reserving apps ({limit}): a reserved node serves its reserving app "
          "alone"),
    Cause("room-free", "the wait for a node heartbeat (a node had room; or the locality "
          "delay)", False,
          "nothing to tune: the wait was {limit}"),
    Cause("preemption-off", "preemption being off", True,
          "turn preemption on ({limit}): the queue waited for containers to finish"),
    Cause("utilization-gate", "the utilization gate being closed", True,
          "lower the utilization threshold ({limit}): starvation is only evaluated above it"),
    Cause("starvation-not-configured", "no preemption timeout (starvation not configured)",
          True, "set a fairSharePreemptionTimeout for the queue ({limit}): without a timeout it is "
          "never starved"),
    Cause("preemption-timeout", "the preemption timeout not yet passed (below its fair share, "
          "not yet starved)", True,
          "shorten the timeout ({limit}), or raise fairSharePreemptionThreshold: more aggressive "
          "preemption is what would have helped here"),
    Cause("preemption-round", "the waits around a preemption round (victims warned, back-off "
          "before the next check)", True,
          "shorten the waits around a round ({limit}): the queue waited between rounds"),
    Cause("starvation-under-a-container", "a starvation smaller than a container (threshold × "
          "fair share less usage)", True,
          "raise the threshold towards 1 ({limit}): the starvation it allowed was less than one "
          "container, so no round could free one"),
    Cause("non-preemptable-victims", "only non-preemptable containers to take "
          "(allowPreemptionFrom false, or AM containers)", False,
          "let the queues holding the cluster be preempted ({limit}): a more aggressive "
          "timeout would not help, there was nothing to take"),
    Cause("victims-at-fair-share", "only containers of apps at or below their fair share to "
          "take", False,
          "give the queue a larger share (weight or minResources; {limit}): the others held "
          "no more than theirs, so preemption could take nothing"),
    Cause("no-node-fits", "containers that fit on no node", False,
          "make the containers smaller or the nodes bigger ({limit})"),
    Cause("at-fair-share", "the cluster being full while its apps had their fair share", False,
          "give the queue a larger share (weight or minResources; {limit}) or the cluster more "
          "room: its apps were at or above their fair share, so preemption could not help"),
)
BY_KEY = {c.key: c for c in CAUSES}


def cause_of(key: str) -> Cause:
    """The cause of ``key``; a key from a newer version reads as itself."""
    return BY_KEY.get(key) or Cause(key, key, False, "see {limit}")


def waiting_of(queue_entry: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """A summary queue's ``waiting`` (None in summaries written before it); ValueError when
    it is not what a run writes."""
    waiting = queue_entry.get("waiting")
    if waiting is None:
        return None
    if not isinstance(waiting, Mapping) or not _whole(waiting.get("app-ms")) or not isinstance(
            waiting.get("causes"), list):
        raise ValueError("waiting is not {app-ms, causes}")
    for c in waiting["causes"]:
        if not (isinstance(c, Mapping) and isinstance(c.get("cause"), str)
                and isinstance(c.get("limit"), str) and _whole(c.get("ms"))
                and isinstance(c.get("share"), int | float) and isinstance(c.get("seqs"), list)
                and all(_whole(x) for x in c["seqs"])):
            raise ValueError("a waiting cause is not {cause, limit, ms, share, seqs}")
    return waiting


def _whole(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def advice(waiting: Mapping[str, Any], *, at_least: float = 0.2) -> list[tuple[Cause, Any]]:
    """The causes that held the queue for at least ``at_least`` of its apps' waiting time
    (the largest always), each with its entry: what the advice is made of. More aggressive
    preemption is advised only through a preemption cause."""
    causes = list(waiting.get("causes") or ())
    chosen = [c for i, c in enumerate(causes) if i == 0 or (c.get("share") or 0) >= at_least]
    return [(cause_of(c["cause"]), c) for c in chosen]


def advice_text(cause: Cause, entry: Mapping[str, Any]) -> str:
    return cause.advice.format(limit=entry.get("limit") or cause.key)


__all__ = ["BY_KEY", "CAUSES", "Cause", "advice", "advice_text", "cause_of", "waiting_of"]

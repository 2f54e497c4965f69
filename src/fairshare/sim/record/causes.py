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

from dataclasses import dataclass
from enum import StrEnum

from fairshare.sim.record.summary_model import WaitCause as WaitEntry
from fairshare.sim.record.summary_model import Waiting


class WaitCause(StrEnum):
    """What held a waiting app (``summary.json`` ``queues.<q>.waiting.causes[].cause``), in
    the order of :mod:`fairshare.sim.record.waiting`'s docstring; :data:`CAUSES` words each."""

    MAX_RUNNING_APPS = "max-running-apps"
    USER_MAX_APPS = "user-max-apps"
    MAX_CONTAINER_ALLOCATION = "max-container-allocation"
    MAX_AM_SHARE = "max-am-share"
    MAX_SHARE = "max-share"
    RESERVED_BY_OTHERS = "reserved-by-others"
    ROOM_FREE = "room-free"
    PREEMPTION_OFF = "preemption-off"
    UTILIZATION_GATE = "utilization-gate"
    STARVATION_NOT_CONFIGURED = "starvation-not-configured"
    PREEMPTION_TIMEOUT = "preemption-timeout"
    PREEMPTION_ROUND = "preemption-round"
    STARVATION_UNDER_A_CONTAINER = "starvation-under-a-container"
    NON_PREEMPTABLE_VICTIMS = "non-preemptable-victims"
    VICTIMS_AT_FAIR_SHARE = "victims-at-fair-share"
    NO_NODE_FITS = "no-node-fits"
    AT_FAIR_SHARE = "at-fair-share"


@dataclass(frozen=True, slots=True)
class Cause:
    key: str  # a WaitCause; a newer version's key reads as itself (cause_of)
    words: str  # what held the apps, as a clause after "held by"
    preemption: bool  # would more aggressive preemption have helped?
    advice: str  # what to change; ``{limit}`` stands for the limit's words


CAUSES: tuple[Cause, ...] = (
    Cause(WaitCause.MAX_RUNNING_APPS,
          "the queue's maxRunningApps (apps held not runnable)", False,
          "raise the queue's maxRunningApps ({limit}), or spread the apps over queues: its apps "
          "were held not runnable, and preemption does not change that"),
    Cause(WaitCause.USER_MAX_APPS,
          "a user's maxRunningApps (apps held not runnable)", False,
          "raise the user's maxRunningApps ({limit}): the user's apps were held not runnable, "
          "and preemption does not change that"),
    Cause(WaitCause.MAX_CONTAINER_ALLOCATION,
          "maxContainerAllocation (asks refused)", False,
          "ask for smaller containers or raise the limit ({limit}): YARN refused the asks above "
          "it"),
    Cause(WaitCause.MAX_AM_SHARE,
          "maxAMShare (AMs not started)", False,
          "raise maxAMShare ({limit}): AMs waited for the queue's AM share, not for room"),
    Cause(WaitCause.MAX_SHARE,
          "its max share (maxResources)", False,
          "raise maxResources ({limit}): the queue was at its max share, and preemption never "
          "takes more for a queue than that"),
    Cause(WaitCause.RESERVED_BY_OTHERS,
          "reservations other apps held on nodes with room", False,
          "look at the reserving apps ({limit}): a reserved node serves its reserving app "
          "alone"),
    Cause(WaitCause.ROOM_FREE,
          "the wait for a node heartbeat (a node had room; or the locality "
          "delay)", False,
          "nothing to tune: the wait was {limit}"),
    Cause(WaitCause.PREEMPTION_OFF,
          "preemption being off", True,
          "turn preemption on ({limit}): the queue waited for containers to finish"),
    Cause(WaitCause.UTILIZATION_GATE,
          "the utilization gate being closed", True,
          "lower the utilization threshold ({limit}): starvation is only evaluated above it"),
    Cause(WaitCause.STARVATION_NOT_CONFIGURED,
          "no preemption timeout (starvation not configured)",
          True, "set a fairSharePreemptionTimeout for the queue ({limit}): without a timeout it is "
          "never starved"),
    Cause(WaitCause.PREEMPTION_TIMEOUT,
          "the preemption timeout not yet passed (below its fair share, "
          "not yet starved)", True,
          "shorten the timeout ({limit}), or raise fairSharePreemptionThreshold: more aggressive "
          "preemption is what would have helped here"),
    Cause(WaitCause.PREEMPTION_ROUND,
          "the waits around a preemption round (victims warned, back-off "
          "before the next check)", True,
          "shorten the waits around a round ({limit}): the queue waited between rounds"),
    Cause(WaitCause.STARVATION_UNDER_A_CONTAINER,
          "a starvation smaller than a container (threshold × "
          "fair share less usage)", True,
          "raise the threshold towards 1 ({limit}): the starvation it allowed was less than one "
          "container, so no round could free one"),
    Cause(WaitCause.NON_PREEMPTABLE_VICTIMS,
          "only non-preemptable containers to take "
          "(allowPreemptionFrom false, or AM containers)", False,
          "let the queues holding the cluster be preempted ({limit}): a more aggressive "
          "timeout would not help, there was nothing to take"),
    Cause(WaitCause.VICTIMS_AT_FAIR_SHARE,
          "only containers of apps at or below their fair share to "
          "take", False,
          "give the queue a larger share (weight or minResources; {limit}): the others held "
          "no more than theirs, so preemption could take nothing"),
    Cause(WaitCause.NO_NODE_FITS,
          "containers that fit on no node", False,
          "make the containers smaller or the nodes bigger ({limit})"),
    Cause(WaitCause.AT_FAIR_SHARE,
          "the cluster being full while its apps had their fair share", False,
          "give the queue a larger share (weight or minResources; {limit}) or the cluster more "
          "room: its apps were at or above their fair share, so preemption could not help"),
)
BY_KEY = {c.key: c for c in CAUSES}


def cause_of(key: str) -> Cause:
    """The cause of ``key``; a key from a newer version reads as itself."""
    return BY_KEY.get(key) or Cause(key, key, False, "see {limit}")


def advice(waiting: Waiting, *, at_least: float = 0.2) -> list[tuple[Cause, WaitEntry]]:
    """The causes that held the queue for at least ``at_least`` of its apps' waiting time
    (the largest always), each with its entry: what the advice is made of. More aggressive
    preemption is advised only through a preemption cause."""
    chosen = [c for i, c in enumerate(waiting.causes) if i == 0 or c.share >= at_least]
    return [(cause_of(c.cause), c) for c in chosen]


def advice_text(cause: Cause, entry: WaitEntry) -> str:
    return cause.advice.format(limit=entry.limit or cause.key)


__all__ = ["BY_KEY", "CAUSES", "Cause", "WaitCause", "advice", "advice_text", "cause_of"]

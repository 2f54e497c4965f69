"""Why, in closed sets: every reason and cause an event carries is a member of one
:class:`~enum.StrEnum` here, and :data:`PHRASES` gives each member its words for people (the
terminal, ``fairshare explain``, the report, lint).

A member's value is what ``events.jsonl`` has always written where that text is fixed
(``fulfilled``, ``drained``, ``no-node-fits``). A reason whose text names values (the queue and
its limit, the containers missing) is a :class:`Because`: its kind is a member whose value is
a kebab-case name, its details are the values, and its text — what the event's JSON carries,
the same sentence as before kinds existed — is the kind's :data:`SENTENCES` template filled
in. :func:`parse_reason` turns such a text back into kind and details (``explain`` and the
report read events so); docs/outputs.md ("Reasons") lists every field's members. (§ numbers
cite docs/semantics.md.)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum
from functools import cache
from typing import Any, Generic, Self, TypeVar

K = TypeVar("K", bound=StrEnum)
Detail = str | int


class Completion(StrEnum):
    """``container-completed`` ``status``: why a container ended (YARN's exit statuses)."""

    RELEASED = "released"  # the AM released it, or its task finished
    APP_ENDED = "app-ended"  # the app finished or was killed while it ran
    LOST = "lost"  # its node was removed (ContainerExitStatus.ABORTED / LOST)
    PREEMPTED = "preempted"  # exit status -102, "Container preempted by scheduler"
    ATTEMPT_FAILED = "attempt-failed"  # its AM was lost or preempted, so the attempt ended


class AllocationVia(StrEnum):
    """``container-allocated`` ``via``: which offer placed the container."""

    HEARTBEAT = "heartbeat"  # FairScheduler.attemptScheduling's walk of the queues
    RESERVATION = "reservation"  # the node's reservation fulfilled (§3.3)
    EARMARK = "earmark"  # space freed by preemption for this app (§3.2)


class UnreserveReason(StrEnum):
    """``container-unreserved`` ``reason``."""

    FULFILLED = "fulfilled"
    NO_OUTSTANDING_ASK = "no outstanding ask"
    NO_LONGER_VALID = "no longer valid"  # FSAppAttempt.reservationExceedsThreshold & co.
    ATTEMPT_ENDED = "application attempt ended"
    NODE_REMOVED = "node removed"


class AttemptRestart(StrEnum):
    """``app-attempt-restarted`` ``reason``: how the AM container went."""

    AM_PREEMPTED = "AM container preempted"
    AM_RELEASED = "AM container released"
    AM_LOST = "AM container lost with its node"


class Decommissioned(StrEnum):
    """``node-decommissioned`` ``reason``."""

    DRAINED = "drained"
    TIMEOUT = "timeout"


class StarvationKind(StrEnum):
    """``starvation`` ``kind`` and ``preemption-warned`` ``starvation-kind`` (§4.2, §4.3)."""

    FAIR_SHARE = "fair-share"
    MIN_SHARE = "min-share"
    BOTH = "fair-share+min-share"
    NONE = "none"  # not starved (never in an event: only starved apps are reported)


class BlockedCause(StrEnum):
    """``no-preemption`` ``blocked`` keys (fairshare.core.preemption.blocked), in the order
    the rules are relaxed, then the containers that needed no victim."""

    NO_NODE_FITS = "no-node-fits"
    NON_PREEMPTABLE_QUEUE = "non-preemptable-queue"
    AM_PREEMPTION_OFF = "am-preemption-off"
    ALREADY_CHOSEN = "already-chosen"
    VICTIMS_AT_FAIR_SHARE = "victims-at-fair-share"
    ROOM_FREE_ALREADY = "room-free-already"


class NoPreemptionReason(StrEnum):
    """``no-preemption`` ``reason``."""

    NO_STARVATION_LEFT = "no starvation left to preempt for"
    UNDER_A_CONTAINER = "starvation is smaller than any of the app's container requests"
    NO_NODE = "no-node-for-containers"


class NotRunnable(StrEnum):
    """``app-not-runnable`` ``reason``: the limit of ``canAppBeRunnable`` that holds it."""

    USER_MAX_APPS = "user-max-apps"
    MAX_RUNNING_APPS = "max-running-apps"


class RequestRefusal(StrEnum):
    """``requests-rejected`` ``reason``: why an allocate call failed whole (§3.10)."""

    ZERO_MAX_SHARE = "zero-max-share"
    ABOVE_MAXIMUM_ALLOCATION = "above-maximum-allocation"


class Rejection(StrEnum):
    """``app-rejected`` ``reason``."""

    BY_PLACEMENT_RULES = "application rejected by placement rules"
    ILLEGAL_QUEUE_NAME = "illegal-queue-name"  # the specified rule (§1.5.2)
    NO_GROUPS = "no-groups"  # the primaryGroup rule
    PLACEMENT_FAILED = "placement-failed"  # another rule's PlacementError, its message
    INVALID_QUEUE_NAME = "invalid-queue-name"
    NOT_A_LEAF = "not-a-leaf"
    CANNOT_CREATE = "cannot-create"
    AM_ABOVE_ZERO_MAX_SHARE = "am-above-zero-max-share"
    ACL_DENIED = "acl-denied"
    REJECTED = "rejected"  # no detail given


class MoveRefusal(StrEnum):
    """``move-rejected`` ``reason`` (``FairScheduler.moveApplication``, §3.9)."""

    APP_NOT_FOUND = "app-not-found"
    TARGET_NOT_A_LEAF = "target-not-a-leaf"
    MAX_RUNNING_APPS = "max-running-apps"
    MAX_RESOURCES = "max-resources"
    NOT_RUNNABLE_THERE = "not-runnable-there"


REASON_KINDS: tuple[type[StrEnum], ...] = (
    Completion, AllocationVia, UnreserveReason, AttemptRestart, Decommissioned, StarvationKind,
    BlockedCause, NoPreemptionReason, NotRunnable, RequestRefusal, Rejection, MoveRefusal)

# The texts of the kinds with values in them: the sentences events.jsonl has always carried
# (YARN's own messages where it has one). A kind without a template is its value. (By kind,
# then member: members of two kinds may share a value, and a StrEnum member is equal to it.)
SENTENCES: Mapping[type[StrEnum], Mapping[Any, str]] = {
    NoPreemptionReason: {
        NoPreemptionReason.NO_NODE: "{missing} of {wanted} containers found no node where "
                                    "preempting could make room ({listed})",
    },
    NotRunnable: {
        NotRunnable.USER_MAX_APPS: "user {user} already has {limit} running app(s) (userMaxApps)",
        NotRunnable.MAX_RUNNING_APPS: "queue {queue} already has {limit} running app(s) "
                                      "(maxRunningApps)",
    },
    RequestRefusal: {
        RequestRefusal.ZERO_MAX_SHARE: "queue {queue} has a maximum of 0 {resource}, asked for "
                                       "{asked}",
        RequestRefusal.ABOVE_MAXIMUM_ALLOCATION: "{resource} {asked} is above the maximum "
                                                 "allocation, {most}: YARN refuses the allocate "
                                                 "call (InvalidResourceRequestException)",
    },
    Rejection: {
        Rejection.ILLEGAL_QUEUE_NAME: "Application submitted by user {user} with illegal queue "
                                      "name '{queue}'.",
        Rejection.NO_GROUPS: "No groups returned for user {user}",
        Rejection.PLACEMENT_FAILED: "{message}",
        Rejection.INVALID_QUEUE_NAME: "{queue}: invalid queue name",
        Rejection.NOT_A_LEAF: "{queue} is not a leaf queue",
        Rejection.CANNOT_CREATE: "{queue} is not a leaf queue: {prefix} cannot be created: "
                                 "{problem}",
        Rejection.AM_ABOVE_ZERO_MAX_SHARE: "queue {queue} has a maximum of 0 {resource}, asked "
                                           "for {asked}; the AM asks for it",
        Rejection.ACL_DENIED: "user {user} may not submit applications to queue {queue}",
    },
    MoveRefusal: {
        MoveRefusal.APP_NOT_FOUND: "App to be moved {app} not found.",
        MoveRefusal.TARGET_NOT_A_LEAF: "target queue {queue} not found or is not a leaf queue",
        MoveRefusal.MAX_RUNNING_APPS: "moving {app} to {target} would violate maxRunningApps on "
                                      "{queue}",
        MoveRefusal.MAX_RESOURCES: "moving {app} to {target} would violate maxResources on "
                                   "{queue}",
        MoveRefusal.NOT_RUNNABLE_THERE: "Should have already verified that app {app} would be "
                                        "runnable in new queue ({why})",
    },
}
_WHOLE = frozenset({"missing", "wanted", "limit", "asked", "most"})  # details read as int

# Each member's words for people: a clause that fits "held by …", "because …" or a list.
PHRASES: Mapping[type[StrEnum], Mapping[Any, str]] = {
    Completion: {
        Completion.RELEASED: "released by its AM (or its task finished)",
        Completion.APP_ENDED: "ended with its app",
        Completion.LOST: "lost with its node",
        Completion.PREEMPTED: "preempted",
        Completion.ATTEMPT_FAILED: "ended with its failed attempt",
    },
    AllocationVia: {
        AllocationVia.HEARTBEAT: "on a node heartbeat",
        AllocationVia.RESERVATION: "on its reservation",
        AllocationVia.EARMARK: "on space freed by preemption",
    },
    UnreserveReason: {
        UnreserveReason.FULFILLED: "the reserved container was placed",
        UnreserveReason.NO_OUTSTANDING_ASK: "the app no longer asked for it",
        UnreserveReason.NO_LONGER_VALID: "the reservation was no longer valid",
        UnreserveReason.ATTEMPT_ENDED: "the app's attempt ended",
        UnreserveReason.NODE_REMOVED: "the node was removed",
    },
    AttemptRestart: {
        AttemptRestart.AM_PREEMPTED: "its AM container was preempted",
        AttemptRestart.AM_RELEASED: "its AM container was released",
        AttemptRestart.AM_LOST: "its AM container was lost with its node",
    },
    Decommissioned: {
        Decommissioned.DRAINED: "drained",
        Decommissioned.TIMEOUT: "its decommission timeout passed",
    },
    StarvationKind: {
        StarvationKind.FAIR_SHARE: "starved for its fair share",
        StarvationKind.MIN_SHARE: "starved for its min share",
        StarvationKind.BOTH: "starved for its fair share and its min share",
        StarvationKind.NONE: "not starved",
    },
    BlockedCause: {
        BlockedCause.NO_NODE_FITS: "fit on no node even if everything there were freed",
        BlockedCause.NON_PREEMPTABLE_QUEUE: "blocked by containers of non-preemptable queues",
        BlockedCause.AM_PREEMPTION_OFF: "could only be made room for by AM containers (AM "
                                        "preemption off)",
        BlockedCause.ALREADY_CHOSEN: "blocked by containers already chosen for other apps",
        BlockedCause.VICTIMS_AT_FAIR_SHARE: "blocked because what was left to take belonged to "
                                            "apps at or below their fair share (its own "
                                            "included)",
        BlockedCause.ROOM_FREE_ALREADY: "needed no victim (the node had room)",
    },
    NoPreemptionReason: {
        NoPreemptionReason.NO_STARVATION_LEFT: "no starvation was left to preempt for",
        NoPreemptionReason.UNDER_A_CONTAINER: "its starvation was smaller than any container it "
                                              "asked for",
        NoPreemptionReason.NO_NODE: "some containers found no node where preempting could make "
                                    "room",
    },
    NotRunnable: {
        NotRunnable.USER_MAX_APPS: "its user's maxRunningApps (userMaxApps)",
        NotRunnable.MAX_RUNNING_APPS: "the maxRunningApps of its queue or an ancestor",
    },
    RequestRefusal: {
        RequestRefusal.ZERO_MAX_SHARE: "a resource its queue has a max share of 0 of",
        RequestRefusal.ABOVE_MAXIMUM_ALLOCATION: "a container above the maximum allocation",
    },
    Rejection: {
        Rejection.BY_PLACEMENT_RULES: "no placement rule placed it",
        Rejection.ILLEGAL_QUEUE_NAME: "an illegal queue name",
        Rejection.NO_GROUPS: "its user has no groups (primaryGroup rule)",
        Rejection.PLACEMENT_FAILED: "a placement rule failed",
        Rejection.INVALID_QUEUE_NAME: "an invalid queue name",
        Rejection.NOT_A_LEAF: "its queue is not a leaf queue",
        Rejection.CANNOT_CREATE: "its queue could not be created",
        Rejection.AM_ABOVE_ZERO_MAX_SHARE: "its AM asks for a resource its queue has a max share "
                                           "of 0 of",
        Rejection.ACL_DENIED: "its user may not submit to the queue (ACL)",
        Rejection.REJECTED: "rejected",
    },
    MoveRefusal: {
        MoveRefusal.APP_NOT_FOUND: "the app was not running",
        MoveRefusal.TARGET_NOT_A_LEAF: "the target is not a leaf queue",
        MoveRefusal.MAX_RUNNING_APPS: "a maxRunningApps on the target side",
        MoveRefusal.MAX_RESOURCES: "a maxResources on the target side",
        MoveRefusal.NOT_RUNNABLE_THERE: "it would not be runnable in the target queue",
    },
}


def phrase(member: StrEnum) -> str:
    """The member's words for people."""
    return PHRASES[type(member)][member]


def sentence(member: StrEnum) -> str | None:
    """The template of the member's text, or None when its text is its value."""
    table = SENTENCES.get(type(member))
    return None if table is None else table.get(member)


class Because(str, Generic[K]):
    """A reason of ``kind`` with its ``details``; as text (it *is* a ``str``), the sentence
    the event's JSON carries: :data:`SENTENCES` filled in, or the kind's value."""

    kind: K
    details: Mapping[str, Detail]

    def __new__(cls, kind: K, **details: Detail) -> Self:
        template = sentence(kind)
        self = super().__new__(cls, str(kind) if template is None else template.format(**details))
        self.kind, self.details = kind, details
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (self.kind, dict(self.details)))

    def __repr__(self) -> str:
        return f"Because({self.kind!r}, {str(self)!r})"


def _rebuild(kind: K, details: dict[str, Detail]) -> Because[K]:
    return Because(kind, **details)


def parse_reason(kind: type[K], text: str) -> Because[K]:
    """The :class:`Because` of ``kind`` whose text is ``text`` (``events.jsonl`` read back);
    ValueError when no member of ``kind`` writes it."""
    for member, pattern in _patterns(kind):
        found = pattern.fullmatch(text)
        if found is not None:
            details = {k: int(v) if k in _WHOLE and v.isdigit() else v
                       for k, v in found.groupdict().items()}
            return Because(member, **details)
    raise ValueError(f"{text!r} is not a {kind.__name__} this version writes")


def parse_member(kind: type[K], value: str) -> K:
    """``kind(value)``, with an error that names the kind; ValueError when it is none."""
    try:
        return kind(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a {kind.__name__} "
                         f"({', '.join(m.value for m in kind)})") from None


@cache
def _patterns(kind: type[StrEnum]) -> tuple[tuple[Any, re.Pattern[str]], ...]:
    """Per member, the regular expression of its text; fixed texts first, a template that is
    a bare placeholder (a message passed on) last, as it matches anything."""
    found = []
    for member in kind:
        template = sentence(member)
        if template is None:
            found.append((0, member, re.compile(re.escape(member.value))))
            continue
        parts = re.split(r"\{(\w+)\}", template)
        regex = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)"
                        for i, p in enumerate(parts))
        found.append((2 if template.startswith("{") and template.endswith("}") else 1, member,
                      re.compile(regex, re.DOTALL)))
    return tuple((member, pattern) for _, member, pattern in
                 sorted(found, key=lambda item: item[0]))


__all__ = [
    "PHRASES",
    "REASON_KINDS",
    "SENTENCES",
    "AllocationVia",
    "AttemptRestart",
    "Because",
    "BlockedCause",
    "Completion",
    "Decommissioned",
    "MoveRefusal",
    "NoPreemptionReason",
    "NotRunnable",
    "Rejection",
    "RequestRefusal",
    "StarvationKind",
    "UnreserveReason",
    "parse_member",
    "parse_reason",
    "phrase",
    "sentence",
]

"""What the engine reports: one frozen dataclass per kind of event, each with its cause.

Every event carries ``seq`` (its position in the stream), ``time`` (scheduler clock, ms) and
``cause`` (the ``seq`` of the event that led to it, if any). Numbers are kept as
:class:`Resource` vectors; :mod:`fairshare.core.model.event_records` turns an event into the
JSON-ready record of ``events.jsonl`` and reads such records back.

Enough is recorded to answer "why was my container preempted?" (``preemption-warned`` names the
victim, the beneficiary, the starvation that caused it and the victim app's usage against its
fair share at that moment) and "why is my app starved?" (``starvation`` gives kind, amount and
since when) from the stream alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import ClassVar

from fairshare.core.model.reasons import (
    AllocationVia,
    AttemptRestart,
    Because,
    BlockedCause,
    Decommissioned,
    MoveRefusal,
    NoPreemptionReason,
    NotRunnable,
    Rejection,
    RequestRefusal,
    StarvationKind,
    UnreserveReason,
)
from fairshare.core.model.reasons import (
    Completion as Completion,  # named here too: ContainerCompleted's status
)
from fairshare.resources.vector import Resource


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    type: ClassVar[str] = "event"
    # record keys added after outputs were first written: a record may lack them
    added: ClassVar[frozenset[str]] = frozenset()
    seq: int
    time: int
    cause: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeAdded(Event):
    type: ClassVar[str] = "node-added"
    node: str
    rack: str
    capacity: Resource


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeRemoved(Event):
    type: ClassVar[str] = "node-removed"
    node: str
    lost_containers: int


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeResized(Event):
    type: ClassVar[str] = "node-resized"
    node: str
    capacity: Resource


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeDecommissioning(Event):
    """Graceful decommission began (``rmadmin -refreshNodes -g``): nothing new is placed on
    the node; it leaves once drained or at ``deadline`` (None: no timeout)."""

    type: ClassVar[str] = "node-decommissioning"
    node: str
    deadline: int | None
    running_containers: int


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeDecommissioned(Event):
    """A decommissioning node leaves: ``drained`` (no container, no app that ran there still
    running) or ``timeout`` (its containers are then lost); a ``node-removed`` follows."""

    type: ClassVar[str] = "node-decommissioned"
    node: str
    reason: Decommissioned


@dataclass(frozen=True, slots=True, kw_only=True)
class AppSubmitted(Event):
    type: ClassVar[str] = "app-submitted"
    app: str
    queue: str
    user: str
    requested_queue: str
    placed_by: str  # which placement rule chose the queue
    am: Resource | None  # None: unmanaged AM


@dataclass(frozen=True, slots=True, kw_only=True)
class AppRejected(Event):
    type: ClassVar[str] = "app-rejected"
    app: str
    user: str
    requested_queue: str
    reason: Because[Rejection]


@dataclass(frozen=True, slots=True, kw_only=True)
class AppRunnable(Event):
    type: ClassVar[str] = "app-runnable"
    app: str
    queue: str
    promoted: bool  # made runnable later, when another app left (docs/semantics.md §3.9)


@dataclass(frozen=True, slots=True, kw_only=True)
class AppNotRunnable(Event):
    type: ClassVar[str] = "app-not-runnable"
    app: str
    queue: str
    reason: Because[NotRunnable]  # which limit holds it back: user or queue maxRunningApps


@dataclass(frozen=True, slots=True, kw_only=True)
class ContainersRequested(Event):
    type: ClassVar[str] = "containers-requested"
    app: str
    priority: int
    locality: str
    count: int
    resource: Resource  # after normalisation (§1.1)
    asked: Resource  # as the request said


@dataclass(frozen=True, slots=True, kw_only=True)
class RequestsRejected(Event):
    """An allocate call refused whole (§3.10); none of its requests were recorded."""

    type: ClassVar[str] = "requests-rejected"
    app: str
    queue: str
    reason: Because[RequestRefusal]


@dataclass(frozen=True, slots=True, kw_only=True)
class ContainerAllocated(Event):
    type: ClassVar[str] = "container-allocated"
    app: str
    queue: str
    container: str
    node: str
    resource: Resource
    am: bool
    locality: str  # node-local | rack-local | off-switch
    via: AllocationVia  # heartbeat, reservation (§3.3) or earmark (§3.2, freed by preemption)


@dataclass(frozen=True, slots=True, kw_only=True)
class ContainerReserved(Event):
    type: ClassVar[str] = "container-reserved"
    app: str
    queue: str
    node: str
    resource: Resource
    priority: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ContainerUnreserved(Event):
    type: ClassVar[str] = "container-unreserved"
    app: str
    node: str
    resource: Resource
    reason: UnreserveReason


@dataclass(frozen=True, slots=True, kw_only=True)
class ContainerRecovered(Event):
    """A running container taken over on node registration after an RM restart (YARN's
    work-preserving recovery, ``AbstractYarnScheduler.recoverContainersOnNode``): not scheduled,
    just accounted for where it runs."""

    type: ClassVar[str] = "container-recovered"
    app: str
    queue: str
    container: str
    node: str
    resource: Resource
    am: bool  # the attempt's master container (RMAppAttemptImpl's AM container)
    priority: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ContainerCompleted(Event):
    type: ClassVar[str] = "container-completed"
    app: str
    queue: str
    container: str
    node: str
    resource: Resource
    am: bool
    status: Completion


@dataclass(frozen=True, slots=True, kw_only=True)
class StarvationGate(Event):
    """The utilization gate of §4.1 opened or closed (reported on change only)."""

    type: ClassVar[str] = "starvation-gate"
    open: bool
    utilization: float
    threshold: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Starvation(Event):
    """An app entered the starved-apps queue (§4.3, §4.4)."""

    type: ClassVar[str] = "starvation"
    app: str
    queue: str
    kind: StarvationKind  # fair-share, min-share or fair-share+min-share
    amount: Resource  # fairshare + minshare starvation: what preemption will try to free
    fairshare_starvation: Resource
    minshare_starvation: Resource
    since_ms: int  # fair-share: last time at threshold × fair share; min-share: at min share
    usage: Resource
    fair_share: Resource  # the app's instantaneous fair share
    demand: Resource


@dataclass(frozen=True, slots=True, kw_only=True)
class PreemptionWarned(Event):
    """A container was chosen as a victim; it is killed at ``kill_at_ms`` (§5.6)."""

    type: ClassVar[str] = "preemption-warned"
    added: ClassVar[frozenset[str]] = frozenset(
        {"request-resource-name", "node-victims", "node-am-victims", "node-free"})
    container: str
    app: str  # the victim app
    queue: str
    node: str
    resource: Resource
    am: bool
    beneficiary_app: str
    beneficiary_queue: str
    starvation_kind: StarvationKind
    fairshare_starvation: Resource
    minshare_starvation: Resource
    request: Resource  # the starved container request these victims make room for
    # why this node (FSPreemptionThread.identifyContainersToPreemptForOneContainer): the
    # request's resource name (ANY "*", a rack or a host) limits the nodes searched; the first
    # node whose victims hold the fewest AM containers wins
    request_resource_name: str
    node_victims: int  # victims chosen on this node for this container
    node_am_victims: int  # ... of which AM containers
    node_free: Resource  # the node's room before them: unallocated − (reserved + earmarked)
    victim_usage: Resource  # the victim app's usage at selection time
    victim_fair_share: Resource  # ... and its instantaneous app fair share
    victim_usage_after: Resource  # usage minus everything announced for preemption so far
    kill_at_ms: int


@dataclass(frozen=True, slots=True, kw_only=True)
class NoPreemption(Event):
    """A starved app was processed but nothing could be preempted for (part of) it."""

    type: ClassVar[str] = "no-preemption"
    added: ClassVar[frozenset[str]] = frozenset({"blocked"})
    app: str
    queue: str
    reason: Because[NoPreemptionReason]
    starvation: Resource
    containers_wanted: int
    containers_found: int
    # the containers not found, by cause (fairshare.core.preemption.blocked): wanted = found +
    # the sum; causes with no container left out
    blocked: Mapping[BlockedCause, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class ContainerPreempted(Event):
    type: ClassVar[str] = "container-preempted"
    container: str
    app: str
    queue: str
    node: str
    resource: Resource
    am: bool
    beneficiary_app: str
    beneficiary_queue: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AppAttemptRestarted(Event):
    type: ClassVar[str] = "app-attempt-restarted"
    app: str
    queue: str
    reason: AttemptRestart


@dataclass(frozen=True, slots=True, kw_only=True)
class AppFinished(Event):
    type: ClassVar[str] = "app-finished"
    app: str
    queue: str
    state: str  # finished | killed


@dataclass(frozen=True, slots=True, kw_only=True)
class AppMoved(Event):
    type: ClassVar[str] = "app-moved"
    app: str
    from_queue: str
    to_queue: str


@dataclass(frozen=True, slots=True, kw_only=True)
class MoveRejected(Event):
    type: ClassVar[str] = "move-rejected"
    app: str
    queue: str
    reason: Because[MoveRefusal]


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigReloaded(Event):
    type: ClassVar[str] = "config-reloaded"
    source: str
    queues: int
    problems: tuple[str, ...] = ()  # e.g. a policy change refused (§1.2 step 2)


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfigErrorEvent(Event):
    type: ClassVar[str] = "config-error"
    source: str
    message: str  # the previous configuration stays in force (§1.2)


EventSink = Callable[[Event], None]

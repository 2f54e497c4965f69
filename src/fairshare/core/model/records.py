"""The engine's mutable state: nodes, applications, containers and per-queue runtime numbers.

These are the objects of docs/semantics.md §0.3, plain records. Only
:mod:`fairshare.core.hub.state` assigns their fields (``tests/test_state_writes.py`` checks
it); everything else reads them. Nothing here does I/O or reads a clock.

Dicts are only iterated where their insertion order is the documented order (nodes in
registration order, containers in allocation order, asks per scheduler key in request order).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import TypeVar

from fairshare.core.rules.locality import Locality, LocalityState
from fairshare.resources.vector import Resource

ANY = "*"  # ResourceRequest.ANY

# The default of the vectors a record fills in from its own zero vector in __post_init__ (their
# number of types is only known then); an empty vector, never used as a value.
_UNSET = Resource(())

# A scheduler key (§3.6.2): (priority, allocationRequestId); lower sorts first.
SchedulerKey = tuple[int, int]

# An app attempt: (app id, attempt number).
AttemptKey = tuple[str, int]


class AppState(StrEnum):
    ACCEPTED = "accepted"  # submitted, no container yet
    RUNNING = "running"  # has had a container
    FINISHED = "finished"
    KILLED = "killed"
    REJECTED = "rejected"


LOCALITY_NAMES = {
    Locality.NODE_LOCAL: "node-local",
    Locality.RACK_LOCAL: "rack-local",
    Locality.OFF_SWITCH: "off-switch",
}


@dataclass(slots=True, eq=False)
class Container:
    id: str
    app_id: str
    node: str
    resource: Resource
    is_am: bool
    key: SchedulerKey
    locality: Locality
    allocated_at: int
    # ContainerId.hashCode of the container's YARN id: where YARN's HashMaps of containers put
    # it (yarn_order.container_hash), computed once, when the container is made
    yarn_hash: int = 0


@dataclass(slots=True)
class Ask:
    """One resource request of a scheduler key at one place (a host, a rack or ANY)."""

    capability: Resource
    count: int
    relax_locality: bool = True


@dataclass(slots=True, eq=False)
class Reservation:
    app_id: str
    node: str
    key: SchedulerKey
    resource: Resource
    container_id: str


@dataclass(slots=True, eq=False)
class App:
    """An application attempt (``FSAppAttempt``) and what the scheduler knows of it."""

    id: str
    queue: str  # full name of its leaf queue
    user: str
    start_time: int  # scheduler clock when the attempt was created
    am_request: Resource | None  # None: unmanaged AM (no AM container)
    am_preemption: bool  # am.preemption(.<queue>) looked up when the attempt was created
    none: Resource  # a zero vector of the cluster's types
    seq: int = 0  # submission order, from 0: YARN numbers apps seq + 1 (Scheduler.app_number)
    state: AppState = AppState.ACCEPTED
    runnable: bool = False
    asks: dict[SchedulerKey, dict[str, Ask]] = field(default_factory=dict)
    # host and rack asks left when a key's ANY ask ran out: no longer a scheduler key, but
    # back in force when the key is asked for again (docs/semantics.md §3.6.6)
    inactive_asks: dict[SchedulerKey, dict[str, Ask]] = field(default_factory=dict)
    containers: dict[str, Container] = field(default_factory=dict)  # live, allocation order
    reservations: dict[str, Reservation] = field(default_factory=dict)  # node → reservation
    locality: dict[SchedulerKey, LocalityState] = field(default_factory=dict)
    am_running: bool = False
    am_resource: Resource | None = None
    # the attempt's AM container and its node, kept after it ended (RMAppAttempt
    # .getMasterContainer: /apps shows its logs link and node for a finished app too)
    master: tuple[str, str] | None = None
    next_container: int = 1
    attempt: int = 1
    # scheduler numbers, refreshed by the update pass (§2.2, §2.7)
    demand: Resource = _UNSET
    usage: Resource = _UNSET
    fair_share: Resource = _UNSET
    # starvation (§4)
    last_time_at_fair_share: int = 0
    fairshare_starvation: Resource = _UNSET
    minshare_starvation: Resource = _UNSET
    next_starvation_check: int = 0
    # preemption (§5.6, §5.10)
    to_be_preempted: dict[str, Container] = field(default_factory=dict)
    resources_to_be_preempted: Resource = _UNSET
    preempted_containers: int = 0
    preempted_am_containers: int = 0
    preempted_resource: Resource = _UNSET
    rejection_reason: str | None = None
    finish_time: int | None = None
    # its submission made its leaf: the RM then validated its AM request before the queue
    # existed, so the request has no node label (the RM's REST API leaves it out)
    created_queue: bool = False

    def __post_init__(self) -> None:
        for name in ("demand", "usage", "fair_share", "fairshare_starvation",
                     "minshare_starvation", "resources_to_be_preempted", "preempted_resource"):
            if getattr(self, name) is _UNSET:
                setattr(self, name, self.none)
        self.last_time_at_fair_share = self.start_time

    @property
    def unmanaged(self) -> bool:
        return self.am_request is None

    @property
    def attempt_key(self) -> AttemptKey:
        """The attempt, as ``FSSchedulerNode`` keys earmarks (by ``FSAppAttempt``)."""
        return self.id, self.attempt

    @property
    def stopped(self) -> bool:
        return self.state in (AppState.FINISHED, AppState.KILLED, AppState.REJECTED)

    @property
    def starvation(self) -> Resource:
        return self.fairshare_starvation + self.minshare_starvation

    def sorted_keys(self) -> list[SchedulerKey]:
        return sorted(self.asks)


@dataclass(slots=True, eq=False)
class Node:
    """``FSSchedulerNode``: capacity, allocations, one reservation, preemption earmarks."""

    name: str
    rack: str
    capacity: Resource
    allocated: Resource
    containers: dict[str, Container] = field(default_factory=dict)  # allocation order
    # the most containers the node ever held: the size of YARN's launchedContainers HashMap
    # table, which decides its iteration order (yarn_order.containers_for_victim_search)
    peak_containers: int = 0
    reservation: Reservation | None = None
    marked_for_preemption: dict[str, Container] = field(default_factory=dict)
    # starved attempt → amount (§5.6), in insertion order (resourcesPreemptedForApp is a
    # LinkedHashMap keyed by FSAppAttempt: an ended attempt's entry stays until the node's next
    # heartbeat drops it, and its successor neither uses nor consumes it)
    earmarks: dict[AttemptKey, Resource] = field(default_factory=dict)
    earmarked_total: Resource = _UNSET
    _free: tuple[Resource, Resource, Resource] | None = field(default=None, repr=False)
    # graceful decommission (RMNodeImpl's DECOMMISSIONING state): when it must leave (None:
    # no timeout), and the apps that ran a container here (RMNodeImpl.runningApplications;
    # apps that ended are dropped now and then)
    decommissioning: bool = False
    decommission_deadline: int | None = None
    apps_ran: dict[str, None] = field(default_factory=dict, repr=False)
    apps_ran_limit: int = field(default=16, repr=False)

    def __post_init__(self) -> None:
        if self.earmarked_total is _UNSET:
            self.earmarked_total = self.capacity - self.capacity  # none, in the node's types

    @property
    def unallocated(self) -> Resource:
        # cached on the identity of the two immutable vectors it is computed from: every
        # heartbeat reads it, few change it
        capacity, allocated, cached = self.capacity, self.allocated, self._free
        if cached is None or cached[0] is not capacity or cached[1] is not allocated:
            cached = self._free = (capacity, allocated, capacity - allocated)
        return cached[2]


@dataclass(slots=True, eq=False)
class QueueRuntime:
    """The live numbers of one queue (the settings live in the immutable queue tree)."""

    name: str
    none: Resource
    usage: Resource = _UNSET
    demand: Resource = _UNSET
    fair_share: Resource = _UNSET
    steady_fair_share: Resource = _UNSET
    reserved: Resource = _UNSET
    reserved_containers: int = 0
    am_resource_usage: Resource = _UNSET
    max_am_share_metric: Resource = _UNSET
    runnable_apps: list[App] = field(default_factory=list)  # leaves: arrival order
    non_runnable_apps: list[App] = field(default_factory=list)
    num_runnable: int = 0  # runnable apps in the whole subtree (§3.9)
    last_time_at_min_share: int = 0
    min_share_starved_since: int | None = None
    # QueueMetrics counters (§6.1), leaves and parents alike
    apps_submitted: int = 0
    apps_completed: int = 0
    apps_killed: int = 0
    containers_allocated: int = 0
    containers_released: int = 0
    containers_preempted: int = 0
    node_local: int = 0
    rack_local: int = 0
    off_switch: int = 0

    def __post_init__(self) -> None:
        for name in ("usage", "demand", "fair_share", "steady_fair_share", "reserved",
                     "am_resource_usage", "max_am_share_metric"):
            if getattr(self, name) is _UNSET:
                setattr(self, name, self.none)


@dataclass(frozen=True, slots=True)
class KillTimer:
    """One batch of victims to kill when the clock reaches the due time (§5.7)."""

    victims: tuple[tuple[str, str], ...]  # (app id, container id)
    beneficiary: str
    warned: tuple[int, ...]  # seq of each preemption-warned event, the kill's cause


@dataclass(frozen=True, slots=True)
class StarvedApps:
    """``FSStarvedApps``: a ``PriorityBlockingQueue`` of app ids plus the app being processed.

    ``heap`` is the queue's backing array. Because
    :func:`~fairshare.core.starvation.rules.compare_starvation` is not a total order, the head
    depends on insertion history; this emulation replays Java's binary heap exactly
    (``siftUpUsingComparator`` on offer, ``siftDownUsingComparator`` on take), reading each
    app's *current* starvation at comparison time, as Java does.
    """

    heap: tuple[str, ...] = ()
    being_processed: str | None = None


@dataclass(slots=True, eq=False)
class StarvationWrites:
    """What one update pass's starvation step decided to write (§4.3), applied at its end by
    :meth:`~fairshare.core.hub.state.StateWriter.apply_starvation`; the step reads its own
    decisions through these first (the starved-apps heap compares starvations the pass wrote
    earlier)."""

    fairshare: dict[App, tuple[Resource, int]] = field(default_factory=dict)  # + lastTime…
    minshare: dict[App, Resource] = field(default_factory=dict)
    last_time_at_min_share: dict[QueueRuntime, int] = field(default_factory=dict)
    # the leaf's min-share-starved-since for snapshots: set when its min-share starvation
    # begins (to its last time at min share), cleared when it ends: (starved, since)
    min_share_starved: dict[QueueRuntime, tuple[bool, int]] = field(default_factory=dict)
    starved: StarvedApps | None = None  # the starved-apps queue after the pass, if changed
    # what every steady leaf's pass writes: the clock, into the lastTimeAtMinShare of these
    # leaves and the lastTimeAtFairShare of these apps (nothing in the pass reads them)
    clock: int = 0
    stamp_min_share: list[QueueRuntime] = field(default_factory=list)
    stamp_fair_share: list[App] = field(default_factory=list)

    def fairshare_starvation(self, app: App) -> Resource:
        written = self.fairshare.get(app)
        return app.fairshare_starvation if written is None else written[0]

    def last_time_at_fair_share(self, app: App) -> int:
        written = self.fairshare.get(app)
        return app.last_time_at_fair_share if written is None else written[1]

    def minshare_starvation(self, app: App) -> Resource:
        return self.minshare.get(app, app.minshare_starvation)

    def starvation(self, app: App) -> Resource:
        return self.fairshare_starvation(app) + self.minshare_starvation(app)


V = TypeVar("V")


@dataclass(slots=True, eq=False)
class ClusterState:
    """Everything that changes while the scheduler runs."""

    none: Resource
    nodes: dict[str, Node] = field(default_factory=dict)  # registration order
    apps: dict[str, App] = field(default_factory=dict)  # submission order (rejected ones too)
    # apps ever submitted: the next one's seq (an ended app may be forgotten, Engine.forget)
    apps_added: int = 0
    queues: dict[str, QueueRuntime] = field(default_factory=dict)
    capacity: Resource = _UNSET
    allocated: Resource = _UNSET
    reserved: Resource = _UNSET
    starved: StarvedApps = field(default_factory=StarvedApps)
    user_runnable: dict[str, int] = field(default_factory=dict)
    user_waiting: dict[str, list[App]] = field(default_factory=dict)  # §3.9, start-time order
    containers_allocated: int = 0
    starvation_gate_open: bool | None = None
    # root's AvailableMB/VCores gauge: refreshed where FairScheduler calls
    # updateRootQueueMetrics, so stale within a heartbeat (Scheduler.root_available)
    root_available: Resource = _UNSET
    # (due, seq of the first warning, timer): a heap of the preemption kills to come (§5.7)
    kill_timers: list[tuple[int, int, KillTimer]] = field(default_factory=list)
    # the ResourceManager's epoch: how many times it restarted on its state store; the
    # containers of attempts made since are numbered from epoch << 40 (AppSchedulingInfo)
    rm_epoch: int = 0
    # after a restart with apps to recover: no container is allocated on a heartbeat until
    # this time has passed (RMActiveServiceContext.isSchedulerReadyForAllocatingContainers)
    scheduling_wait_until: int | None = None

    def __post_init__(self) -> None:
        for name in ("capacity", "allocated", "reserved", "root_available"):
            if getattr(self, name) is _UNSET:
                setattr(self, name, self.none)

    def live_apps(self) -> list[App]:
        return [a for a in self.apps.values() if not a.stopped]

    def pruned(self, kept: dict[str, V]) -> dict[str, V]:
        """``kept``, a cache by app id, as it is; or, once it holds more than twice the apps
        held and 64, only its entries of apps held. A cache of an engine whose caller forgets
        ended apps (Engine.forget) stays in proportion to the apps held, at an amortised
        constant cost."""
        apps = self.apps
        if len(kept) > 2 * len(apps) + 64:
            return {k: v for k, v in kept.items() if k in apps}
        return kept

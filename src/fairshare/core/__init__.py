"""The scheduling engine: YARN's Fair Scheduler and its preemption, on an external clock.

This is the layer's public API: ``sim/``, ``cli/``, the reports, the workbench and the
benchmarks import from ``fairshare.core`` only (``tests/test_layers.py`` checks), and ``__all__``
is pinned by ``tests/core/test_public_api.py``. Everything else under ``fairshare.core`` is the
engine's own and may change.

* :class:`Engine` — the scheduler: nodes, apps, heartbeats, the update pass, preemption, the
  clock, reloads; its read side (:class:`EngineQueries`) answers what a caller may ask.
* The events it reports (one class per kind, :func:`event_record` for their JSON form).
* The records it keeps (:class:`App`, :class:`Node`, …), to read, never to write.
* The queue tree and the fair-share computations that need no engine (``fairshare shares``,
  ``fairshare lint``).
* A preemption round's planner (:class:`SearchPlanner`, which an engine's ``round_planner``
  makes), its plans and what-if requests.
"""

from fairshare.core.engine import MAX_TIME_MS, Engine, EngineError
from fairshare.core.lifecycle.asks import AM_PRIORITY, ContainerRequest, pending_demand
from fairshare.core.lifecycle.decommission import DEFAULT_TIMEOUT_MS
from fairshare.core.model.event_records import event_record, record_problem, record_reasons
from fairshare.core.model.events import (
    AppAttemptRestarted,
    AppFinished,
    AppMoved,
    AppNotRunnable,
    AppRejected,
    AppRunnable,
    AppSubmitted,
    Completion,
    ConfigErrorEvent,
    ConfigReloaded,
    ContainerAllocated,
    ContainerCompleted,
    ContainerPreempted,
    ContainerRecovered,
    ContainerReserved,
    ContainersRequested,
    ContainerUnreserved,
    Event,
    MoveRejected,
    NodeAdded,
    NodeDecommissioned,
    NodeDecommissioning,
    NodeRemoved,
    NodeResized,
    NoPreemption,
    PreemptionWarned,
    RequestsRejected,
    Starvation,
    StarvationGate,
)
from fairshare.core.model.queue_settings import QueueSettings
from fairshare.core.model.reasons import (
    REASON_KINDS,
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
    parse_member,
    parse_reason,
    phrase,
)
from fairshare.core.model.records import (
    ANY,
    App,
    AppState,
    AttemptKey,
    ClusterState,
    Container,
    Node,
    QueueRuntime,
    Reservation,
    SchedulerKey,
)
from fairshare.core.model.tree import QueueNode, QueueTree, build_queue_tree, get_or_create_leaf
from fairshare.core.preemption.plan import PreemptionPlan
from fairshare.core.preemption.round import RoundPlanner, SearchPlanner
from fairshare.core.preemption.victims import StarvedRequest
from fairshare.core.queries import EngineQueries
from fairshare.core.shares.fair_shares import (
    AppShareInput,
    FairShares,
    active_queues,
    compute_instantaneous_fair_shares,
    compute_steady_fair_shares,
    placeholder_apps,
    share_types,
    shares_with_active_leaves,
)
from fairshare.core.starvation.report import starvation_kind

__all__ = [
    "AM_PRIORITY",
    "ANY",
    "DEFAULT_TIMEOUT_MS",
    "MAX_TIME_MS",
    "REASON_KINDS",
    "AllocationVia",
    "App",
    "AppAttemptRestarted",
    "AppFinished",
    "AppMoved",
    "AppNotRunnable",
    "AppRejected",
    "AppRunnable",
    "AppShareInput",
    "AppState",
    "AppSubmitted",
    "AttemptKey",
    "AttemptRestart",
    "Because",
    "BlockedCause",
    "ClusterState",
    "Completion",
    "ConfigErrorEvent",
    "ConfigReloaded",
    "Container",
    "ContainerAllocated",
    "ContainerCompleted",
    "ContainerPreempted",
    "ContainerRecovered",
    "ContainerRequest",
    "ContainerReserved",
    "ContainerUnreserved",
    "ContainersRequested",
    "Decommissioned",
    "Engine",
    "EngineError",
    "EngineQueries",
    "Event",
    "FairShares",
    "MoveRefusal",
    "MoveRejected",
    "NoPreemption",
    "NoPreemptionReason",
    "Node",
    "NodeAdded",
    "NodeDecommissioned",
    "NodeDecommissioning",
    "NodeRemoved",
    "NodeResized",
    "NotRunnable",
    "PreemptionPlan",
    "PreemptionWarned",
    "QueueNode",
    "QueueRuntime",
    "QueueSettings",
    "QueueTree",
    "Rejection",
    "RequestRefusal",
    "RequestsRejected",
    "Reservation",
    "RoundPlanner",
    "SchedulerKey",
    "SearchPlanner",
    "Starvation",
    "StarvationGate",
    "StarvationKind",
    "StarvedRequest",
    "UnreserveReason",
    "active_queues",
    "build_queue_tree",
    "compute_instantaneous_fair_shares",
    "compute_steady_fair_shares",
    "event_record",
    "get_or_create_leaf",
    "parse_member",
    "parse_reason",
    "pending_demand",
    "phrase",
    "placeholder_apps",
    "record_problem",
    "record_reasons",
    "share_types",
    "shares_with_active_leaves",
    "starvation_kind",
]

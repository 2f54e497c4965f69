"""The scheduling engine: YARN's Fair Scheduler and its preemption, on an external clock.

This is the layer's public API: ``sim/``, ``cli/``, the reports, the workbench and the
benchmarks import from ``fairshare.core`` only (``tests/test_layers.py`` checks), and ``__all__``
is pinned by ``tests/core/test_public_api.py``. Everything else under ``fairshare.core`` is the
engine's own and may change.

* :class:`Engine` — the scheduler: its commands (nodes, apps, heartbeats and heartbeat ticks,
  the update pass, preemption, the clock, reloads) change state and emit events; its queries
  (:class:`EngineQueries`) write nothing. docs/architecture.md lists both;
  ``tests/core/test_public_api.py`` pins their names and signatures.
* What it refuses, by kind (:class:`EngineError` and its subclasses, ``core/model/errors.py``).
* The events it reports (one class per kind, :func:`event_record` for their JSON form); a
  listener may subscribe and unsubscribe.
* The records it keeps (:class:`App`, :class:`Node`, …), to read between commands, never to
  write; :meth:`Engine.snapshot` (:class:`EngineSnapshot`) is a frozen copy to keep.
* The queue tree and the fair-share computations that need no engine (``fairshare shares``,
  ``fairshare lint``).
* A preemption round's planner (:class:`SearchPlanner`, the engine's own), its plans and
  what-if requests.
"""

from fairshare.core.engine import MAX_TIME_MS, Engine, EngineError
from fairshare.core.lifecycle.asks import AM_PRIORITY, ContainerRequest, pending_demand
from fairshare.core.lifecycle.decommission import DEFAULT_TIMEOUT_MS
from fairshare.core.model.errors import (
    AppStopped,
    ClockError,
    DuplicateApp,
    DuplicateContainer,
    DuplicateNode,
    RecoveryRefused,
    UnknownApp,
    UnknownContainer,
    UnknownNode,
)
from fairshare.core.model.event_records import event_record, record_problem
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
from fairshare.core.snapshot import (
    AppSnapshot,
    ContainerSnapshot,
    EngineSnapshot,
    NodeSnapshot,
    QueueSnapshot,
    ReservationSnapshot,
)
from fairshare.core.starvation.report import starvation_kind

__all__ = [
    "AM_PRIORITY",
    "ANY",
    "DEFAULT_TIMEOUT_MS",
    "MAX_TIME_MS",
    "App",
    "AppAttemptRestarted",
    "AppFinished",
    "AppMoved",
    "AppNotRunnable",
    "AppRejected",
    "AppRunnable",
    "AppShareInput",
    "AppSnapshot",
    "AppState",
    "AppStopped",
    "AppSubmitted",
    "AttemptKey",
    "ClockError",
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
    "ContainerSnapshot",
    "ContainerUnreserved",
    "ContainersRequested",
    "DuplicateApp",
    "DuplicateContainer",
    "DuplicateNode",
    "Engine",
    "EngineError",
    "EngineQueries",
    "EngineSnapshot",
    "Event",
    "FairShares",
    "MoveRejected",
    "NoPreemption",
    "Node",
    "NodeAdded",
    "NodeDecommissioned",
    "NodeDecommissioning",
    "NodeRemoved",
    "NodeResized",
    "NodeSnapshot",
    "PreemptionPlan",
    "PreemptionWarned",
    "QueueNode",
    "QueueRuntime",
    "QueueSettings",
    "QueueSnapshot",
    "QueueTree",
    "RecoveryRefused",
    "RequestsRejected",
    "Reservation",
    "ReservationSnapshot",
    "RoundPlanner",
    "SchedulerKey",
    "SearchPlanner",
    "Starvation",
    "StarvationGate",
    "StarvedRequest",
    "UnknownApp",
    "UnknownContainer",
    "UnknownNode",
    "active_queues",
    "build_queue_tree",
    "compute_instantaneous_fair_shares",
    "compute_steady_fair_shares",
    "event_record",
    "get_or_create_leaf",
    "pending_demand",
    "placeholder_apps",
    "record_problem",
    "share_types",
    "shares_with_active_leaves",
    "starvation_kind",
]

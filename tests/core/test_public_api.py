"""``fairshare.core``'s public API is what ``__all__`` says, and changes only on purpose.

The other layers, the benchmarks and the oracle import the engine through these names only
(``tests/test_layers.py``); a name added or removed here is a change of that contract, so the
list below must be edited with it.
"""

from __future__ import annotations

import inspect

import fairshare.core as core

PINNED = [
    "AM_PRIORITY", "ANY", "DEFAULT_TIMEOUT_MS", "MAX_TIME_MS",
    # the engine and its read side
    "Engine", "EngineError", "EngineQueries", "ContainerRequest",
    # what it refuses, by kind
    "AppStopped", "ClockError", "DuplicateApp", "DuplicateContainer", "DuplicateNode",
    "RecoveryRefused", "UnknownApp", "UnknownContainer", "UnknownNode",
    # a frozen picture to keep
    "EngineSnapshot", "QueueSnapshot", "AppSnapshot", "NodeSnapshot", "ReservationSnapshot",
    "ContainerSnapshot",
    # events
    "Event", "Completion", "event_record", "record_problem",
    "AppAttemptRestarted", "AppFinished", "AppMoved", "AppNotRunnable", "AppRejected",
    "AppRunnable", "AppSubmitted", "ConfigErrorEvent", "ConfigReloaded", "ContainerAllocated",
    "ContainerCompleted", "ContainerPreempted", "ContainerRecovered", "ContainerReserved",
    "ContainerUnreserved", "ContainersRequested", "MoveRejected", "NoPreemption", "NodeAdded",
    "NodeDecommissioned", "NodeDecommissioning", "NodeRemoved", "NodeResized",
    "PreemptionWarned", "RequestsRejected", "Starvation", "StarvationGate",
    # records, to read
    "App", "AppState", "AttemptKey", "ClusterState", "Container", "Node", "QueueRuntime",
    "Reservation", "SchedulerKey", "pending_demand",
    # the queue tree and shares without an engine
    "QueueNode", "QueueSettings", "QueueTree", "build_queue_tree", "get_or_create_leaf",
    "AppShareInput", "FairShares", "active_queues", "compute_instantaneous_fair_shares",
    "compute_steady_fair_shares", "placeholder_apps", "share_types",
    "shares_with_active_leaves",
    # preemption rounds: the planner, its plans, what-if requests
    "PreemptionPlan", "RoundPlanner", "SearchPlanner", "StarvedRequest", "starvation_kind",
]


def test_all_is_pinned() -> None:
    assert sorted(core.__all__) == sorted(PINNED)
    assert len(core.__all__) == len(set(core.__all__))


def test_every_exported_name_exists_and_comes_from_the_engine() -> None:
    for name in core.__all__:
        value = getattr(core, name)
        module = getattr(value, "__module__", None)
        if isinstance(value, type) or inspect.isfunction(value):
            assert module is not None and module.startswith("fairshare.core."), name


def test_every_event_kind_is_exported() -> None:
    """A new event kind is part of what callers read: it is exported with the others."""
    from fairshare.core.model.event_records import EVENT_CLASSES

    exported = {getattr(core, name) for name in core.__all__}
    assert set(EVENT_CLASSES.values()) <= exported

"""``fairshare.core``'s public API is what ``__all__`` says, and changes only on purpose.

The other layers, the benchmarks and the oracle import the engine through these names only
(``tests/test_layers.py``); a name added or removed here is a change of that contract, so the
list below must be edited with it.
"""

from __future__ import annotations

import inspect

import fairshare.core as core
from tests.core.engine_builders import make_engine

PINNED = [
    "AM_PRIORITY", "ANY", "DEFAULT_TIMEOUT_MS", "MAX_TIME_MS",
    # the engine and its read side
    "Engine", "EngineError", "EngineQueries", "ContainerRequest",
    # commands: one per thing a caller can make the engine do, applied and written as JSON
    "Command", "apply_command", "command_from_json", "command_to_json",
    "AddNode", "AddNodes", "RemoveNode", "ResizeNode", "Decommission", "Heartbeat",
    "HeartbeatAll", "HeartbeatTick",
    "Submit", "RecoverContainer", "Ask", "Release", "CompleteContainer", "Finish", "Kill",
    "Forget", "Move", "Update", "Preempt", "Advance", "AdvanceTo", "Reload", "ReloadFailed",
    "Restart",
    # what it refuses, by kind
    "AppNotEnded", "AppStopped", "ClockError", "DuplicateApp", "DuplicateContainer",
    "DuplicateNode", "RecoveryRefused", "UnknownApp", "UnknownContainer", "UnknownNode",
    # a frozen picture to keep
    "EngineSnapshot", "QueueSnapshot", "AppSnapshot", "AskSnapshot", "NodeSnapshot",
    "ReservationSnapshot",
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
    # reasons: the closed sets events give as reasons and causes, their phrases, reading back
    "AllocationVia", "AttemptRestart", "Because", "BlockedCause", "Decommissioned",
    "MoveRefusal", "NoPreemptionReason", "NotRunnable", "REASON_KINDS", "Rejection",
    "RequestRefusal", "StarvationKind", "UnreserveReason", "parse_member", "parse_reason",
    "phrase", "record_reasons",
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


# The engine's face: its commands (which change state and emit events) are Engine's own
# methods; its queries (which write nothing, caches included) are EngineQueries'. Names and
# signatures are pinned: a change here is a change of the contract a live service, a watcher
# or a second implementation of the engine relies on (docs/architecture.md lists them).
COMMANDS = {
    "add_node": "(self, name: 'str', capacity: 'Resource', rack: 'str' = '/default-rack')"
                " -> 'Node'",
    "add_nodes": "(self, nodes: 'Iterable[tuple[str, Resource, str]]') -> 'list[Node]'",
    "advance": "(self, ms: 'int') -> 'None'",
    "advance_to": "(self, time_ms: 'int') -> 'None'",
    "complete_container": "(self, app_id: 'str', container_id: 'str') -> 'None'",
    "decommission_node": "(self, name: 'str', timeout_ms: 'int | None') -> 'None'",
    "finish": "(self, app_id: 'str') -> 'None'",
    "heartbeat": "(self, name: 'str') -> 'None'",
    "heartbeat_all": "(self) -> 'None'",
    "heartbeat_tick": "(self, skip_quiet: 'bool' = True, verify: 'bool' = False)"
                      " -> 'Iterator[str]'",
    "kill": "(self, app_id: 'str') -> 'None'",
    "forget": "(self, app_id: 'str') -> 'bool'",
    "move": "(self, app_id: 'str', queue: 'str') -> 'bool'",
    "preempt": "(self) -> 'None'",
    "recover_container": "(self, app_id: 'str', node: 'str', resource: 'Resource', *, am: "
                         "'bool' = False, priority: 'int' = 0, container_id: 'str | None' = "
                         "None) -> 'Container'",
    "release": "(self, app_id: 'str', count: 'int' = 1, which: 'str' = 'newest') -> 'int'",
    "reload": "(self, allocations: 'AllocationConfig', source: 'str') -> 'None'",
    "reload_failed": "(self, source: 'str', message: 'str') -> 'None'",
    "remove_node": "(self, name: 'str', cause: 'int | None' = None) -> 'None'",
    "request": "(self, app_id: 'str', requests: 'Sequence[ContainerRequest]') -> 'None'",
    "restart": "(self, epoch: 'int', scheduling_wait_ms: 'int | None') -> 'None'",
    "resize_node": "(self, name: 'str', capacity: 'Resource', cause: 'int | None' = None)"
                   " -> 'None'",
    "submit": "(self, app_id: 'str', queue: 'str' = 'default', user: 'str' = 'nobody', am: "
              "'Resource | None' = None, requests: 'Sequence[ContainerRequest]' = (), "
              "recovering: 'bool' = False) -> 'App'",
    "subscribe": "(self, listener: 'Callable[[Event], None]') -> 'Callable[[], None]'",
    "unsubscribe": "(self, listener: 'Callable[[Event], None]') -> 'None'",
    "update": "(self, preempt: 'bool' = True) -> 'None'",
}
QUERIES = {
    "allocations": "property",
    "ancestry": "(self, queue: 'str') -> 'tuple[str, ...]'",
    "app": "(self, app_id: 'str') -> 'App'",
    "apps_below": "(self, queue: 'str') -> 'tuple[list[App], list[App]]'",
    "events": "property",
    "events_emitted": "property",
    "heartbeats_run": "property",
    "heartbeats_skipped": "property",
    "is_starved_for_fair_share": "(self, app: 'App') -> 'bool'",
    "max_share": "(self, queue: 'str') -> 'Resource'",
    "max_share_above": "(self, queue: 'str') -> 'bool'",
    "next_timer": "(self) -> 'int | None'",
    "node": "(self, name: 'str') -> 'Node'",
    "now": "property",
    "placement_policy": "property",
    "queue_acls": "property",
    "queue_metrics": "(self, queue: 'str') -> 'dict[str, Any]'",
    "settings": "(self, queue: 'str') -> 'QueueSettings'",
    "site": "property",
    "snapshot": "(self) -> 'EngineSnapshot'",
    "state": "property",
    "steady_fair_share": "(self, queue: 'str') -> 'Resource'",
    "tree": "property",
    "types": "property",
    "utilization": "(self) -> 'float'",
}
# instance attributes: the engine's Scheduler (read by tests only: tests/test_layers.py keeps
# other layers off it) and the users' groups given at construction
ATTRIBUTES = {"groups", "s"}


def _face(cls: type, own: bool) -> dict[str, str]:
    names = vars(cls) if own else dir(cls)
    face = {}
    for name in names:
        if name.startswith("_"):
            continue
        value = inspect.getattr_static(cls, name)
        face[name] = "property" if isinstance(value, property) else str(inspect.signature(value))
    return face


def test_the_engines_commands_and_queries_are_pinned() -> None:
    assert _face(core.EngineQueries, own=False) == QUERIES
    assert _face(core.Engine, own=True) == COMMANDS
    assert _face(core.Engine, own=False) == COMMANDS | QUERIES


def test_the_engines_public_attributes_are_pinned() -> None:
    engine = make_engine()
    assert {name for name in vars(engine) if not name.startswith("_")} == ATTRIBUTES

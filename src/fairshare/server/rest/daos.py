"""The RM's REST DAOs as documents (:mod:`~fairshare.server.rest.jersey`), each with its root
element: what ``RMWebServices`` returns for every endpoint of ``/ws/v1/cluster``.

The big ones live beside this module (``dao_cluster``, ``dao_apps``, ``dao_nodes``); the
request and error bodies are here.
"""

from __future__ import annotations

from fairshare.resources.vector import Resource, ResourceTypes
from fairshare.server.control import Refused
from fairshare.server.rest.dao_apps import (
    DESELECTS,
    app,
    app_attempts,
    app_order,
    apps,
    apps_json,
    attempt_id,
    has_access,
)
from fairshare.server.rest.dao_cluster import (
    cluster_info,
    cluster_metrics,
    max_container_allocation,
    scheduler,
)
from fairshare.server.rest.dao_nodes import node, node_order, nodes, nodes_json
from fairshare.server.rest.jersey import Obj, obj, unwrapped
from fairshare.server.rest.resource_info import resource_info

__all__ = [
    "DESELECTS",
    "activities_not_capacity",
    "app",
    "app_attempts",
    "app_order",
    "app_priority",
    "app_queue",
    "app_state",
    "apps",
    "apps_json",
    "attempt_id",
    "cluster_info",
    "cluster_metrics",
    "has_access",
    "max_container_allocation",
    "new_application",
    "node",
    "node_order",
    "nodes",
    "nodes_json",
    "remote_exception",
    "scheduler",
]


def new_application(app_id: str, max_resource: Resource,
                    types: ResourceTypes | None = None) -> Obj:
    """``NewApplication`` (root-unwrapped): the id and ``maximum-resource-capability``."""
    kinds = types or ResourceTypes.with_custom(f"resource{i}" for i in
                                               range(2, len(max_resource)))
    return unwrapped("NewApplication", obj(
        ("application-id", app_id),
        ("maximum-resource-capability", resource_info(kinds, max_resource))))


def app_state(state: str, diagnostics: str | None = None) -> Obj:
    """``AppState`` (``<appstate>``, root-unwrapped): ``state`` and, when set, ``diagnostics``."""
    return unwrapped("appstate", obj(("state", state), ("diagnostics", diagnostics)))


def app_queue(queue: str) -> Obj:
    """``AppQueue`` (``<appqueue>``, root-unwrapped)."""
    return unwrapped("appqueue", obj(("queue", queue)))


def app_priority(priority: int) -> Obj:
    """``AppPriority`` (``<applicationpriority>``, root-unwrapped)."""
    return unwrapped("applicationpriority", obj(("priority", priority)))


def remote_exception(refused: Refused) -> Obj:
    """``RemoteExceptionData`` as ``GenericExceptionHandler`` writes it: ``exception`` (the
    simple class name), ``message`` (left out when null), ``javaClassName``."""
    return obj(("RemoteException", obj(
        ("exception", refused.exception),
        ("message", refused.message),
        ("javaClassName", refused.java_class))))


def activities_not_capacity() -> Obj:
    """``/scheduler/activities`` under any scheduler but the CapacityScheduler (captured)."""
    return obj(("activities", obj(("diagnostic", "Not Capacity Scheduler"))))

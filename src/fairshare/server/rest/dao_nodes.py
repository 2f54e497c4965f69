"""``NodeInfo`` (``/nodes``, ``/nodes/{id}``) from the RM's record of a node
(:class:`RMNodeView`) and the scheduler's (:class:`NodeSnapshot`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fairshare.core import NodeSnapshot
from fairshare.server.rest.jersey import JFloat, Obj, obj
from fairshare.server.rest.resource_info import resource_info
from fairshare.server.rest.yarn_order import hash_map_order, node_id_hash
from fairshare.server.view import RM_VERSION, RMNodeView, ServerSnapshot

# the states RMServerUtils.queryRMNodes reads from getRMNodes(); the others are inactive
ACTIVE_STATES = frozenset({"NEW", "RUNNING", "DECOMMISSIONING", "UNHEALTHY"})


def node_order(nodes: Iterable[RMNodeView]) -> list[RMNodeView]:
    """``queryRMNodes``: the active map, then the inactive one, each in its hash order."""
    listed = list(nodes)

    def key(n: RMNodeView) -> int:
        host, _, port = n.id.rpartition(":")
        return node_id_hash(host, int(port)) if port.isdigit() else 0

    active = [n for n in listed if n.state in ACTIVE_STATES]
    inactive = [n for n in listed if n.state not in ACTIVE_STATES]
    return hash_map_order(active, key) + hash_map_order(inactive, key)


def nodes(s: ServerSnapshot, listed: Iterable[RMNodeView]) -> Obj:
    """``NodesInfo``: ``{"nodes":{"node":[…]}}`` in the order given (the route's)."""
    return obj(("nodes", obj(("node", [_node_info(s, n) for n in listed]))))


def node(s: ServerSnapshot, n: RMNodeView) -> Obj:
    return obj(("node", _node_info(s, n)))


def _scheduler_node(s: ServerSnapshot, n: RMNodeView) -> NodeSnapshot | None:
    if n.state not in ACTIVE_STATES:
        return None
    try:
        return s.engine.node(n.id)
    except KeyError:
        return None


def _node_info(s: ServerSnapshot, n: RMNodeView) -> Obj:
    """``NodeInfo(RMNode, ResourceScheduler)``. The scheduler's node report gives the
    container and resource fields (none for an inactive node, which also loses its HTTP
    address); utilisation is what a NodeManager measures, which nothing does here (0)."""
    types = s.types
    sched = _scheduler_node(s, n)
    used = sched.allocated if sched is not None else types.none()
    available = (sched.capacity - sched.allocated) if sched is not None else types.none()
    fields: list[tuple[str, Any]] = [
        ("rack", n.rack), ("state", n.state), ("id", n.id), ("nodeHostName", n.host),
        ("nodeHTTPAddress", n.http_address if n.state in ACTIVE_STATES else ""),
        ("lastHealthUpdate", n.last_heartbeat_ms), ("version", RM_VERSION),
        ("healthReport", n.health_report),
        ("numContainers", len(sched.containers) if sched is not None else 0),
        ("usedMemoryMB", used.memory), ("availMemoryMB", available.memory),
        ("usedVirtualCores", used.vcores_int), ("availableVirtualCores", available.vcores_int),
        ("memUtilization", JFloat(0.0)), ("cpuUtilization", JFloat(0.0)),
        ("numRunningOpportContainers", 0), ("usedMemoryOpportGB", 0),
        ("usedVirtualCoresOpport", 0), ("numQueuedContainers", 0),
        ("nodeLabels", []),
        ("allocationTags", obj()),
        ("resourceUtilization", obj(
            ("nodePhysicalMemoryMB", 0), ("nodeVirtualMemoryMB", 0),
            ("nodeCPUUsage", JFloat(0.0)), ("aggregatedContainersPhysicalMemoryMB", 0),
            ("aggregatedContainersVirtualMemoryMB", 0), ("containersCPUUsage", JFloat(0.0)))),
        ("usedResource", resource_info(types, used) if sched is not None else None),
        ("availableResource", resource_info(types, available) if sched is not None else None),
        ("nodeAttributesInfo", obj()),
        ("totalResource", resource_info(types, n.capacity)),
    ]
    return obj(*fields)

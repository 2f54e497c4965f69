"""``NodeInfo`` (``/nodes``, ``/nodes/{id}``) from the RM's record of a node
(:class:`RMNodeView`) and the scheduler's (:class:`NodeSnapshot`).

A cluster of thousands of nodes is listed often (dashboards poll ``/nodes``) and changes
little between two snapshots, so :func:`nodes_json` writes the JSON answer from each node's
text, kept from one request to the next for as long as what it shows is unchanged; only
``lastHealthUpdate``, which moves for every node every heartbeat interval, is written afresh.
The text is the one :func:`~fairshare.server.rest.jersey.to_json` writes for the document.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import replace
from typing import Any

from fairshare.core import NodeSnapshot
from fairshare.server.rest.jersey import JFloat, Obj, obj, to_json
from fairshare.server.rest.resource_info import resource_info
from fairshare.server.rest.yarn_order import hash_map_order, node_id_hash
from fairshare.server.view import RM_VERSION, RMNodeView, ServerSnapshot

# the states RMServerUtils.queryRMNodes reads from getRMNodes(); the others are inactive
ACTIVE_STATES = frozenset({"NEW", "RUNNING", "DECOMMISSIONING", "UNHEALTHY"})


# the nodes' texts kept between requests; past this many (nodes come and go, their usage
# changes) they are all dropped and written again as asked for
TEXTS_KEPT = 50_000
_HEALTH_MARK = -7_346_291_064_511  # a lastHealthUpdate no node has: where its text is cut
_texts: dict[Hashable, tuple[str, str]] = {}
_orders: dict[tuple[tuple[str, bool], ...], tuple[int, ...]] = {}


@functools.lru_cache(maxsize=TEXTS_KEPT)
def _hash(node_id: str) -> int:
    host, _, port = node_id.rpartition(":")
    return node_id_hash(host, int(port)) if port.isdigit() else 0


def node_order(nodes: Iterable[RMNodeView]) -> list[RMNodeView]:
    """``queryRMNodes``: the active map, then the inactive one, each in its hash order (the
    order of the same nodes in the same maps is kept: it is the same every time)."""
    listed = list(nodes)
    key = tuple((n.id, n.state in ACTIVE_STATES) for n in listed)
    order = _orders.get(key)
    if order is None:
        indexed = list(enumerate(listed))
        active = [p for p in indexed if p[1].state in ACTIVE_STATES]
        inactive = [p for p in indexed if p[1].state not in ACTIVE_STATES]
        order = tuple(i for i, _ in hash_map_order(active, lambda p: _hash(p[1].id))
                      + hash_map_order(inactive, lambda p: _hash(p[1].id)))
        if len(_orders) >= 8:  # the nodes change rarely: the last few orders are enough
            _orders.clear()
        _orders[key] = order
    return [listed[i] for i in order]


def nodes(s: ServerSnapshot, listed: Iterable[RMNodeView]) -> Obj:
    """``NodesInfo``: ``{"nodes":{"node":[…]}}`` in the order given (the route's)."""
    return obj(("nodes", obj(("node", [_node_info(s, n) for n in listed]))))


def nodes_json(s: ServerSnapshot, listed: Sequence[RMNodeView]) -> bytes:
    """``to_json(nodes(s, listed))``, from the nodes' kept texts (the module docstring)."""
    if not listed:
        return to_json(nodes(s, listed))
    parts = []
    for n in listed:
        sched = _scheduler_node(s, n)
        # everything _node_info reads but lastHealthUpdate
        key = (s.types, n.id, n.host, n.http_address, n.rack, n.state, n.capacity,
               n.health_report,
               None if sched is None else (sched.allocated, sched.capacity,
                                           len(sched.containers)))
        text = _texts.get(key)
        if text is None:
            whole = to_json(_node_info(s, replace(n, last_heartbeat_ms=_HEALTH_MARK)))
            head, _, tail = whole.decode("utf-8").partition(str(_HEALTH_MARK))
            if len(_texts) >= TEXTS_KEPT:
                _texts.clear()
            _texts[key] = text = (head, tail)
        parts.append(f"{text[0]}{n.last_heartbeat_ms}{text[1]}")
    return f'{{"nodes":{{"node":[{",".join(parts)}]}}}}'.encode()


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

"""``NodeInfo`` (``/nodes``, ``/nodes/{id}``) from the RM's record of a node
(:class:`RMNodeView`) and the scheduler's (:class:`NodeSnapshot`).

A cluster of thousands of nodes is listed often (dashboards poll ``/nodes``) and changes
little between two snapshots, so :func:`nodes_json` writes the JSON answer from each node's
text, kept from one request to the next for as long as what it shows is unchanged; only
``lastHealthUpdate``, which moves for every node every heartbeat interval (the snapshot's
heartbeat round, for the nodes that heartbeat together), is written afresh.
The text is the one :func:`~fairshare.server.rest.jersey.to_json` writes for the document.

A node's text is kept with the two records it was written from (its RM record and its
scheduler record) and is used again when the node's records are those same objects (the
snapshots reuse a node's records while it is unchanged: no comparison at all), or when they
are equal to them but for the heartbeat (snapshots that copy every record: a comparison of
the few fields the text shows). :func:`nodes_answer` is the whole answer, once per snapshot.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from fairshare.core import NodeSnapshot
from fairshare.resources.vector import ResourceTypes
from fairshare.server.rest.jersey import ANSWERS, JFloat, Obj, PerSnapshot, obj, to_json, to_xml
from fairshare.server.rest.resource_info import resource_info
from fairshare.server.rest.yarn_order import hash_map_order, node_id_hash
from fairshare.server.view import RM_VERSION, RMNodeView, ServerSnapshot

# the states RMServerUtils.queryRMNodes reads from getRMNodes(); the others are inactive
ACTIVE_STATES = frozenset({"NEW", "RUNNING", "DECOMMISSIONING", "UNHEALTHY"})


# the nodes' texts kept between requests; past this many (nodes come and go, their usage
# changes) they are all dropped and written again as asked for
TEXTS_KEPT = 50_000
_HEALTH_MARK = -7_346_291_064_511  # a lastHealthUpdate no node has: where its text is cut
# by node id: the records a node's text was written from, its text around lastHealthUpdate
_Kept = tuple[RMNodeView, NodeSnapshot | None, ResourceTypes, str, str]
_texts: dict[str, _Kept] = {}
_orders: dict[tuple[tuple[str, bool], ...], tuple[int, ...]] = {}
_ordered: PerSnapshot[list[RMNodeView]] = PerSnapshot(3)  # by the snapshot's tuple of nodes


@functools.lru_cache(maxsize=TEXTS_KEPT)
def _hash(node_id: str) -> int:
    host, _, port = node_id.rpartition(":")
    return node_id_hash(host, int(port)) if port.isdigit() else 0


def node_order(nodes: Iterable[RMNodeView]) -> list[RMNodeView]:
    """``queryRMNodes``: the active map, then the inactive one, each in its hash order (the
    order of the same nodes in the same maps is kept: it is the same every time; that of a
    snapshot's nodes, once per snapshot)."""
    if isinstance(nodes, tuple):
        return list(_ordered.get(nodes, "order", lambda: _node_order(nodes)))
    return _node_order(nodes)


def _node_order(nodes: Iterable[RMNodeView]) -> list[RMNodeView]:
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


def nodes_answer(s: ServerSnapshot, states: frozenset[str] | None = None, *,
                 xml: bool = False) -> bytes:
    """``/nodes``' answer: the snapshot's nodes in ``states`` (None: all), JSON or XML, once
    per snapshot (a filter that leaves every node is the same answer as none)."""
    ordered = node_order(s.nodes)
    listed = ordered if states is None else [n for n in ordered if n.state in states]
    every = len(listed) == len(ordered)  # a subsequence as long as the whole is the whole

    def make() -> bytes:
        if xml:
            return to_xml(nodes(s, listed))
        if every:
            return _every_node_answer(s, listed)
        return joined_nodes(s, node_texts(s, listed))
    return ANSWERS.get(s, ("nodes", None if every else states, xml), make)


# where the heartbeat round's number goes in a node's text: a raw control character is in no
# JSON text (the writer escapes them), so the whole answer splits at these and nowhere else
_MARK = "\x00"


@dataclass(frozen=True, slots=True)
class _Listing:
    """The last whole ``/nodes`` answer as pieces to put the heartbeat round's number
    between, with what they were written from: the snapshot's RM records (one tuple, the
    same object while no node was written), its scheduler records."""

    rm_nodes: tuple[RMNodeView, ...]
    scheduled: tuple[NodeSnapshot, ...]
    types: ResourceTypes
    templates: list[str]  # each node's text, _MARK for the round's heartbeat
    position: dict[str, int]  # node id → its place in templates
    pieces: list[bytes]  # the answer, cut at each _MARK


_listing: list[_Listing] = []  # the last one (replaced whole: readers see one that agrees)


def _every_node_answer(s: ServerSnapshot, listed: list[RMNodeView]) -> bytes:
    """:func:`joined_nodes` of :func:`node_texts` of every node of ``s``, in ``listed``'s
    order (``node_order``): from one snapshot to the next of the same RM records, only the
    nodes whose scheduler record is not the same object are written again (a few of
    thousands, between two heartbeats), and a new heartbeat round is one join of the
    megabytes, not a text per node."""
    last = _listing[0] if _listing else None
    scheduled = s.engine.nodes
    if (last is not None and last.rm_nodes is s.nodes and last.types is s.types
            and len(last.scheduled) == len(scheduled)):
        changed = [b.name for a, b in zip(last.scheduled, scheduled, strict=True) if a is not b]
        templates, position = last.templates, last.position
        redo = [listed[position[name]] for name in changed if name in position]
        if redo:
            templates = list(templates)
            for n, text in zip(redo, _node_templates(s, redo), strict=True):
                templates[position[n.id]] = text
    else:
        templates = _node_templates(s, listed)
        position = {n.id: i for i, n in enumerate(listed)}
    pieces = last.pieces if last is not None and templates is last.templates \
        else joined_nodes(s, templates).split(_MARK.encode())
    _listing[:] = [_Listing(s.nodes, scheduled, s.types, templates, position, pieces)]
    return str(s.heartbeat_ms).encode().join(pieces)


def nodes_json(s: ServerSnapshot, listed: Sequence[RMNodeView]) -> bytes:
    """``to_json(nodes(s, listed))``, from the nodes' kept texts (the module docstring)."""
    return joined_nodes(s, node_texts(s, listed))


def joined_nodes(s: ServerSnapshot, parts: Sequence[str]) -> bytes:
    """The ``NodesInfo`` of the nodes whose texts are ``parts`` (:func:`node_texts`)."""
    if not parts:
        return to_json(nodes(s, ()))
    # the megabytes of a large cluster's answer joined once, made bytes once, and no list of
    # thousands made for it (the collector walks every young one)
    return b"".join((b'{"nodes":{"node":[', ",".join(parts).encode(), b"]}}"))


def node_texts(s: ServerSnapshot, listed: Iterable[RMNodeView]) -> list[str]:
    """Each node's ``NodeInfo`` as :func:`nodes_json` writes it in the list."""
    return _texts_with(s, listed, s.heartbeat_ms)


def _node_templates(s: ServerSnapshot, listed: Iterable[RMNodeView]) -> list[str]:
    """:func:`node_texts`, with :data:`_MARK` for the heartbeat round's number."""
    return _texts_with(s, listed, _MARK)


def _texts_with(s: ServerSnapshot, listed: Iterable[RMNodeView], beat: object) -> list[str]:
    """Each node's text with ``beat`` where the heartbeat round's number goes (a node
    naming a heartbeat of its own has that one)."""
    return [f"{head}{beat if n.last_heartbeat_ms is None else n.last_heartbeat_ms}{tail}"
            for n, head, tail in _heads_and_tails(s, listed)]


def _heads_and_tails(s: ServerSnapshot, listed: Iterable[RMNodeView]
                     ) -> list[tuple[RMNodeView, str, str]]:
    """Each node with its text before and after its lastHealthUpdate's number."""
    types, texts = s.types, _texts
    scheduled = s.engine.nodes_by_name()
    out = []
    for n in listed:  # (the hottest loop of a /nodes of thousands: kept lean)
        sched = scheduled.get(n.id) if n.state in ACTIVE_STATES else None
        kept = texts.get(n.id)
        if kept is not None and kept[0] is n and kept[1] is sched and kept[2] is types:
            out.append((n, kept[3], kept[4]))  # kept from these very records: as it is
            continue
        if kept is not None and _same_but_heartbeat(kept[0], n) \
                and _same_scheduler_node(kept[1], sched) and kept[2] == types:
            head, tail = kept[3], kept[4]
        else:
            whole = to_json(_node_info(s, replace(n, last_heartbeat_ms=_HEALTH_MARK)))
            head, _, tail = whole.decode("utf-8").partition(str(_HEALTH_MARK))
            if len(texts) >= TEXTS_KEPT:
                texts.clear()
        # one entry, replaced whole: a thread reading it sees records and texts that agree
        texts[n.id] = (n, sched, types, head, tail)
        out.append((n, head, tail))
    return out


def _same_but_heartbeat(a: RMNodeView, b: RMNodeView) -> bool:
    """Everything :func:`_node_info` reads of an RM record but lastHealthUpdate is equal."""
    return a is b or (a.id == b.id and a.host == b.host and a.http_address == b.http_address
                      and a.rack == b.rack and a.state == b.state and a.capacity == b.capacity
                      and a.health_report == b.health_report)


def _same_scheduler_node(a: NodeSnapshot | None, b: NodeSnapshot | None) -> bool:
    """Everything :func:`_node_info` reads of a scheduler record is equal."""
    if a is None or b is None:
        return a is b
    return a is b or (a.allocated == b.allocated and a.capacity == b.capacity
                      and len(a.containers) == len(b.containers))


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
        ("lastHealthUpdate", s.last_heartbeat(n)), ("version", RM_VERSION),
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

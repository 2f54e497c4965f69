"""Victim search for a whole preemption round, without re-scanning what earlier plans drained.

YARN builds every node's view afresh and scans the nodes from the first for every requested
container (as the reference planner in ``tests/oracles/preemption.py`` does), so the later
starved apps of a round re-examine, container by container, the nodes that earlier apps already
drained. A :class:`VictimSearch` lives for one
round of ``preempt_for_starved_apps``. In a round only ``commit`` changes the state, and only by
adding marks (with ``waitTimeBeforeKill`` > 0): nodes lose candidates and gain earmarks, owners
gain ``resourcesToBePreempted``; usage, fair shares, free space and reservations stay. So every
test of docs/semantics.md §5.4–§5.5 can only turn from pass to fail during a round, never
back. The search keeps:

* per node: its candidates in §5.4 order minus the committed marks, its free room, and bounds
  on what it can free (:mod:`~fairshare.core.preemption.bounds`);
* per owner: its view, and per container size whether one such container may go alone;
* per (request size, AMs a winning set may hold): the nodes, in search order, whose bound still
  fits. A node dropped there stays dropped for the round: bounds only shrink.

A :class:`~fairshare.core.preemption.plan_search.PlanSearch` sees those through one plan's own
marks. Its decisions are exactly those
of the reference (tests compare them):

1. A node is skipped only when a bound does not fit the request; then ``containers_on_node``
   would have returned ``None`` (its potential never exceeds the bound).
2. On a node, a candidate that may not go alone is passed over without the full §5.5 test: by
   monotonicity that test would fail (more already chosen never helps), and the potential is
   unchanged, so the fit test after it repeats the previous, failed one. An owner with nothing
   chosen yet on the node needs no second test: §5.5 is then "may go alone" and not marked.
3. Where those arguments need more than the engine guarantees — the node's free room already
   fits the request (the fit test would then return even an empty set), a negative component
   somewhere, a cluster with a negative total — ``containers_on_node`` itself decides.
4. The reference's ``search_nodes`` (``tests/oracles/victims.py``) ends at the first node, in
   order, whose set has no AM, and whether a node yields an AM-free set (and which) does not
   depend on the AM limit it is searched with. So
   the first node with an AM-free set is looked for first, among the nodes whose AM-free bound
   fits; only if there is none are sets with AMs weighed, as §5.3 does (fewest AMs, first
   found among equals), each found set narrowing the nodes that can still beat it.

The caller reports each commit (:meth:`VictimSearch.committed`); a commit that killed victims
at once (``waitTimeBeforeKill`` ≤ 0) frees room, so the caller starts a new search instead.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.changes import ChangeLog
from fairshare.core.model.records import App, ClusterState, Container, Node
from fairshare.core.preemption.bounds import (
    UNKNOWN,
    Bound,
    Bounds,
    NodeEntry,
    Owner,
    fits,
    node_bounds,
)
from fairshare.core.preemption.overlay import (
    owner_view,
    reserved_on,
)
from fairshare.core.preemption.victims import (
    ANY,
    room_before_victims,
)
from fairshare.core.rules.yarn_order import containers_for_victim_search, nodes_in_search_order
from fairshare.resources.vector import (
    Resource,
)


@dataclass(slots=True)
class _Kept:
    """A node's entry as an earlier round left it: valid while what it was built from is
    unchanged (the same objects: the engine replaces these values, never changes them in place)
    and, for its bounds, while every owner on the node has the view they were computed with."""

    basis: tuple[object, ...]
    lengths: tuple[int, int]  # marked and running containers
    entry: NodeEntry
    owners: tuple[tuple[str, Owner | None], ...] | None = None  # None: bounds not verified


def _node_basis(node: Node, cluster: Resource) -> tuple[object, ...]:
    reservation = node.reservation
    return (node.capacity, node.allocated, reservation,
            None if reservation is None else reservation.resource, node.earmarked_total, cluster)


def _same_node(basis: tuple[object, ...], node: Node, cluster: Resource) -> bool:
    """``_node_basis`` unchanged, spelt out (a busy round asks this for hundreds of nodes)."""
    reservation = node.reservation
    return (basis[1] is node.allocated and basis[2] is reservation
            and basis[4] is node.earmarked_total and basis[0] is node.capacity
            and basis[5] is cluster
            and (reservation is None or basis[3] is reservation.resource))


@dataclass(slots=True)
class _SearchOrder:
    """The nodes in §5.3 search order, and by rack: listed again only when the nodes change."""

    order: list[str]
    rack_of: dict[str, str]
    racks: frozenset[str]
    by_rack: dict[str, list[str]]


class SearchMemory:
    """What the preemption rounds' searches keep from round to round, which only they read:
    the owners' views and the nodes' entries and bounds (each with what it was built from),
    and the nodes in search order with the cluster they were listed for. Nodes' entries built
    for another cluster size would never match again: a cluster change drops them."""

    def __init__(self, log: ChangeLog | None = None) -> None:
        self.owner_views: dict[str, tuple[tuple[object, ...], Owner]] = {}
        self.victim_nodes: dict[str, _Kept] = {}
        self.search_order: tuple[Resource, _SearchOrder] | None = None
        self._changes = None if log is None else log.reader(apps=False, queues=False)

    def catch_up(self, state: ClusterState) -> None:
        """Forget what a change of the cluster made useless (before a round's search), and
        the views of owners the engine forgot (``ClusterState.pruned``)."""
        if self._changes is not None and self._changes.cluster:
            self.victim_nodes.clear()
            self._changes.clear()
        self.owner_views = state.pruned(self.owner_views)


def _search_order(s: Scheduler, memory: SearchMemory) -> _SearchOrder:
    kept = memory.search_order
    if kept is not None and kept[0] is s.state.capacity:  # replaced whenever a node changes
        return kept[1]
    nodes = nodes_in_search_order(s.state.nodes)
    by_rack: dict[str, list[str]] = {}
    for n in nodes:
        by_rack.setdefault(n.rack, []).append(n.name)
    rack_of = {n.name: n.rack for n in nodes}
    listed = _SearchOrder([n.name for n in nodes], rack_of, frozenset(rack_of.values()), by_rack)
    memory.search_order = (s.state.capacity, listed)
    return listed


@dataclass(slots=True)
class _Alive:
    """Nodes (search-order indices below ``scanned``) whose bound may still fit one size."""

    nodes: list[int]
    scanned: int = 0


class VictimSearch:
    """Indexes for the victim searches of one preemption round (see the module docstring)."""

    def __init__(self, s: Scheduler, memory: SearchMemory | None = None) -> None:
        self.s = s
        self.memory = memory if memory is not None else SearchMemory()
        self.memory.catch_up(s.state)
        self.cluster = s.state.capacity
        self.none = s.none
        listed = _search_order(s, self.memory)
        self.order, self.rack_of, self.racks = listed.order, listed.rack_of, listed.racks
        self._by_rack = listed.by_rack
        self.shortcuts = all(v >= 0 for v in self.cluster.values)
        self._nodes: dict[str, NodeEntry] = {}
        self._owners: dict[str, Owner | None] = {}
        self._alive: dict[tuple[Bound, int], _Alive] = {}
        self._old: dict[str, tuple[Bounds, tuple[Container, ...]]] = {}  # forgotten nodes
        self._epoch = 0
        # requests (size, resource name, relax) for which no node gave any set, searched by a
        # plan with no marks of its own: with only commits to come, that stays so all round
        self.hopeless: set[tuple[Resource, str, bool]] = set()

    # -- keeping up with commits ---------------------------------------------------------------

    def committed(self, nodes: Iterable[str], owners: Iterable[str]) -> None:
        """A commit marked containers on ``nodes`` owned by ``owners``: forget those. The
        nodes' old bounds are still bounds (they only shrink): kept until tightened."""
        for name in nodes:
            entry = self._nodes.pop(name, None)
            if entry is not None and entry.bounds is not None:
                self._old[name] = (entry.bounds, entry.live)
        for app_id in owners:
            self._owners.pop(app_id, None)
        self._epoch += 1  # every bound may have shrunk with those owners

    # -- what the planner asks -----------------------------------------------------------------

    def nodes_for(self, resource_name: str) -> list[str]:
        """``getNodesByResourceName``: ANY → all nodes; a host → that node; a rack → its nodes."""
        if resource_name == ANY:
            return self.order
        if resource_name in self.rack_of:
            return [resource_name]
        return self._by_rack.get(resource_name, [])

    # -- the committed state -------------------------------------------------------------------

    def owner(self, app_id: str) -> Owner | None:
        known = self._owners.get(app_id, UNKNOWN)
        if known is not UNKNOWN:
            return known
        app = self.s.state.apps.get(app_id)
        entry = None if app is None else self._lasting_owner(app)
        self._owners[app_id] = entry
        return entry

    def _lasting_owner(self, app: App) -> Owner:
        """The owner as an earlier round saw it, if nothing its view is built from changed
        since (the engine replaces these values, never changes them in place)."""
        s = self.s
        cached = self.memory.owner_views.get(app.id)
        if cached is not None:  # (spelt out: a busy round asks this for hundreds of owners)
            b = cached[0]
            # the queue's settings: the same queue in the same tree (replaced on any change)
            if (b[0] is app.usage and b[1] is app.fair_share
                    and b[2] is app.resources_to_be_preempted and b[3] is app.queue
                    and b[4] is s.tree and b[5] is self.cluster
                    and b[6] is app.am_preemption and b[7] is app):
                return cached[1]
        # the app itself too: an id the engine forgot may be submitted again, a new app
        basis = (app.usage, app.fair_share, app.resources_to_be_preempted, app.queue, s.tree,
                 self.cluster, app.am_preemption, app)
        owner = Owner(owner_view(s, app, {}))
        self.memory.owner_views[app.id] = (basis, owner)
        return owner

    def node(self, name: str) -> NodeEntry:
        entry = self._nodes.get(name)
        if entry is None:
            entry = self._nodes[name] = self._lasting_node(name)
        return entry

    def _lasting_node(self, name: str) -> NodeEntry:
        """The entry an earlier round (or this one) built, if the node is as it was then; its
        bounds too if every owner on it still has the view they were computed with. A busy
        cluster's rounds look at the same few hundred nodes that can give nothing."""
        node = self.s.state.nodes[name]
        lengths = (len(node.marked_for_preemption), len(node.containers))
        kept: _Kept | None = self.memory.victim_nodes.get(name)
        if kept is not None and kept.lengths == lengths and _same_node(
                kept.basis, node, self.cluster) and name not in self._old:
            entry = kept.entry
            if kept.owners is not None and self._same_owners(kept.owners):
                entry.epoch = self._epoch  # computed with the owners of now
            else:
                entry.bounds, entry.live, entry.epoch = None, entry.candidates, -1
                kept.owners = None
            return entry
        entry = self._build(name)
        self.memory.victim_nodes[name] = _Kept(_node_basis(node, self.cluster), lengths, entry)
        return entry

    def _same_owners(self, owners: tuple[tuple[str, Owner | None], ...]) -> bool:
        known = self._owners
        for app_id, seen in owners:
            owner = known.get(app_id, UNKNOWN)
            if owner is UNKNOWN:
                owner = self.owner(app_id)
            if owner is not seen:
                return False
        return True

    def _build(self, name: str) -> NodeEntry:
        node = self.s.state.nodes[name]
        marked = node.marked_for_preemption
        # the engine's own records: they do not change while the round runs
        candidates = tuple(c for c in containers_for_victim_search(
            node.containers, node.peak_containers) if c.id not in marked)
        reserved = reserved_on(node, self.none)
        free = room_before_victims(node.unallocated, reserved, node.earmarked_total)
        sizes = {c.resource.values for c in candidates}
        regular = self.shortcuts and all(min(size) >= 0 for size in sizes)
        owners = frozenset(c.app_id for c in candidates)
        old = self._old.pop(name, None)
        if old is None:
            return NodeEntry(name, candidates, owners, reserved, free, regular, candidates)
        bounds, live = old
        live = tuple(c for c in live if c.id not in marked)
        return NodeEntry(name, candidates, owners, reserved, free, regular, live, bounds)

    def may_fit(self, name: str, request: Bound, regime: int) -> bool:
        """False only if ``containers_on_node`` surely gives ``None`` in the committed state.

        The bound may date from before later commits: it only shrinks, so an old one is still
        a bound. It is recomputed when a node it let through gives nothing (:meth:`tighten`).
        """
        entry = self.node(name)
        if not entry.regular:
            return True
        if entry.bounds is None:
            self.tighten(entry)
        assert entry.bounds is not None
        return fits(request, entry.bounds[regime])

    def tighten(self, entry: NodeEntry) -> None:
        if entry.regular and entry.epoch != self._epoch:
            entry.bounds, entry.live = node_bounds(entry.free, entry.live, self.owner, self.none,
                                                   self.cluster, known=self._owners)
            entry.epoch = self._epoch
            kept: _Kept | None = self.memory.victim_nodes.get(entry.name)
            if kept is not None and kept.entry is entry:
                # candidates left out of ``live`` earlier were left out under views that can
                # only have shrunk to these (bounds.py): the bounds are exact for these owners
                kept.owners = tuple((a, self.owner(a)) for a in sorted(entry.owners))

    def alive_from(self, request: Bound, regime: int, start: int) -> Iterator[int]:
        """Search-order indices ≥ ``start`` whose bound fits; drops those that no longer do."""
        alive = self._alive.get((request, regime))
        if alive is None:
            alive = self._alive[(request, regime)] = _Alive([])
        nodes, order = alive.nodes, self.order
        k = bisect_left(nodes, start)
        while True:
            if k < len(nodes):
                i = nodes[k]
                if self.may_fit(order[i], request, regime):
                    yield i
                    k += 1
                else:
                    del nodes[k]
                continue
            if alive.scanned >= len(order):
                return
            i = alive.scanned
            alive.scanned += 1
            if self.may_fit(order[i], request, regime):
                nodes.append(i)  # k now points at it; the loop yields it if i ≥ start
                if i < start:
                    k += 1



"""Planning preemption for one starved app (spec §5.2–§5.5) without touching the state.

``identifyContainersToPreempt`` marks each chosen set before looking for the next container, so
later choices see earlier ones. A plan keeps those marks in an
:class:`~fairshare.core.preemption.overlay.Overlay` and returns a :class:`PreemptionPlan`;
:mod:`fairshare.core.preemption.commit` applies it. Planning never writes to the
:class:`~fairshare.core.scheduler.Scheduler` (a test checks).

Two planners give the same plans (tests compare them on random clusters):
:func:`plan_preemption` searches through a :class:`~fairshare.core.preemption.search.VictimSearch`
that a preemption round keeps across its plans; :func:`plan_preemption_straightforward` builds
every view afresh and scans nodes in order, exactly as the spec reads — the reference.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, overload

from fairshare.core.preemption.overlay import Overlay, node_view, owner_view
from fairshare.core.preemption.requests import RequestAsk, starved_requests
from fairshare.core.preemption.search import VictimSearch
from fairshare.core.preemption.victims import (
    ANY,
    ContainerView,
    NodeView,
    OwnerView,
    StarvedRequest,
    VictimSet,
    best_preemptable_containers,
)
from fairshare.core.scheduler import Scheduler
from fairshare.core.state import App
from fairshare.core.yarn_order import nodes_in_search_order, request_order
from fairshare.resources.vector import Resource


@dataclass(frozen=True, slots=True)
class Selection:
    """Victims on one node that make room for one container of ``request``."""

    request: StarvedRequest
    node: str
    victims: tuple[ContainerView, ...]
    num_am: int


@dataclass(frozen=True, slots=True)
class PreemptionPlan:
    app_id: str
    starvation: Resource  # fairshare + minshare starvation the plan was made for
    requests: tuple[tuple[StarvedRequest, int], ...]  # §5.2: what to make room for
    selections: tuple[Selection, ...]
    # containers of a request for which no node had victims, per request (for the report of
    # why: fairshare.core.preemption.blocked), and those whose node had room already
    unplaced: tuple[tuple[StarvedRequest, int], ...] = ()
    room_free: int = 0

    @property
    def containers_wanted(self) -> int:
        return sum(count for _, count in self.requests)


class _Finder(Protocol):
    def best(self, request: StarvedRequest) -> VictimSet | None: ...

    def marked(self, node: str, victims: Sequence[ContainerView]) -> None: ...


Requests = Sequence[tuple[StarvedRequest, int]]


def plan_preemption(
    s: Scheduler, app: App, search: VictimSearch | None = None, requests: Requests | None = None
) -> PreemptionPlan:
    """``identifyContainersToPreempt(app)``: victims for every container of every request.

    ``search`` carries indexes from plan to plan within one preemption round (the caller
    reports each commit to it); without one, the plan uses a search of its own. ``requests``
    replaces what §5.2 makes of the app's starvation and asks (a what-if).
    """
    if search is None:
        search = VictimSearch(s)
    if requests is None:
        requests = starved_requests(app.starvation, app_request_asks(app), search.rack_of,
                                    racks=search.racks)
    overlay = Overlay()
    return _plan(s, app, requests, overlay, search.planner(overlay))


def plan_preemption_straightforward(
    s: Scheduler, app: App, requests: Requests | None = None
) -> PreemptionPlan:
    """:func:`plan_preemption` as the spec reads: fresh views, every node list scanned."""
    if requests is None:
        rack_of = {n.name: n.rack for n in s.state.nodes.values()}
        requests = starved_requests(app.starvation, app_request_asks(app), rack_of)
    overlay = Overlay()
    return _plan(s, app, requests, overlay, _Straightforward(s, overlay))


def _plan(
    s: Scheduler, app: App, requests: Requests, overlay: Overlay, finder: _Finder
) -> PreemptionPlan:
    selections: list[Selection] = []
    unplaced: list[tuple[StarvedRequest, int]] = []
    room_free = 0
    for request, count in requests:
        missed = 0
        for _ in range(count):
            best = finder.best(request)
            if best is None:
                missed += 1
                continue
            if not best.containers:
                room_free += 1
                continue
            selections.append(Selection(request, best.node, best.containers, best.num_am))
            overlay.mark(s.none, best.node, best.containers)
            finder.marked(best.node, best.containers)
        if missed:
            unplaced.append((request, missed))
    return PreemptionPlan(app.id, app.starvation, tuple(requests), tuple(selections),
                          tuple(unplaced), room_free)


def app_request_asks(app: App) -> list[RequestAsk]:
    return [RequestAsk(key[0], name, ask.capability, ask.count, ask.relax_locality)
            for key, name, ask in request_order(app.asks)]


def nodes_for(s: Scheduler, resource_name: str) -> list[str]:
    """``getNodesByResourceName``: ANY → all nodes; a host → that node; a rack → its nodes."""
    ordered = [n.name for n in nodes_in_search_order(s.state.nodes)]
    if resource_name == ANY:
        return ordered
    if resource_name in s.state.nodes:
        return [resource_name]
    return [name for name in ordered if s.state.nodes[name].rack == resource_name]


# -- the straightforward planner ------------------------------------------------------------------


class _LazyNodes(Sequence[NodeView]):
    """Node views built on first use: a search usually stops long before the last node."""

    def __init__(self, names: Sequence[str], view: Callable[[str], NodeView]) -> None:
        self.names, self.view = names, view

    def __len__(self) -> int:
        return len(self.names)

    @overload
    def __getitem__(self, index: int) -> NodeView: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[NodeView]: ...

    def __getitem__(self, index: int | slice) -> NodeView | Sequence[NodeView]:
        if isinstance(index, slice):
            return [self.view(name) for name in self.names[index]]
        return self.view(self.names[index])


class _Owners(Mapping[str, OwnerView]):
    """``app id → OwnerView`` with the plan's marks applied, built on demand."""

    def __init__(self, s: Scheduler, overlay: Overlay) -> None:
        self.s, self.overlay = s, overlay
        self._cache: dict[str, OwnerView] = {}

    def __getitem__(self, app_id: str) -> OwnerView:
        view = self._cache.get(app_id)
        if view is None:
            view = self._cache[app_id] = owner_view(self.s, self.s.state.apps[app_id],
                                                    self.overlay.owner_marked.get(app_id, {}))
        return view

    def __iter__(self) -> Iterator[str]:
        return iter(self.s.state.apps)

    def __len__(self) -> int:
        return len(self.s.state.apps)

    def forget(self, app_id: str) -> None:
        self._cache.pop(app_id, None)


class _Straightforward:
    """Every node view built afresh for the plan; every search from the first node."""

    def __init__(self, s: Scheduler, overlay: Overlay) -> None:
        self.s, self.overlay = s, overlay
        self.owners = _Owners(s, overlay)
        self.views: dict[str, NodeView] = {}
        self.everywhere = _LazyNodes(nodes_for(s, ANY), self.view)
        self.lists: dict[str, _LazyNodes] = {ANY: self.everywhere}

    def view(self, name: str) -> NodeView:
        if name not in self.views:
            self.views[name] = node_view(self.s, self.s.state.nodes[name], self.overlay)
        return self.views[name]

    def best(self, request: StarvedRequest) -> VictimSet | None:
        nodes = self.lists.get(request.resource_name)
        if nodes is None:
            nodes = self.lists[request.resource_name] = _LazyNodes(
                nodes_for(self.s, request.resource_name), self.view)
        return best_preemptable_containers(request, nodes, self.everywhere, self.owners,
                                           self.s.state.capacity)

    def marked(self, node: str, victims: Sequence[ContainerView]) -> None:
        self.views.pop(node, None)
        for victim in victims:
            self.owners.forget(victim.app_id)

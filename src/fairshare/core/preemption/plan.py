"""Planning preemption for one starved app (spec §5.2–§5.5) without touching the state.

``identifyContainersToPreempt`` marks each chosen set before looking for the next container, so
later choices see earlier ones (containers already marked, the earmark on the node, and the
owners' ``resourcesToBePreempted``). :func:`plan_preemption` keeps those marks in an overlay
and returns a :class:`PreemptionPlan`; :mod:`fairshare.core.preemption.commit` applies it.
Planning never writes to the :class:`~fairshare.core.scheduler.Scheduler` (a test checks).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import overload

from fairshare.core.preemption.requests import RequestAsk, starved_requests
from fairshare.core.preemption.victims import (
    ANY,
    ContainerView,
    NodeView,
    OwnerView,
    StarvedRequest,
    best_preemptable_containers,
)
from fairshare.core.scheduler import Scheduler
from fairshare.core.state import App, Node
from fairshare.core.yarn_order import containers_newest_first, nodes_in_search_order, request_order
from fairshare.resources.vector import Resource, add, sum_resources


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

    @property
    def containers_wanted(self) -> int:
        return sum(count for _, count in self.requests)


@dataclass(slots=True)
class _Overlay:
    """The marks a plan has made so far, on top of the real state."""

    marked: dict[str, set[str]] = field(default_factory=dict)  # node → container ids
    earmarked: dict[str, Resource] = field(default_factory=dict)  # node → extra earmark
    owner_marked: dict[str, dict[str, Resource]] = field(default_factory=dict)  # app → c → r


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

    def __init__(self, s: Scheduler, overlay: _Overlay) -> None:
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


def owner_view(s: Scheduler, app: App, extra: Mapping[str, Resource]) -> OwnerView:
    settings = s.settings(app.queue)
    marked = frozenset(app.to_be_preempted) | frozenset(extra)
    return OwnerView(
        app_id=app.id, usage=app.usage, fair_share=app.fair_share,
        resources_to_be_preempted=add(app.resources_to_be_preempted,
                                      sum_resources(list(extra.values()), app.usage)),
        containers_to_be_preempted=marked, policy=settings.policy,
        preemptable=settings.preemptable, am_preemption=app.am_preemption,
    )


def node_view(s: Scheduler, node: Node, overlay: _Overlay) -> NodeView:
    reserved = node.reservation.resource if node.reservation is not None else s.none
    marked = frozenset(node.marked_for_preemption) | frozenset(overlay.marked.get(node.name, ()))
    return NodeView(
        name=node.name, unallocated=node.unallocated, reserved=reserved,
        earmarked=add(node.earmarked_total, overlay.earmarked.get(node.name, s.none)),
        containers=tuple(ContainerView(c.id, c.app_id, c.resource, c.is_am)
                         for c in containers_newest_first(node.containers)),
        marked_for_preemption=marked,
    )


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


def plan_preemption(s: Scheduler, app: App) -> PreemptionPlan:
    """``identifyContainersToPreempt(app)``: victims for every container of every request."""
    rack_of = {n.name: n.rack for n in s.state.nodes.values()}
    requests = starved_requests(app.starvation, app_request_asks(app), rack_of)
    overlay = _Overlay()
    owners = _Owners(s, overlay)
    views: dict[str, NodeView] = {}

    def view(name: str) -> NodeView:
        if name not in views:
            views[name] = node_view(s, s.state.nodes[name], overlay)
        return views[name]

    everywhere = _LazyNodes(nodes_for(s, ANY), view)
    selections: list[Selection] = []
    for request, count in requests:
        nodes = everywhere if request.resource_name == ANY else _LazyNodes(
            nodes_for(s, request.resource_name), view)
        for _ in range(count):
            best = best_preemptable_containers(request, nodes, everywhere, owners,
                                               s.state.capacity)
            if best is None or not best.containers:
                continue
            selections.append(Selection(request, best.node, best.containers, best.num_am))
            _mark(s, overlay, best.node, best.containers)
            views.pop(best.node, None)
            for victim in best.containers:
                owners.forget(victim.app_id)
    return PreemptionPlan(app.id, app.starvation, tuple(requests), tuple(selections))


def _mark(s: Scheduler, overlay: _Overlay, node: str, victims: Sequence[ContainerView]) -> None:
    marked = overlay.marked.setdefault(node, set())
    fresh = [v for v in victims if v.container_id not in marked]
    marked.update(v.container_id for v in fresh)
    overlay.earmarked[node] = add(overlay.earmarked.get(node, s.none),
                                  sum_resources([v.resource for v in fresh], s.none))
    for v in fresh:
        overlay.owner_marked.setdefault(v.app_id, {})[v.container_id] = v.resource

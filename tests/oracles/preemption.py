"""Victims chosen from scratch: the reference for ``core.preemption.search``.

``FSPreemptionThread.identifyContainersToPreempt`` as it reads: for every container of every
starved request, the nodes of its resource name scanned from the first, each node's view built
afresh with the marks this plan made so far
(``FSPreemptionThread.identifyContainersToPreemptOnNode``).
The engine's :class:`~fairshare.core.preemption.search.VictimSearch` keeps what it learnt across
a whole round and skips nodes by bounds; its plans must equal these
(``tests/core/preemption/test_preemption_fast.py``, ``tests/sim/test_preemption_rounds.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import overload

from fairshare.core.engine import Engine
from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.records import App
from fairshare.core.preemption.overlay import Overlay, node_view, owner_view
from fairshare.core.preemption.plan import (
    PreemptionPlan,
    Requests,
    app_request_asks,
    nodes_for,
    plan_preemption,
    plan_with,
)
from fairshare.core.preemption.requests import starved_requests
from fairshare.core.preemption.round import SearchPlanner
from fairshare.core.preemption.victims import (
    ANY,
    ContainerView,
    NodeView,
    OwnerView,
    StarvedRequest,
    VictimSet,
)
from tests.oracles.victims import best_preemptable_containers


def plan_preemption_reference(
    s: Scheduler, app: App, requests: Requests | None = None
) -> PreemptionPlan:
    """``plan_preemption`` with fresh views and every node list scanned from the first."""
    if requests is None:
        rack_of = {n.name: n.rack for n in s.state.nodes.values()}
        requests = starved_requests(app.starvation, app_request_asks(app), rack_of)
    overlay = Overlay()
    return plan_with(s, app, requests, overlay, _FreshViews(s, overlay))


class ReferencePlanner:
    """Stands where a round keeps its ``SearchPlanner``: every plan made from scratch."""

    def __init__(self, s: Scheduler) -> None:
        self.s = s

    def plan(self, app: App) -> PreemptionPlan:
        return plan_preemption_reference(self.s, app)

    def committed(self, plan: PreemptionPlan) -> None:
        """Nothing kept between plans."""


def use_reference_preemption(engine: Engine) -> Engine:
    """Give ``engine`` the reference victim choice for its preemption rounds."""
    engine._steps.round_planner = ReferencePlanner
    return engine


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


class _FreshViews:
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


def what_if(planner: SearchPlanner, app: App, requests: Requests) -> PreemptionPlan:
    """The plan for ``requests`` in place of what ``app``'s starvation asks for, through the
    round's search as it stands: nothing is marked or committed. The engine never plans
    requests of its own choosing; ``bench/preempt.py`` times one no node can hold."""
    return plan_preemption(planner.s, app, planner.ready(), requests)

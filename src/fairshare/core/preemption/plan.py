"""Planning preemption for one starved app (docs/semantics.md §5.2–§5.5) without touching the state.

``identifyContainersToPreempt`` marks each chosen set before looking for the next container, so
later choices see earlier ones. A plan keeps those marks in an
:class:`~fairshare.core.preemption.overlay.Overlay` and returns a :class:`PreemptionPlan`;
:mod:`fairshare.core.preemption.commit` applies it. Planning never writes to the
:class:`~fairshare.core.hub.scheduler.Scheduler` (a test checks).

:func:`plan_preemption` searches through a :class:`~fairshare.core.preemption.search.VictimSearch`
that a preemption round keeps across its plans. Tests check every plan against a reference that
builds every view afresh and scans the nodes in order, as YARN's code reads
(``tests/oracles/preemption.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.records import App
from fairshare.core.preemption.overlay import Overlay
from fairshare.core.preemption.plan_search import PlanSearch
from fairshare.core.preemption.requests import RequestAsk, starved_requests
from fairshare.core.preemption.search import VictimSearch
from fairshare.core.preemption.victims import (
    ANY,
    ContainerView,
    StarvedRequest,
    VictimSet,
)
from fairshare.core.rules.yarn_order import nodes_in_search_order, request_order
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


class VictimFinder(Protocol):
    """Where the next container of a request can be made room for, and told what was marked."""

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
    return plan_with(s, app, requests, overlay, PlanSearch(search, overlay))


def plan_with(
    s: Scheduler, app: App, requests: Requests, overlay: Overlay, finder: VictimFinder
) -> PreemptionPlan:
    """Victims for every container of ``requests``, found by ``finder``, marked in ``overlay``
    as they are chosen (``identifyContainersToPreempt``'s loop)."""
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
    """Every resource request the app holds, inactive keys' host and rack asks included:
    ``getStarvedResourceRequests`` reads ``getAllResourceRequests``, every placement
    allocator's, not only the scheduler keys' (docs/semantics.md §3.6.6, §5.2)."""
    asks = {**app.asks, **app.inactive_asks} if app.inactive_asks else app.asks
    return [RequestAsk(key[0], name, ask.capability, ask.count, ask.relax_locality)
            for key, name, ask in request_order(asks)]


def nodes_for(s: Scheduler, resource_name: str) -> list[str]:
    """``getNodesByResourceName``: ANY → all nodes; a host → that node; a rack → its nodes."""
    ordered = [n.name for n in nodes_in_search_order(s.state.nodes)]
    if resource_name == ANY:
        return ordered
    if resource_name in s.state.nodes:
        return [resource_name]
    return [name for name in ordered if s.state.nodes[name].rack == resource_name]

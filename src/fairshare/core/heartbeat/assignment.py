"""Container assignment on a node heartbeat (docs/semantics.md §3.1–§3.7).

``attempt_scheduling`` is ``FairScheduler.attemptScheduling``: apps that preemption freed space
for go first (§3.2), then the node's reservation (§3.3), then the tree walk by comparators
(§3.4) as many times as assignmultiple allows (§3.7). Inside an app, scheduler keys are tried
in priority order with YARN's locality rules and delay scheduling (§3.6).

Each step returns an :class:`Assigned` (a container, or a reservation) or ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass

from fairshare.core.heartbeat.offers import reservable_nodes_limit
from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.lifecycle.asks import allocated_places, first_any_ask, outstanding
from fairshare.core.model.events import ContainerAllocated, ContainerReserved
from fairshare.core.model.reasons import AllocationVia, UnreserveReason
from fairshare.core.model.records import (
    ANY,
    LOCALITY_NAMES,
    App,
    Ask,
    AttemptKey,
    Container,
    Node,
)
from fairshare.core.model.records import SchedulerKey as Key
from fairshare.core.rules.am_share import (
    am_check_disabled,
    am_fits,
)
from fairshare.core.rules.locality import Locality, LocalityState, offer, on_allocation
from fairshare.core.rules.yarn_order import container_hash
from fairshare.resources.vector import (
    Resource,
    add,
    fits_in,
    is_none,
    subtract_non_negative,
)


@dataclass(frozen=True, slots=True)
class Assigned:
    """One assignment: a container of ``resource`` was allocated, or (``reserved``) reserved.

    YARN returns the container size, or the marker vector (memory −1) for a reservation; the
    marker is what :func:`attempt_scheduling` adds to its running total (§3.1, §3.7).
    """

    resource: Resource
    reserved: bool = False

    def counted(self, none: Resource) -> Resource:
        if not self.reserved:
            return self.resource
        return Resource((-1, *none.values[1:]))


# -- §3.2 earmarked space goes to the starved app first ------------------------------------------


def preemption_list(s: Scheduler, node: Node) -> list[tuple[App, Resource]]:
    """``getPreemptionList``: drop entries of stopped or no longer starved attempts, then copy.
    An ended attempt's entry is stopped, even when its app runs a new attempt."""
    if not node.earmarks:
        return []
    for key in list(node.earmarks):
        app = earmarked_attempt(s, key)
        if app is None or not keeps_earmark(s, app):
            s.write.drop_earmark(node, key)
    return [(s.state.apps[app_id], amount) for (app_id, _), amount in node.earmarks.items()]


def earmarked_attempt(s: Scheduler, key: AttemptKey) -> App | None:
    """The app whose current attempt an earmark entry is for; None once that attempt ended
    (its app ended, or runs a later attempt: ``FSAppAttempt.isStopped``)."""
    app = s.state.apps.get(key[0])
    return app if app is not None and app.attempt_key == key else None


def keeps_earmark(s: Scheduler, app: App) -> bool:
    """Does ``getPreemptionList`` keep ``app``'s earmarks: running, starved, and some
    starvation attributed to it?"""
    return not app.stopped and s.is_starved(app) and not (
        is_none(app.fairshare_starvation) and is_none(app.minshare_starvation))


def assign_preempted_containers(s: Scheduler, node: Node) -> None:
    """``assignPreemptedContainers``: each earmarked app takes what it can, in FIFO order."""
    for app, amount in preemption_list(s, node):
        pending = amount
        while not app.stopped and not is_none(pending):
            result = assign_to_app(s, app, node, via=AllocationVia.EARMARK)
            if result is None or result.reserved:
                break
            pending = subtract_non_negative(pending, result.resource)


# -- §3.3 an existing reservation -------------------------------------------------------------


def assign_reserved_container(s: Scheduler, node: Node) -> bool:
    """``assignReservedContainer``: True if the reservation is still valid."""
    reservation = node.reservation
    assert reservation is not None
    app = s.state.apps[reservation.app_id]
    if not has_container_for_node(s, app, reservation.key, node) or is_over_am_share_limit(
            s, app):
        s.unreserve(app, node, UnreserveReason.NO_LONGER_VALID)
        return False
    if fits_in(reservation.resource, node.unallocated):
        assign_keys(s, app, node, [reservation.key], reserved=True, via=AllocationVia.RESERVATION)
    return True


# -- §3.4 the tree walk ------------------------------------------------------------------------


def pre_check(s: Scheduler, queue: str, node: Node) -> bool:
    """``preCheck``: the node has no reservation and the queue is not over its max share."""
    return node.reservation is None and fits_in(s.state.queues[queue].usage, s.max_share(queue))


# -- §3.6 inside an application ------------------------------------------------------------------


def assign_to_app(s: Scheduler, app: App, node: Node, via: AllocationVia) -> Assigned | None:
    """``FSAppAttempt.assignContainer(node)``: the AM-share gate, then every key in order."""
    if is_over_am_share_limit(s, app):
        return None
    return assign_keys(s, app, node, app.sorted_keys(), reserved=False, via=via)


def is_over_am_share_limit(s: Scheduler, app: App) -> bool:
    """§3.6.1: only before the AM runs; the first key's ANY ask must fit the AM limit."""
    if app.am_running or app.unmanaged:
        return False
    ask = first_any_ask(app)
    if ask is None:
        return False
    return ask.count == 0 or not can_run_app_am(s, app.queue, ask.capability)


def can_run_app_am(s: Scheduler, queue: str, am_resource: Resource) -> bool:
    """§3.6.4 ``canRunAppAM``; records the limit as the queue's MaxAMShare metric."""
    if am_check_disabled(s.settings(queue).max_am_share):
        return True
    limit = record_max_am_share(s, queue)
    return am_fits(s.state.queues[queue].am_resource_usage, am_resource, limit)


def over_am_limit(s: Scheduler, app: App, limit: Resource) -> bool:
    """``canRunAppAM`` failing for an app whose check runs (its AM not running, an ask for
    it outstanding, the check enabled), given the leaf's AM ``limit``."""
    ask = first_any_ask(app)
    assert ask is not None and ask.count > 0
    return not am_fits(s.state.queues[app.queue].am_resource_usage, ask.capability, limit)


def record_max_am_share(s: Scheduler, queue: str) -> Resource:
    """What every ``canRunAppAM`` of a leaf with the check enabled writes, whichever app asks:
    the AM limit, as the queue's MaxAMShare metric."""
    limit = max_am_limit(s, queue)
    s.write.set_max_am_share_metric(queue, limit)
    return limit


def max_am_limit(s: Scheduler, queue: str) -> Resource:
    """The leaf's AM limit as ``canRunAppAM`` computes it (§3.6.4): the last one computed, if
    what it is computed from is the same (vectors are replaced, never changed in place)."""
    return s.am_limit(queue, s.state.queues[queue].fair_share, s.max_share(queue),
                      s.root_available())


def has_container_for_node(s: Scheduler, app: App, key: Key, node: Node) -> bool:
    """§3.6.2 ``hasContainerForNode``: the ask can go to this node and the queues have room."""
    table = app.asks.get(key, {})
    anywhere = table.get(ANY)
    if anywhere is None or anywhere.count <= 0:
        return False
    rack = table.get(node.rack)
    has_rack = rack is not None and rack.count > 0
    has_node = outstanding(app, key, node.name) is not None
    ok = (
        (anywhere.relax_locality or has_rack)
        and (not has_rack or (rack is not None and rack.relax_locality) or has_node)
        and fits_in(anywhere.capability, node.capacity)
    )
    return ok and fits_in_max_share(s, app.queue, anywhere.capability)


def fits_in_max_share(s: Scheduler, queue: str, amount: Resource) -> bool:
    """``fitsInMaxShare`` up the whole ancestry."""
    if not s.max_share_above(queue):
        return True  # every max share above is unbounded: usage + amount saturates below it
    return all(
        fits_in(add(s.state.queues[q].usage, amount), s.max_share(q)) for q in s.ancestry(queue)
    )


def assign_keys(
    s: Scheduler, app: App, node: Node, keys: list[Key], reserved: bool, via: AllocationVia
) -> Assigned | None:
    """§3.6.2: the first key that reaches a placement decides the result for this node."""
    for key in keys:
        if not reserved and not has_container_for_node(s, app, key, node):
            continue
        allowed = Locality.OFF_SWITCH
        if s.site.delay_scheduling_enabled:  # else the opportunity count is never read: not kept
            allowed, locality = offer(
                app.locality.get(key) or LocalityState(), num_nodes=len(s.state.nodes),
                node_threshold=s.site.locality_threshold_node,
                rack_threshold=s.site.locality_threshold_rack,
            )
            s.write.set_locality(app, key, locality)
        table = app.asks.get(key, {})
        rack_ask, node_ask = outstanding(app, key, node.rack), outstanding(app, key, node.name)
        any_ask = outstanding(app, key, ANY)
        if rack_ask is not None and node_ask is not None:
            return place(s, app, node, node_ask, Locality.NODE_LOCAL, reserved, key, via)
        if not _can_delay_to(table, node.rack):
            continue
        if rack_ask is not None and allowed in (Locality.RACK_LOCAL, Locality.OFF_SWITCH):
            return place(s, app, node, rack_ask, Locality.RACK_LOCAL, reserved, key, via)
        if not _can_delay_to(table, ANY):
            continue
        if any_ask is not None and (len(table) <= 1 or allowed is Locality.OFF_SWITCH):
            return place(s, app, node, any_ask, Locality.OFF_SWITCH, reserved, key, via)
    return None


def _can_delay_to(table: dict[str, Ask], name: str) -> bool:
    """``canDelayTo``: the request at ``name`` relaxes locality, or there is none."""
    ask = table.get(name)
    return ask is None or ask.relax_locality


def place(
    s: Scheduler, app: App, node: Node, ask: Ask, kind: Locality, reserved: bool, key: Key,
    via: AllocationVia,
) -> Assigned | None:
    """Allocate if it fits, else perhaps reserve (§3.6.2 ``assignContainer``, §3.6.5)."""
    capability = ask.capability
    if fits_in(capability, node.unallocated):
        if key in app.locality:
            s.write.set_locality(app, key, on_allocation(app.locality[key], kind))
        if outstanding(app, key, ANY) is None:
            if reserved:
                s.unreserve(app, node, UnreserveReason.NO_OUTSTANDING_ASK)
            return None
        reservation = node.reservation if reserved else None
        if reservation is not None:
            s.unreserve(app, node, UnreserveReason.FULFILLED)
        allocate(s, app, node, key, capability, kind, via,
                 reservation.container_id if reservation is not None else None)
        return Assigned(capability)
    if is_reservable(s, app, capability) and app.attempt_key not in node.earmarks and reserve(
            s, app, node, capability, kind, key):
        return Assigned(capability, reserved=True)
    return None


def allocate(
    s: Scheduler, app: App, node: Node, key: Key, capability: Resource, kind: Locality,
    via: AllocationVia, container_id: str | None = None,
) -> Container:
    """Create the container and account for it everywhere (§3.6.2 ``allocate``, §3.2)."""
    if container_id is None:
        container_id = s.write.new_container_id(app)
    is_am = not app.am_running and not app.unmanaged  # the first container is the AM
    container = Container(container_id, app.id, node.name, capability, is_am, key, kind, s.now,
                          container_hash(container_id, s.app_number(app.id)))
    s.write.decrement_asks(app, key, allocated_places(node.name, node.rack, kind))
    s.write.allocate(app, node, container, kind)
    s.emit(ContainerAllocated, app=app.id, queue=app.queue, container=container_id,
           node=node.name, resource=capability, am=is_am, locality=LOCALITY_NAMES[kind], via=via)
    return container


# -- §3.6.5 reservations ------------------------------------------------------------------------


def is_reservable(s: Scheduler, app: App, capability: Resource) -> bool:
    """Starved apps only, and only containers at least the reservation threshold."""
    calc = s.calc(app.queue)
    threshold = s.reservation_threshold
    return s.is_starved(app) and calc.compare(s.state.capacity, capability, threshold) >= 0


def reserve(s: Scheduler, app: App, node: Node, capability: Resource, kind: Locality,
            key: Key) -> bool:
    if node.reservation is not None and node.reservation.app_id != app.id:
        return False
    if reservation_exceeds_threshold(s, app, node, kind):
        return False
    if s.write.reserve(app, node, key, capability):
        s.emit(ContainerReserved, app=app.id, queue=app.queue, node=node.name,
               resource=capability, priority=key[0])
    return True


def reservation_exceeds_threshold(s: Scheduler, app: App, node: Node, kind: Locality) -> bool:
    """At most ``ceil(nodes × reservable-nodes)`` reserved nodes per rack or cluster-wide."""
    if kind is Locality.NODE_LOCAL:
        return False
    nodes = s.state.nodes
    if kind is Locality.RACK_LOCAL:
        existing = sum(1 for n in app.reservations if nodes[n].rack == node.rack)
        total = sum(1 for n in nodes.values() if n.rack == node.rack)
    else:
        existing, total = len(app.reservations), len(nodes)
    return existing >= reservable_nodes_limit(s, total)

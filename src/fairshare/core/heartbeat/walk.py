"""The heartbeat and the tree walk (docs/semantics.md §3.1, §3.4, §3.7).

``attempt_scheduling`` is ``FairScheduler.attemptScheduling``: apps that preemption freed space
for go first (§3.2), then the node's reservation (§3.3), then the tree walk by comparators
(§3.4) as many times as assignmultiple allows (§3.7). What happens inside an app is
:mod:`fairshare.core.heartbeat.assignment`.

The engine walks with an :class:`IndexedWalk`, which owns the walk's
:class:`~fairshare.core.heartbeat.order_index.OrderIndex`; tests put YARN's walk that sorts
every level (``tests/oracles/walk.py``) in its place and compare the events.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from fairshare.core.heartbeat.assignment import (
    Assigned,
    assign_keys,
    assign_preempted_containers,
    assign_reserved_container,
    assign_to_app,
    max_am_limit,
    over_am_limit,
    pre_check,
    record_max_am_share,
)
from fairshare.core.heartbeat.offers import headroom
from fairshare.core.heartbeat.order_index import OrderIndex
from fairshare.core.hub.scheduler import ROOT, Scheduler
from fairshare.core.model.changes import ChangeLog
from fairshare.core.model.reasons import AllocationVia
from fairshare.core.model.records import App, Node
from fairshare.core.rules.am_share import refuses_every_am
from fairshare.core.rules.policies import SortKey
from fairshare.resources.vector import (
    Resource,
    add,
    componentwise_min,
    fits_in,
    multiply,
    subtract,
)

# one walk down the tree for a node: the first container or reservation it makes, if any
TreeWalk = Callable[[Scheduler, Node], Assigned | None]

_HEARTBEAT = AllocationVia.HEARTBEAT  # a global: an enum member is a slower lookup


class IndexedWalk:
    """The engine's :data:`TreeWalk`: :func:`walk` over its own order index, which follows
    the state through the change log."""

    def __init__(self, log: ChangeLog) -> None:
        self.order = OrderIndex(log)

    def __call__(self, s: Scheduler, node: Node) -> Assigned | None:
        return walk(s, node, self.order)


# -- §3.1 the heartbeat -------------------------------------------------------------------------


def attempt_scheduling(s: Scheduler, node: Node, tree_walk: TreeWalk) -> None:
    """``attemptScheduling(node)``, walking the tree with ``tree_walk`` (the engine's is an
    :class:`IndexedWalk`)."""
    assign_preempted_containers(s, node)
    valid = False
    if node.reservation is not None:
        valid = assign_reserved_container(s, node)
    if valid:
        return  # a valid reservation blocks everything else on this node (§3.1)
    count, assigned = 0, s.none
    allocated_before = node.allocated  # half of what is free now bounds assignmultiple (§3.7)
    max_to_assign: Resource | None = None
    while node.reservation is None:
        result = tree_walk(s, node)
        if result is None:
            break
        count += 1
        assigned = add(assigned, result.counted(s.none))
        if max_to_assign is None:  # measured once, truncating (§3.7)
            max_to_assign = multiply(subtract(node.capacity, allocated_before), 0.5)
        if not should_continue_assigning(s, count, max_to_assign, assigned):
            break


def should_continue_assigning(
    s: Scheduler, count: int, max_to_assign: Resource, assigned: Resource
) -> bool:
    """§3.7: one container unless assignmultiple; then half the node, or max.assign."""
    if not s.site.assign_multiple:
        return False
    if s.site.dynamic_max_assign:
        return fits_in(assigned, max_to_assign)
    return s.site.max_assign <= 0 or count < s.site.max_assign


def walk(s: Scheduler, node: Node, order: OrderIndex) -> Assigned | None:
    """One walk down the tree from the root (``FSParentQueue``/``FSLeafQueue.assignContainer``)
    over the order index's sorted lists. Under delay scheduling every visit to an app counts a
    scheduling opportunity, so every app is visited; otherwise what can only fail on this node
    is passed over. Tests check both against YARN's walk that sorts every level
    (``tests/oracles/walk.py``)."""
    order.refresh(s)
    if s.site.delay_scheduling_enabled:
        return _visit_every_app(s, order, ROOT, node)
    free = node.unallocated
    if not order.may_act(ROOT, free, s.unbounded):
        # nothing anywhere can use this node: the walk would only run AM checks, which write
        # the same gauges as the last such sweep if nothing they read changed since
        available = s.root_available()
        if order.runs_am_checks(ROOT) and not order.gauges_current(available):
            _am_checks_below(s, order, ROOT, node)
            order.gauges_written(available)
        return None
    return _pruned_from_queue(s, order, ROOT, node, free, s.unbounded)


def _visit_every_app(s: Scheduler, order: OrderIndex, queue: str, node: Node
                     ) -> Assigned | None:
    """The walk over the index's sorted lists, every queue and app visited in turn."""
    if not pre_check(s, queue, node):
        return None
    if s.tree[queue].is_leaf:
        for app in order.apps(s, queue):  # runnable, with pending demand
            result = assign_to_app(s, app, node, via=_HEARTBEAT)
            if result is not None:
                return result
        return None
    for child in order.children(s, queue):
        result = _visit_every_app(s, order, child, node)
        if result is not None:
            return result
    return None


def _pruned_from_queue(s: Scheduler, order: OrderIndex, queue: str, node: Node,
                       free: Resource, room: Resource) -> Assigned | None:
    """The same walk, passing over what can only fail on this node (see order_index):
    ``free`` is the node's unallocated space, ``room`` the max-share headroom of every queue
    down to here. A walk only starts on a node without a reservation and ends at the first
    allocation or reservation, so ``pre_check`` reduces to the queue's own headroom."""
    if room is not s.unbounded or s.max_share_above(queue):  # else no max share can bind here
        own = headroom(s.state.queues[queue].usage, s.max_share(queue))
        if min(own.values) < 0:
            return None  # over its max share
        room = componentwise_min(room, own)
    if s.tree[queue].is_leaf:
        # every AM check of the leaf computes the same limit until the walk allocates or
        # reserves, which ends it: computed once, written as the gauge at the first check
        am_sizes = order.am_sizes(queue)
        limit = max_am_limit(s, queue) if am_sizes else None
        if limit is not None and refuses_every_am(s.state.queues[queue].am_resource_usage,
                                                  am_sizes, limit):
            others = order.apps_without_am_check(s, queue)
            if others is not None:  # the usual case in a leaf full of waiting apps
                return _leaf_past_am_limit(s, order, queue, node, free, room, limit, *others)
        unbounded = room is s.unbounded
        recorded = False
        for app in order.apps(s, queue):
            offer = order.offer(app)
            assert offer is not None  # the leaf's list holds offered apps only
            if offer.am_check and not recorded:  # the check runs whether or not it may act
                assert limit is not None  # an offer with the check gives the leaf an AM size
                s.write.set_max_am_share_metric(queue, limit)
                recorded = True
            if offer.may_act(free, room, unbounded):
                if offer.am_check:  # assign_to_app with the leaf's limit
                    assert limit is not None
                    if over_am_limit(s, app, limit):
                        continue
                    result = assign_keys(s, app, node, app.sorted_keys(), reserved=False,
                                         via=_HEARTBEAT)
                else:
                    result = assign_to_app(s, app, node, via=_HEARTBEAT)
                if result is not None:
                    return result
        return None
    for child in order.children(s, queue):
        if order.may_act(child, free, room):
            result = _pruned_from_queue(s, order, child, node, free, room)
            if result is not None:
                return result
        elif order.runs_am_checks(child):
            _am_checks_below(s, order, child, node)
    return None


def _leaf_past_am_limit(s: Scheduler, order: OrderIndex, leaf: str, node: Node,
                        free: Resource, room: Resource, limit: Resource,
                        first_am_check: SortKey | None,
                        others: Iterator[tuple[SortKey, App]]) -> Assigned | None:
    """The leaf's walk when its AM ``limit`` refuses every app whose visit runs the AM check:
    those visits would only write the limit as the MaxAMShare gauge, so only the other apps
    are visited, and the gauge is written where the walk would reach the first refused app."""
    unbounded = room is s.unbounded
    for key, app in others:
        if first_am_check is not None and key > first_am_check:
            s.write.set_max_am_share_metric(leaf, limit)
            first_am_check = None
        offer = order.offer(app)
        assert offer is not None
        if offer.may_act(free, room, unbounded):
            result = assign_to_app(s, app, node, via=_HEARTBEAT)
            if result is not None:
                return result
    if first_am_check is not None:
        s.write.set_max_am_share_metric(leaf, limit)
    return None


def _am_checks_below(s: Scheduler, order: OrderIndex, queue: str, node: Node) -> None:
    """A visit of a subtree where nothing can be allocated or reserved: only its AM checks
    have an effect (the MaxAMShare gauge). Nothing they read changes during the visit, so
    each leaf writes the same gauge whatever the order: only the leaves with checks are
    visited, in no particular order."""
    if not pre_check(s, queue, node):
        return
    if s.tree[queue].is_leaf:
        if order.runs_am_checks(queue):  # some offered app's visit runs the check: once will do
            record_max_am_share(s, queue)
        return
    for child in order.checking_children(queue):
        _am_checks_below(s, order, child, node)

"""What the tree walk's index keeps per app and per queue (docs/semantics.md §3.4–§3.6): an
app's :class:`Offer` (the container sizes the walk could allocate or reserve for it on some
node), a queue's :class:`Activity` (the sizes below it, and how many apps would run the AM
check), the sorted lists (:class:`Ordered`), and the comparator orders YARN's walk uses where
a sort key cannot express the comparator. :class:`~fairshare.core.heartbeat.order_index.OrderIndex`
keeps them current.
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_left, insort
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass, field

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.lifecycle.asks import first_any_ask
from fairshare.core.model.records import ANY, App
from fairshare.core.rules.am_share import am_check_disabled, max_am_resource, refuses_every_am
from fairshare.core.rules.policies import KeyFunction, SortKey, comparator_for
from fairshare.resources.vector import (
    LONG_MAX,
    Resource,
    componentwise_min,
    fits_in,
    float32,
    is_none,
    subtract,
)


@dataclass(frozen=True, slots=True)
class Offer:
    """What one app could do when the walk offers it a node (None: the walk passes it by)."""

    leaf: str
    sizes: tuple[Resource, ...]  # capabilities of its ANY asks with containers outstanding
    reservable: tuple[Resource, ...]  # those it may reserve a node too small for (§3.6.5)
    # its AM's size, if its visit runs canRunAppAM (which sets the MaxAMShare gauge, §3.6.4)
    am_size: Resource | None

    @property
    def am_check(self) -> bool:
        return self.am_size is not None

    def may_act(self, free: Resource, room: Resource, unbounded: bool = False) -> bool:
        """Could it allocate on a node with ``free`` unallocated, or reserve one, when every
        queue above it has ``room`` left below its max share (``unbounded``: no limit)?"""
        if unbounded:
            return may_act_unbounded(self.sizes, self.reservable, free)
        return may_act(self.sizes, self.reservable, free, room)


@dataclass(slots=True)
class Activity:
    """Summary of the offers below one queue: how many ask for (or may reserve for) each size."""

    sizes: dict[Resource, int] = field(default_factory=dict)
    reservable: dict[Resource, int] = field(default_factory=dict)
    am_checks: int = 0
    # the children whose own ``am_checks`` is positive (parents only), in no particular order:
    # a sweep of AM checks writes the same gauges in any order
    checking: dict[str, None] = field(default_factory=dict)
    # may_act's answers with no max share in the way, by free space: walks ask the same
    # questions node after node; cleared when a size appears or disappears here
    answers: dict[tuple[int, ...], bool] = field(default_factory=dict)

    def may_act_unbounded(self, free: Resource) -> bool:
        answer = self.answers.get(free.values)
        if answer is None:
            answer = self.answers[free.values] = may_act_unbounded(self.sizes, self.reservable,
                                                                   free)
        return answer


def may_act(sizes: Iterable[Resource], reservable: Iterable[Resource], free: Resource,
            room: Resource) -> bool:
    for size in sizes:  # plain loops: this runs for most queues and apps a walk passes
        if fits_in(size, room) and fits_in(size, free):
            return True
    return any(fits_in(size, room) for size in reservable)


def may_act_unbounded(sizes: Iterable[Resource], reservable: Collection[Resource],
                      free: Resource) -> bool:
    """``may_act`` with no max share in the way: any reservable size, or a size that fits."""
    return bool(reservable) or any(fits_in(size, free) for size in sizes)


def headroom(usage: Resource, max_share: Resource) -> Resource:
    """What ``fitsInMaxShare`` still lets through (an unbounded component stays unbounded)."""
    return Resource(tuple(LONG_MAX if m == LONG_MAX else m - u
                          for u, m in zip(usage.values, max_share.values, strict=True)))


@dataclass(slots=True)
class AmChecks:
    """A leaf's offered apps whose visit runs the AM check: how many ask for each AM size and
    for each size, and whether the leaf's AM limit refuses every such AM whatever the cluster's
    free space (``blocked``: they can do nothing, so ancestors do not count their sizes)."""

    am_sizes: dict[Resource, int] = field(default_factory=dict)
    sizes: dict[Resource, int] = field(default_factory=dict)
    reservable: dict[Resource, int] = field(default_factory=dict)
    blocked: bool = False


class Ordered:
    """One parent's children or one leaf's runnable apps, sorted by key.

    ``entries`` holds the keys (each ends with the member's name); members whose key is None
    are counted in ``unkeyed`` and force the comparator sort. ``key`` is the owner's policy's.
    """

    __slots__ = ("entries", "key", "key_of", "unkeyed")

    def __init__(self, key: KeyFunction) -> None:
        self.entries: list[SortKey] = []
        self.key = key
        self.key_of: dict[str, SortKey | None] = {}
        self.unkeyed = 0

    def put(self, name: str, key: SortKey | None) -> None:
        if name in self.key_of:
            if key is not None and self.key_of[name] == key:
                return
            self.drop(name)
        self.key_of[name] = key
        if key is None:
            self.unkeyed += 1
        else:
            insort(self.entries, key)

    def drop(self, name: str) -> None:
        if name not in self.key_of:
            return
        old = self.key_of.pop(name)
        if old is None:
            self.unkeyed -= 1
        else:
            del self.entries[bisect_left(self.entries, old)]

    def names(self) -> Iterator[str]:
        return (key[-1] for key in self.entries)


def offer_of(s: Scheduler, app: App, min_capacity: Resource | None) -> Offer | None:
    """What the walk could do with ``app``; None if it would not even look at it (not runnable,
    or no pending demand as of the last update pass — the filter of ``assign_from_leaf``).

    Its sizes are those of its keys in priority order up to the first key that every node
    would let through to placement: an off-switch-only ask that fits the smallest node
    (``min_capacity``), in a queue whose ancestry has no max share — a heartbeat never gets
    past that key."""
    if not app.runnable or app.demand.values == app.usage.values:  # no pending demand
        return None
    sizes: list[Resource] = []
    for key in app.sorted_keys():  # §3.6.2: the first key that gets to a placement decides
        table = app.asks[key]
        ask = table.get(ANY)
        if ask is None or ask.count <= 0:
            continue
        if ask.capability not in sizes:
            sizes.append(ask.capability)
        if (len(table) == 1 and ask.relax_locality and min_capacity is not None
                and fits_in(ask.capability, min_capacity)
                and not s.max_share_above(app.queue)):
            break  # hasContainerForNode passes on every node: later keys are never tried
    reservable: tuple[Resource, ...] = ()
    if _may_reserve(s, app):
        calc, cluster, threshold = s.calc(app.queue), s.state.capacity, s.reservation_threshold
        reservable = tuple(size for size in sizes if calc.compare(cluster, size, threshold) >= 0)
    return Offer(app.queue, tuple(sizes), reservable, _am_size(s, app))


def min_capacity(s: Scheduler) -> Resource | None:
    nodes = iter(s.state.nodes.values())
    first = next(nodes, None)
    if first is None:
        return None
    smallest = first.capacity
    for node in nodes:
        smallest = componentwise_min(smallest, node.capacity)
    return smallest


def add_counts(counts: dict[Resource, int], sizes: tuple[Resource, ...], delta: int) -> bool:
    """Add ``delta`` to each size's count; True if a size appeared or disappeared."""
    changed = False
    for size in sizes:
        n = counts.get(size, 0) + delta
        if n:
            changed |= n == delta
            counts[size] = n
        else:
            del counts[size]
            changed = True
    return changed


def add_many(counts: dict[Resource, int], more: dict[Resource, int], sign: int) -> bool:
    """Add (``sign`` 1) or take away (−1) the counts of ``more``; True if a size appeared or
    disappeared."""
    changed = False
    for size, k in more.items():
        n = counts.get(size, 0) + sign * k
        if n:
            changed |= n == sign * k
            counts[size] = n
        else:
            del counts[size]
            changed = True
    return changed


def am_blocked(s: Scheduler, leaf: str, am_sizes: Collection[Resource]) -> bool:
    """Does the leaf's AM limit refuse each of ``am_sizes`` however much of the cluster is
    free? The limit only grows with root's available space (it fills the fair share's zero
    components, §3.6.4), which is at most the cluster: refused at that, refused always."""
    settings = s.settings(leaf)
    if not am_sizes or am_check_disabled(settings.max_am_share) or settings.max_am_share < 0:
        return False  # a negative share would make the limit shrink as space grows
    runtime = s.state.queues[leaf]
    limit = max_am_resource(runtime.fair_share, s.max_share(leaf), s.state.capacity,
                            settings.max_am_share)
    return refuses_every_am(runtime.am_resource_usage, am_sizes, limit)


def _may_reserve(s: Scheduler, app: App) -> bool:
    """Starved (``isReservable``; its sizes must reach the reservation threshold too), and not
    yet at its reservable-nodes limit for off-switch asks — with rack or host asks, a rack's
    own limit may still allow it (§3.6.5)."""
    if not s.is_starved(app):
        return False
    if any(len(table) > 1 for table in app.asks.values()):
        return True
    return len(app.reservations) < reservable_nodes_limit(s, len(s.state.nodes))


def reservable_nodes_limit(s: Scheduler, nodes: int) -> int:
    """``ceil(nodes × reservable-nodes)``: how many of ``nodes`` one app may reserve."""
    return math.ceil(float32(nodes * s.site.reservable_nodes))


def _am_size(s: Scheduler, app: App) -> Resource | None:
    """The AM size ``canRunAppAM`` is asked about, if ``isOverAMShareLimit`` gets that far
    (assignment.py)."""
    if app.am_running or app.unmanaged:
        return None
    ask = first_any_ask(app)
    if ask is None or ask.count == 0 or am_check_disabled(s.settings(app.queue).max_am_share):
        return None
    return ask.capability


def comparator_order_children(s: Scheduler, parent: str) -> list[str]:
    """The comparator order: the parent's comparator over its children (§3.4)."""
    compare = comparator_for(s.settings(parent).policy, len(s.types))
    views = {child: s.queue_view(child) for child in s.tree[parent].children}
    cluster = s.state.capacity

    def order(a: str, b: str) -> int:
        return compare(views[a], views[b], cluster)

    return sorted(s.tree[parent].children, key=functools.cmp_to_key(order))


def comparator_order_apps(s: Scheduler, leaf: str) -> list[App]:
    """The comparator order of a leaf's runnable apps with pending demand."""
    apps = [a for a in s.state.queues[leaf].runnable_apps
            if not is_none(subtract(a.demand, a.usage))]
    compare = comparator_for(s.settings(leaf).policy, len(s.types))
    views = {a.id: s.app_view(a) for a in apps}
    cluster = s.state.capacity
    apps.sort(key=functools.cmp_to_key(lambda a, b: compare(views[a.id], views[b.id], cluster)))
    return apps

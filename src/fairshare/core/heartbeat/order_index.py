"""The tree walk's index: every list it walks kept in comparator order, and what each subtree
could do on a node (docs/semantics.md §3.4–§3.6).

YARN sorts the children of every parent it passes, and the runnable apps of every leaf, with the
policy comparator on *each* assignment. Between two assignments only the app that got (or gave
back) a container and the queues above it change, so :class:`OrderIndex` keeps each list sorted
by a key equivalent to the comparator (:func:`~fairshare.core.rules.policies.sort_key_for`) and
re-positions just what the engine reports as touched. A list whose keys cannot express the
comparator (a NaN from an empty cluster or a zero weight) is sorted with the comparator on every
walk, exactly as YARN does.

The index also keeps, per queue, a summary of the apps below it that the walk would offer a
node: the container sizes they ask for, the sizes they could reserve for (starved apps below
their reservable-nodes limit, sizes at least the reservation threshold, §3.6.5) and how many
would run the AM-share check (which records the ``MaxAMShare`` gauge, §3.6.4). A subtree none
of whose sizes fits both the node's free space and the max-share headroom of every queue on the
way (``fitsInMaxShare``), and none of whose apps could reserve, can only fail: visiting it would
at most count scheduling opportunities, which nothing reads unless delay scheduling is on, and
record the gauge — so the walk skips it (:meth:`OrderIndex.may_act`), descending only to run
the AM checks a visit would have run. With delay scheduling on, nothing is skipped.

Every write that changes a key or a summary is recorded in the state's change log
(:mod:`fairshare.core.model.changes`: allocation, release, asks, admission, reservations, and
the update pass's demands, shares and starvation); the index drains its reader before each
walk. A node change re-keys the ``drf`` lists only; a new queue tree rebuilds the index.
Tests run the indexed walk and YARN's walk that sorts every level (``tests/oracles/walk.py``)
side by side and compare their event streams.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator

from fairshare.config.model import PolicyName
from fairshare.core.heartbeat.offers import (
    Activity,
    AmChecks,
    Offer,
    Ordered,
    add_counts,
    add_many,
    am_blocked,
    comparator_order_apps,
    comparator_order_children,
    may_act,
    min_capacity,
    offer_of,
)
from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.changes import ChangeLog
from fairshare.core.model.records import App
from fairshare.core.model.tree import parent_of
from fairshare.core.rules.policies import SortKey, sort_key_for
from fairshare.resources.vector import (
    Resource,
)


class OrderIndex:
    """Sorted children and apps for the tree walk, with per-queue activity summaries."""

    def __init__(self, log: ChangeLog) -> None:
        self._log = log  # its version moves with every record: the gauges' sweeps compare it
        self._changes = log.reader()
        self._stale = True
        self._children: dict[str, Ordered] = {}  # parent → its children
        self._apps: dict[str, Ordered] = {}  # leaf → its offered apps (runnable, pending)
        # leaf → its offered apps whose visit runs no AM check, and a summary of the others:
        # thousands of apps may wait for their AM behind a leaf's maxAMShare
        self._without_am_check: dict[str, Ordered] = {}
        self._am_checks: dict[str, AmChecks] = {}
        # the MaxAMShare gauges a sweep of the whole tree writes are a function of what the
        # change log records (its version) and of root's available space
        self._gauges_swept: tuple[int, Resource] | None = None
        self._offers: dict[str, Offer] = {}  # app id → its current offer
        self._activity: dict[str, Activity] = {}
        # bumped whenever the sizes the root may act on change (a size or a reservable size
        # appears or disappears): readers that cache "could anything use a node with this much
        # free space" use it to know when to ask again
        self.root_version = 0
        self._min_capacity: Resource | None = None  # componentwise, over the nodes
        self._unbounded: Resource | None = None  # the scheduler's: no max share in the way

    # -- reading, for the walk -----------------------------------------------------------------

    def children(self, s: Scheduler, parent: str) -> Iterator[str]:
        ordered = self._children[parent]
        if ordered.unkeyed:
            return iter(comparator_order_children(s, parent))
        return ordered.names()

    def apps(self, s: Scheduler, leaf: str) -> Iterator[App]:
        ordered = self._apps[leaf]
        if ordered.unkeyed:
            return iter(comparator_order_apps(s, leaf))
        apps = s.state.apps
        return (apps[name] for name in ordered.names())

    def may_act(self, queue: str, free: Resource, room: Resource) -> bool:
        """Could some app below ``queue`` allocate or reserve on a node with ``free``
        unallocated, ``room`` being the max-share headroom down to ``queue``?"""
        a = self._activity[queue]
        if room is self._unbounded:
            return a.may_act_unbounded(free)
        return may_act(a.sizes, a.reservable, free, room)

    def am_sizes(self, leaf: str) -> Collection[Resource]:
        """The AM sizes of the leaf's offered apps whose visit runs the AM check."""
        return self._am_checks[leaf].am_sizes.keys()

    def apps_without_am_check(self, s: Scheduler, leaf: str
                              ) -> tuple[SortKey | None, Iterator[tuple[SortKey, App]]] | None:
        """The leaf's offered apps whose visit runs no AM check, in walk order, with the key
        of the first app whose visit does (None if none does): the walk visits the others
        after that key. None when the leaf's order needs the comparator."""
        ordered = self._apps[leaf]
        if ordered.unkeyed:
            return None
        offers = self._offers
        first = next((key for key in ordered.entries if offers[key[-1]].am_check), None)
        apps = s.state.apps
        return first, ((key, apps[key[-1]]) for key in self._without_am_check[leaf].entries)

    def runs_am_checks(self, queue: str) -> bool:
        """Would a visit below ``queue`` run an AM check (and so record the gauge)?"""
        return self._activity[queue].am_checks > 0

    def checking_children(self, parent: str) -> Iterable[str]:
        """The children of ``parent`` for which :meth:`runs_am_checks` holds, in no
        particular order."""
        return self._activity[parent].checking.keys()

    def gauges_current(self, root_available: Resource) -> bool:
        """Would a sweep of every leaf's AM checks write the gauges as the last one did —
        nothing reported since, and root's available space the same?"""
        return self._gauges_swept == (self._log.version, root_available)

    def gauges_written(self, root_available: Resource) -> None:
        self._gauges_swept = (self._log.version, root_available)

    def offer(self, app: App) -> Offer | None:
        return self._offers.get(app.id)

    # -- keeping it current --------------------------------------------------------------------

    def refresh(self, s: Scheduler) -> None:
        """Bring every entry the change log names up to date (called before each walk). The
        reader's records are the entries to redo; a new tree rebuilds everything."""
        changes = self._changes
        if not (changes.apps or changes.queues or changes.am_limits or changes.tree
                or changes.cluster or self._stale):
            return  # most walks: nothing changed since the last one
        if changes.tree:
            self._stale = True
        elif changes.cluster and not self._stale:
            self._cluster_changed(s)  # adds the entries it affects to the reader's records
        if self._stale:
            changes.clear()
            self._rebuild(s)
            return
        am_limits = changes.am_limits  # leaves whose AM limit or AM usage may have changed
        for app in changes.apps.values():
            leaf = self._refresh_app(s, app)
            if leaf is not None:
                am_limits[leaf] = None
            if app.queue in self._am_checks:
                am_limits[app.queue] = None
        for leaf in am_limits:
            self._block_ams(s, leaf)
        for name in changes.queues:
            parent = parent_of(name)
            if parent is not None:
                ordered = self._children[parent]
                ordered.put(name, ordered.key(s.queue_view(name), s.state.capacity))
        changes.clear()

    def _rebuild(self, s: Scheduler) -> None:
        self._children, self._apps, self._offers = {}, {}, {}
        self._without_am_check, self._am_checks = {}, {}
        self._min_capacity = min_capacity(s)
        self._unbounded = s.unbounded
        self._activity = {node.name: Activity() for node in s.tree}
        for node in s.tree:
            key = sort_key_for(node.settings.policy, len(s.types))
            if node.is_leaf:
                self._apps[node.name] = Ordered(key)
                self._without_am_check[node.name] = Ordered(key)
                self._am_checks[node.name] = AmChecks()
            else:
                ordered = self._children[node.name] = Ordered(key)
                for child in node.children:
                    ordered.put(child, key(s.queue_view(child), s.state.capacity))
        for app in s.state.apps.values():
            self._refresh_app(s, app)
        for leaf in self._am_checks:
            self._block_ams(s, leaf)
        self._stale = False
        self.root_version += 1

    def _refresh_app(self, s: Scheduler, app: App) -> str | None:
        """Re-key and re-summarise ``app``; a leaf's list holds exactly its offered apps.
        Returns the leaf of its previous offer when the offer changed."""
        old = self._offers.get(app.id)
        new = offer_of(s, app, self._min_capacity)
        if old is not None and (new is None or new.leaf != old.leaf):
            self._apps[old.leaf].drop(app.id)
            self._without_am_check[old.leaf].drop(app.id)
        if new is not None:
            ordered = self._apps[new.leaf]
            key = ordered.key(s.app_view(app), s.state.capacity)
            ordered.put(app.id, key)
            if new.am_check:
                self._without_am_check[new.leaf].drop(app.id)
            else:
                self._without_am_check[new.leaf].put(app.id, key)
        if old == new:
            return None
        if old is not None:
            self._count(s, old, -1)
            del self._offers[app.id]
        if new is not None:
            self._count(s, new, 1)
            self._offers[app.id] = new
        return old.leaf if old is not None else None

    def _cluster_changed(self, s: Scheduler) -> None:
        """Only drf keys and starvation (dominant shares) and the reservable-nodes limit read
        the cluster; fair and fifo orders stay as they are."""
        if min_capacity(s) != self._min_capacity:
            self._stale = True  # every offer's sizes may change
            return
        changes = self._changes
        for leaf in self._am_checks:  # the largest AM limits follow the cluster's size
            changes.am_limits[leaf] = None
        for node in s.tree:
            if s.settings(node.name).policy is PolicyName.DRF:
                if node.is_leaf:
                    for app in s.state.queues[node.name].runnable_apps:
                        changes.apps[app.id] = app
                else:
                    for child in node.children:
                        changes.queues[child] = None
        for app in s.state.apps.values():
            if app.reservations:
                changes.apps[app.id] = app

    def _count(self, s: Scheduler, offer: Offer, delta: int) -> None:
        sizes, reservable = offer.sizes, offer.reservable
        if offer.am_size is not None:
            waiting = self._am_checks[offer.leaf]
            add_counts(waiting.am_sizes, (offer.am_size,), delta)
            add_counts(waiting.sizes, sizes, delta)
            add_counts(waiting.reservable, reservable, delta)
            if waiting.blocked:
                sizes, reservable = (), ()  # counted when the leaf's AM limit opens
        changed = False
        child = None
        for name in s.ancestry(offer.leaf):
            a = self._activity[name]
            changed = add_counts(a.sizes, sizes, delta)
            changed |= add_counts(a.reservable, reservable, delta)
            if changed:
                a.answers.clear()
            if child is not None:
                if self._activity[child].am_checks > 0:
                    a.checking[child] = None
                else:
                    a.checking.pop(child, None)
            if offer.am_check:
                a.am_checks += delta
                child = name
        if changed:  # the last name is the root
            self.root_version += 1

    def _block_ams(self, s: Scheduler, leaf: str) -> None:
        """Count the leaf's AM-check offers in its ancestors' activity, or stop counting them,
        as its AM limit (with the whole cluster free) lets an AM in or not."""
        waiting = self._am_checks[leaf]
        blocked = am_blocked(s, leaf, waiting.am_sizes.keys())
        if blocked == waiting.blocked:
            return
        waiting.blocked = blocked
        delta = -1 if blocked else 1
        changed = False
        for name in s.ancestry(leaf):
            a = self._activity[name]
            changed = add_many(a.sizes, waiting.sizes, delta)
            changed |= add_many(a.reservable, waiting.reservable, delta)
            if changed:
                a.answers.clear()
        if changed:  # the last name is the root
            self.root_version += 1



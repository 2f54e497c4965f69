"""Demand in the incremental update pass (docs/semantics.md §2.2): the touched apps, their leaves,
and the parents above a leaf whose demand changed — nothing else can have a new demand.

An app's demand is its usage plus its outstanding ANY asks; only a touched app's can change
(the change log records every change of usage or asks). A leaf's sum is redone when
one of its apps' demand changed, an app joined or left its lists (compared by identity), or its
max share changed. A parent keeps the exact sums of its children's memory and vcores, updated
as a child's demand changes; the saturating sum of the reference is that sum capped at
LONG_MAX whenever no child has a negative component (else it is redone one by one).
"""

from __future__ import annotations

from operator import itemgetter

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.lifecycle.asks import pending_demand
from fairshare.core.model.changes import PassChanges
from fairshare.core.model.records import App, QueueRuntime
from fairshare.core.model.tree import ROOT
from fairshare.resources.vector import LONG_MAX, Resource, add, componentwise_min


class DemandCache:
    """What each queue's demand was last computed from: a leaf's apps (both lists, by
    identity) and the sums of their demands, a parent's sums of its children's."""

    def __init__(self) -> None:
        self._members: dict[str, tuple[tuple[App, ...], tuple[App, ...]]] = {}
        self._children: dict[str, list[QueueRuntime]] = {}  # parent → its children's records
        # parent → [Σ memory, Σ vcores, children with a negative one] over its children's
        # demands, exact; kept as children's demands change
        self._sums: dict[str, list[int]] = {}
        self._max_shares: dict[str, Resource] = {}  # what each queue's demand was capped at
        # leaf → its apps' demands summed per component, exact, then how many have a negative
        # component; kept as their demands change while the lists stay the same
        self._leaf_sums: dict[str, list[int]] = {}
        self._summed: dict[str, Resource] = {}  # app → the demand its leaf's sum holds for it

    def update(self, s: Scheduler, changes: PassChanges) -> None:
        """§2.2 for the touched apps and the queues above them, and for the queues whose max
        share changed (all of them on the first pass). ``changes.demand_leaves`` receives every
        leaf looked at: its apps' demand, usage or lists may have changed."""
        tree = s.tree
        if changes.everything or changes.tree_changed:
            self._members = {q: m for q, m in self._members.items() if q in tree}
            self._leaf_sums = {q: m for q, m in self._leaf_sums.items() if q in tree}
            self._children = {n.name: [s.state.queues[c] for c in n.children]
                              for n in tree if not n.is_leaf}
            self._sums = {name: _column_sums([c.demand for c in children])
                          for name, children in self._children.items()}
        capped: set[str] = set()  # a percentage of the cluster, or new settings
        if changes.cluster_changed or changes.tree_changed:
            max_shares = {n.name: s.max_share(n.name) for n in tree}
            capped = {q for q, m in max_shares.items() if self._max_shares.get(q) != m}
            self._max_shares = max_shares
        forced = tree.queues.keys() if changes.everything else changes.queues
        leaves = {**dict.fromkeys(changes.by_leaf),
                  **{q: None for q in (*forced, *capped) if tree[q].is_leaf}}
        parents = {q: None for q in (*forced, *capped) if not tree[q].is_leaf}
        for leaf in leaves:
            changes.demand_leaves[leaf] = None
            if self._leaf(s, leaf, changes.by_leaf.get(leaf, {}), leaf in forced,
                          leaf in capped):
                parents[tree[leaf].parent or ROOT] = None
        self._parents(s, parents)
        self._summed = s.state.pruned(self._summed)  # apps the engine forgot go

    def _leaf(self, s: Scheduler, leaf: str, touched: dict[str, App], forced: bool,
              capped: bool) -> bool:
        """The touched apps' demand (every app's if ``forced``), then the leaf's sum unless
        neither its apps, nor their demands, nor its max share changed; True if the leaf's
        demand changed."""
        runtime = s.state.queues[leaf]
        members = (tuple(runtime.runnable_apps), tuple(runtime.non_runnable_apps))
        ids = set() if forced else {a.id for group in members for a in group}  # one scan
        changed: list[tuple[Resource, Resource]] = []
        summed = self._summed
        for app in (*members[0], *members[1]) if forced else touched.values():
            if forced or app.id in ids:
                demand = add(app.usage, pending_demand(app))
                if demand != app.demand:
                    s.write.set_app_demand(app, demand)
                # what the leaf's sum holds for the app: its demand, unless a new attempt
                # reset it since (apps.restart_attempt)
                old = summed.get(app.id, demand)
                if demand != old:
                    changed.append((old, demand))
                summed[app.id] = demand
        sums = self._leaf_sums.get(leaf)
        if not forced and sums is not None and self._members.get(leaf) == members:
            if not changed and not capped:
                return False
            for old, new in changed:
                _shift(sums, old, new)
        else:
            self._members[leaf] = members
            for app in (*members[0], *members[1]):
                summed[app.id] = app.demand
            sums = self._leaf_sums[leaf] = _sums([a.demand for a in (*members[0], *members[1])],
                                                 len(s.none))
        if sums[-1]:  # a negative component: the running sum may clamp on the way
            total = sum_in_order([a.demand for a in (*members[0], *members[1])], s.none)
        else:
            total = Resource(tuple(min(v, LONG_MAX) for v in sums[:-1]))
        return self._set(s, leaf, componentwise_min(total, s.max_share(leaf)))

    def _set(self, s: Scheduler, name: str, demand: Resource) -> bool:
        """Write a queue's new demand, and account for it in its parent's sums."""
        runtime = s.state.queues[name]
        old = runtime.demand
        if demand == old:
            return False
        s.write.set_queue_demand(name, demand)
        parent = s.tree[name].parent
        if parent is not None:
            sums, (m0, v0), (m1, v1) = self._sums[parent], old.values[:2], demand.values[:2]
            sums[0] += m1 - m0
            sums[1] += v1 - v0
            sums[2] += (m1 < 0 or v1 < 0) - (m0 < 0 or v0 < 0)
        return True

    def _parents(self, s: Scheduler, parents: dict[str, None]) -> None:
        """Parents deepest first, each summing its children; a change moves up to its parent."""
        by_depth: dict[int, dict[str, None]] = {}
        for name in parents:
            by_depth.setdefault(name.count("."), {})[name] = None
        for depth in range(max(by_depth, default=-1), -1, -1):
            for name in by_depth.get(depth, {}):
                if self._parent(s, name) and depth > 0:
                    by_depth.setdefault(depth - 1, {})[s.tree[name].parent or ROOT] = None

    def _parent(self, s: Scheduler, name: str) -> bool:
        memory, vcores, negative = self._sums[name]
        if negative:  # the running sum may have been clamped on the way: add one by one
            total = sum_in_order([c.demand for c in self._children[name]], s.none)
            memory, vcores = total.memory, total.vcores
        # FSParentQueue.getDemand returns memory and vcores only (§2.2)
        total = Resource((min(memory, LONG_MAX), min(vcores, LONG_MAX),
                          *([0] * (len(s.none) - 2))))
        return self._set(s, name, componentwise_min(total, s.max_share(name)))


def _sums(vectors: list[Resource], n: int) -> list[int]:
    """Per component the exact sum of ``vectors``, then how many have a negative component."""
    sums = [0] * (n + 1)
    for vector in vectors:
        _shift(sums, None, vector)
    return sums


def _shift(sums: list[int], old: Resource | None, new: Resource) -> None:
    """``sums`` with ``old`` replaced by ``new`` (``old`` None: added)."""
    for i, v in enumerate(new.values):
        sums[i] += v
    sums[-1] += min(new.values) < 0
    if old is not None:
        for i, v in enumerate(old.values):
            sums[i] -= v
        sums[-1] -= min(old.values) < 0


def _column_sums(demands: list[Resource]) -> list[int]:
    """[Σ memory, Σ vcores, how many have a negative one]: what ``_parent`` reads."""
    return [sum(d.values[0] for d in demands), sum(d.values[1] for d in demands),
            sum(d.values[0] < 0 or d.values[1] < 0 for d in demands)]


def sum_in_order(vectors: list[Resource], none: Resource) -> Resource:
    """What ``add``-ing ``vectors`` one by one to ``none`` gives, computed at once.

    Each ``add`` saturates at the long range; with no negative component the running sum
    only grows, so the result is the exact sum capped at LONG_MAX. Otherwise: one by one.
    """
    if not vectors:
        return none
    rows = [v.values for v in vectors]
    if len(none.values) == 2:
        memory = vcores = 0
        for m, v in rows:
            memory += m
            vcores += v
        if min(rows)[0] >= 0 and min(map(itemgetter(1), rows)) >= 0:
            return Resource((min(memory, LONG_MAX), min(vcores, LONG_MAX)))
    else:
        columns = list(zip(*rows, strict=True))
        if len(columns) == len(none.values) and min(map(min, columns)) >= 0:
            return Resource(tuple(min(sum(column), LONG_MAX) for column in columns))
    total = none
    for vector in vectors:
        total = add(total, vector)
    return total



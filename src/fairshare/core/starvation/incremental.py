"""Starvation in the incremental update pass (docs/semantics.md §4.1–§4.4, §4.7): the writes and
events of ``FSLeafQueue.updateStarvedApps`` for every leaf, in creation order, with the full pass
(:func:`fairshare.core.starvation.leaf.leaf_pass`) run only where its outcome may differ from
the last one (``tests/oracles/update.py`` runs it for every leaf, every pass).

A leaf's pass reads its settings, the cluster, the clock, its demand and usage, and per
runnable app the demand, usage, fair share, starvation fields, timestamps and back-off. Only
the clock moves on its own, and it acts in three known ways: an app's back-off ends
(``nextStarvationCheck``), an app below its threshold reaches its fair-share timeout, a leaf
below its min share reaches its min-share timeout.

A pass that offered nobody to the starved-apps queue leaves the leaf *steady*: until something
it reads changes or the next of those three clock events comes (``valid_until``), each later
pass would only write the clock into the leaf's ``lastTimeAtMinShare`` (when it is not below
its min share) and into ``lastTimeAtFairShare`` of the app its fair-share pass stops at (when
that app is not below its threshold) — every other write rewrites the value already there. So
a steady leaf costs those two writes. Also steady stays a leaf whose only change is to touched
apps that sit, before and after, behind the app its pass stops at.

What changes a leaf's inputs outside the pass: the apps the change log recorded ("touched":
:class:`~fairshare.core.model.changes.PassChanges`), fair shares moved by the pass, a new tree
or cluster size, and the preemption round, which sets the back-off of the apps it takes — all of
them in the starved-apps queue when the last pass ended. After a long time with the gate
closed, the cache forgets what it was told and starts afresh.
"""

from __future__ import annotations

import heapq
from typing import Any

from fairshare.config.model import PolicyName
from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.changes import PassChanges
from fairshare.core.model.records import App, QueueRuntime, StarvationWrites
from fairshare.core.starvation.index import PendingApps, StarvedQueue
from fairshare.core.starvation.leaf import (
    FOREVER,
    LeafRecord,
    Outcome,
    Steady,
    leaf_pass,
    shortfall_of,
)
from fairshare.resources.vector import is_none


class StarvationCache:
    """Per leaf: the ordered apps, their deficits, and whether the leaf is steady."""

    def __init__(self) -> None:
        self._leaves: dict[str, LeafRecord] = {}
        self._everything = True
        # leaf → apps touched in it (or now in it) since the last pass with the gate open
        self._touched: dict[str, dict[str, App]] = {}
        self._noted = 0  # touches noted since then
        self._reorder: dict[str, None] = {}  # leaves where some touched app is, or was
        self._redo: dict[str, None] = {}  # the outcome may have changed
        self._busy: dict[str, None] = {}  # not steady: every pass runs them in full
        self._steady_leaves: dict[str, QueueRuntime] = {}  # lastTimeAtMinShare := now
        self._steady_apps: dict[str, App] = {}  # lastTimeAtFairShare := now (leaf → app)
        self._expiry: list[tuple[float, int, str]] = []  # (valid_until, index, leaf)
        self._queued: tuple[str, ...] = ()  # the starved-apps queue when the last pass ended
        self._taken: dict[str, list[App]] = {}  # leaf → its apps in it (back-off maybe set)
        self._tree: object = None
        self._index: dict[str, int] = {}  # leaf → creation order

    def note(self, s: Scheduler, changes: PassChanges) -> None:
        """What this pass changed; kept until a pass with the gate open uses it."""
        if changes.everything:
            self._everything = True
        if changes.cluster_changed:  # drf orders and deficits read the cluster size
            for leaf in s.tree.leaves():
                if leaf.settings.policy is PolicyName.DRF:
                    self._leaves.pop(leaf.name, None)
                    self._redo[leaf.name] = None
        if changes.tree_changed:  # a leaf gone may be in any table, passed or not yet
            for table in self._by_leaf():
                for name in [q for q in table if q not in s.tree]:
                    del table[name]
            self._redo.update({q: None for q in changes.queues if s.tree[q].is_leaf})
        for name, apps in changes.by_leaf.items():
            self._touched.setdefault(name, {}).update(apps)
        self._reorder.update(changes.demand_leaves)
        self._redo.update(changes.share_leaves)
        self._noted += len(changes.apps)
        if self._noted > 4 * len(s.tree.queues) + 1000:
            # a long time with the gate closed: start afresh rather than remember it all
            self._everything = True
            self._touched, self._reorder, self._redo, self._noted = {}, {}, {}, 0

    def _by_leaf(self) -> tuple[dict[str, Any], ...]:
        """Every table keyed by leaf name."""
        return (self._leaves, self._steady_leaves, self._steady_apps, self._busy,
                self._reorder, self._redo, self._touched)

    # -- one pass ----------------------------------------------------------------------------------

    def update(self, s: Scheduler) -> tuple[StarvationWrites, list[str]]:
        """Every leaf's §4.3 pass, in creation order, with the gate open: what to write, and
        the apps new in the starved-apps queue, in the order they are reported. A query: the
        caller applies the writes, then reports."""
        now = s.now
        writes, reported = StarvationWrites(), []
        if s.tree is not self._tree:
            self._tree = s.tree
            self._index = {leaf.name: i for i, leaf in enumerate(s.tree.leaves())}
        todo, touched_only = self._due(s)
        for name in todo:
            self._steady_leaves.pop(name, None)
            self._steady_apps.pop(name, None)
        queue = StarvedQueue(s.state.starved, s.state.apps, writes)
        for leaf in sorted((self._record(s, q) for q in todo), key=lambda r: r.index):
            steady = leaf.steady if leaf.name in touched_only else None
            leaf.steady = None
            if leaf.name in self._reorder or not leaf.pending.built:
                if steady is not None and self._still_steady(s, leaf, steady):
                    self._keep(leaf, steady)
                    continue
                self._reorder_leaf(s, leaf)
            leaf.pending.sync(now, self._taken.get(leaf.name, ()))
            reported.extend(self._pass(s, leaf, queue, writes))
        self._touched, self._reorder, self._redo, self._noted = {}, {}, {}, 0
        starved = queue.value()
        if queue.changed:
            writes.starved = starved
        # what every steady leaf's pass writes (a leaf settled in this pass wrote the same)
        writes.clock = now
        writes.stamp_min_share = list(self._steady_leaves.values())
        writes.stamp_fair_share = list(self._steady_apps.values())
        self._queued = starved.heap + (
            (starved.being_processed,) if starved.being_processed is not None else ())
        return writes, reported

    def _due(self, s: Scheduler) -> tuple[dict[str, None], set[str]]:
        """The leaves whose pass must run in full now, and those of them that are due only
        because some of their apps were touched."""
        tree = s.tree
        if self._everything:
            self._everything = False
            self._leaves.clear()
            self._steady_leaves.clear()
            self._steady_apps.clear()
            self._busy.clear()
            self._expiry = []
            self._redo = {leaf.name: None for leaf in tree.leaves()}
        due = {**self._redo, **self._busy}
        self._taken = {}
        for app_id in self._queued:  # the preemption round may have set their back-off
            app = s.state.apps.get(app_id)
            if app is not None and app.queue in tree and tree[app.queue].is_leaf:
                due[app.queue] = None
                self._taken.setdefault(app.queue, []).append(app)
        while self._expiry and self._expiry[0][0] <= s.now:
            until, _, name = heapq.heappop(self._expiry)
            leaf = self._leaves.get(name)
            if leaf is not None and leaf.valid_until == until:
                due[name] = None
        touched_only = {q for q in self._reorder if q not in due}
        return {**due, **self._reorder}, touched_only

    def _record(self, s: Scheduler, name: str) -> LeafRecord:
        """The leaf's record; a new one if the leaf, its settings or its runtime record are."""
        settings, runtime = s.tree[name].settings, s.state.queues[name]
        leaf = self._leaves.get(name)
        if leaf is None or leaf.settings is not settings or leaf.runtime is not runtime:
            leaf = LeafRecord(name, 0, settings, runtime, PendingApps(settings))
            self._leaves[name] = leaf
        leaf.index = self._index[name]
        return leaf

    def _reorder_leaf(self, s: Scheduler, leaf: LeafRecord) -> None:
        """Bring the leaf's pending apps up to date; a new member brings its min-share field."""
        runnable, pending = leaf.runtime.runnable_apps, leaf.pending
        touched = self._touched.get(leaf.name, {})
        if not pending.built:
            pending.rebuild(s, runnable)
            leaf.minshare = {k: a for k, a in pending.apps.items()
                             if not is_none(a.minshare_starvation)}
            return
        pending.refresh(s, runnable, touched)
        members = pending.apps
        for app_id in touched:  # only touched apps joined or left, or had theirs reset
            leaf.minshare.pop(app_id, None)
            app = members.get(app_id)
            if app is not None and not is_none(app.minshare_starvation):
                leaf.minshare[app_id] = app
        if len(leaf.deficits) > 2 * len(members) + 8:  # forget apps gone (memory only)
            leaf.deficits = {k: v for k, v in leaf.deficits.items() if k in members}

    def _still_steady(self, s: Scheduler, leaf: LeafRecord, steady: Steady) -> bool:
        """Bring the steady leaf's order up to date; True if its pass is still what it was.

        It is when every touched app is, before and after, either without pending demand or
        behind the app the fair-share pass stops at (which it does not reach), holds no
        min-share starvation (which the pass would clear), and the leaf is still not below
        its min share: the pass then reads nothing that changed.
        """
        if steady.runtime is None or not leaf.pending.keyed:
            return False
        touched = self._touched.get(leaf.name, {})
        before = [leaf.pending.key_of(app_id) for app_id in touched]
        self._reorder_leaf(s, leaf)
        if not leaf.pending.keyed:  # a touched app joined without a key (a NaN in it): its
            return False  # place in the order, and so the pass, is not known from keys
        after = [leaf.pending.key_of(app_id) for app_id in touched]
        first = steady.first
        for key in (*before, *after):
            if key is not None and (first is None or key <= first):
                return False
        if any(app_id in leaf.minshare for app_id in touched):
            return False
        return is_none(shortfall_of(leaf))

    def _keep(self, leaf: LeafRecord, steady: Steady) -> None:
        """The steady leaf's pass, as it was: the clock into the same two fields (written
        with every steady leaf's)."""
        leaf.steady = steady
        self._busy.pop(leaf.name, None)
        self._register(leaf.name, steady)

    def _register(self, name: str, steady: Steady) -> None:
        """Note the steady leaf's two writes, which every pass repeats until it is touched."""
        if steady.runtime is not None:
            self._steady_leaves[name] = steady.runtime
        if steady.app is not None:
            self._steady_apps[name] = steady.app

    def _pass(self, s: Scheduler, leaf: LeafRecord, queue: StarvedQueue,
              writes: StarvationWrites) -> list[str]:
        """The leaf's full pass; the apps it added to the starved-apps queue."""
        out = leaf_pass(s, leaf, queue, writes)
        if out.enqueued or out.unkeyed:
            self._busy[leaf.name] = None
        else:
            self._busy.pop(leaf.name, None)
            self._settle(leaf, out, writes)
        return out.added

    def _settle(self, leaf: LeafRecord, out: Outcome, writes: StarvationWrites) -> None:
        """Nobody was enqueued: the leaf is steady. Note what its passes will write and until
        when the clock leaves everything else alone: the next end of a back-off among the
        apps passed over, the timeout of the app it stopped at if that one is below its
        threshold, the min-share timeout if the leaf is below its min share."""
        shortfall, starvation = out.shortfall, out.starvation
        assert shortfall is not None and starvation is not None
        until = min(out.skipped, leaf.pending.next_release())
        if out.first is not None and out.first_below:
            until = min(until, writes.last_time_at_fair_share(out.first)
                        + leaf.settings.fair_share_preemption_timeout_ms)
        if not is_none(shortfall) and is_none(starvation):
            until = min(until, out.last_ms + leaf.settings.min_share_preemption_timeout_ms)
        leaf.valid_until = until
        if until != FOREVER:
            heapq.heappush(self._expiry, (until, leaf.index, leaf.name))
        first = out.first
        leaf.steady = Steady(
            runtime=leaf.runtime if is_none(shortfall) else None,
            app=first if first is not None and not out.first_below else None,
            first=None if first is None else leaf.pending.key_of(first.id))
        self._register(leaf.name, leaf.steady)

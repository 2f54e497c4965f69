"""Instantaneous fair shares in the incremental update pass (docs/semantics.md §2.4–§2.7).

A parent's cut depends only on its share, its children, their settings and which of them are
active, and on what the children held before in the components its policy does not write
(:func:`fairshare.core.shares.fair_shares.cut`) — which is what this same cut wrote last time. So
a cut whose inputs equal the last pass's gives the same shares and is skipped; likewise a leaf's
split among its runnable apps (their ids, start times and weights). A cut or split that must be
redone is computed as :func:`~fairshare.core.shares.fair_shares.compute_instantaneous_fair_shares`
would.

An app's unwritten components are read from the app itself: YARN keeps them in the
``FSAppAttempt``'s own vector, which a new attempt starts at zero (so a restart re-splits).
"""

from __future__ import annotations

from collections.abc import Iterable

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.changes import PassChanges
from fairshare.core.model.tree import ROOT, QueueTree
from fairshare.core.shares.fair_shares import (
    AppShareInput,
    cut,
    queue_inputs,
    share_types,
    split_among_apps,
)
from fairshare.resources.vector import Resource

# A parent's cut: its node (settings, children), its share, its children's settings and activity.
CutKey = tuple[object, ...]
# A leaf's split: its settings, its share, its runnable apps, their attempts, start times and
# weights.
SplitKey = tuple[object, ...]


class ShareCache:
    """The last pass's shares and the inputs each cut was computed from.

    ``queues`` is exactly the reference's ``previous`` (the last pass's result for every queue
    of the tree), so a cut that is redone reads the same unwritten components as the
    reference pass (``tests/oracles/update.py``) would.
    """

    def __init__(self) -> None:
        self.queues: dict[str, Resource] = {}
        self.active: set[str] = set()
        self._cuts: dict[str, CutKey] = {}
        self._splits: dict[str, SplitKey] = {}

    def update(self, s: Scheduler, changes: PassChanges) -> None:
        tree, every = s.tree, changes.everything
        if changes.tree_changed:
            self._forget_gone_queues(tree)
        moved = self._active(s, changes)
        self.queues[ROOT] = s.state.capacity  # root always gets the whole cluster
        # a new cluster size changes root's share and the max shares given as percentages
        redo = every or changes.cluster_changed
        cuts = redo or moved or changes.tree_changed
        totals = self._cut_queues(s, redo) if cuts else {}
        leaves = {**changes.demand_leaves, **{q: None for q in totals if tree[q].is_leaf}}
        if every:
            leaves = {n.name: None for n in tree.leaves()}
        self._split_leaves(s, leaves, every, changes)
        if every or changes.tree_changed:
            written = list(tree.queues)
        else:
            written = [*totals, *([ROOT] if changes.cluster_changed else [])]
        for name in written:
            runtime = s.state.queues[name]
            if runtime.fair_share != self.queues[name]:
                s.write.set_queue_fair_share(name, self.queues[name], tree[name].is_leaf)

    def _forget_gone_queues(self, tree: QueueTree) -> None:
        """Forget the queues gone from the tree."""
        for table in (self.queues, self._cuts, self._splits):
            for name in [q for q in table if q not in tree]:
                del table[name]

    def _active(self, s: Scheduler, changes: PassChanges) -> bool:
        """Bring the active set (§2.4) up to date; True if it changed."""
        queues = s.state.queues
        if not (changes.everything or changes.tree_changed) and all(
                bool(queues[leaf].runnable_apps) == (leaf in self.active)
                for leaf in changes.demand_leaves):
            return False
        active: set[str] = set()
        for leaf in s.tree.leaves():
            if queues[leaf.name].runnable_apps:
                name: str | None = leaf.name
                while name is not None and name not in active:
                    active.add(name)
                    name = s.tree[name].parent
        moved = active != self.active
        self.active = active
        return moved

    def _cut_queues(self, s: Scheduler, every: bool) -> dict[str, None]:
        """Every parent's cut whose inputs changed, top down; the queues whose share moved."""
        tree, capacity, none = s.tree, s.state.capacity, s.none
        moved: dict[str, None] = {}
        for node in tree.depth_first():
            if node.is_leaf:
                continue
            total = self.queues[node.name]
            children = node.children
            key: CutKey = (node, total, tuple(tree[c].settings for c in children),
                           tuple(c in self.active for c in children))
            if not every and self._cuts.get(node.name) == key:
                continue
            self._cuts[node.name] = key
            new = cut(total, [self.queues.get(c, none) for c in children],
                      queue_inputs(tree, list(children), capacity, self.active),
                      share_types(node.settings.policy, len(capacity.values)), False)
            for child, share in zip(children, new, strict=True):
                if self.queues.get(child) != share:
                    self.queues[child] = share
                    moved[child] = None
        return moved

    def _split_leaves(self, s: Scheduler, leaves: Iterable[str], every: bool,
                      changes: PassChanges) -> None:
        """Each leaf's split among its runnable apps, where its inputs changed (§2.7)."""
        size_based = s.site.size_based_weight
        for leaf in leaves:
            node, apps = s.tree[leaf], tuple(s.state.queues[leaf].runnable_apps)
            total = self.queues[leaf]
            # the apps (ids), attempts, start times and weights (1.0 unless size-based, §2.7)
            weights = tuple(s.app_weight(a) for a in apps) if size_based else None
            key: SplitKey = (node.settings, total, apps, tuple(a.attempt for a in apps),
                             tuple(a.start_time for a in apps), weights)
            if not every and self._splits.get(leaf) == key:
                continue
            self._splits[leaf] = key
            inputs = [AppShareInput(a.id, a.start_time, w) for a, w in
                      zip(apps, weights if weights is not None else map(s.app_weight, apps),
                          strict=True)]
            new = split_among_apps(total, inputs, node.settings.policy,
                                   [a.fair_share for a in apps])
            for app, share in zip(apps, new, strict=True):
                if share != app.fair_share:
                    s.write.set_app_fair_share(app, share)
                    changes.share_leaves[leaf] = None

"""Array form of a queue tree and its runnable apps, for the batched fair-share computation.

Built once from a :class:`~fairshare.core.tree.QueueTree` and the runnable apps of each leaf;
:meth:`ShareModel.compute` then recomputes every instantaneous share in one batch per tree
level (:func:`fairshare.core.fast_shares.solve_batch`) and returns :class:`ShareArrays`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from fairshare.config.model import PolicyName
from fairshare.core.fairshare import AppShareInput, FairShares, share_types
from fairshare.core.fast_shares import F64, I64, B, ShareBatch, java_long_array, solve_batch
from fairshare.core.tree import QueueTree
from fairshare.resources.vector import LONG_MAX, Resource


@dataclass(frozen=True, slots=True)
class ShareArrays:
    """Shares as arrays: row i of ``queues`` belongs to ``queue_names[i]`` (columns = types)."""

    queue_names: tuple[str, ...]
    queues: I64
    app_ids: tuple[str, ...]
    apps: I64

    def to_fair_shares(self) -> FairShares:
        """Convert to per-queue and per-app objects (a convenience: ~0.3 s at 100,000 apps)."""
        return FairShares(
            {n: Resource(tuple(int(v) for v in row)) for n, row in zip(
                self.queue_names, self.queues.tolist(), strict=True)},
            {a: Resource(tuple(int(v) for v in row)) for a, row in zip(
                self.app_ids, self.apps.tolist(), strict=True)},
        )


@dataclass(frozen=True, slots=True)
class _Level:
    """The problems of one tree level: (group, type) pairs and their elements."""

    problem_owner: I64  # the queue whose share is cut
    problem_type: I64
    elem_problem: I64
    elem_child: I64  # queue index (queue levels) or app index (app level)
    elem_type: I64


def _level(groups: Sequence[tuple[int, PolicyName, Sequence[int]]], n_types: int) -> _Level:
    owner: list[int] = []
    ptype: list[int] = []
    eprob: list[int] = []
    echild: list[int] = []
    etype: list[int] = []
    for t in range(n_types):
        for queue, policy, children in groups:
            if policy is PolicyName.FIFO or t not in share_types(policy, n_types):
                continue  # the types the policy writes (spec §2.6); fifo is handled separately
            p = len(owner)
            owner.append(queue)
            ptype.append(t)
            eprob.extend([p] * len(children))
            echild.extend(children)
            etype.extend([t] * len(children))

    def arr(x: list[int]) -> I64:
        return np.asarray(x, dtype=np.int64)

    return _Level(arr(owner), arr(ptype), arr(eprob), arr(echild), arr(etype))


class ShareModel:
    """A queue tree and its runnable apps, flattened for :meth:`compute`."""

    def __init__(self, tree: QueueTree, runnable: Mapping[str, Sequence[AppShareInput]]) -> None:
        nodes = list(tree)
        self.n_types = len(tree.types)
        self.queue_names = tuple(n.name for n in nodes)
        index = {name: i for i, name in enumerate(self.queue_names)}
        self._index = index
        self.parent = np.array([index[n.parent] if n.parent else -1 for n in nodes], np.int64)
        self.depth = np.array([n.name.count(".") for n in nodes], dtype=np.int64)
        self._load_settings(tree)
        self._load_apps(tree, runnable)
        self._levels = self._queue_levels(tree)

    def _load_settings(self, tree: QueueTree) -> None:
        q, t = len(self.queue_names), self.n_types
        self.weight = np.array([n.settings.weight for n in tree], dtype=np.float64)
        self.min_share = np.array([n.settings.min_share.values for n in tree], np.int64).reshape(
            q, t)
        self.max_abs = np.full((q, t), LONG_MAX, dtype=np.int64)
        self.max_pct = np.zeros((q, t), dtype=np.float64)
        self.is_pct = np.zeros(q, dtype=bool)
        for i, node in enumerate(tree):
            raw = node.settings.max_share
            if raw is None:
                continue
            if raw.percentages is not None:
                self.is_pct[i] = True
                self.max_pct[i] = raw.percentages
            elif raw.absolute is not None:
                self.max_abs[i] = raw.absolute.values

    def _load_apps(self, tree: QueueTree, runnable: Mapping[str, Sequence[AppShareInput]]) -> None:
        ids: list[str] = []
        leaf_of: list[int] = []
        weights: list[float] = []
        fifo_first: list[tuple[int, int]] = []
        self._app_groups: list[tuple[int, PolicyName, list[int]]] = []
        for leaf in tree.leaves():
            apps = list(runnable.get(leaf.name, ()))
            if not apps:
                continue
            first = len(ids)
            members = list(range(first, first + len(apps)))
            ids.extend(a.app_id for a in apps)
            weights.extend(a.weight for a in apps)
            leaf_of.extend([self._index[leaf.name]] * len(apps))
            if leaf.settings.policy is PolicyName.FIFO:
                # Earliest start time wins; list order breaks ties (spec §2.6.3).
                earliest = min(range(len(apps)), key=lambda i: (apps[i].start_time, i))
                fifo_first.append((self._index[leaf.name], first + earliest))
            self._app_groups.append((self._index[leaf.name], leaf.settings.policy, members))
        self.app_ids = tuple(ids)
        self.app_leaf = np.asarray(leaf_of, dtype=np.int64)
        self.app_weight = np.asarray(weights, dtype=np.float64)
        self._fifo = np.asarray(fifo_first, dtype=np.int64).reshape(-1, 2)
        self._app_level = _level(self._app_groups, self.n_types)

    def _queue_levels(self, tree: QueueTree) -> list[_Level]:
        by_depth: dict[int, list[tuple[int, PolicyName, list[int]]]] = {}
        for node in tree:
            if node.is_leaf:
                continue
            group = (self._index[node.name], node.settings.policy,
                     [self._index[c] for c in node.children])
            by_depth.setdefault(node.name.count("."), []).append(group)
        return [_level(by_depth[d], self.n_types) for d in sorted(by_depth)]

    def active(self) -> B:
        """Queues with a runnable app in their subtree (spec §2.4)."""
        active = np.zeros(len(self.queue_names), dtype=bool)
        active[self.app_leaf] = True
        for d in range(int(self.depth.max()), 0, -1):
            at_depth = np.flatnonzero((self.depth == d) & active)
            active[self.parent[at_depth]] = True
        return active

    def max_share(self, cluster: Resource) -> I64:
        """Effective max shares: percentages resolved against ``cluster``, then min wins (§2.8)."""
        c = np.asarray(cluster.values, dtype=np.float64)
        resolved = np.where(
            self.is_pct[:, None], java_long_array(c[None, :] * self.max_pct), self.max_abs)
        return np.maximum(resolved, self.min_share)

    def compute(
        self,
        cluster: Resource,
        previous: ShareArrays | FairShares | None = None,
        app_weight: F64 | None = None,
    ) -> ShareArrays:
        """Every instantaneous fair share; identical to ``compute_instantaneous_fair_shares``.

        ``previous`` supplies the components a policy does not write (spec §2.6); pass the
        last result of this model for the fast path.
        """
        queues, apps = self._previous_arrays(previous)
        queues[0] = cluster.values  # root always gets the whole cluster
        max_share, active = self.max_share(cluster), self.active()
        for level in self._levels:
            batch = ShareBatch(
                totals=queues[level.problem_owner, level.problem_type],
                elem_problem=level.elem_problem,
                weight=self.weight[level.elem_child],
                min_share=self.min_share[level.elem_child, level.elem_type],
                max_share=max_share[level.elem_child, level.elem_type],
                active=active[level.elem_child],
                is_queue=np.ones(len(level.elem_child), dtype=bool),
            )
            queues[level.elem_child, level.elem_type] = solve_batch(batch, steady=False)
        self._split_among_apps(queues, apps, app_weight)
        return ShareArrays(self.queue_names, queues, self.app_ids, apps)

    def _split_among_apps(self, queues: I64, apps: I64, app_weight: F64 | None) -> None:
        level = self._app_level
        n = len(level.elem_child)
        weights = self.app_weight if app_weight is None else app_weight
        batch = ShareBatch(
            totals=queues[level.problem_owner, level.problem_type],
            elem_problem=level.elem_problem,
            weight=weights[level.elem_child],
            min_share=np.zeros(n, dtype=np.int64),
            max_share=np.full(n, LONG_MAX, dtype=np.int64),
            active=np.ones(n, dtype=bool),
            is_queue=np.zeros(n, dtype=bool),
        )
        apps[level.elem_child, level.elem_type] = solve_batch(batch, steady=False)
        if len(self._fifo):
            apps[self._fifo[:, 1]] = queues[self._fifo[:, 0]]

    def _previous_arrays(self, previous: ShareArrays | FairShares | None) -> tuple[I64, I64]:
        if isinstance(previous, ShareArrays) and previous.queue_names == self.queue_names \
                and previous.app_ids == self.app_ids:
            return previous.queues.copy(), previous.apps.copy()
        queues = np.zeros((len(self.queue_names), self.n_types), dtype=np.int64)
        apps = np.zeros((len(self.app_ids), self.n_types), dtype=np.int64)
        if isinstance(previous, ShareArrays):
            previous = previous.to_fair_shares()
        if previous is not None:
            for i, name in enumerate(self.queue_names):
                if name in previous.queues:
                    queues[i] = previous.queues[name].values
            for i, app_id in enumerate(self.app_ids):
                if app_id in previous.apps:
                    apps[i] = previous.apps[app_id].values
        return queues, apps

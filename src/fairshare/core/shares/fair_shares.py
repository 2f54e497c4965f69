"""Steady and instantaneous fair shares over the queue hierarchy (docs/semantics.md §2.4–§2.7).

Each parent's share is cut among its children by the **parent's** policy; each leaf's share is cut
among its runnable apps by the leaf's policy (§2.5). Policies differ only in which resource
types they write (§2.6): ``fair`` writes memory alone — the other components of the child's
vector keep whatever they held before (0 for a new queue) — ``drf`` runs the search once per type,
and ``fifo`` hands a copy of the leaf's whole share to its earliest app.

These functions return new mappings and never write through their inputs. Components a policy
does not write are taken from ``previous`` (YARN keeps one mutable vector per schedulable).

The engine's update pass redoes only the cuts whose inputs changed
(:mod:`fairshare.core.shares.incremental`), through the same :func:`cut` and
:func:`split_among_apps`; :func:`compute_instantaneous_fair_shares` computes the whole tree at
once, for questions asked without an engine (``fairshare shares``) and as the tests' reference.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from fairshare.config.model import PolicyName
from fairshare.core.model.tree import ROOT, QueueTree
from fairshare.core.shares.solver import ShareInput, compute_shares
from fairshare.resources.vector import LONG_MAX, Resource, none_like


@dataclass(frozen=True, slots=True)
class AppShareInput:
    """A runnable app as the leaf's share split sees it (§2.7)."""

    app_id: str
    start_time: int = 0
    weight: float = 1.0  # see rules.policies.app_weight()


@dataclass(frozen=True, slots=True)
class FairShares:
    """Result of one computation: queue name → share, app id → share."""

    queues: Mapping[str, Resource]
    apps: Mapping[str, Resource] = field(default_factory=dict)


def share_types(policy: PolicyName, n_types: int) -> range:
    """Which resource types a policy computes: memory only for fair/fifo, every type for drf."""
    return range(n_types) if policy is PolicyName.DRF else range(1)


def active_queues(tree: QueueTree, runnable: Mapping[str, Sequence[AppShareInput]]) -> set[str]:
    """Queues with at least one runnable app in their subtree (§2.4)."""
    active: set[str] = set()
    for leaf in tree.leaves():
        if runnable.get(leaf.name):
            name: str | None = leaf.name
            while name is not None and name not in active:
                active.add(name)
                name = tree[name].parent
    return active


# ComputeFairShares for one resource type: compute_shares; tests pass YARN's line-by-line port
# (tests/oracles/shares.py) to check it
Solver = Callable[[Sequence[ShareInput], int, bool], list[int]]


def cut(
    total: Resource,
    previous: Sequence[Resource],
    inputs_for_type: Sequence[Sequence[ShareInput]],
    types: range,
    steady: bool,
    solver: Solver = compute_shares,
) -> list[Resource]:
    """Run ComputeFairShares once per written type; unwritten components stay as they were."""
    values = [list(p.values) for p in previous]
    for t in types:
        for i, v in enumerate(solver(inputs_for_type[t], total.values[t], steady)):
            values[i][t] = v
    return [Resource(tuple(v)) for v in values]


def queue_inputs(
    tree: QueueTree, children: Sequence[str], cluster: Resource, active: set[str] | None
) -> list[list[ShareInput]]:
    settings = [tree[name].settings for name in children]
    max_shares = [s.effective_max_share(cluster) for s in settings]
    return [
        [
            ShareInput(
                weight=s.weight,
                min_share=s.min_share.values[t],
                max_share=m.values[t],
                active=active is None or name in active,
                is_queue=True,
            )
            for name, s, m in zip(children, settings, max_shares, strict=True)
        ]
        for t in range(len(cluster.values))
    ]


def compute_steady_fair_shares(
    tree: QueueTree, cluster: Resource, previous: Mapping[str, Resource] | None = None
) -> dict[str, Resource]:
    """Steady fair share of every queue: all queues take part, active or not (§2.4)."""
    prev = previous or {}
    none = none_like(cluster)
    shares: dict[str, Resource] = {ROOT: cluster}
    for node in tree.depth_first():
        if node.is_leaf:
            continue
        children = list(node.children)
        new = cut(
            shares[node.name],
            [prev.get(c, none) for c in children],
            queue_inputs(tree, children, cluster, None),
            share_types(node.settings.policy, len(cluster.values)),
            steady=True,
        )
        shares.update(zip(children, new, strict=True))
    for node in tree:
        shares.setdefault(node.name, prev.get(node.name, none))
    return {node.name: shares[node.name] for node in tree}


def compute_instantaneous_fair_shares(
    tree: QueueTree,
    cluster: Resource,
    runnable: Mapping[str, Sequence[AppShareInput]],
    previous: FairShares | None = None,
    solver: Solver = compute_shares,
) -> FairShares:
    """Instantaneous fair shares of queues and runnable apps (§2.4, §2.5, §2.7)."""
    prev = previous or FairShares({}, {})
    none = none_like(cluster)
    active = active_queues(tree, runnable)
    queues: dict[str, Resource] = {ROOT: cluster}
    apps: dict[str, Resource] = {}
    for node in tree.depth_first():
        policy = node.settings.policy
        if node.is_leaf:
            leaf_apps = list(runnable.get(node.name, ()))
            old = [prev.apps.get(a.app_id, none) for a in leaf_apps]
            new_apps = split_among_apps(queues[node.name], leaf_apps, policy, old, solver)
            apps.update(zip((a.app_id for a in leaf_apps), new_apps, strict=True))
            continue
        children = list(node.children)
        new = cut(
            queues[node.name],
            [prev.queues.get(c, none) for c in children],
            queue_inputs(tree, children, cluster, active),
            share_types(policy, len(cluster.values)),
            steady=False,
            solver=solver,
        )
        queues.update(zip(children, new, strict=True))
    return FairShares({n.name: queues[n.name] for n in tree}, apps)


def split_among_apps(
    leaf_share: Resource,
    apps: Sequence[AppShareInput],
    policy: PolicyName,
    previous: Sequence[Resource],
    solver: Solver = compute_shares,
) -> list[Resource]:
    """A leaf's share cut among its runnable ``apps`` (§2.7); ``previous[i]`` is what
    ``apps[i]`` held, kept in the components the policy does not write."""
    if not apps:
        return []
    if policy is PolicyName.FIFO:
        # The earliest app (first in list order on ties) gets a copy of the whole share;
        # every other app keeps what it had (§2.6.3).
        earliest = min(range(len(apps)), key=lambda i: (apps[i].start_time, i))
        new = list(previous)
        new[earliest] = leaf_share
        return new
    inputs = [[ShareInput(a.weight, 0, LONG_MAX) for a in apps]] * len(leaf_share.values)
    return cut(leaf_share, previous, inputs, share_types(policy, len(leaf_share.values)), False,
               solver)


def placeholder_apps(active_leaves: Sequence[str]) -> dict[str, list[AppShareInput]]:
    """One placeholder runnable app per named leaf, so that exactly those count as active."""
    return {leaf: [AppShareInput(f"<active:{leaf}>")] for leaf in active_leaves}


def shares_with_active_leaves(
    tree: QueueTree, cluster: Resource, active_leaves: Sequence[str]
) -> tuple[dict[str, Resource], FairShares]:
    """Steady and instantaneous shares when exactly ``active_leaves`` have a runnable app.

    This is the "what will each queue get" question without any apps (§2.4).
    """
    runnable = placeholder_apps(active_leaves)
    steady = compute_steady_fair_shares(tree, cluster)
    instantaneous = compute_instantaneous_fair_shares(tree, cluster, runnable)
    return steady, FairShares(instantaneous.queues, {})

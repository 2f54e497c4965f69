"""Findings that depend on the cluster's size: min shares against the shares YARN computes.

They use the project's own steady fair-share computation (``core.shares.fair_shares``), so they say
what the scheduler would do with this tree on this cluster. Placed at the line of the queue
concerned (or of the first queue that sets a min share, for root).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from fairshare.config.model import ConfigWarning
from fairshare.config.yarnsite import SiteConfig
from fairshare.core import QueueNode, QueueTree, compute_steady_fair_shares, share_types
from fairshare.resources.display import memory, vcores_number
from fairshare.resources.vector import LONG_MAX, Resource

__all__ = ["cluster_findings"]

Shares = Mapping[str, Resource]


def cluster_findings(tree: QueueTree, site: SiteConfig, cluster: Resource) -> list[ConfigWarning]:
    """Min shares that exceed what their parent has, that lift a queue above the share its
    weight gives it, or that preemption cannot restore past non-preemptable queues."""
    steady = compute_steady_fair_shares(tree, cluster)
    by_weight = compute_steady_fair_shares(_without_min_shares(tree), cluster)
    found: list[ConfigWarning] = []
    for node in tree.tree_view():
        if not node.is_leaf:
            found += _children_above_parent(tree, node, steady)
        found += _min_above_fair_share(tree, node, steady, by_weight)
    blocked = _blocked_by_non_preemptable(tree, cluster) if site.preemption else None
    if blocked is not None:
        found.append(blocked)
    return found


def _without_min_shares(tree: QueueTree) -> QueueTree:
    none = tree.types.none()
    queues = {name: replace(node, settings=replace(node.settings, min_share=none))
              for name, node in tree.queues.items()}
    return replace(tree, queues=queues)


def _written(tree: QueueTree, node: QueueNode) -> range:
    """The resource types the share computation gives ``node`` (by its parent's policy): a
    fair parent computes memory only, a drf parent every type; root has the whole cluster."""
    if node.parent is None:
        return range(len(tree.types.names))
    return share_types(tree[node.parent].settings.policy, len(tree.types.names))


def _amounts(tree: QueueTree, r: Resource, types: Sequence[int]) -> str:
    parts = []
    for t in types:
        value = r.values[t]
        if value == LONG_MAX:
            parts.append("unbounded")
        elif t == 0:
            parts.append(memory(value))
        elif t == 1:
            parts.append(f"{vcores_number(value)} vcores")
        else:
            parts.append(f"{value:,} {tree.types.names[t]}")
    return ", ".join(parts)


def _finding(tree: QueueTree, name: str, finding: ConfigWarning) -> ConfigWarning:
    config = tree.config.queue(name)
    line = config.line if config is not None else None
    if line is None:  # root without an element: the first queue that sets a min share
        line = next((q.line for q in tree.config.queues if q.min_resources is not None), None)
    return replace(finding, file=tree.config.source, line=line)


def _children_above_parent(tree: QueueTree, node: QueueNode, steady: Shares
                           ) -> list[ConfigWarning]:
    """The children's min shares add up to more than the parent's share: ComputeFairShares
    then gives each child its min share, so the children together get more than there is."""
    total = [sum(tree[c].settings.min_share.values[t] for c in node.children)
             for t in range(len(tree.types.names))]
    have = steady[node.name]
    over = [t for t in _written(tree, node) if total[t] > have.values[t]]
    if not over:
        return []
    what = "the cluster" if node.parent is None else f"{node.name}'s steady fair share"
    percent = ", ".join(f"{100 * total[t] / have.values[t]:.0f} %" for t in over
                        if have.values[t] > 0)
    sum_text = _amounts(tree, Resource(tuple(total)), over) + (f" ({percent})" if percent else "")
    return [_finding(tree, node.name, ConfigWarning(
        f"the min shares of {node.name}'s children add up to {sum_text}, more than {what}, "
        f"{_amounts(tree, have, over)}",
        code="min-shares-above-parent",
        consequence="ComputeFairShares gives each child at least its min share, so together "
        "they are promised more than exists: some queues stay min-share starved for ever, and "
        "preemption cannot help, since it takes only from applications above their fair share",
        fix=f"lower the min shares so that they add up to less than {what}, or use weights"))]


def _min_above_fair_share(tree: QueueTree, node: QueueNode, steady: Shares, by_weight: Shares
                          ) -> list[ConfigWarning]:
    """A min share above what the queue's weight gives it becomes its fair share (the min is a
    floor in ComputeFairShares), and its siblings' shares shrink to make room."""
    if node.parent is None:
        return []
    minimum = node.settings.min_share
    types = [t for t in _written(tree, node)
             if minimum.values[t] > by_weight[node.name].values[t]]
    if not types:
        return []
    shrunk = [f"{s} {_amounts(tree, by_weight[s], types)} → {_amounts(tree, steady[s], types)}"
              for s in tree[node.parent].children
              if s != node.name and any(steady[s].values[t] < by_weight[s].values[t]
                                        for t in types)]
    others = "; its siblings' shrink: " + "; ".join(shrunk) if shrunk else ""
    weight_share = _amounts(tree, by_weight[node.name], types)
    return [_finding(tree, node.name, ConfigWarning(
        f"{node.name}: min share {_amounts(tree, minimum, types)} is above the steady fair "
        f"share its weight gives it, {weight_share}",
        code="min-above-fair-share",
        consequence=f"the min share is a floor in ComputeFairShares, so it becomes the queue's "
        f"fair share ({_amounts(tree, steady[node.name], types)}){others}",
        fix=f"raise the queue's weight instead, or lower minResources to at most {weight_share}"
    ))]


def _blocked_by_non_preemptable(tree: QueueTree, cluster: Resource) -> ConfigWarning | None:
    """Non-preemptable leaves may hold up to their max shares for ever; if what is left of the
    cluster is below the other leaves' min shares, preemption cannot restore those."""
    leaves = tree.leaves()
    held = [leaf for leaf in leaves if not leaf.settings.preemptable]
    wanting = [leaf for leaf in leaves if leaf.settings.preemptable
               and any(leaf.settings.min_share.values)]
    if not held or not wanting:
        return None
    n = len(cluster.values)
    kept = [min(cluster.values[t], sum(min(leaf.settings.effective_max_share(cluster).values[t],
                                           cluster.values[t]) for leaf in held))
            for t in range(n)]
    left = [cluster.values[t] - kept[t] for t in range(n)]
    need = [sum(leaf.settings.min_share.values[t] for leaf in wanting) for t in range(n)]
    short = [t for t in range(n) if need[t] > left[t]]
    if not short:
        return None
    names = ", ".join(leaf.name for leaf in held)
    return _finding(tree, held[0].name, ConfigWarning(
        f"non-preemptable queues ({names}) may hold {_amounts(tree, Resource(tuple(kept)), short)}"
        f", leaving {_amounts(tree, Resource(tuple(left)), short)}: less than the other queues' "
        f"min shares, {_amounts(tree, Resource(tuple(need)), short)}",
        code="min-share-behind-non-preemptable",
        consequence="YARN never preempts containers of a queue with allowPreemptionFrom false "
        "(nor of the queues below it), so once these queues fill up to their max shares the "
        "others cannot get their min shares back by preemption",
        fix="give the non-preemptable queues a maxResources that leaves room for the others' "
            "min shares, or lower those min shares"))

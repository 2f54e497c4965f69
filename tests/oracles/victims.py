"""Victims for one container searched across nodes as YARN reads it: the reference for
``core.preemption.plan_search``.

``FSPreemptionThread.identifyContainersToPreemptForOneContainer`` (docs/semantics.md §5.3): the
nodes of the request's resource name scanned in order, each through the product's own
one-node selection (:func:`~fairshare.core.preemption.victims.containers_on_node`), then the
YARN-7655 wider search. The engine's
:class:`~fairshare.core.preemption.plan_search.PlanSearch` skips nodes by bounds and weighs
AM-free sets first; its choices must equal these (``tests/oracles/preemption.py`` plans with
them, ``tests/core/preemption/test_preemption_fast.py`` compares).
"""

from __future__ import annotations

from collections.abc import Sequence

from fairshare.core.preemption.victims import (
    ANY,
    NodeView,
    Owners,
    StarvedRequest,
    VictimSet,
    containers_on_node,
)
from fairshare.resources.vector import INT_MAX, Resource


def search_nodes(
    nodes: Sequence[NodeView], request: Resource, owners: Owners, cluster: Resource
) -> VictimSet | None:
    """``identifyContainersToPreemptForOneContainer``: the first node (in list order) with the
    fewest AMs wins; a later node replaces it only with strictly fewer; 0 AMs ends the search."""
    best: VictimSet | None = None
    max_am = INT_MAX
    for node in nodes:
        found = containers_on_node(request, node, owners, cluster, max_am)
        if found is not None:
            best, max_am = found, found.num_am
            if max_am == 0:
                break
    return best


def best_preemptable_containers(
    request: StarvedRequest,
    nodes: Sequence[NodeView],
    all_nodes: Sequence[NodeView],
    owners: Owners,
    cluster: Resource,
) -> VictimSet | None:
    """Victims for one container of ``request`` (§5.3, YARN-7655).

    ``nodes`` are the nodes matching the request's resource name. If the best set there needs
    an AM, and the request names a rack or host and may relax locality, the *other* nodes are
    searched too and their best set wins only with strictly fewer AMs.
    """
    best = search_nodes(nodes, request.capability, owners, cluster)
    wider = request.relax_locality and request.resource_name != ANY
    if best is not None and best.num_am > 0 and wider:
        inside = {n.name for n in nodes}
        others = [n for n in all_nodes if n.name not in inside]
        alternative = search_nodes(others, request.capability, owners, cluster)
        if alternative is not None and alternative.num_am < best.num_am:
            best = alternative
    return best

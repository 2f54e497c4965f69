"""Preemption's views and rules for one requested container on one node (docs/semantics.md
§5.4–§5.5), as pure functions over frozen views: nothing is marked, earmarked or killed here.

What runs is :class:`~fairshare.core.preemption.plan_search.PlanSearch` (one plan's searches,
through the round's :class:`~fairshare.core.preemption.search.VictimSearch`): it picks the
nodes to try by bounds and asks this module, node by node, for :func:`containers_on_node`
(``identifyContainersToPreemptOnNode``) and :func:`can_container_be_preempted`
(``canContainerBePreempted``). The search across nodes as YARN reads it (§5.3,
``identifyContainersToPreemptForOneContainer`` and the YARN-7655 wider search) is the
reference in ``tests/oracles/victims.py``, which the engine's plans must equal. The caller
(``core.preemption.commit``) applies a returned :class:`VictimSet` — earmark on the node,
``containersToBePreempted`` on the owners (§5.6).

Orders that are hash orders in YARN are the caller's choice, taken as given:

* ``NodeView.containers`` — the running containers of a node. YARN walks a hash map and puts
  non-AM containers at the front (so in reverse hash order) and AMs at the back (§5.4); here the
  non-AM group keeps the caller's order and so does the AM group. The engine passes YARN's
  own order (``yarn_order.containers_for_victim_search``).
* the order nodes are searched in (the cluster node map for ANY, rack join order for a rack,
  §5.3), the search's.
* ``VictimSet.containers`` is in selection order; YARN groups it by owner in hash-map order,
  which only changes the order victims are reported in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fairshare.config.model import PolicyName
from fairshare.core.rules.policies import calculator_for
from fairshare.resources.vector import (
    INT_MAX,
    Resource,
    add,
    fits_in,
    none_like,
    subtract,
    subtract_non_negative,
    sum_resources,
)

ANY = "*"  # ResourceRequest.ANY


@dataclass(frozen=True, slots=True)
class ContainerView:
    """A running (allocated) container."""

    container_id: str
    app_id: str  # the owning application attempt
    resource: Resource
    is_am: bool = False


@dataclass(frozen=True, slots=True)
class OwnerView:
    """What ``canContainerBePreempted`` reads of the app owning a candidate container."""

    app_id: str
    usage: Resource
    fair_share: Resource  # the app's instantaneous share inside its leaf (§2.7)
    resources_to_be_preempted: Resource  # already announced victims, still running (§5.6)
    containers_to_be_preempted: frozenset[str] = frozenset()
    policy: PolicyName = PolicyName.FAIR  # the owner leaf's policy: which calculator compares
    preemptable: bool = True  # the leaf's effective allowPreemptionFrom (§1.3.3)
    am_preemption: bool = True  # am.preemption / am.preemption.<queue> (YARN-9537, YARN-10625)


@dataclass(frozen=True, slots=True)
class NodeView:
    """What victim selection reads of a node."""

    name: str
    unallocated: Resource
    reserved: Resource  # size of the node's reserved container, or none
    earmarked: Resource  # total already earmarked for starved apps on this node (YARN-6432)
    containers: tuple[ContainerView, ...]  # running containers, in the caller's order
    marked_for_preemption: frozenset[str] = frozenset()  # containers already chosen as victims


@dataclass(frozen=True, slots=True)
class VictimSet:
    """Containers on one node whose preemption frees room for the request (``numAM`` AMs)."""

    node: str
    containers: tuple[ContainerView, ...]
    num_am: int


@dataclass(frozen=True, slots=True)
class StarvedRequest:
    """One resource request of the starved app, as ``getStarvedResourceRequests`` made it."""

    capability: Resource
    resource_name: str = ANY  # ANY, a rack, or a host
    relax_locality: bool = True


Owners = Mapping[str, OwnerView]  # app id → owner; a missing app has just unregistered


# -- §5.5 -----------------------------------------------------------------------------------------


def _never_preemptable(owner: OwnerView, container: ContainerView) -> bool:
    """Non-preemptable queue, an AM while AM preemption is off, or already announced."""
    if not owner.preemptable or (container.is_am and not owner.am_preemption):
        return True
    return container.container_id in owner.containers_to_be_preempted


def can_container_be_preempted(
    owner: OwnerView, container: ContainerView, already_chosen: Resource, cluster: Resource
) -> bool:
    """``canContainerBePreempted``: the owner must stay at or above its *app* fair share.

    ``usage − resourcesToBePreempted − container − already_chosen`` (the owner's containers
    already in the set being built on this node, YARN-7290) is compared with the owner's fair
    share by its leaf's calculator, ``singleType=true`` (YARN-6193). No queue-level check.
    YARN's sanity check that the owner still holds the container is not modelled: the views
    the engine builds keep node and app containers in step.
    """
    if _never_preemptable(owner, container):
        return False
    return stays_at_fair_share(owner, container.resource, already_chosen, cluster)


def stays_at_fair_share(
    owner: OwnerView, resource: Resource, already_chosen: Resource, cluster: Resource
) -> bool:
    """The arithmetic half of §5.5: ``usage − resourcesToBePreempted − resource −
    already_chosen`` is not below the owner's fair share. Monotone: more already chosen, or
    more to be preempted, never turns a false into a true (the fast path relies on it)."""
    after = subtract(subtract(owner.usage, owner.resources_to_be_preempted), resource)
    after = subtract(after, already_chosen)
    calc = calculator_for(owner.policy)
    return not calc.compare(cluster, after, owner.fair_share, True) < 0


# -- §5.4 -----------------------------------------------------------------------------------------


def preemption_candidates(node: NodeView) -> list[ContainerView]:
    """``getRunningContainersWithAMsAtTheEnd`` minus containers already marked (§5.4)."""
    unmarked = [c for c in node.containers if c.container_id not in node.marked_for_preemption]
    return [c for c in unmarked if not c.is_am] + [c for c in unmarked if c.is_am]


def room_before_victims(unallocated: Resource, reserved: Resource, earmarked: Resource
                        ) -> Resource:
    """The room a victim set starts from on a node (``identifyContainersToPreemptOnNode``'s
    first ``potential``): what is unallocated, less its reservation and what is earmarked."""
    return subtract_non_negative(unallocated, add(reserved, earmarked))


def chosen_from_owner(chosen: Sequence[ContainerView], app_id: str, like: Resource) -> Resource:
    """``getResourcesToPreemptForApp``: the owner's containers already in the set."""
    return sum_resources([c.resource for c in chosen if c.app_id == app_id], none_like(like))


def containers_on_node(
    request: Resource,
    node: NodeView,
    owners: Owners,
    cluster: Resource,
    max_am: int = INT_MAX,
) -> VictimSet | None:
    """``identifyContainersToPreemptOnNode``: greedy first fit, non-AM containers first.

    ``potential`` starts at ``subtractNonNegative(unallocated, reserved + earmarked)`` and grows
    with every selected container; the all-components fit test runs after *every* candidate
    (so a first preemptable candidate is taken even when the node already had room, and a set
    may come back empty). ``None``: an AM would make ``numAM >= max_am``, or the candidates
    ran out first (a node without containers always gives ``None``).
    """
    chosen: list[ContainerView] = []
    num_am = 0
    potential = room_before_victims(node.unallocated, node.reserved, node.earmarked)
    for container in preemption_candidates(node):
        owner = owners.get(container.app_id)
        if owner is None:
            continue  # app unregistered (YARN-9984): skipped, fit test included
        already = chosen_from_owner(chosen, owner.app_id, request)
        if can_container_be_preempted(owner, container, already, cluster):
            if container.is_am:
                num_am += 1
                if num_am >= max_am:
                    return None  # no better than the best set found so far (YARN-5830)
            chosen.append(container)
            potential = add(potential, container.resource)
        if fits_in(request, potential):
            return VictimSet(node.name, tuple(chosen), num_am)
    return None

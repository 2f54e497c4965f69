"""Why a starved app's container found no victims: each one the plan could not place, counted
by the cause that stopped it (for the ``no-preemption`` event, and ``fairshare explain``).

YARN only logs that nothing was found. To say why, each node the request searched is tried
again with the rules of docs/semantics.md §5.4–§5.5 switched on one at a time, in this order; the
node is blocked by the first rule under which its containers can no longer make room:

The causes are :class:`~fairshare.core.model.reasons.BlockedCause` members:

1. ``no-node-fits`` — not even freeing every container on it would (the request is larger than
   the node, or its space is reserved or earmarked for others);
2. ``non-preemptable-queue`` — only with containers of queues with ``allowPreemptionFrom``
   false;
3. ``am-preemption-off`` — only with AM containers, which may not be preempted there
   (``yarn.scheduler.fair.am.preemption``);
4. ``already-chosen`` — only with containers already chosen as victims for other apps;
5. ``victims-at-fair-share`` — taking what remains would push its owners below their fair
   share (``canContainerBePreempted``).

A request's cause is its node that got furthest down the list: the rule that, relaxed, would
have let it through. ``room-free-already`` counts containers that needed no victims at all (the
node had room). A plan's containers wanted = found + the causes' counts.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.reasons import BlockedCause
from fairshare.core.preemption.overlay import Overlay, node_view, owner_view
from fairshare.core.preemption.victims import (
    ContainerView,
    NodeView,
    OwnerView,
    StarvedRequest,
    room_before_victims,
)
from fairshare.resources.vector import Resource, add, fits_in

__all__ = ["BLOCKED_CAUSES", "ROOM_FREE", "BlockedCauses", "blocked_by", "node_blocked_by"]

BLOCKED_CAUSES = (BlockedCause.NO_NODE_FITS, BlockedCause.NON_PREEMPTABLE_QUEUE,
                  BlockedCause.AM_PREEMPTION_OFF, BlockedCause.ALREADY_CHOSEN,
                  BlockedCause.VICTIMS_AT_FAIR_SHARE)
ROOM_FREE = BlockedCause.ROOM_FREE_ALREADY

_Keep = Callable[[ContainerView, OwnerView, NodeView], bool]  # the container stays a candidate
_RULES: tuple[_Keep, ...] = (
    lambda c, o, n: True,
    lambda c, o, n: o.preemptable,
    lambda c, o, n: not (c.is_am and not o.am_preemption),
    lambda c, o, n: (c.container_id not in o.containers_to_be_preempted
                     and c.container_id not in n.marked_for_preemption),
)


def node_blocked_by(request: Resource, node: NodeView, owners: Mapping[str, OwnerView]) -> int:
    """The index in :data:`BLOCKED_CAUSES` of the rule that blocks ``node`` for ``request``
    (assuming the victim search found nothing on it)."""
    potential = room_before_victims(node.unallocated, node.reserved, node.earmarked)
    kept = [(c, owners[c.app_id]) for c in node.containers if c.app_id in owners]
    for index, rule in enumerate(_RULES):
        kept = [(c, o) for c, o in kept if rule(c, o, node)]
        total = potential
        for container, _ in kept:
            total = add(total, container.resource)
        if not fits_in(request, total):
            return index
    return len(_RULES)  # everything but the fair-share rule would have let it through


class _Owners(dict[str, OwnerView]):
    """Owner views made when first asked for (a search reads a few of many apps)."""

    def __init__(self, s: Scheduler) -> None:
        super().__init__()
        self.s = s

    def __missing__(self, app_id: str) -> OwnerView:
        view = self[app_id] = owner_view(self.s, self.s.state.apps[app_id], {})
        return view

    def __contains__(self, app_id: object) -> bool:
        return app_id in self.s.state.apps


class BlockedCauses:
    """The causes of one preemption round, per request (size and place): the same request
    finds the same nodes in the same state until a plan is committed (:meth:`forget`), whichever
    starved app asks — a busy round has hundreds of apps asking for a few sizes."""

    def __init__(self, s: Scheduler) -> None:
        self.s = s
        self._known: dict[tuple[tuple[int, ...], str], BlockedCause] = {}

    def forget(self) -> None:
        self._known.clear()

    def cause(self, request: StarvedRequest,
              nodes_for: Callable[[Scheduler, str], Sequence[str]]) -> BlockedCause:
        """``nodes_for(s, resource_name)``: the nodes the request searched, in order."""
        key = (request.capability.values, request.resource_name)
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = blocked_by(
                self.s, request, nodes_for(self.s, request.resource_name))
        return found


def blocked_by(s: Scheduler, request: StarvedRequest, nodes: Sequence[str]) -> BlockedCause:
    """The cause for one request that found no victims on ``nodes`` (its resource name's)."""
    owners = _Owners(s)
    worst = 0
    for name in nodes:
        view = node_view(s, s.state.nodes[name], Overlay())
        worst = max(worst, node_blocked_by(request.capability, view, owners))
        if worst == len(BLOCKED_CAUSES) - 1:
            break  # no node can get further
    return BLOCKED_CAUSES[worst]

"""A plan's own marks on top of the real state, and the views victim selection reads.

``identifyContainersToPreempt`` marks each chosen set before looking for the next container, so
later choices see earlier ones (containers already marked, the earmark on the node, and the
owners' ``resourcesToBePreempted``). A plan keeps those marks in an :class:`Overlay` instead of
writing them, and builds the frozen views of :mod:`~fairshare.core.preemption.victims` through it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.records import App, Node
from fairshare.core.preemption.victims import ContainerView, NodeView, OwnerView
from fairshare.core.rules.yarn_order import containers_for_victim_search
from fairshare.resources.vector import Resource, add, sum_resources


@dataclass(slots=True)
class Overlay:
    """The marks a plan has made so far, on top of the real state."""

    marked: dict[str, set[str]] = field(default_factory=dict)  # node → container ids
    earmarked: dict[str, Resource] = field(default_factory=dict)  # node → extra earmark
    owner_marked: dict[str, dict[str, Resource]] = field(default_factory=dict)  # app → c → r

    def mark(self, none: Resource, node: str, victims: Sequence[ContainerView]) -> None:
        """What committing the set would do: mark, earmark (new victims only), tell owners."""
        marked = self.marked.setdefault(node, set())
        fresh = [v for v in victims if v.container_id not in marked]
        marked.update(v.container_id for v in fresh)
        self.earmarked[node] = add(self.earmarked.get(node, none),
                                   sum_resources([v.resource for v in fresh], none))
        for v in fresh:
            self.owner_marked.setdefault(v.app_id, {})[v.container_id] = v.resource


def owner_view(s: Scheduler, app: App, extra: Mapping[str, Resource]) -> OwnerView:
    """The owner with the plan's marks ``extra`` (container → size) added to its own."""
    return marked_owner_view(s, app, sum_resources(list(extra.values()), app.usage),
                             frozenset(app.to_be_preempted) | frozenset(extra))


def marked_owner_view(
    s: Scheduler, app: App, extra_total: Resource, marked: frozenset[str]
) -> OwnerView:
    """:func:`owner_view` from the plan's marks already summed (in marking order) and
    joined with the owner's own: what a plan that keeps them up to date passes."""
    settings = s.settings(app.queue)
    return OwnerView(
        app_id=app.id, usage=app.usage, fair_share=app.fair_share,
        resources_to_be_preempted=add(app.resources_to_be_preempted, extra_total),
        containers_to_be_preempted=marked, policy=settings.policy,
        preemptable=settings.preemptable, am_preemption=app.am_preemption,
    )


def reserved_on(node: Node, none: Resource) -> Resource:
    """What the node's reservation holds (``none`` without one)."""
    return node.reservation.resource if node.reservation is not None else none


def node_view(s: Scheduler, node: Node, overlay: Overlay) -> NodeView:
    reserved = reserved_on(node, s.none)
    marked = frozenset(node.marked_for_preemption) | frozenset(overlay.marked.get(node.name, ()))
    return NodeView(
        name=node.name, unallocated=node.unallocated, reserved=reserved,
        earmarked=add(node.earmarked_total, overlay.earmarked.get(node.name, s.none)),
        containers=tuple(ContainerView(c.id, c.app_id, c.resource, c.is_am)
                         for c in containers_for_victim_search(
                             node.containers, node.peak_containers)),
        marked_for_preemption=marked,
    )

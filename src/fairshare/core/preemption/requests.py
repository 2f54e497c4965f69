"""Turning an app's starvation into container requests to preempt for (docs/semantics.md §5.2).

``getStarvedResourceRequests`` walks the app's resource requests, sizing each with the
scheduler-wide *memory-only* ratio (even under DRF), and a visited tracker keeps the same ask
from being counted at several locality levels. YARN walks hash maps here; our order is in
:func:`fairshare.core.rules.yarn_order.request_order` (keys by priority, ANY first within a key).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field

from fairshare.core.preemption.victims import ANY, StarvedRequest
from fairshare.resources.vector import (
    INT_MAX,
    Resource,
    is_none,
    multiply_long,
    subtract_non_negative,
)


@dataclass(frozen=True, slots=True)
class RequestAsk:
    """One resource request of the starved app, as §5.2 reads it."""

    priority: int
    resource_name: str
    capability: Resource
    count: int
    relax_locality: bool


@dataclass(slots=True)
class _Visited:
    """``VisitedResourceRequestTracker`` state for one (priority, capability)."""

    any_accepted: bool = False
    racks: set[str] = field(default_factory=set)
    nodes: set[str] = field(default_factory=set)
    racks_with_nodes: set[str] = field(default_factory=set)


class VisitedTracker:
    """Accept each ask once across locality levels (§5.2).

    ``rack_of`` maps every known node to its rack (``racks``: its values, if the caller has
    them already); a name that is neither a node nor a rack is rejected.
    """

    def __init__(self, rack_of: Mapping[str, str],
                 racks: AbstractSet[str] | None = None) -> None:
        self.rack_of = rack_of
        self.racks: AbstractSet[str] = set(rack_of.values()) if racks is None else racks
        self._seen: dict[tuple[int, Resource], _Visited] = {}

    def visit(self, ask: RequestAsk) -> bool:
        v = self._seen.setdefault((ask.priority, ask.capability), _Visited())
        name = ask.resource_name
        if name == ANY:
            if v.racks or v.nodes:
                return False
            v.any_accepted = True
            return True
        if name in self.rack_of:  # a node
            rack = self.rack_of[name]
            if v.any_accepted or rack in v.racks:
                return False
            v.nodes.add(name)
            v.racks_with_nodes.add(rack)
            return True
        if name in self.racks:
            if v.any_accepted or name in v.racks_with_nodes:
                return False
            v.racks.add(name)
            return True
        return False  # matches no node or rack (YARN logs and skips it)


def memory_ratio_floor(pending: Resource, capability: Resource) -> int:
    """``(int) floor(pending.memory / capability.memory)`` in doubles: 0/0 → 0, x/0 → INT_MAX."""
    if capability.memory == 0:
        return INT_MAX if pending.memory > 0 else 0
    value = math.floor(pending.memory / capability.memory)
    return max(-(2**31), min(INT_MAX, value))


def starved_requests(
    starvation: Resource, asks: Iterable[RequestAsk], rack_of: Mapping[str, str],
    racks: AbstractSet[str] | None = None,
) -> list[tuple[StarvedRequest, int]]:
    """``getStarvedResourceRequests``: (request, number of containers) pairs.

    A request cut short (``n`` below its count) is a fresh copy, so it relaxes locality even
    when the original did not (§5.2).
    """
    pending = starvation
    visited = VisitedTracker(rack_of, racks)
    out: list[tuple[StarvedRequest, int]] = []
    for ask in asks:
        if is_none(pending):
            break
        if not visited.visit(ask):
            continue
        n = memory_ratio_floor(pending, ask.capability)
        if n <= 0:
            continue
        count, relax = ask.count, ask.relax_locality
        if n < ask.count:
            count, relax = n, True
        out.append((StarvedRequest(ask.capability, ask.resource_name, relax), count))
        pending = subtract_non_negative(pending, multiply_long(ask.capability, count))
    return out

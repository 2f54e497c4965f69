"""What a node can free at most: bounds that let a victim search skip nodes
(docs/semantics.md §5.4–§5.5).

``containers_on_node`` walks a node's candidates and stops as soon as the node's free room plus
the chosen containers fit the request. Whatever it chooses, that potential never exceeds the
free room plus every candidate that could go *alone* (§5.5 with nothing else chosen from its
owner; more already chosen never helps, see ``stays_at_fair_share``). Three such bounds, for
the three limits a search puts on AMs:

* no AM (the best set so far holds one AM, so an AM makes the node give up),
* at most one AM (the best set so far holds two): the non-AM bound plus the largest AM,
  component by component,
* any number of AMs.

A bound that does not fit the request proves ``containers_on_node`` returns ``None``. Bounds
only shrink while marks are added (fewer candidates, more earmarked, owners with more to be
preempted), so an old bound is still a bound.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from fairshare.core.model.records import Container
from fairshare.core.preemption.victims import OwnerView, stays_at_fair_share
from fairshare.resources.vector import Resource

Bound = tuple[int, ...]
Bounds = tuple[Bound, Bound, Bound]  # indexed by am_regime(max_am)
OwnerOf = Callable[[str], "Owner | None"]


def am_regime(max_am: int) -> int:
    """Which bound applies while the best set so far has ``max_am`` AMs: a node can still win
    with no AM (max 1), at most one AM (max 2), or any number."""
    return 0 if max_am <= 1 else (1 if max_am == 2 else 2)


class Owner:
    """An owner's view and, per (size, AM or not), whether one such container may go alone."""

    __slots__ = ("alone", "view")

    def __init__(self, view: OwnerView) -> None:
        self.view = view
        self.alone: dict[tuple[tuple[int, ...], bool], bool] = {}

    def may_go_alone(self, c: Container, none: Resource, cluster: Resource) -> bool:
        """§5.5 for ``c`` with nothing else chosen, ignoring only the marked-container test."""
        key = (c.resource.values, c.is_am)
        ok = self.alone.get(key)
        if ok is None:
            v = self.view
            ok = (v.preemptable and (v.am_preemption or not c.is_am)
                  and stays_at_fair_share(v, c.resource, none, cluster))
            self.alone[key] = ok
        return ok


UNKNOWN = Owner(OwnerView("", Resource(()), Resource(()), Resource(())))  # not looked up yet


@dataclass(slots=True)
class NodeEntry:
    """A node as the committed state shows it, with its bounds."""

    name: str
    candidates: tuple[Container, ...]  # §5.4 order, committed marks removed
    owners: frozenset[str]  # their apps
    reserved: Resource
    free: Resource  # subtractNonNegative(unallocated, reserved + earmarked)
    regular: bool  # no negative component anywhere: the shortcuts are sound
    live: tuple[Container, ...]  # the candidates that may still go alone (or more)
    bounds: Bounds | None = None
    epoch: int = -1  # the owners' epoch the bounds were computed at


def node_bounds(
    free: Resource, candidates: Iterable[Container], owner_of: OwnerOf, none: Resource,
    cluster: Resource, marked: AbstractSet[str] | tuple[()] = (),
    known: Mapping[str, Owner | None] | None = None,
) -> tuple[Bounds, tuple[Container, ...]]:
    """What a node can free at most: ``free`` plus every unmarked candidate that may go alone;
    the AMs left out, only the largest AM (per component), or all of them. Also those
    candidates, in order: the others may not go alone for the rest of the round (point 2 of
    :mod:`~fairshare.core.preemption.search`). ``known``: owners ``owner_of`` has already
    looked up (looked up here first: this loop runs often)."""
    non_am = [free.values]
    ams: list[tuple[int, ...]] = []
    live: list[Container] = []
    known = known or {}
    for c in candidates:
        if c.id in marked:
            continue
        owner = known.get(c.app_id, UNKNOWN)
        if owner is UNKNOWN:
            owner = owner_of(c.app_id)
        if owner is None:
            continue
        values = c.resource.values
        ok = owner.alone.get((values, c.is_am))
        if ok is None:
            ok = owner.may_go_alone(c, none, cluster)
        if ok:
            (ams if c.is_am else non_am).append(values)
            live.append(c)
    base = tuple(map(sum, zip(*non_am, strict=True)))
    if not ams:
        return (base, base, base), tuple(live)
    largest = tuple(map(max, zip(*ams, strict=True)))
    total = tuple(map(sum, zip(*ams, strict=True)))
    return (base, tuple(map(operator.add, base, largest)),
            tuple(map(operator.add, base, total))), tuple(live)


def fits(request: Bound, bound: Bound) -> bool:
    return all(map(operator.le, request, bound))  # same resource types: same lengths

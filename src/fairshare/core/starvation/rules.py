"""Starvation's arithmetic and the starved-apps queue (docs/semantics.md §4.2–§4.4, §4.7), as
pure functions: the pieces the engine's incremental starvation step
(:mod:`fairshare.core.starvation.leaf`) and the preemption round
(:mod:`fairshare.core.preemption.round`) run, shared with the reference per-leaf pass
(``tests/oracles/starvation.py``, ``FSLeafQueue.updateStarvedApps`` as it reads).

Nothing here writes state. The starved-apps queue (:class:`StarvedApps`) is a frozen value:
:func:`take_starved_app` returns the next queue.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from fairshare.core.model.records import StarvedApps
from fairshare.core.rules.yarn_order import heap_poll
from fairshare.resources.calc import ResourceCalculator
from fairshare.resources.vector import (
    Resource,
    componentwise_min,
    fits_in,
    float32,
    multiply,
    subtract,
    subtract_non_negative,
)

# -- §4.2 per-application fair-share starvation --------------------------------------------------


def fair_share_deficit(
    *,
    fair_share: Resource,
    usage: Resource,
    demand: Resource,
    threshold: float,
    calc: ResourceCalculator,
    cluster: Resource,
) -> tuple[bool, Resource]:
    """The time-independent half of §4.2: is usage below ``fairDemand`` (policy calculator,
    singleType), and ``subtractNonNegative(fairDemand, usage)``, the starvation once timed out."""
    fair_demand = componentwise_min(multiply(fair_share, float32(threshold)), demand)
    starved = calc.compare(cluster, usage, fair_demand, True) < 0  # singleType (§4.2)
    return starved, subtract_non_negative(fair_demand, usage)


# -- §4.3 step (2): the leaf's min-share starvation ----------------------------------------------


def min_share_shortfall(min_share: Resource, demand: Resource, usage: Resource) -> Resource:
    """``subtractNonNegative(min(minShare, demand), usage)``: §4.3 (2) before the timeout."""
    return subtract_non_negative(componentwise_min(min_share, demand), usage)


# -- §4.3 step (3): attributing the min-share starvation to apps ---------------------------------


def unmet_demand(demand: Resource, usage: Resource, fairshare_starvation: Resource) -> Resource:
    """The ``x`` of §4.3 (3): ``subtractNonNegative(demand − usage, fairshareStarvation)``."""
    return subtract_non_negative(subtract(demand, usage), fairshare_starvation)


# -- §4.4 the starved-apps queue -----------------------------------------------------------------


def compare_starvation(a: Resource, b: Resource) -> int:
    """``StarvationComparator``: −1 if ``a`` fits in ``b`` (all components), else +1; never 0."""
    return -1 if fits_in(a, b) else 1


# app id → its current fairshareStarvation + minshareStarvation; must cover every queued app
StarvationOf = Mapping[str, Resource]


def by_starvation(starvation: StarvationOf) -> Callable[[str, str], int]:
    """``StarvationComparator`` over app ids, reading each app's starvation when compared."""
    return lambda a, b: compare_starvation(starvation[a], starvation[b])


def take_starved_app(
    queue: StarvedApps, starvation: StarvationOf
) -> tuple[str | None, StarvedApps]:
    """``take()``: the head, which becomes the app being processed. Java blocks on an empty
    queue; here ``None`` comes back and nothing is being processed any more."""
    if not queue.heap:
        return None, StarvedApps((), None)
    heap = list(queue.heap)
    head = heap_poll(heap, by_starvation(starvation))
    return head, StarvedApps(tuple(heap), head)

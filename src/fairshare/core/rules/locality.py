"""Delay scheduling: the allowed locality level of one (app, scheduler key)
(docs/semantics.md §3.6.3).

YARN keeps three per-key maps in the app attempt — ``allowedLocalityLevel``,
``schedulingOpportunities`` and ``lastScheduledContainer`` (read only by the time-based variant
of continuous scheduling, which the engine does not model; ``tests/oracles/rules.py`` keeps
it). Here they are one frozen
:class:`LocalityState` per key, and every step is a function returning the next state:

* :func:`add_opportunity` — the app was offered a node for the key (after
  ``hasContainerForNode`` passed), counted whether or not it then allocates;
* :func:`allowed_locality` — heartbeat-driven variant (``locality.threshold.node/rack``);
* :func:`on_allocation` — ``allocate`` raising the level back after a more local allocation.

:func:`offer` chains the first two, which is what one heartbeat offer does (§3.6.2).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

from fairshare.resources.vector import float32


class Locality(Enum):
    """YARN's ``NodeType``, from most to least local."""

    NODE_LOCAL = 0
    RACK_LOCAL = 1
    OFF_SWITCH = 2

    def relaxed(self) -> Locality:
        """The next, less local level (OFF_SWITCH stays)."""
        return Locality(min(self.value + 1, Locality.OFF_SWITCH.value))


@dataclass(frozen=True, slots=True)
class LocalityState:
    """Delay-scheduling state of one scheduler key of one app."""

    level: Locality | None = None  # None: the key is not in allowedLocalityLevel yet
    opportunities: int = 0  # schedulingOpportunities[key]
    last_scheduled: int | None = None  # lastScheduledContainer[key] (time-based variant only)


def add_opportunity(state: LocalityState) -> LocalityState:
    """``addSchedulingOpportunity``: one more node offered for this key."""
    return replace(state, opportunities=state.opportunities + 1)


def first_sight(state: LocalityState, now: int | None) -> LocalityState:
    """The key seen for the first time: NODE_LOCAL, and (time-based variant) ``now`` noted."""
    last = state.last_scheduled if now is None else now
    return replace(state, level=Locality.NODE_LOCAL, last_scheduled=last)


def relax(
    state: LocalityState, level: Locality, now: int | None
) -> tuple[Locality, LocalityState]:
    """Move one level down and reset the counter: the only place it is reset (§3.6.3); the
    time-based variant notes ``now`` (``None``: the heartbeat-driven one, nothing noted)."""
    last = state.last_scheduled if now is None else now
    return level.relaxed(), LocalityState(level.relaxed(), 0, last)


def allowed_locality(
    state: LocalityState, *, num_nodes: int, node_threshold: float, rack_threshold: float
) -> tuple[Locality, LocalityState]:
    """``getAllowedLocalityLevel``: relax once ``opportunities > numNodes × threshold``.

    The thresholds are Java floats (float32, §0.2) clamped to 1.0; either one negative disables
    delay scheduling (OFF_SWITCH, state untouched). The comparison is strict and in doubles,
    so 10 nodes × 0.2f = 2.0000000298 needs a third opportunity.
    """
    node_t, rack_t = min(float32(node_threshold), 1.0), min(float32(rack_threshold), 1.0)
    if node_t < 0.0 or rack_t < 0.0:
        return Locality.OFF_SWITCH, state
    if state.level is None:
        return Locality.NODE_LOCAL, first_sight(state, None)
    if state.level is Locality.OFF_SWITCH:
        return Locality.OFF_SWITCH, state
    threshold = node_t if state.level is Locality.NODE_LOCAL else rack_t
    if state.opportunities > num_nodes * threshold:
        return relax(state, state.level, None)
    return state.level, state


def offer(
    state: LocalityState, *, num_nodes: int, node_threshold: float, rack_threshold: float
) -> tuple[Locality, LocalityState]:
    """One heartbeat offer of a node for the key (§3.6.2): count it, then ask the level."""
    return allowed_locality(
        add_opportunity(state),
        num_nodes=num_nodes, node_threshold=node_threshold, rack_threshold=rack_threshold,
    )


def on_allocation(state: LocalityState, allocated: Locality) -> LocalityState:
    """``allocate``: an allocation more local than the allowed level raises the level to the
    allocation's type; the opportunity counter is *not* reset (§3.6.2, §3.6.3)."""
    if state.level is None or allocated.value >= state.level.value:
        return state
    return replace(state, level=allocated)

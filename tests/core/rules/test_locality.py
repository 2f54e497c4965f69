"""Delay scheduling state machine (docs/semantics.md §3.6.3, vector of §8.2)."""

from __future__ import annotations

import pytest

from fairshare.core.rules.locality import (
    Locality,
    LocalityState,
    allowed_locality,
    offer,
    on_allocation,
)
from fairshare.resources.vector import float32
from tests.oracles.rules import allowed_locality_by_time

NODE, RACK, OFF = Locality.NODE_LOCAL, Locality.RACK_LOCAL, Locality.OFF_SWITCH


def offers(count: int, *, nodes: int = 10, node_t: float = 0.2, rack_t: float = 0.3,
           state: LocalityState | None = None) -> tuple[list[Locality], LocalityState]:
    levels: list[Locality] = []
    state = state or LocalityState()
    for _ in range(count):
        level, state = offer(state, num_nodes=nodes, node_threshold=node_t, rack_threshold=rack_t)
        levels.append(level)
    return levels, state


def test_delay_scheduling_vector() -> None:
    # §8.2: 10 nodes × 0.2f = 2.0000000298 opportunities: offers 1 and 2 stay NODE_LOCAL,
    # the 3rd (counter 3 > 2.00000003) relaxes to RACK_LOCAL and resets the counter
    assert 10 * float32(0.2) > 2.0
    levels, state = offers(3)
    assert levels == [NODE, NODE, RACK]
    assert state == LocalityState(RACK, 0)


def test_rack_threshold_minus_one_means_no_delay() -> None:
    levels, state = offers(3, rack_t=-1.0)
    assert levels == [OFF, OFF, OFF]
    assert state == LocalityState(None, 3)  # nothing recorded but the opportunities


def test_node_threshold_minus_one_means_no_delay() -> None:
    assert offers(1, node_t=-1.0, rack_t=0.5)[0] == [OFF]


def test_rack_to_off_switch_after_its_own_threshold() -> None:
    # after the relaxation on offer 3, rack threshold 10 × 0.3f = 3.0000001 → OFF_SWITCH on the
    # 4th offer after it
    levels, state = offers(7)
    assert levels == [NODE, NODE, RACK, RACK, RACK, RACK, OFF]
    assert state == LocalityState(OFF, 0)
    assert offers(2, state=state)[0] == [OFF, OFF]


def test_thresholds_above_one_are_clamped() -> None:
    levels, _ = offers(12, nodes=10, node_t=5.0, rack_t=5.0)
    assert levels == [NODE] * 10 + [RACK, RACK]  # relax once 11 > 10 × 1.0


def test_zero_threshold_relaxes_on_the_second_offer() -> None:
    # the first offer only records the key; the second has 2 > 0
    assert offers(3, node_t=0.0, rack_t=0.0)[0] == [NODE, RACK, OFF]


def test_asking_without_an_offer_does_not_count() -> None:
    level, state = allowed_locality(LocalityState(NODE, 2), num_nodes=10, node_threshold=0.2,
                                    rack_threshold=0.3)
    assert (level, state) == (NODE, LocalityState(NODE, 2))


@pytest.mark.parametrize(
    ("allowed", "allocated", "after"),
    [
        pytest.param(OFF, NODE, NODE, id="off-switch allowed, node-local allocation"),
        pytest.param(OFF, RACK, RACK, id="off-switch allowed, rack-local allocation"),
        pytest.param(RACK, NODE, NODE, id="rack allowed, node-local allocation"),
        pytest.param(RACK, OFF, RACK, id="rack allowed, off-switch allocation"),
        pytest.param(NODE, NODE, NODE, id="node allowed stays"),
    ],
)
def test_allocation_raises_the_level_without_resetting_the_counter(
    allowed: Locality, allocated: Locality, after: Locality
) -> None:
    assert on_allocation(LocalityState(allowed, 5), allocated) == LocalityState(after, 5)


def test_allocation_for_an_unseen_key_changes_nothing() -> None:
    assert on_allocation(LocalityState(), NODE) == LocalityState()


# -- time-based variant (continuous scheduling) ---------------------------------------------------


def by_time(state: LocalityState, now: int, *, node_ms: int = 100, rack_ms: int = 200,
            start: int = 0) -> tuple[Locality, LocalityState]:
    return allowed_locality_by_time(state, node_delay_ms=node_ms, rack_delay_ms=rack_ms, now=now,
                                    start_time=start)


def test_time_based_relaxation_is_strict_and_resets() -> None:
    level, state = by_time(LocalityState(opportunities=4), 1000)
    assert (level, state) == (NODE, LocalityState(NODE, 4, 1000))  # first sight stamps "now"
    assert by_time(state, 1100)[0] == NODE  # 100 is not > 100
    level, state = by_time(state, 1101)
    assert (level, state) == (RACK, LocalityState(RACK, 0, 1101))
    assert by_time(state, 1301)[0] == RACK
    assert by_time(state, 1302) == (OFF, LocalityState(OFF, 0, 1302))


def test_time_based_negative_delay_disables() -> None:
    assert by_time(LocalityState(), 5, rack_ms=-1) == (OFF, LocalityState())


def test_time_based_falls_back_to_app_start_time() -> None:
    # a level recorded without a timestamp (never the case in one run mode): start time counts
    assert by_time(LocalityState(NODE), 150, start=40)[0] == RACK
    assert by_time(LocalityState(NODE), 140, start=40)[0] == NODE

"""ComputeFairShares (docs/semantics.md §2.3): every worked vector of that section holds exactly.

Each test runs twice: on the engine's solver, and on the line-by-line port of YARN's code
(``tests/oracles/shares.py``) that it is checked against on random inputs elsewhere.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshare.core.shares.solver import ShareInput, compute_shares
from fairshare.resources.vector import LONG_MAX, float32
from tests.oracles.shares import compute_shares_reference

Solver = Callable[[Sequence[ShareInput], int, bool], list[int]]
# every test below, on both solvers
pytestmark = pytest.mark.parametrize("solve", [compute_shares, compute_shares_reference],
                                     ids=["engine", "reference"])

U = LONG_MAX


def s(weight: float, min_share: int = 0, max_share: int = U, active: bool = True) -> ShareInput:
    return ShareInput(float32(weight), min_share, max_share, active=active, is_queue=True)


# The table of §2.3 ("U" = unbounded max), total 10000 unless stated.
SPEC_VECTORS = [
    pytest.param([s(2), s(1), s(1)], 10000, False, [5000, 2500, 2500], id="weights 2:1:1"),
    pytest.param([s(1, 6000), s(1)], 10000, False, [6000, 4000], id="min share 6000 honoured"),
    pytest.param([s(1, 0, 2000), s(1), s(1)], 10000, False, [2000, 4000, 4000], id="max caps"),
    pytest.param(
        [s(1), s(1), s(1, 3000, active=False)], 10000, False, [5000, 5000, 0],
        id="inactive queue gets 0 instantaneous, even with a min share",
    ),
    pytest.param(
        [s(1), s(1), s(1, 3000, active=False)], 10000, True, [3334, 3334, 3334],
        id="steady ignores activity; upper bound gives 3334 each (sum 10002)",
    ),
    pytest.param([s(1), s(1), s(1, 4000)], 10000, True, [3000, 3000, 4000], id="steady min 4000"),
    pytest.param([s(0, 2000), s(1)], 10000, False, [2000, 8000], id="zero weight gets its min"),
    pytest.param([s(1, 8000), s(1, 8000)], 10000, False, [8000, 8000], id="mins never scaled"),
    pytest.param([s(1, 500), s(1)], 0, False, [500, 0], id="total 0 still gives the min"),
    pytest.param([s(1)] * 3, 1000, False, [334, 334, 334], id="three equal share 1000"),
    pytest.param([s(1)] * 3, 8192, False, [2731, 2731, 2731], id="three equal share 8192"),
    pytest.param([s(1)] * 2, 10240, False, [5120, 5120], id="two equal share 10240"),
    pytest.param([s(0.1), s(0.3)], 1000, False, [250, 750], id="float32 weights 0.1 and 0.3"),
]


@pytest.mark.parametrize(("items", "total", "steady", "expected"), SPEC_VECTORS)
def test_spec_vectors(
    solve: Solver,
    items: list[ShareInput], total: int, steady: bool, expected: list[int]
) -> None:
    assert solve(items, total, steady) == expected


def test_zero_weight_is_not_capped_by_its_max(solve: Solver) -> None:
    # §2.3: zero-weight schedulables get exactly their min share, not capped by max
    assert solve([s(0, 3000, 1000), s(1)], 10000, False) == [3000, 7000]


def test_non_positive_max_is_fixed_at_zero(solve: Solver) -> None:
    assert solve([s(1, 500, 0), s(1)], 10000, False) == [0, 10000]


def test_negative_weight_behaves_like_zero(solve: Solver) -> None:
    assert solve([s(-1, 2000), s(1)], 10000, False) == [2000, 8000]


def test_saturating_sums_with_a_long_max_total(solve: Solver) -> None:
    # Five equal queues sharing 2^63-1: doubling stops at R = 2^61 (5·2^61 saturates).
    # Bisection: 2^60 → 5·2^60 < total; 1.5·2^60 → still below; 1.75·2^60 → 5× saturates to
    # exactly 2^63-1 == total, so the search stops there and everyone gets 1.75·2^60 = 7·2^58.
    assert solve([s(1)] * 5, LONG_MAX, False) == [7 * 2**58] * 5


def test_apps_are_never_inactive(solve: Solver) -> None:
    app = ShareInput(1.0, 0, U, active=False, is_queue=False)
    assert solve([app, app], 100, False) == [50, 50]


def test_total_is_capped_by_the_sum_of_max_shares(solve: Solver) -> None:
    assert solve([s(1, 0, 100), s(1, 0, 200)], 10000, False) == [100, 200]


weights = st.sampled_from([0.0, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 7.0])
mins = st.sampled_from([0, 0, 0, 100, 1000, 5000])
maxes = st.sampled_from([U, U, 0, 500, 3000, 20000])
share_inputs = st.lists(st.builds(s, weights, mins, maxes, st.booleans()), min_size=1, max_size=6)
totals = st.integers(min_value=0, max_value=200_000)


@given(share_inputs, totals, st.booleans())
def test_share_never_exceeds_max_unless_the_min_forces_it(
    solve: Solver,
    items: list[ShareInput], total: int, steady: bool
) -> None:
    for item, share in zip(items, solve(items, total, steady), strict=True):
        assert share >= 0
        if item.max_share > 0:
            assert share <= max(item.max_share, item.min_share)
        else:
            assert share == 0


@given(share_inputs, totals)
def test_inactive_queues_get_zero_instantaneous_share(
    solve: Solver, items: list[ShareInput], total: int
) -> None:
    for item, share in zip(items, solve(items, total, False), strict=True):
        if not item.active:
            assert share == 0


@given(share_inputs, totals, st.booleans(), st.data())
def test_doubling_a_weight_never_lowers_that_share(
    solve: Solver,
    items: list[ShareInput], total: int, steady: bool, data: st.DataObject
) -> None:
    i = data.draw(st.integers(0, len(items) - 1))
    before = solve(items, total, steady)[i]
    doubled = list(items)
    doubled[i] = ShareInput(
        items[i].weight * 2, items[i].min_share, items[i].max_share, items[i].active, True
    )
    assert solve(doubled, total, steady)[i] >= before


def test_nan_weight_takes_nothing_and_the_search_still_ends(solve: Solver) -> None:
    # share(NaN·R) is (long) NaN = 0. The other queue's used(R) = trunc(R) first reaches 1000
    # at R = 1024; bisection: 512, 768, 896, 960, 992 below, 1008 above, 1000 hits → hi = 1000.
    assert solve([s(float("nan")), s(1)], 1000, False) == [0, 1000]


def test_only_nan_weights_end_at_infinity_with_nothing_given(solve: Solver) -> None:
    # YARN would double forever here (docs/fidelity.md); we stop at R = inf and give 0.
    assert solve([s(float("nan"))], 1000, False) == [0]


# Hadoop's own TestComputeFairShares (an independent reference): same inputs, same answers.
# FakeSchedulable(min, max, weight) defaults to min 0, max unbounded, weight 1; not a queue.
def fake(min_share: int = 0, max_share: int = U, weight: float = 1.0) -> ShareInput:
    return ShareInput(float32(weight), min_share, max_share, active=True, is_queue=False)


HADOOP_VECTORS = [
    pytest.param([fake()] * 4, 40, [10, 10, 10, 10], id="testEqualSharing"),
    pytest.param([fake(0, 100), fake(0, 50), fake(0, 11), fake(0, 3)], 40, [13, 13, 11, 3],
                 id="testLowMaxShares"),
    pytest.param([fake(20), fake(18), fake(0), fake(2)], 40, [20, 18, 0, 2], id="testMinShares"),
    pytest.param([fake(0, U, 2.0), fake(), fake(), fake(0, U, 0.5)], 45, [20, 10, 10, 5],
                 id="testWeightedSharing"),
    pytest.param([fake(0, 10, 2.0), fake(0, 11), fake(0, 30), fake(0, 20, 0.5)], 45,
                 [10, 11, 16, 8], id="testWeightedSharingWithMaxShares"),
    pytest.param([fake(20, U, 2.0), fake(0), fake(5), fake(15, U, 0.5)], 45, [20, 5, 5, 15],
                 id="testWeightedSharingWithMinShares"),
    pytest.param([fake()] * 4, 40 * 10**6, [10 * 10**6] * 4, id="testLargeShares"),
    pytest.param([], 40, [], id="testEmptyList"),
    pytest.param([fake(2**31 - 1), fake(2**31 - 1)], 2**31 - 1, [2**31 - 1] * 2,
                 id="testResourceUsedWithWeightToResourceRatio terminates"),
]


@pytest.mark.parametrize(("items", "total", "expected"), HADOOP_VECTORS)
def test_hadoop_compute_fair_shares_vectors(
    solve: Solver,
    items: list[ShareInput], total: int, expected: list[int]
) -> None:
    assert solve(items, total, False) == expected

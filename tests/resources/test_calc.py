"""Resource calculators (docs/semantics.md §0.2): memory-only and dominant, with singleType."""

from __future__ import annotations

import math

import pytest

from fairshare.resources.calc import DEFAULT, DOMINANT
from fairshare.resources.vector import Resource, res

CLUSTER = res(10000, 100)


def test_default_compares_memory_only() -> None:
    assert DEFAULT.compare(CLUSTER, res(10, 1), res(10, 99)) == 0
    assert DEFAULT.compare(CLUSTER, res(11, 1), res(10, 99)) == 1
    assert DEFAULT.compare(CLUSTER, res(9, 100), res(10, 1)) == -1


def test_default_ratio_edge_cases() -> None:
    assert DEFAULT.ratio(res(0, 5), res(0, 1)) == 0.0
    assert DEFAULT.ratio(res(5, 0), res(0, 1)) == math.inf
    assert DEFAULT.ratio(res(5, 0), res(10, 1)) == 0.5


def test_default_fits_in_ignores_vcores() -> None:
    assert DEFAULT.fits_in(res(10, 99), res(10, 1))


@pytest.mark.parametrize(
    ("a", "b", "single", "expected"),
    [
        pytest.param(res(5, 5), res(5, 5), False, 0, id="equal vectors compare 0"),
        # shares: a = (0.1, 0.5) dominant vcores 0.5; b = (0.4, 0.1) dominant memory 0.4
        pytest.param(res(1000, 50), res(4000, 10), False, 1, id="dominant shares decide"),
        # a = (0.5, 0.2), b = (0.2, 0.5): dominants tie at 0.5; others 0.2 vs 0.2 → 0
        pytest.param(res(5000, 20), res(2000, 50), False, 0, id="tie on both shares"),
        # a = (0.5, 0.3), b = (0.5, 0.2): dominant tie, non-dominant decides
        pytest.param(res(5000, 30), res(5000, 20), False, 1, id="non-dominant breaks a tie"),
        pytest.param(res(1000, 50), res(4000, 10), True, 1, id="single type: max share"),
        pytest.param(res(4000, 10), res(1000, 50), True, -1, id="single type: reversed"),
    ],
)
def test_dominant_compare(a: Resource, b: Resource, single: bool, expected: int) -> None:
    assert DOMINANT.compare(CLUSTER, a, b, single) == expected


def test_dominant_empty_cluster_uses_pure_dominance() -> None:
    empty = res(0, 0)
    assert DOMINANT.compare(empty, res(2, 2), res(1, 2)) == 1
    assert DOMINANT.compare(empty, res(1, 1), res(1, 2)) == -1
    assert DOMINANT.compare(empty, res(2, 1), res(1, 2)) == 0


def test_dominant_single_type_skips_types_missing_from_the_cluster() -> None:
    cluster = res(10000, 100, 0)  # no GPUs in the cluster: their share is +inf, skipped
    assert DOMINANT.compare(cluster, res(1000, 10, 5), res(2000, 10, 0), True) == -1


def test_dominant_n_types_compares_sorted_shares_from_the_top() -> None:
    cluster = res(100, 100, 100)
    # a sorted shares (0.1, 0.2, 0.5); b (0.1, 0.3, 0.5): top equal, next 0.2 < 0.3
    assert DOMINANT.compare(cluster, res(50, 10, 20), res(10, 50, 30)) == -1


def test_dominant_ratio_is_the_largest_component_ratio() -> None:
    assert DOMINANT.ratio(res(10, 3), res(100, 4)) == pytest.approx(0.75)
    assert DOMINANT.ratio(res(0, 0), res(100, 4)) == 0.0


# Hadoop's TestResourceCalculator vectors (an independent reference), checked both ways round.
def assert_comparison(calc: object, cluster: Resource, a: Resource, b: Resource, want: int) -> None:
    compare = calc.compare  # type: ignore[attr-defined]
    assert compare(cluster, a, b) == want, (a, b)
    assert compare(cluster, b, a) == -want, (b, a)


COMMON_2 = [((1, 1), (1, 1), 0), ((0, 0), (0, 0), 0), ((2, 2), (1, 1), 1), ((2, 2), (0, 0), 1)]
DEFAULT_2 = [((1, 1), (1, 1), 0), ((1, 2), (1, 1), 0), ((1, 1), (1, 0), 0), ((2, 1), (1, 1), 1),
             ((2, 1), (1, 2), 1), ((2, 1), (1, 0), 1)]
DOMINANT_2 = [((2, 1), (2, 1), 0), ((2, 1), (1, 2), 0), ((2, 1), (1, 1), 1), ((2, 2), (2, 1), 1),
              ((2, 2), (1, 2), 1), ((3, 1), (3, 0), 1)]
COMMON_3 = [((1, 1, 1), (1, 1, 1), 0), ((0, 0, 0), (0, 0, 0), 0), ((2, 2, 2), (1, 1, 1), 1),
            ((2, 2, 2), (0, 0, 0), 1)]
DEFAULT_3 = [((1, 1, 2), (1, 1, 1), 0), ((1, 2, 1), (1, 1, 1), 0), ((1, 2, 2), (1, 1, 1), 0),
             ((1, 2, 2), (1, 0, 0), 0), ((2, 1, 1), (1, 1, 1), 1), ((2, 1, 1), (1, 2, 1), 1),
             ((2, 1, 1), (1, 1, 2), 1), ((2, 1, 1), (1, 2, 2), 1), ((2, 1, 1), (1, 0, 0), 1)]
DOMINANT_3 = [
    ((2, 1, 1), (2, 1, 1), 0), ((2, 1, 1), (1, 2, 1), 0), ((2, 1, 1), (1, 1, 2), 0),
    ((2, 1, 0), (0, 1, 2), 0), ((2, 2, 1), (1, 2, 2), 0), ((2, 2, 1), (2, 1, 2), 0),
    ((2, 2, 1), (2, 2, 1), 0), ((2, 2, 0), (2, 0, 2), 0), ((3, 2, 1), (3, 2, 1), 0),
    ((3, 2, 1), (3, 1, 2), 0), ((3, 2, 1), (1, 2, 3), 0), ((3, 2, 1), (1, 3, 2), 0),
    ((3, 2, 1), (2, 1, 3), 0), ((3, 2, 1), (2, 3, 1), 0), ((2, 1, 1), (1, 1, 1), 1),
    ((2, 1, 1), (1, 1, 0), 1), ((2, 2, 1), (2, 1, 1), 1), ((2, 2, 1), (1, 2, 1), 1),
    ((2, 2, 1), (1, 1, 2), 1), ((2, 2, 1), (0, 2, 2), 1), ((2, 2, 2), (2, 1, 1), 1),
    ((2, 2, 2), (1, 2, 1), 1), ((2, 2, 2), (1, 1, 2), 1), ((2, 2, 2), (2, 2, 1), 1),
    ((2, 2, 2), (2, 1, 2), 1), ((2, 2, 2), (1, 2, 2), 1), ((3, 2, 1), (2, 2, 2), 1),
    ((3, 1, 1), (2, 2, 2), 1), ((3, 1, 1), (3, 1, 0), 1), ((3, 1, 1), (3, 0, 0), 1),
]


@pytest.mark.parametrize(
    ("calc", "cases", "cluster"),
    [
        pytest.param(DEFAULT, COMMON_2 + DEFAULT_2, res(4, 4), id="testCompare2 default"),
        pytest.param(DOMINANT, COMMON_2 + DOMINANT_2, res(4, 4), id="testCompare2 dominant"),
        pytest.param(DEFAULT, COMMON_3 + DEFAULT_3, res(4, 4, 4), id="testCompare default"),
        pytest.param(DOMINANT, COMMON_3 + DOMINANT_3, res(4, 4, 4), id="testCompare dominant"),
    ],
)
def test_hadoop_resource_calculator_vectors(
    calc: object, cases: list[tuple[tuple[int, ...], tuple[int, ...], int]], cluster: Resource
) -> None:
    for a, b, want in cases:
        assert_comparison(calc, cluster, res(*a), res(*b), want)


@pytest.mark.parametrize("calc", [DEFAULT, DOMINANT], ids=["default", "dominant"])
def test_hadoop_compare_with_empty_cluster(calc: object) -> None:
    empty = res(0, 0)
    assert_comparison(calc, empty, res(0, 0), res(0, 0), 0)
    assert_comparison(calc, empty, res(1, 1), res(0, 0), 1)


def test_hadoop_dominant_empty_cluster_mixed_vectors() -> None:
    empty = res(0, 0)
    assert_comparison(DOMINANT, empty, res(1, 0), res(0, 1), 0)
    assert_comparison(DOMINANT, empty, res(1, 1), res(1, 0), 1)
    assert_comparison(DOMINANT, empty, res(1, 1), res(0, 1), 1)

"""Ordering comparators (docs/semantics.md §3.5) and policy rules (§2.6.4)."""

from __future__ import annotations

import pytest

from fairshare.config.model import PolicyName
from fairshare.core.rules.policies import (
    SchedulableView,
    comparator_for,
    compare_drf2,
    compare_drfn,
    compare_fair,
    compare_fifo,
    is_child_policy_allowed,
    java_string_compare,
)
from fairshare.resources.vector import Resource, res
from tests.oracles.rules import sort_schedulables

CLUSTER = res(100_000, 100)


def view(
    name: str,
    *,
    usage: Resource = res(0, 0),
    demand: Resource = res(1, 1),
    min_share: Resource = res(0, 0),
    weight: float = 1.0,
    start: int = 0,
) -> SchedulableView:
    return SchedulableView(name, demand, usage, min_share, weight, start)


# -- fair ------------------------------------------------------------------------------------


def test_fair_no_demand_goes_last() -> None:
    idle = view("a", demand=res(0, 0))
    busy = view("b", usage=res(50_000, 5), demand=res(60_000, 6))
    assert compare_fair(idle, busy, CLUSTER) == 1
    assert compare_fair(busy, idle, CLUSTER) == -1


def test_fair_demand_test_reads_memory_only() -> None:
    # vcores-only demand counts as "no demand" for the fair comparator
    a = view("a", demand=res(0, 5))
    b = view("b", demand=res(10, 0), usage=res(99_999, 0))
    assert compare_fair(a, b, CLUSTER) == 1


def test_fair_needy_one_goes_first() -> None:
    needy = view("z", usage=res(1000, 1), demand=res(8000, 1), min_share=res(4000, 0))
    rich = view("a", usage=res(10, 1), demand=res(8000, 1))
    assert compare_fair(needy, rich, CLUSTER) == -1


def test_fair_neediness_is_against_min_of_min_share_and_demand() -> None:
    # min share 4000 but demand 1000 and usage 1000: not needy (1000 < min(4000, 1000) fails)
    sated = view("z", usage=res(1000, 1), demand=res(1000, 1), min_share=res(4000, 0))
    other = view("a", usage=res(10, 1), demand=res(8000, 1))
    assert compare_fair(sated, other, CLUSTER) == 1  # falls through to usage/weight


def test_fair_both_needy_smaller_min_share_ratio_first() -> None:
    a = view("a", usage=res(3000, 0), demand=res(9000, 0), min_share=res(4000, 0))  # 0.75
    b = view("b", usage=res(1000, 0), demand=res(9000, 0), min_share=res(2000, 0))  # 0.5
    assert compare_fair(a, b, CLUSTER) == 1


def test_fair_usage_over_weight() -> None:
    a = view("a", usage=res(3000, 0), weight=2.0)  # 1500
    b = view("b", usage=res(2000, 0), weight=1.0)  # 2000
    assert compare_fair(a, b, CLUSTER) == -1


@pytest.mark.parametrize(
    ("w1", "w2", "expected"),
    [
        pytest.param(0.0, 1.0, 1, id="zero weight loses to positive"),
        pytest.param(2.0, 0.0, -1, id="positive beats zero"),
        pytest.param(-1.0, 0.0, 1, id="negative loses to zero"),
    ],
)
def test_fair_zero_and_negative_weights(w1: float, w2: float, expected: int) -> None:
    a = view("a", usage=res(0, 0), weight=w1)
    b = view("b", usage=res(50_000, 0), weight=w2)
    assert compare_fair(a, b, CLUSTER) == expected


def test_fair_both_zero_weight_compares_usage() -> None:
    a = view("b", usage=res(10, 0), weight=0.0)
    b = view("a", usage=res(20, 0), weight=0.0)
    assert compare_fair(a, b, CLUSTER) == -1


def test_tie_break_start_time_then_name() -> None:
    assert compare_fair(view("b", start=1), view("a", start=2), CLUSTER) == -1
    assert compare_fair(view("root.b"), view("root.a"), CLUSTER) == 1


def test_java_string_order_uses_utf16_code_units() -> None:
    # U+FF5E (one code unit 0xFF5E) vs U+1F600 (surrogates 0xD83D…): Java puts the emoji first.
    assert java_string_compare("\U0001F600", "\uff5e") == -1
    assert ("\U0001F600" < "\uff5e") is False  # Python's code-point order differs


def test_fifo_orders_by_start_time_then_name() -> None:
    assert compare_fifo(view("b", start=5), view("a", start=9), CLUSTER) == -1
    assert compare_fifo(view("b", start=5), view("a", start=5), CLUSTER) == 1


# -- drf -------------------------------------------------------------------------------------


def test_drf2_compares_dominant_shares_over_weight() -> None:
    # a: mem 0.2, vcores 0.1 → dominant mem 0.2; weight 2 → 0.1
    # b: mem 0.05, vcores 0.15 → dominant vcores 0.15
    a = view("a", usage=res(20_000, 10), weight=2.0)
    b = view("b", usage=res(5_000, 15))
    assert compare_drf2(a, b, CLUSTER) == -1


def test_drf2_ignores_demand() -> None:
    idle = view("a", demand=res(0, 0))
    busy = view("b", usage=res(1000, 1))
    assert compare_drf2(idle, busy, CLUSTER) == -1  # no "no demand goes last" under drf


def test_drf2_needy_first() -> None:
    needy = view("z", usage=res(50_000, 50), min_share=res(60_000, 0))
    lean = view("a", usage=res(1000, 1))
    assert compare_drf2(needy, lean, CLUSTER) == -1


def test_drf2_yarn_11482_neediness_reads_each_side_own_usage() -> None:
    # s1: shares (0.01, 0.6), dominant vcores, weight 10 → weighted 0.06; not needy.
    # s2: shares (0.01, 0.4), dominant vcores, weight 1 → 0.4; 40 < min 50 vcores → needy.
    s1 = view("a", usage=res(1000, 60), weight=10.0)
    s2 = view("b", usage=res(1000, 40), min_share=res(0, 50))
    assert compare_drf2(s1, s2, CLUSTER) == 1  # 3.4: the needy s2 goes first
    # Before 3.4, s2's neediness tested s1's usage: 60 < 50 is false, so neither is needy and
    # the weighted dominant shares decide: 0.06 < 0.4 puts s1 first.
    assert compare_drf2(s1, s2, CLUSTER, yarn_11482=False) == -1


def test_drfn_uses_sorted_usage_shares() -> None:
    cluster = res(100, 100, 10)
    # a: shares (0.5, 0.1, 0.0) ; b: (0.1, 0.2, 0.5) — top shares tie at 0.5, next 0.1 < 0.2
    a = view("a", usage=res(50, 10, 0), demand=res(1, 1, 0), min_share=res(0, 0, 0))
    b = view("b", usage=res(10, 20, 5), demand=res(1, 1, 0), min_share=res(0, 0, 0))
    assert compare_drfn(a, b, cluster) == -1


def test_comparator_choice() -> None:
    assert comparator_for(PolicyName.FAIR, 2) is compare_fair
    assert comparator_for(PolicyName.FIFO, 3) is compare_fifo
    assert comparator_for(PolicyName.DRF, 2) is compare_drf2
    assert comparator_for(PolicyName.DRF, 3) is compare_drfn


@pytest.mark.parametrize(
    ("parent", "child", "allowed"),
    [
        (PolicyName.FAIR, PolicyName.FAIR, True),
        (PolicyName.FAIR, PolicyName.FIFO, True),
        (PolicyName.FAIR, PolicyName.DRF, False),
        (PolicyName.DRF, PolicyName.DRF, True),
        (PolicyName.DRF, PolicyName.FIFO, True),
        (PolicyName.FIFO, PolicyName.FAIR, False),
    ],
)
def test_child_policy_compatibility(parent: PolicyName, child: PolicyName, allowed: bool) -> None:
    assert is_child_policy_allowed(parent, child) is allowed


def test_sort_orders_by_the_policy() -> None:
    items = [
        view("root.c", usage=res(3000, 0)),
        view("root.a", usage=res(1000, 0)),
        view("root.idle", demand=res(0, 0)),
        view("root.b", usage=res(1000, 0)),
    ]
    ordered = sort_schedulables(items, PolicyName.FAIR, CLUSTER)
    assert [s.name for s in ordered] == ["root.a", "root.b", "root.c", "root.idle"]


def test_drf2_both_needy_compare_min_share_ratios() -> None:
    # both dominant in memory (ties go to memory); ratios 1000/4000 = 0.25 vs 3000/4000 = 0.75
    a = view("b", usage=res(1000, 1), min_share=res(4000, 10))
    b = view("a", usage=res(3000, 1), min_share=res(4000, 10))
    assert compare_drf2(a, b, CLUSTER) == -1


def test_drf2_nan_ratio_compares_equal_and_falls_to_the_name() -> None:
    # both needy with min vcores 0 and no usage: the vcores ratio is 0/0 = NaN → signum 0
    a = view("b", usage=res(0, 0), min_share=res(100, 0))
    b = view("a", usage=res(0, 0), min_share=res(100, 0))
    assert compare_drf2(a, b, CLUSTER) == 1  # "b" > "a"


def test_drfn_uses_float32_shares() -> None:
    # (float) 16777217 rounds to 16777216, so both memory shares are exactly 0.5 in float32
    # (in doubles s1 would be larger) and the name decides.
    cluster = res(2**25, 100, 10)
    s1 = view("a", usage=res(2**24 + 1, 1, 0), demand=res(1, 1, 0), min_share=res(0, 0, 0))
    s2 = view("b", usage=res(2**24, 1, 0), demand=res(1, 1, 0), min_share=res(0, 0, 0))
    assert compare_drfn(s1, s2, cluster) == -1


def test_drfn_both_needy_compare_min_share_ratios() -> None:
    cluster = res(100, 100, 10)
    # dominant: memory for both; needy (usage < min in memory); ratios 0.5 vs 0.25 from the top
    s1 = view("a", usage=res(20, 1, 0), demand=res(1, 1, 0), min_share=res(40, 10, 1))
    s2 = view("b", usage=res(10, 1, 0), demand=res(1, 1, 0), min_share=res(40, 10, 1))
    assert compare_drfn(s1, s2, cluster) == 1


def test_fair_min_share_ratio_uses_doubles_above_2_pow_53() -> None:
    # Java converts to double before dividing: (double)(2^53+1) = 2^53, so s1's ratio is
    # 2^53/(2^53+2) = 1 − 2^-52 while s2's is 2^53/(double)(2^53+1) = 2^53/2^53 = 1.0:
    # s1 first. Exact division would round both to 1 − 2^-53, tie all the way down to the
    # names, and put s2 ("a") first.
    big = 2**53
    s1 = view("b", usage=res(big + 1, 0), demand=res(big + 2, 0), min_share=res(big + 2, 0))
    s2 = view("a", usage=res(big, 0), demand=res(big + 1, 0), min_share=res(big + 1, 0))
    assert compare_fair(s1, s2, CLUSTER) == -1


# Hadoop's TestDominantResourceFairnessPolicy (an independent reference). Hadoop runs them with
# a third resource type "test" that is 0 everywhere, i.e. through ComparatorN; we run both
# comparators. "s1 first" means compare(s1, s2) < 0.
def drf_pair(
    cluster: tuple[int, int],
    s1: tuple[int, int, float, int, int],
    s2: tuple[int, int, float, int, int],
) -> list[int]:
    def sched(name: str, spec: tuple[int, int, float, int, int], n: int) -> SchedulableView:
        mem, cpu, weight, min_mem, min_cpu = spec
        pad = (0,) * (n - 2)
        return SchedulableView(name, res(0, 0, *pad), res(mem, cpu, *pad),
                               res(min_mem, min_cpu, *pad), float(weight), 0)

    two = compare_drf2(sched("s1", s1, 2), sched("s2", s2, 2), res(*cluster))
    three = compare_drfn(sched("s1", s1, 3), sched("s2", s2, 3), res(*cluster, 0))
    return [two, three]


@pytest.mark.parametrize(
    ("cluster", "s1", "s2"),
    [
        pytest.param((8000, 4), (1000, 1, 1.0, 0, 0), (2000, 1, 1.0, 0, 0),
                     id="testSameDominantResource"),
        pytest.param((8000, 8), (4000, 3, 1.0, 0, 0), (2000, 5, 1.0, 0, 0),
                     id="testDifferentDominantResource"),
        pytest.param((8000, 8), (2000, 5, 1.0, 0, 6), (4000, 3, 1.0, 0, 0),
                     id="testOneIsNeedy"),
        pytest.param((8000, 100), (2000, 5, 1.0, 0, 0), (4000, 3, 1.0, 0, 0),
                     id="testBothAreNeedy part 1 (dominant shares)"),
        pytest.param((8000, 100), (2000, 5, 1.0, 3000, 6), (4000, 3, 1.0, 5000, 4),
                     id="testBothAreNeedy part 2 (min share ratios 2/3 vs 4/5)"),
        pytest.param((8000, 8), (3000, 1, 2.0, 0, 0), (2000, 1, 1.0, 0, 0),
                     id="testEvenWeightsSameDominantResource 1"),
        pytest.param((8000, 8), (1000, 3, 2.0, 0, 0), (1000, 2, 1.0, 0, 0),
                     id="testEvenWeightsSameDominantResource 2"),
        pytest.param((8000, 8), (1000, 3, 2.0, 0, 0), (2000, 1, 1.0, 0, 0),
                     id="testEvenWeightsDifferentDominantResource 1"),
        pytest.param((8000, 8), (3000, 1, 2.0, 0, 0), (1000, 2, 1.0, 0, 0),
                     id="testEvenWeightsDifferentDominantResource 2"),
        pytest.param((8000, 6), (2000, 1, 1.0, 0, 0), (1000, 2, 1.0, 0, 0),
                     id="testCompareSchedulablesWithClusterResourceChanges 2"),
    ],
)
def test_hadoop_drf_comparator_s1_first(
    cluster: tuple[int, int],
    s1: tuple[int, int, float, int, int],
    s2: tuple[int, int, float, int, int],
) -> None:
    assert drf_pair(cluster, s1, s2) == [-1, -1]


def test_hadoop_drf_comparator_cluster_change_flips_the_order() -> None:
    # testCompareSchedulablesWithClusterResourceChanges part 1: [1/2, 1/5] vs [1/4, 2/5]
    assert drf_pair((4000, 5), (2000, 1, 1.0, 0, 0), (1000, 2, 1.0, 0, 0)) == [1, 1]

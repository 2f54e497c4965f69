"""Starvation detection and the starved-apps queue (docs/semantics.md §4.2–§4.4, §4.7,
vectors of §8.2)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshare.config.model import PolicyName
from fairshare.core.model.records import StarvedApps
from fairshare.core.starvation.rules import compare_starvation, take_starved_app, unmet_demand
from fairshare.resources.calc import DEFAULT, DOMINANT, ResourceCalculator
from fairshare.resources.vector import LONG_MAX, Resource, float32, res
from tests.oracles.starvation import (
    AppStarvationView,
    LeafStarvationView,
    MinShareStarvation,
    add_starved_app,
    attribute_min_share_starvation,
    fair_share_starvation,
    min_share_starvation_of_leaf,
    update_starved_apps,
)

GB = 1024
CLUSTER = res(100 * GB, 100)
NONE = res(0, 0)


def fs_starvation(
    *,
    fair_share: Resource = res(4096, 0),
    usage: Resource = res(1024, 1),
    demand: Resource = res(8192, 8),
    threshold: float = 0.5,
    timeout: int = 5000,
    calc: ResourceCalculator = DEFAULT,
    cluster: Resource = CLUSTER,
    now: int = 10_000,
    last: int = 0,
) -> tuple[Resource, int, bool]:
    result = fair_share_starvation(
        fair_share=fair_share, usage=usage, demand=demand, threshold=float32(threshold),
        timeout=timeout, calc=calc, cluster=cluster, now=now, last_time_at_fair_share=last,
    )
    return result.amount, result.last_time_at_fair_share, result.below_threshold


def app(
    app_id: str,
    *,
    demand: Resource,
    usage: Resource,
    fair_share: Resource = NONE,
    start: int = 0,
    fs: Resource = NONE,
    ms: Resource = NONE,
    last_fs: int = 0,
    next_check: int = 0,
) -> AppStarvationView:
    return AppStarvationView(
        app_id, start, demand, usage, fair_share, fs, ms, last_fs, next_check
    )


def leaf(
    *,
    min_share: Resource = NONE,
    demand: Resource = NONE,
    usage: Resource = NONE,
    fs_timeout: int = 5000,
    ms_timeout: int = 5000,
    threshold: float = 0.5,
    last_ms: int = 0,
    policy: PolicyName = PolicyName.FAIR,
) -> LeafStarvationView:
    return LeafStarvationView(
        "root.a", policy, min_share, demand, usage, float32(threshold), fs_timeout, ms_timeout,
        last_ms,
    )


# -- §4.2 fair-share starvation -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("demand", "expected"),
    [
        pytest.param(res(8192, 8), res(1024, 0), id="demand 8192: fairDemand 2048, starved 1024"),
        pytest.param(res(1536, 8), res(512, 0), id="demand 1536: fairDemand 1536, starved 512"),
    ],
)
def test_fair_share_starvation_vector(demand: Resource, expected: Resource) -> None:
    # §8.2: app fair share 4096 MB, threshold 0.5, usage 1024, timeout elapsed.
    # fair policy: the app share has 0 vcores, so the starvation is memory only.
    amount, last, below = fs_starvation(demand=demand, now=5000, last=0)
    assert (amount, last, below) == (expected, 0, True)


@pytest.mark.parametrize(
    ("demand", "fair_demand"),
    [
        pytest.param(res(8192, 8), 2048, id="threshold share 4096×0.5 is smaller"),
        pytest.param(res(1536, 8), 1536, id="demand is smaller"),
    ],
)
def test_fair_demand_is_min_of_threshold_share_and_demand(
    demand: Resource, fair_demand: int
) -> None:
    assert fs_starvation(demand=demand, usage=res(fair_demand - 1, 0))[2] is True
    assert fs_starvation(demand=demand, usage=res(fair_demand, 0))[2] is False


def test_below_threshold_within_timeout_is_not_starved_and_keeps_timestamp() -> None:
    assert fs_starvation(now=4999, last=0, timeout=5000) == (NONE, 0, True)


def test_not_below_threshold_refreshes_timestamp() -> None:
    assert fs_starvation(usage=res(4096, 4), now=7000, last=0) == (NONE, 7000, False)


def test_default_timeout_never_starves() -> None:
    assert fs_starvation(timeout=LONG_MAX, now=10**12)[0] == NONE


def test_threshold_minus_one_without_allocation_file_never_starves() -> None:
    # §1.3.3: no allocation file → threshold −1 → fairDemand negative → never below it
    assert fs_starvation(threshold=-1.0, timeout=-1, usage=NONE) == (NONE, 10_000, False)


def test_drf_compares_dominant_shares() -> None:
    # fairDemand (2048, 2): max share 0.25; usage (1024, 3): max share 0.375 → not starved under
    # DRF, although its memory alone is below (it would be starved under the memory calculator)
    share, usage, cluster = res(4096, 4), res(1024, 3), res(8192, 8)
    drf = fs_starvation(calc=DOMINANT, fair_share=share, usage=usage, cluster=cluster)
    memory_only = fs_starvation(calc=DEFAULT, fair_share=share, usage=usage, cluster=cluster)
    assert drf == (NONE, 10_000, False)
    assert memory_only == (res(1024, 0), 0, True)


# -- §4.3 (2) and (3) -----------------------------------------------------------------------------


def test_min_share_starvation_waits_for_the_timeout() -> None:
    def at(now: int) -> MinShareStarvation:
        return min_share_starvation_of_leaf(
            min_share=res(10 * GB, 0), demand=res(20 * GB, 20), usage=res(2 * GB, 2),
            timeout=5000, now=now, last_time_at_min_share=1000, fair_share_total=NONE,
        )

    early, late = at(5999), at(6000)
    assert (early.starvation, early.last_time_at_min_share) == (NONE, 1000)
    assert (late.starvation, late.uncovered) == (res(8 * GB, 0), res(8 * GB, 0))


def test_min_share_starvation_minus_fair_share_total() -> None:
    ms = min_share_starvation_of_leaf(
        min_share=res(10 * GB, 0), demand=res(20 * GB, 0), usage=res(2 * GB, 0), timeout=0,
        now=0, last_time_at_min_share=0, fair_share_total=res(3 * GB, 0),
    )
    assert (ms.starvation, ms.uncovered) == (res(8 * GB, 0), res(5 * GB, 0))


def test_min_share_vcores_count_even_under_memory_only_policy() -> None:
    # §4.3: isNone tests every component, so an unmet vcore minimum is "min-share starved"
    ms = min_share_starvation_of_leaf(
        min_share=res(0, 4), demand=res(4 * GB, 8), usage=res(4 * GB, 1), timeout=0, now=9,
        last_time_at_min_share=0, fair_share_total=NONE,
    )
    assert (ms.starvation, ms.last_time_at_min_share) == (res(0, 3), 0)


def test_not_min_share_starved_refreshes_timestamp() -> None:
    ms = min_share_starvation_of_leaf(
        min_share=res(GB, 0), demand=res(4 * GB, 0), usage=res(GB, 0), timeout=0, now=42,
        last_time_at_min_share=0, fair_share_total=NONE,
    )
    assert ms.last_time_at_min_share == 42


def test_attribution_quirk_gives_unmet_minus_pending() -> None:
    # §8.2: unmet 18 GB > pending 8 GB → the app gets 18 − 8 = 10 GB, not 8
    result = attribute_min_share_starvation([res(18 * GB, 0)], res(8 * GB, 0), DEFAULT, CLUSTER)
    assert (result.amounts, result.added) == ((res(10 * GB, 0),), (True,))


def test_seed_article_min_share_example() -> None:
    # The seed article: a queue 6 GB below its minimum, unmet demands 3, 2, 1, 0.5 GB in
    # comparator order. With the x − pending rule: 3 ≤ 6 → gets 3, pending 6−3 = 3;
    # 2 ≤ 3 → gets 2, pending 1; 1 is not > 1 → gets 1, pending 0; pending is none → the
    # fourth app gets nothing and is not added. Same as the article's 3/2/1/0 here.
    unmet = [res(3 * GB, 0), res(2 * GB, 0), res(1 * GB, 0), res(GB // 2, 0)]
    result = attribute_min_share_starvation(unmet, res(6 * GB, 0), DEFAULT, CLUSTER)
    assert result.amounts == (res(3 * GB, 0), res(2 * GB, 0), res(1 * GB, 0), NONE)
    assert result.added == (True, True, True, False)


def test_app_with_nothing_unmet_is_added_while_pending_remains() -> None:
    # §4.3: added to the starved queue even when the amount attributed to it is none
    result = attribute_min_share_starvation([NONE, res(5 * GB, 0)], res(3 * GB, 0), DEFAULT,
                                            CLUSTER)
    assert result.amounts == (NONE, res(2 * GB, 0))  # second: 5 > 3 → 5 − 3
    assert result.added == (True, True)


def test_unmet_demand_deducts_fair_share_starvation() -> None:
    assert unmet_demand(res(8 * GB, 8), res(2 * GB, 2), res(GB, 0)) == res(5 * GB, 6)


# -- §4.3 the whole leaf pass ---------------------------------------------------------------------


def test_min_share_attribution_vector_end_to_end() -> None:
    # §8.2: single app, leaf min 10 GB, demand 20 GB, usage 2 GB; min-share timeout
    # elapsed (5000 since t=0), fair-share timeout not (app below 0.5 × 12 GB since t=8000)
    only = app("a1", demand=res(20 * GB, 20), usage=res(2 * GB, 2), fair_share=res(12 * GB, 0),
               last_fs=8000)
    q = leaf(min_share=res(10 * GB, 0), demand=res(20 * GB, 20), usage=res(2 * GB, 2))
    update = update_starved_apps(q, [only], cluster=CLUSTER, now=10_000)
    assert update.min_share.starvation == res(8 * GB, 0)  # queue min-share starvation
    assert update.fair_share_total == NONE
    (after,) = update.apps
    assert after.fairshare_starvation == NONE and after.last_time_at_fair_share == 8000
    # unmet (18 GB, 18) minus pending (8 GB, 0): memory 10 GB, and the vcores ride along
    assert after.minshare_starvation == res(10 * GB, 18)
    assert update.enqueue == ("a1",)


def test_fair_share_pass_stops_at_first_app_not_starved() -> None:
    # fair comparator: smaller usage first → "sated" (usage 1 GB) before "hungry" (usage 2 GB)
    sated = app("sated", demand=res(4 * GB, 0), usage=res(GB, 0), fair_share=res(GB, 0))
    hungry = app("hungry", demand=res(8 * GB, 0), usage=res(2 * GB, 0),
                 fair_share=res(8 * GB, 0), fs=res(777, 0), last_fs=3)
    update = update_starved_apps(leaf(), [hungry, sated], cluster=CLUSTER, now=10_000)
    new_hungry, new_sated = update.apps  # input order
    assert new_sated.last_time_at_fair_share == 10_000  # evaluated: not starved, refreshed
    # never evaluated: stale starvation and timestamp kept (§4.3 early break, §4.7)
    assert (new_hungry.fairshare_starvation, new_hungry.last_time_at_fair_share) == (
        res(777, 0), 3)
    assert update.enqueue == ()


def test_fair_share_starved_apps_then_min_share_adds_in_order() -> None:
    a = app("a", demand=res(8 * GB, 0), usage=res(GB, 0), fair_share=res(4 * GB, 0))
    b = app("b", demand=res(8 * GB, 0), usage=res(2 * GB, 0), fair_share=res(8 * GB, 0))
    q = leaf(min_share=res(12 * GB, 0), demand=res(16 * GB, 0), usage=res(3 * GB, 0))
    update = update_starved_apps(q, [b, a], cluster=CLUSTER, now=10_000)
    # a: 2048 − 1024 = 1 GB; b: 4096 − 2048 = 2 GB → fair-share total 3 GB
    assert [x.fairshare_starvation for x in update.apps] == [res(2 * GB, 0), res(GB, 0)]
    # min share: min(12, 16) − 3 = 9 GB, minus 3 GB → 6 GB to attribute.
    # a: x = 7 − 1 = 6 GB, not > 6 → gets 6, pending 0; b then gets none and is not re-added
    assert update.min_share.uncovered == res(6 * GB, 0)
    assert [x.minshare_starvation for x in update.apps] == [NONE, res(6 * GB, 0)]
    assert update.enqueue == ("a", "b", "a")  # repeats kept: the queue ignores them


def test_apps_without_pending_demand_or_in_backoff_are_untouched() -> None:
    idle = app("idle", demand=res(GB, 0), usage=res(GB, 0), ms=res(5, 0), fs=res(6, 0))
    backoff = app("backoff", demand=res(8 * GB, 0), usage=NONE, fair_share=res(8 * GB, 0),
                  ms=res(7, 0), next_check=10_001)
    update = update_starved_apps(leaf(min_share=res(8 * GB, 0), demand=res(9 * GB, 0)),
                                 [idle, backoff], cluster=CLUSTER, now=10_000)
    assert update.apps == (idle, backoff)
    assert update.enqueue == ()


def test_negative_pending_demand_counts_as_pending() -> None:
    # getPendingDemand is a plain subtract; isNone is false for a negative vector, so the app
    # is evaluated: fairDemand = min(4 GB, 1 GB) = 1 GB, usage 2 GB is not below → refreshed
    over = app("over", demand=res(GB, 0), usage=res(2 * GB, 0), fair_share=res(8 * GB, 0))
    update = update_starved_apps(leaf(), [over], cluster=CLUSTER, now=10_000)
    assert update.apps[0].last_time_at_fair_share == 10_000


# -- §4.4 the starved-apps queue ------------------------------------------------------------------


def _take_all(queue: StarvedApps, starvation: dict[str, Resource]) -> list[str]:
    order: list[str] = []
    head, queue = take_starved_app(queue, starvation)
    while head is not None:
        order.append(head)
        head, queue = take_starved_app(queue, starvation)
    return order


@pytest.mark.parametrize("first", ["big", "small"], ids=["4 GB added first", "1 GB added first"])
def test_least_starved_app_is_taken_first(first: str) -> None:
    # §8.2: starvation 1 GB and 4 GB → the 1 GB app comes out first
    starvation = {"small": res(GB, 0), "big": res(4 * GB, 0)}
    queue = StarvedApps()
    for app_id in (first, "small" if first == "big" else "big"):
        queue = add_starved_app(queue, app_id, starvation)
    assert _take_all(queue, starvation) == ["small", "big"]


def test_comparator_never_returns_zero() -> None:
    assert compare_starvation(res(1, 1), res(1, 1)) == -1
    assert compare_starvation(res(2, 1), res(1, 2)) == compare_starvation(res(1, 2), res(2, 1))


def test_incomparable_vectors_follow_heap_history() -> None:
    # a = (2, 1) and b = (1, 2) never fit in each other; c = (1, 1) fits in both.
    # add a, b, c: [a] → [a, b] → c sifts up to the root: [c, b, a]; take c, then a moves to
    # the root and sifts below b → b, then a.  Adding b, a, c instead gives c, a, b.
    starvation = {"a": res(2, 1), "b": res(1, 2), "c": res(1, 1)}
    for inserted, expected in ((["a", "b", "c"], ["c", "b", "a"]),
                               (["b", "a", "c"], ["c", "a", "b"])):
        queue = StarvedApps()
        for app_id in inserted:
            queue = add_starved_app(queue, app_id, starvation)
        assert _take_all(queue, starvation) == expected


def test_values_are_read_when_the_heap_compares() -> None:
    queue = add_starved_app(StarvedApps(), "x", {"x": res(GB, 0)})
    queue = add_starved_app(queue, "y", {"x": res(GB, 0), "y": res(2 * GB, 0)})
    # x is at the root; its starvation then grows, but the root is taken without comparing
    head, _ = take_starved_app(queue, {"x": res(9 * GB, 0), "y": res(2 * GB, 0)})
    assert head == "x"


def test_add_ignores_queued_and_in_process_apps() -> None:
    starvation = {"x": res(GB, 0), "y": res(GB, 0)}
    queue = add_starved_app(add_starved_app(StarvedApps(), "x", starvation), "x", starvation)
    assert queue.heap == ("x",)
    head, queue = take_starved_app(queue, starvation)
    assert (head, queue.being_processed) == ("x", "x")
    assert add_starved_app(queue, "x", starvation) == queue  # being processed: no-op
    head, queue = take_starved_app(queue, starvation)
    assert (head, queue) == (None, StarvedApps())  # Java would block; nothing in process


@settings(derandomize=True, deadline=None, max_examples=200)
@given(st.lists(st.integers(0, 64), min_size=1, max_size=25))
def test_memory_only_starvation_comes_out_in_ascending_order(amounts: list[int]) -> None:
    # one-dimensional vectors are totally ordered by fitsIn: the heap then sorts them
    starvation = {f"app{i}": res(m, 0) for i, m in enumerate(amounts)}
    queue = StarvedApps()
    for app_id in starvation:
        queue = add_starved_app(queue, app_id, starvation)
    taken = [starvation[a].memory for a in _take_all(queue, starvation)]
    assert taken == sorted(amounts)


@settings(derandomize=True, deadline=None, max_examples=100)
@given(st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=15))
def test_heap_returns_every_app_once(vectors: list[tuple[int, int]]) -> None:
    starvation = {f"app{i}": res(m, v) for i, (m, v) in enumerate(vectors)}
    queue = StarvedApps()
    for app_id in starvation:
        queue = add_starved_app(queue, app_id, starvation)
    assert sorted(_take_all(queue, starvation)) == sorted(starvation)


def test_apps_added_in_the_fair_share_pass_sift_with_their_old_min_share_starvation() -> None:
    # §4.4: the heap compares the values apps hold when it sifts. X is queued with 5 GB.
    # A is fair-share starved by 1 GB (fair share 4 GB, threshold 0.5 → 2 GB − 1 GB) and is
    # added then, with its old min-share starvation 0: 1 GB fits in 5 GB → A becomes the head.
    # Its later min-share starvation (17 GB) does not re-sift it (the second add is a no-op).
    x_queue = add_starved_app(StarvedApps(), "x", {"x": res(5 * GB, 0)})
    a = app("a", demand=res(20 * GB, 0), usage=res(GB, 0), fair_share=res(4 * GB, 0))
    q = leaf(min_share=res(20 * GB, 0), demand=res(20 * GB, 0), usage=res(GB, 0))
    update = update_starved_apps(q, [a], cluster=CLUSTER, now=10_000, queue=x_queue,
                                 others={"x": res(5 * GB, 0)})
    # min share: 20 − 1 = 19 GB, minus the 1 GB fair-share total → 18 GB pending;
    # a's unmet 19 − 1 = 18 GB is not > 18 → a gets 18 GB.
    (after,) = update.apps
    assert after.fairshare_starvation == res(GB, 0)
    assert after.minshare_starvation == res(18 * GB, 0)
    assert update.queue.heap == ("a", "x")
    # Replaying the adds with the final values (19 GB vs 5 GB) would have put x first:
    replay = add_starved_app(x_queue, "a", {"x": res(5 * GB, 0), "a": res(19 * GB, 0)})
    assert replay.heap == ("x", "a")

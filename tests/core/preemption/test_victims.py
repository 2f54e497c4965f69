"""Victim selection (docs/semantics.md §5.3–§5.5, vector of §8.2)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fairshare.config.model import PolicyName
from fairshare.core.preemption.victims import (
    ANY,
    ContainerView,
    NodeView,
    OwnerView,
    StarvedRequest,
    VictimSet,
    can_container_be_preempted,
    containers_on_node,
    preemption_candidates,
)
from fairshare.resources.calc import DEFAULT
from fairshare.resources.vector import (
    Resource,
    add,
    res,
    subtract,
    subtract_non_negative,
    sum_resources,
)
from tests.oracles.victims import best_preemptable_containers, search_nodes

GB = 1024
CLUSTER = res(100 * GB, 100)
NONE = res(0, 0)


def owner(
    app_id: str,
    *,
    usage: int,
    fair: int,
    to_be_preempted: int = 0,
    marked: frozenset[str] = frozenset(),
    preemptable: bool = True,
    am_preemption: bool = True,
    policy: PolicyName = PolicyName.FAIR,
) -> OwnerView:
    return OwnerView(app_id, res(usage * GB, 0), res(fair * GB, 0),
                     res(to_be_preempted * GB, 0), marked, policy, preemptable, am_preemption)


def c(container_id: str, app_id: str, gb: int, *, am: bool = False) -> ContainerView:
    return ContainerView(container_id, app_id, res(gb * GB, 0), am)


def node(name: str, *containers: ContainerView, free: int = 0, reserved: int = 0,
         earmarked: int = 0, marked: frozenset[str] = frozenset()) -> NodeView:
    return NodeView(name, res(free * GB, 0), res(reserved * GB, 0), res(earmarked * GB, 0),
                    containers, marked)


def ids(victims: VictimSet | None) -> list[str] | None:
    return None if victims is None else [v.container_id for v in victims.containers]


def owners(*views: OwnerView) -> dict[str, OwnerView]:
    return {v.app_id: v for v in views}


RICH = owner("rich", usage=6, fair=1)  # well over its app fair share


# -- §5.4 one node --------------------------------------------------------------------------------


def test_victim_selection_vector() -> None:
    # §8.2: two non-AM 2 GB containers of an over-fair-share app and its AM on a full node;
    # a 4 GB request takes both non-AM containers and no AM (listed first, AMs still go last)
    full = node("n1", c("am", "rich", 2, am=True), c("c1", "rich", 2), c("c2", "rich", 2))
    found = containers_on_node(res(4 * GB, 0), full, owners(RICH), CLUSTER)
    assert found == VictimSet("n1", (full.containers[1], full.containers[2]), 0)


def test_candidates_keep_caller_order_with_ams_last_and_marked_removed() -> None:
    n = node("n", c("a1", "x", 1, am=True), c("c1", "x", 1), c("a2", "y", 1, am=True),
             c("c2", "y", 1), c("c3", "y", 1), marked=frozenset({"c2"}))
    assert [k.container_id for k in preemption_candidates(n)] == ["c1", "c3", "a1", "a2"]


def test_non_preemptable_owner_never_yields_victims() -> None:
    guarded = owner("rich", usage=6, fair=1, preemptable=False)
    full = node("n1", c("c1", "rich", 2), c("c2", "rich", 2), c("c3", "rich", 2))
    assert containers_on_node(res(2 * GB, 0), full, owners(guarded), CLUSTER) is None
    assert search_nodes([full, full], res(2 * GB, 0), owners(guarded), CLUSTER) is None


def test_am_is_taken_only_when_no_am_free_set_exists_on_the_node() -> None:
    full = node("n1", c("am", "rich", 2, am=True), c("c1", "rich", 2))
    assert ids(containers_on_node(res(2 * GB, 0), full, owners(RICH), CLUSTER)) == ["c1"]
    found = containers_on_node(res(4 * GB, 0), full, owners(RICH), CLUSTER)
    assert (ids(found), found.num_am if found else None) == (["c1", "am"], 1)


def test_am_preemption_switch_protects_ams_only() -> None:
    no_am = owner("rich", usage=6, fair=1, am_preemption=False)
    full = node("n1", c("am", "rich", 2, am=True), c("c1", "rich", 2))
    assert containers_on_node(res(4 * GB, 0), full, owners(no_am), CLUSTER) is None
    assert ids(containers_on_node(res(2 * GB, 0), full, owners(no_am), CLUSTER)) == ["c1"]


def test_fair_share_protection_counts_containers_already_chosen() -> None:
    # usage 6, app fair share 3: the first 2 GB leaves 4 ≥ 3; a second would leave 2 < 3
    capped = owner("app", usage=6, fair=3)
    full = node("n1", c("c1", "app", 2), c("c2", "app", 2), c("c3", "app", 2))
    assert containers_on_node(res(4 * GB, 0), full, owners(capped), CLUSTER) is None
    assert ids(containers_on_node(res(2 * GB, 0), full, owners(capped), CLUSTER)) == ["c1"]


def test_fair_share_protection_counts_resources_to_be_preempted() -> None:
    announced = owner("app", usage=6, fair=3, to_be_preempted=2, marked=frozenset({"old"}))
    full = node("n1", c("old", "app", 2), c("c1", "app", 2))
    assert containers_on_node(res(2 * GB, 0), full, owners(announced), CLUSTER) is None


def test_protection_is_per_app_not_per_queue() -> None:
    # each owner is judged against its own app fair share only; both lose one container
    a, b = owner("a", usage=4, fair=2), owner("b", usage=4, fair=2)
    full = node("n1", c("a1", "a", 2), c("a2", "a", 2), c("b1", "b", 2), c("b2", "b", 2))
    assert ids(containers_on_node(res(4 * GB, 0), full, owners(a, b), CLUSTER)) == ["a1", "b1"]


def test_reserved_and_earmarked_space_does_not_count() -> None:
    # 4 GB free, but 1 GB reserved and 2 GB earmarked: potential starts at 1 GB
    n = node("n1", c("c1", "rich", 2), c("c2", "rich", 2), free=4, reserved=1, earmarked=2)
    assert ids(containers_on_node(res(5 * GB, 0), n, owners(RICH), CLUSTER)) == ["c1", "c2"]


def test_fit_is_tested_after_the_first_candidate_even_with_room() -> None:
    roomy = node("n1", c("c1", "rich", 1), c("c2", "rich", 1), free=8)
    assert ids(containers_on_node(res(2 * GB, 0), roomy, owners(RICH), CLUSTER)) == ["c1"]


def test_empty_set_when_room_exists_and_first_candidate_is_protected() -> None:
    poor = owner("poor", usage=1, fair=4)
    roomy = node("n1", c("c1", "poor", 1), free=8)
    assert containers_on_node(res(2 * GB, 0), roomy, owners(poor), CLUSTER) == VictimSet(
        "n1", (), 0)


def test_node_without_containers_yields_nothing_even_with_room() -> None:
    assert containers_on_node(res(GB, 0), node("n1", free=8), owners(), CLUSTER) is None


def test_container_of_unregistered_app_is_skipped_without_fit_test() -> None:
    # YARN-9984: the only candidate has no app; the fit test never runs, so no empty set
    roomy = node("n1", c("c1", "gone", 1), free=8)
    assert containers_on_node(res(2 * GB, 0), roomy, owners(), CLUSTER) is None


def test_fit_is_checked_in_every_component() -> None:
    vcore_poor = NodeView("n1", res(8 * GB, 0), NONE, NONE,
                          (ContainerView("c1", "rich", res(GB, 0)),))
    assert containers_on_node(res(GB, 1), vcore_poor, owners(RICH), CLUSTER) is None


def test_owner_is_judged_by_its_leaf_policy_calculator() -> None:
    # usage (6 GB, 40), app fair share (4 GB, 4); losing (3 GB, 0) leaves (3 GB, 40).
    # drf (YARN-6193): dominant share 0.40 ≥ 0.04 → may be preempted;
    # fair: memory only, 3 GB < 4 GB → protected.
    victim = ContainerView("c", "o", res(3 * GB, 0))
    for policy, allowed in ((PolicyName.DRF, True), (PolicyName.FAIR, False)):
        view = OwnerView("o", res(6 * GB, 40), res(4 * GB, 4), NONE, policy=policy)
        assert can_container_be_preempted(view, victim, NONE, CLUSTER) is allowed


# -- §5.3 several nodes ---------------------------------------------------------------------------


def am_node(name: str, ams: int) -> NodeView:
    """A full node of two 1 GB containers, ``ams`` of them AMs: a 2 GB request needs them all."""
    plain = [c(f"{name}-c{i}", "rich", 1) for i in range(2 - ams)]
    amc = [c(f"{name}-am{i}", f"{name}-app{i}", 1, am=True) for i in range(ams)]
    return node(name, *plain, *amc)


AM_OWNERS = owners(RICH, *(owner(f"n{i}-app{j}", usage=4, fair=1)
                           for i in range(5) for j in range(3)))


@pytest.mark.parametrize(
    ("am_counts", "winner"),
    [
        pytest.param([1, 0, 0], "n1", id="0-AM node ends the search: first of equals wins"),
        pytest.param([1, 1], "n0", id="a later node must have strictly fewer AMs"),
        pytest.param([2, 1, 1], "n1", id="fewest AMs wins"),
        pytest.param([0, 0], "n0", id="early exit keeps the first 0-AM node"),
    ],
)
def test_fewest_am_node_wins(am_counts: list[int], winner: str) -> None:
    nodes = [am_node(f"n{i}", k) for i, k in enumerate(am_counts)]
    found = search_nodes(nodes, res(2 * GB, 0), AM_OWNERS, CLUSTER)
    assert found is not None and found.node == winner


def test_search_returns_none_when_no_node_fits() -> None:
    assert search_nodes([node("n0", free=1)], res(2 * GB, 0), owners(), CLUSTER) is None


def test_wider_search_avoids_the_am_for_relaxable_host_requests() -> None:
    host, other = am_node("n0", 1), am_node("n1", 0)
    relaxable = StarvedRequest(res(2 * GB, 0), "n0", relax_locality=True)
    found = best_preemptable_containers(relaxable, [host], [host, other], AM_OWNERS, CLUSTER)
    assert found is not None and (found.node, found.num_am) == ("n1", 0)


@pytest.mark.parametrize(
    "request_",
    [
        pytest.param(StarvedRequest(res(2 * GB, 0), "n0", relax_locality=False), id="strict"),
        pytest.param(StarvedRequest(res(2 * GB, 0), ANY), id="ANY request"),
    ],
)
def test_no_wider_search_for_strict_or_any_requests(request_: StarvedRequest) -> None:
    host, other = am_node("n0", 1), am_node("n1", 0)
    found = best_preemptable_containers(request_, [host], [host, other], AM_OWNERS, CLUSTER)
    assert found is not None and found.node == "n0"


def test_wider_search_keeps_the_requested_place_on_equal_am_counts() -> None:
    # §5.3: the other nodes' best set replaces the first only with strictly fewer AMs
    rack, outside = am_node("n0", 1), am_node("n1", 1)
    request_ = StarvedRequest(res(2 * GB, 0), "/rack0")
    found = best_preemptable_containers(request_, [rack], [outside, rack], AM_OWNERS, CLUSTER)
    assert found is not None and found.node == "n0"


# -- properties -----------------------------------------------------------------------------------

APPS = ["a", "b", "c"]


@st.composite
def scenarios(draw: st.DrawFn) -> tuple[NodeView, dict[str, OwnerView], Resource]:
    views = {}
    for app_id in APPS:
        usage = draw(st.integers(0, 12))
        views[app_id] = owner(app_id, usage=usage, fair=draw(st.integers(0, 12)),
                              to_be_preempted=draw(st.integers(0, usage)),
                              preemptable=draw(st.booleans()))
    specs = draw(st.lists(st.tuples(st.sampled_from(APPS), st.integers(1, 4), st.booleans()),
                          max_size=8))
    containers = [c(f"k{i}", a, gb, am=am) for i, (a, gb, am) in enumerate(specs)]
    n = node("n", *containers, free=draw(st.integers(0, 3)), reserved=draw(st.integers(0, 2)))
    return n, views, res(draw(st.integers(1, 10)) * GB, 0)


def _total(containers: Sequence[ContainerView]) -> Resource:
    return sum_resources([k.resource for k in containers], NONE)


@settings(derandomize=True, deadline=None, max_examples=300)
@given(scenarios())
def test_victims_never_leave_an_owner_below_its_app_fair_share(
    scenario: tuple[NodeView, dict[str, OwnerView], Resource],
) -> None:
    n, views, request = scenario
    found = containers_on_node(request, n, views, CLUSTER)
    if found is None:
        return
    for app_id, view in views.items():
        taken = _total([k for k in found.containers if k.app_id == app_id])
        if taken != NONE:
            after = subtract(subtract(view.usage, view.resources_to_be_preempted), taken)
            assert view.preemptable and DEFAULT.compare(CLUSTER, after, view.fair_share) >= 0
    room = subtract_non_negative(n.unallocated, add(n.reserved, n.earmarked))
    assert add(room, _total(found.containers)).memory >= request.memory


@settings(derandomize=True, deadline=None, max_examples=300)
@given(scenarios())
def test_am_never_chosen_when_the_node_has_an_am_free_set(
    scenario: tuple[NodeView, dict[str, OwnerView], Resource],
) -> None:
    n, views, request = scenario
    without_ams = NodeView(n.name, n.unallocated, n.reserved, n.earmarked,
                           tuple(k for k in n.containers if not k.is_am))
    if containers_on_node(request, without_ams, views, CLUSTER) is not None:
        found = containers_on_node(request, n, views, CLUSTER)
        assert found is not None and found.num_am == 0
        assert not any(k.is_am for k in found.containers)


@settings(derandomize=True, deadline=None, max_examples=200)
@given(st.lists(scenarios(), min_size=1, max_size=4))
def test_search_picks_the_first_node_with_the_fewest_ams(
    scenario_list: list[tuple[NodeView, dict[str, OwnerView], Resource]],
) -> None:
    views, request = scenario_list[0][1], scenario_list[0][2]
    nodes = [NodeView(f"n{i}", s[0].unallocated, s[0].reserved, s[0].earmarked, s[0].containers)
             for i, s in enumerate(scenario_list)]
    alone = [containers_on_node(request, x, views, CLUSTER) for x in nodes]
    counts = [f.num_am for f in alone if f is not None]
    found = search_nodes(nodes, request, views, CLUSTER)
    if not counts:
        assert found is None
        return
    first = next(f for f in alone if f is not None and f.num_am == min(counts))
    assert found == first

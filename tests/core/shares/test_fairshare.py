"""Steady and instantaneous fair shares over the hierarchy (docs/semantics.md §2.4–§2.7)."""

from __future__ import annotations

import math

import pytest

from fairshare.config.allocation import parse_allocations_text
from fairshare.core.model.tree import QueueTree, build_queue_tree, get_or_create_leaf
from fairshare.core.rules.policies import app_weight
from fairshare.core.shares.fair_shares import (
    AppShareInput,
    FairShares,
    compute_instantaneous_fair_shares,
    compute_steady_fair_shares,
)
from fairshare.resources.vector import DEFAULT_TYPES, float32, res
from tests.core.builders import CLUSTER_24G, apps, queue, tree

# root.default configured with weight 0, as examples/seed-three-tenants/fair-scheduler.xml
# does: the queue exists (a configured leaf) but takes no steady cut.
THREE_TENANTS = tree(
    queue("root.default", weight=0),
    queue("root.tenant1", weight=1),
    queue("root.tenant2", weight=2),
    queue("root.tenant3", weight=1),
    default_policy="drf",
)


def test_seed_steady_shares_are_25_50_25_percent() -> None:
    # seed: 12 vcores / 24 GB, weights 1:2:1. Memory R = 6144 hits 24576 exactly on the
    # second bisection step; vcores R = 3 hits 12 exactly.
    steady = compute_steady_fair_shares(THREE_TENANTS, CLUSTER_24G)
    assert steady["root.tenant1"] == res(6144, 3)
    assert steady["root.tenant2"] == res(12288, 6)
    assert steady["root.tenant3"] == res(6144, 3)
    assert steady["root"] == CLUSTER_24G
    assert steady["root.default"] == res(0, 0)


def test_root_default_takes_a_steady_cut_once_an_app_is_placed_there() -> None:
    # Hadoop 3.4 creates root only at start: 9000 MB split by weights 1:1 over a and b, 4500
    # each (the fair policy writes memory only). An app placed in root.default creates it, a
    # dynamic leaf of weight 1: then 1:1:1, 3000 each.
    t = tree(queue("root.a"), queue("root.b"))
    assert "root.default" not in t
    assert compute_steady_fair_shares(t, res(9000, 9))["root.a"] == res(4500, 0)
    t, _ = get_or_create_leaf(t, "default")
    steady = compute_steady_fair_shares(t, res(9000, 9))
    assert (steady["root.a"], steady["root.default"]) == (res(3000, 0), res(3000, 0))


def test_seed_instantaneous_shares_with_two_active_tenants() -> None:
    # Only tenant1 and tenant2 active: used(R) = trunc(R) + trunc(2R) never equals 24576
    # below R = 8192, so the upper bound stays 8192 → 8192 / 16384; vcores likewise 4 / 8.
    shares = compute_instantaneous_fair_shares(
        THREE_TENANTS, CLUSTER_24G, {"root.tenant1": apps("a1"), "root.tenant2": apps("a2")}
    )
    assert shares.queues["root.tenant1"] == res(8192, 4)
    assert shares.queues["root.tenant2"] == res(16384, 8)
    assert shares.queues["root.tenant3"] == res(0, 0)
    assert shares.queues["root.default"] == res(0, 0)


def test_fair_policy_writes_memory_only() -> None:
    # §2.6.1: the vcores of a fair parent's children are never written (stay 0).
    t = tree(queue("root.a"), queue("root.b"))
    steady = compute_steady_fair_shares(t, res(10000, 10))
    assert steady["root.a"] == res(5000, 0)  # 10000 MB over a and b, weights 1:1
    shares = compute_instantaneous_fair_shares(t, res(10000, 10), {"root.a": apps("x")})
    assert shares.queues["root.a"] == res(10000, 0)


def test_unwritten_components_keep_their_previous_value() -> None:
    t = tree(queue("root.a"))
    previous = FairShares({"root.a": res(1, 7)}, {})
    shares = compute_instantaneous_fair_shares(t, res(10000, 10), {"root.a": apps("x")}, previous)
    assert shares.queues["root.a"] == res(10000, 7)


def test_nested_queues_cut_the_parent_share_by_the_parent_policy() -> None:
    t = tree(
        queue("root.eng", parent=True, policy="drf"),
        queue("root.eng.a", weight=3),
        queue("root.eng.b", weight=1),
        queue("root.ads"),
        default_policy="drf",
    )
    runnable = {"root.eng.a": apps("a1"), "root.eng.b": apps("b1"), "root.ads": apps("c1")}
    shares = compute_instantaneous_fair_shares(t, res(8192, 8), runnable)
    # root: eng and ads active (the only children) → 4096 / 4 each.
    assert shares.queues["root.eng"] == res(4096, 4)
    # eng: 3:1 → 3072 / 1024 memory, 3 / 1 vcores
    assert shares.queues["root.eng.a"] == res(3072, 3)
    assert shares.queues["root.eng.b"] == res(1024, 1)


def test_leaf_splits_evenly_among_runnable_apps_even_without_demand() -> None:
    t = tree(queue("root.a", policy="drf"), default_policy="drf")
    shares = compute_instantaneous_fair_shares(t, res(9000, 9), {"root.a": apps("x", "y", "z")})
    assert [shares.apps[i] for i in ("x", "y", "z")] == [res(3000, 3)] * 3


def test_fifo_leaf_gives_everything_to_the_earliest_app() -> None:
    t = tree(queue("root.a", policy="fifo"))
    runnable = {"root.a": [AppShareInput("late", 20), AppShareInput("early", 10)]}
    previous = FairShares({}, {"late": res(5, 5)})
    shares = compute_instantaneous_fair_shares(t, res(9000, 9), runnable, previous)
    assert shares.apps["early"] == shares.queues["root.a"] == res(9000, 0)
    assert shares.apps["late"] == res(5, 5)  # others are left unchanged (§2.6.3)


def test_size_based_weight() -> None:
    assert app_weight(1023, size_based_weight=False) == 1.0
    assert app_weight(1023, size_based_weight=True) == 10.0  # ln(1024)/ln(2)
    assert app_weight(0, size_based_weight=True) == 0.0
    assert app_weight(3000, size_based_weight=True) == float32(math.log2(3001))


def test_zero_weight_app_gets_nothing() -> None:
    t = tree(queue("root.a"))
    runnable = {"root.a": [AppShareInput("big", 0, 10.0), AppShareInput("idle", 1, 0.0)]}
    shares = compute_instantaneous_fair_shares(t, res(9000, 9), runnable)
    assert shares.apps["idle"].memory == 0
    assert shares.apps["big"].memory == 9000


def test_percentage_max_share_is_resolved_against_the_cluster() -> None:
    t = tree(queue("root.a", max_pct=(0.25, 0.5)), queue("root.b"), default_policy="drf")
    runnable = {"root.a": apps("x"), "root.b": apps("y")}
    shares = compute_instantaneous_fair_shares(t, res(10000, 10), runnable)
    assert shares.queues["root.a"] == res(2500, 5)
    assert shares.queues["root.b"] == res(7500, 5)


def test_min_share_wins_over_a_smaller_max() -> None:
    t = tree(queue("root.a", min_share=res(6000, 0), max_share=res(1000, 10)), queue("root.b"))
    shares = compute_instantaneous_fair_shares(
        t, res(10000, 10), {"root.a": apps("x"), "root.b": apps("y")}
    )
    assert shares.queues["root.a"].memory == 6000  # effective max = max(max, min) (§2.8)


def test_non_runnable_queue_without_apps_is_inactive() -> None:
    t = tree(queue("root.a", parent=True), queue("root.a.x"), queue("root.b"))
    shares = compute_instantaneous_fair_shares(t, res(10000, 10), {"root.b": apps("y")})
    assert shares.queues["root.a"].memory == 0
    assert shares.queues["root.a.x"].memory == 0
    assert shares.queues["root.b"].memory == 10000


# Hadoop's TestFairSchedulerFairShare (an independent reference), from the same allocation file:
# parentA (weight 8, four children), parentB (weight 1, two children); its tests that submit an
# app to root.default create that queue (weight 1) — in Hadoop 3.4 only that creates it.
HADOOP_TREE = """<?xml version="1.0"?>
<allocations>
<queue name="root" >
   <queue name="parentA" >
       <weight>8</weight>
       <queue name="childA1" />
       <queue name="childA2" />
       <queue name="childA3" />
       <queue name="childA4" />
   </queue>
   <queue name="parentB" >
       <weight>1</weight>
       <queue name="childB1" />
       <queue name="childB2" />
   </queue>
</queue>
<defaultQueueSchedulingPolicy>{policy}</defaultQueueSchedulingPolicy>
</allocations>"""
NODE_MEM = 16 * 1024


def hadoop_tree(policy: str, app_in_default: bool = False) -> QueueTree:
    built = build_queue_tree(parse_allocations_text(HADOOP_TREE.format(policy=policy)),
                             DEFAULT_TYPES)
    return get_or_create_leaf(built, "default")[0] if app_in_default else built


def pct(value: int, whole: int) -> float:
    return 100.0 * value / whole


def test_hadoop_steady_shares_follow_weights_not_activity() -> None:
    # verifySteadyFairShareMemory, with root.default created as in
    # testFairShareMultipleActiveQueuesUnderDifferentParent: weights 1:8:1 at root, so parentA
    # takes 8/10 (0.2 per child of 4) and parentB 1/10 (0.05 per child of 2).
    steady = compute_steady_fair_shares(hadoop_tree("fair", app_in_default=True),
                                        res(NODE_MEM, 0))
    for leaf in ("childA1", "childA2", "childA3", "childA4"):
        assert steady[f"root.parentA.{leaf}"].memory / NODE_MEM == pytest.approx(0.2, abs=0.001)
    for leaf in ("childB1", "childB2"):
        assert steady[f"root.parentB.{leaf}"].memory / NODE_MEM == pytest.approx(0.05, abs=0.001)


def test_without_root_default_steady_shares_split_over_the_configured_parents_only() -> None:
    # Hadoop 3.4, no app in root.default: root's children are parentA and parentB, 8:1, so each
    # childA gets 8/9 / 4 = 0.2222 of the node and each childB 1/9 / 2 = 0.0556.
    steady = compute_steady_fair_shares(hadoop_tree("fair"), res(NODE_MEM, 0))
    assert "root.default" not in steady
    for leaf in ("childA1", "childA2", "childA3", "childA4"):
        assert steady[f"root.parentA.{leaf}"].memory / NODE_MEM == pytest.approx(2 / 9, abs=0.001)
    for leaf in ("childB1", "childB2"):
        assert steady[f"root.parentB.{leaf}"].memory / NODE_MEM == pytest.approx(1 / 18, abs=0.001)


@pytest.mark.parametrize(
    ("active", "expected"),
    [
        pytest.param(["root.parentA.childA1"], {"root.parentA.childA1": 100,
                     "root.parentA.childA2": 0}, id="testFairShareOneAppRunning"),
        pytest.param([f"root.parentA.childA{i}" for i in (1, 2, 3)],
                     {f"root.parentA.childA{i}": 33 for i in (1, 2, 3)},
                     id="testFairShareMultipleActiveQueuesUnderSameParent"),
        pytest.param(["root.parentA.childA1", "root.parentA.childA2", "root.parentB.childB1",
                      "root.default"],
                     {"root.parentA.childA1": 40, "root.parentA.childA2": 40,
                      "root.parentB.childB1": 10},
                     id="testFairShareMultipleActiveQueuesUnderDifferentParent"),
        pytest.param(["root.parentA.childA2"], {"root.parentA.childA1": 0,
                     "root.parentA.childA2": 100}, id="testFairShareResetsToZeroWhenAppsComplete"),
    ],
)
def test_hadoop_instantaneous_shares(active: list[str], expected: dict[str, int]) -> None:
    shares = compute_instantaneous_fair_shares(
        hadoop_tree("fair", app_in_default="root.default" in active), res(NODE_MEM, 0),
        {q: apps(q + "/app") for q in active},
    )
    for name, percent in expected.items():
        assert pct(shares.queues[name].memory, NODE_MEM) == pytest.approx(percent, abs=0.9)


def test_hadoop_drf_shares_under_different_parents() -> None:
    # testFairShareWithDRFMultipleActiveQueuesUnderDifferentParent: 16 GB, 10 vcores
    tree, cluster = hadoop_tree("drf", app_in_default=True), res(NODE_MEM, 10)
    active = ["root.parentA.childA1", "root.parentA.childA2", "root.parentB.childB1",
              "root.default"]
    shares = compute_instantaneous_fair_shares(tree, cluster, {q: apps(q) for q in active})
    for i in (1, 2):
        share = shares.queues[f"root.parentA.childA{i}"]
        assert pct(share.memory, NODE_MEM) == pytest.approx(40, abs=0.9)
        assert pct(share.vcores, 10) == pytest.approx(40, abs=0.9)
    b1 = shares.queues["root.parentB.childB1"]
    assert pct(b1.memory, NODE_MEM) == pytest.approx(10, abs=0.9)
    assert pct(b1.vcores, 10) == pytest.approx(10, abs=0.9)
    steady = compute_steady_fair_shares(tree, cluster)
    # parentB's single vcore is cut between two children at the bisection's upper bound:
    # each gets 1 (10 %), not 0.5 — the sum exceeds the parent's share (§2.3).
    assert steady["root.parentB.childB1"].vcores / 10 == pytest.approx(0.1, abs=0.001)
    assert steady["root.parentB.childB1"].memory / NODE_MEM == pytest.approx(0.05, abs=0.001)
    assert steady["root.parentA.childA1"].vcores / 10 == pytest.approx(0.2, abs=0.001)

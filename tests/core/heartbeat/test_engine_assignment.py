"""Heartbeat assignment through the engine (docs/semantics.md §3.1–§3.7)."""

from __future__ import annotations

import pytest

from tests.core.engine_builders import GB, ask, make_engine, r, records, usage

MULTI = {"yarn.scheduler.fair.assignmultiple": "true"}


def allocated_on(engine, node: str) -> list[str]:
    return [e["app"] for e in records(engine, "container-allocated") if e["node"] == node]


def test_one_container_per_heartbeat_without_assignmultiple():
    engine = make_engine()
    engine.submit("a", "root.a", "u", requests=[ask(4)])
    engine.update()
    engine.heartbeat("n1")
    assert usage(engine, "a") == (GB, 1)


def test_dynamic_max_assign_stops_once_past_half_the_free_space():
    # §3.7: maxToAssign = half of the 8 GB / 16 vcore node; the test is "assigned fits in it",
    # checked after each container, so 1 GB containers go on until 5 GB (one extra).
    engine = make_engine(site=MULTI, nodes=[("n1", 8 * GB, 16)])
    engine.submit("a", "root.a", "u", requests=[ask(10)])
    engine.update()
    engine.heartbeat("n1")
    assert usage(engine, "a") == (5 * GB, 5)


def test_max_assign_caps_containers_per_heartbeat():
    site = {**MULTI, "yarn.scheduler.fair.dynamic.max.assign": "false",
            "yarn.scheduler.fair.max.assign": "3"}
    engine = make_engine(site=site)
    engine.submit("a", "root.a", "u", requests=[ask(10)])
    engine.update()
    engine.heartbeat("n1")
    assert usage(engine, "a") == (3 * GB, 3)


def test_unlimited_assignment_fills_the_node():
    site = {**MULTI, "yarn.scheduler.fair.dynamic.max.assign": "false"}
    engine = make_engine(site=site)
    engine.submit("a", "root.a", "u", requests=[ask(20)])
    engine.update()
    engine.heartbeat("n1")
    assert usage(engine, "a") == (8 * GB, 8)


def test_fair_policy_serves_the_queue_with_less_usage_per_weight_first():
    # weights 1 and 3: after each allocation the lower usage/weight queue goes next,
    # so b (weight 3) gets 3 containers for every one of a's.
    body = "<queue name='a'><weight>1</weight></queue><queue name='b'><weight>3</weight></queue>"
    engine = make_engine(body, site={**MULTI, "yarn.scheduler.fair.dynamic.max.assign": "false"})
    engine.submit("a1", "root.a", "u", requests=[ask(8)])
    engine.submit("b1", "root.b", "u", requests=[ask(8)])
    engine.update()
    engine.heartbeat("n1")
    assert usage(engine, "a1") == (2 * GB, 2)
    assert usage(engine, "b1") == (6 * GB, 6)


def test_queue_max_resources_limit_the_whole_subtree():
    body = ("<queue name='p'><maxResources>2048 mb, 10 vcores</maxResources>"
            "<queue name='x'/><queue name='y'/></queue>")
    engine = make_engine(body, site={**MULTI, "yarn.scheduler.fair.dynamic.max.assign": "false"})
    engine.submit("a", "root.p.x", "u", requests=[ask(4)])
    engine.submit("b", "root.p.y", "u", requests=[ask(4)])
    engine.update()
    engine.heartbeat("n1")
    assert engine.state.queues["root.p"].usage.memory == 2 * GB


def test_first_container_of_a_managed_app_is_its_am():
    engine = make_engine(site=MULTI)
    engine.submit("a", "root.a", "u", am=r(GB, 1), requests=[ask(2, 2 * GB)])
    engine.update()
    engine.heartbeat("n1")
    allocs = records(engine, "container-allocated")
    assert [a["am"] for a in allocs] == [True, False, False]
    assert engine.app("a").am_running
    assert engine.state.queues["root.a"].am_resource_usage == r(GB, 1)


def test_unmanaged_app_has_no_am_container():
    engine = make_engine()
    engine.submit("a", "root.a", "u", requests=[ask(1)])
    engine.update()
    engine.heartbeat("n1")
    assert [a["am"] for a in records(engine, "container-allocated")] == [False]


def test_max_am_share_blocks_a_second_am():
    # Leaf instantaneous fair share 8 GB (alone on the cluster) × maxAMShare 0.25 = 2 GB:
    # the first 2 GB AM fits, a second one would make 4 GB > 2 GB (§3.6.4).
    body = "<queue name='a'><maxAMShare>0.25</maxAMShare></queue>"
    engine = make_engine(body, site=MULTI)
    engine.submit("a1", "root.a", "u", am=r(2 * GB, 1))
    engine.submit("a2", "root.a", "u", am=r(2 * GB, 1))
    engine.update()
    engine.heartbeat("n1")
    assert engine.app("a1").am_running and not engine.app("a2").am_running
    assert engine.state.queues["root.a"].max_am_share_metric.memory == 2 * GB


def test_node_local_request_without_relaxation_waits_for_its_node():
    engine = make_engine(nodes=[("n1", 8 * GB, 8), ("n2", 8 * GB, 8)])
    engine.submit("a", "root.a", "u", requests=[ask(1, locality="n2", relax=False)])
    engine.update()
    engine.heartbeat("n1")
    assert usage(engine, "a") == (0, 0)
    engine.heartbeat("n2")
    [alloc] = records(engine, "container-allocated")
    assert (alloc["node"], alloc["locality"]) == ("n2", "node-local")


def test_rack_request_without_relaxation_stays_in_its_rack():
    engine = make_engine(nodes=[])
    engine.add_node("n1", r(8 * GB, 8), "/r1")
    engine.add_node("n2", r(8 * GB, 8), "/r2")
    engine.submit("a", "root.a", "u", requests=[ask(1, locality="/r2", relax=False)])
    engine.update()
    engine.heartbeat("n1")
    assert usage(engine, "a") == (0, 0)
    engine.heartbeat("n2")
    [alloc] = records(engine, "container-allocated")
    assert (alloc["node"], alloc["locality"]) == ("n2", "rack-local")


def test_delay_scheduling_relaxes_on_the_third_offer_with_ten_nodes():
    # §8.2: 10 nodes × float32(0.2) = 2.00000003 opportunities; the request for n10 is
    # offered n1, n2 (node-local only), and goes rack-local on the 3rd offer.
    site = {"yarn.scheduler.fair.locality.threshold.node": "0.2",
            "yarn.scheduler.fair.locality.threshold.rack": "0.2"}
    engine = make_engine(site=site, nodes=[(f"n{i}", 8 * GB, 8) for i in range(1, 11)])
    engine.submit("a", "root.a", "u", requests=[ask(1, locality="n10")])
    engine.update()
    for node in ("n1", "n2"):
        engine.heartbeat(node)
        assert usage(engine, "a") == (0, 0), node
    engine.heartbeat("n3")
    [alloc] = records(engine, "container-allocated")
    assert (alloc["node"], alloc["locality"]) == ("n3", "rack-local")


def test_without_delay_scheduling_any_node_will_do():
    engine = make_engine(nodes=[(f"n{i}", 8 * GB, 8) for i in range(1, 11)])
    engine.submit("a", "root.a", "u", requests=[ask(1, locality="n10")])
    engine.update()
    engine.heartbeat("n1")
    [alloc] = records(engine, "container-allocated")
    assert (alloc["node"], alloc["locality"]) == ("n1", "rack-local")


def fill_then_starve(engine, big: int) -> None:
    """``hog`` takes the whole node; ``b`` (below its fair share) asks for ``big`` MB."""
    engine.submit("hog", "root.a", "u", requests=[ask(8)])
    engine.update()
    engine.heartbeat("n1")
    engine.submit("b", "root.b", "u", requests=[ask(1, big)])
    engine.update()


def test_a_starved_app_reserves_a_large_container_that_does_not_fit():
    # §3.6.5: b is below its fair share (isStarved) and 2 GB ≥ the 2 GB threshold.
    engine = make_engine(site={**MULTI, "yarn.scheduler.fair.dynamic.max.assign": "false"})
    fill_then_starve(engine, 2 * GB)
    engine.heartbeat("n1")
    assert engine.node("n1").reservation.app_id == "b"
    assert engine.state.queues["root.b"].reserved == r(2 * GB, 1)
    assert usage(engine, "b") == (0, 0)


def test_a_container_below_the_reservation_threshold_is_not_reserved():
    engine = make_engine()
    fill_then_starve(engine, GB)
    engine.heartbeat("n1")
    assert engine.node("n1").reservation is None


def test_a_reservation_is_fulfilled_once_the_node_has_room_and_blocks_others():
    engine = make_engine(site={**MULTI, "yarn.scheduler.fair.dynamic.max.assign": "false"})
    fill_then_starve(engine, 2 * GB)
    engine.heartbeat("n1")
    engine.release("hog", 1)
    engine.heartbeat("n1")  # 1 GB free: the reservation stays, nothing else is scheduled
    assert usage(engine, "hog") == (7 * GB, 7)
    assert engine.node("n1").reservation is not None
    engine.release("hog", 1)
    engine.heartbeat("n1")
    assert usage(engine, "b") == (2 * GB, 1)
    assert engine.node("n1").reservation is None
    assert records(engine, "container-allocated")[-1]["via"] == "reservation"


def test_ask_normalisation_rounds_up_to_the_increment_and_refuses_above_the_maximum():
    # 1500 MB rounds up to the 1024 MB increment: 2048. An ask above the maximum allocation
    # (8 GB, 4 vcores here) is not capped: ApplicationMasterService refuses the whole call.
    engine = make_engine()
    engine.submit("a", "root.a", "u", requests=[ask(1, 1500, 1)])
    engine.request("a", [ask(1, 2 * GB, 1), ask(1, 20 * GB, 9)])
    sizes = [(e["resource"]["memory-mb"], e["resource"]["vcores"])
             for e in records(engine, "containers-requested")]
    assert sizes == [(2 * GB, 1)]
    assert len(records(engine, "requests-rejected")) == 1
    # the ResourceManager's own ask for an AM is normalised the same way, and capped
    engine.submit("m", "root.a", "u", am=r(20 * GB, 9))
    am = records(engine, "containers-requested")[-1]
    assert (am["resource"]["memory-mb"], am["resource"]["vcores"]) == (8 * GB, 4)


@pytest.mark.parametrize("policy", ["fair", "drf"])
def test_zero_demand_app_is_not_offered_nodes(policy):
    engine = make_engine(f"<defaultQueueSchedulingPolicy>{policy}</defaultQueueSchedulingPolicy>")
    engine.submit("idle", "root.a", "u")
    engine.submit("busy", "root.a", "u", requests=[ask(1)])
    engine.update()
    engine.heartbeat("n1")
    assert [e["app"] for e in records(engine, "container-allocated")] == ["busy"]


def test_allocate_call_asking_for_a_type_the_leaf_may_not_use_is_refused_whole():
    """§3.10: the zero-max test of submission also runs on every allocate call; the call fails
    as a whole, so none of its requests is recorded."""
    body = "<queue name='q'><maxResources>4096 mb, 0 vcores</maxResources></queue>"
    engine = make_engine(body, site={"yarn.scheduler.minimum-allocation-vcores": "0"})
    engine.submit("u1", "root.q", "u", None, [])
    engine.request("u1", [ask(1, GB, 0), ask(2, GB, 1)])
    [rejected] = records(engine, "requests-rejected")
    assert rejected["reason"] == "queue root.q has a maximum of 0 vcores, asked for 1"
    assert engine.app("u1").asks == {} and records(engine, "containers-requested") == []
    engine.request("u1", [ask(2, GB, 0)])
    engine.update()
    engine.heartbeat("n1")
    engine.heartbeat("n1")  # one container per heartbeat
    assert engine.app("u1").usage == r(2 * GB, 0)

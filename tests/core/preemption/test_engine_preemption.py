"""Starvation and preemption through the engine (docs/semantics.md §4, §5), with the numbers of
its worked examples and vectors."""

from __future__ import annotations

from tests.core.engine_builders import GB, PREEMPTION_ON, ask, make_engine, r, records, usage

MULTI = {"yarn.scheduler.fair.assignmultiple": "true",
         "yarn.scheduler.fair.dynamic.max.assign": "false"}
SMALL_ALLOC = {"yarn.scheduler.minimum-allocation-mb": "512",
               "yarn.scheduler.increment-allocation-mb": "512"}


def two_queues(b_settings: str = "", a_settings: str = "") -> str:
    return f"<queue name='a'>{a_settings}</queue><queue name='b'>{b_settings}</queue>"


def fill(engine, app: str, queue: str, count: int, memory: int = GB, am=None) -> None:
    engine.submit(app, queue, "u", am=am, requests=[ask(count, memory)])
    engine.update(preempt=False)
    engine.heartbeat_all()


# -- §4.2 fair-share starvation ------------------------------------------------------------------


def fair_share_case(b_asks_memory: int):
    """§8.2: b's app fair share is 4 GB (half of 8 GB), threshold 0.5, usage 1 GB."""
    body = two_queues("<fairSharePreemptionThreshold>0.5</fairSharePreemptionThreshold>"
                      "<fairSharePreemptionTimeout>2</fairSharePreemptionTimeout>")
    engine = make_engine(body, site={**PREEMPTION_ON, **MULTI, **SMALL_ALLOC})
    fill(engine, "a1", "root.a", 7)
    fill(engine, "b1", "root.b", 1)
    engine.request("b1", [ask(1, b_asks_memory)])
    return engine


def test_fair_share_starvation_is_threshold_times_share_minus_usage():
    engine = fair_share_case(7 * GB)  # demand 8 GB → fairDemand = 0.5 × 4 GB = 2 GB
    engine.update(preempt=False)
    assert engine.app("b1").fair_share == r(4 * GB, 0)
    assert engine.app("b1").fairshare_starvation == r(0, 0)  # not past the 2 s timeout
    engine.advance(2000)
    engine.update(preempt=False)
    [starved] = records(engine, "starvation")
    assert starved["fairshare-starvation"] == {"memory-mb": GB, "vcores": 0}
    assert (starved["kind"], starved["since-ms"]) == ("fair-share", 0)


def test_fair_share_starvation_is_capped_by_demand():
    engine = fair_share_case(512)  # demand 1.5 GB → fairDemand 1.5 GB, starvation 512 MB
    engine.advance(2000)
    engine.update(preempt=False)
    assert engine.app("b1").fairshare_starvation == r(512, 0)


def test_no_starvation_while_utilization_is_at_or_below_the_threshold():
    site = {**PREEMPTION_ON, **MULTI,
            "yarn.scheduler.fair.preemption.cluster-utilization-threshold": "0.9"}
    body = two_queues("<fairSharePreemptionTimeout>1</fairSharePreemptionTimeout>")
    engine = make_engine(body, site=site, nodes=[("n1", 10 * GB, 10)])
    fill(engine, "a1", "root.a", 9)  # 90 %: the gate needs strictly more (§4.1)
    engine.submit("b1", "root.b", "u", requests=[ask(2)])
    engine.advance(5000)
    engine.update()
    assert records(engine, "starvation") == []
    assert engine.app("b1").last_time_at_fair_share == 0  # frozen while the gate is closed
    # §4.7: once the gate opens the frozen timer makes b1 starved at the first evaluation
    engine.heartbeat("n1")  # b1 gets the last 1 GB: 100 % now, b1 still below 0.5 × 5 GB
    engine.update(preempt=False)
    assert [s["app"] for s in records(engine, "starvation")] == ["b1"]


# -- §4.3 min-share starvation -----------------------------------------------------------------


def test_the_seed_min_share_split_three_two_one_and_nothing():
    # Seed example: a queue 6 GB below its minimum; its apps' unmet demands are 3, 2, 1 and
    # 0.5 GB (in comparator order: equal usage, so start time). They get 3, 2 and 1 GB.
    body = ("<queue name='hog'/><queue name='m'><minResources>6144 mb, 0 vcores</minResources>"
            "<minSharePreemptionTimeout>1</minSharePreemptionTimeout></queue>")
    engine = make_engine(body, site={**PREEMPTION_ON, **MULTI, **SMALL_ALLOC},
                         nodes=[("n1", 16 * GB, 16)])
    fill(engine, "hog", "root.hog", 16)
    for i, memory in enumerate([3 * GB, 2 * GB, GB, 512], start=1):
        engine.submit(f"app{i}", "root.m", "u", requests=[ask(1, memory)])
        engine.advance(1)
    engine.advance(1000)
    engine.update(preempt=False)
    got = [engine.app(f"app{i}").minshare_starvation.memory for i in range(1, 5)]
    assert got == [3 * GB, 2 * GB, GB, 0]
    assert sorted(s["app"] for s in records(engine, "starvation")) == ["app1", "app2", "app3"]


def test_min_share_attribution_gives_unmet_minus_pending_when_unmet_is_larger():
    # §8.2 quirk: leaf min 10 GB, demand 20 GB, usage 2 GB → queue min-share starvation 8 GB;
    # the app's unmet demand is 18 GB > 8 GB, so it is attributed 18 − 8 = 10 GB.
    body = ("<queue name='hog'/><queue name='m'><minResources>10240 mb, 0 vcores</minResources>"
            "<minSharePreemptionTimeout>1</minSharePreemptionTimeout></queue>")
    engine = make_engine(body, site={**PREEMPTION_ON, **MULTI}, nodes=[("n1", 32 * GB, 32)])
    fill(engine, "m1", "root.m", 2)
    fill(engine, "hog", "root.hog", 30)
    engine.request("m1", [ask(18)])
    engine.advance(1000)
    engine.update(preempt=False)
    assert engine.app("m1").minshare_starvation.memory == 10 * GB


# -- §5 victims, warnings, kills -------------------------------------------------------------


def over_and_starved(site_extra=None, a_settings: str = ""):
    """a1 (weight 1: fair share 2 GB of 6 GB) holds an AM and two 2 GB tasks on the only node;
    b1 (weight 2: 4 GB, threshold 1) asks for one 4 GB container."""
    body = two_queues("<weight>2</weight>"
                      "<fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>"
                      "<fairSharePreemptionTimeout>1</fairSharePreemptionTimeout>",
                      f"<weight>1</weight>{a_settings}")
    engine = make_engine(body, site={**PREEMPTION_ON, **MULTI, **(site_extra or {})},
                         nodes=[("n1", 6 * GB, 6)])
    fill(engine, "a1", "root.a", 2, 2 * GB, am=r(2 * GB, 1))
    engine.submit("b1", "root.b", "u", requests=[ask(1, 4 * GB)])
    engine.advance(1000)
    return engine


def test_victims_are_the_two_tasks_not_the_am():
    engine = over_and_starved()
    engine.update()
    warned = records(engine, "preemption-warned")
    assert [(w["am"], w["resource"]["memory-mb"]) for w in warned] == [(False, 2 * GB)] * 2
    assert {w["beneficiary-app"] for w in warned} == {"b1"}
    assert warned[-1]["victim-usage-after"]["memory-mb"] == 2 * GB  # = its fair share
    assert engine.node("n1").earmarks == {("b1", 1): r(4 * GB, 2)}


def test_warn_then_kill_after_wait_time_then_the_starved_app_gets_the_space():
    engine = over_and_starved()
    engine.update()
    engine.heartbeat("n1")  # YARN-6895: no reservation on a node earmarked for b1
    assert engine.node("n1").reservation is None
    engine.advance(14_999)
    assert records(engine, "container-preempted") == []
    engine.advance(1)
    killed = records(engine, "container-preempted")
    assert [k["t"] for k in killed] == [16_000, 16_000]
    assert engine.app("a1").preempted_containers == 2
    assert engine.state.queues["root.a"].containers_preempted == 2
    assert engine.state.queues["root"].containers_preempted == 2
    engine.heartbeat("n1")
    assert usage(engine, "b1") == (4 * GB, 1)
    assert records(engine, "container-allocated")[-1]["via"] == "earmark"


def test_starved_app_is_not_evaluated_again_for_25_seconds():
    # waitTimeBeforeKill 15 s + waitTimeBeforeNextStarvationCheck 10 s; the "4 heartbeats"
    # FSPreemptionThread adds are 4 × 0: it reads the heartbeat interval before the scheduler
    # has set it (FairScheduler.serviceInit runs initScheduler before super.serviceInit)
    engine = over_and_starved()
    engine.update()
    assert engine.app("b1").next_starvation_check == 1000 + 15_000 + 10_000


def test_with_continuous_scheduling_the_back_off_adds_ten_of_its_runs():
    engine = over_and_starved({"yarn.scheduler.fair.continuous-scheduling-enabled": True,
                               "yarn.scheduler.fair.continuous-scheduling-sleep-ms": 7})
    engine.update()
    assert engine.app("b1").next_starvation_check == 1000 + 15_000 + 10 * 7 + 10_000


def test_non_preemptable_queue_keeps_its_containers():
    engine = over_and_starved(a_settings="<allowPreemptionFrom>false</allowPreemptionFrom>")
    engine.update()
    assert records(engine, "preemption-warned") == []
    [none] = records(engine, "no-preemption")
    assert (none["app"], none["containers-wanted"], none["containers-found"]) == ("b1", 1, 0)
    assert none["blocked"] == {"non-preemptable-queue": 1}


def test_an_am_is_taken_only_when_no_am_free_set_fits():
    # b1 needs all 6 GB: the node can only make room by taking the AM too. a1's queue has
    # weight 0, so a1's fair share is 0 and it may lose everything.
    body = ("<queue name='a'><weight>0</weight></queue><queue name='b'>"
            "<fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>"
            "<fairSharePreemptionTimeout>1</fairSharePreemptionTimeout></queue>")
    engine = make_engine(body, site={**PREEMPTION_ON, **MULTI}, nodes=[("n1", 6 * GB, 6)])
    fill(engine, "a1", "root.a", 2, 2 * GB, am=r(2 * GB, 1))
    engine.submit("b1", "root.b", "u", requests=[ask(1, 6 * GB)])
    engine.advance(1000)
    engine.update()
    warned = records(engine, "preemption-warned")
    assert [w["am"] for w in warned] == [False, False, True]  # AMs last (§5.4)


def test_am_preemption_switched_off_spares_the_am():
    body = ("<queue name='a'><weight>0</weight></queue><queue name='b'>"
            "<fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>"
            "<fairSharePreemptionTimeout>1</fairSharePreemptionTimeout></queue>")
    site = {**PREEMPTION_ON, **MULTI, "yarn.scheduler.fair.am.preemption.root.a": "false"}
    engine = make_engine(body, site=site, nodes=[("n1", 6 * GB, 6)])
    fill(engine, "a1", "root.a", 2, 2 * GB, am=r(2 * GB, 1))
    engine.submit("b1", "root.b", "u", requests=[ask(1, 6 * GB)])
    engine.advance(1000)
    engine.update()
    assert records(engine, "preemption-warned") == []


def test_preempted_am_restarts_the_attempt_and_asks_again():
    body = ("<queue name='a'><weight>0</weight></queue><queue name='b'>"
            "<fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>"
            "<fairSharePreemptionTimeout>1</fairSharePreemptionTimeout></queue>")
    engine = make_engine(body, site={**PREEMPTION_ON, **MULTI}, nodes=[("n1", 6 * GB, 6)])
    fill(engine, "a1", "root.a", 2, 2 * GB, am=r(2 * GB, 1))
    engine.submit("b1", "root.b", "u", requests=[ask(1, 6 * GB)])
    engine.advance(1000)
    engine.update()
    engine.advance(15_000)
    a1 = engine.app("a1")
    assert (a1.attempt, a1.am_running, len(a1.containers)) == (2, False, 0)
    assert a1.preempted_am_containers == 1 and a1.preempted_containers == 3
    # the tasks died before the AM (AMs last), so the new attempt asks for its AM only;
    # asking again for preempted tasks is the application's business
    assert {key: table["*"].count for key, table in a1.asks.items()} == {(0, 0): 1}


def test_least_starved_app_is_served_first():
    # §4.4: starvation 1 GB vs 4 GB → the 1 GB app is taken from the queue first.
    body = ("<queue name='hog'><weight>0</weight></queue>"
            "<queue name='x'><fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>"
            "<fairSharePreemptionTimeout>1</fairSharePreemptionTimeout></queue>"
            "<queue name='y'><fairSharePreemptionThreshold>1</fairSharePreemptionThreshold>"
            "<fairSharePreemptionTimeout>1</fairSharePreemptionTimeout></queue>")
    engine = make_engine(body, site={**PREEMPTION_ON, **MULTI}, nodes=[("n1", 16 * GB, 16)])
    fill(engine, "hog", "root.hog", 16)
    engine.submit("big", "root.x", "u", requests=[ask(4)])   # starvation 4 GB
    engine.submit("small", "root.y", "u", requests=[ask(1)])  # starvation 1 GB
    engine.advance(1000)
    engine.update()
    order = [w["beneficiary-app"] for w in records(engine, "preemption-warned")]
    assert order == ["small", "big", "big", "big", "big"]

"""The round-long victim search gives the reference algorithm's decisions
(docs/semantics.md §5.3–§5.5).

:func:`plan_preemption` (with a :class:`VictimSearch` kept across a round) and
:func:`~tests.oracles.preemption.plan_preemption_reference` are compared on small random
clusters: nodes on a few racks; ``fair`` and ``drf`` leaves, a queue that may not be preempted
from, one whose AMs may not be preempted, one with fair share 0, a min-share queue; AMs and
tasks of several sizes placed at random (and clusters full of AMs, so that searches must weigh
sets of several AMs); reservations; a second round of newcomers that meets the first round's
marks and earmarks; ``waitTimeBeforeKill`` 0 (victims die inside the round) or not. Every
starved app of a round is planned both ways on the same state before a plan is committed — also
for what-if requests at hosts and racks, with and without relaxLocality, which §5.2 never makes
— and whole rounds run both ways on twin engines must emit the same events. Hand-worked cases
pin what the shortcuts must not get wrong.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairshare.core.engine import Engine
from fairshare.core.heartbeat.assignment import allocate
from fairshare.core.preemption.commit import commit
from fairshare.core.preemption.plan import PreemptionPlan, plan_preemption
from fairshare.core.preemption.round import (
    after_commit,
    post_preemption_delay,
    preempt_for_starved_apps,
)
from fairshare.core.preemption.search import VictimSearch
from fairshare.core.preemption.victims import ANY, StarvedRequest
from fairshare.core.rules.locality import Locality
from fairshare.core.starvation.rules import take_starved_app
from tests.core.engine_builders import GB, ask, make_engine, r, records
from tests.oracles.preemption import ReferencePlanner, plan_preemption_reference

FAIR = "<schedulingPolicy>fair</schedulingPolicy>"
BODY = (
    "<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>"
    "<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>"
    f"<queue name='a'><weight>2</weight>{FAIR}</queue>"
    f"<queue name='zero'><weight>0</weight>{FAIR}</queue>"  # fair share 0: AMs may go too
    "<queue name='b'/>"
    f"<queue name='keep'>{FAIR}<allowPreemptionFrom>false</allowPreemptionFrom></queue>"
    f"<queue name='noam'>{FAIR}</queue>"
    f"<queue name='min'>{FAIR}<minResources>6144 mb, 2 vcores</minResources>"
    "<minSharePreemptionTimeout>1</minSharePreemptionTimeout></queue>"
)
QUEUES = ["root.a", "root.b", "root.keep", "root.noam", "root.min", "root.zero", "root.zero"]
SIZES = [(512, 1), (1024, 1), (1024, 2), (2048, 1), (3072, 2), (4096, 1)]


@dataclass(frozen=True)
class AppSpec:
    queue: str
    am: int | None  # AM memory; None: an unmanaged AM
    task: tuple[int, int]
    running: int  # tasks placed at random
    pending: int  # more tasks asked for at ANY
    local: tuple[int, int, bool] | None  # (place index, count, relaxLocality): host/rack ask
    what_if: tuple[tuple[int, int, int, bool], ...]  # (size index, place, count, relax)


@dataclass(frozen=True)
class Spec:
    nodes: tuple[tuple[int, int, int], ...]  # memory GB, vcores, rack
    apps: tuple[AppSpec, ...]
    newcomers: tuple[AppSpec, ...]  # submitted between the two rounds
    reservations: tuple[tuple[int, int], ...]  # (node index, app index)
    seed: int
    kill_ms: int
    threshold: str


APPS = st.builds(
    AppSpec,
    queue=st.sampled_from(QUEUES),
    am=st.sampled_from([None, 512, 1024, 1024, 2048]),
    task=st.sampled_from(SIZES),
    running=st.sampled_from([0, 0, 1, 2, 3, 5, 8]),
    pending=st.integers(0, 6),
    local=st.none() | st.tuples(st.integers(0, 20), st.integers(1, 4), st.booleans()),
    what_if=st.lists(st.tuples(st.integers(0, len(SIZES) + 1), st.integers(0, 20),
                               st.integers(1, 3), st.booleans()), max_size=3).map(tuple),
)
SPECS = st.builds(
    Spec,
    nodes=st.lists(st.tuples(st.integers(2, 10), st.integers(2, 8), st.integers(0, 2)),
                   min_size=1, max_size=7).map(tuple),
    apps=st.lists(APPS, min_size=1, max_size=10).map(tuple),
    newcomers=st.lists(APPS, max_size=4).map(tuple),
    reservations=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 6)),
                          max_size=2).map(tuple),
    seed=st.integers(0, 2**16),
    kill_ms=st.sampled_from([0, 5000]),
    threshold=st.sampled_from(["0.5", "1.0"]),
)

# Nodes full of AMs of apps at fair share 0, and requests only several AMs can make room for:
# searches that must weigh sets of 3, 2, 1 and 0 AMs (§5.3).
AM_HEAVY = st.builds(
    Spec,
    nodes=st.lists(st.tuples(st.integers(2, 3), st.integers(4, 8), st.integers(0, 1)),
                   min_size=2, max_size=8).map(tuple),
    apps=st.lists(st.builds(
        AppSpec, queue=st.sampled_from(["root.zero", "root.zero", "root.b", "root.noam"]),
        am=st.sampled_from([512, 1024, 1024, 1536]), task=st.sampled_from([(1024, 1)]),
        running=st.sampled_from([0, 0, 1]), pending=st.just(0), local=st.none(),
        what_if=st.just(())), min_size=8, max_size=24).map(tuple),
    newcomers=st.lists(st.builds(
        AppSpec, queue=st.sampled_from(["root.a", "root.b"]), am=st.none(),
        task=st.sampled_from([(2048, 1), (2048, 2), (2560, 1)]),
        running=st.just(0), pending=st.integers(1, 4), local=st.none(),
        what_if=st.lists(st.tuples(st.integers(3, 4), st.integers(0, 12), st.integers(1, 3),
                                   st.booleans()), max_size=2).map(tuple)),
        min_size=1, max_size=3).map(tuple),
    reservations=st.just(()),
    seed=st.integers(0, 2**16),
    kill_ms=st.sampled_from([0, 5000]),
    threshold=st.just("1.0"),
)
ANY_SPEC = st.one_of(SPECS, AM_HEAVY)


def site(spec: Spec) -> dict[str, str]:
    fair = "yarn.scheduler.fair."
    return {
        fair + "preemption": "true",
        fair + "preemption.cluster-utilization-threshold": "0",
        fair + "waitTimeBeforeKill": str(spec.kill_ms),
        fair + "waitTimeBeforeNextStarvationCheck": "0",
        fair + "am.preemption.root.noam": "false",
        "yarn.scheduler.minimum-allocation-mb": "512",
        "yarn.scheduler.increment-allocation-mb": "512",
    }


def submit(engine: Engine, app_id: str, spec: AppSpec, rng: random.Random) -> None:
    """Submit, place the AM and ``running`` tasks on random nodes (first fit), ask for more."""
    s = engine.s
    places = [*s.state.nodes, *sorted({n.rack for n in s.state.nodes.values()})]
    am = None if spec.am is None else r(spec.am, 1)
    app = engine.submit(app_id, spec.queue, "u",
                        am=am, requests=[ask(spec.running + spec.pending, *spec.task)])
    nodes = list(s.state.nodes.values())
    for _ in range(spec.running + (am is not None)):
        key = min(app.asks)
        capability = app.asks[key]["*"].capability
        start = rng.randrange(len(nodes))
        for k in range(len(nodes)):
            node = nodes[(start + k) % len(nodes)]
            if all(c <= f for c, f in zip(capability.values, node.unallocated.values,
                                          strict=True)):
                allocate(s, app, node, key, capability, Locality.OFF_SWITCH, via="test")
                break
        else:
            break  # no room: the rest stays pending
    if spec.local is not None:
        where, count, relax = spec.local
        memory, vcores = spec.task
        engine.request(app_id, [ask(count, memory, vcores, priority=2,
                                    locality=places[where % len(places)], relax=relax)])


def build(spec: Spec) -> Engine:
    body = BODY.replace("<defaultFairSharePreemptionTimeout>",
                        f"<defaultFairSharePreemptionThreshold>{spec.threshold}"
                        "</defaultFairSharePreemptionThreshold><defaultFairSharePreemptionTimeout>")
    engine = make_engine(body, site=site(spec), nodes=())
    for i, (memory, vcores, rack) in enumerate(spec.nodes):
        engine.add_node(f"n{i}", r(memory * GB, vcores), f"/rack{rack}")
    rng = random.Random(spec.seed)
    for i, app in enumerate(spec.apps):
        submit(engine, f"app{i}", app, rng)
    s = engine.s
    for node_index, app_index in spec.reservations:
        node = engine.state.nodes.get(f"n{node_index}")
        app = engine.state.apps.get(f"app{app_index}")
        if node is None or app is None or not app.asks or node.reservation is not None:
            continue
        key = max(app.asks)
        s.write.reserve(app, node, key, next(iter(app.asks[key].values())).capability)
    engine.advance(1000)
    return engine


def newcomers(engine: Engine, spec: Spec) -> None:
    rng = random.Random(spec.seed + 1)
    for i, app in enumerate(spec.newcomers):
        submit(engine, f"new{i}", app, rng)
    engine.advance(1000)


def what_if(engine: Engine, spec: Spec, app_id: str) -> list[tuple[StarvedRequest, int]]:
    """Requests the engine never makes itself (§5.2 always ends at a key's ANY request):
    hosts and racks, with and without relaxLocality, and a size larger than any node."""
    nodes = engine.state.nodes
    places = [ANY, *nodes, *sorted({n.rack for n in nodes.values()}), "/nowhere"]
    specs = {f"app{i}": a for i, a in enumerate(spec.apps)}
    specs.update({f"new{i}": a for i, a in enumerate(spec.newcomers)})
    sizes = [r(m, v) for m, v in SIZES] + [r(6 * GB, 2), r(64 * GB, 1)]
    extra = specs[app_id].what_if if app_id in specs else ()
    return [(StarvedRequest(sizes[size], places[place % len(places)], relax), count)
            for size, place, count, relax in extra]


def compared_round(engine: Engine, spec: Spec) -> list[PreemptionPlan]:
    """``preempt_for_starved_apps``, planning each app both ways before committing; an app
    with what-if requests has those planned both ways too, and one of its plans committed."""
    s = engine.s
    search = VictimSearch(s)
    plans = []
    while True:
        starvation_of = {a: s.state.apps[a].starvation for a in s.state.starved.heap}
        app_id, s.state.starved = take_starved_app(s.state.starved, starvation_of)
        if app_id is None:
            return plans
        app = s.state.apps[app_id]
        if not app.stopped:
            before = digest(engine)
            plan = plan_preemption(s, app, search)
            assert digest(engine) == before, "planning wrote to the state"
            assert plan == plan_preemption_reference(s, app)
            requests = what_if(engine, spec, app_id)
            if requests:
                what = plan_preemption(s, app, search, requests)
                assert what == plan_preemption_reference(s, app, requests)
                if len(requests) % 2:  # else the plan committed is not the latest one
                    plan = what
            plans.append(plan)
            commit(s, app, plan)
            search = after_commit(s, search, plan)
        app.next_starvation_check = s.now + post_preemption_delay(s)


def digest(engine: Engine) -> Any:
    """What a plan could write: marks, earmarks, reservations, owners' preemption fields."""
    state = engine.state
    return (
        [(n.name, n.allocated, sorted(n.marked_for_preemption), dict(n.earmarks),
          n.earmarked_total, n.reservation and n.reservation.container_id)
         for n in state.nodes.values()],
        [(a.id, a.usage, sorted(a.to_be_preempted), a.resources_to_be_preempted)
         for a in state.apps.values()],
        len(engine.events),
    )


@settings(derandomize=True, deadline=None, max_examples=250,
          suppress_health_check=[HealthCheck.too_slow])
@given(ANY_SPEC)
def test_every_plan_of_a_round_is_the_reference_plan(spec: Spec) -> None:
    engine = build(spec)
    engine.update(preempt=False)
    compared_round(engine, spec)
    newcomers(engine, spec)
    engine.update(preempt=False)
    compared_round(engine, spec)


@settings(derandomize=True, deadline=None, max_examples=150,
          suppress_health_check=[HealthCheck.too_slow])
@given(ANY_SPEC)
def test_rounds_emit_the_reference_events(spec: Spec) -> None:
    fast, reference = build(spec), build(spec)
    for engine, planner in ((fast, fast._steps.round_planner), (reference, ReferencePlanner)):
        engine.update(preempt=False)
        preempt_for_starved_apps(engine.s, planner(engine.s))
        newcomers(engine, spec)
        engine.update(preempt=False)
        preempt_for_starved_apps(engine.s, planner(engine.s))
        engine.advance(10_000)  # the kills, and the starved apps' back-off
    assert records(fast) == records(reference)


# -- cases worked by hand: the fast path where its shortcuts bite -------------------------------

HAND = (
    f"<queue name='zero'><weight>0</weight>{FAIR}</queue>"  # fair share 0: everything may go
    + "".join(f"<queue name='{q}'>{FAIR}<fairSharePreemptionThreshold>1"
              f"</fairSharePreemptionThreshold><fairSharePreemptionTimeout>1"
              f"</fairSharePreemptionTimeout></queue>" for q in ("x", "y"))
)
HAND_SITE = {"yarn.scheduler.fair.preemption": "true",
             "yarn.scheduler.fair.preemption.cluster-utilization-threshold": "0",
             "yarn.scheduler.minimum-allocation-mb": "512",
             "yarn.scheduler.increment-allocation-mb": "512"}


def place(engine: Engine, app_id: str, queue: str, where: list[tuple[str, int]],
          am: bool = False) -> None:
    """Submit ``app_id`` and place its containers (the first is the AM if ``am``; the
    tasks are all of one size)."""
    tasks = [memory for _, memory in where][1 if am else 0:]
    app = engine.submit(app_id, queue, "u", am=r(where[0][1], 1) if am else None,
                        requests=[ask(len(tasks), tasks[0])] if tasks else [])
    for node, memory in where:
        key = min(app.asks)
        assert app.asks[key]["*"].capability.memory == memory
        allocate(engine.s, app, engine.node(node), key, r(memory, 1), Locality.OFF_SWITCH,
                 via="test")


def round_plans(engine: Engine) -> list[PreemptionPlan]:
    engine.advance(1000)
    engine.update(preempt=False)
    return compared_round(engine, Spec((), (), (), (), 0, 5000, "1.0"))


def victims(plan: PreemptionPlan) -> list[tuple[str, list[str], int]]:
    return [(sel.node, [v.container_id.rsplit("_", 1)[1] for v in sel.victims], sel.num_am)
            for sel in plan.selections]


def test_a_node_drained_earlier_in_the_round_offers_only_its_remaining_room() -> None:
    # n1 has 2 GB free and six 1 GB tasks of a zero-share app. x and y need 3 GB each. The
    # first served gets the free 2 GB plus the first task of YARN's walk; that earmarks 1 GB,
    # so for the second only 1 GB is free: the next two. The walk: hog (app 1, attempt 1) has
    # containers 1..6, which a Java HashMap iterates as 6, 1, 2, 3, 4, 5 (printed by Hadoop's
    # ContainerId in jshell, tests/core/rules/test_yarn_order.py); tasks are put at the front, so
    # YARN walks 5, 4, 3, 2, 1, 6.
    engine = make_engine(HAND, site=HAND_SITE, nodes=[("n1", 8 * GB, 8)])
    place(engine, "hog", "root.zero", [("n1", GB)] * 6)
    engine.submit("x", "root.x", "u", requests=[ask(1, 3 * GB)])
    engine.submit("y", "root.y", "u", requests=[ask(1, 3 * GB)])
    plans = round_plans(engine)
    assert sorted(p.app_id for p in plans) == ["x", "y"]
    assert [victims(p) for p in plans] == [[("n1", ["000005"], 0)],
                                           [("n1", ["000004", "000003"], 0)]]


def test_the_fewest_ams_win_across_nodes_and_the_first_such_node() -> None:
    # 2 GB nodes. n1: two 1 GB AMs (2 AMs needed); n2: three AMs (3 needed); n3: a task and
    # an AM (1 AM); n4: the same (1 AM, but later). s needs 2 GB: n3 wins with one AM.
    nodes = [(f"n{i}", 2 * GB, 4) for i in range(1, 5)]
    engine = make_engine(HAND, site=HAND_SITE, nodes=nodes)
    for i, (node, memory) in enumerate([("n1", GB), ("n1", GB), ("n2", 512), ("n2", 512),
                                        ("n2", GB), ("n4", GB)]):
        place(engine, f"am{i}", "root.zero", [(node, memory)], am=True)
    place(engine, "t3", "root.zero", [("n3", GB), ("n3", GB)], am=True)
    place(engine, "t4", "root.zero", [("n4", GB)])
    engine.submit("s", "root.x", "u", requests=[ask(1, 2 * GB)])
    [plan] = round_plans(engine)
    assert victims(plan) == [("n3", ["000002", "000001"], 1)]


def test_a_host_request_that_needs_an_am_looks_elsewhere_only_if_it_may_relax() -> None:
    # n1 can make room only with an AM; n2 has two tasks of a zero-share app (YARN-7655).
    engine = make_engine(HAND, site=HAND_SITE, nodes=[("n1", 2 * GB, 4), ("n2", 2 * GB, 4)])
    place(engine, "a", "root.zero", [("n1", GB), ("n1", GB)], am=True)
    place(engine, "b", "root.zero", [("n2", GB), ("n2", GB)])
    s = engine.s
    app = engine.submit("s", "root.x", "u", requests=[ask(1, 2 * GB)])
    engine.update(preempt=False)
    for relax, node in ((True, "n2"), (False, "n1")):
        requests = [(StarvedRequest(r(2 * GB, 1), "n1", relax), 1)]
        plan = plan_preemption(s, app, None, requests)
        assert plan == plan_preemption_reference(s, app, requests)
        assert [sel.node for sel in plan.selections] == [node]


def test_an_owner_seen_in_an_earlier_round_is_seen_afresh_once_its_usage_changed() -> None:
    """Rounds keep owners' views; a view must not outlive the usage it was built from.

    n1 (6 GB) runs a1's three 2 GB containers; n2 (4 GB) c1's 4 GB (queue c may not be
    preempted). Weights a:b:c = 1:2:1 share 10 GB: a 2560 MB, b 5120 MB. b1 wants one 4 GB
    container (its starvation, capped by its demand, is 4096 MB: one container).
    Round 1: n1 has no free room; a1 (6 GB) could give one 2 GB container (6 − 2 ≥ 2.5) but not
    two (6 − 4 < 2.5): no victims. Then a1 releases a container: 4 GB used, the same fair share,
    nothing marked, 2 GB free on n1. Round 2, after b1's 29 s back-off: one 2 GB victim would
    do, but a1 would drop to 2 GB, below its 2560 MB: still no victims."""
    body = ("<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>"
            "<defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>"
            "<queue name='a'/><queue name='b'><weight>2</weight></queue>"
            "<queue name='c'><allowPreemptionFrom>false</allowPreemptionFrom></queue>")
    site = {"yarn.scheduler.fair.preemption": "true",
            "yarn.scheduler.fair.preemption.cluster-utilization-threshold": "0"}
    engine = make_engine(body, site=site, nodes=[("n1", 6 * GB, 6), ("n2", 4 * GB, 4)])
    engine.submit("a1", "root.a", "u", None, [ask(3, 2 * GB, 1, locality="n1", relax=False)])
    engine.submit("c1", "root.c", "u", None, [ask(1, 4 * GB, 1, locality="n2", relax=False)])
    engine.update(preempt=False)
    for _ in range(3):
        engine.heartbeat_all()
    assert engine.app("a1").usage == r(6 * GB, 3) and engine.app("c1").usage == r(4 * GB, 1)
    engine.submit("b1", "root.b", "u", None, [ask(1, 4 * GB, 1)])
    engine.update()
    engine.advance(1500)
    engine.update()  # round 1: b1 starved, nothing to take
    [starved] = records(engine, "starvation")
    assert (starved["app"], starved["amount"]["memory-mb"]) == ("b1", 4 * GB)
    assert engine.app("a1").fair_share.memory == 2560
    assert records(engine, "preemption-warned") == []
    engine.release("a1", 1)
    engine.advance(30_000)
    engine.update()  # round 2
    assert len(records(engine, "starvation")) == 2  # b1 was looked at again
    assert engine.app("a1").fair_share.memory == 2560
    assert records(engine, "preemption-warned") == []

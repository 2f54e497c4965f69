"""The indexed tree walk decides exactly as YARN's walk that sorts every level (issue 3, item 7).

* The sort keys order schedulables as the comparators do (docs/semantics.md §3.5), wherever
  they give a key.
* Two engines — the engine's walk and the reference (``tests/oracles/walk.py``) that sorts every
  level on each assignment — run the same random workloads in lockstep: busy leaves with several
  apps, all three policies, zero weights, tight ``maxAMShare`` (its gauge), ``maxResources``,
  min shares, delay scheduling on and off, reservations, preemption, node changes, moves and
  reloads. After every step both event streams must be equal; at the end, the queue metrics and
  the apps' and nodes' state too.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.model import PolicyName
from fairshare.core.engine import Engine
from fairshare.core.heartbeat import assignment, order_index
from fairshare.core.heartbeat import walk as heartbeat_walk
from fairshare.core.heartbeat.offers import Offer
from fairshare.core.heartbeat.order_index import OrderIndex
from fairshare.core.model.event_records import event_record
from fairshare.core.rules.policies import SchedulableView, comparator_for, sort_key_for
from fairshare.resources.vector import DEFAULT_TYPES, ResourceTypes, float32, sign
from tests.core.engine_builders import (
    GB,
    PREEMPTION_ON,
    allocations_xml,
    ask,
    first_difference,
    make_engine,
    r,
    random_node_change,
    records,
    same,
)

# -- the keys against the comparators -----------------------------------------------------------

POLICIES = [PolicyName.FAIR, PolicyName.FIFO, PolicyName.DRF]
GPU_TYPES = ResourceTypes.with_custom(["gpu"])


def views(n_types: int) -> st.SearchStrategy[SchedulableView]:
    types = DEFAULT_TYPES if n_types == 2 else GPU_TYPES
    amount = st.sampled_from([0, 0, 1, 512, 1024, 1536, 4096, 10**6])
    vector = st.lists(amount, min_size=n_types, max_size=n_types).map(
        lambda v: types.of(dict(zip(types.names, v, strict=True))))
    return st.builds(
        SchedulableView,
        name=st.sampled_from(["a", "b", "root.x", "ä", "\U0001f600", "\uffff", "app_01"]),
        demand=vector, usage=vector, min_share=vector,
        weight=st.sampled_from([0.0, 0.5, 1.0, 2.0, float32(0.1), 3.0]),
        start_time=st.sampled_from([0, 0, 5, 10]),
    )


@pytest.mark.parametrize("n_types", [2, 3])
@pytest.mark.parametrize("policy", POLICIES)
@settings(max_examples=300, deadline=None)
@given(data=st.data())
def test_sort_keys_order_as_the_comparators_do(policy: PolicyName, n_types: int,
                                               data: st.DataObject) -> None:
    items = data.draw(st.lists(views(n_types), min_size=2, max_size=6,
                               unique_by=lambda v: v.name))
    cluster = data.draw(st.sampled_from([(8192, 8, 2), (0, 8, 2), (8192, 0, 0), (10**7, 10, 1)]))
    types = DEFAULT_TYPES if n_types == 2 else GPU_TYPES
    capacity = types.of(dict(zip(types.names, cluster, strict=False)))
    compare, key = comparator_for(policy, n_types), sort_key_for(policy, n_types)
    keys = [key(v, capacity) for v in items]
    for a, ka in zip(items, keys, strict=True):
        for b, kb in zip(items, keys, strict=True):
            if ka is None or kb is None:
                continue
            assert sign(compare(a, b, capacity)) == (ka > kb) - (ka < kb), (a, b)
    if all(k is not None for k in keys):
        by_cmp = sorted(items, key=functools.cmp_to_key(lambda a, b: compare(a, b, capacity)))
        assert [v.name for v in by_cmp] == [k[-1] for k in sorted(keys)]  # type: ignore[type-var]


def test_keys_exist_on_a_normal_cluster_and_not_for_nan_shares() -> None:
    """A key is withheld exactly where the comparator meets a NaN: drf on an empty cluster."""
    cluster = r(8 * GB, 8)
    view = SchedulableView("q", r(GB, 1), r(GB, 1), r(0, 0), 1.0)
    for policy in POLICIES:
        assert sort_key_for(policy, 2)(view, cluster) is not None
    assert sort_key_for(PolicyName.DRF, 2)(SchedulableView("q", r(0, 0), r(0, 0), r(0, 0), 1.0),
                                            r(0, 0)) is None
    assert sort_key_for(PolicyName.FAIR, 2)(view, r(0, 0)) is not None  # memory ratios only


# -- lockstep: indexed walk vs the reference walk ----------------------------------------------

LEAVES = ["root.a.x", "root.a.y", "root.a.z", "root.b.u", "root.b.v", "root.c", "root.d"]


def allocation_body(rng: random.Random) -> str:
    """Three levels; leaf policies, weights (zero included), AM shares, max and min shares.

    Under a ``fair`` root the ``drf`` parent ``b`` cannot exist (§2.6.4), so the root is
    ``drf`` half the time; a reload may switch it either way (§1.6)."""
    root = rng.choice(["fair", "drf"])
    def leaf(name: str, policy: str) -> str:
        parts = [f"<schedulingPolicy>{policy}</schedulingPolicy>",
                 f"<weight>{rng.choice(['0', '1', '1', '2', '0.5'])}</weight>"]
        if rng.random() < 0.5:
            parts.append(f"<maxAMShare>{rng.choice(['0.1', '0.2', '-1', '1.0'])}</maxAMShare>")
        if rng.random() < 0.3:
            parts.append(f"<maxResources>{rng.choice([4, 8, 12]) * GB} mb, 8 vcores</maxResources>")
        if rng.random() < 0.3:
            parts.append(f"<minResources>{rng.choice([2, 4, 8]) * GB} mb, 2 vcores</minResources>")
        if rng.random() < 0.3:
            parts.append("<maxRunningApps>2</maxRunningApps>")
        return f"<queue name='{name}'>{''.join(parts)}</queue>"

    fair_or_fifo = ["fair", "fair", "fifo"]
    return (
        "<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>"
        "<defaultMinSharePreemptionTimeout>1</defaultMinSharePreemptionTimeout>"
        "<defaultFairSharePreemptionThreshold>0.8</defaultFairSharePreemptionThreshold>"
        f"<queue name='root'><schedulingPolicy>{root}</schedulingPolicy>"
        f"<queue name='a'><weight>{rng.choice(['1', '2', '0'])}</weight>"
        + "".join(leaf(n, rng.choice(fair_or_fifo)) for n in ("x", "y", "z")) + "</queue>"
        "<queue name='b'><schedulingPolicy>drf</schedulingPolicy>"
        + "".join(leaf(n, rng.choice(["drf", "fifo"])) for n in ("u", "v")) + "</queue>"
        + leaf("c", rng.choice(fair_or_fifo)) + leaf("d", "drf" if root == "drf" else "fair")
        + "</queue>"
    )


def site(rng: random.Random) -> dict[str, str]:
    fair = "yarn.scheduler.fair."
    locality = rng.choice(["-1.0", "-1.0", "0.5"])
    max_assign = rng.choice(["-1", "-1", "2"])
    return {
        **PREEMPTION_ON,
        fair + "assignmultiple": rng.choice(["true", "true", "false"]),
        fair + "dynamic.max.assign": rng.choice(["true", "false"]),
        fair + "max.assign": max_assign,
        fair + "locality.threshold.node": locality,
        fair + "locality.threshold.rack": locality,
        fair + "waitTimeBeforeKill": rng.choice(["0", "1000"]),
        "yarn.scheduler.minimum-allocation-mb": "512",
        "yarn.scheduler.increment-allocation-mb": "512",
    }


class Lockstep:
    """The same steps on both engines; the event streams are compared after every step."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.body, self.site = allocation_body(self.rng), site(self.rng)
        self.engines = [make_engine(self.body, site=self.site, nodes=(), reference_walk=flag)
                        for flag in (False, True)]
        self.seen = 0
        self.apps = 0

    def do(self, op: str, *args: Any) -> None:
        for engine in self.engines:
            getattr(engine, op)(*args)
        indexed, reference = (e.events[self.seen:] for e in self.engines)
        a = [event_record(e, self.engines[0].types) for e in indexed]
        b = [event_record(e, self.engines[1].types) for e in reference]
        assert same(a, b), f"after {op}{args}: first difference {first_difference(a, b)}"
        gauges = [{q: s.state.queues[q].max_am_share_metric for q in LEAVES if q in s.tree}
                  for s in (e.s for e in self.engines)]
        assert gauges[0] == gauges[1], f"MaxAMShare after {op}{args}"
        self.seen = len(self.engines[0].events)

    @property
    def live(self) -> list[str]:
        return sorted(a.id for a in self.engines[0].state.live_apps() if a.queue)

    def submit(self) -> None:
        self.apps += 1
        # sizes differ between an app's priorities, some larger than the smallest node: the
        # first key a node lets through decides (§3.6.2), which the index's offers rely on
        sizes = [512, 1024, 1536, 2048, 3072, 6144]
        asks = []
        for _ in range(self.rng.randint(1, 2)):
            where = self.where()
            asks.append(ask(self.rng.randint(1, 6), self.rng.choice(sizes),
                            self.rng.randint(1, 3), priority=self.rng.randint(1, 2),
                            locality=where, relax=where == "*" or self.rng.random() < 0.7))
        am = self.rng.choice([None, r(GB, 1), r(GB, 1), r(2 * GB, 1)])
        self.do("submit", f"app_{self.apps:03d}", self.rng.choice(LEAVES),
                self.rng.choice(["u1", "u2", "u3"]), am, asks)

    def where(self) -> str:
        nodes = sorted(self.engines[0].state.nodes)
        return self.rng.choice(["*", "*", "*", *nodes[:2], "/rack0", "ghost"])

    def step(self) -> None:
        rng, live, nodes = self.rng, self.live, sorted(self.engines[0].state.nodes)
        op = rng.choices(
            ["submit", "heartbeat", "heartbeat_all", "update", "advance", "request", "release",
             "finish", "move", "node", "reload"],
            weights=[10, 20, 15, 10, 8, 6, 8, 3, 2, 2, 1])[0]
        if op == "submit" or (not live and op in ("request", "release", "finish", "move")):
            self.submit()
        elif op == "heartbeat" and nodes:
            self.do("heartbeat", rng.choice(nodes))
        elif op in ("heartbeat", "heartbeat_all"):
            self.do("heartbeat_all")
        elif op == "update":
            self.do("update")
        elif op == "advance":
            self.do("advance", rng.choice([100, 500, 1000, 2000]))
        elif op == "request":
            self.do("request", rng.choice(live),
                    [ask(rng.randint(1, 4), rng.choice([512, 1024, 2048]), 1,
                         locality=self.where())])
        elif op == "release":
            self.do("release", rng.choice(live), rng.randint(1, 3),
                    rng.choice(["newest", "oldest", "newest", "am"]))
        elif op == "finish":
            self.do(rng.choice(["finish", "kill"]), rng.choice(live))
        elif op == "move":
            self.do("move", rng.choice(live), rng.choice(LEAVES))
        elif op == "node":
            self.change_nodes(nodes)
        else:
            self.reload()

    def change_nodes(self, nodes: list[str]) -> None:
        random_node_change(self.rng, nodes, self.do)

    def reload(self) -> None:
        body = allocation_body(self.rng)
        config = parse_allocations_text(allocations_xml(body), "reload.xml",
                                        self.engines[0].types)
        self.do("reload", config, "reload.xml")


def digest(engine: Engine) -> dict[str, Any]:
    return {
        "queues": {q.name: engine.queue_metrics(q.name) for q in engine.tree},
        "apps": {a.id: (a.usage, a.demand, a.fair_share, dict(a.locality),
                        sorted(a.reservations)) for a in engine.state.apps.values()},
        "nodes": {n.name: (n.allocated, dict(n.earmarks)) for n in engine.state.nodes.values()},
    }


def run_lockstep(seed: int, steps: int) -> Lockstep:
    run = Lockstep(seed)
    for i, gb in enumerate((8, 4, 8)):
        run.do("add_node", f"n{i}", r(gb * GB, 8), f"/rack{i % 2}")
    for _ in range(6):
        run.submit()
    run.do("update")
    for _ in range(steps):
        run.step()
    a, b = (digest(e) for e in run.engines)
    assert a == b
    return run


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_indexed_walk_decides_as_the_reference_walk(seed: int) -> None:
    run_lockstep(seed, steps=150)


def test_lockstep_runs_reach_the_interesting_cases(monkeypatch: pytest.MonkeyPatch) -> None:
    """The workloads are busy enough to matter: many allocations, reservations, preemption,
    apps waiting for maxRunningApps, AM checks against maxAMShare, leaves whose AM limit
    refused every waiting AM, and subtrees and apps the index passed over (else the comparison
    above would prove little)."""
    counts = {"skipped": 0, "am-checks": 0}

    def counting(method: Any, what: str) -> Any:
        def wrapper(*args: Any) -> bool:
            result: bool = method(*args)
            counts[what] += not result
            return result
        return wrapper

    monkeypatch.setattr(OrderIndex, "may_act", counting(OrderIndex.may_act, "skipped"))
    monkeypatch.setattr(Offer, "may_act", counting(Offer.may_act, "skipped"))
    real_check = assignment.can_run_app_am

    def am_check(*args: Any) -> bool:
        counts["am-checks"] += 1
        return real_check(*args)

    monkeypatch.setattr(assignment, "can_run_app_am", am_check)
    real_past = heartbeat_walk._leaf_past_am_limit

    def past_am_limit(*args: Any) -> Any:
        counts["past-am-limit"] += 1
        return real_past(*args)

    counts["past-am-limit"] = 0
    monkeypatch.setattr(heartbeat_walk, "_leaf_past_am_limit", past_am_limit)
    real_blocked = order_index.am_blocked

    def blocked(*args: Any) -> bool:
        result = real_blocked(*args)
        counts["am-blocked"] += result
        return result

    counts["am-blocked"] = 0
    monkeypatch.setattr(order_index, "am_blocked", blocked)
    kinds: dict[str, int] = {}
    for seed in range(10):
        run = run_lockstep(seed, steps=150)
        for event in run.engines[0].events:
            kinds[event.type] = kinds.get(event.type, 0) + 1
    assert kinds.get("container-allocated", 0) > 300
    assert kinds.get("node-decommissioned", 0) > 0  # drained or timed out
    assert kinds.get("container-reserved", 0) > 0
    assert kinds.get("preemption-warned", 0) > 0
    assert kinds.get("app-not-runnable", 0) > 0
    assert counts["skipped"] > 100 and counts["am-checks"] > 100
    # leaves whose AM limit refused every waiting AM: always (their AMs are not counted as
    # activity), or with the cluster's free space as it was (the walk passed those AMs by)
    assert counts["am-blocked"] > 100 and counts["past-am-limit"] > 10


# -- node changes move drf keys ------------------------------------------------------------------

DRF_BODY = ("<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>"
            "<queue name='a'/><queue name='b'/>")


@pytest.mark.parametrize(("change", "winner"), [
    ("add", "a1"), ("resize", "a1"), ("remove", "b1"),
])
@pytest.mark.parametrize("indexed", [True, False])
def test_a_node_change_reorders_drf_queues_before_the_next_update(
        change: str, winner: str, indexed: bool) -> None:
    """a uses (4 GB, 1 vc), b (1 GB, 3 vc). On 8.5 GB / 9 vc, a's dominant share is
    4/8.5 = 0.47 and b's 3/9 = 0.33: b goes first. On 32.5 GB / 10 vc, a's is 4/32.5 = 0.12
    and b's 3/10 = 0.3: a goes first. The cluster changes after the walk has ordered the
    queues (a heartbeat of the small n0, where nothing fits) and before n1 heartbeats."""
    nodes = [("n1", 8 * GB, 8), ("n0", 512, 1)]
    nodes += [("n2", 24 * GB, 1)] if change == "remove" else []
    engine = make_engine(DRF_BODY, nodes=nodes, reference_walk=not indexed)
    engine.submit("a1", "root.a", "u", None, [ask(1, 4 * GB, 1)])
    engine.submit("b1", "root.b", "u", None, [ask(1, GB, 3)])
    engine.update()
    engine.heartbeat("n1")
    engine.heartbeat("n1")  # one container per heartbeat: assignmultiple is off
    assert (engine.app("a1").usage, engine.app("b1").usage) == (r(4 * GB, 1), r(GB, 3))
    engine.request("a1", [ask(1, GB, 1)])
    engine.request("b1", [ask(1, GB, 1)])
    engine.update()
    engine.heartbeat("n0")
    if change == "add":
        engine.add_node("n2", r(24 * GB, 1))
    elif change == "resize":
        engine.resize_node("n1", r(32 * GB, 9))
    else:
        engine.remove_node("n2")
    engine.heartbeat("n1")
    last = [e for e in engine.events if e.type == "container-allocated"][-1]
    assert (last.app, last.node) == (winner, "n1")  # type: ignore[attr-defined]


@pytest.mark.parametrize("indexed", [True, False])
def test_a_key_some_node_refuses_does_not_hide_the_next_key(indexed: bool) -> None:
    """a's first key (3 GB) asks for host n9 without relaxing locality, then anywhere: its
    rack /rack0 must not relax (§3.6.2 hasContainerForNode), so on n0 — in /rack0, 2 GB free
    after b's container — the key is passed over and the second key (1 GB) is placed there.
    The index may not summarise a by its first key alone. (a's queue has weight 0, so a is
    never starved and never reserves: only its second key can get it visited.)"""
    engine = make_engine("<queue name='z'><weight>0</weight></queue>",
                         nodes=[("n0", 4 * GB, 4)], rack="/rack0", reference_walk=not indexed)
    engine.add_node("n9", r(8 * GB, 4), "/rack0")
    engine.submit("b", "root.default", "u", None, [ask(1, 2 * GB, 1, locality="n0",
                                                       relax=False)])
    engine.update()
    engine.heartbeat("n0")
    engine.submit("a", "root.z", "u", None, [
        ask(1, 3 * GB, 1, priority=1, locality="n9", relax=False),
        ask(1, 3 * GB, 1, priority=1, locality="*"),
        ask(1, GB, 1, priority=2)])
    engine.update()
    engine.heartbeat("n0")
    placed = [(rec["app"], rec["node"], rec["resource"]["memory-mb"])
              for rec in records(engine, "container-allocated")]
    assert placed == [("b", "n0", 2 * GB), ("a", "n0", GB)]


# -- leaves whose AM limit refuses every waiting AM ---------------------------------------------


def am_limited(a1_tasks: int) -> Engine:
    """root.a (maxAMShare 0.05) runs a1's AM (1 GB), then a1 asks for ``a1_tasks`` 2 GB tasks;
    a2 waits for its 1 GB AM; b1 in root.b asks for 2 GB tasks: a and b share the 64 GB
    cluster, 32 GB each. Nobody may reserve."""
    engine = make_engine("<queue name='a'><maxAMShare>0.05</maxAMShare></queue><queue name='b'/>",
                         nodes=[("n1", 64 * GB, 64)],
                         site={"yarn.scheduler.fair.reservable-nodes": "0"})
    engine.submit("a1", "root.a", "u", r(GB, 1), [])
    engine.update()
    engine.heartbeat("n1")  # a1's AM
    if a1_tasks:
        engine.request("a1", [ask(a1_tasks, 2 * GB, 1)])
    engine.submit("a2", "root.a", "u", r(GB, 1), [])
    engine.submit("b1", "root.b", "u", None, [ask(20, 2 * GB, 1)])
    engine.update()
    return engine


def test_an_am_limit_that_refuses_every_waiting_am_hides_them_until_the_fair_share_grows() -> None:
    """a's AM limit is ceil(32,768 MB × float32(0.05)) = 1,639 MB, under the 2,048 MB a2's AM
    would bring it to, and with the whole cluster free it would still be: nothing could use a
    node with 1 GB free (every other ask is for 2 GB). Once a's fair share is reported grown
    to 64 GB the limit is 3,277 MB: a2 could."""
    engine = am_limited(a1_tasks=20)
    s, order = engine.s, engine._steps.order_index
    assert s.state.queues["root.a"].fair_share.memory == 32 * GB
    order.refresh(s)
    one_gb = r(GB, 1)
    assert assignment.max_am_limit(s, "root.a").memory == 1639
    assert not order.may_act("root", one_gb, s.unbounded)
    s.write.set_queue_fair_share("root.a", r(64 * GB, 0), is_leaf=True)
    order.refresh(s)
    assert assignment.max_am_limit(s, "root.a").memory == 3277
    assert order.may_act("root", one_gb, s.unbounded)


def test_an_app_moving_its_am_out_of_a_leaf_unblocks_the_ams_waiting_there() -> None:
    """As above, a's AM limit is 1,639 MB: a1's running 1 GB AM leaves no room for a2's. a1
    has nothing pending (so no offer of its own) when it moves to b, taking its AM usage out
    of a (``FSLeafQueue.removeApp``, §3.9): now a2's AM fits the limit, and the walk must see
    it — a node with 1 GB free is of use again."""
    engine = am_limited(a1_tasks=0)
    s, order = engine.s, engine._steps.order_index
    assert assignment.max_am_limit(s, "root.a").memory == 1639
    order.refresh(s)
    one_gb = r(GB, 1)
    assert not order.may_act("root", one_gb, s.unbounded)
    assert engine.move("a1", "root.b")
    order.refresh(s)
    assert order.may_act("root", one_gb, s.unbounded)

"""The incremental update pass writes and reports exactly what the reference pass does.

* :func:`compute_shares` gives the reference solver's numbers (``tests/oracles/shares.py``) on
  random inputs, the awkward weights, mins and maxes included (docs/semantics.md §2.3).
* Two engines — the product's update pass and the reference (``tests/oracles/update.py``)
  that recomputes every demand, share and starvation on each pass — run the same random
  workloads in lockstep: submissions (to configured leaves, to new queues that placement
  creates, to ``default`` → the user's queue),
  asks, heartbeats, completions, releases, finishes, kills, moves, node add / remove / resize,
  reloads, the clock, update passes with and without the preemption round; all three policies,
  ``sizebasedweight`` on and off, min shares with short timeouts, ``maxRunningApps``, a gate
  that opens and closes. After *every* step the event streams and the whole update state must
  be equal: every queue's fair share, demand and min-share timestamps, every app's fair share,
  demand, starvation fields, timestamps and back-off, the starved-apps queue.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairshare.config.allocation import parse_allocations_text
from fairshare.core.engine import Engine
from fairshare.core.model.event_records import event_record
from fairshare.core.shares.demand import sum_in_order
from fairshare.core.shares.solver import ShareInput, compute_shares
from fairshare.resources.vector import LONG_MAX, Resource, add, float32
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.run.scripted import run_scenario
from tests.core.engine_builders import (
    GB,
    allocations_xml,
    ask,
    first_difference,
    make_engine,
    r,
    random_node_change,
    same,
)
from tests.oracles.shares import compute_shares_reference
from tests.oracles.update import use_reference_update

# -- the engine's solver against the reference --------------------------------------------------

WEIGHTS = [0.0, 0.1, 0.5, 1.0, 1.0, 1.0, 2.0, 3.3, -1.0, float("nan"), float("inf"), 1e-40, 5e-324,
           1e30, float32(0.1), float32(0.3)]
MINS = [0, 0, 0, 10, 3000, 2**40, 2**62, 2**62 + 1, LONG_MAX, -5]
MAXES = [0, 1, 5000, 60000, 2**62, 2**62 + 1, LONG_MAX, LONG_MAX, -1]


@st.composite
def share_problems(draw: st.DrawFn) -> tuple[list[ShareInput], int, bool]:
    """Schedulables that repeat (as apps of a leaf do) and that do not."""
    kinds = draw(st.lists(st.builds(
        ShareInput, st.sampled_from(WEIGHTS), st.sampled_from(MINS), st.sampled_from(MAXES),
        st.booleans(), st.booleans()), min_size=1, max_size=4))
    items = [draw(st.sampled_from(kinds)) for _ in range(draw(st.integers(1, 12)))]
    total = draw(st.sampled_from([0, 1, 999, 1000, 8192, 10**6, 2**62, LONG_MAX]))
    return items, total, draw(st.booleans())


@settings(max_examples=1500, deadline=None)
@given(share_problems())
def test_the_engine_solver_gives_the_reference_shares(
        problem: tuple[list[ShareInput], int, bool]) -> None:
    items, total, steady = problem
    assert compute_shares(items, total, steady) == compute_shares_reference(items, total, steady)


@pytest.mark.parametrize(("n", "total"), [(3, 1000), (3, 8192), (2, 10240), (7, 81920000)])
def test_the_engine_solver_reproduces_the_upper_bound_quirk(n: int, total: int) -> None:
    items = [ShareInput(1.0, 0, LONG_MAX)] * n
    assert compute_shares(items, total, False) == compute_shares_reference(items, total, False)


COMPONENTS = st.sampled_from([0, 1, 1024, -7, 2**62, LONG_MAX, -(2**63)])


@settings(max_examples=500, deadline=None)
@given(st.integers(2, 3).flatmap(lambda n: st.lists(
    st.lists(COMPONENTS, min_size=n, max_size=n), min_size=1, max_size=8)))
def test_sums_at_once_are_the_running_saturating_sums(rows: list[list[int]]) -> None:
    """Demand sums (§2.2) add vectors one by one, saturating; the fast sum agrees."""
    vectors = [Resource(tuple(row)) for row in rows]
    none = Resource((0,) * len(rows[0]))
    expected = none
    for vector in vectors:
        expected = add(expected, vector)
    assert sum_in_order(vectors, none) == expected


# -- lockstep: incremental vs reference update pass ----------------------------------------------

LEAVES = ["root.a.x", "root.a.y", "root.a.z", "root.b.u", "root.b.v", "root.c", "root.d"]


def allocation_body(rng: random.Random, root: str) -> str:
    """Three levels, all policies, weights (zero included), min shares with short timeouts.

    A reload may change ``root``'s policy: from ``drf`` to ``fair`` it leaves the ``drf``
    children without a place (§2.6.4), and the reload drops them or fails (§1.6).
    """
    def leaf(name: str, policy: str) -> str:
        parts = [f"<schedulingPolicy>{policy}</schedulingPolicy>",
                 f"<weight>{rng.choice(['0', '1', '1', '2', '0.5'])}</weight>"]
        if rng.random() < 0.4:
            parts.append(f"<minResources>{rng.choice([2, 4, 8])*GB} mb, "
                         f"{rng.choice([0, 2, 16])} vcores</minResources>")
        if rng.random() < 0.2:
            parts.append(f"<maxResources>{rng.choice([4, 8, 12]) * GB} mb, 8 vcores"
                         "</maxResources>")
        if rng.random() < 0.3:
            parts.append("<maxRunningApps>2</maxRunningApps>")
        if rng.random() < 0.3:
            parts.append(f"<fairSharePreemptionThreshold>{rng.choice(['0.5', '1.0'])}"
                         "</fairSharePreemptionThreshold>")
        return f"<queue name='{name}'>{''.join(parts)}</queue>"

    fair_or_fifo = ["fair", "fair", "fifo"]
    return (
        f"<defaultFairSharePreemptionTimeout>{rng.choice([0, 1, 2])}"
        "</defaultFairSharePreemptionTimeout>"
        f"<defaultMinSharePreemptionTimeout>{rng.choice([0, 1, 3])}"
        "</defaultMinSharePreemptionTimeout>"
        "<defaultFairSharePreemptionThreshold>0.8</defaultFairSharePreemptionThreshold>"
        f"<queue name='root'><schedulingPolicy>{root}</schedulingPolicy>"
        f"<queue name='a'><weight>{rng.choice(['1', '2', '0'])}</weight>"
        + "".join(leaf(n, rng.choice(fair_or_fifo)) for n in ("x", "y", "z")) + "</queue>"
        "<queue name='b'><schedulingPolicy>drf</schedulingPolicy>"
        + "".join(leaf(n, rng.choice(["drf", "fifo", "fair"])) for n in ("u", "v")) + "</queue>"
        + leaf("c", rng.choice(fair_or_fifo)) + leaf("d", "drf" if root == "drf" else "fair")
        + "</queue>"
    )


def site(rng: random.Random) -> dict[str, str]:
    fair = "yarn.scheduler.fair."
    return {
        fair + "preemption": "true",
        fair + "preemption.cluster-utilization-threshold": rng.choice(["0", "0.5", "0.8"]),
        fair + "sizebasedweight": rng.choice(["true", "false"]),
        fair + "assignmultiple": rng.choice(["true", "false"]),
        fair + "waitTimeBeforeKill": rng.choice(["0", "500", "1000"]),
        fair + "waitTimeBeforeNextStarvationCheck": rng.choice(["0", "1000", "3000"]),
        "yarn.scheduler.minimum-allocation-mb": "512",
        "yarn.scheduler.increment-allocation-mb": "512",
    }


def update_state(engine: Engine) -> dict[str, Any]:
    """Everything the update pass writes, and what it reads that others write."""
    state = engine.state
    return {
        "queues": {name: (q.fair_share, q.demand, q.usage, q.last_time_at_min_share,
                          q.min_share_starved_since)
                   for name, q in state.queues.items()},
        "apps": {a.id: (a.queue, a.runnable, a.fair_share, a.demand, a.usage,
                        a.fairshare_starvation, a.minshare_starvation,
                        a.last_time_at_fair_share, a.next_starvation_check)
                 for a in state.apps.values()},
        "starved": state.starved,
        "gate": state.starvation_gate_open,
        "order": [q.name for q in engine.tree],
    }


class Lockstep:
    """The same steps on both engines, compared after every step."""

    def __init__(self, seed: int, forget: float = 0.0) -> None:
        self.rng = random.Random(seed)
        self.forget = forget  # chance, per step, that the starvation cache starts afresh
        self.body = allocation_body(self.rng, self.rng.choice(["fair", "drf"]))
        self.site = site(self.rng)
        self.engines = [make_engine(self.body, site=self.site, nodes=(), reference_update=flag)
                        for flag in (False, True)]
        self.seen = 0
        self.apps = 0
        self.steps: list[tuple[str, tuple[Any, ...]]] = []

    def do(self, op: str, *args: Any) -> None:
        self.steps.append((op, args))
        for engine in self.engines:
            getattr(engine, op)(*args)
        cache = self.engines[0]._steps.update_pass
        if self.rng.random() < self.forget:
            cache.starvation._noted = 10**9  # as after a long time with the gate closed
        fast, reference = self.engines
        a = [event_record(e, fast.types) for e in fast.events[self.seen:]]
        b = [event_record(e, reference.types) for e in reference.events[self.seen:]]
        assert same(a, b), f"after {op}{args} (step {len(self.steps)}): {first_difference(a, b)}"
        assert update_state(fast) == update_state(reference), \
            f"after {op}{args} (step {len(self.steps)}): " \
            f"{_difference_in(update_state(fast), update_state(reference))}"
        self.seen = len(fast.events)

    @property
    def live(self) -> list[str]:
        return sorted(a.id for a in self.engines[0].state.live_apps() if a.queue)

    def submit(self, queue: str | None = None) -> None:
        rng = self.rng
        self.apps += 1
        size = rng.choice([512, 1024, 1536, 2048, 3072])
        asks = [ask(rng.randint(1, 6), size, rng.randint(1, 3), priority=rng.randint(1, 2))
                for _ in range(rng.randint(1, 2))]
        am = rng.choice([None, r(GB, 1), r(GB, 1), r(2 * GB, 1)])
        if queue is None:
            queue = rng.choice([*LEAVES, *LEAVES, "default", f"root.dyn{rng.randint(0, 3)}",
                                f"root.a.new{rng.randint(0, 2)}"])
        self.do("submit", f"app_{self.apps:03d}", queue, rng.choice(["u1", "u2", "u3"]), am,
                asks)

    def step(self) -> None:
        rng, live, nodes = self.rng, self.live, sorted(self.engines[0].state.nodes)
        op = rng.choices(
            ["submit", "heartbeat", "heartbeat_all", "update", "advance", "request", "release",
             "complete", "finish", "move", "node", "reload", "quiet", "preempt"],
            weights=[10, 12, 10, 14, 10, 6, 6, 6, 3, 3, 2, 1, 4, 2])[0]
        if op == "submit" or (not live and op in ("request", "release", "complete", "finish",
                                                  "move")):
            self.submit()
        elif op == "heartbeat" and nodes:
            self.do("heartbeat", rng.choice(nodes))
        elif op in ("heartbeat", "heartbeat_all"):
            self.do("heartbeat_all")
        elif op == "update":
            self.do("update")
        elif op == "advance":
            self.do("advance", rng.choice([100, 500, 500, 1000, 3000]))
        elif op == "request":
            self.do("request", rng.choice(live),
                    [ask(rng.randint(1, 4), rng.choice([512, 1024, 2048]), 1)])
        elif op == "release":
            self.do("release", rng.choice(live), rng.randint(1, 3),
                    rng.choice(["newest", "oldest", "newest", "am"]))
        elif op == "complete":
            self.complete(live)
        elif op == "finish":
            self.do(rng.choice(["finish", "kill"]), rng.choice(live))
        elif op == "move":
            self.do("move", rng.choice(live), rng.choice(LEAVES))
        elif op == "node":
            self.change_nodes(nodes)
        elif op == "reload":
            self.reload()
        elif op == "quiet":
            for _ in range(rng.randint(2, 6)):  # passes with nothing in between
                self.do("advance", 500)
                self.do("update")
        else:
            self.do("update", False)
            if rng.random() < 0.5:
                self.do("preempt")

    def complete(self, live: list[str]) -> None:
        app = self.engines[0].app(self.rng.choice(live))
        tasks = sorted(c.id for c in app.containers.values() if not c.is_am)
        if tasks:
            self.do("complete_container", app.id, self.rng.choice(tasks))

    def change_nodes(self, nodes: list[str]) -> None:
        random_node_change(self.rng, nodes, self.do)

    def reload(self) -> None:
        body = (self.body if self.rng.random() < 0.3
                else allocation_body(self.rng, self.rng.choice(["fair", "drf"])))
        config = parse_allocations_text(allocations_xml(body), "reload.xml",
                                        self.engines[0].types)
        self.do("reload", config, "reload.xml")


def _difference_in(a: dict[str, Any], b: dict[str, Any]) -> str:
    for part in a:
        if a[part] != b[part]:
            if isinstance(a[part], dict):
                keys = sorted(set(a[part]) | set(b[part]))
                diff = [(k, a[part].get(k), b[part].get(k)) for k in keys
                        if a[part].get(k) != b[part].get(k)]
                return f"{part}: {diff[:3]}"
            return f"{part}: {a[part]} != {b[part]}"
    return "?"


def run_lockstep(seed: int, steps: int, forget: float = 0.0) -> Lockstep:
    run = Lockstep(seed, forget)
    for i in range(3):
        run.do("add_node", f"n{i}", r(8 * GB, 8), f"/rack{i % 2}")
    for _ in range(6):
        run.submit()
    run.do("update")
    for _ in range(steps):
        run.step()
    return run


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_incremental_update_writes_what_the_reference_writes(seed: int) -> None:
    run_lockstep(seed, steps=200)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1))
def test_the_starvation_cache_may_start_afresh_at_any_time(seed: int) -> None:
    """What it forgets after a long time with the gate closed, it rebuilds exactly."""
    run_lockstep(seed, steps=150, forget=0.05)


def test_lockstep_runs_reach_the_interesting_cases() -> None:
    """The workloads are busy enough to matter: starvation of both kinds, preemption, apps
    waiting for maxRunningApps, queues created by placement, a gate that opens and closes."""
    kinds: dict[str, int] = {}
    starvation: dict[str, int] = {}
    for seed in range(10):
        run = run_lockstep(seed, steps=200)
        for event in run.engines[0].events:
            kinds[event.type] = kinds.get(event.type, 0) + 1
            if event.type == "starvation":
                kind = event.kind  # type: ignore[attr-defined]
                starvation[kind] = starvation.get(kind, 0) + 1
    assert kinds.get("preemption-warned", 0) > 20
    assert kinds.get("app-not-runnable", 0) > 5
    assert kinds.get("config-reloaded", 0) > 0
    assert kinds.get("starvation-gate", 0) > 5
    assert starvation.get("fair-share", 0) > 20
    assert starvation.get("min-share", 0) + starvation.get("fair-share+min-share", 0) > 5


def test_an_app_that_left_a_leaf_before_a_reload_dropped_it_keeps_its_unwritten_share() -> None:
    """x runs alone in drf leaf root.b.v: its share is the whole 8 GB / 16 vcore node in both
    components. It moves to root.d; a reload then makes root.b a leaf, so the now empty parent
    root.b is removed with root.b.v to make way for it (QueueManager.removeEmptyIncompatible
    Queues), and makes root.d ``fair``. The next pass writes only x's memory (§2.6.1); its
    vcores stay 16 (§2.3)."""
    drf = ("<queue name='root'><schedulingPolicy>drf</schedulingPolicy>"
           "<queue name='b'><schedulingPolicy>drf</schedulingPolicy>"
           "<queue name='v'><schedulingPolicy>drf</schedulingPolicy></queue></queue>"
           "<queue name='d'><schedulingPolicy>drf</schedulingPolicy></queue></queue>")
    fair = ("<queue name='root'><schedulingPolicy>drf</schedulingPolicy>"
            "<queue name='b'><schedulingPolicy>drf</schedulingPolicy></queue>"
            "<queue name='d'><schedulingPolicy>fair</schedulingPolicy></queue></queue>")
    for fast in (True, False):
        engine = make_engine(drf, nodes=[("n1", 8 * GB, 16)], reference_update=not fast)
        engine.submit("x", "root.b.v", "u", None, [ask(4, GB, 1)])
        engine.update()
        assert engine.app("x").fair_share == r(8 * GB, 16)
        assert engine.move("x", "root.d")
        engine.reload(parse_allocations_text(allocations_xml(fair)), "fair.xml")
        assert "root.b.v" not in engine.s.tree and engine.s.tree["root.b"].is_leaf
        assert engine.s.tree["root.d"].settings.policy.value == "fair"
        engine.update()
        assert engine.app("x").fair_share == r(8 * GB, 16), f"reference={not fast}"


def test_an_app_without_a_drf_key_joining_a_steady_leaf_is_passed_as_the_reference_does() -> None:
    """tests/core/lockstep/drf-nan-key-joins-steady-leaf.yaml (found by the differential
    oracle): every update pass writes the same state in both engines, and app6 is not starved
    at 16.1 s — it was not below its share at 16.0 s, so lastTimeAtFairShare moved on."""
    path = Path(__file__).parent / "lockstep" / "drf-nan-key-joins-steady-leaf.yaml"
    states: dict[bool, list[dict[str, Any]]] = {}
    starved: dict[bool, list[int]] = {}
    original_init, original_update = Engine.__init__, Engine.update
    for fast in (True, False):
        seen: list[dict[str, Any]] = []

        def init(self: Engine, *args: Any, _fast: bool = fast, **kwargs: Any) -> None:
            original_init(self, *args, **kwargs)
            if not _fast:
                use_reference_update(self)

        def update(self: Engine, *args: Any, _seen: list[dict[str, Any]] = seen,
                   **kwargs: Any) -> None:
            original_update(self, *args, **kwargs)
            _seen.append(update_state(self))

        with mock.patch.object(Engine, "__init__", init), \
                mock.patch.object(Engine, "update", update):
            result = run_scenario(load_scenario(path))
        states[fast] = seen
        starved[fast] = [e["t"] for e in result.records
                         if e["type"] == "starvation" and e["app"] == "app6"]
    assert len(states[True]) > 10
    assert states[True] == states[False]
    assert starved[True] == starved[False] == []

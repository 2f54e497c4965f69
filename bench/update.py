"""Benchmark: the update pass at the simulator's scale (issue: simulator, the update pass).

Workload (seeded, generated here): 5,000 nodes of 16 GB / 8 vcores in 50 racks; 1,000 leaf
queues (20 parents × 50 leaves, weights 1–4; root and every tenth parent with its leaves
``drf``, a tenth of the other leaves ``fifo``, a tenth of the leaves with a min share of
64–256 GB / 64 vcores); preemption on (fair-share timeout 15 s, min-share timeout 10 s,
threshold 0.5, ``waitTimeBeforeKill`` 15 s); 3,000 managed apps (1 GB AM), a third of them in
20 busy leaves, each asking for two groups of 5–45 tasks of 1–4 GB / 1 vcore — several times
the cluster. Every node heartbeats until nothing more fits (~90 % of the memory allocated:
starvation is evaluated), then the clock runs in *ticks* of 500 ms (YARN's update interval):
kill timers fire, a few task containers complete, the nodes that freed room heartbeat, the
update pass runs, then the preemption round. A warm-up of 80 ticks (40 s) lets fair-share and
min-share starvation time out, so starved apps, preemption and back-offs are under way.

Measured, on two engines driven identically in the same run — ``Engine()`` (its incremental
pass, :mod:`fairshare.core.update`) and one given the reference pass of
``tests/oracles/update.py``, which recomputes everything — the time of ``update()`` alone (not
the preemption round) in ticks where:

* *clock only* — nothing but the clock moved: kill timers fired (their nodes heartbeat),
  back-offs ended;
* *steady* — also 5 task containers completed since the last pass (their nodes heartbeat);
* *arrival* — also one new app arrived, in a leaf that already has running apps;
* *arrival in an idle leaf* — the app is the first of its leaf: the set of active queues and
  so the parent's cut change;
* *node added*, *queue created* — the cluster size changes (every share recomputed), a
  placement rule creates a leaf (the queue tree changes).

After every tick both engines' events and update state (every share, demand and starvation
field, the starved-apps queue) must be equal. The objects of the build are frozen out of the
garbage collector (``gc.freeze()``, as a long simulation would do) and a collection runs,
untimed, before each timed pass: the garbage of the other engine and of the tick is not the
pass's own cost.

    python bench/update.py            # full size (about 3 minutes, most of it the reference)
    python bench/update.py --smoke    # tiny, for CI
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.yarnsite import load_site
from fairshare.core import ContainerRequest, Engine, event_record
from fairshare.resources.vector import DEFAULT_TYPES, Resource

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the references live in tests/
from tests.oracles.update import use_reference_update

GB = 1024


@dataclass(frozen=True)
class Size:
    parents: int
    leaves: int
    nodes: int
    racks: int
    apps: int
    warmup: int  # ticks before measuring
    ticks: int  # measured ticks per kind


FULL = Size(parents=20, leaves=50, nodes=5000, racks=50, apps=3000, warmup=80, ticks=60)
SMOKE = Size(parents=2, leaves=5, nodes=40, racks=2, apps=40, warmup=40, ticks=5)


def r(memory_mb: int, vcores: int) -> Resource:
    return DEFAULT_TYPES.of({"memory-mb": memory_mb, "vcores": vcores})


def allocation_file(size: Size, rng: random.Random) -> str:
    parts = ["<?xml version='1.0'?><allocations>",
             "<defaultFairSharePreemptionTimeout>15</defaultFairSharePreemptionTimeout>",
             "<defaultMinSharePreemptionTimeout>10</defaultMinSharePreemptionTimeout>",
             "<queue name='root'><schedulingPolicy>drf</schedulingPolicy>"]
    for p in range(size.parents):
        drf = p % 10 == 9
        policy = "<schedulingPolicy>drf</schedulingPolicy>" if drf else ""
        parts.append(f"<queue name='p{p}'><weight>{rng.choice([1, 2, 3])}</weight>{policy}")
        for leaf in range(size.leaves):
            body = f"<weight>{rng.choice([1, 1, 2, 4])}</weight>"
            if not drf and rng.random() < 0.1:
                body += "<schedulingPolicy>fifo</schedulingPolicy>"
            if rng.random() < 0.1:
                body += f"<minResources>{rng.choice([64, 128, 256]) * GB} mb, 64 vcores" \
                        "</minResources>"
            parts.append(f"<queue name='l{leaf}'>{body}</queue>")
        parts.append("</queue>")
    parts.append("</queue></allocations>")
    return "".join(parts)


class Workload:
    """The seeded workload, applied to any number of identical engines."""

    def __init__(self, size: Size, seed: int) -> None:
        self.size = size
        self.rng = random.Random(seed)
        self.xml = allocation_file(size, self.rng)
        self.leaves = [f"root.p{p}.l{q}" for p in range(size.parents)
                       for q in range(size.leaves)]
        self.busy = self.leaves[:: max(1, len(self.leaves) // 20)]
        self.apps = 0

    def engine(self, fast: bool) -> Engine:
        site = load_site(None, {"yarn.scheduler.fair.preemption": "true",
                                "yarn.scheduler.fair.assignmultiple": "true",
                                "yarn.scheduler.fair.waitTimeBeforeKill": "15000"})
        alloc = parse_allocations_text(self.xml, "bench.xml", site.resource_types)
        engine = Engine(site, alloc)
        if not fast:
            use_reference_update(engine)
        per_rack = max(1, self.size.nodes // self.size.racks)
        engine.add_nodes((f"n{n:05d}", r(16 * GB, 8), f"/rack{n // per_rack:02d}")
                         for n in range(self.size.nodes))
        return engine

    def app(self, queue: str | None = None) -> tuple[Any, ...]:
        """The arguments of one submission."""
        rng = self.rng
        self.apps += 1
        if queue is None:
            queue = rng.choice(self.busy) if rng.random() < 1 / 3 else rng.choice(self.leaves)
        groups = [ContainerRequest(rng.randint(5, 45), r(rng.choice([1, 2, 3, 4]) * GB, 1),
                                   20 + g) for g in range(2)]
        return (f"app_{self.apps:05d}", queue, f"user{self.apps % 300}", r(GB, 1), groups)


class Pair:
    """The incremental and the reference engine, driven step by step in lockstep."""

    def __init__(self, workload: Workload) -> None:
        self.w = workload
        self.engines = [workload.engine(fast=True), workload.engine(fast=False)]
        self.identical = True

    def do(self, op: str, *args: Any) -> None:
        for engine in self.engines:
            getattr(engine, op)(*args)

    def fill(self) -> None:
        for _ in range(self.w.size.apps):
            self.do("submit", *self.w.app())
        self.do("update")
        for _ in range(10):
            before = self.engines[0].state.containers_allocated
            self.do("heartbeat_all")
            if self.engines[0].state.containers_allocated == before:
                break
        self.check()

    def tick(self, completions: int = 5) -> None:
        """500 ms: kill timers fire, tasks complete, nodes with freed room heartbeat."""
        rng, fast = self.w.rng, self.engines[0]
        self.do("advance", 500)
        running = [a for a in fast.state.apps.values() if len(a.containers) > 1]
        nodes: dict[str, None] = {}
        for app in rng.sample(running, min(completions, len(running))):
            tasks = sorted(c.id for c in app.containers.values() if not c.is_am)
            container = app.containers[rng.choice(tasks)]
            nodes[container.node] = None
            self.do("complete_container", app.id, container.id)
        for event in fast.events:
            if event.type == "container-preempted":
                nodes[event.node] = None  # type: ignore[attr-defined]
        for node in nodes:
            self.do("heartbeat", node)

    def timed_update(self) -> tuple[float, float]:
        """Both engines' update pass (ms), then their preemption rounds (not timed)."""
        times = []
        for engine in self.engines:
            gc.collect()  # garbage of the other engine and of the tick is not this pass's
            start = time.perf_counter()
            engine.update(preempt=False)
            times.append((time.perf_counter() - start) * 1000)
        self.do("preempt")
        self.check()
        return times[0], times[1]

    def check(self) -> None:
        fast, reference = self.engines
        a = [event_record(e, fast.types) for e in fast.events]
        b = [event_record(e, reference.types) for e in reference.events]
        self.identical = self.identical and a == b and state(fast) == state(reference)
        fast.events.clear()
        reference.events.clear()


def state(engine: Engine) -> dict[str, Any]:
    s = engine.state
    return {
        "queues": {n: (q.fair_share, q.demand, q.last_time_at_min_share,
                       q.min_share_starved_since) for n, q in s.queues.items()},
        "apps": {a.id: (a.fair_share, a.demand, a.fairshare_starvation, a.minshare_starvation,
                        a.last_time_at_fair_share, a.next_starvation_check)
                 for a in s.apps.values()},
        "starved": s.starved,
    }


def summary(pairs: list[tuple[float, float]]) -> dict[str, float]:
    fast = sorted(f for f, _ in pairs)
    ref = sorted(r for _, r in pairs)

    def at(values: list[float], q: float) -> float:
        return round(values[min(len(values) - 1, math.ceil(q * len(values)) - 1)], 3)

    return {"passes": len(pairs), "fast_p50_ms": at(fast, 0.5), "fast_p90_ms": at(fast, 0.9),
            "fast_mean_ms": round(statistics.fmean(fast), 3), "fast_max_ms": at(fast, 1.0),
            "reference_p50_ms": at(ref, 0.5), "reference_mean_ms": round(statistics.fmean(ref), 1),
            "speedup_p50": round(at(ref, 0.5) / max(at(fast, 0.5), 1e-6), 1),
            "speedup_mean": round(statistics.fmean(ref) / statistics.fmean(fast), 1)}


def idle_leaves(pair: Pair) -> list[str]:
    queues = pair.engines[0].state.queues
    return [q for q in pair.w.leaves if not queues[q].runnable_apps]


def run(size: Size, seed: int) -> dict[str, Any]:
    workload = Workload(size, seed)
    start = time.perf_counter()
    pair = Pair(workload)
    pair.fill()
    build_s = time.perf_counter() - start
    gc.collect()
    gc.freeze()
    for _ in range(size.warmup):
        pair.tick()
        pair.timed_update()
    phases: dict[str, list[tuple[float, float]]] = {
        "clock_only": [], "steady": [], "arrival": [], "arrival_in_idle_leaf": [],
        "node_added": [], "queue_created": []}
    for i in range(size.ticks):
        if i < max(1, size.ticks // 4):
            pair.tick(completions=0)
            phases["clock_only"].append(pair.timed_update())
        pair.tick()
        phases["steady"].append(pair.timed_update())
        pair.tick()
        idle_now = set(idle_leaves(pair))
        busy = [q for q in workload.leaves if q not in idle_now]
        pair.do("submit", *workload.app(workload.rng.choice(busy)))
        phases["arrival"].append(pair.timed_update())
        idle = idle_leaves(pair)
        if idle and i < max(1, size.ticks // 4):
            pair.tick()
            pair.do("submit", *workload.app(workload.rng.choice(idle)))
            phases["arrival_in_idle_leaf"].append(pair.timed_update())
    for i in range(max(1, size.ticks // 20)):
        pair.tick()
        pair.do("add_node", f"extra{i:03d}", r(16 * GB, 8), "/rack00")
        phases["node_added"].append(pair.timed_update())
        pair.tick()
        pair.do("submit", *workload.app(f"root.p{i % size.parents}.created{i}"))
        phases["queue_created"].append(pair.timed_update())
    s = pair.engines[0].s
    return {
        "benchmark": "update",
        "size": "smoke (goals apply at full size only)" if size is SMOKE else "full",
        "nodes": len(s.state.nodes), "leaf_queues": len(s.tree.leaves()),
        "live_apps": len(s.state.live_apps()),
        "running_containers": sum(len(n.containers) for n in s.state.nodes.values()),
        "utilization": round(s.utilization(), 3),
        "starved_apps_in_back_off": sum(a.next_starvation_check > s.now
                                        for a in s.state.apps.values()),
        **{name: summary(pairs) for name, pairs in phases.items() if pairs},
        "identical": pair.identical,
        "goal": {"steady_fast_p50_ms_max": 1.0, "budget": "172,800 passes in well under 290 s"},
        "build_s": round(build_s, 1),
        "python": sys.version.split()[0],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny size for CI")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    result = run(SMOKE if args.smoke else FULL, args.seed)
    print(json.dumps(result, indent=2))
    return 0 if result["identical"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: sustained container allocation on node heartbeats (issue: scheduling engine, item 7).

Workload (seeded): 5,000 nodes of 128 GB / 32 vcores in 50 racks; 10,000 leaf queues (100
parents × 100 leaves; weights 1–4; a tenth of the parents and their leaves use ``drf``, a tenth
of the other leaves ``fifo``; some leaves have a min share, some a max share); 100,000 managed
apps (1 GB AM) spread unevenly over the leaves, each asking for 5–40 containers of one of five
sizes (1 GB/1 vc … 8 GB/4 vc); ``assignmultiple`` on (with YARN's default
``dynamic.max.assign``), preemption off. Demand is far above capacity, as on a busy cluster.

Phases, all through the public :class:`~fairshare.core.engine.Engine`:

1. *fill* — update pass, then every node heartbeats in turn (registration order) until a whole
   round allocates nothing.
2. *sustained* — rounds of: 5 % of the running task containers complete (chosen by the seeded
   RNG), an update pass (not timed: YARN runs it on its own thread), then every node
   heartbeats once (timed).

Allocations per second = containers allocated ÷ time spent in heartbeats, keeping the walk's
index current included. Building the index from scratch (once per engine, and after a reload)
is timed on its own. The reference — YARN's walk, which sorts the children at every level on
each assignment (``tests/oracles/walk.py``) — runs the first heartbeats of
the fill phase on an identical engine in the same run; both must produce the same events.

    python bench/allocate.py            # full size
    python bench/allocate.py --smoke    # tiny, for CI
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.yarnsite import load_site
from fairshare.core import (
    ContainerAllocated,
    ContainerRequest,
    Engine,
    Event,
    event_record,
)
from fairshare.resources.vector import DEFAULT_TYPES, Resource

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the references live in tests/
from tests.oracles.walk import use_reference_walk

GB = 1024
SIZES = [(1, 1), (2, 1), (3, 1), (4, 2), (8, 4)]  # (GB, vcores) of task containers


@dataclass(frozen=True)
class Size:
    parents: int
    leaves: int
    nodes: int
    racks: int
    apps: int
    rounds: int
    reference_heartbeats: int


FULL = Size(parents=100, leaves=100, nodes=5000, racks=50, apps=100_000, rounds=5,
            reference_heartbeats=300)
SMOKE = Size(parents=4, leaves=5, nodes=40, racks=4, apps=400, rounds=2,
             reference_heartbeats=40)


def r(memory_mb: int, vcores: int) -> Resource:
    return DEFAULT_TYPES.of({"memory-mb": memory_mb, "vcores": vcores})


def allocation_file(size: Size, rng: random.Random) -> str:
    parts = ["<?xml version='1.0'?><allocations>"]
    for p in range(size.parents):
        drf = p % 10 == 9
        policy = "<schedulingPolicy>drf</schedulingPolicy>" if drf else ""
        parts.append(f"<queue name='p{p}'><weight>{rng.choice([1, 2, 3])}</weight>{policy}")
        for leaf in range(size.leaves):
            body = f"<weight>{rng.choice([1, 1, 2, 4])}</weight>"
            if not drf and rng.random() < 0.1:
                body += "<schedulingPolicy>fifo</schedulingPolicy>"
            if rng.random() < 0.2:
                mb = rng.choice([8, 16, 32]) * GB
                body += f"<minResources>{mb} mb, 8 vcores</minResources>"
            if rng.random() < 0.1:
                mb = rng.choice([64, 256, 1024]) * GB
                body += f"<maxResources>{mb} mb, 512 vcores</maxResources>"
            parts.append(f"<queue name='l{leaf}'>{body}</queue>")
        parts.append("</queue>")
    parts.append("</allocations>")
    return "".join(parts)


def build(size: Size, seed: int, indexed: bool, sink: list[Event] | Counter[str]) -> Engine:
    rng = random.Random(seed)
    site = load_site(None, {"yarn.scheduler.fair.assignmultiple": "true",
                            "yarn.scheduler.maximum-allocation-mb": str(16 * GB)})
    alloc = parse_allocations_text(allocation_file(size, rng), "bench.xml", site.resource_types)
    if isinstance(sink, list):
        engine = Engine(site, alloc, sink=sink.append)
    else:
        counts = sink
        engine = Engine(site, alloc, sink=lambda event: counts.update((event.type,)))
    if not indexed:
        use_reference_walk(engine)
    per_rack = size.nodes // size.racks
    engine.add_nodes((f"n{n:05d}", r(128 * GB, 32), f"/rack{n // per_rack:02d}")
                     for n in range(size.nodes))
    leaves = [f"root.p{p}.l{q}" for p in range(size.parents) for q in range(size.leaves)]
    for i in range(size.apps):
        if rng.random() < 0.2:  # a skewed fifth piles into a few queues
            leaf = leaves[min(int(rng.paretovariate(1.2)) - 1, len(leaves) - 1)]
        else:
            leaf = rng.choice(leaves)
        gb, vcores = rng.choice(SIZES)
        engine.submit(f"app_{i:06d}", leaf, f"user{i % 500}", am=r(GB, 1),
                      requests=[ContainerRequest(rng.randint(5, 40), r(gb * GB, vcores))])
    return engine


def heartbeat_round(engine: Engine, nodes: list[str]) -> tuple[int, float]:
    """Every node once; (containers allocated, seconds spent)."""
    before = engine.state.containers_allocated
    start = time.perf_counter()
    for name in nodes:
        engine.heartbeat(name)
    return engine.state.containers_allocated - before, time.perf_counter() - start


def complete_some(engine: Engine, rng: random.Random, fraction: float) -> int:
    tasks = [c for app in engine.state.apps.values() for c in app.containers.values()
             if not c.is_am]
    done = rng.sample(tasks, int(len(tasks) * fraction))
    for container in done:
        engine.complete_container(container.app_id, container.id)
    return len(done)


def build_index(engine: Engine) -> float:
    """Seconds to build the walk's index from scratch (the first walk would do it; asking
    the walk's version brings the index up to date)."""
    start = time.perf_counter()
    engine._refresh_walk_index()
    return time.perf_counter() - start


def reference_window(size: Size, seed: int) -> dict[str, object]:
    """The first heartbeats of the fill phase, on the indexed and the reference engine."""
    streams = []
    rates = []
    for indexed in (True, False):
        events: list[Event] = []
        engine = build(size, seed, indexed, events)
        engine.update(preempt=False)
        if indexed:
            build_index(engine)
        del events[:]
        nodes = list(engine.state.nodes)[: size.reference_heartbeats]
        allocated, seconds = heartbeat_round(engine, nodes)
        streams.append([event_record(e, engine.types) for e in events])
        rates.append((allocated, seconds))
    (fast_n, fast_s), (ref_n, ref_s) = rates
    return {
        "heartbeats": size.reference_heartbeats,
        "indexed_allocations": fast_n,
        "indexed_per_second": round(fast_n / fast_s),
        "reference_allocations": ref_n,
        "reference_per_second": round(ref_n / ref_s),
        "identical_events": streams[0] == streams[1],
        "allocation_events": sum(1 for e in streams[0] if e["type"] == ContainerAllocated.type),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny size for CI")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    size = SMOKE if args.smoke else FULL

    start = time.perf_counter()
    counts: Counter[str] = Counter()
    engine = build(size, args.seed, True, counts)
    setup_s = time.perf_counter() - start
    nodes = list(engine.state.nodes)
    rng = random.Random(args.seed + 1)

    engine.update(preempt=False)
    index_s = build_index(engine)
    fill_n, fill_s, fill_rounds = 0, 0.0, 0
    while True:
        allocated, seconds = heartbeat_round(engine, nodes)
        fill_n, fill_s, fill_rounds = fill_n + allocated, fill_s + seconds, fill_rounds + 1
        if allocated == 0:
            break
    running = sum(len(a.containers) for a in engine.state.apps.values())

    sustained_n, sustained_s, completed = 0, 0.0, 0
    reserved_before = counts["container-reserved"]
    for _ in range(size.rounds):
        completed += complete_some(engine, rng, 0.05)
        engine.update(preempt=False)
        allocated, seconds = heartbeat_round(engine, nodes)
        sustained_n, sustained_s = sustained_n + allocated, sustained_s + seconds

    reference = reference_window(size, args.seed)
    sustained_rate = sustained_n / sustained_s
    result = {
        "benchmark": "allocate",
        "size": "smoke (goals apply at full size only)" if args.smoke else "full",
        "nodes": size.nodes,
        "leaf_queues": size.parents * size.leaves,
        "apps": size.apps,
        "setup_s": round(setup_s, 1),
        "index_build_s": round(index_s, 2),
        "fill": {"rounds": fill_rounds, "allocations": fill_n, "seconds": round(fill_s, 2),
                 "per_second": round(fill_n / fill_s), "running_containers": running},
        "sustained": {"rounds": size.rounds, "heartbeats": size.rounds * size.nodes,
                      "completed": completed, "allocations": sustained_n,
                      "reservations": counts["container-reserved"] - reserved_before,
                      "seconds": round(sustained_s, 2),
                      "per_second": round(sustained_rate)},
        "reference_window": reference,
        "speedup_vs_reference": round(
            reference["indexed_per_second"] / reference["reference_per_second"], 1),  # type: ignore[operator]
        "goal": {"sustained_per_second_min": 20_000, "must_reach": 5_000},
        "python": sys.version.split()[0],
    }
    print(json.dumps(result, indent=2))
    return 0 if reference["identical_events"] else 1


if __name__ == "__main__":
    sys.exit(main())

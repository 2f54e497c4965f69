"""Benchmark: a simulated day of a 5,000-node cluster (issue: simulator, item 5).

Workload (seeded, generated here): 5,000 nodes of 16 GB / 8 vcores in 50 racks; 1,000 leaf
queues (20 parents × 50 leaves, weights 1–4, some min shares with a min-share preemption
timeout); preemption on (fair-share timeout 60 s, threshold 0.5, waitTimeBeforeKill 15 s);
about 20,000 managed apps (1 GB AM) arriving over 24 simulated hours — more by day than by
night, a third of them into a few busy queues — each with 10–90 tasks of 1–4 GB / 1 vcore
running 1–60 minutes: about a million containers. By day demand exceeds the cluster and
preemption restores fair shares; by night it is idle.

Both loops run the same workload: the event-driven one (quiet heartbeats skipped) and the plain
fixed-interval one (every heartbeat of every node). Each reports simulated time ÷ wall time —
the ratio to Hadoop's SLS, which replays in real time (1×) by construction — events per second,
and the process's peak memory (``ru_maxrss``). ``--hours`` shortens the day, ``--fixed-hours``
the plain loop's share of it, ``--swing`` the day curve's amplitude (same mean rate);
``--check`` (on with ``--smoke``) hashes both event streams and fails unless they are identical.

    python bench/simulate.py            # full size
    python bench/simulate.py --smoke    # tiny, for CI
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import math
import random
import resource
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.yarnsite import load_site
from fairshare.core import Engine, Event, event_record
from fairshare.resources.vector import DEFAULT_TYPES, Resource
from fairshare.sim.run.loop import Simulation
from fairshare.sim.sources.workload import AppSpec, TaskGroup

GB = 1024
HOUR = 3_600_000


@dataclass(frozen=True)
class Size:
    parents: int
    leaves: int
    nodes: int
    racks: int
    apps: int
    hours: float


FULL = Size(parents=20, leaves=50, nodes=5000, racks=50, apps=20_000, hours=24)
SMOKE = Size(parents=2, leaves=5, nodes=20, racks=2, apps=30, hours=0.5)
SWING = 0.5  # the benchmark's day: its busiest hour has twice the mean arrival rate


def r(memory_mb: int, vcores: int) -> Resource:
    return DEFAULT_TYPES.of({"memory-mb": memory_mb, "vcores": vcores})


def allocation_file(size: Size, rng: random.Random) -> str:
    parts = ["<?xml version='1.0'?><allocations>",
             "<defaultFairSharePreemptionTimeout>60</defaultFairSharePreemptionTimeout>",
             "<defaultMinSharePreemptionTimeout>30</defaultMinSharePreemptionTimeout>"]
    for p in range(size.parents):
        parts.append(f"<queue name='p{p}'><weight>{rng.choice([1, 2, 3])}</weight>")
        for leaf in range(size.leaves):
            body = f"<weight>{rng.choice([1, 1, 2, 4])}</weight>"
            if rng.random() < 0.1:
                body += f"<minResources>{rng.choice([64, 128, 256]) * GB} mb, 64 vcores" \
                        "</minResources>"
            parts.append(f"<queue name='l{leaf}'>{body}</queue>")
        parts.append("</queue>")
    parts.append("</allocations>")
    return "".join(parts)


def build_engine(size: Size, rng: random.Random, counts: Counter[str],
                 events: list[Event]) -> Engine:
    site = load_site(None, {"yarn.scheduler.fair.preemption": "true",
                            "yarn.scheduler.fair.waitTimeBeforeKill": "15000"})
    alloc = parse_allocations_text(allocation_file(size, rng), "bench.xml", site.resource_types)
    def sink(event: Event) -> None:  # the loop reads the events; the counts outlive them
        counts[event.type] += 1
        events.append(event)

    engine = Engine(site, alloc, sink=sink)
    per_rack = max(1, size.nodes // size.racks)
    engine.add_nodes((f"n{n:05d}", r(16 * GB, 8), f"/rack{n // per_rack:02d}")
                     for n in range(size.nodes))
    return engine


def workload(size: Size, rng: random.Random, swing: float = SWING) -> list[AppSpec]:
    """Arrivals by thinning a Poisson process whose rate follows the day (peak mid-afternoon):
    an arrival is kept with probability 0.5 + swing × sin(…), so the mean rate does not depend
    on ``swing`` and the busiest hour has (0.5 + swing) / 0.5 times it."""
    leaves = [f"root.p{p}.l{q}" for p in range(size.parents) for q in range(size.leaves)]
    busy = leaves[:: max(1, len(leaves) // 20)]
    span = size.hours * HOUR
    mean_gap = span / size.apps
    apps: list[AppSpec] = []
    t = 0.0
    while len(apps) < size.apps:
        t += rng.expovariate(2 / mean_gap)  # twice the mean rate, then thinned by the day curve
        at = int(t) % int(span)
        day = (at % (24 * HOUR)) / (24 * HOUR)
        if rng.random() > 0.5 + swing * math.sin(2 * math.pi * (day - 0.375)):
            continue
        queue = rng.choice(busy) if rng.random() < 1 / 3 else rng.choice(leaves)
        groups = tuple(
            TaskGroup(rng.randint(5, 45), r(rng.choice([1, 2, 3, 4]) * GB, 1),
                      rng.randint(60, 3600) * 1000, priority=20 + g)
            for g in range(2))
        apps.append(AppSpec(f"app_{len(apps):06d}", at, queue, f"user{len(apps) % 300}",
                            r(GB, 1), groups))
    apps.sort(key=lambda a: (a.at_ms, a.id))
    return apps


def peak_demand(apps: Sequence[AppSpec], capacity_mb: int) -> tuple[float, float]:
    """The busiest minute's memory demand, were every task to start on arrival (AMs left
    out), as a share of the cluster, and the hour it falls in: how far the day overloads it."""
    minute = 60_000
    change: Counter[int] = Counter()
    for app in apps:
        start = app.at_ms // minute
        for group in app.tasks:
            memory = group.count * group.resource.memory
            change[start] += memory
            change[start + max(1, group.duration_ms // minute)] -= memory
    level, peak, at = 0, 0, 0
    for m in sorted(change):
        level += change[m]
        if level > peak:
            peak, at = level, m
    return round(peak / capacity_mb, 2), round(at / 60, 1)


def run(size: Size, seed: int, hours: float, fixed: bool, check: bool,
        swing: float = SWING) -> dict[str, object]:
    rng = random.Random(seed)
    counts: Counter[str] = Counter()
    events: list[Event] = []
    engine = build_engine(size, rng, counts, events)
    apps = workload(size, rng, swing)
    peak, peak_hour = peak_demand(apps, engine.state.capacity.memory)
    drop = _Drop(engine if check else None)
    simulation = Simulation(engine, apps, events=events, observers=[drop],
                            event_driven=not fixed, snapshot_every_ms=HOUR)
    until = int(hours * HOUR)
    start = time.perf_counter()
    simulation.run(until)
    wall = time.perf_counter() - start
    total = sum(counts.values())
    return {
        "simulated_hours": hours,
        "wall_seconds": round(wall, 1),
        "speedup": round(until / 1000 / wall, 1),
        "events": total,
        "events_per_second": round(total / wall),
        "events_by_type": dict(counts.most_common()),
        "containers_allocated": counts["container-allocated"],
        "containers_preempted": counts["container-preempted"],
        "apps_finished": counts["app-finished"],
        "peak_demand_of_cluster_memory": peak,
        "peak_demand_hour": peak_hour,
        "heartbeats_run": (engine.heartbeats_run if engine.heartbeats_run
                           else len(engine.state.nodes) * (until // simulation.heartbeat_ms)),
        "events_sha256": drop.digest.hexdigest() if check else None,
        # simulated seconds per wall second, hour by hour: the busy afternoon is the slow part
        "speedup_by_hour": [round(3600 / max(b - a, 1e-9))
                            for a, b in itertools.pairwise(drop.hour_walls)],
    }


class _Drop:
    """An observer that lets the loop forget events (the counts come from the sink), hashing
    their records on the way when asked (to show both loops gave the same stream)."""

    def __init__(self, engine: Engine | None) -> None:
        self.engine = engine
        self.digest = hashlib.sha256()
        self.hour_walls: list[float] = []  # wall clock at each simulated hour

    def on_events(self, events: Sequence[Event]) -> None:
        if self.engine is not None:
            for event in events:
                record = event_record(event, self.engine.types)
                self.digest.update(json.dumps(record, sort_keys=True).encode())

    def on_snapshot(self, now_ms: int) -> None:
        self.hour_walls.append(time.perf_counter())

    def on_end(self, now_ms: int) -> None:
        pass


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny size for CI")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--hours", type=float, default=None, help="simulate less than a day")
    parser.add_argument("--loop", choices=["event-driven", "fixed", "both"], default="both")
    parser.add_argument("--fixed-hours", type=float, default=None,
                        help="the fixed-interval loop's span (default: --hours)")
    parser.add_argument("--swing", type=float, default=SWING,
                        help="the day curve's amplitude, 0 to 0.5: arrivals at the busiest "
                             "hour are (0.5 + swing) / 0.5 times the mean (default %(default)s)")
    parser.add_argument("--check", action="store_true",
                        help="hash both loops' events (on with --smoke)")
    args = parser.parse_args()
    if not 0 <= args.swing <= 0.5:
        parser.error(f"--swing must be between 0 and 0.5, not {args.swing}")
    size = SMOKE if args.smoke else FULL
    hours = args.hours if args.hours is not None else size.hours
    fixed_hours = args.fixed_hours if args.fixed_hours is not None else hours
    check = args.check or args.smoke
    result: dict[str, object] = {
        "workload": {"nodes": size.nodes, "leaf_queues": size.parents * size.leaves,
                     "apps": size.apps, "seed": args.seed, "swing": args.swing},
        # Hadoop's SLS replays in real time by construction: its speed-up is 1
        "reference": "Hadoop SLS (real time, 1x)",
    }
    if args.loop in ("event-driven", "both"):
        driven = run(size, args.seed, hours, fixed=False, check=check, swing=args.swing)
        result["event_driven"] = driven
        result["event_driven_vs_sls"] = driven["speedup"]
    if args.loop in ("fixed", "both"):
        fixed = run(size, args.seed, fixed_hours, fixed=True, check=check, swing=args.swing)
        result["fixed_interval"] = fixed
        result["fixed_interval_vs_sls"] = fixed["speedup"]
    if args.loop == "both" and fixed_hours == hours:
        wall_ed, wall_fixed = driven["wall_seconds"], fixed["wall_seconds"]
        assert isinstance(wall_ed, float) and isinstance(wall_fixed, float)
        result["event_driven_vs_fixed"] = round(wall_fixed / max(wall_ed, 0.1), 1)
        if check:
            same = driven["events_sha256"] == fixed["events_sha256"]
            result["identical_events"] = same
            if not same:
                print(json.dumps(result, indent=1))
                return 1
    result["peak_memory_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    json.dump(result, sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark: one full instantaneous fair-share recomputation (issue: foundation, item 7).

10,000 leaf queues (100 parents × 100 leaves) holding 100,000 runnable apps, policy ``drf``,
two resource types. Times ``compute_instantaneous_fair_shares`` with the engine's solver
(``core.compute_shares``: identical schedulables counted once) — the cuts and splits the
engine's update pass makes when everything changed — and, in the same run, the same tree
computation with YARN's line-by-line ``ComputeFairShares`` (``tests/oracles/shares.py``); checks
that both give identical shares, and prints the figures as JSON.

    python bench/fair_shares.py            # full size
    python bench/fair_shares.py --smoke    # tiny, for CI
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

from fairshare.config.model import AllocationConfig, PolicyName, QueueConfig
from fairshare.core import AppShareInput, build_queue_tree, compute_instantaneous_fair_shares
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import DEFAULT_TYPES, float32, res

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the references live in tests/
from tests.oracles.shares import compute_shares_reference


def build(parents: int, leaves: int, apps: int, seed: int):  # type: ignore[no-untyped-def]
    """A two-level drf tree with varied weights, some min and max shares, apps spread unevenly."""
    rng = random.Random(seed)
    queues = []
    for p in range(parents):
        queues.append(QueueConfig(f"root.p{p}", True, weight=float32(rng.choice([1, 2, 3]))))
        for leaf in range(leaves):
            max_share = None
            if rng.random() < 0.1:
                max_share = ConfigurableResource(absolute=res(rng.randint(1, 64) * 8192, 10**6))
            queues.append(
                QueueConfig(
                    f"root.p{p}.l{leaf}",
                    False,
                    weight=float32(rng.choice([0.5, 1, 1, 2, 4])),
                    min_resources=res(rng.choice([0, 0, 0, 16384]), rng.choice([0, 0, 8])),
                    max_resources=max_share,
                )
            )
    config = AllocationConfig(
        queues=tuple(queues), default_scheduling_policy=PolicyName.DRF, has_file=True
    )
    tree = build_queue_tree(config, DEFAULT_TYPES)
    leaf_names = [q.name for q in tree.leaves()]
    runnable: dict[str, list[AppShareInput]] = {}
    for i in range(apps):
        leaf = leaf_names[min(int(rng.paretovariate(1.2)) - 1, len(leaf_names) - 1)
                          if rng.random() < 0.2 else rng.randrange(len(leaf_names))]
        runnable.setdefault(leaf, []).append(AppShareInput(f"app_{i:06d}", i))
    return tree, runnable


def timed(fn, repeat: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        out.append((time.perf_counter() - start) * 1000)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny size for CI")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--reference-repeat", type=int, default=3)
    args = parser.parse_args()
    parents, leaves, apps = (5, 10, 500) if args.smoke else (100, 100, 100_000)
    tree, runnable = build(parents, leaves, apps, seed=42)
    cluster = res(5000 * 128 * 1024, 5000 * 32)  # 5,000 nodes of 128 GB / 32 vcores

    def engine() -> object:
        return compute_instantaneous_fair_shares(tree, cluster, runnable)

    def reference() -> object:
        return compute_instantaneous_fair_shares(tree, cluster, runnable,
                                                 solver=compute_shares_reference)

    # the solver memoises its searches (sibling leaves repeat the same splits, and so do passes
    # whose inputs did not change): the first run in the process has nothing memoised
    first_ms = timed(engine, 1)[0]
    identical = engine() == reference()
    fast_ms = timed(engine, args.repeat)
    ref_ms = timed(reference, args.reference_repeat)
    p50, ref_p50 = statistics.median(fast_ms), statistics.median(ref_ms)
    goal = {"fast_p50_ms_max": 50, "speedup_min": 20}  # set for the numpy model, since removed
    result = {
        "benchmark": "fair_shares",
        "size": "smoke (goals apply at full size only)" if args.smoke else "full",
        "leaf_queues": parents * leaves,
        "runnable_apps": apps,
        "policy": "drf",
        "resource_types": 2,
        "fast_p50_ms": round(p50, 2),
        "fast_p90_ms": round(sorted(fast_ms)[int(0.9 * (len(fast_ms) - 1))], 2),
        "first_run_ms": round(first_ms, 2),
        "reference_p50_ms": round(ref_p50, 2),
        "speedup_vs_reference": round(ref_p50 / p50, 1),
        "identical_results": identical,
        "goal": goal,
        "goal_met": p50 <= goal["fast_p50_ms_max"] and ref_p50 / p50 >= goal["speedup_min"],
        "python": sys.version.split()[0],
    }
    print(json.dumps(result, indent=2))
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())

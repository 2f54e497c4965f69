"""Benchmark: one full instantaneous fair-share recomputation (issue: foundation, item 7).

10,000 leaf queues (100 parents × 100 leaves) holding 100,000 runnable apps, policy ``drf``,
two resource types. Times the batched path (``ShareModel.compute``) and the straightforward
per-schedulable port of spec §2.3 (``compute_instantaneous_fair_shares``) in the same run,
checks that both give identical shares, and prints the figures as JSON.

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

from fairshare.config.model import AllocationConfig, PolicyName, QueueConfig
from fairshare.core.fairshare import AppShareInput, compute_instantaneous_fair_shares
from fairshare.core.share_model import ShareModel
from fairshare.core.tree import build_queue_tree
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import DEFAULT_TYPES, float32, res


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
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--reference-repeat", type=int, default=3)
    args = parser.parse_args()
    parents, leaves, apps = (5, 10, 500) if args.smoke else (100, 100, 100_000)
    tree, runnable = build(parents, leaves, apps, seed=42)
    cluster = res(5000 * 128 * 1024, 5000 * 32)  # 5,000 nodes of 128 GB / 32 vcores

    start = time.perf_counter()
    model = ShareModel(tree, runnable)
    build_ms = (time.perf_counter() - start) * 1000
    fast = model.compute(cluster)
    reference = compute_instantaneous_fair_shares(tree, cluster, runnable)
    identical = fast.to_fair_shares() == reference

    fast_ms = timed(lambda: model.compute(cluster), args.repeat)
    # The engine's update path: the last result supplies the components a policy leaves alone.
    with_previous_ms = timed(lambda: model.compute(cluster, fast), args.repeat)
    ref_ms = timed(lambda: compute_instantaneous_fair_shares(tree, cluster, runnable),
                   args.reference_repeat)
    p50, ref_p50 = statistics.median(fast_ms), statistics.median(ref_ms)
    result = {
        "benchmark": "fair_shares",
        "size": "smoke (goals apply at full size only)" if args.smoke else "full",
        "leaf_queues": parents * leaves,
        "runnable_apps": apps,
        "policy": "drf",
        "resource_types": 2,
        "fast_p50_ms": round(p50, 2),
        "fast_p90_ms": round(sorted(fast_ms)[int(0.9 * (len(fast_ms) - 1))], 2),
        "fast_with_previous_p50_ms": round(statistics.median(with_previous_ms), 2),
        "model_build_ms": round(build_ms, 2),
        "reference_p50_ms": round(ref_p50, 2),
        "speedup_vs_reference": round(ref_p50 / p50, 1),
        "identical_results": identical,
        "goal": {"fast_p50_ms_max": 50, "speedup_min": 20},
        "python": sys.version.split()[0],
    }
    print(json.dumps(result, indent=2))
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())

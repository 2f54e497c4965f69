"""Benchmark: a 16-variant sweep of the seed example, serially and on two processes (issue 17,
item 8: ``--jobs 2`` must take at most 0.6× the serial time, measured in the same run).

Variants: the seed example's simulation (examples/seed-three-tenants/simulation.yaml) under
``root.tenant3.fairSharePreemptionTimeout`` 5, 15, 30, 60 s ×
``defaultFairSharePreemptionThreshold`` 0.5, 0.6, 0.8, 1.0 — what ``fairshare sweep`` runs for
those two ``--set`` options. Both runs write every variant's outputs (into a temporary
directory) as the command does; the parallel one includes starting its worker processes.
``--smoke``: 4 variants.

    python bench/sweep.py            # 16 variants
    python bench/sweep.py --smoke    # 4, for CI
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

from fairshare.workbench.sweep import (
    SerialExecutor,
    VariantJob,
    executor,
    grid,
    parse_axis,
    run_variants,
)

SEED = Path(__file__).resolve().parents[1] / "examples/seed-three-tenants/simulation.yaml"
TARGET = 0.6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="4 variants, for CI")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    timeouts, thresholds = ("5,15", "0.5,0.8") if args.smoke else ("5,15,30,60",
                                                                   "0.5,0.6,0.8,1.0")
    variants = grid([parse_axis(f"alloc:root.tenant3.fairSharePreemptionTimeout={timeouts}"),
                     parse_axis(f"alloc:defaultFairSharePreemptionThreshold={thresholds}")])
    seconds: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("serial", "parallel"):
            jobs = [VariantJob(str(SEED), v, os.path.join(tmp, name, v.name)) for v in variants]
            began = time.perf_counter()
            if name == "serial":
                outcomes = run_variants(jobs, SerialExecutor())
            else:
                with executor(args.jobs) as pool:
                    outcomes = run_variants(jobs, pool)
            seconds[name] = time.perf_counter() - began
            failed = [o.name for o in outcomes if o.error is not None]
            if failed:
                raise SystemExit(f"variants failed: {failed}")
        same = all((Path(tmp, "serial", v.name, "events.jsonl").read_bytes()
                    == Path(tmp, "parallel", v.name, "events.jsonl").read_bytes())
                   for v in variants)
    ratio = seconds["parallel"] / seconds["serial"]
    print(json.dumps({
        "variants": len(variants), "jobs": args.jobs, "cores": os.cpu_count(),
        "serial_seconds": round(seconds["serial"], 2),
        "parallel_seconds": round(seconds["parallel"], 2),
        "parallel_vs_serial": round(ratio, 3), "target": TARGET,
        "meets_target": ratio <= TARGET, "identical_events": same}))
    if not same:
        raise SystemExit("the parallel run's events differ from the serial run's")


if __name__ == "__main__":
    main()

"""``python -m oracle`` (``make oracle``): fairshare against Hadoop's own FairScheduler.

Compares every example, every scenario under tests/ and ``--n`` random scenarios (default
``$ORACLE_N`` or 1,000), prints ``oracle: N scenarios, M identical, K differ`` and, for each
difference, the first diverging event or snapshot field side by side, with the directory that
holds the scenario for replay. Random scenarios that differ are shrunk (``--shrink``, the first
3 by default) to a smaller scenario that still differs. Exit 1 when a scenario differs, the
driver fails on one or is not deterministic; 2 when the oracle cannot run (no JDK, no Maven).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from rich.console import Console

from oracle import rest
from oracle.cases import ROOT, Case, file_cases, random_cases
from oracle.run import (
    OracleError,
    Outcome,
    RunSummary,
    build_driver,
    compare_case,
    prepare_all,
    run_driver_twice,
    skipped,
)

SMOKE_N = 100


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m oracle", description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=int(os.environ.get("ORACLE_N", "1000")),
                   help="random scenarios (default $ORACLE_N or 1000)")
    p.add_argument("--smoke", action="store_true", help=f"{SMOKE_N} random scenarios (CI)")
    p.add_argument("--seed", type=int, default=0, help="the first random scenario's seed")
    p.add_argument("--hash-order", action="store_true",
                   help="random scenarios whose outcome may depend on Java hash-map order")
    p.add_argument("--only", choices=["examples", "tests", "random"], action="append",
                   help="compare only these cases (repeatable)")
    p.add_argument("--jobs", type=int, default=2, help="worker processes and JVMs at once")
    p.add_argument("--out", type=Path, default=ROOT / "out" / "oracle",
                   help="where each case's scenario and both runs are kept")
    p.add_argument("--shrink", type=int, default=3, metavar="K",
                   help="shrink the first K differing random scenarios (0: none)")
    p.add_argument("--json", type=Path, help="also write the summary as JSON here")
    p.add_argument("--no-rest", dest="rest", action="store_false",
                   help="do not compare YARN's REST answers at every snapshot (compared by "
                        "default: docs/fidelity.md, \"The REST comparison\")")
    return p.parse_args(argv)


def select_cases(args: argparse.Namespace) -> list[Case]:
    only = set(args.only or ["examples", "tests", "random"])
    n = SMOKE_N if args.smoke else args.n
    cases = [c for c in file_cases() if f"{c.kind}s" in only]
    if "random" in only:
        cases.extend(random_cases(n, args.seed, args.hash_order))
    return cases


def run(args: argparse.Namespace, console: Console) -> RunSummary:
    from oracle.compare import compare_runs  # the comparator, with its own tests

    jar = build_driver(console)
    cases = select_cases(args)
    args.out.mkdir(parents=True, exist_ok=True)
    prepared = prepare_all(cases, args.out, args.jobs, console)
    ready = [p for p in prepared if p.status == "ready"]
    run_driver_twice(jar, [args.out / p.case.name for p in ready], args.jobs, console)
    summary = RunSummary(skipped(prepared))
    for p in ready:
        directory = args.out / p.case.name
        steps = json.loads((directory / "scenario.json").read_text(encoding="utf-8"))["steps"]
        summary.outcomes.append(compare_case(p, directory, compare_runs, steps))
    return summary


def print_summary(summary: RunSummary, out: Path, console: Console) -> None:
    for outcome in summary.outcomes:
        if outcome.status in ("differ", "known", "driver-error", "nondeterministic"):
            console.rule(f"{outcome.case.name}: {outcome.status}")
            console.print(f"scenario: {out / outcome.case.name / 'scenario.yaml'}")
            if outcome.shrunk is not None:  # the report below is the shrunk scenario's
                console.print(f"shrunk:   {outcome.shrunk}")
            if outcome.report is not None:
                console.print(outcome.report.as_text(), markup=False, highlight=False)
            else:
                console.print(outcome.reason, markup=False, highlight=False)
    compared = summary.compared
    differ = summary.count("differ") + summary.count("known")
    console.print(f"oracle: {len(compared)} scenarios, {summary.count('identical')} identical, "
                  f"{differ} differ", markup=False)
    partly = [o for o in summary.outcomes if o.status == "identical" and o.reason]
    for outcome in partly:
        console.print(f"  {outcome.case.name}: identical, {outcome.reason}", markup=False)
    for status in ("known", "driver-error", "nondeterministic", "not-comparable", "invalid"):
        if summary.count(status):
            reasons = sorted({o.reason for o in summary.outcomes if o.status == status})
            console.print(f"  {summary.count(status)} {status}: " + "; ".join(reasons[:3]),
                          markup=False)


def summary_json(summary: RunSummary) -> dict[str, Any]:
    def entry(o: Outcome) -> dict[str, Any]:
        doc: dict[str, Any] = {"case": o.case.name, "kind": o.case.kind, "status": o.status}
        if o.reason:
            doc["reason"] = o.reason
        if o.report is not None and not o.report.identical:
            doc["first"] = o.report.as_json()
        return doc
    counts = {s: summary.count(s) for s in ("identical", "differ", "known", "driver-error",
                                            "nondeterministic", "not-comparable", "invalid")}
    return {"scenarios": len(summary.compared), **counts,
            "cases": [entry(o) for o in summary.outcomes]}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # read by the workers that run fairshare's side (oracle.rest)
    os.environ[rest.REST_ENV] = "1" if args.rest else "0"
    console = Console(soft_wrap=True)
    try:
        summary = run(args, console)
    except OracleError as e:
        print(f"oracle: {e}", file=sys.stderr)
        return 2
    if args.shrink:
        from oracle.shrink_runs import shrink_failures
        shrink_failures(summary, args, console)
    print_summary(summary, args.out, console)
    if args.json is not None:
        args.json.write_text(json.dumps(summary_json(summary), indent=1) + "\n",
                             encoding="utf-8")
    return 1 if summary.failed else 0


def entry() -> None:
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)


__all__ = ["entry", "main"]

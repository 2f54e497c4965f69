"""Shrinking the random scenarios that differ, to the smallest that still differs.

:func:`oracle.generate.shrink` proposes smaller candidates; each is tried here on both sides
(prepared, run once through the driver, compared). The smallest that still differs is kept
beside the original as ``shrunk/`` and its comparison replaces the original's in the report.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from rich.console import Console

from oracle.cases import Case, prepare, scenario_document
from oracle.run import JAR, Outcome, RunSummary, run_driver

MAX_TRIES = 150  # candidates per scenario: a JVM start each, so bounded


def shrink_failures(summary: RunSummary, args: argparse.Namespace, console: Console) -> None:
    differing = [o for o in summary.outcomes if o.status == "differ" and o.case.kind == "random"]
    for outcome in differing[:args.shrink]:
        console.print(f"oracle: shrinking {outcome.case.name}…")
        shrink_one(outcome, args.out / outcome.case.name / "shrunk", console)


def shrink_one(outcome: Outcome, directory: Path, console: Console) -> None:
    from oracle.compare import compare_runs
    from oracle.generate import shrink

    tries = 0

    def differs(document: dict[str, Any]) -> bool:
        candidate = Case(outcome.case.name, "random", document=document)
        prepared = prepare(candidate, directory)
        if prepared.status != "ready":
            return False
        run_driver(JAR, [[directory]], 1, Console(quiet=True), "shrink")
        if (directory / "oracle" / "error.txt").exists():
            return False
        steps = json.loads((directory / "scenario.json").read_text(encoding="utf-8"))["steps"]
        return not compare_runs(directory / "fairshare", directory / "oracle", steps).identical

    def still_fails(document: dict[str, Any]) -> bool:
        nonlocal tries
        if tries >= MAX_TRIES:
            return False  # out of tries: candidates left untried count as not differing
        tries += 1
        return differs(document)

    smallest = shrink(scenario_document(outcome.case), still_fails)
    # run the smallest again, past the limit too: the directory holds the last candidate tried
    differs(smallest)
    steps = json.loads((directory / "scenario.json").read_text(encoding="utf-8"))["steps"]
    outcome.report = compare_runs(directory / "fairshare", directory / "oracle", steps)
    outcome.shrunk = directory / "scenario.yaml"
    limit = f" (the limit of {MAX_TRIES} reached)" if tries >= MAX_TRIES else ""
    console.print(f"oracle: {outcome.case.name} shrunk to {len(smallest.get('steps', []))} "
                  f"steps in {tries} tries{limit}: {directory / 'scenario.yaml'}", markup=False)

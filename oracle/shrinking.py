"""Shrinking a generated scenario that shows a difference, keeping it valid.

Greedy passes, repeated until none makes progress: drop runs of steps (halves, quarters, …
single steps, as delta debugging does), drop queues and settings from the allocation file and
the placement policy, drop nodes, site properties and groups, then lower counts and times.
After a structural change the steps that now name something gone (an app never submitted, a
node never registered) are dropped too (:func:`repair`); every candidate must still load and
run in fairshare (:func:`fairshare_accepts`) and still satisfy the predicate.
"""

from __future__ import annotations

import copy
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from fairshare.config.errors import ConfigError
from fairshare.core import EngineError
from fairshare.sim.parse.scenario import parse_scenario_text
from fairshare.sim.run.scripted import RunResult, run_scenario

Scenario = dict[str, Any]
Predicate = Callable[[Scenario], bool]
_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)  # libyaml's when there: 5× faster
APP_STEPS = ("request", "release", "finish", "kill", "move")
NODE_STEPS = ("remove-node", "resize-node", "heartbeat")


def run_in_fairshare(scenario: Scenario, source: str = "generated.yaml") -> RunResult:
    """Load and run a scenario dict in-process; ConfigError (EngineError) when it is invalid."""
    text = yaml.dump(scenario, Dumper=_DUMPER, sort_keys=False, allow_unicode=True)
    return run_scenario(parse_scenario_text(text, source, Path.cwd()))


def fairshare_accepts(scenario: Scenario) -> bool:
    try:
        run_in_fairshare(scenario)
    except (ConfigError, EngineError):
        return False
    return True


def shrink(scenario: Scenario, still_fails: Predicate,
           valid: Predicate = fairshare_accepts) -> Scenario:
    """The smallest scenario the passes reach for which ``valid`` and ``still_fails`` hold
    (``scenario`` itself should satisfy both; it is returned unchanged otherwise)."""
    best = copy.deepcopy(scenario)
    if not still_fails(best):
        return best
    passes = (_step_runs, _queues, _settings, _nodes, _site_and_groups, _numbers)
    progress = True
    while progress:
        progress = False
        for candidates in passes:
            improved = True
            while improved:
                improved = False
                for candidate in candidates(best):
                    if candidate != best and valid(candidate) and still_fails(candidate):
                        best, improved, progress = candidate, True, True
                        break
    return best


def _with_steps(scenario: Scenario, steps: list[dict[str, Any]]) -> Scenario:
    out = copy.deepcopy(scenario)
    out["steps"] = steps
    return repair(out)


def _step_runs(scenario: Scenario) -> Iterator[Scenario]:
    steps = scenario.get("steps", [])
    size = len(steps) // 2
    while size >= 1:
        for start in range(0, len(steps), size):
            yield _with_steps(scenario, steps[:start] + steps[start + size:])
        size //= 2


def repair(scenario: Scenario) -> Scenario:
    """Drop the steps that name an app or node that is not there (or no longer)."""
    nodes = {n["name"] for n in scenario.get("cluster", {}).get("nodes", [])}
    submitted: set[str] = set()
    ended: set[str] = set()
    kept = []
    for step in scenario.get("steps", []):
        (kind, args), = step.items()
        args = args or {}
        if kind == "submit":
            if args["app"] in submitted:
                continue
            submitted.add(args["app"])
        elif kind in APP_STEPS and (args["app"] not in submitted or args["app"] in ended):
            continue
        elif kind == "add-node":
            if args["name"] in nodes:
                continue
            nodes.add(args["name"])
        elif kind in NODE_STEPS and args.get("node", args.get("name")) not in (*nodes, "*"):
            continue
        if kind in ("finish", "kill"):
            ended.add(args["app"])
        if kind == "remove-node":
            nodes.discard(args["name"])
        kept.append(step)
    scenario["steps"] = kept
    return scenario


def _queues(scenario: Scenario) -> Iterator[Scenario]:
    text = scenario.get("allocations")
    if not isinstance(text, str):
        return
    for smaller in _removals(text, lambda e: e.tag == "queue"):
        out = copy.deepcopy(scenario)
        out["allocations"] = smaller
        yield out


def _settings(scenario: Scenario) -> Iterator[Scenario]:
    text = scenario.get("allocations")
    if isinstance(text, str):
        for smaller in _removals(text, lambda e: e.tag != "queue"):
            out = copy.deepcopy(scenario)
            out["allocations"] = smaller
            yield out
    for index, step in enumerate(scenario.get("steps", [])):
        reload = step.get("reload")
        if reload and isinstance(reload.get("allocations"), str):
            for smaller in _removals(reload["allocations"], lambda e: True):
                out = copy.deepcopy(scenario)
                out["steps"][index]["reload"]["allocations"] = smaller
                yield out


def _removals(text: str, which: Callable[[ET.Element], bool]) -> Iterator[str]:
    """The file without one element chosen by ``which``, first ones first (a file that does
    not parse — a reload meant to fail — yields nothing)."""
    try:
        first = ET.fromstring(text)
    except ET.ParseError:
        return
    count = sum(1 for e in first.iter() if e is not first and which(e))
    for k in range(count):
        root = ET.fromstring(text)
        parent_of = {child: parent for parent in root.iter() for child in parent}
        target = [e for e in root.iter() if e is not root and which(e)][k]
        parent_of[target].remove(target)
        yield ET.tostring(root, encoding="unicode") + "\n"


def _nodes(scenario: Scenario) -> Iterator[Scenario]:
    nodes = scenario.get("cluster", {}).get("nodes", [])
    for index in range(len(nodes)):
        if len(nodes) < 2:
            return
        out = copy.deepcopy(scenario)
        del out["cluster"]["nodes"][index]
        yield repair(out)


def _site_and_groups(scenario: Scenario) -> Iterator[Scenario]:
    for section in ("site", "groups"):
        for key in list(scenario.get(section, {})):
            out = copy.deepcopy(scenario)
            del out[section][key]
            yield out


def _numbers(scenario: Scenario) -> Iterator[Scenario]:
    """Counts to 1, heartbeat times to 1, shorter advances, one request per ask, no AM."""
    for index, step in enumerate(scenario.get("steps", [])):
        (kind, args), = step.items()
        args = args or {}
        for key, smaller in _smaller_args(kind, args):
            out = copy.deepcopy(scenario)
            target = out["steps"][index][kind]
            if smaller is None:
                del target[key]
            else:
                target[key] = smaller
            yield out


def _smaller_args(kind: str, args: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    if kind == "heartbeat" and args.get("times", 1) > 1:
        yield "times", None
    if kind == "advance" and args.get("ms", 0) > 1:
        yield "ms", args["ms"] // 2
    if kind == "release" and args.get("count", 1) > 1:
        yield "count", None
    if kind == "submit" and "am" in args:
        yield "am", None
    requests = args.get("requests")
    if kind in ("submit", "request") and requests:
        if len(requests) > 1:
            yield "requests", requests[:1]
        for i, request in enumerate(requests):
            for key in ("count", "memory-mb"):
                value = request.get(key, 1)
                if isinstance(value, int) and value > (1 if key == "count" else 512):
                    smaller = [dict(r) for r in requests]
                    smaller[i][key] = value // 2 if key == "memory-mb" else max(1, value // 2)
                    yield "requests", smaller
            for key in ("locality", "relax-locality", "yarn.io/gpu"):
                if key in request:
                    smaller = [dict(r) for r in requests]
                    del smaller[i][key]
                    yield "requests", smaller

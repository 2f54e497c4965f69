"""The oracle's scenario generator: deterministic, valid for fairshare, covering what issue 19
lists, preempting often enough, and shrinkable."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
import yaml

from oracle.allocation_gen import Rule
from oracle.features import coverage, features
from oracle.generate import generate, scenario_yaml, shrink
from oracle.scenario_world import UNKNOWN, World
from oracle.shrinking import fairshare_accepts, repair, run_in_fairshare

SEEDS = range(200)


@pytest.fixture(scope="module")
def runs() -> dict[int, tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each seed's scenario, written as YAML and read back, and fairshare's events for it."""
    out = {}
    for seed in SEEDS:
        scenario = generate(seed)
        again = yaml.safe_load(yaml.safe_dump(scenario, sort_keys=False))
        assert again == scenario  # plain data: YAML gives back the same dict
        out[seed] = (scenario, run_in_fairshare(scenario, f"seed-{seed}.yaml").records)
    return out


def test_the_same_seed_gives_the_same_scenario() -> None:
    assert generate(7) == generate(7)
    assert generate(7) != generate(8)
    assert generate(7, hash_order=True) == generate(7, hash_order=True)
    assert generate(7, hash_order=True) != generate(7)


def test_the_readable_yaml_reads_back_as_the_same_scenario() -> None:
    for seed in range(20):
        scenario = generate(seed, hash_order=seed % 2 == 1)
        text = scenario_yaml(scenario)
        assert yaml.safe_load(text) == scenario
        assert "allocations: |" in text


def test_a_seed_does_not_depend_on_what_was_generated_before() -> None:
    first = generate(31)
    for seed in range(5):
        generate(seed, hash_order=True)
    random.seed(1)  # nor on the global random state
    assert generate(31) == first


def test_scenarios_are_small_and_steps_only(runs: dict[int, Any]) -> None:
    for scenario, _ in runs.values():
        assert set(scenario) == {"version", "name", "site", "allocations", "cluster", "groups",
                                 "steps"}
        steps = scenario["steps"]
        assert len(steps) <= 60 and steps[-1] == {"snapshot": {"label": "end"}}
        submits = [s for s in steps if "submit" in s]
        assert len(submits) <= 8
        names = {n["name"] for n in scenario["cluster"]["nodes"]}
        names |= {s["add-node"]["name"] for s in steps if "add-node" in s}
        assert len(names) <= 6


def test_every_scenario_runs_in_fairshare(runs: dict[int, Any]) -> None:
    """The fixture ran them all: none raised (an invalid step is a ConfigError)."""
    assert len(runs) == len(SEEDS)
    snapshots = [sum(1 for s in sc["steps"] if "snapshot" in s) for sc, _ in runs.values()]
    assert min(snapshots) >= 1 and sum(snapshots) / len(snapshots) >= 3


def test_the_hash_order_variant_runs_too() -> None:
    for seed in range(60):
        assert fairshare_accepts(generate(seed, hash_order=True)), seed


def test_preemption_happens_in_a_good_fraction(runs: dict[int, Any]) -> None:
    preempted = sum(1 for _, events in runs.values()
                    if any(e["type"] == "container-preempted" for e in events))
    assert preempted / len(runs) > 0.3
    warned_am = sum(1 for _, events in runs.values()
                    if any(e["type"] == "preemption-warned" and e["am"] for e in events))
    assert warned_am >= 1


def test_what_yarn_refuses_happens_too(runs: dict[int, Any]) -> None:
    kinds: Counter[str] = Counter()
    for _, events in runs.values():
        kinds.update({e["type"] for e in events})
    for kind in ("app-rejected", "move-rejected", "config-error", "config-reloaded",
                 "app-not-runnable", "container-reserved", "app-attempt-restarted",
                 "node-removed", "node-resized"):
        assert kinds[kind] >= 3, kind


FEATURES = [
    "depth-1", "depth-2", "depth-3", "weight", "minResources", "maxResources-absolute",
    "maxResources-percent", "maxChildResources", "policy-drf", "policy-fair", "policy-fifo",
    "maxRunningApps", "maxAMShare", "fairSharePreemptionTimeout",
    "fairSharePreemptionThreshold", "minSharePreemptionTimeout", "non-preemptable-queue",
    "rule-specified", "rule-user", "rule-primaryGroup", "rule-default", "rule-reject",
    "rule-create-true", "rule-create-false", "gpu", "gpu-request", "racks", "step:add-node",
    "step:remove-node", "step:resize-node", "managed-app", "unmanaged-app", "locality-any",
    "locality-host", "locality-rack", "relax-locality-false", "assignmultiple",
    "no-assignmultiple", "max.assign", "step:update", "step:advance", "waitTimeBeforeKill",
    "release-newest", "release-oldest", "release-am", "step:finish", "step:kill",
    "move-to-leaf", "move-to-non-leaf", "reload-valid", "reload-malformed", "reload-bad-value",
    "reload-unknown-element", "reload-drf-under-fair", "several-snapshots", "preemption",
    "utilization-threshold", "heartbeat-all", "heartbeat-node"]


def test_every_feature_of_the_issue_is_covered(runs: dict[int, Any]) -> None:
    counts = coverage([scenario for scenario, _ in runs.values()])
    missing = [f for f in FEATURES if counts[f] < 5]
    assert not missing, {f: counts[f] for f in missing}


def test_features_are_read_from_the_scenario() -> None:
    scenario = {"allocations": "<allocations><queue name='a'><queue name='b'>"
                "<maxResources>50%</maxResources></queue></queue>"
                "<queuePlacementPolicy><rule name='reject'/></queuePlacementPolicy>"
                "</allocations>",
                "site": {"yarn.resource-types": "yarn.io/gpu"},
                "steps": [{"move": {"app": "x", "queue": "root.a"}},
                          {"request": {"app": "x", "requests": [{"locality": "/r1"}]}}]}
    assert features(scenario) >= {"depth-2", "maxResources-percent", "rule-reject", "gpu",
                                  "move-to-non-leaf", "locality-rack", "no-assignmultiple"}


# -- the generator's model of placement ------------------------------------------------------------

def _world(rules: list[Rule] | None) -> World:
    from oracle.allocation_gen import Allocations, Queue
    root = Queue("root", "fair", [Queue("root.a", "fair"), Queue("root.p", "fair", [
        Queue("root.p.x", "fair")])])
    return World(random.Random(0), Allocations(root, "fair", {}, rules, False), gpu=False,
                 one_node=True, hash_order=False, kill_wait_ms=0)


def test_placement_as_yarn_decides() -> None:
    world = _world(None)  # YARN's own: specified, then user, both creating queues
    assert world.place("a", "bob") == "root.a"
    assert world.place("default", "bob") == "root.bob"
    assert world.place("root.p", "bob") == UNKNOWN  # a parent: not followed up
    world = _world([Rule("specified", create=False), Rule("primaryGroup", create=False),
                    Rule("default", queue="root.p.x")])
    assert world.place("newq", "alice") == "root.p.x"  # eng does not exist: on to default
    assert world.place("newq", "dave") is None  # no groups: rejected
    world = _world([Rule("user", create=True), Rule("reject")])
    assert world.place("a", "carol") == "root.carol"
    assert world.place("a", "carol") == "root.carol"  # created: still placed there


# -- shrinking ---------------------------------------------------------------------------------

def _kinds(scenario: dict[str, Any]) -> set[str]:
    return {kind for step in scenario["steps"] for kind in step}


def test_shrink_keeps_what_the_predicate_needs_and_little_else() -> None:
    seed = next(s for s in range(100) if {"move", "reload"} <= _kinds(generate(s)))
    big = generate(seed)
    small = shrink(big, lambda s: {"move", "reload"} <= _kinds(s))
    assert {"move", "reload"} <= _kinds(small)
    assert len(small["steps"]) <= 4 < len(big["steps"])
    assert len(yaml.safe_dump(small)) < len(yaml.safe_dump(big)) / 3
    assert fairshare_accepts(small)
    assert big == generate(seed)  # the input is left alone


def test_shrink_on_a_behaviour_keeps_the_behaviour() -> None:
    def preempts(scenario: dict[str, Any]) -> bool:
        return any(e["type"] == "container-preempted"
                   for e in run_in_fairshare(scenario).records)

    big = next(generate(s) for s in range(20) if preempts(generate(s)))
    small = shrink(big, preempts)
    assert preempts(small) and len(small["steps"]) < len(big["steps"]) / 2


def test_shrink_returns_a_scenario_that_does_not_fail_unchanged() -> None:
    scenario = generate(3)
    assert shrink(scenario, lambda s: False) == scenario


def test_repair_drops_the_steps_of_what_is_gone() -> None:
    scenario = {"cluster": {"nodes": [{"name": "n1", "memory-mb": 1024, "vcores": 1}]},
                "steps": [{"request": {"app": "a", "requests": []}},
                          {"submit": {"app": "a"}}, {"submit": {"app": "a"}},
                          {"finish": {"app": "a"}}, {"kill": {"app": "a"}},
                          {"heartbeat": {"node": "n2"}}, {"heartbeat": {"node": "*"}},
                          {"add-node": {"name": "n1"}}, {"remove-node": {"name": "n1"}},
                          {"resize-node": {"name": "n1"}}]}
    assert repair(scenario)["steps"] == [
        {"submit": {"app": "a"}}, {"finish": {"app": "a"}}, {"heartbeat": {"node": "*"}},
        {"remove-node": {"name": "n1"}}]

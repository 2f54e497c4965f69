"""Seeded random scenarios for the differential oracle, and shrinking a failing one.

``generate(seed)`` returns a scenario as a plain dict (``yaml.safe_dump`` writes it as a valid
fairshare scenario): version 1, a site, an inline allocation file, nodes, groups and **steps
only** — the oracle compares decisions step by step, so there is no workload. ``shrink``
minimises a scenario for which a predicate holds.

**Why a seeded ``random.Random`` and a hand-written minimiser rather than hypothesis.** A
scenario is only valid with respect to its own history (no step on an app that ended, no node
added twice, a queue that placement really creates), so every draw depends on a model of the
run so far: that is a loop over a mutable world, natural with ``random.Random`` and awkward as
composed strategies. The oracle also needs a scenario *per integer* (``--seed``, 10,000 of
them, reproducible from a report line), and a shrinker that knows the structure — drop a step
and what depends on it, drop a queue no step names, lower a count — which keeps every
candidate valid; hypothesis's generic shrinking would mostly produce invalid candidates.

**Coverage** (issue 19, point 3): queue trees up to depth 3 with weights, min/max shares
(absolute and percentage), fair/drf/fifo as YARN allows them, maxRunningApps, maxAMShare,
maxChildResources, per-queue preemption settings, ``allowPreemptionFrom`` false, placement
rules (:mod:`oracle.allocation_gen`); a custom ``yarn.io/gpu`` type; nodes on racks, added,
removed and resized; managed and unmanaged apps; requests at hosts, racks and ANY, with
relax-locality false; heartbeats with and without assignmultiple and max.assign; update
passes; advances past the preemption timeouts and ``waitTimeBeforeKill``; releases, finishes,
kills, moves (accepted and refused), reloads (accepted, refused, partly applied by YARN);
snapshots every few steps and at the end. 70 % of the scenarios are built to preempt (over a
third do): a cluster filled by one queue, a starved app in another, the clock moved past the
preemption timeout, then past the kill wait.

**Hash order** (docs/fidelity.md). Configured queues, a node's containers in the victim
search and the victims' apps need no care: fairshare emulates YARN's hash orders for them.
Where it does not, ``generate(seed)`` avoids depending on the order: a scenario with
preemption on runs on one node (the nodes searched for victims of an ANY request), and each
app asks for one size, its AM included, at any node (the requests of a starved app, walked in
the hash order of its scheduler keys and places). ``generate(seed, hash_order=True)`` drops
these restrictions, so both kinds can be measured.
"""

from __future__ import annotations

import random
import sys
from typing import Any

import yaml

from oracle.allocation_gen import allocations_xml, random_allocations
from oracle.scenario_world import World
from oracle.shrinking import shrink

__all__ = ["generate", "scenario_yaml", "shrink"]

MAX_STEPS = 60


def generate(seed: int, *, hash_order: bool = False) -> dict[str, Any]:
    """The scenario of this seed (the same dict on every machine and Python version)."""
    rng = random.Random(f"fairshare-oracle:{seed}:{'hash' if hash_order else 'plain'}")
    gpu = rng.random() < 0.2
    preempting = rng.random() < 0.7  # built to preempt; preemption may be on without it
    alloc = random_allocations(rng, gpu, preempting)
    site = _site(rng, gpu, preempting)
    first_file = allocations_xml(alloc)
    preemption = bool(site.get("yarn.scheduler.fair.preemption"))
    world = World(rng, alloc, gpu=gpu, one_node=preemption and not hash_order,
                  hash_order=hash_order,
                  kill_wait_ms=int(site.get("yarn.scheduler.fair.waitTimeBeforeKill", 15000)),
                  user_as_default=site.get("yarn.scheduler.fair.user-as-default-queue", True),
                  min_mb=site.get("yarn.scheduler.minimum-allocation-mb", 1024))
    nodes = world.initial_nodes()
    world.fill()
    world.reserve = 3 if preempting else 0
    for _ in range(rng.randint(2, 12)):
        world.random_step()
    world.reserve = 0
    if preempting:
        world.starve()
        if rng.random() < 0.4:  # again, after a few more steps
            for _ in range(rng.randint(1, 5)):
                world.random_step()
            world.starve()
    for _ in range(rng.randint(2, 30)):
        world.random_step()
    steps = world.steps[:MAX_STEPS - 1]
    steps.append({"snapshot": {"label": "end"}})
    return {"version": 1, "name": f"oracle scenario {seed}" + (" (hash order)" if hash_order
                                                                 else ""),
            "site": site, "allocations": first_file, "cluster": {"nodes": nodes},
            "groups": {user: list(groups) for user, groups in world.groups.items()},
            "steps": steps}


def _site(rng: random.Random, gpu: bool, preempting: bool) -> dict[str, Any]:
    site: dict[str, Any] = {}
    if preempting or rng.random() < 0.3:
        site["yarn.scheduler.fair.preemption"] = True
        site["yarn.scheduler.fair.waitTimeBeforeKill"] = rng.choice([0, 500, 1000, 3000])
        if rng.random() < 0.6:
            site["yarn.scheduler.fair.preemption.cluster-utilization-threshold"] = rng.choice(
                [0.0, 0.3, 0.5, 0.8])
    if rng.random() < 0.5:
        site["yarn.scheduler.fair.assignmultiple"] = True
        if rng.random() < 0.5:
            site["yarn.scheduler.fair.dynamic.max.assign"] = False
            site["yarn.scheduler.fair.max.assign"] = rng.choice([-1, 2, 3])
    if gpu:
        site["yarn.resource-types"] = "yarn.io/gpu"
    if rng.random() < (0.85 if preempting else 0.3):  # 512 MB stays 512 MB (default: 1024)
        site["yarn.scheduler.minimum-allocation-mb"] = 512
        site["yarn.scheduler.increment-allocation-mb"] = 512
    if rng.random() < 0.15:
        site["yarn.scheduler.fair.locality.threshold.node"] = rng.choice([0.5, 1.0])
        site["yarn.scheduler.fair.locality.threshold.rack"] = rng.choice([0.5, 1.0])
    if rng.random() < 0.1:
        site["yarn.scheduler.fair.user-as-default-queue"] = False
    return site


class _Dumper(yaml.SafeDumper):
    """Multi-line text (the allocation files) as literal blocks, as a person writes them."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def scenario_yaml(scenario: dict[str, Any]) -> str:
    """The scenario as a readable file (``fairshare run`` reads it back as the same dict)."""
    return yaml.dump(scenario, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)


if __name__ == "__main__":  # python -m oracle.generate SEED [--hash-order]
    print(scenario_yaml(generate(int(sys.argv[1]), hash_order="--hash-order" in sys.argv)),
          end="")

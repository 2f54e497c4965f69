"""A live session forgets its ended apps (``Simulation.forget``, ``Engine.forget``;
docs/semantics.md §3.9): with hundreds of apps and preemption all along, forgetting every
ended app as soon as the engine lets it gives the events of a run that forgets nothing, and
what the engine, its caches and the app model hold stays in proportion to the apps still held,
not to the apps ever run."""

from __future__ import annotations

import random
from typing import Any

from fairshare.core import Engine
from fairshare.sim.run.loop import Simulation
from fairshare.sim.sources.workload import AppSpec, TaskGroup
from tests.core.engine_builders import GB, PREEMPTION_ON, make_engine, r, records

QUEUES = ("<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>"
          "<defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>"
          "<queue name='a'/><queue name='b'/><queue name='c'><weight>2</weight></queue>")
SITE = {**PREEMPTION_ON, "yarn.scheduler.fair.waitTimeBeforeKill": "2000"}
APPS = 800
END_MS = 3_600_000


def _workload(seed: int) -> list[AppSpec]:
    rng = random.Random(seed)
    return [AppSpec(f"app_{i:04d}", i * 3_000 + rng.randrange(3_000), rng.choice("abc"),
                    rng.choice(["ann", "bob"]), r(GB) if rng.random() < 0.8 else None,
                    (TaskGroup(rng.randint(1, 8), r(GB), rng.randint(3, 30) * 1_000),))
            for i in range(APPS)]


def _engine() -> Engine:
    return make_engine(QUEUES, site=SITE, nodes=[(f"n{i}", 8 * GB, 8) for i in range(4)])


def _caches(engine: Engine) -> dict[str, int]:
    """The engine's own per-app caches (its internals, read here only to bound them)."""
    memory: Any = engine._steps.round_planner.keywords["memory"]  # type: ignore[attr-defined]
    quiet = getattr(engine, "_quiet", None)
    demand: Any = engine._steps.update_pass.demand
    return {"owner views": len(memory.owner_views),
            "earmarked": 0 if quiet is None else len(quiet.earmarked_by_app),
            "demands summed": len(demand._summed)}


def test_forgetting_every_ended_app_decides_nothing_and_holds_only_what_is_live() -> None:
    kept, forgetting = _engine(), _engine()
    whole = Simulation(kept, _workload(7))
    live = Simulation(forgetting, _workload(7))
    held_most, caches_most = 0, dict.fromkeys(_caches(forgetting), 0)
    refused = forgotten = 0
    for until in range(1_000, END_MS + 1, 1_000):
        whole.run_live(until)
        live.run_live(until)
        for app in [a for a in forgetting.state.apps.values() if a.stopped]:
            if live.forget(app.id):
                forgotten += 1
            else:
                refused += 1  # named by a kill timer, an earmark or the starved queue
        held_most = max(held_most, len(forgetting.state.apps))
        for name, size in _caches(forgetting).items():
            caches_most[name] = max(caches_most[name], size)
    assert records(forgetting) == records(kept)
    assert forgotten == APPS and refused > 0
    assert sum(1 for e in records(kept) if e["type"] == "container-preempted") > 100
    assert len(kept.state.apps) == APPS and len(forgetting.state.apps) == len(live.apps) == 0
    # a cache is pruned to the apps held once it is over twice them and 64, and between two
    # prunings gains entries of held apps only: never more than 3 × the most held + 64 (where
    # the run that forgets nothing keeps a view of every owner it ever looked at)
    bound = 3 * held_most + 64
    assert all(most <= bound for most in caches_most.values()), (caches_most, bound)
    whole_caches = _caches(kept)
    assert whole_caches["owner views"] > bound and whole_caches["demands summed"] == APPS

"""Preemption rounds over simulated time: the engine's planner against the reference one.

Rounds keep what they learnt about nodes (their candidates and the bounds on what they can
free) and owners from one round to the next while nothing those were built from changed
(preemption/search.py). Over a simulated workload — allocations, completions, kills, new
apps, fair shares moving between rounds — every decision must be the one fresh reference rounds
(``tests/oracles/preemption.py``) make: the same events, the same state.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from fairshare.core.engine import Engine
from fairshare.core.model.event_records import event_record
from fairshare.sim.record.snapshot import snapshot
from fairshare.sim.run.loop import Simulation
from fairshare.sim.sources.workload import AppSpec, TaskGroup
from tests.core.engine_builders import GB, make_engine, r


def contended(seed: int, reference: bool) -> tuple[Engine, list[AppSpec]]:
    """Several nodes, queues that take turns being starved, tasks long enough to be preempted."""
    rng = random.Random(seed)
    queues = ["a", "b", "c", "d"][: rng.randint(2, 4)]
    body = ("<defaultFairSharePreemptionTimeout>2</defaultFairSharePreemptionTimeout>"
            f"<defaultFairSharePreemptionThreshold>{rng.choice(['0.5', '0.8', '1.0'])}"
            "</defaultFairSharePreemptionThreshold>")
    for name in queues:
        extra = f"<weight>{rng.choice([1, 2, 3])}</weight>"
        if rng.random() < 0.3:
            extra += "<minResources>4096 mb, 4 vcores</minResources>" \
                     "<minSharePreemptionTimeout>1</minSharePreemptionTimeout>"
        if rng.random() < 0.2:
            extra += "<allowPreemptionFrom>false</allowPreemptionFrom>"
        if rng.random() < 0.3:
            extra += "<schedulingPolicy>drf</schedulingPolicy>"
        body += f"<queue name='{name}'>{extra}</queue>"
    site = {"yarn.scheduler.fair.preemption": "true",
            "yarn.scheduler.fair.preemption.cluster-utilization-threshold": "0",
            "yarn.scheduler.fair.waitTimeBeforeKill": rng.choice(["1000", "3000", "3000"]),
            "yarn.scheduler.fair.amPreemption": rng.choice(["true", "false"])}
    nodes = [(f"n{i}", rng.choice([4, 8]) * GB, rng.choice([4, 8]))
             for i in range(rng.randint(3, 10))]
    engine = make_engine(body, site=site, nodes=nodes, reference_preemption=reference)
    apps = []
    for i in range(rng.randint(3, 12)):
        groups = tuple(TaskGroup(rng.randint(2, 12), r(rng.choice([1, 2, 3]) * GB, 1),
                                 rng.randint(5, 60) * 1000, priority=rng.choice([10, 20]))
                       for _ in range(rng.randint(1, 2)))
        am = None if rng.random() < 0.2 else r(GB, 1)
        apps.append(AppSpec(f"app{i}", rng.randint(0, 60) * 1000, f"root.{rng.choice(queues)}",
                            f"u{i % 3}", am, groups))
    return engine, apps


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_rounds_that_keep_what_they_learnt_decide_as_fresh_reference_rounds(seed: int) -> None:
    runs = []
    for reference in (True, False):
        engine, apps = contended(seed, reference)
        sim = Simulation(engine, apps)
        states = []
        for until in (20_000, 60_000, 120_000):
            sim.run(until)
            states.append(snapshot(engine))
        runs.append(([event_record(e, engine.types) for e in engine.events], states))
    assert runs[1] == runs[0]


def test_the_workloads_do_preempt() -> None:
    """The comparison above means something only if rounds warn and kill across many rounds."""
    warned = kills = 0
    for seed in range(10):
        engine, apps = contended(seed, False)
        Simulation(engine, apps).run(120_000)
        types = [e.type for e in engine.events]
        warned += types.count("preemption-warned")
        kills += types.count("container-preempted")
    assert warned >= 20 and kills >= 10

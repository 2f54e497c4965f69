"""The event-driven loop (quiet heartbeats skipped) against the plain fixed-interval loop.

Random small workloads — a few nodes and queues, managed and unmanaged apps, max shares, min
shares, fifo/drf leaves, maxAMShare and maxRunningApps limits, assignmultiple, preemption — run
through both loops on identical engines. Every event must be the same, and so must the whole
state (the MaxAMShare gauges included) at every checkpoint. A third run checks each skipped
heartbeat by running it and asserting that it changed nothing.
"""

from __future__ import annotations

import random
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from fairshare.config.overrides import parse_override
from fairshare.core.engine import Engine
from fairshare.core.model.event_records import event_record
from fairshare.sim.parse.specs import NodeSpec
from fairshare.sim.parse.timed_spec import (
    AddNodeChange,
    ChangeSpec,
    DecommissionChange,
    ReloadChange,
    RemoveNodeChange,
)
from fairshare.sim.record.snapshot import snapshot
from fairshare.sim.run.loop import Simulation
from fairshare.sim.run.timed import TimedRun, timed_changes
from fairshare.sim.sources.workload import AppSpec, TaskGroup
from tests.core.engine_builders import GB, allocations_xml, make_engine, r, same

QUEUES = ("a", "b", "c", "d")


def allocations(rng: random.Random) -> str:
    parts = [f"<defaultFairSharePreemptionTimeout>{rng.choice([1, 2, 5])}"
             "</defaultFairSharePreemptionTimeout>",
             f"<defaultFairSharePreemptionThreshold>{rng.choice(['0.5', '0.8', '1.0'])}"
             "</defaultFairSharePreemptionThreshold>"]
    for name in QUEUES[: rng.randint(2, 4)]:
        body = f"<weight>{rng.choice([1, 2, 3])}</weight>"
        if rng.random() < 0.3:
            body += f"<schedulingPolicy>{rng.choice(['fifo', 'drf'])}</schedulingPolicy>"
        if rng.random() < 0.3:
            body += f"<minResources>{rng.choice([2, 4]) * GB} mb, 2 vcores</minResources>" \
                    "<minSharePreemptionTimeout>1</minSharePreemptionTimeout>"
        if rng.random() < 0.25:
            body += f"<maxResources>{rng.choice([3, 6]) * GB} mb, 6 vcores</maxResources>"
        if rng.random() < 0.2:
            body += f"<maxAMShare>{rng.choice(['0.1', '0.3'])}</maxAMShare>"
        if rng.random() < 0.2:
            body += "<maxRunningApps>1</maxRunningApps>"
        if rng.random() < 0.2:
            body += "<allowPreemptionFrom>false</allowPreemptionFrom>"
        parts.append(f"<queue name='{name}'>{body}</queue>")
    return "".join(parts)


def engine_for(seed: int, *, timed: bool = False
               ) -> tuple[Engine, list[AppSpec], TimedRun | None]:
    """A random engine and workload; with ``timed``, random timed changes too (drawn after
    the rest, so a seed gives the same workload either way)."""
    rng = random.Random(seed)
    body = allocations(rng)
    site = {
        "yarn.scheduler.fair.preemption": rng.choice(["true", "true", "false"]),
        "yarn.scheduler.fair.preemption.cluster-utilization-threshold":
            rng.choice(["0", "0.5", "0.8"]),
        "yarn.scheduler.fair.assignmultiple": rng.choice(["true", "false"]),
        "yarn.scheduler.fair.waitTimeBeforeKill": rng.choice(["0", "1000", "3000"]),
        "yarn.scheduler.fair.reservable-nodes": rng.choice(["0.05", "0.5", "1.0"]),
    }
    nodes = [(f"n{i}", rng.choice([2, 4, 8]) * GB, rng.choice([2, 4, 8]))
             for i in range(rng.randint(1, 5))]
    engine = make_engine(body, site=site, nodes=nodes)
    queues = [f"root.{q}" for q in QUEUES[: body.count("<queue ")]]
    apps = []
    for i in range(rng.randint(1, 8)):
        groups = tuple(TaskGroup(rng.randint(1, 6), r(rng.choice([1, 2, 3]) * GB,
                                                      rng.choice([1, 2])),
                                 rng.randint(1, 30) * 1000, priority=rng.choice([10, 20]))
                       for _ in range(rng.randint(1, 2)))
        am = None if rng.random() < 0.25 else r(rng.choice([1, 2]) * GB, 1)
        apps.append(AppSpec(f"app{i}", rng.randint(0, 20) * 500 + rng.choice([0, 250]),
                            rng.choice(queues), f"u{rng.randint(1, 2)}", am, groups))
    if not timed:
        return engine, apps, None
    specs = random_changes(rng, queues, [name for name, _, _ in nodes])
    run = timed_changes(specs, "test", (allocations_xml(body), None), (), engine.types)
    return engine, apps, run


def random_changes(rng: random.Random, queues: list[str], nodes: list[str]
                   ) -> list[ChangeSpec]:
    """Reloads of weights and max shares, nodes added, lost and decommissioned."""
    specs: list[ChangeSpec] = []
    at, live, added = 0, list(nodes), 0
    for _ in range(rng.randint(1, 5)):
        at += rng.choice([0, 250, 1000, 3000, 7000])
        kind = rng.choice(["reload", "reload", "add", "remove", "decommission"])
        if kind == "reload":
            queue = rng.choice(queues)
            setting = rng.choice([f"weight={rng.choice([1, 2, 5])}",
                                  f"maxResources={rng.choice([2, 6]) * GB} mb, 4 vcores"])
            specs.append(ReloadChange(at_ms=at, line=0, overrides=(
                parse_override(f"alloc:{queue}.{setting}"),)))
        elif kind == "add" or len(live) < 2:
            added += 1
            node = NodeSpec(f"m{added}", "/default-rack",
                            {"memory-mb": rng.choice([2, 4]) * GB, "vcores": 4})
            live.append(node.name)
            specs.append(AddNodeChange(at_ms=at, line=0, node=node))
        elif kind == "remove":
            name = rng.choice(live)
            live.remove(name)
            specs.append(RemoveNodeChange(at_ms=at, line=0, name=name))
        else:
            specs.append(DecommissionChange(at_ms=at, line=0, name=rng.choice(live),
                                            timeout_ms=rng.choice([None, 2000, 20_000])))
    return specs


def comparable(engine: Engine) -> dict[str, Any]:
    return snapshot(engine)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
@example(246191)  # an AM served by an earmark asks for tasks the next heartbeat serves
def test_event_driven_loop_equals_the_fixed_interval_loop(seed: int) -> None:
    assert_loops_agree(seed, timed=False)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_event_driven_loop_equals_the_fixed_interval_loop_with_timed_changes(seed: int) -> None:
    assert_loops_agree(seed, timed=True)


def assert_loops_agree(seed: int, *, timed: bool) -> None:
    runs = []
    for event_driven in (False, True):
        engine, apps, changes = engine_for(seed, timed=timed)
        sim = Simulation(engine, apps, event_driven=event_driven,
                         changes=changes.changes if changes is not None else ())
        checkpoints = []
        for until in (5_000, 20_000, 45_000, 90_000):
            sim.run(until)
            checkpoints.append(comparable(engine))
        progress = {a: (p.submitted_ms, p.started_ms, p.finished_ms, p.tasks_done,
                        p.preempted_containers, p.lost_work_ms) for a, p in sim.apps.items()}
        runs.append(([event_record(e, engine.types) for e in engine.events], checkpoints,
                     progress, sim))
    (fixed_events, fixed_states, fixed_progress, _), (events, states, progress, sim) = runs
    assert same(events, fixed_events)  # NaN utilization once every node has left
    assert states == fixed_states or repr(states) == repr(fixed_states)
    assert progress == fixed_progress
    assert sim.tick.skip_quiet and not engine.site.delay_scheduling_enabled  # it did skip


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_every_skipped_heartbeat_is_quiet(seed: int) -> None:
    """Verify mode runs the heartbeats the loop would skip and fails if one did anything."""
    engine, apps, changes = engine_for(seed, timed=seed % 2 == 1)
    Simulation(engine, apps, verify_skips=True,
               changes=changes.changes if changes is not None else ()).run(90_000)


def test_a_quiet_cluster_skips_almost_every_heartbeat() -> None:
    """Fifty idle nodes, one small app: after it finished, no heartbeat needs to run; while it
    ran, only the nodes its containers were on. The events match the fixed loop's."""
    nodes = [(f"n{i:02d}", 8 * GB, 8) for i in range(50)]
    apps = [AppSpec("a1", 0, "root.default", "u", r(GB, 1), (TaskGroup(3, r(GB, 1), 5000),))]
    streams = []
    for event_driven in (False, True):
        engine = make_engine(nodes=nodes)
        sim = Simulation(engine, apps, event_driven=event_driven)
        sim.run(60_000)
        streams.append([event_record(e, engine.types) for e in engine.events])
    assert streams[0] == streams[1]
    total = 50 * 60  # heartbeats in 60 s
    assert engine.heartbeats_run < total // 10
    assert engine.heartbeats_skipped + engine.heartbeats_run == total

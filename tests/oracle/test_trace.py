"""A workload traced into steps (oracle.trace) must be a complete record of the simulation:
replaying the steps on a fresh engine, call by call, gives the same events, step by step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fairshare.config.allocation import parse_allocations_text
from fairshare.core.engine import Engine
from fairshare.core.lifecycle.asks import ContainerRequest
from fairshare.core.model.event_records import event_record
from fairshare.sim.parse.scenario import load_scenario, parse_scenario_text
from fairshare.sim.record.snapshot import snapshot
from fairshare.sim.run.build import build_engine
from oracle.normalise import NotComparable
from oracle.trace import trace_workload

ROOT = Path(__file__).resolve().parents[2]


def replay(engine: Engine, step: dict[str, Any]) -> None:
    """The engine call each step stands for: written from the driver's contract, not from
    oracle.trace, so that a call the recorder missed or misread shows as a difference."""
    types = engine.types

    def requests(items: list[dict[str, Any]]) -> list[ContainerRequest]:
        return [ContainerRequest(r["count"], types.of(r["resources"]), r["priority"],
                                 r["locality"], r["relax-locality"]) for r in items]

    kind = step["step"]
    if kind == "submit":
        am = None if step["am"] is None else types.of(step["am"])
        engine.submit(step["app"], step["queue"], step["user"], am, requests(step["requests"]))
    elif kind == "request":
        engine.request(step["app"], requests(step["requests"]))
    elif kind == "update":
        engine.update()
    elif kind == "heartbeat":
        for _ in range(step["times"]):
            engine.heartbeat(step["node"])
    elif kind == "advance":
        engine.advance(step["ms"])
    elif kind == "release-container":
        engine.complete_container(step["app"], step["container"])
    elif kind == "finish":
        engine.finish(step["app"])
    elif kind == "add-node":
        engine.add_node(step["name"], types.of(step["resources"]), step["rack"])
    elif kind == "remove-node":
        engine.remove_node(step["name"])
    elif kind == "reload":
        engine.reload(parse_allocations_text(step["allocations"], "reload", types), "reload")
    else:
        assert kind == "snapshot", kind


def replayed(scenario_path: Path) -> tuple[Any, list[dict[str, Any]], Engine]:
    """The trace of a workload, and the events and engine of its steps replayed."""
    scenario = load_scenario(scenario_path)
    trace = trace_workload(scenario)
    engine = build_engine(scenario)
    got = [{**event_record(e, engine.types), "step": -1} for e in engine.events]
    engine.events.clear()
    for index, step in enumerate(trace.steps):
        replay(engine, step)
        got += [{**event_record(e, engine.types), "step": index} for e in engine.events]
        engine.events.clear()
    return trace, got, engine


@pytest.mark.parametrize("example", ["csv-workload/scenario.yaml", "sls-trace/scenario.yaml",
                                     "synth-workload/scenario.yaml"])
def test_replaying_the_traced_steps_gives_the_same_events(example: str) -> None:
    trace, got, engine = replayed(ROOT / "examples" / example)
    assert trace.stopped is None
    assert len(trace.steps) > 100 and len(got) > 50
    assert got == trace.records
    assert trace.steps[-1]["step"] == "snapshot"
    assert trace.snapshots == [snapshot(engine, "end")]


def test_a_workload_is_traced_up_to_a_call_the_driver_does_not_replay() -> None:
    # examples/timed-changes sets root.etl's weight to 3 at 10 minutes (--set style, given to
    # the driver as the file YARN would read) and decommissions n4 at 20 minutes
    trace, got, engine = replayed(ROOT / "examples" / "timed-changes" / "scenario.yaml")
    [reload] = [step for step in trace.steps if step["step"] == "reload"]
    assert '<queue name="etl"><weight>3</weight></queue>' in reload["allocations"]
    assert engine.s.tree["root.etl"].settings.weight == 3.0
    assert trace.stopped == ("the engine's decommission node, which the driver does not "
                             "replay, at 1,200,000 ms")
    assert engine.now == 1_200_000

    def unnamed(records: list[dict[str, Any]]) -> list[dict[str, Any]]:  # the file's name
        return [{k: v for k, v in r.items() if k != "source"} for r in records]
    assert len(trace.steps) > 100 and unnamed(got) == unnamed(trace.records)
    assert trace.steps[-1] == {"step": "snapshot", "line": 0, "label": "end"}
    assert trace.snapshots == [snapshot(engine, "end")]


def test_a_workload_with_steps_is_not_traced() -> None:
    text = """\
version: 1
cluster: {nodes: [{name: n1, memory-mb: 4096, vcores: 4}]}
steps: [update]
workload:
  apps: [{id: w, tasks: [{duration-ms: 5}]}]
"""
    with pytest.raises(NotComparable, match="both steps and a workload"):
        trace_workload(parse_scenario_text(text, "s.yaml", Path(".")))

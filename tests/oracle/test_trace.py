"""A workload traced into steps (oracle.trace) must be a complete record of the simulation:
replaying the steps on a fresh engine, call by call, gives the same events, step by step."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fairshare.core.asks import ContainerRequest
from fairshare.core.engine import Engine
from fairshare.core.events import event_record
from fairshare.sim.scenario import load_scenario, parse_scenario_text
from fairshare.sim.scripted import build_engine
from fairshare.sim.snapshot import snapshot
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
    else:
        assert kind == "snapshot", kind


@pytest.mark.parametrize("example", ["csv-workload/scenario.yaml", "sls-trace/scenario.yaml",
                                     "synth-workload/scenario.yaml"])
def test_replaying_the_traced_steps_gives_the_same_events(example: str) -> None:
    scenario = load_scenario(ROOT / "examples" / example)
    trace = trace_workload(scenario)
    engine = build_engine(scenario)
    got = [{**event_record(e, engine.types), "step": -1} for e in engine.events]
    engine.events.clear()
    for index, step in enumerate(trace.steps):
        replay(engine, step)
        got += [{**event_record(e, engine.types), "step": index} for e in engine.events]
        engine.events.clear()
    assert len(trace.steps) > 100 and len(got) > 50
    assert got == trace.records
    assert trace.steps[-1]["step"] == "snapshot"
    assert trace.snapshots == [snapshot(engine, "end")]


def test_a_workload_with_steps_or_reloads_is_not_traced() -> None:
    text = """\
version: 1
cluster: {nodes: [{name: n1, memory-mb: 4096, vcores: 4}]}
steps: [update]
workload:
  apps: [{id: w, tasks: [{duration-ms: 5}]}]
"""
    with pytest.raises(NotComparable, match="both steps and a workload"):
        trace_workload(parse_scenario_text(text, "s.yaml", Path(".")))
    with pytest.raises(NotComparable, match="reload"):
        trace_workload(load_scenario(ROOT / "examples" / "timed-changes" / "scenario.yaml"))

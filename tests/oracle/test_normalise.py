"""The driver's input (oracle.normalise) and how a case is prepared (oracle.cases): no JDK."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest

from fairshare.sim.parse.scenario import parse_scenario_text
from fairshare.sim.parse.steps import Step
from oracle.cases import Case, file_cases, prepare, step_of
from oracle.normalise import _STEPS, NotComparable, normalise

SCENARIO = """\
version: 1
site:
  yarn.scheduler.fair.preemption: true
  yarn.scheduler.fair.assignmultiple: "false"
allocations: |
  <allocations><queue name="a"/><queue name="b"/></allocations>
groups:
  alice: [etl, analysts]
cluster:
  nodes:
    - {count: 2, prefix: w, rack: /r1, memory-mb: 4096, vcores: 4}
steps:
  - submit: {app: x, queue: a, user: alice, am: {memory-mb: 2048},
             requests: [{locality: w1, relax-locality: false}]}
  - update
  - heartbeat: {node: '*', times: 2}
  - snapshot: {label: one}
  - advance: {ms: 10}
  - release: {app: x, which: am}
  - expect: {app: x}
"""


def scenario(text: str = SCENARIO) -> typing.Any:
    return parse_scenario_text(text, "s.yaml", Path("."))


def test_everything_is_resolved_for_the_driver() -> None:
    doc = normalise(scenario())
    assert doc["nodes"] == [
        {"name": "w1", "rack": "/r1", "resources": {"memory-mb": 4096, "vcores": 4}},
        {"name": "w2", "rack": "/r1", "resources": {"memory-mb": 4096, "vcores": 4}}]
    # the site as Hadoop's Configuration holds it: text, booleans as "true"
    assert doc["site"]["yarn.scheduler.fair.preemption"] == "true"
    assert doc["site"]["yarn.scheduler.fair.assignmultiple"] == "false"
    assert doc["allocations"].startswith("<allocations>")
    assert doc["groups"] == {"alice": ["etl", "analysts"]}
    submit = doc["steps"][0]
    # the documented defaults: vcores 1 for the AM; a request of 1 × 1024 MB, 1 vcore at
    # priority 1 (docs/scenario-format.md, "Requests and locality")
    assert submit == {"step": "submit", "line": 13, "app": "x", "queue": "a", "user": "alice",
                      "am": {"memory-mb": 2048, "vcores": 1}, "recovering": False,
                      "requests": [{"count": 1, "resources": {"memory-mb": 1024, "vcores": 1},
                                    "priority": 1, "locality": "w1",
                                    "relax-locality": False}]}
    assert [s["step"] for s in doc["steps"]] == [
        "submit", "update", "heartbeat", "snapshot", "advance", "release", "expect"]
    assert doc["steps"][2] == {"step": "heartbeat", "line": 16, "node": "*", "times": 2}
    assert doc["steps"][5] == {"step": "release", "line": 19, "app": "x", "count": 1,
                               "which": "am"}
    json.dumps(doc)  # plain data


def test_every_step_kind_is_replayed_or_refused_with_a_reason() -> None:
    assert set(typing.get_args(Step)) == set(_STEPS)


def test_what_the_driver_cannot_replay_is_refused() -> None:
    workload = SCENARIO.split("steps:")[0] + (
        "workload:\n  apps:\n    - {id: w, tasks: [{duration-ms: 5}]}\n")
    with pytest.raises(NotComparable, match="workload"):
        normalise(scenario(workload))
    recover = SCENARIO.replace("  - update\n", "  - recover-container: {app: x, node: w1}\n")
    recover = recover.replace("am: {memory-mb: 2048},", "am: {memory-mb: 2048}, recovering: true,")
    with pytest.raises(NotComparable, match="line 15"):
        normalise(scenario(recover))


def test_a_reload_from_a_file_hands_the_driver_its_text(tmp_path: Path) -> None:
    (tmp_path / "new.xml").write_text("<allocations><queue name='c'/></allocations>")
    text = SCENARIO.replace("  - update\n", "  - reload: {allocations-file: new.xml}\n")
    doc = normalise(parse_scenario_text(text, "s.yaml", tmp_path))
    assert doc["steps"][1] == {"step": "reload", "line": 15,
                               "allocations": "<allocations><queue name='c'/></allocations>"}


def test_step_of_maps_records_to_the_step_that_wrote_them() -> None:
    bounds = [2, 5, 5, 9]  # 2 records before the steps; step 1 wrote none
    assert [step_of(i, bounds) for i in range(9)] == [-1, -1, 0, 0, 0, 2, 2, 2, 2]


def test_prepare_writes_both_inputs_and_fairshares_run(tmp_path: Path) -> None:
    source = tmp_path / "s.yaml"
    source.write_text(SCENARIO)
    prepared = prepare(Case("s", "test", path=source), tmp_path / "case")
    assert (prepared.status, prepared.steps) == ("ready", 7)
    events = [json.loads(line) for line in
              (tmp_path / "case" / "fairshare" / "events.jsonl").read_text().splitlines()]
    by_type = {(e["type"], e["step"]) for e in events}
    assert ("node-added", -1) in by_type  # the initial nodes come before any step
    assert ("app-submitted", 0) in by_type
    assert ("container-allocated", 2) in by_type  # the heartbeats are step 2
    assert all(e["step"] != 1 or e["type"] not in ("container-allocated",) for e in events)
    snapshots = json.loads((tmp_path / "case" / "fairshare" / "snapshots.json").read_text())
    assert [s["label"] for s in snapshots] == ["one"]
    assert json.loads((tmp_path / "case" / "scenario.json").read_text())["name"] == "s"


def test_the_file_cases_are_the_scenarios_of_examples_and_tests() -> None:
    cases = list(file_cases())
    names = {c.name for c in cases}
    assert "example-am-spared-scenario" in names
    assert "test-scenarios-08-reservation-blocks-node" in names
    # fixtures that are not scenarios (workload files, allocation files) are not cases
    assert all(c.path is not None and c.path.suffix == ".yaml" for c in cases)
    assert not any("fair-scheduler" in n for n in names)

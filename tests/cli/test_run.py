"""``fairshare run``: the bundled examples, exit codes, outputs, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.sim.expect import SNAPSHOT_FIELDS

EXAMPLES = sorted(Path(__file__).resolve().parents[2].glob("examples/*/scenario.yaml"))
runner = CliRunner()

SCENARIO = """\
version: 1
site: {yarn.scheduler.fair.preemption: true}
allocations: |
  <allocations><queue name="a"/></allocations>
cluster:
  nodes: [{name: n1, memory-mb: 4096, vcores: 4}]
steps:
  - submit: {app: a1, queue: a, user: u, requests: [{count: 2}]}
  - update: {}
  - heartbeat: {node: n1}
  - expect: {app: a1, usage: {memory-mb: %d}}
  - snapshot: {label: end}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return path


def test_there_are_at_least_four_examples():
    names = {p.parent.name for p in EXAMPLES}
    assert {"seed-three-tenants", "min-share-split", "non-preemptable-queue",
            "am-spared"} <= names


@pytest.mark.parametrize("scenario", EXAMPLES, ids=lambda p: p.parent.name)
def test_every_example_runs_and_its_expectations_hold(scenario, tmp_path):
    result = runner.invoke(app, ["run", str(scenario), "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "events.jsonl").read_text().splitlines()
    assert all(json.loads(line)["type"] != "expect-failed" for line in lines)


def test_a_failed_expectation_exits_1_and_says_expected_versus_actual(tmp_path):
    result = runner.invoke(app, ["run", str(write(tmp_path, SCENARIO % 4096)),
                                 "-o", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "s.yaml:11: expect app a1: usage.memory-mb: expected 4096, got 1024" in result.output
    events = [json.loads(x) for x in (tmp_path / "out/events.jsonl").read_text().splitlines()]
    assert events[-1]["type"] == "expect-failed" and events[-1]["line"] == 11


def test_outputs_hold_events_and_snapshots(tmp_path):
    result = runner.invoke(app, ["run", str(write(tmp_path, SCENARIO % 1024)),
                                 "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    events = [json.loads(x) for x in (tmp_path / "out/events.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events][:3] == ["node-added", "app-submitted", "app-runnable"]
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)
    [snap] = json.loads((tmp_path / "out/snapshots.json").read_text())
    assert snap["label"] == "end"
    assert snap["apps"]["a1"]["usage"] == {"memory-mb": 1024, "vcores": 1}


def test_snapshots_carry_exactly_the_fields_expect_knows(tmp_path):
    runner.invoke(app, ["run", str(write(tmp_path, SCENARIO % 1024)), "-o", str(tmp_path)])
    [snap] = json.loads((tmp_path / "snapshots.json").read_text())
    assert set(snap["cluster"]) == set(SNAPSHOT_FIELDS["cluster"])
    for section in ("queues", "apps", "nodes"):
        for entry in snap[section].values():
            assert set(entry) == set(SNAPSHOT_FIELDS[section]), section


def test_identical_runs_write_identical_event_files(tmp_path):
    seed = next(p for p in EXAMPLES if p.parent.name == "seed-three-tenants")
    for out in ("one", "two"):
        assert runner.invoke(app, ["run", str(seed), "-o", str(tmp_path / out)]).exit_code == 0
    assert (tmp_path / "one/events.jsonl").read_bytes() == \
        (tmp_path / "two/events.jsonl").read_bytes()


@pytest.mark.parametrize(("text", "message"), [
    ("version: 2\n", "s.yaml:1: version"),
    (SCENARIO.replace("heartbeat: {node: n1}", "heartbeat: {node: n9}") % 1024,
     "s.yaml:10: unknown node n9"),
    (SCENARIO.replace("requests: [{count: 2}]", "requests: [{count: 2, yarn.io/gpu: 1}]")
     % 1024, "s.yaml:8: unknown resource type 'yarn.io/gpu'"),
    (SCENARIO.replace('<queue name="a"/>', '<queue name="a"><weight>x</weight></queue>') % 1024,
     "weight"),
], ids=["bad version", "unknown node in a step", "undeclared resource type", "bad allocations"])
def test_bad_scenarios_exit_2_with_file_and_line(tmp_path, text, message):
    result = runner.invoke(app, ["run", str(write(tmp_path, text))])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_broken_reload_keeps_the_old_configuration(tmp_path):
    text = (SCENARIO % 1024).replace(
        "  - snapshot: {label: end}\n",
        "  - reload: {allocations: '<allocations><queue name=\"a\"><weight>oops</weight>"
        "</queue></allocations>'}\n"
        "  - expect: {queue: root.a, weight: 1.0}\n")
    result = runner.invoke(app, ["run", str(write(tmp_path, text)), "-o", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    events = [json.loads(x) for x in (tmp_path / "o/events.jsonl").read_text().splitlines()]
    assert any(e["type"] == "config-error" and "weight" in e["message"] for e in events)

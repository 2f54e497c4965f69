"""The comparator on a real fairshare run against a projected copy of it, with planted
divergences: each must be reported at exactly the step, type and key where it was planted."""

from __future__ import annotations

import copy
import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.parse.steps import ExpectStep, SnapshotStep
from fairshare.sim.run.scripted import run_scenario
from oracle.compare import (
    DRIVER_EVENT_KEYS,
    DRIVER_SNAPSHOT_FIELDS,
    OracleOutputError,
    compare,
    compare_runs,
    read_events,
    read_snapshots,
)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "am-spared" / "scenario.yaml"


def _kind(step: object) -> str:
    name = type(step).__name__.removesuffix("Step")
    return re.sub(r"(?<!^)([A-Z])", r"-\1", name).lower()


@dataclasses.dataclass
class Run:
    events: list[dict[str, Any]]
    snapshots: list[dict[str, Any]]
    steps: list[dict[str, Any]]


def _run_with_steps(path: Path, extra_snapshots: bool = True) -> Run:
    """fairshare's events, each with the index of the step that produced it: the run of the
    first k+1 steps adds the events of step k to the run of the first k."""
    scenario = load_scenario(path)
    if extra_snapshots:  # snapshots after every expect: the example has none of its own
        steps = []
        for step in scenario.steps:
            steps.append(step)
            if isinstance(step, ExpectStep):
                steps.append(SnapshotStep(line=step.line, label=f"at {step.line}"))
        scenario = dataclasses.replace(scenario, steps=tuple(steps))
    events: list[dict[str, Any]] = []
    for k in range(len(scenario.steps) + 1):
        prefix = dataclasses.replace(scenario, steps=scenario.steps[:k])
        records = run_scenario(prefix).records
        events += [{**r, "step": k - 1} for r in records[len(events):]]
    result = run_scenario(scenario)
    steps_doc = [{"step": _kind(s), "line": s.line} for s in scenario.steps]
    return Run(events, result.snapshots, steps_doc)


@pytest.fixture(scope="module")
def run() -> Run:
    return _run_with_steps(EXAMPLE)


def _project(run: Run) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """What the driver would write: the contract's types and keys only, plus step and seq."""
    events = []
    for e in run.events:
        if e["type"] not in DRIVER_EVENT_KEYS:
            continue
        keys = ("t", "type", "seq", *DRIVER_EVENT_KEYS[e["type"]], "step")
        events.append({k: e[k] for k in keys if k in e})
    snaps = []
    for s in run.snapshots:
        out: dict[str, Any] = {k: s[k] for k in ("label", "time-ms") if k in s}
        out["cluster"] = {f: s["cluster"][f] for f in DRIVER_SNAPSHOT_FIELDS["cluster"]}
        for section in ("queues", "apps", "nodes"):
            fields = DRIVER_SNAPSHOT_FIELDS[section]
            out[section] = {key: {f: entry[f] for f in fields}
                            for key, entry in s[section].items()}
        snaps.append(out)
    return copy.deepcopy(events), copy.deepcopy(snaps)


def _index(events: list[dict[str, Any]], kind: str, nth: int = 0) -> int:
    return [i for i, e in enumerate(events) if e["type"] == kind][nth]


def test_the_run_has_what_the_planted_cases_need(run: Run) -> None:
    types = [e["type"] for e in run.events]
    assert types.count("container-allocated") >= 4 and types.count("preemption-warned") == 2
    assert len(run.snapshots) >= 4
    assert {e["step"] for e in run.events} >= {-1, 0, 2, 8}


def test_a_projected_copy_is_identical(run: Run) -> None:
    events, snaps = _project(run)
    result = compare(run.events, events, run.snapshots, snaps, run.steps)
    assert result.identical and result.first is None
    assert result.events_compared["container-allocated"] == 4
    assert result.events_compared["node-added"] == 1
    assert "starvation-gate" not in result.events_compared  # fairshare only: dropped
    assert result.snapshots_compared == len(run.snapshots)
    assert result.as_text().startswith("identical (")
    assert result.as_json()["identical"] is True


def test_seq_cause_and_fairshare_only_keys_are_ignored(run: Run) -> None:
    events, snaps = _project(run)
    for e in events:
        e["seq"] += 1000
    fs = [{**e, "cause": 99, "via": "elsewhere"} for e in run.events]
    assert compare(fs, events, run.snapshots, snaps, run.steps).identical


def test_a_container_on_another_node(run: Run) -> None:
    events, snaps = _project(run)
    k = _index(events, "container-allocated", 2)
    events[k]["node"] = "n2"
    first = compare(run.events, events, run.snapshots, snaps, run.steps).first
    assert first is not None
    assert (first.step, first.what, first.type, first.differing) == (
        events[k]["step"], "event", "container-allocated", ("node",))
    assert first.fairshare["node"] == "n1" and first.hadoop["node"] == "n2"
    assert first.kind == "heartbeat" and first.line == run.steps[first.step]["line"]
    assert first.fairshare["container"] == "container_job_01_000003"


def test_a_dropped_event_is_missing_on_the_hadoop_side(run: Run) -> None:
    events, snaps = _project(run)
    k = _index(events, "preemption-warned", 1)
    step = events[k]["step"]
    del events[k]
    first = compare(run.events, events, run.snapshots, snaps, run.steps).first
    assert first is not None and first.step == step and first.type == "preemption-warned"
    assert first.hadoop is None and first.fairshare["container"] == "container_job_01_000002"
    assert "only in fairshare" in first.summary


def test_an_added_event_is_missing_on_the_fairshare_side(run: Run) -> None:
    events, snaps = _project(run)
    k = _index(events, "app-submitted", 1)
    extra = {"t": 0, "type": "app-rejected", "seq": 0, "app": "ghost", "user": "x",
             "requested-queue": "q", "reason": "no", "step": events[k]["step"]}
    events.insert(k + 1, extra)
    first = compare(run.events, events, run.snapshots, snaps, run.steps).first
    assert first is not None and first.type == "app-rejected" and first.fairshare is None
    assert first.step == events[k]["step"] and first.kind == "submit"


def test_a_snapshot_field(run: Run) -> None:
    events, snaps = _project(run)
    snaps[2]["queues"]["root.batch"]["fair-share"]["memory-mb"] += 1
    first = compare(run.events, events, run.snapshots, snaps, run.steps).first
    assert first is not None and first.what == "snapshot"
    assert (first.snapshot, first.section, first.key, first.field) == (
        2, "queues", "root.batch", "fair-share")
    assert first.label == run.snapshots[2]["label"]
    assert first.kind == "snapshot"
    assert first.hadoop["memory-mb"] == first.fairshare["memory-mb"] + 1


def test_a_snapshot_key_only_on_one_side_and_a_field_fairshare_lacks(run: Run) -> None:
    events, snaps = _project(run)
    snaps[0]["apps"]["ghost"] = {"queue": "root.x"}
    first = compare(run.events, events, run.snapshots, snaps, run.steps).first
    assert first is not None and (first.section, first.key, first.fairshare) == (
        "apps", "ghost", "(absent)")
    events, snaps = _project(run)
    snaps[1]["nodes"]["n1"]["new-field"] = 1
    first = compare(run.events, events, run.snapshots, snaps, run.steps).first
    assert first is not None and (first.key, first.field) == ("n1", "new-field")


def test_fields_the_driver_leaves_out_are_not_compared(run: Run) -> None:
    events, snaps = _project(run)
    for snap in snaps:
        del snap["cluster"]["reserved"]
        for entry in snap["apps"].values():
            del entry["demand"]
    assert compare(run.events, events, run.snapshots, snaps, run.steps).identical


def test_integers_and_floats_and_booleans_are_distinct(run: Run) -> None:
    events, snaps = _project(run)
    snaps[0]["queues"]["root.batch"]["weight"] = 1  # fairshare writes 1.0
    first = compare(run.events, events, run.snapshots, snaps, run.steps).first
    assert first is not None and first.field == "weight"
    events, snaps = _project(run)
    events[_index(events, "container-allocated")]["am"] = 1
    first = compare(run.events, events, run.snapshots, snaps, run.steps).first
    assert first is not None and first.differing == ("am",)


def test_two_allocations_of_a_step_in_the_other_order(run: Run) -> None:
    events, snaps = _project(run)
    k = _index(events, "container-allocated", 1)
    events[k], events[k + 1] = events[k + 1], events[k]
    first = compare(run.events, events, run.snapshots, snaps, run.steps).first
    assert first is not None and first.type == "container-allocated"
    assert first.step == events[k]["step"] and first.differing == ("container",)
    assert "#2 of the step" in first.summary


def test_interleaving_of_types_within_a_step_is_not_compared(run: Run) -> None:
    events, snaps = _project(run)
    k = _index(events, "app-submitted")
    j = _index(events, "containers-requested")
    assert events[k]["step"] == events[j]["step"]
    events.insert(k, events.pop(j))  # a containers-requested before its app-submitted
    assert compare(run.events, events, run.snapshots, snaps, run.steps).identical


def test_victims_reordered_with_and_without_the_allowance(run: Run) -> None:
    events, snaps = _project(run)
    k = _index(events, "preemption-warned")
    events[k], events[k + 1] = events[k + 1], events[k]
    first = compare(run.events, events, run.snapshots, snaps, run.steps).first
    assert first is not None and first.type == "preemption-warned"
    assert first.differing == ("container",)
    allowed = compare(run.events, events, run.snapshots, snaps, run.steps,
                      permutations={"victims-by-app"})
    assert allowed.identical and allowed.permutations == ("victims-by-app",)
    events[k]["node"] = "n9"  # the allowance is about order, not content
    first = compare(run.events, events, run.snapshots, snaps, run.steps,
                    permutations={"victims-by-app"}).first
    assert first is not None and first.type == "preemption-warned"


def test_an_unknown_permutation_is_refused(run: Run) -> None:
    with pytest.raises(ValueError, match="unknown permutation 'any-order'"):
        compare(run.events, run.events, [], [], run.steps, permutations={"any-order"})


def test_a_missing_snapshot(run: Run) -> None:
    events, snaps = _project(run)
    del snaps[-1]
    first = compare(run.events, events, run.snapshots, snaps, run.steps).first
    assert first is not None and first.what == "snapshot" and first.hadoop is False
    assert first.snapshot == len(run.snapshots) - 1


def test_the_text_shows_both_sides_and_marks_the_keys_that_differ(run: Run) -> None:
    events, snaps = _project(run)
    k = _index(events, "container-allocated", 2)
    events[k]["node"] = "n2"
    text = compare(run.events, events, run.snapshots, snaps, run.steps).as_text()
    line = next(row for row in text.splitlines() if " node " in row)
    assert line.startswith("≠") and '"n1"' in line and '"n2"' in line
    assert text.splitlines()[0].startswith(f"differ: step {events[k]['step']} (heartbeat, line")
    doc = compare(run.events, events, run.snapshots, snaps, run.steps).as_json()
    assert json.loads(json.dumps(doc))["first"]["differing"] == ["node"]


def test_compare_runs_reads_two_directories(run: Run, tmp_path: Path) -> None:
    events, snaps = _project(run)
    for name, (evs, sn) in {"fs": (run.events, run.snapshots), "or": (events, snaps)}.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "events.jsonl").write_text(
            "".join(json.dumps(e) + "\n" for e in evs))
        (tmp_path / name / "snapshots.json").write_text(json.dumps(sn, indent=1))
    assert compare_runs(tmp_path / "fs", tmp_path / "or", run.steps).identical


def test_malformed_files_are_named_at_their_line(tmp_path: Path) -> None:
    bad = tmp_path / "events.jsonl"
    bad.write_text('{"t":0,"type":"node-added","step":-1}\n{"t":0,\n')
    with pytest.raises(OracleOutputError, match=r"events.jsonl:2: not JSON"):
        read_events(bad)
    bad.write_text('{"t":0,"type":"node-added"}\n')
    with pytest.raises(OracleOutputError, match=r"events.jsonl:1: node-added event without"):
        read_events(bad)
    bad.write_text('[1]\n')
    with pytest.raises(OracleOutputError, match=r"events.jsonl:1: not an event"):
        read_events(bad)
    snaps = tmp_path / "snapshots.json"
    snaps.write_text('[\n {"time-ms": 0},\n {"time-ms": }\n]\n')
    with pytest.raises(OracleOutputError, match=r"snapshots.json:3: not JSON"):
        read_snapshots(snaps)
    snaps.write_text('{"time-ms": 0}')
    with pytest.raises(OracleOutputError, match=r"snapshots.json:1: not a list"):
        read_snapshots(snaps)
    with pytest.raises(OracleOutputError, match=r"missing.jsonl: cannot read"):
        read_events(tmp_path / "missing.jsonl")


def test_the_run_is_not_changed_by_comparing(run: Run) -> None:
    before = copy.deepcopy(run.events)
    events, snaps = _project(run)
    compare(run.events, events, run.snapshots, snaps, run.steps, permutations={"victims-by-app"})
    assert run.events == before


def test_completions_and_starvation_of_a_step_are_compared_as_multisets() -> None:
    # YARN ends an app's containers in the hash order of its live-container map: the order
    # within a step is not a decision; which containers, and their fields, are
    steps = [{"step": "finish", "line": 3}]

    def done(container: str, status: str = "app-ended") -> dict[str, Any]:
        return {"t": 5, "type": "container-completed", "seq": 1, "step": 0, "app": "a",
                "queue": "root.q", "container": container, "node": "n1",
                "resource": {"memory-mb": 1024, "vcores": 1}, "am": False, "status": status}

    fs = [done("container_a_01_000002"), done("container_a_01_000003")]
    assert compare(fs, fs[::-1], [], [], steps).identical
    lost = [done("container_a_01_000002"), done("container_a_01_000003", "lost")]
    result = compare(fs, lost[::-1], [], [], steps)
    assert not result.identical and result.first is not None
    assert result.first.differing == ("status",)


def test_the_reservations_an_ending_app_gives_up_are_compared_as_a_set() -> None:
    # FSAppAttempt.reservedContainers is a HashMap by NodeId: its order is not a decision
    steps = [{"step": "kill", "line": 7}]

    def unreserved(node: str) -> dict[str, Any]:
        return {"t": 9, "type": "container-unreserved", "seq": 2, "step": 0, "app": "a",
                "node": node, "resource": {"memory-mb": 2048, "vcores": 1}}

    fs = [unreserved("n1"), unreserved("n2")]
    assert compare(fs, fs[::-1], [], [], steps).identical
    result = compare(fs, [unreserved("n2"), unreserved("n3")], [], [], steps)
    assert result.first is not None and result.first.differing == ("node",)


def test_free_text_reasons_are_shown_but_not_compared() -> None:
    steps = [{"step": "move", "line": 9}]
    fs = [{"t": 0, "type": "move-rejected", "seq": 4, "step": 0, "app": "x", "queue": "root.b",
           "reason": "moving x to root.b would violate maxRunningApps on root.b"}]
    hadoop = [{**fs[0], "reason": "Moving app attempt appattempt_1_0001_000001 to queue "
                                  "root.b would violate queue maxRunningApps constraints"}]
    assert compare(fs, hadoop, [], [], steps).identical
    elsewhere = [{**hadoop[0], "queue": "root.c"}]
    result = compare(fs, elsewhere, [], [], steps)
    assert result.first is not None and result.first.differing == ("queue",)


def test_a_rejected_app_in_fairshares_snapshot_is_not_looked_for_in_hadoops() -> None:
    steps = [{"step": "snapshot", "line": 4}]
    fs = [{"time-ms": 0, "cluster": {}, "queues": {}, "nodes": {},
           "apps": {"r": {"state": "rejected", "queue": None},
                    "x": {"state": "running", "queue": "root.a"}}}]
    hadoop = [{"time-ms": 0, "cluster": {}, "queues": {}, "nodes": {},
               "apps": {"x": {"queue": "root.a"}}}]
    assert compare([], [], fs, hadoop, steps).identical
    fs[0]["apps"]["x"]["state"] = "rejected"  # … but an accepted app must be there
    assert not compare([], [], fs, hadoop, steps).identical

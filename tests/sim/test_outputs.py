"""A simulation's outputs: timeline rows, summary.json, streamed events.jsonl, determinism.

The expected numbers come from one timeline worked out by hand (the preemption case of
test_loop.py, now from a scenario file, sampled every 500 ms up to 12 s):

* one 2 GB / 2 vcore node; queues ``a``, ``b`` of weight 1 under the ``fair`` policy, root's
  only children (Hadoop 3.4 creates no root.default at start and no app goes there): steady
  shares 1024 MB each (2048 / 2), 0 vcores (memory only);
* updates every 500 ms (the first at 500), heartbeats every 1000 ms (the first at 1000),
  assignmultiple on; fair-share threshold 1.0 and timeout 1 s; waitTimeBeforeKill 0;
* a1 (root.a, unmanaged) asks for two 1 GB / 1 vcore tasks of 100 s at 0: both placed at 1000;
* b1 (root.b) arrives at 1200 with one 1 GB task of 5 s. From the update at 1500 a and b have
  instantaneous shares of 1024 MB each; b1 has waited 1300 ms ≥ 1 s at the update of 2500: it is
  fair-share starved by 1024 MB, a victim of a1 is warned and killed at once (a1 loses
  2500 − 1000 = 1500 ms of work and asks again), and the heartbeat of 3000 gives the space to b1;
* b1's task completes at 8000 and b1 finishes; the update of 8000 gives root.a the whole
  cluster again and that ms's heartbeat places a1's re-asked task.

Samples at 0, 500, …, 12000; each stands for the 500 ms after it (the one at 12000 for
nothing). root.a's usage: 0 (0, 500), 2048 (1000–2000: 3 samples), 1024 (2500–7500: 11),
2048 (8000–11500: 8) ⇒ 33792 / 24 samples = 1408 MB. Its instantaneous share: 0 (0), 2048
(500, 1000), 1024 (1500–7500: 13), 2048 (8000–11500: 8) ⇒ also 33792 / 24 = 1408. root.b's
usage: 1024 for 3000–7500 (10 samples) ⇒ 10240 / 24; its share 1024 for 1500–7500 (13).
root.b is starving only in the sample of 2500 (from 3000 its task runs and it asks for nothing
more): 500 ms.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from fairshare.config.errors import ConfigError
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.record.outputs import EVENTS, SUMMARY, TIMELINE_CSV, TIMELINE_PARQUET
from fairshare.sim.record.recorder import TIMELINE_COLUMNS
from fairshare.sim.record.summary_model import summary_json
from fairshare.sim.run.scripted import RunResult, run_scenario

TWO_TENANTS = """\
version: 1
name: two tenants
description: a is preempted for b
seed: 7
site:
  yarn.scheduler.fair.preemption: true
  yarn.scheduler.fair.assignmultiple: true
  yarn.scheduler.fair.waitTimeBeforeKill: 0
allocations: |
  <allocations>
    <defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>
    <defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>
    <queue name="a"/><queue name="b"/>
  </allocations>
cluster:
  nodes: [{name: n1, memory-mb: 2048, vcores: 2}]
workload:
  apps:
    - {id: a1, at-ms: 0, queue: root.a, user: u,
       tasks: [{count: 2, memory-mb: 1024, vcores: 1, duration-ms: 100000}]}
    - {id: b1, at-ms: 1200, queue: root.b, user: u,
       tasks: [{count: 1, memory-mb: 1024, vcores: 1, duration-ms: 5000}]}
run: {until-ms: 12000, snapshot-every-ms: 500}
"""

SAMPLES = 24  # samples that stand for 500 ms each (the 25th, at 12000, for nothing)


def simulate(tmp_path: Path, text: str = TWO_TENANTS, out: str | None = "out") -> RunResult:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return run_scenario(load_scenario(path), None if out is None else tmp_path / out)


def timeline(path: Path) -> dict[tuple[int, str], dict[str, int]]:
    header, *lines = path.read_text().splitlines()
    assert header.split(",") == list(TIMELINE_COLUMNS)
    rows = {}
    for line in lines:
        time_ms, queue, *values = line.split(",")
        rows[int(time_ms), queue] = dict(zip(TIMELINE_COLUMNS[2:], map(int, values),
                                             strict=True))
    return rows


def test_the_timeline_has_a_row_per_queue_per_sample_in_depth_first_order(tmp_path):
    simulate(tmp_path)
    lines = (tmp_path / "out" / TIMELINE_CSV).read_text().splitlines()[1:]
    assert len(lines) == 25 * 3
    assert [line.split(",")[1] for line in lines[:3]] == ["root", "root.a", "root.b"]
    assert sorted({int(line.split(",")[0]) for line in lines}) == list(range(0, 12001, 500))


def test_timeline_rows_at_the_preemption(tmp_path):
    """At 2500 (after that ms's update, preemption and kill): b1 starving by its 1024 MB share
    (memory only under ``fair``), asking for it, not yet running; a1 down to one container
    with its killed task asked again; demand as the update of 2500 computed it (before the
    kill); root adds up both."""
    simulate(tmp_path)
    rows = timeline(tmp_path / "out" / TIMELINE_CSV)
    b = rows[2500, "root.b"]
    assert b == {
        "steady_fair_share_mb": 1024, "steady_fair_share_vcores": 0,
        "fair_share_mb": 1024, "fair_share_vcores": 0, "min_share_mb": 0, "min_share_vcores": 0,
        "usage_mb": 0, "usage_vcores": 0, "demand_mb": 1024, "demand_vcores": 1,
        "pending_mb": 1024, "pending_vcores": 1, "starving_mb": 1024, "starving_vcores": 0,
        "running_apps": 0, "pending_apps": 1, "containers": 0}
    a = rows[2500, "root.a"]
    assert (a["usage_mb"], a["usage_vcores"], a["demand_mb"], a["pending_mb"]) == (
        1024, 1, 2048, 1024)
    assert (a["running_apps"], a["pending_apps"], a["containers"], a["starving_mb"]) == (
        1, 0, 1, 0)
    root = rows[2500, "root"]
    assert (root["steady_fair_share_mb"], root["steady_fair_share_vcores"]) == (2048, 2)
    assert (root["usage_mb"], root["pending_mb"], root["starving_mb"], root["containers"]) == (
        1024, 2048, 1024, 1)
    assert (root["running_apps"], root["pending_apps"]) == (1, 1)
    assert rows[3000, "root.b"]["starving_mb"] == 0  # its task runs: nothing left unmet


def test_the_parquet_timeline_holds_the_same_rows(tmp_path):
    simulate(tmp_path)
    csv_lines = (tmp_path / "out" / TIMELINE_CSV).read_text().splitlines()[1:]
    table = pq.read_table(tmp_path / "out" / TIMELINE_PARQUET)
    assert table.column_names == list(TIMELINE_COLUMNS)
    assert str(table.schema.field("queue").type) == "string"
    columns = table.to_pydict()
    rows = [",".join(str(columns[c][i]) for c in TIMELINE_COLUMNS)
            for i in range(table.num_rows)]
    assert rows == csv_lines


def summary_of(tmp_path: Path) -> dict[str, Any]:
    return json.loads((tmp_path / "out" / SUMMARY).read_text())


def test_summary_queues_time_averages_starvation_and_preemptions(tmp_path):
    simulate(tmp_path)
    queues = summary_of(tmp_path)["queues"]
    assert list(queues) == ["root", "root.a", "root.b"]  # the tree, depth-first
    a, b = queues["root.a"], queues["root.b"]
    assert a["usage"] == {"memory-mb": 1408.0, "vcores": round(33 / SAMPLES, 3)}
    assert a["steady-fair-share"] == {"memory-mb": 1024.0, "vcores": 0.0}
    assert a["fair-share"] == {"memory-mb": 1408.0, "vcores": 0.0}
    assert a["usage-to-steady-fair-share"] == {"memory-mb": round(1408 / 1024, 4),
                                               "vcores": None}
    assert a["usage-to-fair-share"] == {"memory-mb": 1.0, "vcores": None}
    assert b["usage"] == {"memory-mb": round(10240 / SAMPLES, 3),
                          "vcores": round(10 / SAMPLES, 3)}
    assert b["fair-share"]["memory-mb"] == round(13 * 1024 / SAMPLES, 3)
    assert b["usage-to-fair-share"]["memory-mb"] == round(10 / 13, 4)
    assert (a["time-starved-ms"], b["time-starved-ms"], queues["root"]["time-starved-ms"]) == (
        0, 500, 500)
    counts = {name: (q["containers-preempted-from"], q["containers-preempted-for"],
                     q["containers-allocated"], q["containers-completed"])
              for name, q in queues.items()}
    # a: two at 1000, the re-asked one at 8000; the victim was preempted, not completed
    assert counts == {"root": (1, 1, 4, 1), "root.a": (1, 0, 3, 0), "root.b": (0, 1, 1, 1)}
    root = queues["root"]
    assert root["fair-share"]["memory-mb"] == round(23 * 2048 / SAMPLES, 3)  # 0 before 500


def test_summary_apps_cluster_counts_and_span(tmp_path):
    result = simulate(tmp_path)
    summary = summary_of(tmp_path)
    assert summary["scenario"] == {"name": "two tenants", "description": "a is preempted for b",
                                   "seed": 7, "overrides": []}
    assert summary["span"] == {"start-ms": 0, "end-ms": 12000, "snapshot-every-ms": 500,
                               "samples": 25}
    assert summary["apps"] == {
        # unmet demand: two asks 0–1000, the re-ask after the preemption 2500–8000
        "a1": {"queue": "root.a", "requested-queue": "root.a", "user": "u", "managed": False,
               "state": "running", "rejected-reason": None,
               "submit-ms": 0, "start-ms": 1000, "finish-ms": None, "wait-ms": 1000,
               "run-ms": None, "am-wait-ms": None, "first-task-wait-ms": 1000,
               "turnaround-ms": None, "unmet-demand-ms": 1000 + 5500,
               "tasks-done": 0, "tasks-total": 2, "preempted-containers": 1,
               "lost-work-ms": 1500},
        "b1": {"queue": "root.b", "requested-queue": "root.b", "user": "u", "managed": False,
               "state": "finished", "rejected-reason": None,
               "submit-ms": 1200, "start-ms": 3000, "finish-ms": 8000, "wait-ms": 1800,
               "run-ms": 5000, "am-wait-ms": None, "first-task-wait-ms": 1800,
               "turnaround-ms": 6800, "unmet-demand-ms": 1800,
               "tasks-done": 1, "tasks-total": 1, "preempted-containers": 0,
               "lost-work-ms": 0}}
    # 44032 MB·sample and 43 vcore·sample allocated out of 24 samples of 2048 MB / 2 vcores
    assert summary["cluster"] == {
        "capacity": {"memory-mb": 2048, "vcores": 2}, "nodes": 1,
        "utilization": {"memory-mb": round(44032 / (SAMPLES * 2048), 4),
                        "vcores": round(43 / (SAMPLES * 2), 4)},
        "average-allocated": {"memory-mb": round(44032 / SAMPLES, 3),
                              "vcores": round(43 / SAMPLES, 3)},
        "preemption": {"enabled": True, "utilization-threshold": 0.8}}  # the default 0.8f
    lines = (tmp_path / "out" / EVENTS).read_text().splitlines()
    assert summary["counts"] == {
        "apps": 2, "apps-submitted": 2, "apps-rejected": 0, "apps-finished": 1,
        "apps-unfinished": 1, "containers-allocated": 4, "containers-recovered": 0,
        "containers-completed": 1, "containers-preempted": 1,
        "events": len(lines),  # the node-added before the simulation too, as the terminal says
        "lost-work-ms": 1500,
        "preempted-container-ms": 2500 - 1000}
    assert summary_json(result.summary) == summary  # also there without -o (see below)


def test_contention_threshold_and_wait_metrics(tmp_path):
    """Contention = samples with pending asks. root.b: 1500, 2000, 2500 (b1 asked at 1200, placed
    at 3000), usage 0 under a share of 1024 (threshold 1.0): short all 1500 ms. root.a: 0 and 500
    (placed at 1000), then 2500–7500 (the re-ask after the preemption, placed at 8000): 13
    samples. Short only at 500: at 0 no update has computed a share yet, and from 2500 its usage
    of 1024 equals its share. Its averages over those 13 samples: usage 11 × 1024 / 13, share
    (2048 + 11 × 1024) / 13, demand (0 + 12 × 2048) / 13."""
    simulate(tmp_path)
    queues = summary_of(tmp_path)["queues"]
    a, b = queues["root.a"], queues["root.b"]
    assert (b["time-short-of-fair-share-threshold-ms"], b["during-contention"]["ms"]) == (
        1500, 1500)
    assert b["during-contention"]["usage"] == {"memory-mb": 0.0, "vcores": 0.0}
    assert b["during-contention"]["fair-share"]["memory-mb"] == 1024.0
    assert b["during-contention"]["steady-fair-share"]["memory-mb"] == 1024.0
    assert (a["time-short-of-fair-share-threshold-ms"], a["during-contention"]["ms"]) == (
        500, 6500)
    assert a["during-contention"]["usage"]["memory-mb"] == round(11 * 1024 / 13, 3)
    assert a["during-contention"]["fair-share"]["memory-mb"] == round((2048 + 11 * 1024) / 13, 3)
    assert a["during-contention"]["demand"]["memory-mb"] == round(12 * 2048 / 13, 3)
    # waits: a1's first task 1000, b1's 1800; a1 unfinished at 12000 counts as 12000, not reached
    root = queues["root"]
    assert root["first-task-wait-ms"] == {"p50": 1000, "p95": 1800, "max": 1800, "apps": 2,
                                          "not-reached": 0}
    assert root["turnaround-ms"] == {"p50": 6800, "p95": 12000, "max": 12000, "apps": 2,
                                     "not-reached": 1}
    assert root["am-wait-ms"] == {"p50": None, "p95": None, "max": None, "apps": 0,
                                  "not-reached": 0}
    assert b["turnaround-ms"]["p95"] == 6800


def test_a_queue_without_apps_has_no_ratios_and_no_contention(tmp_path):
    """A configured queue no app goes to: never short, never in contention; its ratios and
    averages during contention are undefined (null), not 0."""
    simulate(tmp_path, TWO_TENANTS.replace('<queue name="b"/>', '<queue name="b"/>'
                                                                 '<queue name="idle"/>'))
    idle = summary_of(tmp_path)["queues"]["root.idle"]
    assert idle["usage-to-fair-share"] == {"memory-mb": None, "vcores": None}
    assert idle["during-contention"] == {
        "ms": 0, "usage": {"memory-mb": None, "vcores": None},
        "steady-fair-share": {"memory-mb": None, "vcores": None},
        "fair-share": {"memory-mb": None, "vcores": None},
        "demand": {"memory-mb": None, "vcores": None}}


def test_the_last_sample_stands_for_the_time_up_to_the_end(tmp_path):
    """Until 12300: the sample at 12000 (a at 2048 MB) now stands for 300 ms."""
    simulate(tmp_path, TWO_TENANTS.replace("until-ms: 12000", "until-ms: 12300"))
    a = summary_of(tmp_path)["queues"]["root.a"]
    assert a["usage"]["memory-mb"] == round((33792 * 500 + 2048 * 300) / 12300, 3)


def test_without_an_output_directory_the_summary_is_still_computed(tmp_path):
    result = simulate(tmp_path, out=None)
    assert result.summary is not None
    assert summary_json(result.summary)["queues"]["root.b"]["time-starved-ms"] == 500
    assert result.outputs == []
    assert not (tmp_path / "out").exists()


def test_events_stream_after_the_steps_records_and_are_not_kept(tmp_path):
    """A step before the workload: its records come first in events.jsonl and are the only
    ones the result keeps; the simulation's follow, in order."""
    text = TWO_TENANTS.replace("workload:", "steps:\n  - advance: {ms: 100}\n"
                                            "  - snapshot: {label: before}\nworkload:")
    result = simulate(tmp_path, text.replace("until-ms: 12000", "until-ms: 12100"))
    lines = [json.loads(x) for x in (tmp_path / "out" / EVENTS).read_text().splitlines()]
    assert [r["type"] for r in result.records] == ["node-added"]
    assert lines[0] == result.records[0]
    assert lines[1]["type"] == "app-submitted" and lines[1]["t"] == 100
    assert [r["seq"] for r in lines] == sorted(r["seq"] for r in lines)
    assert result.events == len(lines)
    assert [s["label"] for s in json.loads((tmp_path / "out/snapshots.json").read_text())] == [
        "before"]


def test_identical_runs_write_identical_bytes(tmp_path):
    for out in ("one", "two"):
        path = tmp_path / "s.yaml"
        path.write_text(TWO_TENANTS)
        run_scenario(load_scenario(path), tmp_path / out)
    for name in (EVENTS, SUMMARY, TIMELINE_CSV):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()


SCRIPTED = """\
version: 1
cluster:
  nodes: [{name: n1, memory-mb: 4096, vcores: 4}]
steps:
  - submit: {app: a1, queue: default, user: u, requests: [{count: 2}]}
  - heartbeat: {node: n1}
"""


def test_a_scripted_run_writes_no_timeline_and_no_summary(tmp_path):
    result = simulate(tmp_path, SCRIPTED)
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "events.jsonl", "snapshots.json"]
    assert result.summary is None
    assert result.events == len(result.records) == len(
        (tmp_path / "out" / EVENTS).read_text().splitlines())


def test_a_workload_app_error_points_at_its_entry(tmp_path):
    """b1's entry starts on line 21 of the scenario file."""
    change = "tasks: [{count: 1, memory-mb: 1024, vcores: 1,"
    with pytest.raises(ConfigError) as info:
        simulate(tmp_path, TWO_TENANTS.replace(change, change + " yarn.io/gpu: 1,"))
    assert "/s.yaml:21: unknown resource type 'yarn.io/gpu'" in str(info.value)


def test_an_app_read_from_a_trace_file_points_at_that_file(tmp_path):
    """Apps a workload source read from a trace carry its name; errors point there."""
    path = tmp_path / "s.yaml"
    path.write_text(TWO_TENANTS.replace("vcores: 1, duration-ms: 5000",
                                        "vcores: 1, yarn.io/gpu: 1, duration-ms: 5000"))
    scenario = load_scenario(path)
    assert scenario.workload is not None
    traced = tuple(dataclasses.replace(a, source="jobs.json", line=7) for a in scenario.workload)
    with pytest.raises(ConfigError) as info:
        run_scenario(dataclasses.replace(scenario, workload=traced))
    assert str(info.value).startswith("jobs.json:7: unknown resource type 'yarn.io/gpu'")


DYNAMIC = """\
version: 1
cluster:
  nodes: [{name: n1, memory-mb: 4096, vcores: 4}]
workload:
  apps:
    - {id: x, at-ms: 2000, user: alice,
       tasks: [{count: 1, memory-mb: 1024, vcores: 1, duration-ms: 100000}]}
run: {until-ms: 6000}
"""


def test_a_queue_created_during_the_run_joins_the_timeline_and_counts_0_before(tmp_path):
    """No allocation file: only root exists (Hadoop 3.4) until alice's app creates root.alice
    at 2000 (user-as-default-queue). Its task is placed by that ms's heartbeat and the update
    of 2000 gives root.alice the whole cluster as instantaneous share; as root's only child it
    also takes the whole 4096 MB as steady share from then on. Samples 0–5000 stand for
    1000 ms each: root.alice is there in 4 of the 6."""
    simulate(tmp_path, DYNAMIC)
    rows = timeline(tmp_path / "out" / TIMELINE_CSV)
    assert [q for t, q in rows if t == 1000] == ["root"]
    assert [q for t, q in rows if t == 2000] == ["root", "root.alice"]
    assert rows[2000, "root.alice"]["usage_mb"] == 1024
    queues = summary_of(tmp_path)["queues"]
    assert list(queues) == ["root", "root.alice"]
    alice = queues["root.alice"]
    assert alice["usage"]["memory-mb"] == round(4 * 1024 / 6, 3)
    assert alice["steady-fair-share"]["memory-mb"] == round(4 * 4096 / 6, 3)
    assert alice["fair-share"]["memory-mb"] == round(4 * 4096 / 6, 3)


def test_queue_settings_say_where_each_preemption_setting_comes_from(tmp_path):
    """root.a sets its own timeout (3 s); root.b takes the file's default (1 s); the threshold
    is the file's default 1.0 for both; no min-share timeout anywhere: YARN's default, never."""
    text = TWO_TENANTS.replace(
        '<queue name="a"/>',
        '<queue name="a"><fairSharePreemptionTimeout>3</fairSharePreemptionTimeout></queue>')
    simulate(tmp_path, text)
    queues = summary_of(tmp_path)["queues"]
    a, b = queues["root.a"]["settings"], queues["root.b"]["settings"]
    assert (a["fair-share-preemption-timeout-ms"], a["set-in"]["fair-share-preemption-timeout-ms"]
            ) == (3000, "root.a")
    assert (b["fair-share-preemption-timeout-ms"], b["set-in"]["fair-share-preemption-timeout-ms"]
            ) == (1000, "<defaultFairSharePreemptionTimeout>")
    assert (b["fair-share-preemption-threshold"], b["set-in"]["fair-share-preemption-threshold"]
            ) == (1.0, "<defaultFairSharePreemptionThreshold>")
    assert (a["min-share-preemption-timeout-ms"], a["set-in"]["min-share-preemption-timeout-ms"]
            ) == (None, "YARN default")
    assert (a["weight"], a["policy"], a["preemptable"]) == (1.0, "fair", True)


def test_a_child_inherits_its_parents_setting(tmp_path):
    text = TWO_TENANTS.replace(
        '<queue name="a"/>',
        '<queue name="a"><fairSharePreemptionThreshold>0.6</fairSharePreemptionThreshold>'
        '<queue name="x"/></queue>').replace("queue: root.a", "queue: root.a.x")
    simulate(tmp_path, text)
    x = summary_of(tmp_path)["queues"]["root.a.x"]["settings"]
    assert (x["fair-share-preemption-threshold"], x["set-in"]["fair-share-preemption-threshold"]
            ) == (0.6, "root.a")

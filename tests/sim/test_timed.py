"""``workload.changes``: reloads, node additions, losses and graceful decommissions at given times.

Expected numbers are worked out by hand from YARN's rules. Common ground: nodes of 8 GB / 8
vcores; heartbeats every 1000 ms (the first at 1000), updates every 500 ms (the first at 500),
one container per node heartbeat (assignmultiple off); queues under the ``fair`` policy (memory
only); the configured queues are root's only children (Hadoop 3.4 creates no root.default at
start, and no app goes there). Timed changes run before the completions, arrivals, update and
heartbeats of their millisecond.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from fairshare.cli.main import app as cli
from fairshare.config.errors import ConfigError
from fairshare.sim.parse.scenario import parse_scenario_text
from fairshare.sim.record.outputs import EVENTS, SUMMARY, TIMELINE_CSV
from fairshare.sim.record.summary_model import summary_json
from fairshare.sim.run.scripted import run_scenario

HEAD = """\
version: 1
allocations: |
  <allocations><queue name="a"><weight>{a}</weight></queue><queue name="b"/></allocations>
cluster:
  nodes:
    - {{name: n1, memory-mb: 8192, vcores: 8}}
    - {{name: n2, memory-mb: 8192, vcores: 8}}
run: {{until-ms: {until}}}
workload:
  apps:
{apps}
  changes:
{changes}
"""

# two long apps that keep asking: both queues active from the update at 500
BUSY = """\
    - {id: x, queue: a, tasks: [{count: 16, duration-ms: 600000}]}
    - {id: y, queue: b, tasks: [{count: 16, duration-ms: 600000}]}"""


def simulate(tmp_path: Path, changes: str, *, until: int = 30_000, apps: str = BUSY,
             out: str = "out") -> Path:
    text = HEAD.format(a=1, until=until, apps=apps, changes=changes)
    scenario = parse_scenario_text(text, str(tmp_path / "s.yaml"), tmp_path)
    outdir = tmp_path / out
    run_scenario(scenario, outdir)
    return outdir


def timeline(out: Path, queue: str, column: str) -> dict[int, float]:
    with (out / TIMELINE_CSV).open() as f:
        return {int(row["time_ms"]): float(row[column]) for row in csv.DictReader(f)
                if row["queue"] == queue}


def events(out: Path, kind: str | None = None) -> list[dict[str, Any]]:
    lines = (out / EVENTS).read_text().splitlines()
    records = [json.loads(line) for line in lines]
    return [r for r in records if kind is None or r["type"] == kind]


def test_a_lost_node_shrinks_the_cluster_and_the_steady_shares(tmp_path: Path) -> None:
    """Weights a 1, b 1: root.a's steady share is half the cluster, 8192 MB of 16 GB; n2 lost
    at 10 s (its 8 containers with it): 4096 MB of 8 GB."""
    out = simulate(tmp_path, "    - {at-ms: 10000, remove-node: {name: n2}}")
    steady = timeline(out, "root.a", "steady_fair_share_mb")
    assert (steady[9000], steady[10000], steady[20000]) == (8192, 4096, 4096)
    removed = events(out, "node-removed")
    assert [(e["t"], e["node"], e["lost-containers"]) for e in removed] == [(10000, "n2", 8)]
    summary = json.loads((out / SUMMARY).read_text())
    assert summary["cluster"]["capacity"] == {"memory-mb": 8192, "vcores": 8}
    assert summary["changes"] == [{"t": 10000, "kind": "remove-node", "queues": {},
                                   "mark": "n2 lost", "node": "n2",
                                   "label": "node n2 lost, killing 8 of its containers"}]


def test_a_weight_reload_changes_the_instantaneous_shares(tmp_path: Path) -> None:
    """a and b active, weights 1:1 → 8192 MB each of 16 GB; root.a weight 3 at 10 s →
    3/4 and 1/4: 12288 and 4096 MB from the update of 10000 on."""
    out = simulate(tmp_path, "    - {at-ms: 10000, reload: {set: ['alloc:root.a.weight=3']}}")
    a, b = (timeline(out, q, "fair_share_mb") for q in ("root.a", "root.b"))
    assert (a[9000], b[9000]) == (8192, 8192)
    assert (a[10000], b[10000]) == (12288, 4096)
    assert (a[29000], b[29000]) == (12288, 4096)
    summary = json.loads((out / SUMMARY).read_text())
    assert summary["changes"][0]["queues"] == {"root.a": ["weight 1 → 3"]}
    assert summary["queues"]["root.a"]["settings"]["weight"] == 3


def test_timed_overrides_accumulate_until_a_new_file_drops_them(tmp_path: Path) -> None:
    """a weight 3 at 5 s (12288 / 4096), then b weight 3 at 10 s: a keeps its 3 (8192 each);
    a new file at 15 s without weights drops both (8192 each still, now 1:1); a weight 7 at
    20 s on top of that file: 7/8 and 1/8 of 16 GB, 14336 and 2048 MB."""
    out = simulate(tmp_path, """\
    - {at-ms: 5000, reload: {set: ['alloc:root.a.weight=3']}}
    - {at-ms: 10000, reload: {set: ['alloc:root.b.weight=3']}}
    - at-ms: 15000
      reload: {allocations: "<allocations><queue name='a'/><queue name='b'/></allocations>"}
    - {at-ms: 20000, reload: {set: ['alloc:root.a.weight=7']}}""")
    a, b = (timeline(out, q, "fair_share_mb") for q in ("root.a", "root.b"))
    assert (a[6000], b[6000]) == (12288, 4096)
    assert (a[11000], b[11000]) == (8192, 8192)
    assert (a[16000], b[16000]) == (8192, 8192)
    assert (a[21000], b[21000]) == (14336, 2048)
    changes = json.loads((out / SUMMARY).read_text())["changes"]
    assert changes[1]["queues"] == {"root.b": ["weight 1 → 3"]}
    assert changes[2]["queues"] == {"root.a": ["weight 3 → 1"], "root.b": ["weight 3 → 1"]}


def test_a_failed_reload_keeps_the_configuration_and_says_why(tmp_path: Path) -> None:
    """A new file with a weight that is not a number: YARN keeps the configuration in force
    (a 3, from the first reload) and reports the error; a later override applies on top of
    the configuration in force, not of the file that failed."""
    out = simulate(tmp_path, """\
    - {at-ms: 5000, reload: {set: ['alloc:root.a.weight=3']}}
    - at-ms: 10000
      reload:
        allocations: "<allocations><queue name='a'><weight>x</weight></queue></allocations>"
    - {at-ms: 15000, reload: {set: ['alloc:root.b.weight=3']}}""")
    a = timeline(out, "root.a", "fair_share_mb")
    assert (a[11000], a[16000]) == (12288, 8192)  # 3:1, then 3:3
    error = events(out, "config-error")
    assert [e["t"] for e in error] == [10000]
    assert "<weight> must be a number" in error[0]["message"]
    kinds = [c["kind"] for c in json.loads((out / SUMMARY).read_text())["changes"]]
    assert kinds == ["reload", "config-error", "reload"]


DRAIN = """\
    - id: x
      queue: a
      tasks: [{count: 1, duration-ms: 10000}, {count: 1, duration-ms: 20000}]
    - {id: y, queue: b, at-ms: 3000, tasks: [{count: 4, duration-ms: 5000}]}"""


def test_a_decommissioning_node_gets_nothing_new_and_leaves_when_its_apps_are_done(
        tmp_path: Path) -> None:
    """x's two 1 GB tasks (one request) are placed at 1000, the 10 s one on n1 (first to
    heartbeat), the 20 s one on n2. n1 is decommissioned at 2000: its total becomes 1 GB, the
    cluster 9 GB. y's four tasks (from 3000) all go to n2. n1's task ends at 11000: its total
    becomes 0 at its heartbeat then, but x, which ran there, runs on n2 until 21000; n1 leaves
    at its heartbeat of 21000 (after that millisecond's completions), the cluster 8 GB."""
    out = simulate(tmp_path, "    - {at-ms: 2000, decommission-node: {name: n1, timeout-ms: -1}}",
                   apps=DRAIN, until=25_000)
    placed = [(e["t"], e["app"], e["node"]) for e in events(out, "container-allocated")]
    assert placed[:2] == [(1000, "x", "n1"), (1000, "x", "n2")]
    assert all(node == "n2" for _, app, node in placed if app == "y")
    assert len(placed) == 6
    started = events(out, "node-decommissioning")
    assert [(e["t"], e["deadline"], e["running-containers"]) for e in started] == [
        (2000, None, 1)]
    sizes = [(e["t"], e["capacity"]["memory-mb"]) for e in events(out, "node-resized")]
    assert sizes == [(2000, 1024), (11000, 0)]
    assert [(e["t"], e["reason"]) for e in events(out, "node-decommissioned")] == [
        (21000, "drained")]
    finished = {e["app"]: e["t"] for e in events(out, "app-finished")}
    assert finished["x"] == 21000


def test_at_its_timeout_a_decommissioning_node_leaves_with_its_containers(
        tmp_path: Path) -> None:
    """Timeout 5 s from 2000: n1 leaves at 7000; x's 10 s task there is lost (5000 + 1000 ms
    of work: it ran from 1000), asked again and placed on n2 at its heartbeat of 7000."""
    out = simulate(tmp_path, "    - {at-ms: 2000, decommission-node: {name: n1, timeout-ms: 5000}}",
                   apps=DRAIN, until=40_000)
    assert [(e["t"], e["reason"]) for e in events(out, "node-decommissioned")] == [
        (7000, "timeout")]
    lost = [(e["t"], e["node"]) for e in events(out, "container-completed")
            if e["status"] == "lost"]
    assert lost == [(7000, "n1")]
    summary = json.loads((out / SUMMARY).read_text())
    assert summary["apps"]["x"]["lost-work-ms"] == 6000
    again = [(e["t"], e["node"]) for e in events(out, "container-allocated") if e["app"] == "x"]
    assert again[2] == (7000, "n2")


def test_an_added_node_grows_the_cluster_and_takes_work(tmp_path: Path) -> None:
    out = simulate(tmp_path, "    - {at-ms: 4500, add-node: {name: n3, memory-mb: 16384, "
                   "vcores: 16, rack: /r2}}", until=6000)
    steady = timeline(out, "root.a", "steady_fair_share_mb")
    assert (steady[4000], steady[5000]) == (8192, 16384)  # half of 16 GB, then of 32 GB
    placed = [e["node"] for e in events(out, "container-allocated") if e["t"] == 5000]
    assert "n3" in placed


def test_changes_with_no_apps_still_run(tmp_path: Path) -> None:
    text = HEAD.format(a=1, until=0, apps="    []", changes=(
        "    - {at-ms: 3000, remove-node: {name: n1}}")).replace("run: {until-ms: 0}\n", "")
    scenario = parse_scenario_text(text, str(tmp_path / "s.yaml"), tmp_path)
    result = run_scenario(scenario, tmp_path / "out")
    assert result.summary is not None
    assert summary_json(result.summary)["span"]["end-ms"] == 3000
    assert summary_json(result.summary)["cluster"]["capacity"]["memory-mb"] == 8192


def test_a_change_weeks_in_needs_an_explicit_end(tmp_path: Path) -> None:
    text = HEAD.format(a=1, until=0, apps=BUSY, changes=(
        "    - {at-ms: 900000000, remove-node: {name: n1}}")).replace("run: {until-ms: 0}\n", "")
    scenario = parse_scenario_text(text, str(tmp_path / "s.yaml"), tmp_path)
    with pytest.raises(ConfigError, match=r"s.yaml:13: workload: runs for at least "
                       r"900,000,000 ms \(10.4 days\) \(its last timed change\)"):
        run_scenario(scenario, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_the_same_scenario_gives_the_same_bytes(tmp_path: Path) -> None:
    changes = """\
    - {at-ms: 2000, decommission-node: {name: n1, timeout-ms: 9000}}
    - {at-ms: 5000, reload: {set: ['alloc:root.a.weight=5']}}
    - {at-ms: 6000, add-node: {name: n3, memory-mb: 4096, vcores: 4}}
    - {at-ms: 8000, remove-node: {name: n2}}"""
    outs = [simulate(tmp_path, changes, until=20_000, out=f"out{i}") for i in range(2)]
    for name in (EVENTS, SUMMARY, TIMELINE_CSV):
        assert (outs[0] / name).read_bytes() == (outs[1] / name).read_bytes()


@pytest.mark.parametrize(("changes", "message"), [
    ("- {at-ms: 500, remove-node: {name: n9}}",
     "14: workload.changes[0].remove-node.name: no node 'n9' at this point"),
    ("- {at-ms: 500, remove-node: {name: n1}}\n    - {at-ms: 600, decommission-node: {name: n1}}",
     "15: workload.changes[1].decommission-node.name: no node 'n1' at this point"),
    ("- {at-ms: 900, remove-node: {name: n1}}\n    - {at-ms: 600, remove-node: {name: n2}}",
     "15: workload.changes[1].at-ms: 600 ms is before the change at line 14 (900 ms)"),
    ("- {at-ms: -1, remove-node: {name: n1}}",
     "14: workload.changes[0].at-ms: must be a non-negative integer, got -1"),
    ("- {at-ms: 5, reload: {set: ['site:yarn.scheduler.fair.preemption=true']}}",
     "14: workload.changes[0].reload.set[0]: only alloc: settings can change during a run"),
    ("- {at-ms: 5, reload: {set: ['root.a.weight=3']}}",
     "14: workload.changes[0].reload.set[0]: expected alloc:KEY=VALUE"),
    ("- {at-ms: 5, reload: {}}", "14: workload.changes[0].reload: give 'set'"),
    ("- {at-ms: 5, add-node: {name: n2, memory-mb: 1, vcores: 1}}",
     "14: workload.changes[0].add-node.name: node 'n2' is already registered"),
    ("- {at-ms: 5}", "14: workload.changes[0]: give exactly one change"),
    ("- {at-ms: 5, remove-node: {name: n1}, add-node: {name: n3, memory-mb: 1, vcores: 1}}",
     "14: workload.changes[0]: give exactly one change"),
    ("- {at-ms: 5, decommission-node: {name: n1, timeout-ms: 1.5}}",
     "14: workload.changes[0].decommission-node.timeout-ms: must be a non-negative integer, "
     "or -1 for no timeout, got 1.5"),
    ("- {at-ms: 5, restart-node: {name: n1}}", "14: workload.changes[0]: unknown key"),
])
def test_bad_changes_are_located(tmp_path: Path, changes: str, message: str) -> None:
    text = HEAD.format(a=1, until=1000, apps=BUSY, changes="    " + changes)
    with pytest.raises(ConfigError) as caught:
        parse_scenario_text(text, "s.yaml", tmp_path)
    assert f"s.yaml:{message}" in str(caught.value)


def test_an_override_naming_no_queue_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    text = HEAD.format(a=1, until=1000, apps=BUSY, changes=(
        "    - {at-ms: 5, reload: {set: ['alloc:root.c.weight=3']}}"))
    path = tmp_path / "s.yaml"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["run", str(path), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert (f"{path}:14: workload.changes: reload at 5 ms: --set alloc:root.c.weight=3: "
            "queue root.c is not in the allocation file") in result.output
    assert not (tmp_path / "out").exists()


def test_an_override_whose_value_the_file_refuses_is_located_at_its_change(
        tmp_path: Path) -> None:
    text = HEAD.format(a=1, until=1000, apps=BUSY, changes=(
        "    - {at-ms: 5, reload: {set: ['alloc:root.a.weight=heavy']}}"))
    scenario = parse_scenario_text(text, str(tmp_path / "s.yaml"), tmp_path)
    with pytest.raises(ConfigError, match=r"s.yaml:14: workload.changes: reload at 5 ms: "
                       r"--set alloc:root.a.weight=heavy: .*weight"):
        run_scenario(scenario, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_node_change_after_the_node_left_does_nothing(tmp_path: Path) -> None:
    """A zero timeout: n1 leaves at 2000 (its containers lost); the loss at 3000 finds no node."""
    out = simulate(tmp_path, """\
    - {at-ms: 2000, decommission-node: {name: n1, timeout-ms: 0}}
    - {at-ms: 3000, remove-node: {name: n1}}""", until=5000)
    assert [(e["t"], e["reason"]) for e in events(out, "node-decommissioned")] == [
        (2000, "timeout")]
    assert [e["t"] for e in events(out, "node-removed")] == [2000]
    kinds = [(c["t"], c["kind"]) for c in json.loads((out / SUMMARY).read_text())["changes"]]
    assert kinds == [(2000, "decommission-node"), (3000, "skipped")]

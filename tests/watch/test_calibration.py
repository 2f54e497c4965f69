"""The calibration of a fork, worked by hand: a one-node checkpoint, four apps, a real
simulation of the fork, and a recorded tally made up for the comparison (docs/watch.md,
"Calibration").

The checkpoint (CP): node n1 (8192 MB, 8 vcores); root (fair) with root.a and root.b.
X runs in root.a: its 1 GB AM and one 1 GB task, nothing more asked; V waits in root.a for
its 1 GB AM (submitted 5 s before CP). The history then saw Y (root.b, submitted CP + 30 s,
launched + 2 s, ran 60 s, 184,320 MB·s) and W (root.b, CP + 70 s, launched + 5 s, ran 30 s,
61,440 MB·s); Z was submitted at CP + 110 s and never held anything. The span is 120 s.

The fork (running tasks' remaining time fixed at 60 s): Y is AM + 2 tasks of 1 GB × 60 s
((184,320 − 1024 × 60) / (60 × 1024) = 2), W AM + 1 task × 30 s; Z is left out (it held
nothing). Simulated (one node heartbeating every second, one container per heartbeat —
assignmultiple off, YARN's default — the node's first heartbeat 1 s after it registers):

* root.a: X's 2048 MB / 2 vcores over [0, 60 s) → 2048 × 60 / 120 = 1024 MB, 1.0 vcore; V's
  AM placed at 1 s, and V ends there (an app waiting for its AM has no task known: it finishes
  once its AM runs) → AM wait 1 s;
* root.b: Y's AM at 30 s (the heartbeat of that second), its tasks at 31 s and 32 s, each
  60 s; its AM ends with it at 92 s: 62 + 60 + 60 s of 1 GB; W's AM at 70 s, its task 71–101 s:
  31 + 30 s; 243 s × 1024 MB / 120 s = 2073.6 MB, 243 / 120 = 2.025 vcores; AM waits 0 and 0;
* root: 3097.6 MB, 3.025 vcores.

The recorded tally (made up): root.a 1280 MB / 1.25 vcores on average, root.b 2304 / 2.25,
root 3584 / 3.5. Differences: root.a −20 % / −20 %; root.b −10 % / −10 %; root
(3097.6 − 3584) / 3584 = −13.571 % and (3.025 − 3.5) / 3.5 = −13.571 %.
Recorded AM waits: V 3 s (launched CP + 3 s; waiting at CP, so from CP, as the fork sees it:
not the 8 s since its submission), Y 2 s, W 5 s; X launched before CP (not compared).
Nearest rank: root.a p50 = p95 = 3 s; root.b [2, 5] → p50 2 s, p95 5 s; root [2, 3, 5] →
p50 3 s, p95 5 s. Simulated: root.a [1] → 1 s; root.b [0, 0] → 0; root [0, 0, 1] → p50 0,
p95 1 s. Preemptions: 2 containers from Y at CP + 50 s (root.b, root); one seen at CP itself
happened before the span and is not counted; the fork has preemption off: 0.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from fairshare.config.errors import ConfigError
from fairshare.sim.importer.scenario_text import Choices
from fairshare.watch.calibration import (
    LIMITS,
    Waits,
    as_json,
    calibrate,
    compare,
    render,
    simulate_fork,
)
from fairshare.watch.fork import fork, read_fork
from fairshare.web.history.model import Preemption, QueueTally
from tests.watch.test_fork import FakeHistory, record

CP = 1_700_000_000_000
END = CP + 120_000
GB = {"memory": 1024, "vCores": 1}


def res(mb: int, vcores: int) -> dict[str, int]:
    return {"memory": mb, "vCores": vcores}


def leaf(name: str, used: tuple[int, int], am_used: tuple[int, int], fair: tuple[int, int],
         active: int) -> dict[str, Any]:
    return {"type": "fairSchedulerLeafQueueInfo", "queueName": name, "schedulingPolicy": "fair",
            "maxApps": 2147483647, "minResources": res(0, 0), "maxResources": res(8192, 8),
            "usedResources": res(*used), "amUsedResources": res(*am_used),
            "amMaxResources": res(4096, 4), "steadyFairResources": res(4096, 4),
            "fairResources": res(*fair), "clusterResources": res(8192, 8), "preemptable": True,
            "numActiveApps": active, "numPendingApps": 0}


def checkpoint() -> dict[str, str]:
    root = {"queueName": "root", "schedulingPolicy": "fair", "maxApps": 2147483647,
            "minResources": res(0, 0), "maxResources": res(8192, 8),
            "usedResources": res(2048, 2), "amUsedResources": res(1024, 1),
            "amMaxResources": res(0, 0), "steadyFairResources": res(8192, 8),
            "fairResources": res(8192, 8), "clusterResources": res(8192, 8),
            "preemptable": True,
            "childQueues": {"queue": [leaf("root.a", (2048, 2), (1024, 1), (8192, 8), 2),
                                      leaf("root.b", (0, 0), (0, 0), (0, 0), 0)]}}
    scheduler = {"scheduler": {"schedulerInfo": {"type": "fairScheduler", "rootQueue": root}}}
    nodes = {"nodes": {"node": [{
        "rack": "/rack1", "state": "RUNNING", "id": "n1.example.com:45454",
        "nodeHostName": "n1.example.com", "nodeHTTPAddress": "n1.example.com:8042",
        "numContainers": 2, "usedMemoryMB": 2048, "availMemoryMB": 6144,
        "usedVirtualCores": 2, "availableVirtualCores": 6}]}}
    x = {"id": "application_1_0001", "user": "alice", "queue": "root.a", "state": "RUNNING",
         "startedTime": CP - 10_000, "launchTime": CP - 9_000, "finishedTime": 0,
         "elapsedTime": 10_000,
         "amContainerLogs": "http://n1.example.com:8042/node/containerlogs/"
                            "container_1_0001_01_000001/alice",
         "amHostHttpAddress": "n1.example.com:8042", "allocatedMB": 2048,
         "allocatedVCores": 2, "runningContainers": 2, "memorySeconds": 20_480,
         "vcoreSeconds": 20, "unmanagedApplication": False, "resourceRequests": []}
    v = {"id": "application_1_0003", "user": "bob", "queue": "root.a", "state": "ACCEPTED",
         "startedTime": CP - 5_000, "launchTime": 0, "finishedTime": 0, "elapsedTime": 5_000,
         "amContainerLogs": "", "amHostHttpAddress": "", "allocatedMB": -1,
         "allocatedVCores": -1, "runningContainers": -1, "memorySeconds": 0,
         "vcoreSeconds": 0, "unmanagedApplication": False,
         "resourceRequests": [{"priority": 0, "resourceName": "*", "capability": GB,
                               "numContainers": 1, "relaxLocality": True}]}
    apps = {"apps": {"app": [x, v]}}
    return {"scheduler.json": json.dumps(scheduler, indent=1),
            "nodes.json": json.dumps(nodes, indent=1), "apps.json": json.dumps(apps, indent=1)}


def tally(name: str, mb: int, vcores: float, weight_ms: int = 120_000) -> QueueTally:
    sums = {"used_mb": mb * weight_ms, "used_vcores": round(vcores * weight_ms)}
    return QueueTally(name, weight_ms // 5000, weight_ms, 0, 0, 0, sums, {}, {}, {})


def history() -> FakeHistory:
    records = [
        record("application_1_0001", "root.a", CP - 10_000, state="FINISHED",
               launched_ms=CP - 9_000, finished_ms=CP + 60_000, last_seen_ms=CP + 60_000),
        record("application_1_0003", "root.a", CP - 5_000, launched_ms=CP + 3_000,
               finished_ms=CP + 50_000, last_seen_ms=CP + 50_000, memory_seconds=47_000),
        record("application_1_0002", "root.b", CP + 30_000, launched_ms=CP + 32_000,
               finished_ms=CP + 90_000, last_seen_ms=CP + 90_000, memory_seconds=184_320),
        record("application_1_0004", "root.b", CP + 70_000, launched_ms=CP + 75_000,
               finished_ms=CP + 100_000, last_seen_ms=CP + 100_000, memory_seconds=61_440),
        record("application_1_0005", "root.b", CP + 110_000, state="ACCEPTED",
               last_seen_ms=END),
    ]
    preempted = [Preemption(CP + 50_000, "application_1_0002", "root.b", 2, 0, 2048, 2),
                 Preemption(CP, "application_1_0001", "root.a", 5, 0, 5120, 5)]
    tallies = {(CP, END): [tally("root", 3584, 3.5), tally("root.a", 1280, 1.25),
                           tally("root.b", 2304, 2.25)]}
    return FakeHistory({CP: checkpoint()}, records, END, tallies, preempted)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("calibration")
    fork(history(), CP, base / "fork", now_ms=END + 1,
         choices=Choices(remaining_dist="fixed", remaining_ms=60_000))
    simulate_fork(base / "fork", base / "run")
    return base / "fork", base / "run"


def test_the_calibration_of_the_worked_example(run: tuple[Path, Path]) -> None:
    c = calibrate(history(), *run)
    assert (c.start_ms, c.end_ms, c.simulated_ms, c.recorded_ms) == (CP, END, 120_000, 120_000)
    by = {q.queue: q for q in c.queues}
    assert list(by) == ["root", "root.a", "root.b"]
    assert by["root.a"].simulated == pytest.approx((1024, 1.0))
    assert by["root.b"].simulated == pytest.approx((2073.6, 2.025))
    assert by["root"].simulated == pytest.approx((3097.6, 3.025))
    assert by["root.a"].recorded == (1280, 1.25)
    assert by["root.a"].difference_pct == pytest.approx((-20, -20))
    assert by["root.b"].difference_pct == pytest.approx((-10, -10))
    assert by["root"].difference_pct == pytest.approx((-13.5714, -13.5714), abs=1e-3)
    assert by["root.a"].am_wait_recorded == Waits(3000, 3000, 1, 0)
    assert by["root.a"].am_wait_simulated == Waits(1000, 1000, 1, 0)
    assert by["root.b"].am_wait_recorded == Waits(2000, 5000, 2, 0)
    assert by["root.b"].am_wait_simulated == Waits(0, 0, 2, 0)
    assert by["root"].am_wait_recorded == Waits(3000, 5000, 3, 0)
    assert by["root"].am_wait_simulated == Waits(0, 1000, 3, 0)
    assert [(q.preempted_simulated, q.preempted_recorded) for q in c.queues] == [
        (0, 2), (0, 0), (0, 2)]


def test_a_run_that_ended_early_held_nothing_after(run: tuple[Path, Path]) -> None:
    """A summary whose span stopped at 60 s: its averages over 60 s count for half the span."""
    from fairshare.sim.record.summary_read import load_summary

    summary = load_summary(run[1])
    short = replace(summary, span=replace(summary.span, end_ms=60_000))
    c = compare(history(), CP, END, short, read_fork(run[0]).started_apps)
    by = {q.queue: q for q in c.queues}
    assert c.simulated_ms == 60_000
    assert by["root.a"].simulated == pytest.approx((512, 0.5))
    assert "The run ended after 1 m 00 s" in render(c)


def test_an_app_not_launched_by_the_end_counts_as_not_reached(run: tuple[Path, Path]) -> None:
    h = history()
    # W launched only after the span: recorded wait 50 s so far (120 − 70), not reached
    h.records[3] = replace(h.records[3], launched_ms=END + 10_000)
    by = {q.queue: q for q in calibrate(h, *run).queues}
    assert by["root.b"].am_wait_recorded == Waits(2000, 50_000, 2, 1)
    # V killed at CP + 50 s while waiting for its AM: not reached, 50 s (from CP)
    h.records[1] = replace(h.records[1], launched_ms=0, memory_seconds=0)
    by = {q.queue: q for q in calibrate(h, *run).queues}
    assert by["root.a"].am_wait_recorded == Waits(50_000, 50_000, 1, 1)


def test_an_app_whose_launch_was_not_reported_is_left_out_of_both_sides(
        run: tuple[Path, Path]) -> None:
    """W ran (61,440 MB·s) but the RM gave no launchTime (0): its wait is unknown."""
    h = history()
    h.records[3] = replace(h.records[3], launched_ms=0)
    c = calibrate(h, *run)
    by = {q.queue: q for q in c.queues}
    assert c.launch_unknown == 1
    assert by["root.b"].am_wait_recorded == Waits(2000, 2000, 1, 0)
    assert by["root.b"].am_wait_simulated == Waits(0, 0, 1, 0)
    assert "1 app left out of the AM waits" in render(c)


def test_render_and_json(run: tuple[Path, Path]) -> None:
    c = calibrate(history(), *run)
    text = render(c, 160)
    assert "root.b" in text and "2,074 / 2,304" in text and "-10 %" in text
    assert "2.02 / 2.25" in text  # vcores: 2.025 simulated (2.0249… as a float), 2.25
    assert "0 / 2.0 s" in text and "0 / 5.0 s" in text  # root.b's AM waits p50, p95
    assert "Limits of the calibration:" in text
    flat = " ".join(text.split())
    for limit in LIMITS:
        assert limit in flat
    doc = as_json(c)
    assert json.loads(json.dumps(doc)) == doc
    b = doc["queues"][2]
    assert b["queue"] == "root.b"
    assert b["difference-pct"] == {"memory-mb": -10.0, "vcores": -10.0}
    assert b["am-wait-ms"]["recorded"] == {"p50-ms": 2000, "p95-ms": 5000, "apps": 2,
                                           "not-reached": 0}
    assert b["preempted-containers"] == {"simulated": 0, "recorded": 2}
    assert doc["limits"] == list(LIMITS)


def test_a_fork_from_the_last_state_has_nothing_to_compare(tmp_path: Path) -> None:
    h = history()
    h.last_ms = CP
    fork(h, CP, tmp_path / "fork", now_ms=CP)
    with pytest.raises(ConfigError) as e:
        calibrate(h, tmp_path / "fork", tmp_path / "run")
    assert "nothing was recorded after it" in str(e.value)


def test_the_report_of_a_calibrated_fork_holds_the_calibration(
        run: tuple[Path, Path], tmp_path: Path) -> None:
    """The worked example's numbers on the run's report: root.b simulated 2,074 MB against
    2,304 MB recorded, −10.0 %; AM wait p95 0 against 5.0 s; 0 / 2 preempted containers."""
    import json
    import shutil

    from fairshare.config.errors import ConfigError
    from fairshare.report import build_report
    from fairshare.report.calibration import CALIBRATION
    from fairshare.watch.calibration import as_json

    run_dir = tmp_path / "run"
    shutil.copytree(run[1], run_dir)
    (run_dir / CALIBRATION).write_text(json.dumps(as_json(calibrate(history(), *run))))
    page = build_report(run_dir, run_dir / "report.html")[0].read_text(encoding="utf-8")
    section = page[page.index('<section id="calibration">'):]
    section = section[:section.index("</section>")]
    row = section[section.index('data-queue="root.b"'):]
    row = row[:row.index("</tr>")]
    assert "2,074 MB / 2,304 MB" in row and "-10.0 %" in row
    assert "0 / 5.0 s" in row and ">0 / 2<" in row
    assert "Limits of the calibration" in section
    (run_dir / CALIBRATION).write_text('{"queues": [{"queue": "root"}]}')
    with pytest.raises(ConfigError, match=CALIBRATION):
        build_report(run_dir, tmp_path / "again.html")
    assert not (tmp_path / "again.html").exists()

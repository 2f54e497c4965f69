"""``summary.json``'s ``waiting``: a queue's waiting time by cause (sim/record/waiting.py).

Each scenario (tests/sim/waiting_scenarios.py) holds its queue ``root.a`` by one cause; the
expected times are worked out from its timing (samples every second, each standing for the
second after it; heartbeats from +1 s, one container each; update passes every 500 ms)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app
from tests.sim import waiting_scenarios as w

runner = CliRunner()
ROOM = ("room-free", "the node heartbeat interval and locality delay")


def run(tmp_path: Path, text: str) -> dict[str, Any]:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(text)
    out = tmp_path / "out"
    result = runner.invoke(app, ["simulate", str(scenario), "-q", "-o", str(out)])
    assert result.exit_code == 0, result.output
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text())
    return summary


def causes(summary: dict[str, Any], queue: str = "root.a") -> list[tuple[str, str, int]]:
    return [(c["cause"], c["limit"], c["ms"]) for c in summary["queues"][queue]["waiting"]
            ["causes"]]


CASES = {
    # a1: its AM asked at 0, placed at 1 s; its task asked then, placed at 2 s: 2 s with room
    # free. a2: held not runnable from 0 until a1 ends at 32 s (2 s + 30 s): 32 s; then its AM
    # at 32 s, its task at 33 s: 1 s more with room free. 35 s in all.
    "MAX_RUNNING_APPS": [("max-running-apps", "maxRunningApps of root.a = 1", 32000),
                         (*ROOM, 3000)],
    "USER_MAX_APPS": [("user-max-apps", "maxRunningApps of user u = 1", 32000), (*ROOM, 3000)],
    # a's fair share is the whole 8 GB node: AM limit ceil(8192 × 0.15) = 1,229 MB. a1's AM
    # fits (1 s, then its task 1 s: 2 s); a2's AM (1 GB more) does not, from the check at
    # the 1 s heartbeat to a1's end at 32 s: 31 s; before that 1 s with no limit written
    # yet, and 1 s for its task after: 4 s with room free.
    "MAX_AM_SHARE": [("max-am-share", "maxAMShare of root.a = 0.15", 31000), (*ROOM, 4000)],
    # a1's AM (1 s) and its first task (1 s) come; from the 2 s sample a holds 2 GB, its max
    # share, and the second task waits until the first ends at 32 s: 30 s.
    "MAX_SHARE": [("max-share", "maxResources of root.a = 2,048 MB, 8 vcores", 30000),
                  (*ROOM, 2000)],
    # a1's 4 GB task is refused at 1 s (above 2 GB): held from then to the end at 60 s.
    "MAX_CONTAINER_ALLOCATION": [("max-container-allocation",
                                  "maxContainerAllocation of root.a = 2,048 MB, 2 vcores",
                                  59000), (*ROOM, 1000)],
    # b1 fills the 4 GB node by 4 s, its tasks end at 62, 63, 64 s; a1 arrives at 10 s and its
    # AM comes when the first ends (62 s): 52 s; its task then waits for the next, 1 s, when
    # the gate has just closed (utilization 0.75 at the 62 s update pass).
    "NOT_CONFIGURED": [("starvation-not-configured", "fairSharePreemptionTimeout of root.a "
                        "(unset, and no minSharePreemptionTimeout)", 52000),
                       ("utilization-gate", "yarn.scheduler.fair.preemption.cluster-"
                        "utilization-threshold = 0.8", 1000)],
    "PREEMPTION_OFF": [("preemption-off", "yarn.scheduler.fair.preemption = false", 53000)],
    "GATE_CLOSED": [("utilization-gate", "yarn.scheduler.fair.preemption.cluster-utilization-"
                     "threshold = 1", 53000)],
    # a1 below its share from 10 s, starved at 15 s (timeout 5 s): 5 s; victim warned at
    # 15 s, killed at 30 s (waitTimeBeforeKill 15 s): its AM on the freed space; at 30 s
    # the gate closed for the sample (1 s); back-off to 40 s (15 + 15 + 10): 9 s more of
    # the round (24 s); at 40 s starved by 614 MB (0.8 × 2 GB − 1 GB), less than its 1 GB
    # task: no round can free it, until 62 s: 22 s.
    "PREEMPTED": [("preemption-round", "waitTimeBeforeKill = 15.0 s, "
                   "waitTimeBeforeNextStarvationCheck = 10.0 s", 24000),
                  ("starvation-under-a-container", "fairSharePreemptionThreshold of root.a "
                   "= 0.8", 22000),
                  ("preemption-timeout", "fairSharePreemptionTimeout of root.a = 5.0 s "
                   "(threshold 0.8)", 5000),
                  ("utilization-gate", "yarn.scheduler.fair.preemption.cluster-utilization-"
                   "threshold = 0.8", 1000)],
    # as NOT_CONFIGURED, but starved at 15 s and every round blocked by b's containers.
    "NON_PREEMPTABLE": [("non-preemptable-victims",
                         "allowPreemptionFrom of the queues holding the cluster", 47000),
                        ("preemption-timeout", "fairSharePreemptionTimeout of root.a = 5.0 s "
                         "(threshold 0.8)", 5000),
                        ("utilization-gate", "yarn.scheduler.fair.preemption.cluster-"
                         "utilization-threshold = 0.8", 1000)],
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_cause_is_timed(tmp_path: Path, name: str) -> None:
    summary = run(tmp_path, getattr(w, name))
    expected = CASES[name]
    assert causes(summary) == expected
    waiting = summary["queues"]["root.a"]["waiting"]
    assert waiting["app-ms"] == sum(ms for *_, ms in expected)
    assert [c["share"] for c in waiting["causes"]] == [
        round(ms / waiting["app-ms"], 4) for *_, ms in expected]


def test_the_events_behind_a_cause_are_cited(tmp_path: Path) -> None:
    summary = run(tmp_path, w.MAX_RUNNING_APPS)
    events = {json.loads(x)["seq"]: json.loads(x)
              for x in (tmp_path / "out/events.jsonl").read_text().splitlines()}
    held = summary["queues"]["root.a"]["waiting"]["causes"][0]
    assert [events[s]["type"] for s in held["seqs"]] == ["app-not-runnable"]
    assert events[held["seqs"][0]]["app"] == "a2"


def test_parents_add_up_their_subtree_and_idle_queues_wait_for_nothing(tmp_path: Path) -> None:
    summary = run(tmp_path, w.MAX_RUNNING_APPS)
    assert causes(summary, "root") == causes(summary, "root.a")
    assert summary["queues"]["root.b"]["waiting"] == {"app-ms": 0, "causes": []}


def test_a_node_reserved_by_another_app_holds_those_that_would_fit(tmp_path: Path) -> None:
    """test_explain's RESERVING: big reserves n1 at 4 s for its 3 GB task (1 GB free); small
    arrives at 64 s and its 1 GB AM would fit the free 1 GB, but n1 serves big alone: held
    to the end at 600 s, 536 s. f's second 1 GB task likewise, from 4 s: 596 s."""
    from tests.workbench.test_explain import RESERVING
    summary = run(tmp_path, RESERVING)
    assert causes(summary, "root.c") == [("reserved-by-others", "big's reservation of n1",
                                          536_000)]
    assert causes(summary, "root.a")[0] == ("reserved-by-others", "big's reservation of n1",
                                            596_000)

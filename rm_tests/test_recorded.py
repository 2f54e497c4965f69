"""The recorded RM answers (tests/watch/recorded) are whole and agree with their own events.

These files are inputs for watch's tests, so a broken re-capture must fail here, not there.
The AMs see a preemption at their next allocate call, after the RM counted it, so at any
capture the harness's ``preempted`` events are at most the RM's ``numNonAMContainerPreempted``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

RECORDED = Path(__file__).resolve().parent.parent / "tests" / "watch" / "recorded"
FAIR_CASES = ["fair-preempted", "fair-preempted-later", "fair-churn"]
ENDPOINTS = ["info", "scheduler", "apps", "nodes", "metrics"]


def load(case: str, name: str) -> Any:
    return json.loads((RECORDED / case / f"{name}.json").read_bytes())


def events(case: str) -> list[dict[str, Any]]:
    lines = (RECORDED / case / "events.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line]


@pytest.mark.parametrize("case", [*FAIR_CASES, "capacity"])
def test_every_answer_is_a_200_json_body_with_its_sidecar(case: str) -> None:
    for name in ENDPOINTS:
        meta = json.loads((RECORDED / case / f"{name}.meta.json").read_text())
        assert meta["status"] == 200
        assert meta["path"] == f"/ws/v1/cluster/{name}"
        headers = dict((k.lower(), v) for k, v in meta["headers"])
        assert headers["content-type"] == "application/json;charset=utf-8"
        load(case, name)   # parses
    assert load(case, "info")["clusterInfo"]["resourceManagerVersion"] == "3.4.2"


@pytest.mark.parametrize("case", FAIR_CASES)
def test_fair_cases_preemptions_agree_with_the_rm(case: str) -> None:
    assert load(case, "scheduler")["scheduler"]["schedulerInfo"]["type"] == "fairScheduler"
    seen = events(case)
    cluster = load(case, "info")["clusterInfo"]["id"]
    assert seen[0]["event"] == "rm_started" and seen[0]["cluster_timestamp"] == cluster
    apps = {a["id"]: a for a in load(case, "apps")["apps"]["app"]}
    submitted = {e["app"] for e in seen if e["event"] == "app_submitted"}
    assert set(apps) == submitted
    total = 0
    for app_id, app in apps.items():
        mine = [e for e in seen if e["event"] == "preempted" and e["app"] == app_id]
        assert len(mine) <= app["numNonAMContainerPreempted"] + app["numAMContainerPreempted"]
        total += len(mine)
    assert total >= 1


def test_the_later_sample_is_later_and_has_more_preemptions() -> None:
    first = {a["queue"]: a for a in load("fair-preempted", "apps")["apps"]["app"]}
    later = {a["queue"]: a for a in load("fair-preempted-later", "apps")["apps"]["app"]}
    assert first["root.a"]["id"] == later["root.a"]["id"]
    assert later["root.a"]["elapsedTime"] > first["root.a"]["elapsedTime"]
    preempted = "numNonAMContainerPreempted"
    assert later["root.a"][preempted] > first["root.a"][preempted] >= 1
    assert load("fair-preempted", "metrics")["clusterMetrics"]["containersPending"] > 0


def test_the_capacity_case_is_a_capacity_scheduler() -> None:
    info = load("capacity", "scheduler")["scheduler"]["schedulerInfo"]
    assert info["type"] == "capacityScheduler"
    assert [q["queuePath"] for q in info["queues"]["queue"]] == ["root.a", "root.b"]

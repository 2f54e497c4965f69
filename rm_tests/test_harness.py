"""What must be true of Hadoop 3.4's FairScheduler RM after the contention script.

The cluster: 4 nodes of 8192 MB / 8 vcores (32768 MB). The allocation file
(rmharness/scripts/contention.xml): root.a, root.b (minResources 4096 mb, 4 vcores),
root.c → root.c.c1 (maxResources 16384 mb, 16 vcores), all weight 1, fair policy,
fairSharePreemptionTimeout 2 s, fairSharePreemptionThreshold 0.8. The script: alice's app in
root.a (AM 1024 MB) asks 40 × 1024 MB / 1 vcore and fills the cluster (AM + 31); at 4 s bob's
app in root.b (AM 1024 MB) arrives and, once its AM runs, asks 12 × 2048 MB.

Expected end state, worked from FSAppAttempt.fairShareStarvation and
getStarvedResourceRequests (Hadoop 3.4): root.a and root.b are the active leaves, so each has an
instantaneous fair share of 32768 / 2 = 16384 MB and bob's app (alone in root.b) the same.
Starvation = min(0.8 × 16384, demand) − usage, and FSPreemptionThread preempts only for whole
asks that fit in it:

* bob's AM (demand 1024): starvation 1024 → one 1024 MB container of alice's is preempted;
* bob's 12 × 2048 (demand 25600): min(13107.2, 25600) − 1024 = 12083.2 → ⌊12083.2 / 2048⌋ = 5
  asks of 2048, each freed by two of alice's 1024 MB containers on one node → 10 more;
* then bob holds 1024 + 5 × 2048 = 11264 MB; starvation 13107.2 − 11264 = 1843.2 is less than
  one 2048 MB ask, so preemption stops: alice keeps 32768 − 11 × 1024 = 21504 MB.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import httpx
import pytest

from rm_tests.harness import Event, Harness

CLUSTER_MB = 4 * 8192
FAIR_SHARE_MB = CLUSTER_MB // 2


def get(rm: Harness, path: str) -> Any:
    resp = httpx.get(f"{rm.base_url}/ws/v1/cluster/{path}", timeout=10.0,
                     headers={"Accept": "application/json"})
    assert resp.status_code == 200, f"GET {path}: {resp.status_code} {resp.text[:300]}"
    assert resp.headers["content-type"].startswith("application/json")
    return resp.json()


def queues(scheduler: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Every queue of a fairScheduler /scheduler body by name, walking childQueues."""
    out: dict[str, dict[str, Any]] = {}

    def walk(q: dict[str, Any]) -> None:
        out[q["queueName"]] = q
        for child in q.get("childQueues", {}).get("queue", []):
            walk(child)

    walk(scheduler["scheduler"]["schedulerInfo"]["rootQueue"])
    return out


def apps_by_queue(rm: Harness) -> dict[str, dict[str, Any]]:
    return {a["queue"]: a for a in get(rm, "apps")["apps"]["app"]}


def until(check: Callable[[], Any], timeout: float, what: str) -> Any:
    """Polls ``check`` (which raises AssertionError until it holds) for ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return check()
        except AssertionError as e:
            if time.monotonic() > deadline:
                raise AssertionError(f"{what} not reached in {timeout:.0f} s: {e}") from e
            time.sleep(0.5)


def kinds(events: list[Event], kind: str, queue: str | None = None) -> list[Event]:
    return [e for e in events if e["event"] == kind and (queue is None or e["queue"] == queue)]


def test_cluster_info_is_a_started_hadoop_3_4_rm(fair_rm: Harness) -> None:
    info = get(fair_rm, "info")["clusterInfo"]
    assert info["state"] == "STARTED"
    assert info["haState"] == "ACTIVE"
    assert info["resourceManagerVersion"].startswith("3.4.")
    # ClusterInfo: id and startedOn are both ResourceManager.getClusterTimeStamp()
    started = fair_rm.of("rm_started")[0]
    assert info["id"] == info["startedOn"] == started["cluster_timestamp"]


def test_scheduler_is_the_fair_scheduler_with_the_allocation_files_queues(
    fair_rm: Harness,
) -> None:
    body = get(fair_rm, "scheduler")
    assert body["scheduler"]["schedulerInfo"]["type"] == "fairScheduler"
    qs = queues(body)
    assert set(qs) == {"root", "root.a", "root.b", "root.c", "root.c.c1"}
    leaves = {n for n, q in qs.items() if q.get("type") == "fairSchedulerLeafQueueInfo"}
    assert leaves == {"root.a", "root.b", "root.c.c1"}
    assert "childQueues" not in qs["root.a"]
    assert qs["root.b"]["minResources"]["memory"] == 4096
    assert qs["root.b"]["minResources"]["vCores"] == 4
    assert qs["root.b"]["maxApps"] == 5
    assert qs["root.c.c1"]["maxResources"]["memory"] == 16384
    assert {q["schedulingPolicy"] for q in qs.values()} == {"fair"}
    # steady fair share: the cluster split by weight among root's three children, whatever
    # their demand (ComputeFairShares, rounded to whole MB)
    for name in ("root.a", "root.b", "root.c", "root.c.c1"):
        assert abs(qs[name]["steadyFairResources"]["memory"] - CLUSTER_MB / 3) <= 1
    assert qs["root"]["clusterResources"]["memory"] == CLUSTER_MB


def test_nodes_answer_200_with_the_registered_nodes(fair_rm: Harness) -> None:
    nodes = get(fair_rm, "nodes")["nodes"]["node"]
    registered = {e["node"] for e in fair_rm.of("node_registered")}
    assert {n["id"] for n in nodes} == registered
    assert len(registered) == 4
    for n in nodes:
        assert n["state"] == "RUNNING"
        assert n["totalResource"]["memory"] == 8192
        assert n["totalResource"]["vCores"] == 8
        assert n["usedMemoryMB"] + n["availMemoryMB"] == 8192
        assert "resourceUtilization" in n
    one = get(fair_rm, f"nodes/{nodes[0]['id']}")["node"]
    assert one["id"] == nodes[0]["id"]


def test_the_rm_preempts_root_a_for_root_b_as_hadoop_computes(fair_rm: Harness) -> None:
    events = fair_rm.wait_for(
        lambda ev: len(kinds(ev, "preempted", "root.a")) >= 11, 60, "11 preemptions in root.a"
    )
    preempted = kinds(events, "preempted", "root.a")
    assert all(e["exit_status"] == -102 for e in preempted)   # ContainerExitStatus.PREEMPTED
    size = {e["container"]: e["mb"] for e in kinds(events, "allocated")}
    assert sum(size[e["container"]] for e in preempted) == 11 * 1024
    warned = {c for e in kinds(events, "preemption_warned") for c in e["containers"]}
    assert {e["container"] for e in preempted} <= warned

    def settled() -> tuple[dict[str, Any], dict[str, Any]]:
        apps = apps_by_queue(fair_rm)
        qs = queues(get(fair_rm, "scheduler"))
        assert apps["root.a"]["numNonAMContainerPreempted"] == 11, apps["root.a"]
        assert apps["root.b"]["allocatedMB"] == 1024 + 5 * 2048, apps["root.b"]
        assert qs["root.b"]["usedResources"]["memory"] == 1024 + 5 * 2048
        return apps, qs

    apps, qs = until(settled, 30, "the end state of the contention")
    alice, bob = apps["root.a"], apps["root.b"]
    assert alice["numAMContainerPreempted"] == 0
    assert alice["preemptedResourceMB"] == 11 * 1024
    assert alice["allocatedMB"] == CLUSTER_MB - 11 * 1024
    assert qs["root.a"]["usedResources"]["memory"] == CLUSTER_MB - 11 * 1024
    assert bob["numNonAMContainerPreempted"] == 0
    for name in ("root.a", "root.b"):
        assert qs[name]["fairResources"]["memory"] == FAIR_SHARE_MB
    # pending: alice never got 9 of her 40; bob got 5 of his 12
    assert qs["root.a"]["pendingContainers"] == 9
    assert qs["root.b"]["pendingContainers"] == 7
    # the harness's own log agrees with the RM's counters
    time.sleep(1)   # one AM poll: the last completions reach the AMs
    events = list(fair_rm.events)
    assert len(kinds(events, "preempted", "root.a")) == 11
    assert len(kinds(events, "preempted", "root.b")) == 0
    assert len(kinds(events, "allocated", "root.b")) == 5


def test_metrics_agree_with_the_apps_and_nodes(fair_rm: Harness) -> None:
    def consistent() -> dict[str, Any]:
        m: dict[str, Any] = get(fair_rm, "metrics")["clusterMetrics"]
        apps = get(fair_rm, "apps")["apps"]["app"]
        assert m["allocatedMB"] == sum(a["allocatedMB"] for a in apps), m
        return m

    m = until(consistent, 10, "metrics = sum over apps")
    assert m["totalMB"] == CLUSTER_MB                    # non-CS: available + allocated
    assert m["activeNodes"] == m["totalNodes"] == 4
    assert m["appsRunning"] == m["appsSubmitted"] == 2
    assert m["containersPending"] == 9 + 7
    assert m["pendingMB"] == 9 * 1024 + 7 * 2048


def test_status_and_bad_commands_on_the_control_channel(fair_rm: Harness) -> None:
    seen = len(fair_rm.of("status"))
    fair_rm.send("status")
    fair_rm.wait_for(lambda ev: len(kinds(ev, "status")) > seen, 10, "status answer")
    apps = fair_rm.of("status")[-1]["apps"]
    assert sorted(a["queue"] for a in apps) == ["root.a", "root.b"]
    assert {a["phase"] for a in apps} == {"running"}
    errors = len(fair_rm.of("error"))
    fair_rm.send("submit {not json")
    fair_rm.send("frobnicate")
    fair_rm.wait_for(lambda ev: len(kinds(ev, "error")) >= errors + 2, 10, "two errors")
    assert fair_rm.of("error")[-1]["command"] == "frobnicate"


def test_a_submitted_app_runs_in_its_queue_and_finishes(fair_rm: Harness) -> None:
    """carol's app arrives in root.c.c1 on a full cluster: root.c becomes an active child of
    root, so its fair share is 32768 / 3 and its AM waits only for FSPreemptionThread (after
    the 2 s fairSharePreemptionTimeout); the AM unregisters 1 s after it registered."""
    fair_rm.send('submit {"name": "carol-q", "user": "carol", "queue": "root.c.c1", '
                 '"finish_after_ms": 1000, "asks": [{"containers": 1, "mb": 1024}]}')
    events = fair_rm.wait_for(
        lambda ev: any(e.get("name") == "carol-q" for e in kinds(ev, "app_submitted")),
        20, "carol's app",
    )
    carol = next(e for e in kinds(events, "app_submitted") if e["name"] == "carol-q")["app"]
    found = get(fair_rm, "apps?queue=root.c.c1")["apps"]["app"]
    assert [a["id"] for a in found] == [carol]
    assert found[0]["user"] == "carol"
    fair_rm.wait_for(
        lambda ev: any(e["app"] == carol for e in kinds(ev, "app_finished")), 40, "carol's finish"
    )

    def finished() -> dict[str, Any]:
        app: dict[str, Any] = get(fair_rm, f"apps/{carol}")["app"]
        assert app["state"] == "FINISHED", app["state"]
        # AppInfo of a finished app: -1, not 0 (the RM's dummy usage report) — once the
        # scheduler has removed the attempt, an event the RM's dispatcher handles after the
        # app turned FINISHED, so /apps may show the AM's 1024 MB for a moment before
        assert app["allocatedMB"] == -1, app["allocatedMB"]
        return app

    app = until(finished, 15, "carol's app FINISHED")
    assert app["finalStatus"] == "SUCCEEDED"
    assert app["finishedTime"] >= app["startedTime"] > 0
    # carol's AM came from preemption in root.a: root.b (11264 MB) would fall below its new
    # share 32768 / 3 by losing a 2048 MB container (FSAppAttempt.canContainerBePreempted)
    preempted_for_carol = [e for e in kinds(fair_rm.events, "preempted", "root.a")
                           if e["t_ms"] > next(x["t_ms"] for x in fair_rm.of("app_submitted")
                                               if x["app"] == carol)]
    assert preempted_for_carol


@pytest.mark.parametrize("script", ["idle"])
def test_capacity_scheduler_rm(start_rm: Callable[..., Harness], script: str) -> None:
    rm = start_rm("--scheduler", "capacity", "--script", script, "--nodes", "2x4096/4")
    info = get(rm, "scheduler")["scheduler"]["schedulerInfo"]
    assert info["type"] == "capacityScheduler"
    assert [q["queuePath"] for q in info["queues"]["queue"]] == ["root.a", "root.b"]
    assert [q["capacity"] for q in info["queues"]["queue"]] == [50.0, 50.0]
    assert len(get(rm, "nodes")["nodes"]["node"]) == 2

"""The DAOs against real Hadoop 3.4.2 answers (tests/watch/recorded/fair-preempted): the
same cluster rebuilt on an engine (``scenes.fair_preempted``: the harness's contention
script, up to the first preemption), rendered, and compared with what the RM served —
shape everywhere (keys, order, nesting, JSON types), values where the state is the same."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fairshare.server.rest import daos
from fairshare.server.rest.jersey import to_json
from fairshare.server.view import ServerSnapshot
from fairshare.sim.importer.dump import read_apps, read_nodes, read_scheduler
from fairshare.sim.importer.jsonfile import JsonFile
from tests.server.rest.fake import FakeControl, contention_engine, r
from tests.server.rest.scenes import fair_preempted
from tests.server.rest.shapes import Pairs, differences, parse, walk_queues

RECORDED = Path(__file__).resolve().parents[2] / "watch" / "recorded"
CASE = RECORDED / "fair-preempted"


def recorded(name: str, case: Path = CASE) -> Any:
    return parse((case / f"{name}.json").read_bytes())


@pytest.fixture(scope="module")
def scene() -> tuple[ServerSnapshot, str, str]:
    control, alice, bob = fair_preempted()
    return control.snapshot(), alice, bob


def rendered(s: ServerSnapshot, name: str) -> Any:
    docs = {"info": daos.cluster_info(s), "metrics": daos.cluster_metrics(s),
            "scheduler": daos.scheduler(s),
            "apps": daos.apps(s, daos.app_order(s, s.apps), rm_address="localhost:36857"),
            "nodes": daos.nodes(s, daos.node_order(s.nodes))}
    return parse(to_json(docs[name]))


@pytest.mark.parametrize("name", ["info", "metrics", "scheduler", "apps", "nodes"])
def test_the_shape_is_the_recorded_one(scene: tuple[ServerSnapshot, str, str],
                                       name: str) -> None:
    assert differences(rendered(scene[0], name), recorded(name)) == []


@pytest.mark.parametrize("case", ["fair-churn", "fair-preempted-later"])
@pytest.mark.parametrize("name", ["scheduler", "apps", "nodes", "metrics"])
def test_the_other_fair_cases_have_the_same_shape(scene: tuple[ServerSnapshot, str, str],
                                                  case: str, name: str) -> None:
    # an app's optional parts depend on its state: compare like with like — each of ours
    # with every recorded app that asks for containers and was (or was not) preempted too
    theirs = recorded(name, RECORDED / case)
    ours = rendered(scene[0], name)
    if name != "apps":
        assert differences(ours, theirs) == []
        return
    for app in ours.get("apps").get("app"):
        preempted = bool(app.get("preemptedResourceSecondsMap"))
        alike = [a for a in theirs.get("apps").get("app") if a.get("resourceRequests")
                 and bool(a.get("preemptedResourceSecondsMap")) == preempted]
        for other in alike:
            assert differences(app, other) == []


def mv(resource: Any) -> tuple[int, int]:
    return resource.get("memory"), resource.get("vCores")


def bounds(resource: Any) -> list[tuple[int, int]]:
    infos = resource.get("resourceInformations").get("resourceInformation")
    return [(i.get("minimumAllocation"), i.get("maximumAllocation")) for i in infos]


SETTLED = ("maxApps", "maxResources", "clusterResources", "maxContainerAllocation",
           "minResources", "usedResources", "amUsedResources", "steadyFairResources",
           "fairResources", "reservedResources")


def test_queue_values_match_where_the_state_is_the_same(
        scene: tuple[ServerSnapshot, str, str]) -> None:
    ours = walk_queues(rendered(scene[0], "scheduler").get("scheduler").get("schedulerInfo")
                       .get("rootQueue"))
    theirs = walk_queues(recorded("scheduler").get("scheduler").get("schedulerInfo")
                         .get("rootQueue"))
    assert set(ours) == set(theirs) == {"root", "root.a", "root.b", "root.c", "root.c.c1"}
    for name, queue in theirs.items():
        mine = ours[name]
        for field in SETTLED:
            value, expected = mine.get(field), queue.get(field)
            if isinstance(expected, Pairs):
                assert (mv(value), bounds(value)) == (mv(expected), bounds(expected)), \
                    (name, field)
            else:
                assert value == expected, (name, field)
        for field in ("pendingContainers", "allocatedContainers", "reservedContainers",
                      "schedulingPolicy", "preemptable", "numPendingApps", "numActiveApps"):
            assert mine.get(field) == queue.get(field), (name, field)


def test_the_unset_min_share_quirk(scene: tuple[ServerSnapshot, str, str]) -> None:
    # root.b sets minResources (4096 mb, 4 vcores): 0 / Long.MAX; root.a does not: the
    # scheduler's 1024–8192 MB and 1–4 vcores (captured from a real RM)
    queues = walk_queues(rendered(scene[0], "scheduler").get("scheduler")
                         .get("schedulerInfo").get("rootQueue"))
    assert bounds(queues["root.b"].get("minResources")) == [(0, 2**63 - 1), (0, 2**63 - 1)]
    assert bounds(queues["root.a"].get("minResources")) == [(1024, 8192), (1, 4)]


APP_FIELDS = ("user", "queue", "state", "finalStatus", "progress", "trackingUI",
              "diagnostics", "priority", "allocatedMB", "allocatedVCores", "reservedMB",
              "reservedVCores", "runningContainers", "queueUsagePercentage",
              "clusterUsagePercentage", "preemptedResourceMB", "numNonAMContainerPreempted",
              "numAMContainerPreempted", "logAggregationStatus", "unmanagedApplication",
              "amNodeLabelExpression", "timeouts")


def test_app_values_match_where_the_state_is_the_same(
        scene: tuple[ServerSnapshot, str, str]) -> None:
    ours = {a.get("user"): a for a in rendered(scene[0], "apps").get("apps").get("app")}
    theirs = {a.get("user"): a for a in recorded("apps").get("apps").get("app")}
    for user in ("alice", "bob"):
        for field in APP_FIELDS:
            assert ours[user].get(field) == theirs[user].get(field), (user, field)
        # a cluster timestamp in the ids like the recording's: the same ids and links
        for field in ("id", "clusterId", "trackingUrl"):
            assert ours[user].get(field) == theirs[user].get(field), (user, field)
    # alice's AM went to the first node in both; bob's to whichever node freed a container
    for field in ("masterNodeId", "amHostHttpAddress", "amContainerLogs"):
        assert ours["alice"].get(field) == theirs["alice"].get(field), field
    for user in ("alice", "bob"):
        requests = [(q.get("priority"), q.get("allocationRequestId"), q.get("numContainers"),
                     mv(q.get("capability"))) for q in ours[user].get("resourceRequests")]
        expected = [(q.get("priority"), q.get("allocationRequestId"), q.get("numContainers"),
                     mv(q.get("capability"))) for q in theirs[user].get("resourceRequests")]
        assert requests == expected


def test_apps_and_nodes_come_in_the_recorded_order(
        scene: tuple[ServerSnapshot, str, str]) -> None:
    for name, item, key in (("apps", "app", "id"), ("nodes", "node", "id")):
        ours = [x.get(key) for x in rendered(scene[0], name).get(name).get(item)]
        theirs = [x.get(key) for x in recorded(name).get(name).get(item)]
        assert ours == theirs


def test_cluster_values_match(scene: tuple[ServerSnapshot, str, str]) -> None:
    ours, theirs = rendered(scene[0], "metrics").get("clusterMetrics"), \
        recorded("metrics").get("clusterMetrics")
    for field in ("appsSubmitted", "appsRunning", "appsPending", "allocatedMB",
                  "availableMB", "pendingMB", "containersAllocated", "containersPending",
                  "totalMB", "totalVirtualCores", "totalNodes", "activeNodes",
                  "rmSchedulerBusyPercent"):
        # (the recorded /metrics was taken after bob's first reservation: reserved* differ)
        assert ours.get(field) == theirs.get(field), field
    info = rendered(scene[0], "info").get("clusterInfo")
    assert info.get("id") == info.get("startedOn") == recorded("info").get("clusterInfo") \
        .get("id")
    assert info.get("resourceManagerVersion") == "3.4.2"


def test_node_values_match(scene: tuple[ServerSnapshot, str, str]) -> None:
    ours = {n.get("id"): n for n in rendered(scene[0], "nodes").get("nodes").get("node")}
    theirs = {n.get("id"): n for n in recorded("nodes").get("nodes").get("node")}
    assert set(ours) == set(theirs)
    for node_id, node in theirs.items():
        for field in ("rack", "state", "nodeHostName", "nodeHTTPAddress", "healthReport",
                      "numContainers", "usedMemoryMB", "availMemoryMB"):
            assert ours[node_id].get(field) == node.get(field), (node_id, field)
        assert mv(ours[node_id].get("totalResource")) == mv(node.get("totalResource"))


def test_watch_reads_what_serve_writes(scene: tuple[ServerSnapshot, str, str]) -> None:
    """The importer's readers (what ``fairshare watch`` and ``import`` parse an RM with)
    take the rendered answers as they take a real RM's."""
    s = scene[0]
    root, cluster = read_scheduler(JsonFile(to_json(daos.scheduler(s)).decode(), "scheduler"))
    assert cluster == (32768, 32)
    assert sorted(q.name for q in root.children) == ["root.a", "root.b", "root.c"]
    nodes, skipped = read_nodes(JsonFile(to_json(daos.nodes(s, s.nodes)).decode(), "nodes"))
    assert len(nodes) == 4 and not skipped
    apps = read_apps(JsonFile(to_json(daos.apps(s, s.apps)).decode(), "apps"))
    assert sorted(a.user for a in apps) == ["alice", "bob"]


def test_a_finished_app_as_the_recorded_ones() -> None:
    """fair-churn's bob-1 and bob-2 FINISHED: usage −1 (the RM's dummy usage report), progress
    100.0, History behind the proxy address, no asks; rendered from an app that ran and
    finished here."""
    control = FakeControl(contention_engine())
    carol = control.submit_direct("root.c.c1", "carol", r(1024, 1))
    control.tick(10)
    control.snapshot()  # seen running, with its AM
    control.engine.finish(carol)
    s = control.snapshot()
    ours = parse(to_json(daos.app(s, s.app(carol), rm_address="localhost:39427"))).get("app")
    theirs = next(a for a in recorded("apps", RECORDED / "fair-churn").get("apps").get("app")
                  if a.get("state") == "FINISHED")
    assert differences(ours, theirs) == []
    for field in ("state", "finalStatus", "progress", "trackingUI", "allocatedMB",
                  "allocatedVCores", "reservedMB", "reservedVCores", "runningContainers",
                  "queueUsagePercentage", "clusterUsagePercentage", "logAggregationStatus"):
        assert ours.get(field) == theirs.get(field), field
    assert ours.get("trackingUrl") == f"http://localhost:39427/proxy/{carol}/"
    assert ours.get("finishedTime") > ours.get("startedTime") > 0
    assert ours.get("elapsedTime") == ours.get("finishedTime") - ours.get("startedTime")

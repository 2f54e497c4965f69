"""``fairshare serve --executor ray`` end to end, on conftest's three-node Ray cluster: the REST
API on 127.0.0.1, two queues with preemption on, one app that fills the cluster with
distributed-shell containers (Ray tasks), then an app in the other queue that gets its fair
share back through preemption of the first app's Ray tasks — as worked out by hand below — and
nothing left running once the server stops.

The fair shares by hand. conftest's nodes: 2 GiB/2 CPUs, 1 GiB/1 CPU, 3 GiB/3 CPUs — the
cluster is 6144 MB, 6 vcores, and holds six 1024 MB/1 vcore containers. YARN's defaults
normalise nothing here (minimum allocation 1024 MB, 1 vcore). Queues root.a and root.b, weight
1, fair policy (memory): with both active and both asking for more than half, the
instantaneous fair share of each is 6144 / 2 = 3072 MB.

* App A (root.a): its AM (1024 MB) and 8 shell containers of 1024 MB: it gets the whole
  cluster, the AM and 5 containers (6144 MB); 3 containers wait.
* App B (root.b): its AM and then 4 containers. It is starved for its fair share
  (``fairSharePreemptionThreshold`` 1.0; ``FSAppAttempt.fairShareStarvation``: the smaller of
  its fair share and its demand, less its usage): first for its AM alone, min(3072, 1024) − 0
  = 1024 MB, one container; with its AM placed it asks for its 4 containers and is starved for
  min(3072, 5120) − 1024 = 2048 MB, two more. ``FSPreemptionThread`` takes A's non-AM
  containers (A's AM is spared while others will do), and only while A stays at or above its
  own fair share (``FSAppAttempt.canContainerBePreempted``): 6144 → 3072 MB, three in all.
* Then: A has its AM and 2 containers (3072 MB), B its AM and 2 containers (3072 MB); neither
  is starved, so nothing more is preempted; A's 3 + 3 containers and B's 2 wait.

The run is seeded: the cluster timestamp is fixed (the app and container ids), and nothing in
the engine is random; only the nodes' ports (and so which node a container lands on) vary.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from fairshare.cli.common import bind_listening
from fairshare.server.executors.ray_node import RAY_NODE_ID_VARIABLE
from fairshare.server.rest.submit import AM_CONTAINER_SPEC
from fairshare.server.service import Served, ServeOptions, build
from fairshare.server.view import yarn_container_id
from ray_tests.conftest import BOUND_S, RayCluster, live_in_group, wait_until

SRC = str(Path(__file__).resolve().parents[1] / "src")  # for the AM's fairshare.client
CLUSTER_TIMESTAMP = 1_700_000_000_000
A = f"application_{CLUSTER_TIMESTAMP}_0001"
B = f"application_{CLUSTER_TIMESTAMP}_0002"
MB = 1024  # every container's memory
FAIR_SHARE = 3072  # worked out in the module docstring
ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <queue name="a"><weight>1</weight></queue>
  <queue name="b"><weight>1</weight></queue>
  <defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>
  <defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>
</allocations>
"""
# preemption on; its waits, the update pass and the heartbeats short for a test's time
SITE = {
    "yarn.scheduler.fair.preemption": "true",
    "yarn.scheduler.fair.waitTimeBeforeKill": "500",
    "yarn.scheduler.fair.waitTimeBeforeNextStarvationCheck": "500",
    "yarn.scheduler.fair.update-interval-ms": "200",
    "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms": "200",
    "yarn.resource-types": "yarn.io/gpu",  # Ray's GPU, mapped
    "yarn.nodemanager.sleep-delay-before-sigkill.ms": "100",
}
# each container: its bash's pid (its process group) and the Ray node it runs on, then a wait
# longer than the test
COMMAND = f"echo $$ > pid; echo ${RAY_NODE_ID_VARIABLE} > ray-node; sleep 300"


def site_xml() -> str:
    properties = "".join(f"<property><name>{k}</name><value>{v}</value></property>"
                         for k, v in SITE.items())
    return f"<?xml version='1.0'?><configuration>{properties}</configuration>"


@dataclass
class Server:
    served: Served
    url: str
    client: httpx.Client
    out: Path
    stopped: bool = False

    def stop(self) -> None:
        if not self.stopped:
            self.stopped = True
            self.served.stop()

    def get(self, path: str) -> Any:
        response = self.client.get(f"{self.url}/ws/v1/cluster{path}")
        assert response.status_code == 200, (path, response.text)
        return response.json()

    def submit(self, app: str, queue: str, containers: int) -> None:
        """A distributed-shell app: ``containers`` shell containers of 1024 MB, 1 vcore."""
        self.submit_body(app, {
            "application-name": f"shell-{queue}", "queue": queue,
            "resource": {"memory": MB, "vCores": 1},
            "fairshare": {"distributed-shell": {
                "num-containers": containers, "shell-command": COMMAND,
                "container-memory": MB, "container-vcores": 1}}})

    def submit_body(self, app: str, fields: dict[str, Any]) -> None:
        made = self.client.post(f"{self.url}/ws/v1/cluster/apps/new-application")
        assert made.status_code == 200
        assert made.json()["application-id"] == app  # the ids are the seeded ones
        body = {"application-id": app, **fields}
        submitted = self.client.post(f"{self.url}/ws/v1/cluster/apps?user.name=alice",
                                     json=body)
        assert submitted.status_code == 202, submitted.text

    def app(self, app: str) -> dict[str, Any]:
        return self.get(f"/apps/{app}")["app"]  # type: ignore[no-any-return]

    def queues(self) -> dict[str, dict[str, Any]]:
        root = self.get("/scheduler")["scheduler"]["schedulerInfo"]["rootQueue"]
        return {q["queueName"]: q for q in root["childQueues"]["queue"]}

    def containers(self, app: str) -> dict[str, Path]:
        """The app's containers that started a process: YARN's container id → work folder
        (``<app>/<container>/work`` for the server's own AMs' containers, the NodeManager's
        ``usercache/<user>/appcache/<app>/<container>`` for an AM's of its own)."""
        prefix = f"container_{app[len('application_'):]}_"
        found = {}
        for pid in (self.out / "containers").rglob("pid"):
            work = pid.parent
            name = work.name if work.name.startswith("container_") else work.parent.name
            if name.startswith(prefix) and pid.read_text().strip():
                found[name] = work
        return found

    def events(self, kind: str) -> list[dict[str, Any]]:
        """The engine's events of a kind, from the session's events.jsonl (flushed as they
        come)."""
        lines = (self.out / "events.jsonl").read_text().splitlines()
        return [e for e in map(json.loads, lines) if e["type"] == kind]

    def preempted(self) -> set[str]:
        """The containers preempted (YARN's ids)."""
        return {yarn_container_id(e["container"]) for e in self.events("container-preempted")}

    def placed(self) -> dict[str, str]:
        """Where each container was allocated: YARN's container id → node id."""
        return {yarn_container_id(e["container"]): e["node"]
                for e in self.events("container-allocated")}


@pytest.fixture
def server(ray_cluster: RayCluster, tmp_path: Path) -> Iterator[Server]:
    (tmp_path / "fair-scheduler.xml").write_text(ALLOCATIONS)
    (tmp_path / "yarn-site.xml").write_text(site_xml())
    out = tmp_path / "session"
    served = build(ServeOptions(tmp_path / "fair-scheduler.xml", tmp_path / "yarn-site.xml",
                                nodes=None, executor="ray", ray_address=ray_cluster.address,
                                out=out, cluster_timestamp=CLUSTER_TIMESTAMP))
    listening = bind_listening("127.0.0.1", 0)
    url = f"http://127.0.0.1:{listening.getsockname()[1]}"
    made: Server | None = None
    web: uvicorn.Server | None = None
    thread: threading.Thread | None = None
    try:
        served.start(url)
        web = uvicorn.Server(uvicorn.Config(served.app, host="127.0.0.1", log_level="warning",
                                            access_log=False, lifespan="off"))
        thread = threading.Thread(target=web.run, kwargs={"sockets": [listening]},
                                  daemon=True)
        thread.start()
        wait_until(lambda: web.started or not thread.is_alive(), "uvicorn started")
        assert web.started, "uvicorn did not start"
        with httpx.Client(timeout=BOUND_S) as client:
            made = Server(served, url, client, out)
            yield made
    finally:
        if web is not None and thread is not None:
            web.should_exit = True
            thread.join(timeout=BOUND_S)
        if made is None or not made.stopped:
            served.stop()
        listening.close()


def groups(server: Server, app: str) -> dict[str, int]:
    return {c: int((work / "pid").read_text()) for c, work in server.containers(app).items()}


def running(server: Server, app: str) -> int:
    return int(server.app(app).get("runningContainers", 0))


def test_a_starved_queue_gets_its_fair_share_back_by_preempting_ray_tasks(
        ray_cluster: RayCluster, server: Server) -> None:
    assert server.served.loop.executor.sigkill_delay_ms == 100  # type: ignore[attr-defined]
    nodes = server.get("/nodes")["nodes"]["node"]
    assert sorted(n["totalResource"]["memory"] for n in nodes) == [1024, 2048, 3072]
    gpus = {n["id"]: {i["name"]: i["value"] for i in
                      n["totalResource"]["resourceInformations"]["resourceInformation"]}
            ["yarn.io/gpu"] for n in nodes}
    assert sorted(gpus.values()) == [0, 0, 1]  # the site's type, from Ray's GPU

    server.submit(A, "root.a", 8)
    wait_until(lambda: running(server, A) == 6 and len(server.containers(A)) == 5,
               "A fills the cluster: its AM and 5 shell containers")
    first = groups(server, A)
    assert all(live_in_group(g) for g in first.values())
    # hard node affinity: each container ran on the Ray node of the NodeManager the RM placed
    # it on (the node ids are the raylets' address:port)
    ray_node = {f"{n.node_ip_address}:{n.node_manager_port}": n.node_id for n in
                (ray_cluster.head, ray_cluster.gpu, ray_cluster.licensed)}

    def on_their_nodes(app: str) -> None:
        placed = server.placed()
        for container, work in server.containers(app).items():
            assert (work / "ray-node").read_text().strip() == ray_node[placed[container]]

    on_their_nodes(A)

    server.submit(B, "root.b", 4)
    wait_until(lambda: running(server, B) == 3 and running(server, A) == 3,
               "B's AM and 2 containers run, A is down to its AM and 2")
    # the fair share reached holds: nothing more is preempted over several starvation checks
    time.sleep(2.0)
    a, b = server.app(A), server.app(B)
    assert (a["runningContainers"], a["allocatedMB"]) == (3, FAIR_SHARE)
    assert (b["runningContainers"], b["allocatedMB"]) == (3, FAIR_SHARE)
    assert (a["numNonAMContainerPreempted"], a["numAMContainerPreempted"],
            a["preemptedResourceMB"]) == (3, 0, 3 * MB)
    assert (b["numNonAMContainerPreempted"], b["preemptedResourceMB"]) == (0, 0)
    queues = server.queues()
    for name in ("root.a", "root.b"):
        assert queues[name]["fairResources"]["memory"] == FAIR_SHARE, name
        assert queues[name]["usedResources"]["memory"] == FAIR_SHARE, name

    # the preempted Ray tasks' processes are gone, the others still run
    preempted = server.preempted()
    assert len(preempted) == 3 and preempted <= set(first)
    for container, group in first.items():
        wait_until(lambda g=group, gone=container in preempted: bool(live_in_group(g)) != gone,
                   f"{container}'s processes")
    # B's two containers run (a Ray task's worker may take a few seconds to start)
    wait_until(lambda: len(server.containers(B)) == 2, "B's two shell containers started")
    later = groups(server, B)
    assert all(live_in_group(g) for g in later.values())
    assert set(groups(server, A)) == set(first)  # A's waiting containers did not start
    on_their_nodes(B)
    # the cluster was full: B's AM and containers took exactly the places preempted
    placed = server.placed()
    b_containers = [c for c in placed if c.startswith(f"container_{B[len('application_'):]}")]
    assert Counter(placed[c] for c in b_containers) == Counter(placed[c] for c in preempted)

    server.stop()
    for group in [*first.values(), *later.values()]:
        wait_until(lambda g=group: not live_in_group(g), f"group {group} ended with the server")


# An AM of its own (the AM protocol, fairshare.client), itself a Ray task: 5 containers of
# 1024 MB, each running COMMAND; it reports what it was told of them once 3 have completed,
# then waits for the test's word (a file) before it unregisters.
OWN_AM = """
import json, os, time
from fairshare.client import AMClient, ContainerAsk
with AMClient.from_env() as am:
    am.register()
    am.allocate([ContainerAsk(5, 1024)])
    started, warned, completed = [], set(), []
    deadline = time.monotonic() + 60
    while len(completed) < 3 and time.monotonic() < deadline:
        answer = am.allocate()
        for c in answer.allocated:
            am.start_container(c.id, os.environ["COMMAND"])
            started.append(c.id)
        warned |= set(answer.to_preempt)
        completed += [[s.container_id, s.exit_status, s.diagnostics] for s in answer.completed]
        time.sleep(0.1)
    print(json.dumps({"started": started, "warned": sorted(warned),
                      "completed": sorted(completed)}), flush=True)
    while not os.path.exists(os.environ["RELEASE"]) and time.monotonic() < deadline:
        am.allocate()
        time.sleep(0.1)
    am.unregister("SUCCEEDED", "done")
"""


def test_an_am_on_ray_is_told_its_preempted_containers_status(
        ray_cluster: RayCluster, server: Server, tmp_path: Path) -> None:
    """The same fair shares as above (A: its AM and 5 containers, the whole cluster, asked for
    6144 MB; B: 5120 MB): B is starved for 3072 MB, three of A's containers are preempted, and
    A's AM — a Ray task speaking the AM protocol — is given each one's status as YARN gives it,
    -102 (ContainerExitStatus.PREEMPTED), having been warned of them first."""
    program = tmp_path / "am.py"
    program.write_text(OWN_AM)
    release = tmp_path / "release"
    environment = {"PYTHONPATH": SRC, "COMMAND": COMMAND, "RELEASE": str(release)}
    server.submit_body(A, {
        "application-name": "own-am", "queue": "root.a", "resource": {"memory": MB, "vCores": 1},
        AM_CONTAINER_SPEC: {"commands": {"command": f"{sys.executable} {program}"},
                            "environment": {"entry": [{"key": k, "value": v}
                                                      for k, v in environment.items()]}}})
    wait_until(lambda: len(server.containers(A)) == 5, "A's AM started its 5 containers")
    first = groups(server, A)
    server.submit(B, "root.b", 4)
    am_out = server.out / "containers" / A / f"container_{A[len('application_'):]}_01_000001"
    stdout = am_out / "stdout"
    wait_until(lambda: stdout.exists() and stdout.read_text().strip(), "A's AM reported")
    said = json.loads(stdout.read_text().strip().splitlines()[-1])
    assert sorted(said["started"]) == sorted(first)
    preempted = server.preempted()
    assert len(preempted) == 3 and preempted <= set(first)
    assert said["completed"] == [[c, -102, "Container preempted by scheduler"]
                                 for c in sorted(preempted)]
    assert set(said["warned"]) == preempted  # told before they were taken
    for container, group in first.items():
        wait_until(lambda g=group, gone=container in preempted: bool(live_in_group(g)) != gone,
                   f"{container}'s processes")
    wait_until(lambda: running(server, B) == 3, "B's AM and 2 containers run")
    assert running(server, A) == 3

    release.write_text("")  # A unregisters: it ends, and its containers with it
    wait_until(lambda: server.app(A)["state"] == "FINISHED", "A finished")
    assert server.app(A)["finalStatus"] == "SUCCEEDED"
    for group in first.values():
        wait_until(lambda g=group: not live_in_group(g), f"group {group} ended with A")

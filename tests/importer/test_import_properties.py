"""Property: a dump made from a true cluster state (nodes, apps and where their containers
run) imports into a scenario whose queues hold, at t = 0, what the dump says, with every
container on a node that has room for it — and, when every app still asks for tasks of its
running tasks' size, on exactly the nodes' used resources. With ``containers/`` files for some
apps, those apps' containers start exactly as listed (node, size, id, the AM marked).

The dumps are written here from the generated state in the REST documentation's shapes.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fairshare.sim.importer.build import import_dump
from fairshare.sim.importer.scenario_text import Choices
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.run.scripted import ScriptRunner

QUEUES = ("root.a", "root.b")


@st.composite
def clusters(draw: st.DrawFn) -> dict[str, Any]:
    nodes = [{"name": f"n{i}", "capacity": (draw(st.sampled_from([4096, 8192])), 8)}
             for i in range(draw(st.integers(1, 4)))]
    free = {n["name"]: list(n["capacity"]) for n in nodes}
    apps = []
    for i in range(draw(st.integers(1, 4))):
        am = (draw(st.sampled_from([1024, 2048])), 1)
        task = (draw(st.sampled_from([1024, 2048, 3072])), 1)
        placed = []
        for size in [am] * 1 + [task] * draw(st.integers(0, 4)):
            room = [n for n, f in free.items() if f[0] >= size[0] and f[1] >= size[1]]
            if not room:
                break
            node = draw(st.sampled_from(room))
            free[node][0] -= size[0]
            free[node][1] -= size[1]
            placed.append((node, size))
        if placed:
            apps.append({"id": f"application_1_{i:04d}", "queue": draw(st.sampled_from(QUEUES)),
                         "placed": placed, "task": task, "pending": draw(st.integers(1, 3))})
    return {"nodes": nodes, "apps": apps}


def write_dump(folder: Path, cluster: dict[str, Any]) -> None:
    used = {n["name"]: [0, 0, 0] for n in cluster["nodes"]}
    queue_used = {q: [0, 0] for q in ("root", *QUEUES)}
    apps = []
    for a in cluster["apps"]:
        memory = sum(s[0] for _, s in a["placed"])
        vcores = sum(s[1] for _, s in a["placed"])
        for node, size in a["placed"]:
            used[node][0] += size[0]
            used[node][1] += size[1]
            used[node][2] += 1
        for q in ("root", a["queue"]):
            queue_used[q][0] += memory
            queue_used[q][1] += vcores
        am_node = a["placed"][0][0]
        apps.append({
            "id": a["id"], "user": "u", "queue": a["queue"], "state": "RUNNING",
            "startedTime": 1000, "allocatedMB": memory, "allocatedVCores": vcores,
            "runningContainers": len(a["placed"]), "amHostHttpAddress": f"{am_node}:8042",
            "resourceRequests": [{"priority": 20, "resourceName": "*", "numContainers":
                                  a["pending"], "capability": {"memory": a["task"][0],
                                                               "vCores": a["task"][1]}}]})
    total = [sum(n["capacity"][0] for n in cluster["nodes"]), 8 * len(cluster["nodes"])]

    def res(pair: list[int] | tuple[int, int]) -> dict[str, int]:
        return {"memory": pair[0], "vCores": pair[1]}

    leaves = [{"type": "fairSchedulerLeafQueueInfo", "queueName": q, "schedulingPolicy": "fair",
               "usedResources": res(queue_used[q]), "steadyFairResources": res(
                   [total[0] // 2, total[1] // 2])} for q in QUEUES]
    scheduler = {"scheduler": {"schedulerInfo": {"type": "fairScheduler", "rootQueue": {
        "queueName": "root", "schedulingPolicy": "fair", "usedResources": res(queue_used["root"]),
        "clusterResources": res(total), "maxResources": res(total),
        "childQueues": {"queue": leaves}}}}}
    nodes = {"nodes": {"node": [{
        "nodeHostName": n["name"], "nodeHTTPAddress": f"{n['name']}:8042", "rack": "/r",
        "state": "RUNNING", "usedMemoryMB": used[n["name"]][0],
        "availMemoryMB": n["capacity"][0] - used[n["name"]][0],
        "usedVirtualCores": used[n["name"]][1], "availableVirtualCores": 8 - used[n["name"]][1],
        "numContainers": used[n["name"]][2]} for n in cluster["nodes"]]}}
    for name, doc in (("scheduler.json", scheduler), ("nodes.json", nodes),
                      ("apps.json", {"apps": {"app": apps}})):
        (folder / name).write_text(json.dumps(doc, indent=1))


class AtStart:
    def __init__(self) -> None:
        self.runner: ScriptRunner | None = None
        self.queues: dict[str, tuple[int, int]] = {}
        self.nodes: dict[str, tuple[int, int]] = {}
        self.containers: set[tuple[str, str, str, int, int, bool]] = set()

    def on_events(self, events: object) -> None:
        pass

    def on_snapshot(self, now_ms: int) -> None:
        if now_ms == 0:
            assert self.runner is not None
            state = self.runner.engine.state
            self.queues = {q.name: (q.usage.memory, q.usage.vcores)
                           for q in state.queues.values()}
            self.nodes = {n.name: (n.allocated.memory, n.allocated.vcores)
                          for n in state.nodes.values()}
            self.containers = {(c.app_id, c.id, c.node, c.resource.memory, c.resource.vcores,
                                c.is_am) for a in state.apps.values()
                               for c in a.containers.values()}

    def on_end(self, now_ms: int) -> None:
        pass


@settings(max_examples=int(os.environ.get("FAIRSHARE_PROPERTY_EXAMPLES", "100")) // 2,
          deadline=None, derandomize=not os.environ.get("FAIRSHARE_PROPERTY_RANDOM"),
          suppress_health_check=[HealthCheck.too_slow])
@given(clusters())
def test_an_imported_cluster_starts_where_the_dump_was(cluster: dict[str, Any]) -> None:
    with TemporaryDirectory() as tmp:
        folder = Path(tmp) / "dump"
        folder.mkdir()
        write_dump(folder, cluster)
        import_dump(folder, Path(tmp) / "out", Choices(remaining_ms=1000, task_ms=1000))
        watch = AtStart()
        runner = ScriptRunner(load_scenario(Path(tmp) / "out" / "scenario.yaml"),
                              observers=[watch])
        watch.runner = runner
        runner.run()
    expected_queues: dict[str, list[int]] = {q: [0, 0] for q in ("root", *QUEUES)}
    expected_nodes = {n["name"]: [0, 0] for n in cluster["nodes"]}
    for a in cluster["apps"]:
        for node, size in a["placed"]:
            for q in ("root", a["queue"]):
                expected_queues[q][0] += size[0]
                expected_queues[q][1] += size[1]
            expected_nodes[node][0] += size[0]
            expected_nodes[node][1] += size[1]
    assert {q: watch.queues[q] for q in expected_queues} == {
        q: tuple(v) for q, v in expected_queues.items()}
    assert watch.nodes == {n: tuple(v) for n, v in expected_nodes.items()}


def write_listings(folder: Path, cluster: dict[str, Any], listed: list[bool]
                   ) -> set[tuple[str, str, str, int, int, bool]]:
    """``containers/<app>.json`` for the apps drawn as listed, in the RM's shape, in an order
    other than the ids' (the AM is found by its id); returns what they list."""
    (folder / "containers").mkdir()
    expected = set()
    for a, is_listed in zip(cluster["apps"], listed, strict=False):
        if not is_listed:
            continue
        number = a["id"].removeprefix("application_")
        entries = [{"containerId": f"container_{number}_01_{i + 1:06d}", "allocatedMB": size[0],
                    "allocatedVCores": size[1], "assignedNodeId": f"{node}:45454",
                    "priority": 0 if i == 0 else 20, "containerState": "RUNNING"}
                   for i, (node, size) in enumerate(a["placed"])]
        expected |= {(a["id"], e["containerId"], node, size[0], size[1], i == 0)
                     for i, (e, (node, size)) in enumerate(zip(entries, a["placed"],
                                                                strict=True))}
        listing = {"container": entries[::-1]}
        (folder / "containers" / f"{a['id']}.json").write_text(json.dumps(listing, indent=1))
    return expected


@settings(max_examples=int(os.environ.get("FAIRSHARE_PROPERTY_EXAMPLES", "100")) // 2,
          deadline=None, derandomize=not os.environ.get("FAIRSHARE_PROPERTY_RANDOM"),
          suppress_health_check=[HealthCheck.too_slow])
@given(clusters(), st.lists(st.booleans(), min_size=4, max_size=4))
def test_listed_containers_start_where_the_rm_listed_them(cluster: dict[str, Any],
                                                          listed: list[bool]) -> None:
    with TemporaryDirectory() as tmp:
        folder = Path(tmp) / "dump"
        folder.mkdir()
        write_dump(folder, cluster)
        expected = write_listings(folder, cluster, listed)
        result = import_dump(folder, Path(tmp) / "out", Choices(remaining_ms=1000,
                                                                task_ms=1000))
        watch = AtStart()
        runner = ScriptRunner(load_scenario(Path(tmp) / "out" / "scenario.yaml"),
                              observers=[watch])
        watch.runner = runner
        runner.run()
    assert result.exact_apps == sum(listed[:len(cluster["apps"])])
    assert result.exact_apps + result.rebuilt_apps == len(cluster["apps"])
    listed_ids = {c[0] for c in expected}
    assert {c for c in watch.containers if c[0] in listed_ids} == expected
    used = {n["name"]: [0, 0] for n in cluster["nodes"]}
    for a in cluster["apps"]:
        for node, size in a["placed"]:
            used[node][0] += size[0]
            used[node][1] += size[1]
    assert watch.nodes == {n: tuple(v) for n, v in used.items()}

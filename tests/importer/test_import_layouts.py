"""Property (issue 30, item 1): every consistent dump imports, and the scenario starts at t = 0
with every node's and every queue's usage exactly the dump's.

A true cluster state is generated — nodes of several sizes filled until some are memory-full
or vcore-full, apps with AMs of several sizes and tasks of one size each (odd vcore
remainders: 1 + 3k), some apps still asking for tasks of their running tasks' size, others
asking for nothing (Jersey then omits ``resourceRequests``), some unmanaged — and written as
the RM's REST API would (nodes' used resources and ``numContainers``, apps' totals and AM host,
queues' ``usedResources`` and ``amUsedResources``). The import is never refused, no container
is above YARN's maximum allocation, and the engine's state at t = 0 holds what the dump says.
"""

from __future__ import annotations

import contextlib
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

QUEUES = ("root.a", "root.b", "root.c")
AMS = ((1024, 1), (2048, 1), (3072, 2), (4096, 1))
TASKS = ((1024, 1), (2048, 1), (3072, 3), (4096, 2), (5120, 3), (8192, 4))
EXAMPLES = int(os.environ.get("FAIRSHARE_LAYOUT_EXAMPLES", "1000"))


@st.composite
def clusters(draw: st.DrawFn) -> dict[str, Any]:
    nodes = [{"name": f"n{i}", "capacity": (draw(st.sampled_from([8192, 16384, 24576])),
                                            draw(st.sampled_from([4, 8, 16])))}
             for i in range(draw(st.integers(1, 5)))]
    free = {n["name"]: list(n["capacity"]) for n in nodes}
    apps = []
    for i in range(draw(st.integers(1, 6))):
        unmanaged = draw(st.integers(0, 9)) == 0
        am = draw(st.sampled_from(AMS))
        task = draw(st.sampled_from(TASKS))
        sizes = ([] if unmanaged else [am]) + [task] * draw(st.integers(0, 10))
        placed = []
        for size in sizes:
            room = [n for n, f in free.items() if f[0] >= size[0] and f[1] >= size[1]]
            if not room:
                break
            node = draw(st.sampled_from(room))
            free[node][0] -= size[0]
            free[node][1] -= size[1]
            placed.append((node, size))
        if placed and (unmanaged or placed[0][1] == am):
            apps.append({"id": f"application_1_{i:04d}", "queue": draw(st.sampled_from(QUEUES)),
                         "placed": placed, "task": task, "unmanaged": unmanaged,
                         "pending": draw(st.sampled_from([0, 0, 1, 3]))})
    return {"nodes": nodes, "apps": apps}


def res(pair: list[int] | tuple[int, int]) -> dict[str, int]:
    return {"memory": pair[0], "vCores": pair[1]}


def write_dump(folder: Path, cluster: dict[str, Any]) -> None:
    used = {n["name"]: [0, 0, 0] for n in cluster["nodes"]}
    queue_used = {q: [0, 0] for q in ("root", *QUEUES)}
    am_used = {q: [0, 0] for q in QUEUES}
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
        app = {"id": a["id"], "user": "u", "queue": a["queue"], "state": "RUNNING",
               "startedTime": 1000, "allocatedMB": memory, "allocatedVCores": vcores,
               "runningContainers": len(a["placed"]), "unmanagedApplication": a["unmanaged"]}
        if not a["unmanaged"]:
            am_node, am = a["placed"][0]
            app["amHostHttpAddress"] = f"{am_node}:8042"
            am_used[a["queue"]][0] += am[0]
            am_used[a["queue"]][1] += am[1]
        if a["pending"]:
            app["resourceRequests"] = [{"priority": 0, "resourceName": "*", "numContainers":
                                        a["pending"], "capability": res(a["task"])}]
        apps.append(app)
    total = [sum(n["capacity"][0] for n in cluster["nodes"]),
             sum(n["capacity"][1] for n in cluster["nodes"])]
    leaves = [{"type": "fairSchedulerLeafQueueInfo", "queueName": q, "schedulingPolicy": "DRF",
               "usedResources": res(queue_used[q]), "amUsedResources": res(am_used[q])}
              for q in QUEUES]
    scheduler = {"scheduler": {"schedulerInfo": {"type": "fairScheduler", "rootQueue": {
        "queueName": "root", "schedulingPolicy": "DRF", "usedResources": res(queue_used["root"]),
        "clusterResources": res(total), "childQueues": {"queue": leaves}}}}}
    nodes = {"nodes": {"node": [{
        "nodeHostName": n["name"], "nodeHTTPAddress": f"{n['name']}:8042", "rack": "/r",
        "state": "RUNNING", "usedMemoryMB": used[n["name"]][0],
        "availMemoryMB": n["capacity"][0] - used[n["name"]][0],
        "usedVirtualCores": used[n["name"]][1],
        "availableVirtualCores": n["capacity"][1] - used[n["name"]][1],
        "numContainers": used[n["name"]][2]} for n in cluster["nodes"]]}}
    for name, doc in (("scheduler.json", scheduler), ("nodes.json", nodes),
                      ("apps.json", {"apps": {"app": apps}})):
        (folder / name).write_text(json.dumps(doc))


class _Started(Exception):
    """Raised at the first snapshot: the state at t = 0 is all the property needs."""


class AtStart:
    def __init__(self) -> None:
        self.runner: ScriptRunner | None = None
        self.queues: dict[str, tuple[int, int]] = {}
        self.nodes: dict[str, tuple[int, int]] = {}
        self.largest = (0, 0)

    def on_events(self, events: object) -> None:
        pass

    def on_snapshot(self, now_ms: int) -> None:
        assert self.runner is not None and now_ms == 0
        state = self.runner.engine.state
        self.queues = {q.name: (q.usage.memory, q.usage.vcores) for q in state.queues.values()}
        self.nodes = {n.name: (n.allocated.memory, n.allocated.vcores)
                      for n in state.nodes.values()}
        sizes = [c.resource for a in state.apps.values() for c in a.containers.values()]
        self.largest = (max((s.memory for s in sizes), default=0),
                        max((s.vcores for s in sizes), default=0))
        raise _Started

    def on_end(self, now_ms: int) -> None:
        pass


@settings(max_examples=EXAMPLES, deadline=None,
          derandomize=not os.environ.get("FAIRSHARE_PROPERTY_RANDOM"),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(clusters())
def test_every_consistent_dump_starts_where_it_was(cluster: dict[str, Any]) -> None:
    with TemporaryDirectory() as tmp:
        folder = Path(tmp) / "dump"
        folder.mkdir()
        write_dump(folder, cluster)
        result = import_dump(folder, Path(tmp) / "out", Choices(remaining_ms=1000,
                                                                task_ms=1000))
        watch = AtStart()
        runner = ScriptRunner(load_scenario(Path(tmp) / "out" / "scenario.yaml"),
                              observers=[watch])
        watch.runner = runner
        with contextlib.suppress(_Started):
            runner.run()
    assert not any("approximate" in note for note in result.notes), result.notes
    expected_queues = {q: [0, 0] for q in ("root", *QUEUES)}
    expected_nodes = {n["name"]: [0, 0] for n in cluster["nodes"]}
    for a in cluster["apps"]:
        for node, size in a["placed"]:
            for q in ("root", a["queue"]):
                expected_queues[q][0] += size[0]
                expected_queues[q][1] += size[1]
            expected_nodes[node][0] += size[0]
            expected_nodes[node][1] += size[1]
    assert {q: watch.queues.get(q, (0, 0)) for q in expected_queues} == {
        q: tuple(v) for q, v in expected_queues.items()}
    assert watch.nodes == {n: tuple(v) for n, v in expected_nodes.items()}
    assert watch.largest[0] <= 8192 and watch.largest[1] <= 4  # YARN's default maximum

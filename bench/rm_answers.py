"""A large ResourceManager's REST answers, generated (seeded) in Hadoop 3.4's shapes: the
Fair Scheduler's queue tree (``/ws/v1/cluster/scheduler``, every resource object with its
``resourceInformations``), ``/nodes``, ``/apps`` (with ``resourceRequests``), ``/metrics`` and
``/info`` — for bench/watch.py. Shapes follow the captures in tests/watch/recorded/.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass

LONG_MAX = 9_223_372_036_854_775_807
NODE_MB, NODE_VCORES = 16 * 1024, 8


def resource(memory: int, vcores: int, *, minimum: tuple[int, int] = (0, 0),
             maximum: tuple[int, int] = (LONG_MAX, LONG_MAX)) -> dict[str, object]:
    infos = [{"attributes": {}, "maximumAllocation": maximum[0],
              "minimumAllocation": minimum[0], "name": "memory-mb",
              "resourceType": "COUNTABLE", "units": "Mi", "value": memory},
             {"attributes": {}, "maximumAllocation": maximum[1],
              "minimumAllocation": minimum[1], "name": "vcores",
              "resourceType": "COUNTABLE", "units": "", "value": vcores}]
    return {"memory": memory, "vCores": vcores,
            "resourceInformations": {"resourceInformation": infos}}


@dataclass(frozen=True)
class Cluster:
    parents: int
    leaves_per_parent: int
    nodes: int
    apps: int
    cluster_id: int = 1_796_000_000_000

    @property
    def leaves(self) -> list[str]:
        return [f"root.p{p:02d}.q{q:02d}" for p in range(self.parents)
                for q in range(self.leaves_per_parent)]


CHANGE_EVERY = 10  # ticks between two changes of one app's allocation and asks


def answers(c: Cluster, tick: int, seed: int = 1) -> dict[str, str]:
    """The five answers at poll number ``tick``. Each app's containers and asks change every
    :data:`CHANGE_EVERY` ticks, the apps staggered, so a tenth of them change from one poll
    to the next (a busy cluster: at 5 s polls, each app's allocation moves every 50 s); what
    accrues (memory-seconds, elapsed time) moves at every tick."""
    total = (c.nodes * NODE_MB, c.nodes * NODE_VCORES)
    leaves = c.leaves
    apps = []
    per_leaf: dict[str, list[int]] = {name: [0, 0, 0, 0, 0] for name in leaves}
    for i in range(c.apps):
        rng = random.Random(seed * 1_000_003 + i * 7919 + (tick + i) // CHANGE_EVERY)
        queue = leaves[i % len(leaves)]
        running = rng.random() < 0.8
        containers = rng.randint(1, 12) if running else 0
        used = (containers * 2048, containers)
        pending = rng.randint(0, 6)
        stats = per_leaf[queue]
        stats[0] += used[0]
        stats[1] += used[1]
        stats[2] += pending
        stats[3] += running
        stats[4] += not running
        apps.append({
            "id": f"application_{c.cluster_id}_{i + 1:04d}", "user": f"u{i % 97}",
            "name": f"job-{i}", "queue": queue, "state": "RUNNING" if running else "ACCEPTED",
            "finalStatus": "UNDEFINED", "progress": 0.0, "trackingUI": "ApplicationMaster",
            "diagnostics": "", "clusterId": c.cluster_id, "applicationType": "MAPREDUCE",
            "applicationTags": "", "priority": 0, "startedTime": c.cluster_id + i * 1000,
            "launchTime": c.cluster_id + i * 1000 + 800 if running else -1,
            "finishedTime": 0, "elapsedTime": 1000 * tick,
            "amHostHttpAddress": f"n{i % c.nodes:05d}.example.com:8042",
            "allocatedMB": used[0], "allocatedVCores": used[1], "reservedMB": 0,
            "reservedVCores": 0, "runningContainers": containers,
            "memorySeconds": used[0] * tick * 5, "vcoreSeconds": used[1] * tick * 5,
            "queueUsagePercentage": 0.0, "clusterUsagePercentage": 0.0,
            "resourceSecondsMap": {}, "preemptedResourceMB": 0, "preemptedResourceVCores": 0,
            "numNonAMContainerPreempted": 0, "numAMContainerPreempted": 0,
            "preemptedMemorySeconds": 0, "preemptedVcoreSeconds": 0,
            "preemptedResourceSecondsMap": {},
            "resourceRequests": [{"priority": 20, "allocationRequestId": -1, "resourceName": "*",
                                  "capability": resource(2048, 1), "numContainers": pending,
                                  "relaxLocality": True, "nodeLabelExpression": "",
                                  "executionTypeRequest": {"executionType": "GUARANTEED",
                                                           "enforceExecutionType": False}}]
            if pending else [],
            "logAggregationStatus": "DISABLED", "unmanagedApplication": False,
            "amNodeLabelExpression": ""})
    share = (total[0] // len(leaves), total[1] // len(leaves))

    def queue(name: str, used: tuple[int, int], pending: int, children: list[object] | None,
              active: int = 0, waiting: int = 0) -> dict[str, object]:
        q: dict[str, object] = {}
        if children is None:
            q["type"] = "fairSchedulerLeafQueueInfo"
        scale = 1 if children is None else len(children)
        q.update({
            "maxApps": 2_147_483_647,
            "minResources": resource(0, 0, minimum=(1024, 1), maximum=(8192, 4)),
            "maxResources": resource(*total), "usedResources": resource(*used),
            "amUsedResources": resource(0, 0), "amMaxResources": resource(0, 0),
            "demandResources": resource(used[0] + pending * 2048, used[1] + pending),
            "steadyFairResources": resource(share[0] * scale, share[1] * scale),
            "fairResources": resource(share[0] * scale, share[1] * scale),
            "clusterResources": resource(*total), "reservedResources": resource(0, 0),
            "maxContainerAllocation": resource(8192, 4), "pendingContainers": pending,
            "allocatedContainers": used[1], "reservedContainers": 0, "queueName": name,
            "schedulingPolicy": "fair", "preemptable": True})
        if children is None:
            q["numPendingApps"] = waiting
            q["numActiveApps"] = active
        else:
            q["childQueues"] = {"queue": children}
        return q

    parents = []
    root_used, root_pending = [0, 0], 0
    for p in range(c.parents):
        kids, p_used, p_pending = [], [0, 0], 0
        for qn in range(c.leaves_per_parent):
            name = f"root.p{p:02d}.q{qn:02d}"
            s = per_leaf[name]
            kids.append(queue(name, (s[0], s[1]), s[2], None, s[3], s[4]))
            p_used[0] += s[0]
            p_used[1] += s[1]
            p_pending += s[2]
        parents.append(queue(f"root.p{p:02d}", (p_used[0], p_used[1]), p_pending, kids))
        root_used[0] += p_used[0]
        root_used[1] += p_used[1]
        root_pending += p_pending
    root = queue("root", (root_used[0], root_used[1]), root_pending, parents)
    nodes = [{"rack": f"/rack{n // 40:03d}", "state": "RUNNING",
              "id": f"n{n:05d}.example.com:8041", "nodeHostName": f"n{n:05d}.example.com",
              "nodeHTTPAddress": f"n{n:05d}.example.com:8042", "lastHealthUpdate": 1,
              "version": "3.4.1", "healthReport": "", "numContainers": 4,
              "usedMemoryMB": 8192, "availMemoryMB": NODE_MB - 8192, "usedVirtualCores": 4,
              "availableVirtualCores": NODE_VCORES - 4, "memUtilization": 0.0,
              "cpuUtilization": 0.0, "numRunningOpportContainers": 0,
              "usedMemoryOpportGB": 0, "usedVirtualCoresOpport": 0, "numQueuedContainers": 0,
              "usedResource": resource(8192, 4),
              "availableResource": resource(NODE_MB - 8192, NODE_VCORES - 4),
              "totalResource": resource(NODE_MB, NODE_VCORES)} for n in range(c.nodes)]
    info = {"clusterInfo": {"id": c.cluster_id, "startedOn": c.cluster_id, "state": "STARTED",
                            "haState": "ACTIVE", "resourceManagerVersion": "3.4.1",
                            "hadoopVersion": "3.4.1"}}
    metrics = {"clusterMetrics": {"appsSubmitted": c.apps, "appsRunning": c.apps,
                                  "totalMB": total[0], "totalVirtualCores": total[1],
                                  "allocatedMB": root_used[0],
                                  "allocatedVirtualCores": root_used[1],
                                  "containersPending": root_pending,
                                  "activeNodes": c.nodes, "totalNodes": c.nodes}}
    return {"info.json": json.dumps(info),
            "scheduler.json": json.dumps({"scheduler": {"schedulerInfo": {
                "type": "fairScheduler", "rootQueue": root}}}),
            "nodes.json": json.dumps({"nodes": {"node": nodes}}),
            "apps.json": json.dumps({"apps": {"app": apps}}),
            "metrics.json": json.dumps(metrics)}

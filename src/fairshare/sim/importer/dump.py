"""What a ResourceManager dump says: its queues, nodes and apps (docs/import.md).

A dump is the JSON an admin saves from the RM's REST API with curl: ``scheduler.json``
(``/ws/v1/cluster/scheduler``, the Fair Scheduler's queue tree), ``nodes.json``
(``/ws/v1/cluster/nodes``) and ``apps.json`` (``/ws/v1/cluster/apps``). The shapes are those of
Hadoop's ResourceManager REST documentation (its ``FairSchedulerQueueInfo``, ``NodeInfo``,
``AppInfo`` and ``ResourceRequestInfo`` DAOs); fields this reader does not use are ignored.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.sim.importer.jsonfile import JsonFile
from fairshare.sim.parse.yaml_lines import Loc, render_path, show

SCHEDULER, NODES, APPS = "scheduler.json", "nodes.json", "apps.json"
ENDPOINTS = {SCHEDULER: "/ws/v1/cluster/scheduler", NODES: "/ws/v1/cluster/nodes",
             APPS: "/ws/v1/cluster/apps"}
LEAF_TYPE = "fairSchedulerLeafQueueInfo"
JAVA_INT_MAX = 2**31 - 1  # maxApps when no maxRunningApps is set
# nodes the scheduler holds (the others were removed from it: lost, unhealthy, decommissioned)
SCHEDULED_NODE_STATES = ("RUNNING", "DECOMMISSIONING", "NEW")

Amounts = tuple[int, int]  # memory-mb, vcores


@dataclass(frozen=True)
class DumpQueue:
    name: str  # full name, root.…
    leaf: bool
    policy: str | None
    min_resources: Amounts | None
    max_resources: Amounts | None  # YARN reports min(max share, cluster)
    used: Amounts
    steady_fair: Amounts | None
    fair: Amounts | None
    am_max: Amounts | None
    max_apps: int | None
    preemptable: bool | None
    children: tuple[DumpQueue, ...]
    line: int
    # getMaximumResourceCapability(queue): the scheduler's maximum allocation lowered by the
    # queue's maxContainerAllocation (docs/semantics.md §1.1); None: not in the dump
    max_container: Amounts | None = None
    am_used: Amounts | None = None  # amUsedResources: the AMs of the queue's apps
    # read for ``fairshare watch`` (the import does not need them); None: not in the answer
    demand: Amounts | None = None  # demandResources
    reserved: Amounts | None = None  # reservedResources
    pending_containers: int | None = None
    allocated_containers: int | None = None
    reserved_containers: int | None = None
    active_apps: int | None = None  # numActiveApps (leaves): runnable apps
    pending_apps: int | None = None  # numPendingApps (leaves): apps held not runnable
    # resource types beyond memory-mb and vcores (yarn.io/gpu, …): (field, type, value), from
    # each resource object's resourceInformations
    custom: tuple[tuple[str, str, int], ...] = ()


@dataclass(frozen=True)
class DumpNode:
    name: str  # nodeHostName
    http: str  # nodeHTTPAddress
    rack: str
    capacity: Amounts
    used: Amounts
    line: int
    containers: int | None = None  # numContainers
    id: str = ""  # the node id, host:port
    state: str = "RUNNING"
    # read for ``fairshare watch``'s Nodes page (the import does not need them)
    last_health_update_ms: int = 0  # lastHealthUpdate: the NM's last heartbeat, epoch ms
    health_report: str = ""  # healthReport: why the NM says it is unhealthy, if it does


@dataclass(frozen=True)
class PendingAsk:
    """An outstanding request of an app at ANY (``resourceName: *``): the whole count."""

    priority: int
    count: int
    size: Amounts


@dataclass(frozen=True)
class DumpApp:
    id: str
    user: str
    queue: str
    state: str
    started_ms: int
    finished_ms: int
    allocated: Amounts
    running_containers: int
    am_host: str | None  # the host of amHostHttpAddress
    am_container: str | None  # the AM's container id, from amContainerLogs
    unmanaged: bool
    # None: no resourceRequests key (Hadoop 2; a caller without access; or nothing asked, as
    # Jersey omits an empty list)
    asks: tuple[PendingAsk, ...] | None
    line: int
    elapsed_ms: int = 0
    memory_seconds: int = 0  # MB·s the RM accounted to the app (memorySeconds)
    vcore_seconds: int = 0
    # read for ``fairshare watch``
    name: str = ""
    final_status: str = ""
    launched_ms: int = 0  # launchTime (0: not launched, or not reported)
    reserved: Amounts = (0, 0)
    am_preempted: int = 0  # numAMContainerPreempted
    preempted: int = 0  # numNonAMContainerPreempted
    preempted_resources: Amounts = (0, 0)  # preemptedResourceMB, preemptedResourceVCores
    preempted_memory_seconds: int = 0
    preempted_vcore_seconds: int = 0
    diagnostics: str = ""


@dataclass(frozen=True)
class Dump:
    root: DumpQueue
    cluster: Amounts | None  # clusterResources of the root queue
    nodes: tuple[DumpNode, ...]
    skipped_nodes: tuple[str, ...]  # in a state the scheduler does not hold
    apps: tuple[DumpApp, ...]
    source: Path


def read_dump(folder: Path) -> Dump:
    """The three files of ``folder``; a missing or malformed one is a located ConfigError."""
    if not folder.is_dir():
        raise ConfigError("not a directory (give the folder holding scheduler.json, "
                          "nodes.json and apps.json)", str(folder))
    for name, endpoint in ENDPOINTS.items():
        if not (folder / name).exists():
            raise ConfigError("file not found: save it from the ResourceManager with curl "
                              f"-s http://RM-HOST:8088{endpoint} -o {name} (docs/import.md)",
                              str(folder / name))
    root, cluster = read_scheduler(JsonFile.read(folder / SCHEDULER, str(folder / SCHEDULER)))
    nodes, skipped = read_nodes(JsonFile.read(folder / NODES, str(folder / NODES)))
    apps = read_apps(JsonFile.read(folder / APPS, str(folder / APPS)))
    return Dump(root, cluster, nodes, skipped, apps, folder)


# -- /ws/v1/cluster/scheduler ---------------------------------------------------------------------


def read_scheduler(f: JsonFile) -> tuple[DumpQueue, Amounts | None]:
    scheduler = f.obj(f.value, (), "scheduler")
    info = f.obj(scheduler, ("scheduler",), "schedulerInfo")
    where: Loc = ("scheduler", "schedulerInfo")
    kind = f.text_of(info, where, "type")
    if kind != "fairScheduler":
        name = {"capacityScheduler": "a CapacityScheduler", "fifoScheduler": "a FIFO scheduler"}
        f.fail((*where, "type"), f"this is {name.get(kind or '', show(kind))} dump, not the "
               "Fair Scheduler's ('fairScheduler'): fairshare models the Fair Scheduler only")
    root = f.obj(info, where, "rootQueue")
    loc: Loc = (*where, "rootQueue")
    return _queue(f, root, loc, "root"), f.amounts(root, loc, "clusterResources", required=False)


def _queue(f: JsonFile, q: Any, loc: Loc, expected: str | None) -> DumpQueue:
    name = f.text_of(q, loc, "queueName")
    assert name is not None
    if expected is not None and name != expected:
        f.fail((*loc, "queueName"), f"the root queue must be 'root', got {show(name)}")
    children = tuple(_queue(f, child, child_loc, None)
                     for child_loc, child in f.items(q, loc, "childQueues", "queue"))
    for child in children:
        if child.name.rsplit(".", 1)[0] != name:
            f.fail(loc, f"queue {child.name} is listed under {name}, not its parent")
    used = f.amounts(q, loc, "usedResources")
    assert used is not None
    max_apps = f.count(q, loc, "maxApps", required=False)
    return DumpQueue(
        name=name, leaf=not children and (q.get("type") == LEAF_TYPE or "childQueues" not in q),
        policy=f.text_of(q, loc, "schedulingPolicy", required=False),
        min_resources=f.amounts(q, loc, "minResources", required=False),
        max_resources=f.amounts(q, loc, "maxResources", required=False), used=used,
        steady_fair=f.amounts(q, loc, "steadyFairResources", required=False),
        fair=f.amounts(q, loc, "fairResources", required=False),
        am_max=f.amounts(q, loc, "amMaxResources", required=False),
        max_apps=max_apps, preemptable=f.flag(q, loc, "preemptable"),
        children=children, line=f.line(loc),
        max_container=f.amounts(q, loc, "maxContainerAllocation", required=False),
        am_used=f.amounts(q, loc, "amUsedResources", required=False),
        demand=f.amounts(q, loc, "demandResources", required=False),
        reserved=f.amounts(q, loc, "reservedResources", required=False),
        pending_containers=f.count(q, loc, "pendingContainers", required=False),
        allocated_containers=f.count(q, loc, "allocatedContainers", required=False),
        reserved_containers=f.count(q, loc, "reservedContainers", required=False),
        active_apps=f.count(q, loc, "numActiveApps", required=False),
        pending_apps=f.count(q, loc, "numPendingApps", required=False),
        custom=tuple((key, name, value) for key in _RESOURCE_FIELDS
                     for name, value in f.custom_types(q, loc, key)))


# the resource objects of a FairSchedulerQueueInfo whose custom types are read (DumpQueue.custom)
_RESOURCE_FIELDS = ("minResources", "maxResources", "usedResources", "demandResources",
                    "steadyFairResources", "fairResources", "clusterResources")


# -- /ws/v1/cluster/nodes -------------------------------------------------------------------------


def read_nodes(f: JsonFile, others: list[DumpNode] | None = None
               ) -> tuple[tuple[DumpNode, ...], tuple[str, ...]]:
    """The nodes the scheduler holds, and the others as ``host (STATE)``. A node is its id
    (``host:port``): several NodeManagers on one host (a test cluster, Hadoop's own
    MiniYARNCluster) are one node each, named by their id; alone on its host, by the host.
    ``others``, when given, receives the nodes not held as the answer describes them (its
    numbers read where present: ``NodeInfo`` of an inactive node reports 0 or nothing)."""
    nodes: list[DumpNode] = []
    skipped: list[str] = []
    seen: dict[str, Loc] = {}
    f.obj(f.value, (), "nodes", required="nodes" not in (f.value or {}))
    for loc, n in f.items(f.value, (), "nodes", "node"):
        name = f.text_of(n, loc, "nodeHostName")
        state = f.text_of(n, loc, "state", required=False) or "RUNNING"
        assert name is not None
        if state not in SCHEDULED_NODE_STATES:
            skipped.append(f"{name} ({state})")
            if others is not None:
                others.append(_node(f, n, loc, name, state, held=False))
            continue
        node_id = f.text_of(n, loc, "id", required=False) or name
        if node_id in seen:
            f.fail(loc, f"node {node_id} is listed twice (first {_where(f, seen[node_id])})")
        seen[node_id] = loc
        nodes.append(_node(f, n, loc, name, state, held=True))
    hosts = Counter(node.name for node in nodes)
    return tuple(replace(node, name=node.id) if hosts[node.name] > 1 else node
                 for node in nodes), tuple(skipped)


def _node(f: JsonFile, n: Any, loc: Loc, name: str, state: str, *, held: bool) -> DumpNode:
    """One ``NodeInfo``; a node the scheduler holds must carry its used and available
    resources, another may leave them out (0)."""
    used = _pair(f, n, loc, "usedMemoryMB", "usedVirtualCores", required=held)
    free = _pair(f, n, loc, "availMemoryMB", "availableVirtualCores", required=held)
    total = f.amounts(n, loc, "totalResource", required=False)
    capacity = total or (used[0] + free[0], used[1] + free[1])
    rack = f.text_of(n, loc, "rack", required=False) or "/default-rack"
    if held and not rack.startswith("/"):
        f.fail((*loc, "rack"), f"a rack starts with '/', got {show(rack)}")
    return DumpNode(name, f.text_of(n, loc, "nodeHTTPAddress", required=False) or "",
                    rack, capacity, used, f.line(loc),
                    f.count(n, loc, "numContainers", required=False),
                    id=f.text_of(n, loc, "id", required=False) or name, state=state,
                    last_health_update_ms=f.count(n, loc, "lastHealthUpdate",
                                                  required=False) or 0,
                    health_report=f.text_of(n, loc, "healthReport", required=False) or "")


def _where(f: JsonFile, loc: Loc) -> str:
    """Where an earlier record was: its line in a file, its place in a one-line answer."""
    line = f.line(loc)
    return f"at line {line}" if line > 1 or "\n" in f.text else f"at {render_path(loc)}"


def _pair(f: JsonFile, parent: Any, loc: Loc, memory: str, vcores: str, *,
          required: bool = True) -> Amounts:
    m = f.count(parent, loc, memory, required=required)
    v = f.count(parent, loc, vcores, required=required)
    assert required is False or (m is not None and v is not None)
    return m or 0, v or 0


# -- /ws/v1/cluster/apps --------------------------------------------------------------------------


def read_apps(f: JsonFile) -> tuple[DumpApp, ...]:
    f.obj(f.value, (), "apps", required="apps" not in (f.value or {}))
    apps: list[DumpApp] = []
    seen: dict[str, Loc] = {}
    for loc, a in f.items(f.value, (), "apps", "app"):
        app = _app(f, a, loc)
        if app.id in seen:
            f.fail(loc, f"app {app.id} is listed twice (first {_where(f, seen[app.id])})")
        seen[app.id] = loc
        apps.append(app)
    return tuple(apps)


def _app(f: JsonFile, a: Any, loc: Loc) -> DumpApp:
    def text(key: str, required: bool = True) -> str | None:
        return f.text_of(a, loc, key, required=required)

    def number(key: str, required: bool = True) -> int:
        return f.count(a, loc, key, required=required, unknown=not required) or 0

    queue = text("queue") or ""
    return DumpApp(
        id=text("id") or "", user=text("user") or "", state=text("state") or "",
        queue=queue if queue == "root" or queue.startswith("root.") else f"root.{queue}",
        started_ms=number("startedTime"), finished_ms=number("finishedTime", False),
        allocated=(number("allocatedMB", False), number("allocatedVCores", False)),
        running_containers=number("runningContainers", False),
        am_host=_host(text("amHostHttpAddress", False)),
        am_container=_container_id(text("amContainerLogs", False)),
        unmanaged=bool(f.flag(a, loc, "unmanagedApplication")),
        asks=_asks(f, a, loc), line=f.line(loc), elapsed_ms=number("elapsedTime", False),
        memory_seconds=number("memorySeconds", False),
        vcore_seconds=number("vcoreSeconds", False),
        name=text("name", False) or "", final_status=text("finalStatus", False) or "",
        launched_ms=number("launchTime", False),
        reserved=(number("reservedMB", False), number("reservedVCores", False)),
        am_preempted=number("numAMContainerPreempted", False),
        preempted=number("numNonAMContainerPreempted", False),
        preempted_resources=(number("preemptedResourceMB", False),
                             number("preemptedResourceVCores", False)),
        preempted_memory_seconds=number("preemptedMemorySeconds", False),
        preempted_vcore_seconds=number("preemptedVcoreSeconds", False),
        diagnostics=text("diagnostics", False) or "")


def _host(address: str | None) -> str | None:
    return address.rsplit(":", 1)[0] if address else None


def _container_id(logs: str | None) -> str | None:
    """``http://host:8042/node/containerlogs/container_…/user`` → ``container_…``."""
    for part in (logs or "").split("/"):
        if part.startswith("container_"):
            return part
    return None


def _asks(f: JsonFile, a: Any, loc: Loc) -> tuple[PendingAsk, ...] | None:
    """The ANY requests of ``resourceRequests`` (host and rack ones repeat them by place)."""
    if "resourceRequests" not in a:
        return None
    requests = a["resourceRequests"]
    if requests is None:
        return ()
    if not isinstance(requests, list):
        f.fail((*loc, "resourceRequests"), f"must be a list, got {show(requests)}")
    asks = []
    for i, r in enumerate(requests):
        where: Loc = (*loc, "resourceRequests", i)
        if f.text_of(r, where, "resourceName") != "*":
            continue
        priority = f.member(r, where, "priority")
        if isinstance(priority, dict):  # some versions write {"priority": n}
            priority = priority.get("priority")
        if isinstance(priority, bool) or not isinstance(priority, int):
            f.fail((*where, "priority"), f"must be a whole number, got {show(priority)}")
        count = f.count(r, where, "numContainers")
        size = f.amounts(r, where, "capability")
        assert count is not None and size is not None
        if count:
            asks.append(PendingAsk(priority, count, size))
    return tuple(asks)

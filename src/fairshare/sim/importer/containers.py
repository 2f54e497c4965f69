"""The running apps' containers as the ResourceManager lists them (docs/import.md, "Exact
placement").

An admin may save, beside the three dump files, one file per running app under
``containers/``: ``containers/<app id>.json``, the RM's answer to
``/ws/v1/cluster/apps/{appid}/appattempts/{appattemptid}/containers`` for the app's current
attempt. The RM lists there the attempt's live containers (``ClientRMService.getContainers``:
the scheduler's ``getLiveContainers``), each a ``ContainerInfo``: ``containerId``,
``allocatedMB``, ``allocatedVCores``, ``assignedNodeId`` (``host:port``), ``priority``,
``containerState``. Such an app's containers are recovered exactly as listed; the others are
rebuilt from the apps' totals (:mod:`fairshare.sim.importer.placement`).

Shapes read: ``{"container": [...]}`` (the RM writes this list without a root element) and
``{"containers": {"container": [...]}}``; a single container may come as an object, none as
``null``; numbers may come as text (``"allocatedMB": "8192"``), as some RM versions write them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.sim.importer.dump import Amounts, Dump, DumpApp
from fairshare.sim.importer.jsonfile import JsonFile
from fairshare.sim.importer.placement import Placed
from fairshare.sim.parse.yaml_lines import Loc, show

FOLDER = "containers"
ENDPOINT = "/ws/v1/cluster/apps/{appid}/appattempts/{appattemptid}/containers"
# container_[e<epoch>_]<cluster timestamp>_<app>_<attempt>_<sequence> (ContainerId.toString)
CONTAINER_ID = re.compile(r"container_(?:e(\d+)_)?(\d+)_(\d+)_(\d+)_(\d+)")
APP_ID = re.compile(r"application_\d+_\d+")


@dataclass
class Listed:
    """The containers of ``containers/``: each listed app's, its AM first."""

    placed: dict[str, tuple[Placed, ...]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Entry:
    placed: Placed
    order: tuple[int, int, int]  # attempt, epoch, sequence
    line: int


def read_containers(folder: Path, dump: Dump) -> Listed:
    """The listings of ``folder/containers`` checked against the dump (ConfigError: a listing
    that cannot be the cluster's, at its file and line)."""
    listed = Listed()
    where = folder / FOLDER
    if not where.is_dir():
        return listed
    apps = {a.id: a for a in dump.apps}
    hosts = _hosts(dump)
    used: dict[str, Amounts] = {}
    seen: dict[str, str] = {}
    for path in sorted(p for p in where.iterdir() if not p.name.startswith(".")):
        app = _app_of(path, apps)
        f = JsonFile.read(path, str(path))
        entries = [e for loc, c in _listing(f)
                   if (e := _entry(f, loc, c, app, hosts, dump)) is not None]
        for e in entries:
            _once(f, e, seen)
            _fits(f, e, used, dump)
        if not entries:
            listed.notes.append(f"{path}: lists no live container of {app.id}, which "
                                "apps.json says runs: its containers are rebuilt")
            continue
        listed.placed[app.id] = _am_first(app, entries)
        listed.notes += _disagreement(path, app, listed.placed[app.id])
    return listed


def _hosts(dump: Dump) -> dict[str, str]:
    """Node names by the host names a container's node may be given as."""
    return {n.name: n.name for n in dump.nodes} | {
        n.http.rsplit(":", 1)[0]: n.name for n in dump.nodes if n.http}


def _app_of(path: Path, apps: dict[str, DumpApp]) -> DumpApp:
    name = path.name.removesuffix(".json")
    if not path.name.endswith(".json") or not APP_ID.fullmatch(name):
        raise ConfigError(f"name a containers file after its app: {FOLDER}/<app id>.json, as "
                          "application_1700000000000_0001.json (docs/import.md)", str(path))
    app = apps.get(name)
    if app is None:
        raise ConfigError(f"app {name} is not in apps.json: save its containers with the "
                          "other files", str(path), 1)
    if app.state != "RUNNING":
        raise ConfigError(f"app {name} is {app.state} in apps.json (line {app.line}), not "
                          "RUNNING: only a running app's containers are recovered", str(path), 1)
    return app


def _listing(f: JsonFile) -> list[tuple[Loc, Any]]:
    value = f.value
    if isinstance(value, dict) and "containers" in value:
        return f.items(value, (), "containers", "container")
    if isinstance(value, dict) and isinstance(value.get("RemoteException"), dict):
        f.fail(("RemoteException",), "the RM answered with an error, not the app's containers: "
               + show(value["RemoteException"].get("message")))
    if not isinstance(value, dict) or "container" not in value:
        f.fail((), "not an answer of the RM's containers API (" + ENDPOINT + "): expected "
               f'{{"container": [...]}}, got {show(value)}')
    inner = value["container"]
    if inner is None:
        return []
    if isinstance(inner, dict):
        return [(("container",), inner)]
    if not isinstance(inner, list):
        f.fail(("container",), f"must be a list, got {show(inner)}")
    return [(("container", i), c) for i, c in enumerate(inner)]


def _entry(f: JsonFile, loc: Loc, c: Any, app: DumpApp, hosts: dict[str, str],
           dump: Dump) -> _Entry | None:
    if f.text_of(c, loc, "containerState", required=False) == "COMPLETE":
        return None  # ended: the timeline server's history lists those too
    cid = f.text_of(c, loc, "containerId") or ""
    order = _order(f, loc, cid, app)
    size = (_whole(f, c, loc, "allocatedMB"), _whole(f, c, loc, "allocatedVCores"))
    priority = _whole(f, c, loc, "priority") if c.get("priority") is not None else None
    node = _node(f, loc, c, hosts, dump)
    return _Entry(Placed(node, size, False, cid, priority), order, f.line(loc))


def _order(f: JsonFile, loc: Loc, cid: str, app: DumpApp) -> tuple[int, int, int]:
    """(attempt, epoch, sequence): YARN numbers an attempt's containers in the order they are
    allocated, the AM's first (``AppSchedulingInfo.getNewContainerId``); the epoch counts RM
    restarts (``ContainerId``: ``container_e<epoch>_…``)."""
    match = CONTAINER_ID.fullmatch(cid)
    if match is None:
        f.fail((*loc, "containerId"), f"not a container id (container_<cluster>_<app>_"
               f"<attempt>_<number>): {show(cid)}")
    epoch, cluster, number, attempt, sequence = match.groups()
    if f"application_{cluster}_{number}" != app.id:
        f.fail((*loc, "containerId"), f"container {cid} is not of app {app.id} (the file's "
               "name)")
    return int(attempt), int(epoch or 0), int(sequence)


def _whole(f: JsonFile, parent: Any, loc: Loc, key: str) -> int:
    """A non-negative whole number, or one written as text (the RM's older JSON writer)."""
    value = f.member(parent, loc, key)
    if isinstance(value, str) and value.isdigit():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        f.fail((*loc, key), f"must be a non-negative whole number, got {show(value)}")
    return value


def _node(f: JsonFile, loc: Loc, c: Any, hosts: dict[str, str], dump: Dump) -> str:
    has_node_id = c.get("assignedNodeId") is None and c.get("nodeId") is not None
    key = "nodeId" if has_node_id else "assignedNodeId"
    node_id = f.text_of(c, loc, key) or ""
    host = node_id.rsplit(":", 1)[0]  # a NodeId is host:port
    if host in hosts:
        return hosts[host]
    left_out = next((s for s in dump.skipped_nodes if s.split(" ")[0] == host), None)
    why = (f"{left_out} in nodes.json: the scheduler does not hold it" if left_out else
           "not in nodes.json")
    f.fail((*loc, key), f"node {host} is {why}")


def _once(f: JsonFile, e: _Entry, seen: dict[str, str]) -> None:
    cid = e.placed.container or ""
    if cid in seen:
        raise ConfigError(f"container {cid} is listed twice (also in {seen[cid]})", f.display,
                          e.line)
    seen[cid] = f"{f.display}:{e.line}"


def _fits(f: JsonFile, e: _Entry, used: dict[str, Amounts], dump: Dump) -> None:
    """The listed containers of a node fit in it (YARN never allocates beyond a node)."""
    node = e.placed.node
    before = used.get(node, (0, 0))
    now = (before[0] + e.placed.size[0], before[1] + e.placed.size[1])
    capacity = next(n.capacity for n in dump.nodes if n.name == node)
    if now[0] > capacity[0] or now[1] > capacity[1]:
        raise ConfigError(f"node {node}: the containers listed on it add up to {now[0]:,} MB "
                          f"and {now[1]} vcores with this one, more than its capacity "
                          f"({capacity[0]:,} MB, {capacity[1]} vcores in nodes.json)",
                          f.display, e.line)
    used[node] = now


def _am_first(app: DumpApp, entries: list[_Entry]) -> tuple[Placed, ...]:
    """The AM container is the one apps.json names (``amContainerLogs``), else the attempt's
    first: the lowest-numbered container of the newest attempt."""
    entries = sorted(entries, key=lambda e: e.order)
    if app.unmanaged:
        return tuple(e.placed for e in entries)
    newest = max(e.order[0] for e in entries)
    am = next((e for e in entries if e.placed.container == app.am_container),
              next(e for e in entries if e.order[0] == newest))
    rest = [e.placed for e in entries if e is not am]
    p = am.placed
    return (Placed(p.node, p.size, True, p.container, p.priority), *rest)


def _disagreement(path: Path, app: DumpApp, placed: tuple[Placed, ...]) -> list[str]:
    """Dumps are not atomic: a container may start or end between two calls."""
    total = (sum(c.size[0] for c in placed), sum(c.size[1] for c in placed))
    if total == app.allocated and len(placed) == app.running_containers:
        return []
    return [f"{path}: {app.id} has {len(placed)} containers of {total[0]:,} MB and "
            f"{total[1]} vcores listed, apps.json says {app.running_containers} of "
            f"{app.allocated[0]:,} MB and {app.allocated[1]} vcores (saved at different "
            "moments?): the listed containers are recovered"]

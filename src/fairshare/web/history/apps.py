"""Apps and nodes as the samples saw them, written only when they change; preemptions found.

The RM forgets finished apps (it keeps ``yarn.resourcemanager.max-completed-applications``,
1,000 by default), so an app's record (``app``) outlives its last answer: the newest state
seen. A row is written when something an admin reads changed — state, queue, allocation,
pending or running containers, preemption counts, diagnostics, finish — and not for what
grows by itself while the app runs (``memorySeconds``, ``vcoreSeconds``: they ride along on
the next change, and are written when the app leaves the RM's answer). So a poll of 10,000
apps of which 50 moved writes 50 rows. ``app_change`` keeps the app's transitions — a state,
a queue, its first container beyond the AM, a preemption, its finish — with its numbers
then; not every change of allocation (on a busy cluster a tenth of the apps move at every
poll: that log would outgrow everything else; the queues' samples hold the allocation over
time). ``listed`` says whether the newest sample still showed the app.

A *preemption* is derived where an app's ``numAMContainerPreempted`` +
``numNonAMContainerPreempted`` rose between its previous record and this sample of the same
RM (``cluster_id``; an RM that restarted counts from zero). ``containers`` is the whole rise,
``am_containers`` the AM part; ``memory_mb``/``vcores`` the rise of ``preemptedResourceMB``/
``VCores``. An app first seen with preempted containers gives none: when they went is
unknown.

Nodes (``node_change``): capacity, used, containers and state, a row when one changed; a node
missing from a sample gets one row in state ``ABSENT``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, and_, bindparam, func, insert, select, update

from fairshare.sim.importer.dump import DumpApp, DumpNode
from fairshare.web.history import schema
from fairshare.web.sample import Sample

Row = dict[str, Any]
# what does not make a change on its own (it grows every poll while the app runs)
_ACCRUING = ("memory_seconds", "vcore_seconds", "preempted_memory_seconds",
             "preempted_vcore_seconds", "last_seen_ms", "listed")
_CHANGE_FIELDS = ("state", "allocated_mb", "allocated_vcores", "pending_containers",
                  "running_containers", "preempted", "preempted_mb", "preempted_vcores")
# what makes an app_change row (a transition); _CHANGE_FIELDS are what it records
_TRANSITIONS = ("state", "queue", "first_container_ms", "am_preempted", "preempted",
                "finished_ms")
_NODE_FIELDS = ("state", "capacity_mb", "capacity_vcores", "used_mb", "used_vcores",
                "containers")


def _has_container(app: DumpApp) -> bool:
    """A container beyond the AM's (an unmanaged AM holds none of the RM's)."""
    return app.running_containers > (0 if app.unmanaged else 1)


class AppTracker:
    """The newest record of every app the RM listed, as written, and as seen."""

    def __init__(self, connection: Connection) -> None:
        self.written: dict[str, Row] = {}
        self.seen: dict[str, Row] = {}  # listed at the newest sample (maybe not written)
        t = schema.app
        for row in connection.execute(select(t).where(t.c.listed)).mappings():
            self.written[row["id"]] = dict(row)
            self.seen[row["id"]] = dict(row)
        self.nodes: dict[str, tuple[Any, ...]] = {}
        n = schema.node_change
        newest = (select(n.c.node_id, func.max(n.c.time_ms).label("t"))
                  .group_by(n.c.node_id).subquery())
        query = select(n).join(newest, and_(n.c.node_id == newest.c.node_id,
                                            n.c.time_ms == newest.c.t))
        for row in connection.execute(query).mappings():
            if row["state"] != "ABSENT":
                self.nodes[row["node_id"]] = tuple(row[f] for f in _NODE_FIELDS)

    def observe(self, connection: Connection, sample: Sample, previous_ms: int | None) -> None:
        """Write what changed in ``sample``'s apps and nodes, and the preemptions (nothing of
        the apps, or the nodes, when the poll carried them over from an earlier one)."""
        now = sample.time_ms
        if not sample.apps_fresh:
            if sample.nodes_fresh:
                self._nodes(connection, now, sample.nodes)
            return
        listed = {a.id: a for a in sample.apps}
        self._load(connection, [i for i in listed if i not in self.written])
        inserts: list[Row] = []
        updates: list[Row] = []
        changes: list[Row] = []
        preempted: list[Row] = []
        for app_id, app in listed.items():
            old = self.written.get(app_id)
            row = self._row(app, sample, old)
            if old is not None and old["cluster_id"] == sample.cluster_id:
                rise = (row["am_preempted"] + row["preempted"]
                        - old["am_preempted"] - old["preempted"])
                if rise > 0:
                    preempted.append({
                        "time_ms": now, "cluster_id": sample.cluster_id, "app_id": app_id,
                        "queue": row["queue"], "containers": rise,
                        "am_containers": max(row["am_preempted"] - old["am_preempted"], 0),
                        "memory_mb": max(row["preempted_mb"] - old["preempted_mb"], 0),
                        "vcores": max(row["preempted_vcores"] - old["preempted_vcores"], 0)})
            self.seen[app_id] = row
            if old is None or not old["listed"] or _differs(old, row):
                (inserts if old is None else updates).append(row)
                if old is None or any(old[f] != row[f] for f in _TRANSITIONS):
                    changes.append({"app_id": app_id, "time_ms": now,
                                    **{f: row[f] for f in _CHANGE_FIELDS}})
                self.written[app_id] = row
        for app_id in [i for i in self.seen if i not in listed]:
            row = dict(self.seen.pop(app_id), listed=False)
            row["last_seen_ms"] = previous_ms if previous_ms is not None else row["last_seen_ms"]
            updates.append(row)
            self.written.pop(app_id, None)
        if inserts:
            connection.execute(insert(schema.app), inserts)
        if updates:
            self._update(connection, updates)
        if changes:
            connection.execute(insert(schema.app_change), changes)
        if preempted:
            connection.execute(insert(schema.preemption), preempted)
        if sample.nodes_fresh:
            self._nodes(connection, now, sample.nodes)

    def _row(self, app: DumpApp, sample: Sample, old: Row | None) -> Row:
        now = sample.time_ms
        first_container = old["first_container_ms"] if old is not None else None
        if first_container is None and _has_container(app):
            first_container = now
        pending = sum(ask.count for ask in app.asks) if app.asks else 0
        return {
            "id": app.id, "cluster_id": sample.cluster_id, "user": app.user,
            "name": app.name, "queue": app.queue, "state": app.state,
            "final_status": app.final_status, "started_ms": app.started_ms,
            "launched_ms": app.launched_ms, "finished_ms": app.finished_ms,
            "first_seen_ms": old["first_seen_ms"] if old is not None else now,
            "last_seen_ms": now, "listed": True, "first_container_ms": first_container,
            "allocated_mb": app.allocated[0], "allocated_vcores": app.allocated[1],
            "pending_containers": pending, "running_containers": app.running_containers,
            "am_preempted": app.am_preempted, "preempted": app.preempted,
            "preempted_mb": app.preempted_resources[0],
            "preempted_vcores": app.preempted_resources[1],
            "memory_seconds": app.memory_seconds, "vcore_seconds": app.vcore_seconds,
            "preempted_memory_seconds": app.preempted_memory_seconds,
            "preempted_vcore_seconds": app.preempted_vcore_seconds,
            "diagnostics": app.diagnostics}

    def _load(self, connection: Connection, ids: list[str]) -> None:
        """Records of apps not listed at the last sample (a restart, or the RM listing an
        app again)."""
        t = schema.app
        for start in range(0, len(ids), 500):
            query = select(t).where(t.c.id.in_(ids[start:start + 500]))
            for row in connection.execute(query).mappings():
                self.written[row["id"]] = dict(row)

    def _update(self, connection: Connection, rows: Iterable[Row]) -> None:
        """One statement, executed for many rows: built per row, ten thousand apps' updates
        took seconds of SQLAlchemy's statement compilation."""
        t = schema.app
        rows = list(rows)
        columns = [c.name for c in t.columns if c.name != "id"]
        statement = update(t).where(t.c.id == bindparam("app_id")).values(
            {name: bindparam(f"v_{name}") for name in columns})
        connection.execute(statement, [{"app_id": row["id"],
                                        **{f"v_{name}": row[name] for name in columns}}
                                       for row in rows])

    def _nodes(self, connection: Connection, now: int, nodes: Iterable[DumpNode]) -> None:
        rows, present = [], set()
        for node in nodes:
            key = node.id or node.name
            present.add(key)
            value = (node.state, *node.capacity, *node.used, node.containers or 0)
            if self.nodes.get(key) != value:
                self.nodes[key] = value
                rows.append({"node_id": key, "time_ms": now,
                             **dict(zip(_NODE_FIELDS, value, strict=True))})
        for key in [k for k in self.nodes if k not in present]:
            del self.nodes[key]
            rows.append({"node_id": key, "time_ms": now, "state": "ABSENT",
                         **{f: 0 for f in _NODE_FIELDS[1:]}})
        if rows:
            connection.execute(insert(schema.node_change), rows)


def _differs(old: Row, new: Row) -> bool:
    return any(old.get(k) != v for k, v in new.items() if k not in _ACCRUING)

"""What the engine loop writes to the state store, and when: :class:`StateKeeper` is told of
every event and of every change the loop makes to its RM records, gathers the step's changes
into one :class:`~fairshare.server.store.store.Batch`, and writes it when the loop says
(:meth:`StateKeeper.flush`) — before the loop answers the request that made the change and
before an executor starts a container the step allocated.

Written: an app's record (:func:`~fairshare.server.store.codec.app_json`) whenever what it
holds changed — only then, so a heartbeat that changes no app writes no app; every running
container (allocated or recovered) until it ends, with what a restart needs to take it over:
its node, size, priority, start (epoch ms), for the virtual executor's app model its task
group and when it will end, for a process its pid; the virtual executor's nodes. The apps'
completed tasks per task group are counted in their records, so that a restart runs none of
them twice.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from fairshare.core import (
    Completion,
    ContainerAllocated,
    ContainerCompleted,
    ContainerPreempted,
    ContainerRecovered,
    Engine,
    Event,
)
from fairshare.resources.vector import Resource
from fairshare.server.rm import RMRecords
from fairshare.server.store.codec import app_json
from fairshare.server.store.store import Batch, Record, StateStore
from fairshare.sim.run.loop import Simulation


class StateKeeper:
    def __init__(self, store: StateStore, records: RMRecords, engine: Engine,
                 sim: Simulation) -> None:
        self.store = store
        self.records = records
        self.engine = engine
        self.sim = sim
        self._batch = Batch()
        self._apps: set[str] = set()  # apps whose record may have changed
        self._written: dict[str, str] = {}  # app → its record as last written
        self._containers: dict[str, Record] = {}  # running containers' records
        self.tasks_done: dict[str, list[int]] = {}  # app → completed tasks per task group
        self._node_order: list[str] = []

    # -- what changed --------------------------------------------------------------------------

    def app_changed(self, app_id: str) -> None:
        self._apps.add(app_id)

    def forget(self, app_id: str) -> None:
        """The RM forgot an ended app (max-completed-applications): the store's own limit
        removes its record (``StateStore``), nothing here writes it again."""
        self._apps.discard(app_id)
        self._written.pop(app_id, None)
        self.tasks_done.pop(app_id, None)

    def known(self, app_id: str, record: Record) -> None:
        """A record read back at a restart: written already, as it is."""
        self._written[app_id] = _text(record)
        self.tasks_done[app_id] = list(record.get("tasks_done", []))

    def container_known(self, record: Record) -> None:
        self._containers[record["id"]] = record

    def forget_others(self, stored: Iterable[str]) -> None:
        """Of the containers a restart read back, those it did not take over (never started,
        on a node gone, of an attempt that failed) are removed from the store."""
        gone = set(stored) - set(self._containers)
        self._batch.removed_containers.update(gone)

    def nodes(self, nodes: Iterable[tuple[str, str, Resource]]) -> None:
        """The virtual executor's NodeManagers as they are now: (id, rack, capacity)."""
        types = self.engine.types
        seen = []
        for node_id, rack, capacity in nodes:
            seen.append(node_id)
            self._batch.node_records[node_id] = {"id": node_id, "position": len(seen),
                                                 "rack": rack,
                                                 "capacity": types.as_dict(capacity)}
        self._batch.removed_nodes.update(set(self._node_order) - set(seen))
        self._node_order = seen

    def process_started(self, container: str, pid: int, started: int) -> None:
        """A container's process runs as ``pid`` (``started``: its start in the kernel's
        clock ticks since boot, so a pid taken again by another process is told apart)."""
        record = self._containers.get(container)
        if record is not None:
            record["process"] = {"pid": pid, "started": started}
            self._batch.container_records[container] = record

    def on_events(self, events: Sequence[Event]) -> None:
        ts = self.records.cluster_timestamp
        for event in events:
            app_id = getattr(event, "app", None)
            if app_id is None or app_id not in self.records.apps:
                continue
            self._apps.add(app_id)
            if isinstance(event, ContainerAllocated | ContainerRecovered):
                self._started(event, ts + event.time)
            elif isinstance(event, ContainerCompleted | ContainerPreempted):
                record = self._containers.pop(event.container, None)
                self._batch.container_records.pop(event.container, None)
                self._batch.removed_containers.add(event.container)
                if (record is not None and isinstance(event, ContainerCompleted)
                        and event.status is Completion.RELEASED
                        and record.get("group") is not None):
                    done = self.tasks_done.setdefault(app_id, [])
                    group = record["group"]
                    done.extend([0] * (group + 1 - len(done)))
                    done[group] += 1

    def _started(self, event: ContainerAllocated | ContainerRecovered, at_ms: int) -> None:
        app = self.engine.app(event.app)
        container = app.containers.get(event.container)
        priority = (event.priority if isinstance(event, ContainerRecovered)
                    else container.key[0] if container is not None else 0)
        record: Record = {
            "id": event.container, "app": event.app, "attempt": app.attempt,
            "node": event.node, "resource": self.engine.types.as_dict(event.resource),
            "am": event.am, "priority": priority, "started_ms": at_ms, "group": None,
            "ends_ms": None, "process": None}
        progress = self.sim.apps.get(event.app)
        task = None if progress is None else progress.running.get(event.container)
        if task is not None and progress is not None:
            record["group"] = task.group
            if not self.sim.is_external(event.app):
                record["ends_ms"] = at_ms + progress.spec.tasks[task.group].duration_ms
        previous = self._containers.get(event.container)
        if previous is not None:  # recovered: its start, end and process are the stored ones
            for key in ("started_ms", "ends_ms", "process", "group"):
                record[key] = previous.get(key, record[key])
        self._containers[event.container] = record
        self._batch.container_records[event.container] = record
        self._batch.removed_containers.discard(event.container)

    # -- writing --------------------------------------------------------------------------------

    def flush(self) -> None:
        """Write what changed since the last flush, in one transaction (StateStoreError if
        the store refuses it: nothing of it is then written)."""
        ts, types = self.records.cluster_timestamp, self.engine.types
        texts: dict[str, str] = {}
        for app_id in sorted(self._apps):
            app = self.records.apps.get(app_id)
            if app is None:
                continue
            record = app_json(app_id, app, ts, types)
            record["tasks_done"] = self.tasks_done.get(app_id, [])
            text = _text(record)
            if self._written.get(app_id) != text:
                self._batch.app_records[app_id] = record
                texts[app_id] = text
        self._apps.clear()
        if not self._batch:
            return
        # (refused, nothing of it is stored: the batch stays, to be written with the next)
        self.store.write(self._batch)
        self._batch = Batch()
        self._written.update(texts)


def _text(record: Record) -> str:
    return json.dumps(record, sort_keys=True, separators=(",", ":"))


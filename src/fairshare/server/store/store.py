"""The state store's data-access layer: every read and write of the tables of
:mod:`fairshare.server.store.schema`, in SQLite (a path: WAL mode, as the history database)
or PostgreSQL (a ``postgresql://`` URL), opened through the history's
:func:`~fairshare.web.history.database.engine_for` and upgraded by the state store's own
Alembic revisions on open.

What YARN's ``RMStateStore`` promises, kept here: a change is written before the
ResourceManager acknowledges the action that made it (the engine loop writes each
:class:`Batch` in one transaction before it answers a request or starts a container), and a
write that fails is an error (:class:`StateStoreError`), never a silent loss. :meth:`StateStore.
start` is the restart: it reads everything back and takes the next epoch
(``getAndIncrementEpoch``: the first start runs in epoch 0, the next in 1, …). Completed apps
are kept up to ``max_completed`` (``yarn.resourcemanager.state-store.max-completed-
applications``), the oldest finished forgotten first, as ``RMAppManager`` removes them.

One process writes a store (the server); a second server on the same store is refused at
start only by what the backend allows — run one.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select, update
from sqlalchemy.exc import SQLAlchemyError

from fairshare.server.store import schema
from fairshare.web.history import database

MIGRATIONS = Path(__file__).with_name("migrations")
EPOCH_KEY = "epoch"
MASTER_KEY = "am-master-key"
MAX_COMPLETED_APPS = 1000  # yarn.resourcemanager.max-completed-applications' default

Record = dict[str, Any]


class StateStoreError(RuntimeError):
    """The store could not be opened, read or written (its message says which and why)."""


@dataclass(frozen=True, slots=True)
class StoredState:
    """What a start reads back: the epoch it runs in, and every record, apps in application
    id order (``RMState``'s ``TreeMap``), containers in the order written, nodes in
    registration order."""

    epoch: int
    apps: tuple[Record, ...]
    containers: tuple[Record, ...]
    nodes: tuple[Record, ...]

    @property
    def empty(self) -> bool:
        return not (self.apps or self.containers or self.nodes)


@dataclass(slots=True)
class Batch:
    """The changes of one engine step, written in one transaction: records put (replacing
    any of the same key) and keys removed. An app's record carries ``id``, ``state`` and
    ``finished_ms``; a container's ``id`` and ``app``; a node's ``id`` and ``position``."""

    app_records: dict[str, Record] = field(default_factory=dict)
    container_records: dict[str, Record] = field(default_factory=dict)
    removed_containers: set[str] = field(default_factory=set)
    node_records: dict[str, Record] = field(default_factory=dict)
    removed_nodes: set[str] = field(default_factory=set)

    def __bool__(self) -> bool:
        return bool(self.app_records or self.container_records or self.removed_containers
                    or self.node_records or self.removed_nodes)


class StateStore:
    def __init__(self, url: str, *, max_completed: int = MAX_COMPLETED_APPS) -> None:
        """Open (creating or upgrading) the store at ``url``: a path, or a database URL.
        A malformed URL is a ValueError; a store that cannot be opened a StateStoreError."""
        self.url = url
        self.max_completed = max_completed
        self.engine = database.engine_for(url, "state store")
        try:
            database.migrate(self.engine, MIGRATIONS)
        except SQLAlchemyError as e:
            self.engine.dispose()
            raise StateStoreError(f"cannot open the state store {database.shown_url(url)}: "
                                  f"{_reason(e)}") from None

    def close(self) -> None:
        self.engine.dispose()

    # -- the restart ---------------------------------------------------------------------------

    def start(self) -> StoredState:
        """Read every record back and take the next epoch, in one transaction."""
        try:
            with self.engine.begin() as c:
                epoch = self._epoch(c)
                self._put_epoch(c, epoch + 1)
                apps = c.execute(select(schema.application.c.record).order_by(
                    schema.application.c.cluster_timestamp, schema.application.c.number,
                    schema.application.c.id)).scalars().all()
                containers = c.execute(select(schema.container.c.record).order_by(
                    schema.container.c.app_id, schema.container.c.id)).scalars().all()
                nodes = c.execute(select(schema.node.c.record).order_by(
                    schema.node.c.position)).scalars().all()
        except SQLAlchemyError as e:
            raise StateStoreError(f"cannot read the state store: {_reason(e)}") from None
        return StoredState(epoch, tuple(json.loads(a) for a in apps),
                           tuple(json.loads(r) for r in containers),
                           tuple(json.loads(n) for n in nodes))

    def master_key(self) -> bytes:
        """The key the AM tokens are signed with, made at the first call and kept (YARN's
        ``AMRMTokenSecretManagerState``): an AM's token stays good across a restart."""
        table = schema.rm_state
        try:
            with self.engine.begin() as c:
                value = c.execute(select(table.c.value).where(
                    table.c.key == MASTER_KEY)).scalar()
                if value is None:
                    value = secrets.token_hex(32)
                    c.execute(insert(table).values(key=MASTER_KEY, value=value))
        except SQLAlchemyError as e:
            raise StateStoreError(f"cannot read the state store: {_reason(e)}") from None
        return bytes.fromhex(value)

    def nodes(self) -> tuple[Record, ...]:
        """The stored nodes, in registration order (read before :meth:`start`)."""
        try:
            with self.engine.connect() as c:
                rows = c.execute(select(schema.node.c.record).order_by(
                    schema.node.c.position)).scalars().all()
        except SQLAlchemyError as e:
            raise StateStoreError(f"cannot read the state store: {_reason(e)}") from None
        return tuple(json.loads(r) for r in rows)

    @staticmethod
    def _epoch(c: Connection) -> int:
        value = c.execute(select(schema.rm_state.c.value).where(
            schema.rm_state.c.key == EPOCH_KEY)).scalar()
        return 0 if value is None else int(value)

    @staticmethod
    def _put_epoch(c: Connection, epoch: int) -> None:
        table = schema.rm_state
        done = c.execute(update(table).where(table.c.key == EPOCH_KEY).values(
            value=str(epoch))).rowcount
        if not done:
            c.execute(insert(table).values(key=EPOCH_KEY, value=str(epoch)))

    # -- writes ----------------------------------------------------------------------------------

    def write(self, batch: Batch) -> None:
        """Write ``batch`` in one transaction (nothing of it if it fails: StateStoreError)."""
        if not batch:
            return
        try:
            with self.engine.begin() as c:
                self._write(c, batch)
        except SQLAlchemyError as e:
            raise StateStoreError(f"the state store refused a write: {_reason(e)}") from None

    def _write(self, c: Connection, batch: Batch) -> None:
        a, k, n = schema.application, schema.container, schema.node
        if batch.app_records:
            c.execute(delete(a).where(a.c.id.in_(list(batch.app_records))))
            c.execute(insert(a), [_app_row(r) for r in batch.app_records.values()])
        gone = batch.removed_containers | set(batch.container_records)
        for chunk in _chunks(sorted(gone)):
            c.execute(delete(k).where(k.c.id.in_(chunk)))
        if batch.container_records:
            c.execute(insert(k), [{"id": r["id"], "app_id": r["app"], "record": _json(r)}
                                  for r in batch.container_records.values()])
        gone_nodes = batch.removed_nodes | set(batch.node_records)
        for chunk in _chunks(sorted(gone_nodes)):
            c.execute(delete(n).where(n.c.id.in_(chunk)))
        if batch.node_records:
            c.execute(insert(n), [{"id": r["id"], "position": r["position"],
                                   "record": _json(r)} for r in batch.node_records.values()])
        if any(r["finished_ms"] for r in batch.app_records.values()):
            self._trim_completed(c)

    def _trim_completed(self, c: Connection) -> None:
        """Forget the oldest finished apps beyond ``max_completed`` (and their containers)."""
        a = schema.application
        finished = c.execute(select(func.count()).select_from(a).where(
            a.c.finished_ms > 0)).scalar_one()
        excess = finished - self.max_completed
        if excess <= 0:
            return
        old = c.execute(select(a.c.id).where(a.c.finished_ms > 0).order_by(
            a.c.finished_ms, a.c.cluster_timestamp, a.c.number).limit(excess)).scalars().all()
        for chunk in _chunks(list(old)):
            c.execute(delete(schema.container).where(schema.container.c.app_id.in_(chunk)))
            c.execute(delete(a).where(a.c.id.in_(chunk)))


def _app_row(record: Mapping[str, Any]) -> dict[str, Any]:
    ts, number = application_order(record["id"])
    return {"id": record["id"], "cluster_timestamp": ts, "number": number,
            "state": record["state"], "finished_ms": record["finished_ms"],
            "record": _json(record)}


def application_order(app_id: str) -> tuple[int, int]:
    """``ApplicationId.compareTo``'s key: the cluster timestamp, then the number (an id not
    of YARN's form sorts first, by its text)."""
    parts = app_id.split("_")
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        return int(parts[1]), int(parts[2])
    return 0, 0


def _json(record: Mapping[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), sort_keys=True)


def _chunks(keys: list[str], size: int = 500) -> Iterable[list[str]]:
    """Keys in groups small enough for one IN list (SQLite's parameter limit)."""
    for i in range(0, len(keys), size):
        yield keys[i:i + size]


def _reason(e: SQLAlchemyError) -> str:
    """The driver's own message, without SQLAlchemy's SQL and links."""
    orig = getattr(e, "orig", None)
    return str(orig if orig is not None else e).strip().splitlines()[0]

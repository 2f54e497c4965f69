"""Queue ids and layouts: a blob's rows are queues, named once in the database.

Every queue name gets a stable integer id the first time a sample shows it (``queue``); a
*layout* is the list of ids a blob's rows stand for (``layout``), stored once per distinct
list and found again by its digest. A queue tree that does not change — the usual case —
costs one layout for the whole history.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from sqlalchemy import Connection, insert, select

from fairshare.web.history import schema

Ids = npt.NDArray[np.int64]


class Layouts:
    """The database's queues and layouts, cached (they are only ever added to)."""

    def __init__(self, connection: Connection) -> None:
        self.ids: dict[str, int] = {}
        self.names: dict[int, str] = {}
        self.layouts: dict[int, Ids] = {}
        self._digests: dict[str, int] = {}
        self.refresh(connection)

    def refresh(self, connection: Connection) -> None:
        """Read what another process (the poller) added since."""
        for qid, name in connection.execute(select(schema.queue.c.id, schema.queue.c.name)):
            self.ids[name], self.names[qid] = qid, name
        known = set(self.layouts)
        for lid, digest, blob in connection.execute(
                select(schema.layout.c.id, schema.layout.c.digest, schema.layout.c.ids)):
            if lid not in known:
                self.layouts[lid] = np.frombuffer(blob, "<i8").astype(np.int64)
                self._digests[digest] = lid

    def queue_ids(self, connection: Connection, names: Sequence[str]) -> Ids:
        """The ids of ``names``, giving new names the next ids."""
        new = [n for n in dict.fromkeys(names) if n not in self.ids]
        if new:
            start = max(self.names, default=0) + 1
            pairs = [(start + i, n) for i, n in enumerate(new)]
            connection.execute(insert(schema.queue), [{"id": i, "name": n} for i, n in pairs])
            for qid, name in pairs:
                self.ids[name], self.names[qid] = qid, name
        return np.array([self.ids[n] for n in names], np.int64)

    def layout_of(self, connection: Connection, ids: Ids) -> int:
        """The layout id of this list of queue ids (stored when new)."""
        blob = np.asarray(ids, "<i8").tobytes()
        digest = hashlib.sha256(blob).hexdigest()
        found = self._digests.get(digest)
        if found is None:
            found = max(self.layouts, default=0) + 1
            connection.execute(insert(schema.layout),
                               [{"id": found, "digest": digest, "ids": blob}])
            self.layouts[found], self._digests[digest] = np.array(ids, np.int64), found
        return found

    def rows(self, connection: Connection, layout_id: int) -> Ids:
        if layout_id not in self.layouts:
            self.refresh(connection)
        return self.layouts[layout_id]

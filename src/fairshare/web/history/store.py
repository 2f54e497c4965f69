"""The history store: every poll of a ResourceManager, kept at several resolutions, in SQLite
(WAL) or PostgreSQL, through SQLAlchemy Core with Alembic migrations (:mod:`.database`).

Layout. A poll is one ``sample`` row whatever the number of queues: every queue's values and
threshold in one blob (:mod:`.codec`: chunks of 256 queues, Zstandard), stored as the
difference from the previous poll within the same minute (:mod:`.raw`). A bucket is one
``bucket`` row per (resolution, start) holding every queue's tally (:mod:`.tally`: per column
Σ value × ms, the same in contention, minimum, maximum; per queue the samples, weight,
contention and short counters). One row per (bucket, queue) with plain columns was the
alternative: a 30-day tally of 1,000 queues would then read 720,000 rows (and 70 million
numbers through the driver) where this layout reads 30 day rows plus the edges, and a
queue's series inflates only its own chunk of each row. Measured (1,000 queues,
tests/web/history/bench_history.py): a 5-s sample 3.2 KB, a minute bucket 27 KB, an hour
bucket 91 KB; ``add`` 4 ms; the 30-day tally 0.1 s (0.15 s Monday–Friday 9–17 Paris).

Intervals. A sample stands for the time to the next one — as the simulator's samples do —
capped at twice the poll interval (``poll_interval_ms`` when given, else the median of the
last eight gaps; the first gap of a new database is taken as it is): a watcher that was
down, or an RM that did not answer, leaves a gap in the history, not hours credited to the
last numbers seen. So a sample's contribution is added when the next one arrives; the
newest sample is *pending* (``weight_ms`` NULL) and counts in no tally yet; after a restart
the first new sample closes it (the state is in the database, not in memory).

Buckets. When a sample closes the last interval of a minute, that minute's bucket is built
from its raw samples, in the same transaction; when a minute closes an hour, the hour from
its minutes; and so on for every tier (``Retention.tiers``). A bucket, once written, is
final; it holds the samples that *start* in it (an interval crossing the bucket's end is
counted whole in it). :mod:`.windows` says which buckets and samples answer a window.

Restart-safety. ``add`` of a (cluster_id, time_ms) already stored returns False and changes
nothing (the primary key says so too); so does a sample older than the newest (the history
only grows forwards). One process writes a database (the poller); any number read it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from statistics import median

import numpy as np
import numpy.typing as npt
from sqlalchemy import Connection, and_, delete, func, insert, select, text, update
from sqlalchemy.exc import SQLAlchemyError

from fairshare.config.errors import ConfigError
from fairshare.sim.record.contention import threshold_of
from fairshare.web.history import database, raw, schema
from fairshare.web.history.apps import AppTracker
from fairshare.web.history.codec import pack_answers
from fairshare.web.history.layouts import Layouts
from fairshare.web.history.model import (
    AppRecord,
    Preemption,
    QueueTally,
    Retention,
    Series,
    Window,
)
from fairshare.web.history.queries import Reader
from fairshare.web.history.retention import DEFAULT_CHECKPOINT_EVERY_MS, DEFAULT_RETENTION, check
from fairshare.web.history.tally import NCOL, decode, encode, merge, of_sample
from fairshare.web.sample import Sample, queue_rows

_GAPS = 9  # gaps the poll interval is estimated from
_PRUNED = ("sample", "bucket", "checkpoint", "app_change", "node_change", "app", "preemption")


class History:
    """The history database of one watched ResourceManager (docs/watch.md)."""

    def __init__(self, url: str, retention: Retention, poll_interval_ms: int | None,
                 checkpoint_every_ms: int) -> None:
        check(retention)
        self.retention = retention
        self.poll_interval_ms = poll_interval_ms
        self.checkpoint_every_ms = checkpoint_every_ms
        self.engine = database.engine_for(url)
        database.migrate(self.engine)
        self.key_width_ms = retention.tiers[0][0]
        with self.engine.connect() as connection:
            self.layouts = Layouts(connection)
            self._load(connection)
        self.reader = Reader(self.engine, self.layouts, retention, self.key_width_ms)

    @classmethod
    def open(cls, url: str, retention: Retention | None = None, *,
             poll_interval_ms: int | None = None,
             checkpoint_every_ms: int = DEFAULT_CHECKPOINT_EVERY_MS,
             create: bool = True) -> History:
        """The history at ``url`` (a file path: SQLite in WAL mode; or a SQLAlchemy URL),
        created (unless ``create`` is False: a reader's) or upgraded to the newest schema. A
        database that cannot be opened — a missing file, a server that does not answer, a
        driver not installed — is a ConfigError naming ``--db`` and the URL (its password
        hidden)."""
        if not create and "://" not in url and not Path(url).expanduser().is_file():
            raise ConfigError(f"no history database at {url} (fairshare watch writes one "
                              "with --db)", "--db")
        check(retention or DEFAULT_RETENTION)  # a caller's mistake: its ValueError stands
        try:
            return cls(url, retention or DEFAULT_RETENTION, poll_interval_ms,
                       checkpoint_every_ms)
        except (SQLAlchemyError, OSError, ImportError, ValueError) as e:
            shown = database.shown_url(url)
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise ConfigError(f"cannot open the history database {shown}: {first}",
                              "--db") from None

    def close(self) -> None:
        self.engine.dispose()

    def _load(self, connection: Connection) -> None:
        """The state ``add`` continues from: the newest sample (its interval is open), the
        recent gaps, the newest checkpoint, the apps the RM listed last."""
        t = schema.sample.c
        newest = connection.execute(select(t.time_ms, t.cluster_id)
                                    .order_by(t.time_ms.desc(), t.cluster_id.desc())
                                    .limit(1)).first()
        self._last: raw.Raw | None = None
        if newest is not None:
            for sample in raw.read(connection, self.layouts, newest[0], newest[0] + 1,
                                   self.key_width_ms):
                if sample.cluster_id == newest[1]:
                    self._last = sample
        gaps = connection.execute(select(t.gap_ms).where(t.gap_ms.is_not(None))
                                  .order_by(t.time_ms.desc()).limit(_GAPS - 1)).scalars()
        self._gaps = [int(g) for g in gaps][::-1]
        c = schema.checkpoint.c
        self._checkpoint_ms = connection.execute(select(func.max(c.time_ms))).scalar()
        self._apps = AppTracker(connection)

    # -- writing -------------------------------------------------------------------------------

    def add(self, sample: Sample, thresholds: Mapping[str, float],
            answers: Mapping[str, str] | None = None) -> bool:
        """Store one poll; False when (cluster_id, time_ms) is stored already, or older
        than the newest sample. ``thresholds``: each queue's effective
        fairSharePreemptionThreshold (a queue not given: the file default);
        ``answers``: the RM's raw texts, kept when a checkpoint is due."""
        names, rows = queue_rows(sample)
        values = np.array(rows, np.int64).reshape(len(rows), NCOL)
        limits = np.array([threshold_of(thresholds.get(n, -1.0)) for n in names], np.float64)
        try:
            with self.engine.begin() as connection:
                self._check_newest(connection)
                if not self._fresh(connection, sample):
                    return False
                previous = self._last
                self._write(connection, sample.time_ms, sample.cluster_id, names, values,
                            limits)
                self._apps.observe(connection, sample,
                                   previous.time_ms if previous is not None else None)
                if answers and (self._checkpoint_ms is None or sample.time_ms
                                - self._checkpoint_ms >= self.checkpoint_every_ms):
                    blob = pack_answers(answers)
                    connection.execute(insert(schema.checkpoint),
                                       [{"time_ms": sample.time_ms,
                                         "cluster_id": sample.cluster_id, "data": blob}])
                    self._checkpoint_ms = sample.time_ms
        except BaseException:
            self._reload()
            raise
        return True

    def add_rows(self, time_ms: int, cluster_id: int, names: list[str],
                 values: npt.NDArray[np.int64], thresholds: npt.NDArray[np.float64]) -> bool:
        """The queue part of :meth:`add`, from rows already built (the benchmark's path)."""
        try:
            with self.engine.begin() as connection:
                self._check_newest(connection)
                if (self._last is not None and time_ms <= self._last.time_ms):
                    return False
                self._write(connection, time_ms, cluster_id, names,
                            np.asarray(values, np.int64), np.asarray(thresholds, np.float64))
        except BaseException:
            self._reload()
            raise
        return True

    def _reload(self) -> None:
        with self.engine.connect() as connection:
            self.layouts.__init__(connection)  # type: ignore[misc]
            self._load(connection)

    def _check_newest(self, connection: Connection) -> None:
        """Another process may have written since (it should not: one poller per
        database); then continue from what it wrote."""
        t = schema.sample.c
        newest = connection.execute(select(func.max(t.time_ms))).scalar()
        if newest != (self._last.time_ms if self._last is not None else None):
            self.layouts.refresh(connection)
            self._load(connection)

    def _fresh(self, connection: Connection, sample: Sample) -> bool:
        last = self._last
        if last is not None and sample.time_ms < last.time_ms:
            return False
        t = schema.sample.c
        found = connection.execute(select(t.time_ms).where(and_(
            t.time_ms == sample.time_ms, t.cluster_id == sample.cluster_id))).first()
        return found is None

    def _write(self, connection: Connection, time_ms: int, cluster_id: int, names: list[str],
               values: npt.NDArray[np.int64], limits: npt.NDArray[np.float64]) -> None:
        ids = self.layouts.queue_ids(connection, names)
        layout_id = self.layouts.layout_of(connection, ids)
        previous = self._last
        t = schema.sample.c
        if previous is not None:
            gap = time_ms - previous.time_ms
            weight = min(gap, self._cap(gap))
            connection.execute(update(schema.sample).where(and_(
                t.time_ms == previous.time_ms, t.cluster_id == previous.cluster_id))
                .values(gap_ms=gap, weight_ms=weight))
            self._gaps = [*self._gaps, gap][-(_GAPS - 1):]
            previous.weight_ms = weight
        key = (previous is None or previous.layout_id != layout_id
               or previous.time_ms // self.key_width_ms != time_ms // self.key_width_ms)
        blob = raw.encode(values, limits, None if key else previous)
        connection.execute(insert(schema.sample), [{
            "time_ms": time_ms, "cluster_id": cluster_id, "layout_id": layout_id,
            "key": key, "gap_ms": None, "weight_ms": None, "data": blob}])
        if previous is not None:
            self._rollup(connection, previous.time_ms, time_ms)
        self._last = raw.Raw(time_ms, cluster_id, layout_id, None, values, limits)

    def _cap(self, gap: int) -> int:
        if self.poll_interval_ms is not None:
            return 2 * self.poll_interval_ms
        return int(2 * median(self._gaps)) if self._gaps else gap

    def _rollup(self, connection: Connection, before_ms: int, now_ms: int) -> None:
        """Build the buckets the interval from ``before_ms`` to ``now_ms`` finished: the one
        holding ``before_ms`` at every resolution whose bucket boundary lies between."""
        finer: int | None = None
        for width, _ in self.retention.tiers:
            start = (before_ms // width) * width
            if now_ms < start + width:
                return
            if finer is None:
                tallies = [of_sample(self.layouts.rows(connection, s.layout_id), s.values,
                                     s.thresholds, s.weight_ms or 0)
                           for s in raw.read(connection, self.layouts, start, start + width,
                                             self.key_width_ms)
                           if s.weight_ms is not None]
            else:
                b = schema.bucket.c
                found = connection.execute(select(b.layout_id, b.data).where(and_(
                    b.width_ms == finer, b.start_ms >= start, b.start_ms < start + width)))
                tallies = [decode(blob, self.layouts.rows(connection, lid))
                           for lid, blob in found]
            finer = width
            if not tallies:
                continue
            total = merge(tallies)
            connection.execute(insert(schema.bucket), [{
                "width_ms": width, "start_ms": start,
                "layout_id": self.layouts.layout_of(connection, total.ids),
                "data": encode(total)}])

    def prune(self, now_ms: int) -> None:
        """Delete what is older than its retention: raw samples (whole minutes, never the
        newest's) and buckets (never those the newest coarser bucket, unfinished, is still
        to be built from: a watcher stopped for long loses nothing), checkpoints and
        app/node changes (but the newest of each) after ``raw_ms``; each resolution's
        buckets after its time kept; app records, preemptions and every app/node change
        after the longest.
        Buckets are built as samples arrive, so there is nothing left to downsample here.
        On PostgreSQL the pruned tables are vacuumed, so that new rows reuse the space (the
        size stays bounded)."""
        r = self.retention
        with self.engine.begin() as connection:
            t = schema.sample.c
            newest = connection.execute(select(func.max(t.time_ms))).scalar()
            cut = ((now_ms - r.raw_ms) // self.key_width_ms) * self.key_width_ms
            if newest is not None:
                cut = min(cut, (newest // self.key_width_ms) * self.key_width_ms)
            connection.execute(delete(schema.sample).where(t.time_ms < cut))
            c = schema.checkpoint.c
            newest_checkpoint = connection.execute(select(func.max(c.time_ms))).scalar()
            if newest_checkpoint is not None:
                connection.execute(delete(schema.checkpoint).where(and_(
                    c.time_ms < now_ms - r.raw_ms, c.time_ms < newest_checkpoint)))
            coarser = [w for w, _ in r.tiers[1:]] + [None]
            for (width, kept), up in zip(r.tiers, coarser, strict=True):
                # never what the newest, unfinished, coarser bucket is still to be built from
                cut = now_ms - kept
                if up is not None and newest is not None:
                    cut = min(cut, (newest // up) * up)
                b = schema.bucket.c
                connection.execute(delete(schema.bucket).where(and_(
                    b.width_ms == width, b.start_ms < cut)))
            for table, key in ((schema.app_change, "app_id"), (schema.node_change, "node_id")):
                other = table.alias("newer")
                newer = (select(other.c.time_ms).where(and_(
                    other.c[key] == table.c[key], other.c.time_ms > table.c.time_ms))
                    .exists())
                connection.execute(delete(table).where(and_(
                    table.c.time_ms < now_ms - r.raw_ms, newer)))
            longest = now_ms - max(kept for _, kept in r.tiers)
            for table in (schema.app_change, schema.node_change):  # even the newest, then
                connection.execute(delete(table).where(table.c.time_ms < longest))
            a = schema.app.c
            connection.execute(delete(schema.app).where(and_(
                a.listed.is_(False), a.last_seen_ms < longest,
                a.finished_ms < longest)))
            p = schema.preemption.c
            connection.execute(delete(schema.preemption).where(p.time_ms < longest))
        if self.engine.dialect.name == "postgresql":
            # deleted rows' space is reused only once vacuumed; autovacuum would get there,
            # but on its own schedule (VACUUM runs outside a transaction)
            with self.engine.connect().execution_options(
                    isolation_level="AUTOCOMMIT") as connection:
                connection.execute(text("VACUUM " + ", ".join(_PRUNED)))

    # -- reading (queries.Reader) ----------------------------------------------------------------

    def last_time_ms(self) -> int | None:
        return self.reader.last_time_ms()

    def queue_names(self) -> list[str]:
        return self.reader.queue_names()

    def tally(self, window: Window) -> list[QueueTally]:
        return self.reader.tally(window)

    def series(self, queue: str, start_ms: int, end_ms: int, max_points: int = 2000) -> Series:
        return self.reader.series(queue, start_ms, end_ms, max_points)

    def apps(self, window: Window, queue: str | None = None) -> list[AppRecord]:
        return self.reader.apps(window, queue)

    def app(self, app_id: str) -> AppRecord | None:
        return self.reader.app(app_id)

    def preemptions(self, start_ms: int, end_ms: int, queue: str | None = None
                    ) -> list[Preemption]:
        return self.reader.preemptions(start_ms, end_ms, queue)

    def checkpoint(self, at_ms: int) -> tuple[int, dict[str, str]] | None:
        return self.reader.checkpoint(at_ms)

    def size_bytes(self) -> int:
        return database.size_bytes(self.engine)

    def checkpoint_due(self, time_ms: int) -> bool:
        """Whether :meth:`add` of a sample at ``time_ms`` would keep its answers as a
        checkpoint (so a poller needs them whole, and need not keep them otherwise)."""
        return (self._checkpoint_ms is None
                or time_ms - self._checkpoint_ms >= self.checkpoint_every_ms)

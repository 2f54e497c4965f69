"""Reading the history: tallies over windows, series, apps, preemptions, checkpoints.

Readers (the pages, ``watch status``, ``watch fork``) may be other processes than the poller;
every answer is read from the database, never from the writer's memory.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import Engine, and_, func, or_, select

from fairshare.sim.record.contention import in_contention, short_of_threshold
from fairshare.web.history import raw, schema
from fairshare.web.history.codec import unpack_answers
from fairshare.web.history.layouts import Layouts
from fairshare.web.history.model import (
    AppRecord,
    Preemption,
    QueueTally,
    Retention,
    Series,
    Window,
)
from fairshare.web.history.tally import (
    _FAIR,
    _PENDING,
    _USED,
    SHORT_MS,
    WEIGHT,
    Tally,
    decode,
    merge,
    of_sample,
    queue_tally,
)
from fairshare.web.history.windows import Filter, cover
from fairshare.web.sample import QUEUE_COLUMNS

Unit = tuple[int, Tally]  # a bucket's or a sample's start, and its tally


class Reader:
    def __init__(self, engine: Engine, layouts: Layouts, retention: Retention,
                 key_width_ms: int) -> None:
        self.engine, self.layouts, self.retention = engine, layouts, retention
        self.key_width_ms = key_width_ms

    def last_time_ms(self) -> int | None:
        with self.engine.connect() as connection:
            value = connection.execute(select(func.max(schema.sample.c.time_ms))).scalar()
        return None if value is None else int(value)

    def _newest_layout(self) -> list[int]:
        t = schema.sample.c
        with self.engine.connect() as connection:
            found = connection.execute(select(t.layout_id).order_by(
                t.time_ms.desc(), t.cluster_id.desc()).limit(1)).scalar()
            if found is None:
                return []
            return [int(i) for i in self.layouts.rows(connection, int(found))]

    def queue_names(self) -> list[str]:
        """The newest sample's queues, depth-first."""
        ids = self._newest_layout()
        return [self.layouts.names[i] for i in ids]

    # -- tallies -------------------------------------------------------------------------------

    def tally(self, window: Window) -> list[QueueTally]:
        """Every queue with a sample in the window, the newest tree's order first (queues
        since removed after, by first appearance). The newest sample, whose interval is
        still open, is not counted."""
        check = Filter(window)
        widths = [w for w, _ in self.retention.tiers][::-1]
        b = schema.bucket.c
        t = schema.sample.c
        with self.engine.connect() as connection:
            def starts_of(width: int, start: int, end: int) -> list[int]:
                return [int(s) for s in connection.execute(select(b.start_ms).where(and_(
                    b.width_ms == width, b.start_ms >= start, b.start_ms < end))
                    .order_by(b.start_ms)).scalars()]

            def has_raw(start: int, end: int) -> bool:
                return connection.execute(select(t.time_ms).where(and_(
                    t.time_ms >= start, t.time_ms < end)).limit(1)).first() is not None

            chosen, spans = cover(window, widths, starts_of, has_raw)
            groups: dict[int, Tally] = {}
            wanted: dict[int, set[int]] = defaultdict(set)
            for width, start in chosen:
                if check.holds(start):
                    wanted[width].add(start)
            for width, starts in wanted.items():
                for lo, hi in _runs(sorted(starts), width):
                    for start, lid, blob in connection.execute(
                            select(b.start_ms, b.layout_id, b.data).where(and_(
                                b.width_ms == width, b.start_ms >= lo, b.start_ms < hi))):
                        if start in starts:
                            _accumulate(groups, lid, decode(blob, self.layouts.rows(
                                connection, lid)))
            samples = []
            for lo, hi in spans:
                for s in raw.read(connection, self.layouts, lo, hi, self.key_width_ms):
                    if s.weight_ms is not None and check.holds(s.time_ms):
                        samples.append(of_sample(self.layouts.rows(connection, s.layout_id),
                                                 s.values, s.thresholds, s.weight_ms))
        total = merge([*groups.values(), *samples])
        order = {qid: k for k, qid in enumerate(self._newest_layout())}
        rows = sorted(range(len(total)), key=lambda r: (order.get(int(total.ids[r]), math.inf),
                                                      int(total.ids[r])))
        return [queue_tally(self.layouts.names[int(total.ids[r])], total, r) for r in rows]

    # -- series --------------------------------------------------------------------------------

    def series(self, queue: str, start_ms: int, end_ms: int, max_points: int = 2000) -> Series:
        """The queue over [start, end): raw samples when they fit in ``max_points`` and are
        still kept, else the finest bucket resolution that fits and is kept there (buckets
        not built yet — the newest — made from finer data), else the coarsest kept with
        neighbouring buckets merged to fit."""
        if queue not in self.layouts.ids:
            with self.engine.connect() as connection:
                self.layouts.refresh(connection)
        qid = self.layouts.ids.get(queue)
        if qid is None:
            raise ValueError(f"queue {queue!r} is not in the history")
        newest = self.last_time_ms() or 0
        span = max(end_ms - start_ms, 1)
        t = schema.sample.c
        with self.engine.connect() as connection:
            count = connection.execute(select(func.count()).select_from(schema.sample).where(
                and_(t.time_ms >= start_ms, t.time_ms < end_ms))).scalar_one()
        if count <= max_points and start_ms >= newest - self.retention.raw_ms:
            return self._raw_series(queue, qid, start_ms, end_ms)
        tiers = list(self.retention.tiers)
        level = next((k for k, (w, kept) in enumerate(tiers)
                      if span / w <= max_points and start_ms >= newest - kept), None)
        if level is None:
            level = next((k for k, (_, kept) in enumerate(tiers)
                          if start_ms >= newest - kept), len(tiers) - 1)
        width = tiers[level][0]
        group = width * max(1, math.ceil(span / (width * max_points)))
        merged: dict[int, list[Tally]] = defaultdict(list)
        for start, one in self._units(qid, level, start_ms, end_ms):
            merged[(start // group) * group].append(one)
        times = sorted(merged)
        tallies = [merge(merged[s]) for s in times]
        averages, minima, maxima = {}, {}, {}
        for c, column in enumerate(QUEUE_COLUMNS):
            averages[column] = tuple(float(x.sums[0, c] / x.counts[0, WEIGHT])
                                     if x.counts[0, WEIGHT] else float(x.mins[0, c])
                                     for x in tallies)
            minima[column] = tuple(int(x.mins[0, c]) for x in tallies)
            maxima[column] = tuple(int(x.maxs[0, c]) for x in tallies)
        return Series(queue, group, tuple(times), averages, minima, maxima,
                      tuple(bool(x.counts[0, SHORT_MS] > 0) for x in tallies))

    def _rows_of(self, qid: int) -> dict[int, tuple[int, int]]:
        """Per layout, the row of queue ``qid`` (layouts without it: none)."""
        out = {}
        for lid, ids in list(self.layouts.layouts.items()):  # the poller may be adding one
            at = np.flatnonzero(ids == qid)
            out[lid] = (int(at[0]), int(at[0]) + 1) if len(at) else (0, 0)
        return out

    def _units(self, qid: int, level: int, start_ms: int, end_ms: int) -> Iterator[Unit]:
        """The queue's buckets of tier ``level`` in [start, end), then, after the last of
        them, finer ones (the newest, not built yet), down to raw samples (level -1)."""
        with self.engine.connect() as connection:
            self.layouts.refresh(connection)
            rows_of = self._rows_of(qid)
            if level < 0:
                for s in raw.read(connection, self.layouts, start_ms, end_ms,
                                  self.key_width_ms, rows_of):
                    if len(s.values):
                        yield s.time_ms, of_sample(np.array([qid]), s.values, s.thresholds,
                                                   s.weight_ms or 0)
                return
            width = self.retention.tiers[level][0]
            b = schema.bucket.c
            after = start_ms
            found = connection.execute(select(b.start_ms, b.layout_id, b.data).where(and_(
                b.width_ms == width, b.start_ms >= start_ms, b.start_ms < end_ms))
                .order_by(b.start_ms))
            for start, lid, blob in found:
                after = max(after, int(start) + width)
                rows = rows_of.get(lid, (0, 0))
                if rows[1] > rows[0]:
                    ids = self.layouts.rows(connection, lid)
                    yield int(start), decode(blob, ids, rows)
        if after < end_ms:
            yield from self._units(qid, level - 1, after, end_ms)

    def _raw_series(self, queue: str, qid: int, start_ms: int, end_ms: int) -> Series:
        times: list[int] = []
        values: list[npt.NDArray[np.int64]] = []
        short: list[bool] = []
        with self.engine.connect() as connection:
            self.layouts.refresh(connection)
            for s in raw.read(connection, self.layouts, start_ms, end_ms, self.key_width_ms,
                              self._rows_of(qid)):
                if not len(s.values):
                    continue
                times.append(s.time_ms)
                values.append(s.values[0])
                contended = in_contention(s.values[:, _PENDING])
                short.append(bool((short_of_threshold(s.values[:, _USED], s.values[:, _FAIR],
                                                      s.thresholds) & contended)[0]))
        matrix = np.array(values, np.int64).reshape(len(values), len(QUEUE_COLUMNS))
        ints = {c: tuple(int(v) for v in matrix[:, k]) for k, c in enumerate(QUEUE_COLUMNS)}
        return Series(queue, 0, tuple(times),
                      {c: tuple(float(v) for v in vs) for c, vs in ints.items()},
                      ints, dict(ints), tuple(short))

    # -- apps, preemptions, checkpoints ----------------------------------------------------------

    def apps(self, window: Window, queue: str | None = None) -> list[AppRecord]:
        """Apps alive in [start, end) — started before its end, and finished (or last
        seen) at or after its start — in ``queue`` or below it; by start time."""
        a = schema.app.c
        newest = self.last_time_ms()
        alive = and_(a.started_ms < window.end_ms, or_(
            a.finished_ms >= window.start_ms,
            and_(a.finished_ms == 0, or_(a.listed, a.last_seen_ms >= window.start_ms))))
        query = select(schema.app).where(alive)
        if queue is not None:
            query = query.where(or_(a.queue == queue, a.queue.startswith(queue + ".")))
        with self.engine.connect() as connection:
            rows = connection.execute(query.order_by(a.started_ms, a.id)).mappings().all()
        return [_record(row, newest) for row in rows]

    def app(self, app_id: str) -> AppRecord | None:
        a = schema.app.c
        with self.engine.connect() as connection:
            row = connection.execute(select(schema.app).where(a.id == app_id)).mappings().first()
        return None if row is None else _record(row, self.last_time_ms())

    def preemptions(self, start_ms: int, end_ms: int, queue: str | None = None
                    ) -> list[Preemption]:
        """Preemptions seen in [start, end), in ``queue`` or below it, oldest first."""
        p = schema.preemption.c
        query = select(schema.preemption).where(and_(p.time_ms >= start_ms,
                                                     p.time_ms < end_ms))
        if queue is not None:
            query = query.where(or_(p.queue == queue, p.queue.startswith(queue + ".")))
        with self.engine.connect() as connection:
            rows = connection.execute(query.order_by(p.time_ms, p.app_id)).mappings().all()
        return [Preemption(int(r["time_ms"]), r["app_id"], r["queue"], int(r["containers"]),
                           int(r["am_containers"]), int(r["memory_mb"]), int(r["vcores"]))
                for r in rows]

    def checkpoint(self, at_ms: int) -> tuple[int, dict[str, str]] | None:
        c = schema.checkpoint.c
        with self.engine.connect() as connection:
            row = connection.execute(select(c.time_ms, c.data).where(c.time_ms <= at_ms)
                                     .order_by(c.time_ms.desc()).limit(1)).first()
        if row is None:
            return None
        return int(row[0]), unpack_answers(row[1])


def _accumulate(groups: dict[int, Tally], layout_id: int, one: Tally) -> None:
    if layout_id in groups:
        groups[layout_id].add_in_place(one)
    else:
        groups[layout_id] = one


def _runs(starts: list[int], width: int) -> Iterator[tuple[int, int]]:
    """Contiguous runs of bucket starts, as [first, end) spans."""
    lo = prev = None
    for s in starts:
        if lo is None or prev is None:
            lo = s
        elif s != prev + width:
            yield lo, prev + width
            lo = s
        prev = s
    if lo is not None and prev is not None:
        yield lo, prev + width


def _record(row: Mapping[Any, Any], newest: int | None) -> AppRecord:
    def n(key: str) -> int:
        return int(row[key])

    last_seen = n("last_seen_ms")
    if row["listed"] and newest is not None:
        last_seen = max(last_seen, newest)
    first = row["first_container_ms"]
    return AppRecord(
        id=str(row["id"]), cluster_id=n("cluster_id"), user=str(row["user"]),
        name=str(row["name"]), queue=str(row["queue"]), state=str(row["state"]),
        final_status=str(row["final_status"]), started_ms=n("started_ms"),
        launched_ms=n("launched_ms"), finished_ms=n("finished_ms"),
        first_seen_ms=n("first_seen_ms"), last_seen_ms=last_seen,
        first_container_ms=None if first is None else int(first),
        allocated=(n("allocated_mb"), n("allocated_vcores")),
        pending_containers=n("pending_containers"), running_containers=n("running_containers"),
        am_preempted=n("am_preempted"), preempted=n("preempted"),
        preempted_resources=(n("preempted_mb"), n("preempted_vcores")),
        memory_seconds=n("memory_seconds"), vcore_seconds=n("vcore_seconds"),
        preempted_memory_seconds=n("preempted_memory_seconds"),
        preempted_vcore_seconds=n("preempted_vcore_seconds"),
        diagnostics=str(row["diagnostics"]))

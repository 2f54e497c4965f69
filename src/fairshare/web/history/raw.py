"""Raw samples: one row per poll, every queue's values and threshold in one blob.

Consecutive samples differ little (a share moves when demand does), so a sample is stored
as its difference from the previous one when both are in the same minute (the finest
bucket) and have the same layout, and whole (a *keyframe*) otherwise. Reading a sample
therefore starts at its minute's keyframe — the rollup and the series read whole minutes
anyway — and deleting whole minutes never strands a difference without its keyframe.
Thresholds ride along as their float64 bits; int64 differences wrap and unwrap exactly.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from sqlalchemy import Connection, and_, select

from fairshare.web.history import schema
from fairshare.web.history.codec import Matrix, pack, unpack
from fairshare.web.history.layouts import Layouts


@dataclass
class Raw:
    """One stored sample, decoded."""

    time_ms: int
    cluster_id: int
    layout_id: int
    weight_ms: int | None  # None: the newest sample, its interval still open
    values: Matrix
    thresholds: npt.NDArray[np.float64]


def encode(values: Matrix, thresholds: npt.NDArray[np.float64], base: Raw | None) -> bytes:
    """The blob of a sample; relative to ``base`` when given."""
    bits = np.asarray(thresholds, np.float64).view(np.int64)[:, None]
    if base is None:
        return pack([values, bits])
    with np.errstate(over="ignore"):
        return pack([values - base.values, bits - base.thresholds.view(np.int64)[:, None]])


def decode(blob: bytes, base: Raw | None, rows: tuple[int, int] | None = None
           ) -> tuple[Matrix, npt.NDArray[np.float64]]:
    values, bits = unpack(blob, rows)
    if base is not None:
        with np.errstate(over="ignore"):
            values = values + base.values
            bits = bits + base.thresholds.view(np.int64)[:, None]
    return values, np.ascontiguousarray(bits[:, 0]).view(np.float64)


def read(connection: Connection, layouts: Layouts, start_ms: int, end_ms: int,
         key_width_ms: int, rows_of: dict[int, tuple[int, int]] | None = None
         ) -> Iterator[Raw]:
    """The samples with ``start_ms <= time < end_ms``, oldest first; reading from the
    keyframe of ``start_ms``'s minute. ``rows_of``: per layout, only those rows."""
    t = schema.sample.c
    first = (start_ms // key_width_ms) * key_width_ms
    query = (select(t.time_ms, t.cluster_id, t.layout_id, t.key, t.weight_ms, t.data)
             .where(and_(t.time_ms >= first, t.time_ms < end_ms))
             .order_by(t.time_ms, t.cluster_id))
    base: Raw | None = None
    for time_ms, cluster_id, layout_id, key, weight_ms, blob in connection.execute(query):
        rows = None if rows_of is None else rows_of.get(layout_id, (0, 0))
        if not key and base is None:
            continue  # its keyframe was deleted (not by prune: it deletes whole minutes)
        values, thresholds = decode(blob, None if key else base, rows)
        base = Raw(time_ms, cluster_id, layout_id, weight_ms, values, thresholds)
        if time_ms >= start_ms:
            yield base

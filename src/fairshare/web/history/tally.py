"""Tallies: what a run of samples adds up to, per queue — the numbers every bucket keeps.

A :class:`Tally` holds, per queue (a row; queues by their id in the ``queue`` table) and per
:data:`~fairshare.web.sample.QUEUE_COLUMNS` column: Σ value × ms, Σ value × ms over the
samples *in contention*, the minimum and the maximum; and per queue five counters — samples,
weight (ms), samples and ms in contention, ms short of threshold × fair share while in
contention. Merging two tallies is addition (and min/max), so a bucket of any resolution is
the merge of the finer buckets or samples in it, and a window's tally is the same whatever
resolution answers it (exact integers; the property test in tests/web/history checks it).

A sample stands for ``weight`` ms: the time to the next sample, capped (:mod:`.store`).
Contention and shortness are :mod:`fairshare.sim.record.contention`'s two tests — the ones
the simulator's report uses: ``in_contention`` on ``pendingContainers`` and
``short_of_threshold`` on used against threshold × instantaneous fair share
(``FSLeafQueue.isStarvedForFairShare``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fairshare.sim.record.contention import in_contention, short_of_threshold
from fairshare.web.history.codec import Matrix, pack, unpack
from fairshare.web.history.model import QueueTally
from fairshare.web.sample import COLUMN, QUEUE_COLUMNS

NCOL = len(QUEUE_COLUMNS)
SAMPLES, WEIGHT, CONTENTION_SAMPLES, CONTENTION_MS, SHORT_MS = range(5)
_PENDING = [COLUMN["pending_containers"]]
_USED = [COLUMN["used_mb"], COLUMN["used_vcores"]]
_FAIR = [COLUMN["fair_share_mb"], COLUMN["fair_share_vcores"]]
_BIG = np.iinfo(np.int64).max
_SMALL = np.iinfo(np.int64).min


@dataclass
class Tally:
    """Per queue id (``ids``, ascending): counters (n × 5) and per column sums, contention
    sums, minima and maxima (n × columns)."""

    ids: npt.NDArray[np.int64]
    counts: Matrix
    sums: Matrix
    csums: Matrix
    mins: Matrix
    maxs: Matrix

    @classmethod
    def empty(cls, ids: npt.NDArray[np.int64] | None = None) -> Tally:
        ids = np.zeros(0, np.int64) if ids is None else np.asarray(ids, np.int64)
        n = len(ids)
        zero = np.zeros((n, NCOL), np.int64)
        return cls(ids, np.zeros((n, 5), np.int64), zero, zero.copy(),
                   np.full((n, NCOL), _BIG, np.int64), np.full((n, NCOL), _SMALL, np.int64))

    def __len__(self) -> int:
        return len(self.ids)

    def add_in_place(self, other: Tally) -> None:
        """``other`` over the same ids, added to this one."""
        self.counts += other.counts
        self.sums += other.sums
        self.csums += other.csums
        np.minimum(self.mins, other.mins, out=self.mins)
        np.maximum(self.maxs, other.maxs, out=self.maxs)


def of_sample(ids: npt.NDArray[np.int64], values: Matrix,
              thresholds: npt.NDArray[np.float64], weight_ms: int) -> Tally:
    """One sample (rows in ``ids`` order, not necessarily sorted) standing for ``weight_ms``."""
    order = np.argsort(ids, kind="stable")
    ids, values, thresholds = ids[order], values[order], thresholds[order]
    contended = in_contention(values[:, _PENDING])
    short = short_of_threshold(values[:, _USED], values[:, _FAIR], thresholds) & contended
    counts = np.zeros((len(ids), 5), np.int64)
    counts[:, SAMPLES] = 1
    counts[:, WEIGHT] = weight_ms
    counts[:, CONTENTION_SAMPLES] = contended
    counts[:, CONTENTION_MS] = contended * weight_ms
    counts[:, SHORT_MS] = short * weight_ms
    sums = values * weight_ms
    csums = sums * contended[:, None]
    return Tally(ids, counts, sums, csums, values.copy(), values.copy())


def merge(tallies: Sequence[Tally]) -> Tally:
    """The tallies added up over the union of their queues."""
    if not tallies:
        return Tally.empty()
    if all(len(t) == len(tallies[0]) and np.array_equal(t.ids, tallies[0].ids)
           for t in tallies[1:]):
        total = Tally.empty(tallies[0].ids)
        for t in tallies:
            total.add_in_place(t)
        return total
    ids = np.unique(np.concatenate([t.ids for t in tallies]))
    total = Tally.empty(ids)
    for t in tallies:
        rows = np.searchsorted(ids, t.ids)
        total.counts[rows] += t.counts
        total.sums[rows] += t.sums
        total.csums[rows] += t.csums
        total.mins[rows] = np.minimum(total.mins[rows], t.mins)
        total.maxs[rows] = np.maximum(total.maxs[rows], t.maxs)
    return total


def encode(t: Tally) -> bytes:
    """A bucket's blob (its ids are its layout, stored apart): minima, spreads (max − min),
    the sums' excess over min × weight, and the part of that excess outside contention —
    so that a column that did not move in the bucket is all zeros, and so is the last
    matrix for a queue in contention throughout (or never)."""
    weight = t.counts[:, WEIGHT:WEIGHT + 1]
    cweight = t.counts[:, CONTENTION_MS:CONTENTION_MS + 1]
    excess = t.sums - t.mins * weight
    return pack([t.counts, t.mins, t.maxs - t.mins, excess,
                 excess - (t.csums - t.mins * cweight)])


def decode(blob: bytes, ids: npt.NDArray[np.int64], rows: tuple[int, int] | None = None
           ) -> Tally:
    """A bucket's blob over ``ids`` (its layout); ``rows`` (first, end): only those."""
    counts, mins, spread, excess, outside = unpack(blob, rows)
    weight = counts[:, WEIGHT:WEIGHT + 1]
    cweight = counts[:, CONTENTION_MS:CONTENTION_MS + 1]
    cexcess = excess - outside
    first, end = rows if rows is not None else (0, len(ids))
    return Tally(np.asarray(ids[first:end], np.int64), counts, excess + mins * weight,
                 cexcess + mins * cweight, mins, spread + mins)


def queue_tally(name: str, t: Tally, row: int) -> QueueTally:
    """One row of a tally as the history's record."""
    c = t.counts[row]
    return QueueTally(
        name=name, samples=int(c[SAMPLES]), weight_ms=int(c[WEIGHT]),
        contention_samples=int(c[CONTENTION_SAMPLES]), contention_ms=int(c[CONTENTION_MS]),
        short_ms=int(c[SHORT_MS]),
        sums=dict(zip(QUEUE_COLUMNS, map(int, t.sums[row]), strict=True)),
        contention_sums=dict(zip(QUEUE_COLUMNS, map(int, t.csums[row]), strict=True)),
        minima=dict(zip(QUEUE_COLUMNS, map(int, t.mins[row]), strict=True)),
        maxima=dict(zip(QUEUE_COLUMNS, map(int, t.maxs[row]), strict=True)))

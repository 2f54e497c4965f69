"""Instantaneous fair shares for large trees: §2.3 solved for many sibling groups at once.

:mod:`fairshare.core.fairshare` runs ComputeFairShares group by group in plain Python, which
takes over two seconds for 10,000 leaves and 100,000 apps. Here every group of one tree level —
and every resource type of it — is one *problem* in a numpy batch: the doubling search, the 25
bisection steps and the final ``share(s, hi)`` run as array operations over all problems
together, with exactly the same double arithmetic, the same saturating sums and the same early
exit when a step hits the total, so the results are identical (tests compare the two on random
trees).

Problems whose searching schedulables are all alike (same weight, min and max — typically the
runnable apps of a leaf) are solved per problem: n equal shares sum to ``n × share`` exactly.

A :class:`~fairshare.core.share_model.ShareModel` builds the batches for a tree.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from fairshare.core.compute_shares import BISECTION_STEPS
from fairshare.resources.vector import LONG_MAX

I64 = npt.NDArray[np.int64]
F64 = npt.NDArray[np.float64]
B = npt.NDArray[np.bool_]

_TWO_63 = 9.223372036854775808e18
_BELOW_TWO_63 = 9.2233720368547748e18  # the largest double below 2^63
# A float sum of non-negative int64s below _SAFE means the int64 sum did not wrap; above
# _SATURATED the exact sum certainly exceeds 2^63 − 1 (float error is far below 8 %).
# Only sums in between are recomputed exactly in Python.
_SAFE = 4.0e18
_SATURATED = 1.0e19


def java_long_array(x: F64) -> I64:
    """Vectorised ``(long) double``: truncate, saturate, NaN → 0."""
    clipped = np.clip(np.nan_to_num(x, nan=0.0), -_TWO_63, _BELOW_TWO_63)
    out: I64 = clipped.astype(np.int64)  # astype truncates toward zero
    out[x >= _TWO_63] = LONG_MAX
    return out


def sat_segment_sum(values: I64, starts: I64) -> I64:
    """Saturating sum of non-negative int64 values over contiguous non-empty segments."""
    if len(starts) == 0:
        return np.zeros(0, dtype=np.int64)
    approx = np.add.reduceat(values.astype(np.float64), starts)
    exact: I64 = np.add.reduceat(values, starts)
    exact[approx >= _SATURATED] = LONG_MAX
    risky = (approx >= _SAFE) & (approx < _SATURATED)
    if risky.any():
        ends = np.append(starts[1:], len(values))
        for i in np.flatnonzero(risky):
            total = sum(int(v) for v in values[starts[i] : ends[i]])
            exact[i] = min(total, LONG_MAX)
    return exact


def sat_multiply(counts: I64, values: I64) -> I64:
    """Saturating ``count × value`` for non-negative operands."""
    approx = counts.astype(np.float64) * values.astype(np.float64)
    out: I64 = counts * values
    out[approx >= _SATURATED] = LONG_MAX
    risky = (approx >= _SAFE) & (approx < _SATURATED)
    for i in np.flatnonzero(risky):
        out[i] = min(int(counts[i]) * int(values[i]), LONG_MAX)
    return out


def share_at_array(w: F64, mn: I64, mx: I64, ratio: F64) -> I64:
    """Vectorised ``trunc(min(max(w·R, min), max))``; np.maximum/minimum propagate NaN as Java."""
    with np.errstate(over="ignore", invalid="ignore"):  # inf·0 and overflow are expected
        value = np.minimum(np.maximum(w * ratio, mn.astype(np.float64)), mx.astype(np.float64))
    return java_long_array(value)


@dataclass(frozen=True, slots=True)
class ShareBatch:
    """Many independent ComputeFairShares problems; elements sorted by problem."""

    totals: I64  # per problem: the parent's share of that type
    elem_problem: I64  # per element: its problem, non-decreasing
    weight: F64
    min_share: I64
    max_share: I64
    active: B
    is_queue: B


def solve_batch(batch: ShareBatch, steady: bool) -> I64:
    """Every element's new value: §2.3 ``fixed`` or ``share(s, hi)`` of its problem."""
    n_problems = len(batch.totals)
    w, mn, mx = batch.weight, batch.min_share, batch.max_share
    # Spec §2.3 fixed(s): max <= 0 → 0; an inactive queue (instantaneous only) → 0;
    # weight <= 0 → its min share (if positive). NaN weights are not <= 0 and do search.
    zero = mx <= 0
    if not steady:
        zero |= batch.is_queue & ~batch.active
    fixed = zero | (w <= 0)
    result = np.where(fixed & ~zero, np.maximum(mn, 0), 0).astype(np.int64)

    taken = np.zeros(n_problems, dtype=np.int64)
    fixed_idx = np.flatnonzero(fixed)
    if len(fixed_idx):
        probs, starts = _segments(batch.elem_problem[fixed_idx])
        taken[probs] = sat_segment_sum(result[fixed_idx], starts)

    search_idx = np.flatnonzero(~fixed)
    if len(search_idx) == 0:
        return result
    probs, starts = _segments(batch.elem_problem[search_idx])
    s_w, s_mn, s_mx = w[search_idx], mn[search_idx], mx[search_idx]
    total_max = sat_segment_sum(s_mx, starts)
    total = np.minimum(total_max, np.maximum(batch.totals[probs] - taken[probs], 0))
    used = _UsedFunction(s_w, s_mn, s_mx, starts)
    hi = _bisect(used, total)
    elem_seg = np.repeat(np.arange(len(probs)), np.diff(np.append(starts, len(search_idx))))
    result[search_idx] = share_at_array(s_w, s_mn, s_mx, hi[elem_seg])
    return result


def _segments(sorted_problem: I64) -> tuple[I64, I64]:
    """(problem id, start offset) of each run in a non-decreasing array."""
    if len(sorted_problem) == 0:
        return sorted_problem, np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(np.r_[True, sorted_problem[1:] != sorted_problem[:-1]])
    return sorted_problem[starts], starts.astype(np.int64)


class _UsedFunction:
    """``used(R)`` per segment; segments of identical schedulables take the n × share shortcut."""

    def __init__(self, w: F64, mn: I64, mx: I64, starts: I64) -> None:
        n = len(w)
        counts = np.diff(np.append(starts, n))
        seg_of = np.repeat(np.arange(len(starts)), counts)
        first = starts[seg_of]
        same = (w == w[first]) & (mn == mn[first]) & (mx == mx[first])
        uniform = np.minimum.reduceat(same.astype(np.int8), starts).astype(bool)
        self.u_seg = np.flatnonzero(uniform)
        heads = starts[uniform]
        self.u_w, self.u_mn, self.u_mx = w[heads], mn[heads], mx[heads]
        self.u_count = counts[uniform]
        mixed_elems = ~uniform[seg_of]
        self.m_seg = np.flatnonzero(~uniform)
        self.m_w, self.m_mn, self.m_mx = w[mixed_elems], mn[mixed_elems], mx[mixed_elems]
        self.m_seg_of = seg_of[mixed_elems]
        _, self.m_starts = _segments(self.m_seg_of)
        self.n_segments = len(starts)

    def __call__(self, ratio: F64) -> I64:
        used = np.zeros(self.n_segments, dtype=np.int64)
        if len(self.u_seg):
            one = share_at_array(self.u_w, self.u_mn, self.u_mx, ratio[self.u_seg])
            used[self.u_seg] = sat_multiply(self.u_count, one)
        if len(self.m_seg):
            shares = share_at_array(self.m_w, self.m_mn, self.m_mx, ratio[self.m_seg_of])
            used[self.m_seg] = sat_segment_sum(shares, self.m_starts)
        return used


def _doubling_bound(used: _UsedFunction, total: I64) -> F64:
    """The ``upper`` YARN's doubling loop ends with: the least 2^k (k ≥ 0) with used ≥ total.

    used(R) never decreases as R grows, so instead of doubling one step at a time we binary-search
    the exponent k; the loop would also stop once R overflows to infinity (k = 1024).
    """
    # Most problems need far less than 2^64: probe that first to halve the search.
    fits = used(np.full(len(total), 2.0**64)) >= total
    low = np.where(fits, 0, 65).astype(np.int64)
    high = np.where(fits, 64, 1024).astype(np.int64)
    while True:
        open_ = low < high
        if not open_.any():
            break
        mid = (low + high) // 2
        fits = used(np.ldexp(1.0, np.minimum(mid, 1023))) >= total
        high = np.where(open_ & fits, mid, high)
        low = np.where(open_ & ~fits, mid + 1, low)
    return np.where(high >= 1024, np.inf, np.ldexp(1.0, np.minimum(high, 1023)))


def _bisect(used: _UsedFunction, total: I64) -> F64:
    """YARN's doubling search then 25 bisection steps per segment; returns the upper bounds."""
    low = np.zeros(len(total), dtype=np.float64)
    high = _doubling_bound(used, total)
    running = np.ones(len(total), dtype=bool)
    for _ in range(BISECTION_STEPS):
        mid = (low + high) / 2.0
        u = used(mid)
        hit = running & (u == total)
        below = running & (u < total)
        above = running & (u > total)
        high = np.where(hit | above, mid, high)
        low = np.where(below, mid, low)
        running &= ~hit
        if not running.any():
            break
    return high

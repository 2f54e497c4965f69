"""ComputeFairShares, exactly as YARN does it (spec §2.3) — the reference implementation.

One call cuts one resource type of a parent's share among its schedulables (child queues, or
the runnable apps of a leaf). It is deliberately a line-by-line port: a doubling search for an
upper bound on the weight-to-resource ratio R, then 25 bisection steps, then every schedulable
gets ``trunc(min(max(w·R, min), max))`` at the **upper** bound — which is why three equal queues
sharing 1000 get 334 each (spec §2.3). ``fairshare.core.fast_shares`` computes the same numbers
for many groups at once; tests hold the two to identical results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fairshare.resources.vector import LONG_MAX, java_long, sat_add

BISECTION_STEPS = 25  # COMPUTE_FAIR_SHARES_ITERATIONS


@dataclass(frozen=True, slots=True)
class ShareInput:
    """A schedulable as ComputeFairShares sees it, for one resource type."""

    weight: float  # float32 value widened to double (spec §0.2)
    min_share: int
    max_share: int
    active: bool = True  # only queues can be inactive (spec §2.4)
    is_queue: bool = False


def share_at(s: ShareInput, ratio: float) -> int:
    """``(long) min(max(w·R, min), max)`` in double arithmetic (spec §2.3 ``share``).

    Java's Math.max/min propagate NaN and ``(long) NaN`` is 0, so a NaN product gives 0.
    """
    value = s.weight * ratio
    if value != value:
        return 0
    low, high = float(s.min_share), float(s.max_share)
    if value < low:
        value = low
    if value > high:
        value = high
    return java_long(value)


def fixed_share(s: ShareInput, steady: bool) -> int | None:
    """Share of a schedulable that takes no part in the search, or None (§2.3 ``fixed``)."""
    if s.max_share <= 0:
        return 0
    if not steady and s.is_queue and not s.active:
        return 0
    if s.weight <= 0:  # negative weights behave like zero; NaN is not <= 0
        return s.min_share if s.min_share > 0 else 0
    return None


def resource_used(items: Sequence[ShareInput], ratio: float) -> int:
    """Saturating sum of every schedulable's share at ratio R (shares here are never negative)."""
    total = 0
    for s in items:
        total += share_at(s, ratio)
        if total >= LONG_MAX:
            return LONG_MAX
    return total


def compute_shares(items: Sequence[ShareInput], total: int, steady: bool) -> list[int]:
    """The new value of one resource type for each schedulable, in input order."""
    fixed = [fixed_share(s, steady) for s in items]
    taken = 0
    for value in fixed:
        if value is not None:
            taken = sat_add(taken, value)
    searching = [s for s, value in zip(items, fixed, strict=True) if value is None]
    ratio = _search_ratio(searching, _search_total(searching, total, taken)) if searching else 0.0
    return [
        share_at(s, ratio) if value is None else value
        for s, value in zip(items, fixed, strict=True)
    ]


def _search_total(searching: Sequence[ShareInput], total: int, taken: int) -> int:
    """``min(Σ max, max(T − taken, 0))``: capping by the max shares lets the doubling end."""
    total_max = 0
    for s in searching:
        total_max = sat_add(total_max, s.max_share)
        if total_max == LONG_MAX:
            break
    return min(total_max, max(total - taken, 0))


def _search_ratio(searching: Sequence[ShareInput], total: int) -> float:
    """Doubling then 25 bisection steps; returns the upper bound, as YARN uses it (spec §2.3)."""
    upper = 1.0
    # A NaN weight never uses anything, so YARN would double forever; we stop at infinity.
    while resource_used(searching, upper) < total and upper != float("inf"):
        upper *= 2.0
    return bisect_ratio(lambda ratio: resource_used(searching, ratio), upper, total)


def bisect_ratio(used_at: Callable[[float], int], upper: float, total: int) -> float:
    """The 25 bisection steps below ``upper``; the upper bound is the answer (spec §2.3)."""
    low, high = 0.0, upper
    for _ in range(BISECTION_STEPS):
        mid = (low + high) / 2.0
        used = used_at(mid)
        if used == total:
            high = mid
            break
        if used < total:
            low = mid
        else:
            high = mid
    return high

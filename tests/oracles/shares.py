"""ComputeFairShares line by line: the reference for ``core.compute_shares``.

``ComputeFairShares.computeSharesInternal`` as it reads: the schedulables that take no part in
the search get their fixed share; for the others, ``resourceUsedWithWeightToResourceRatio``
sums every one's share at R, R doubles from 1 until that sum reaches the total, then 25
bisection steps narrow R, and the upper bound is what every share is computed at. The engine's
solver counts identical schedulables once and finds the doubling's end from a first guess; its
shares must be these (``tests/core/shares/test_compute_shares.py``,
``tests/core/test_fast_update.py``).
"""

from __future__ import annotations

from collections.abc import Sequence

from fairshare.core.shares.solver import (
    ShareInput,
    bisect_ratio,
    fixed_share,
    search_total,
    share_at,
)
from fairshare.resources.vector import LONG_MAX, sat_add


def compute_shares_reference(items: Sequence[ShareInput], total: int, steady: bool) -> list[int]:
    """The new value of one resource type for each schedulable, in input order."""
    fixed = [fixed_share(s, steady) for s in items]
    taken = 0
    for value in fixed:
        if value is not None:
            taken = sat_add(taken, value)
    searching = [s for s, value in zip(items, fixed, strict=True) if value is None]
    ratio = _search_ratio(searching, search_total(searching, total, taken)) if searching else 0.0
    return [
        share_at(s, ratio) if value is None else value
        for s, value in zip(items, fixed, strict=True)
    ]


def resource_used(items: Sequence[ShareInput], ratio: float) -> int:
    """Saturating sum of every schedulable's share at ratio R (shares here are never negative)."""
    total = 0
    for s in items:
        total += share_at(s, ratio)
        if total >= LONG_MAX:
            return LONG_MAX
    return total


def _search_ratio(searching: Sequence[ShareInput], total: int) -> float:
    """Doubling then 25 bisection steps; returns the upper bound, as YARN uses it."""
    upper = 1.0
    # A NaN weight never uses anything, so YARN would double forever; we stop at infinity.
    while resource_used(searching, upper) < total and upper != float("inf"):
        upper *= 2.0
    return bisect_ratio(lambda ratio: resource_used(searching, ratio), upper, total)

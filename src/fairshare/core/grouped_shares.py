"""ComputeFairShares with identical schedulables counted once (spec §2.3) — same numbers, faster.

:func:`fairshare.core.compute_shares.compute_shares` evaluates ``used(R)`` by summing every
searching schedulable's share, about sixty times per call (doubling, then 25 bisection steps).
Schedulables with the same weight, min and max share have the same share at every R, so here
``used(R)`` is a sum over *groups*: ``count × share``. The runnable apps of a leaf (weight 1, or
a handful of size-based weights) are one or a few groups; a parent's children are a few.

Identical, not approximate: every share is non-negative (the searching ones have a positive max
share, and ``w·R`` with ``R ≥ 0`` never falls below a min share that is not clamped up to it), so
the saturating running sum of :func:`~fairshare.core.compute_shares.resource_used` is
``min(Σ, LONG_MAX)`` whatever the order or grouping. The doubling and bisection then take the
same steps and end at the same upper bound; the final shares are computed per schedulable as
before. The bound depends only on the groups and the total searched for, so it is memoised
(trees repeat the same splits: sibling leaves of one weight get the same share and often hold
as many apps). Tests hold this module to :mod:`~fairshare.core.compute_shares` on random inputs.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

from fairshare.core.compute_shares import (
    ShareInput,
    _search_total,
    bisect_ratio,
    fixed_share,
    share_at,
)
from fairshare.resources.vector import LONG_MAX, java_long, sat_add

# (weight, min share, max share, how many schedulables have exactly these); the shares as
# doubles, the way share_at compares against them
Group = tuple[float, float, float, int]


def compute_shares_grouped(items: Sequence[ShareInput], total: int, steady: bool) -> list[int]:
    """:func:`~fairshare.core.compute_shares.compute_shares`, with ``used(R)`` summed by group."""
    fixed = [fixed_share(s, steady) for s in items]
    taken = 0
    for value in fixed:
        if value is not None:
            taken = sat_add(taken, value)
    searching = [s for s, value in zip(items, fixed, strict=True) if value is None]
    if not searching:
        return [0 if value is None else value for value in fixed]
    counts: dict[tuple[float, float, float], int] = {}
    for s in searching:
        key = (s.weight, float(s.min_share), float(s.max_share))
        counts[key] = counts.get(key, 0) + 1
    groups = tuple((w, mn, mx, n) for (w, mn, mx), n in counts.items())
    ratio = search_ratio(groups, _search_total(searching, total, taken))
    return [
        share_at(s, ratio) if value is None else value
        for s, value in zip(items, fixed, strict=True)
    ]


def _used(groups: tuple[Group, ...], ratio: float) -> int:
    """``min(Σ count × share(R), LONG_MAX)``: :func:`resource_used` over the groups."""
    total = 0
    for weight, low, high, count in groups:
        value = weight * ratio
        if value != value:  # NaN: Java's (long) NaN is 0
            continue
        if value < low:
            value = low
        if value > high:
            value = high
        total += java_long(value) * count
        if total >= LONG_MAX:
            return LONG_MAX
    return total


@functools.lru_cache(maxsize=1 << 16)
def search_ratio(groups: tuple[Group, ...], total: int) -> float:
    """The doubling then 25 bisection steps of spec §2.3; the upper bound, as YARN uses it."""
    return bisect_ratio(lambda ratio: _used(groups, ratio), _doubled(groups, total), total)


def _doubled(groups: tuple[Group, ...], total: int) -> float:
    """Where YARN's ``while used(R) < total: R *= 2`` from R = 1 stops: the least 2^k (k ≥ 0)
    with ``used(2^k) ≥ total``, or infinity once 2^k overflows (spec §2.3).

    ``used`` never decreases as R grows, so the k can be found from a first guess — the
    exponent at which the weights alone would reach the total — by stepping up while
    ``used(2^k) < total`` and down while ``used(2^(k−1)) ≥ total``: usually two evaluations
    instead of one per doubling.
    """
    weight = sum(w * n for w, _, _, n in groups)
    if not 0.0 < weight < float("inf") or total <= 0:
        k = 0
    else:
        k = min(max(math.ceil(math.log2(total) - math.log2(weight)), 0), _OVERFLOW)
    while k < _OVERFLOW and _used(groups, math.ldexp(1.0, k)) < total:
        k += 1
    while k > 0 and _used(groups, math.ldexp(1.0, k - 1)) >= total:
        k -= 1
    return float("inf") if k >= _OVERFLOW else math.ldexp(1.0, k)


_OVERFLOW = 1024  # 2^1024 overflows a double: the doubling loop ends at infinity

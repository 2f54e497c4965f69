"""ComputeFairShares, as YARN does it (docs/semantics.md §2.3), with identical schedulables
counted once.

One call cuts one resource type of a parent's share among its schedulables (child queues, or
the runnable apps of a leaf): a doubling search for an upper bound on the weight-to-resource
ratio R, then 25 bisection steps, then every schedulable gets ``trunc(min(max(w·R, min), max))``
at the **upper** bound — which is why three equal queues sharing 1000 get 334 each (§2.3).

YARN evaluates ``used(R)`` by summing every searching schedulable's share, about sixty times per
call. Schedulables with the same weight, min and max share have the same share at every R, so
here ``used(R)`` is a sum over *groups*: ``count × share``. The runnable apps of a leaf (weight
1, or a handful of size-based weights) are one or a few groups; a parent's children are a few.

Identical, not approximate: every share is non-negative (the searching ones have a positive max
share, and ``w·R`` with ``R ≥ 0`` never falls below a min share that is not clamped up to it), so
YARN's saturating running sum is ``min(Σ, LONG_MAX)`` whatever the order or grouping. The
doubling and bisection then take the same steps and end at the same upper bound; the final
shares are computed per schedulable. The bound depends only on the groups and the total searched
for, so it is memoised (trees repeat the same splits: sibling leaves of one weight get the same
share and often hold as many apps). Tests hold this module to a line-by-line port of
``ComputeFairShares`` (``tests/oracles/shares.py``) on random inputs.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from fairshare.resources.vector import LONG_MAX, java_long, sat_add

BISECTION_STEPS = 25  # COMPUTE_FAIR_SHARES_ITERATIONS


@dataclass(frozen=True, slots=True)
class ShareInput:
    """A schedulable as ComputeFairShares sees it, for one resource type."""

    weight: float  # float32 value widened to double (§0.2)
    min_share: int
    max_share: int
    active: bool = True  # only queues can be inactive (§2.4)
    is_queue: bool = False


def share_at(s: ShareInput, ratio: float) -> int:
    """``(long) min(max(w·R, min), max)`` in double arithmetic (§2.3 ``share``).

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


# (weight, min share, max share, how many schedulables have exactly these); the shares as
# doubles, the way share_at compares against them
Group = tuple[float, float, float, int]


def compute_shares(items: Sequence[ShareInput], total: int, steady: bool) -> list[int]:
    """The new value of one resource type for each schedulable, in input order."""
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
    ratio = search_ratio(groups, search_total(searching, total, taken))
    return [
        share_at(s, ratio) if value is None else value
        for s, value in zip(items, fixed, strict=True)
    ]


def _used(groups: tuple[Group, ...], ratio: float) -> int:
    """``min(Σ count × share(R), LONG_MAX)``: YARN's ``resourceUsedWithWeightToResourceRatio``
    over the groups."""
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


def search_total(searching: Sequence[ShareInput], total: int, taken: int) -> int:
    """``min(Σ max, max(T − taken, 0))``: capping by the max shares lets the doubling end."""
    total_max = 0
    for s in searching:
        total_max = sat_add(total_max, s.max_share)
        if total_max == LONG_MAX:
            break
    return min(total_max, max(total - taken, 0))


@functools.lru_cache(maxsize=1 << 16)
def search_ratio(groups: tuple[Group, ...], total: int) -> float:
    """The doubling then 25 bisection steps of §2.3; the upper bound, as YARN uses it."""
    return bisect_ratio(lambda ratio: _used(groups, ratio), _doubled(groups, total), total)


def _doubled(groups: tuple[Group, ...], total: int) -> float:
    """Where YARN's ``while used(R) < total: R *= 2`` from R = 1 stops: the least 2^k (k ≥ 0)
    with ``used(2^k) ≥ total``, or infinity once 2^k overflows (§2.3).

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


def bisect_ratio(used_at: Callable[[float], int], upper: float, total: int) -> float:
    """The 25 bisection steps below ``upper``; the upper bound is the answer (§2.3)."""
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

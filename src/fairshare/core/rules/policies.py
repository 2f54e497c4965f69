"""Scheduling policies: their ordering comparators and calculators (docs/semantics.md §2.6, §3.5).

Comparators are plain ``cmp(s1, s2) -> int`` functions with YARN's exact arithmetic — doubles
where Java uses doubles, float32 where it uses floats, NaN comparing equal to everything — because
the criteria are not expressible as one sort key once zero weights and empty clusters produce
NaN. A sort with them wraps them in ``functools.cmp_to_key``, as the reference walk
(``tests/oracles/walk.py``) and the index's NaN fallback do.

Where no NaN arises, each comparator *is* a total order, and :func:`sort_key_for` gives the
equivalent sort key (``None`` when this schedulable's criteria contain a NaN); the tree walk's
index (:mod:`fairshare.core.heartbeat.order_index`) keeps its lists sorted by these keys.

Every comparator ends with the same tie-break: start time ascending, then name in Java
``String.compareTo`` order (UTF-16 code units), so distinct schedulables never compare equal.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from fairshare.config.model import PolicyName
from fairshare.resources.calc import DEFAULT, DOMINANT, ResourceCalculator
from fairshare.resources.vector import Resource, float32, java_div, long_to_float32, sign


@dataclass(frozen=True, slots=True)
class SchedulableView:
    """What a comparator reads of a queue or an app."""

    name: str  # full queue name, or application id
    demand: Resource
    usage: Resource
    min_share: Resource  # apps: all zero
    weight: float  # float32 value
    start_time: int = 0  # queues: 0; apps: attempt creation time


Comparator = Callable[[SchedulableView, SchedulableView, Resource], int]


def java_string_compare(a: str, b: str) -> int:
    """Sign of Java's ``String.compareTo``: UTF-16 code units, not code points."""
    ea, eb = a.encode("utf-16-be", "surrogatepass"), b.encode("utf-16-be", "surrogatepass")
    return (ea > eb) - (ea < eb)


def compare_attributes(s1: SchedulableView, s2: SchedulableView) -> int:
    """Final tie-break of every comparator: start time, then name."""
    return sign(s1.start_time - s2.start_time) or java_string_compare(s1.name, s2.name)


# -- fair (§3.5.1) -----------------------------------------------------------------------------


def _compare_demand(s1: SchedulableView, s2: SchedulableView) -> int:
    """1. Schedulables without (memory) demand go last (YARN-6769)."""
    d1, d2 = s1.demand.memory, s2.demand.memory
    if d1 == 0 and d2 > 0:
        return 1
    if d2 == 0 and d1 > 0:
        return -1
    return 0


def _compare_min_share_usage(s1: SchedulableView, s2: SchedulableView) -> int:
    """2. The one below min(minShare, demand) goes first; both below → smaller usage ratio."""
    m1 = min(s1.min_share.memory, s1.demand.memory)
    m2 = min(s2.min_share.memory, s2.demand.memory)
    needy1, needy2 = s1.usage.memory < m1, s2.usage.memory < m2
    if needy1 and not needy2:
        return -1
    if needy2 and not needy1:
        return 1
    if needy1 and needy2:
        # Java converts both longs to double before dividing (exact int division would not).
        ratio1 = float(s1.usage.memory) / float(max(m1, 1))
        ratio2 = float(s2.usage.memory) / float(max(m2, 1))
        return sign(ratio1 - ratio2)
    return 0


def _compare_fair_share_usage(s1: SchedulableView, s2: SchedulableView) -> int:
    """3. usage / weight; a zero (or negative) weight loses to a positive one."""
    w1, w2 = s1.weight, s2.weight
    if w1 > 0.0 and w2 > 0.0:
        return sign(s1.usage.memory / w1 - s2.usage.memory / w2)
    if w1 == w2:
        return sign(float(s1.usage.memory) - float(s2.usage.memory))
    # Negated weights: the larger weight sorts first (YARN's own trick).
    return sign(-w1 - -w2)


def compare_fair(s1: SchedulableView, s2: SchedulableView, cluster: Resource) -> int:
    """FairSharePolicy: 1 demand, 2 min-share neediness, 3 usage/weight, 4 start, 5 name."""
    return (
        _compare_demand(s1, s2)
        or _compare_min_share_usage(s1, s2)
        or _compare_fair_share_usage(s1, s2)
        or compare_attributes(s1, s2)
    )


# -- fifo (§3.5.2) -----------------------------------------------------------------------------


def compare_fifo(s1: SchedulableView, s2: SchedulableView, cluster: Resource) -> int:
    """FifoPolicy: priority (always 1 under FS, §2.7), then start time, then name."""
    return compare_attributes(s1, s2)


# -- drf (§3.5.3) ------------------------------------------------------------------------------


def _drf2_shares(s: SchedulableView, cluster: Resource) -> tuple[int, list[float]]:
    """Dominant index (ties → memory) and the weighted cluster shares, in doubles."""
    shares = [java_div(float(s.usage.values[k]), float(cluster.values[k])) for k in (0, 1)]
    dominant = 1 if shares[1] > shares[0] else 0
    return dominant, [java_div(x, s.weight) for x in shares]


def _compare_by_dominant(a: list[float], da: int, b: list[float], db: int) -> int:
    return sign(a[da] - b[db]) or sign(a[1 - da] - b[1 - db])


def compare_drf2(
    s1: SchedulableView, s2: SchedulableView, cluster: Resource, *, yarn_11482: bool = True
) -> int:
    """DRF with exactly memory and vcores ("Comparator2").

    ``yarn_11482=False`` reproduces Hadoop < 3.4.0, which tested s2's neediness with s1's usage.
    """
    d1, shares1 = _drf2_shares(s1, cluster)
    d2, shares2 = _drf2_shares(s2, cluster)
    needy1 = s1.usage.values[d1] < s1.min_share.values[d1]
    usage_for_2 = s2.usage if yarn_11482 else s1.usage
    needy2 = usage_for_2.values[d2] < s2.min_share.values[d2]
    if not needy1 and not needy2:
        res = _compare_by_dominant(shares1, d1, shares2, d2)
    elif needy1 and not needy2:
        res = -1
    elif needy2 and not needy1:
        res = 1
    else:
        ms1 = [java_div(float(s1.usage.values[k]), float(s1.min_share.values[k])) for k in (0, 1)]
        ms2 = [java_div(float(s2.usage.values[k]), float(s2.min_share.values[k])) for k in (0, 1)]
        res = _compare_by_dominant(ms1, d1, ms2, d2)
    return res or compare_attributes(s1, s2)


def _f32_div(a: float, b: float) -> float:
    """Java ``float / float``: operands and result rounded to float32."""
    return float32(java_div(float32(a), float32(b)))


def _long_f32_div(a: int, b: int) -> float:
    """Java ``long / (float) long``: both longs rounded once to float32, float32 division."""
    return float32(java_div(long_to_float32(a), long_to_float32(b)))


def _drfn_ratios(s: SchedulableView, cluster: Resource) -> tuple[int, list[list[float]]]:
    """Per type [usage share, share / weight, 0] in float32; dominant = first maximum."""
    ratios: list[list[float]] = []
    dominant = 0
    for k, (u, c) in enumerate(zip(s.usage.values, cluster.values, strict=True)):
        share = _long_f32_div(u, c)
        ratios.append([share, _f32_div(share, s.weight), 0.0])
        if share > ratios[dominant][0]:
            dominant = k
    return dominant, ratios


def _usage_descending(a: list[float], b: list[float]) -> int:
    return sign(b[0] - a[0])


def _sorted_by_usage(ratios: list[list[float]]) -> list[list[float]]:
    """Stable sort, usage share descending, NaN comparing equal (Java's comparator lambda)."""
    return sorted(ratios, key=functools.cmp_to_key(_usage_descending))


def _compare_ratios(r1: list[list[float]], r2: list[list[float]], index: int) -> int:
    for a, b in zip(r1, r2, strict=True):
        ret = sign(a[index] - b[index])
        if ret:
            return ret
    return 0


def compare_drfn(s1: SchedulableView, s2: SchedulableView, cluster: Resource) -> int:
    """DRF with custom resource types present ("ComparatorN"), float32 arithmetic."""
    d1, r1 = _drfn_ratios(s1, cluster)
    d2, r2 = _drfn_ratios(s2, cluster)
    needy1 = s1.usage.values[d1] < s1.min_share.values[d1]
    needy2 = s2.usage.values[d2] < s2.min_share.values[d2]
    if not needy1 and not needy2:
        res = _compare_ratios(_sorted_by_usage(r1), _sorted_by_usage(r2), 1)
    elif needy1 and not needy2:
        res = -1
    elif needy2 and not needy1:
        res = 1
    else:
        for s, r in ((s1, r1), (s2, r2)):
            for k, row in enumerate(r):
                row[2] = _long_f32_div(s.usage.values[k], s.min_share.values[k])
        res = _compare_ratios(_sorted_by_usage(r1), _sorted_by_usage(r2), 2)
    return res or compare_attributes(s1, s2)


# -- sort keys equivalent to the comparators ------------------------------------------------------

SortKey = tuple[Any, ...]
KeyFunction = Callable[[SchedulableView, Resource], SortKey | None]


def utf16_order(name: str) -> str:
    """``name`` with every character beyond U+FFFF written as its surrogate pair: compared as
    Python strings (by code point), such strings order as Java's ``String.compareTo``."""
    if name.isascii():
        return name
    return "".join(c if ord(c) < 0x10000 else chr(0xD800 + ((ord(c) - 0x10000) >> 10))
                   + chr(0xDC00 + ((ord(c) - 0x10000) & 0x3FF)) for c in name)


def _name_key(s: SchedulableView) -> tuple[int, str, str]:
    """The shared tie-break as a key: start time, then Java ``String`` order (UTF-16 units);
    the name itself comes last so that a key tells which schedulable it belongs to."""
    return (s.start_time, utf16_order(s.name), s.name)


def fair_key(s: SchedulableView, cluster: Resource) -> SortKey:
    """:func:`compare_fair` as a key: no demand last; needy first, by usage / min share; then
    (for equal ratios too) usage / weight, non-positive weights after positive ones."""
    demand, usage = s.demand.memory, s.usage.memory
    min_share = min(s.min_share.memory, demand)
    if s.weight > 0.0:
        by_weight: tuple[Any, ...] = (0, usage / s.weight)
    else:
        by_weight = (1, -s.weight, float(usage))
    if usage < min_share:
        head = (demand == 0, 0, float(usage) / float(max(min_share, 1)), *by_weight)
    else:
        head = (demand == 0, 1, *by_weight)
    return head + _name_key(s)


def fifo_key(s: SchedulableView, cluster: Resource) -> SortKey:
    return _name_key(s)


def _has_nan(values: Iterable[float]) -> bool:
    return any(v != v for v in values)


def drf2_key(s: SchedulableView, cluster: Resource) -> SortKey | None:
    """:func:`compare_drf2` (YARN-11482 applied) as a key: needy first by usage/min-share
    ratios, then weighted dominant shares, dominant type first; None if a ratio is NaN."""
    d, shares = _drf2_shares(s, cluster)
    if s.usage.values[d] < s.min_share.values[d]:
        ms = [java_div(float(s.usage.values[k]), float(s.min_share.values[k])) for k in (0, 1)]
        head = (0, ms[d], ms[1 - d])
    else:
        head = (1, shares[d], shares[1 - d])
    return None if _has_nan(head[1:]) else head + _name_key(s)


def drfn_key(s: SchedulableView, cluster: Resource) -> SortKey | None:
    """:func:`compare_drfn` as a key: the rows sorted by usage share (descending, stable),
    then their weighted (or min-share) ratios in that order; None if any share is NaN."""
    d, rows = _drfn_ratios(s, cluster)
    needy = s.usage.values[d] < s.min_share.values[d]
    index = 2 if needy else 1
    if needy:
        for k, row in enumerate(rows):
            row[2] = _long_f32_div(s.usage.values[k], s.min_share.values[k])
    if _has_nan(r[0] for r in rows) or _has_nan(r[index] for r in rows):
        return None
    ordered = sorted(rows, key=lambda r: -r[0])
    return (0 if needy else 1, *(r[index] for r in ordered), *_name_key(s))


def sort_key_for(policy: PolicyName, n_types: int) -> KeyFunction:
    """The key equivalent to :func:`comparator_for`'s comparator wherever it returns a key."""
    if policy is PolicyName.FAIR:
        return fair_key
    if policy is PolicyName.FIFO:
        return fifo_key
    return drf2_key if n_types == 2 else drfn_key


# -- policy table ------------------------------------------------------------------------------


def comparator_for(policy: PolicyName, n_types: int) -> Comparator:
    """The comparator YARN picks: DRF uses Comparator2 iff exactly two resource types exist."""
    if policy is PolicyName.FAIR:
        return compare_fair
    if policy is PolicyName.FIFO:
        return compare_fifo
    return compare_drf2 if n_types == 2 else compare_drfn


def calculator_for(policy: PolicyName) -> ResourceCalculator:
    """Memory-only for fair and fifo, dominant for drf (§2.6)."""
    return DOMINANT if policy is PolicyName.DRF else DEFAULT


def is_child_policy_allowed(parent: PolicyName, child: PolicyName) -> bool:
    """§2.6.4: a fair parent may not have drf children; fifo may never be a parent."""
    if parent is PolicyName.FIFO:
        return False
    return not (parent is PolicyName.FAIR and child is PolicyName.DRF)


def app_weight(demand_memory: int, size_based_weight: bool) -> float:
    """1.0, or with ``sizebasedweight`` ``float32(ln(1 + demand.memory) / ln 2)`` (§2.7)."""
    if not size_based_weight:
        return 1.0
    return float32(math.log1p(demand_memory) / math.log(2))

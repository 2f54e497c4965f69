"""The two resource calculators YARN's fair scheduler uses (docs/semantics.md §0.2).

* :data:`DEFAULT` — memory only; used by the ``fair`` and ``fifo`` policies and by the scheduler.
* :data:`DOMINANT` — dominant resource share; used by the ``drf`` policy.

Both are stateless: the cluster resource is passed into every call.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Protocol

from fairshare.resources.vector import Resource, float32, java_div, long_to_float32, sign

INF = math.inf


class ResourceCalculator(Protocol):
    @property
    def name(self) -> str: ...

    def compare(
        self, cluster: Resource, a: Resource, b: Resource, single_type: bool = False
    ) -> int: ...

    def ratio(self, a: Resource, b: Resource) -> float: ...

    def fits_in(self, a: Resource, b: Resource) -> bool: ...


@dataclass(frozen=True, slots=True)
class DefaultResourceCalculator:
    """Memory only: vcores and custom types are ignored entirely."""

    name: str = "default"

    def compare(
        self, cluster: Resource, a: Resource, b: Resource, single_type: bool = False
    ) -> int:
        return (a.memory > b.memory) - (a.memory < b.memory)

    def ratio(self, a: Resource, b: Resource) -> float:
        """``(float) a.memory / b.memory`` in float32; 0/0 is 0, x/0 is ±Infinity."""
        if b.memory == 0:
            if a.memory == 0:
                return 0.0
            return INF if a.memory > 0 else -INF
        return float32(long_to_float32(a.memory) / long_to_float32(b.memory))

    def fits_in(self, a: Resource, b: Resource) -> bool:
        return a.memory <= b.memory


def _share(value: int, cluster_value: int) -> float:
    """One component's share of the cluster; +Infinity when the cluster has none of it."""
    if cluster_value == 0:
        return INF
    return float(value) / float(cluster_value)


def _pure_dominance(a: Resource, b: Resource) -> int:
    a_greater = any(x > y for x, y in zip(a.values, b.values, strict=True))
    b_greater = any(x < y for x, y in zip(a.values, b.values, strict=True))
    if a_greater and not b_greater:
        return 1
    if b_greater and not a_greater:
        return -1
    return 0


def _max_share_skipping_inf(shares_a: list[float], shares_b: list[float]) -> tuple[float, float]:
    max_a = max_b = 0.0
    for sa, sb in zip(shares_a, shares_b, strict=True):
        if sa == INF or sb == INF:
            continue
        max_a = max(max_a, sa)
        max_b = max(max_b, sb)
    return max_a, max_b


def _compare_two(shares_a: list[float], shares_b: list[float]) -> int:
    """Dominant share first, then the other share (ties on dominance go to memory)."""
    dom_a, sub_a = (1, 0) if shares_a[1] > shares_a[0] else (0, 1)
    dom_b, sub_b = (1, 0) if shares_b[1] > shares_b[0] else (0, 1)
    if shares_a[dom_a] > shares_b[dom_b]:
        return 1
    if shares_a[dom_a] < shares_b[dom_b]:
        return -1
    if shares_a[sub_a] > shares_b[sub_b]:
        return 1
    if shares_a[sub_a] < shares_b[sub_b]:
        return -1
    return 0


def _compare_sorted(shares_a: list[float], shares_b: list[float]) -> int:
    """Sorted share arrays compared from the largest down, skipping +Infinity positions."""
    sorted_a, sorted_b = sorted(shares_a), sorted(shares_b)
    diff = 0.0
    for sa, sb in zip(reversed(sorted_a), reversed(sorted_b), strict=True):
        if sa == INF or sb == INF:
            continue
        diff = sa - sb
        if diff != 0.0:
            break
    return sign(diff)


@dataclass(frozen=True, slots=True)
class DominantResourceCalculator:
    """Dominant resource fairness comparisons (§0.2, ``compare`` steps 1–6)."""

    name: str = "dominant"

    def compare(
        self, cluster: Resource, a: Resource, b: Resource, single_type: bool = False
    ) -> int:
        if a.values == b.values:
            return 0
        if not any(cluster.values):
            return _pure_dominance(a, b)
        shares_a = [_share(v, c) for v, c in zip(a.values, cluster.values, strict=True)]
        shares_b = [_share(v, c) for v, c in zip(b.values, cluster.values, strict=True)]
        if single_type:
            max_a, max_b = _max_share_skipping_inf(shares_a, shares_b)
            return sign(max_a - max_b)
        if len(shares_a) == 2:
            return _compare_two(shares_a, shares_b)
        return _compare_sorted(shares_a, shares_b)

    def ratio(self, a: Resource, b: Resource) -> float:
        """Largest per-component ``(float) a_i / (float) b_i``, starting from 0.0f."""
        best = 0.0
        for x, y in zip(a.values, b.values, strict=True):
            tmp = float32(java_div(long_to_float32(x), long_to_float32(y)))
            best = best if best > tmp else tmp  # Java's ternary, NaN included
        return best

    def fits_in(self, a: Resource, b: Resource) -> bool:
        return all(x <= y for x, y in zip(a.values, b.values, strict=True))


DEFAULT = DefaultResourceCalculator()
DOMINANT = DominantResourceCalculator()

"""Resource vectors with YARN's exact helper semantics (docs/semantics.md §0.2).

A :class:`Resource` is an immutable vector of Java ``long`` values: index 0 is ``memory-mb``,
index 1 is ``vcores``, then the custom types configured through ``yarn.resource-types``, in the
order a :class:`ResourceTypes` names them. Arithmetic saturates at the Java ``long`` range, the
way YARN's own long casts and saturating sums do, instead of growing without bound as Python ints
would.
"""

from __future__ import annotations

import math
import operator
import struct
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

LONG_MAX = 2**63 - 1
LONG_MIN = -(2**63)
INT_MAX = 2**31 - 1

MEMORY = "memory-mb"
VCORES = "vcores"


def clamp_long(value: int) -> int:
    """Saturate an integer into the Java ``long`` range."""
    if value > LONG_MAX:
        return LONG_MAX
    if value < LONG_MIN:
        return LONG_MIN
    return value


def java_long(value: float) -> int:
    """The Java ``(long)`` cast of a double: truncate toward zero, saturate, NaN becomes 0."""
    if value != value:  # NaN
        return 0
    if value >= 9.223372036854775807e18:
        return LONG_MAX
    if value <= -9.223372036854775808e18:
        return LONG_MIN
    return int(value)


def float32(value: float) -> float:
    """Round a double to the nearest IEEE float32, as Java stores ``float`` settings (§0.2)."""
    if math.isinf(value) or value != value:
        return value
    if abs(value) >= 3.4028235677973366e38:  # beyond Float.MAX_VALUE → Java gives ±Infinity
        return math.copysign(math.inf, value)
    result: float = struct.unpack("f", struct.pack("f", value))[0]
    return result


def float32_decimal(value: float) -> float:
    """A float32 setting as the double of its shortest decimal that reads back as the same
    float32 — what Java's ``Float.toString`` prints (``0.8``, where the double holding 0.8f
    would print ``0.800000011920929``). For outputs only: the engine computes with the float32.
    A value that is not a float32 is returned as it is."""
    if not math.isfinite(value) or float32(value) != value:
        return value
    for digits in range(1, 10):  # nine significant digits always identify a float32
        shortest = float(f"{value:.{digits}g}")
        if float32(shortest) == value:
            return shortest
    return value


def long_to_float32(n: int) -> float:
    """Java's ``(float) someLong``: one correct rounding (half-even) straight to float32.

    Going through a double first would round twice for magnitudes above 2^53.
    """
    if -(2**53) <= n <= 2**53:
        return float32(float(n))
    magnitude = abs(n)
    shift = magnitude.bit_length() - 24
    quotient, remainder = divmod(magnitude, 1 << shift)
    half = 1 << (shift - 1)
    if remainder > half or (remainder == half and quotient & 1):
        quotient += 1
    return math.copysign(float32(float(quotient) * 2.0**shift), n)


def sign(x: float) -> int:
    """``(int) Math.signum(x)``: NaN gives 0."""
    return 1 if x > 0 else (-1 if x < 0 else 0)


def java_div(a: float, b: float) -> float:
    """Java double division: x/0 is ±Infinity (sign of both operands), 0/0 is NaN."""
    if b == 0:
        if a == 0 or a != a:
            return math.nan
        return math.copysign(math.inf, a) * math.copysign(1.0, b)
    return a / b


def sat_add(a: int, b: int) -> int:
    """Saturating long addition (YARN-8833, YARN-9173)."""
    return clamp_long(a + b)


@dataclass(frozen=True, slots=True)
class ResourceTypes:
    """The countable resource types of a cluster: memory-mb, vcores, then custom ones."""

    names: tuple[str, ...] = (MEMORY, VCORES)

    def __post_init__(self) -> None:
        if self.names[:2] != (MEMORY, VCORES):
            raise ValueError("resource types must start with memory-mb, vcores")
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"duplicate resource type in {self.names}")

    @classmethod
    def with_custom(cls, custom: Iterable[str]) -> ResourceTypes:
        extra = tuple(name for name in custom if name not in (MEMORY, VCORES))
        return cls((MEMORY, VCORES, *extra))

    def __len__(self) -> int:
        return len(self.names)

    def index(self, name: str) -> int:
        return self.names.index(name)

    def none(self) -> Resource:
        return Resource((0,) * len(self.names))

    def unbounded(self) -> Resource:
        return Resource((LONG_MAX,) * len(self.names))

    def of(self, values: Mapping[str, int] | None = None, **kwargs: int) -> Resource:
        """Build a vector from names; unnamed types are 0. ``memory_mb=`` is accepted for memory."""
        merged: dict[str, int] = dict(values or {})
        for key, value in kwargs.items():
            merged[key.replace("_", "-")] = value
        unknown = set(merged) - set(self.names)
        if unknown:
            raise KeyError(f"unknown resource type(s): {', '.join(sorted(unknown))}")
        return Resource(tuple(clamp_long(int(merged.get(n, 0))) for n in self.names))

    def as_dict(self, resource: Resource) -> dict[str, int]:
        return dict(zip(self.names, resource.values, strict=True))


DEFAULT_TYPES = ResourceTypes()


@dataclass(frozen=True, slots=True)
class Resource:
    """An immutable resource vector. Build one with :meth:`ResourceTypes.of` or :func:`res`."""

    values: tuple[int, ...]

    @property
    def memory(self) -> int:
        return self.values[0]

    @property
    def vcores(self) -> int:
        """vcores as YARN stores them internally (a long)."""
        return self.values[1]

    @property
    def vcores_int(self) -> int:
        """The ``int`` view (``getVirtualCores``) used by REST, metrics and headroom."""
        v = self.values[1]
        return INT_MAX if v > INT_MAX else (-(2**31) if v < -(2**31) else v)

    def __len__(self) -> int:
        return len(self.values)

    def __getitem__(self, index: int) -> int:
        return self.values[index]

    def __add__(self, other: Resource) -> Resource:
        return add(self, other)

    def __sub__(self, other: Resource) -> Resource:
        return subtract(self, other)

    def __repr__(self) -> str:
        inner = ", ".join(str(v) for v in self.values)
        return f"<{inner}>"


def res(memory: int, vcores: int, *custom: int) -> Resource:
    """Shorthand for a vector in type order: ``res(1024, 1)``."""
    return Resource((clamp_long(memory), clamp_long(vcores), *(clamp_long(c) for c in custom)))


def _check(a: Resource, b: Resource) -> None:
    if len(a.values) != len(b.values):
        raise ValueError(f"resource vectors of different lengths: {a!r} and {b!r}")


def none_like(r: Resource) -> Resource:
    return Resource((0,) * len(r.values))


def unbounded_like(r: Resource) -> Resource:
    return Resource((LONG_MAX,) * len(r.values))


def is_none(r: Resource) -> bool:
    """True iff **every** component, custom types included, is 0."""
    return not any(r.values)


# add, subtract and fits_in run many times per allocation: checks are inlined, and values are
# clamped only when a sum actually leaves the long range.


def add(a: Resource, b: Resource) -> Resource:
    av, bv = a.values, b.values
    if len(av) == 2 == len(bv):  # memory and vcores only: the common case, unrolled
        x, y = av[0] + bv[0], av[1] + bv[1]
        if LONG_MIN <= x <= LONG_MAX and LONG_MIN <= y <= LONG_MAX:
            return Resource((x, y))
        return Resource((clamp_long(x), clamp_long(y)))
    if len(av) != len(bv):
        _check(a, b)
    values = tuple(map(operator.add, av, bv))
    if max(values) > LONG_MAX or min(values) < LONG_MIN:
        values = tuple(map(clamp_long, values))
    return Resource(values)


def subtract(a: Resource, b: Resource) -> Resource:
    av, bv = a.values, b.values
    if len(av) == 2 == len(bv):
        x, y = av[0] - bv[0], av[1] - bv[1]
        if LONG_MIN <= x <= LONG_MAX and LONG_MIN <= y <= LONG_MAX:
            return Resource((x, y))
        return Resource((clamp_long(x), clamp_long(y)))
    if len(av) != len(bv):
        _check(a, b)
    values = tuple(map(operator.sub, av, bv))
    if max(values) > LONG_MAX or min(values) < LONG_MIN:
        values = tuple(map(clamp_long, values))
    return Resource(values)


def subtract_non_negative(a: Resource, b: Resource) -> Resource:
    """``a - b`` with only memory and vcores clamped at 0; custom types may stay negative."""
    diff = subtract(a, b).values
    return Resource((max(diff[0], 0), max(diff[1], 0), *diff[2:]))


def multiply(r: Resource, k: float) -> Resource:
    """Componentwise ``(long)(v * k)``: truncation toward zero, saturating."""
    return Resource(tuple(java_long(float(v) * k) for v in r.values))


def multiply_long(r: Resource, n: int) -> Resource:
    """``r × n`` for a container count: exact integer product, saturating at the long bounds."""
    return Resource(tuple(clamp_long(v * n) for v in r.values))


def java_ceil_long(value: float) -> int:
    """``(long) Math.ceil(x)``: NaN gives 0, infinities saturate."""
    if value != value:
        return 0
    if math.isinf(value):
        return LONG_MAX if value > 0 else LONG_MIN
    return java_long(math.ceil(value))


def multiply_and_round_up(r: Resource, k: float) -> Resource:
    """Componentwise ``(long) Math.ceil(v * k)``."""
    return Resource(tuple(java_ceil_long(float(v) * k) for v in r.values))


def fits_in(a: Resource, b: Resource) -> bool:
    """True iff ``a_i <= b_i`` for **every** component."""
    av, bv = a.values, b.values
    if len(av) == 2 == len(bv):
        return av[0] <= bv[0] and av[1] <= bv[1]
    if len(av) != len(bv):
        _check(a, b)
    return all(map(operator.le, av, bv))


def componentwise_min(a: Resource, b: Resource) -> Resource:
    _check(a, b)
    return Resource(tuple(map(min, a.values, b.values)))


def componentwise_max(a: Resource, b: Resource) -> Resource:
    _check(a, b)
    return Resource(tuple(map(max, a.values, b.values)))


def sum_resources(items: Sequence[Resource], like: Resource) -> Resource:
    """Saturating componentwise sum; ``like`` supplies the length when ``items`` is empty."""
    total = none_like(like)
    for item in items:
        total = add(total, item)
    return total


def round_up(value: int, step: int) -> int:
    """``ResourceCalculator.roundUp``: the next multiple of ``step`` (Java integer division)."""
    if step == 0:
        return value
    q = abs(value + step - 1) // abs(step)
    if (value + step - 1 < 0) != (step < 0):
        q = -q
    return clamp_long(q * step)


def normalize(r: Resource, minimum: Resource, maximum: Resource, step: Resource) -> Resource:
    """Request normalisation (§1.1): ``min(roundUp(max(ask, min), step), max)`` per type.

    A 0 step means no rounding for that type.
    """
    _check(r, minimum)
    out = []
    for v, lo, hi, st in zip(r.values, minimum.values, maximum.values, step.values, strict=True):
        value = max(v, lo)
        if st != 0:
            value = round_up(value, st)
        out.append(min(value, hi))
    return Resource(tuple(out))

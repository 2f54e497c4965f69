"""Scalar values of the allocation file, parsed exactly as YARN's Java code parses them.

The Java parsers decide which odd inputs are accepted (``Integer.parseInt`` takes any Unicode
digit but no ``_`` or inner spaces, ``Double.parseDouble`` takes ``1e3``, ``0x1p4``, ``2f`` and
``NaN`` but not ``nan``, ``Boolean.parseBoolean`` calls anything but ``true`` false). Where YARN
would throw ``NumberFormatException`` we raise :class:`BadValue` with a readable reason; the
allocation parser adds the queue, element and line (docs/semantics.md §1.7).
"""

from __future__ import annotations

from fairshare.config.model import PolicyName
from fairshare.resources.javalang import (
    equals_ignore_case,
    java_max,
    java_min,
    parse_double,
    parse_int,
    shorten,
    wrap_long,
)
from fairshare.resources.vector import float32

__all__ = [
    "BadValue",
    "clamp_unit",
    "java_boolean",
    "java_double",
    "java_float",
    "java_int",
    "java_min",
    "long_value",
    "parse_policy",
    "seconds_to_ms",
]


class BadValue(ValueError):
    """A value YARN cannot parse; the message says why, without a location."""


_POLICY_PACKAGE = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies."
_POLICY_CLASSES = {
    _POLICY_PACKAGE + "FairSharePolicy": PolicyName.FAIR,
    _POLICY_PACKAGE + "DominantResourceFairnessPolicy": PolicyName.DRF,
    _POLICY_PACKAGE + "FifoPolicy": PolicyName.FIFO,
}


def java_int(text: str) -> int:
    """``Integer.parseInt``."""
    try:
        return parse_int(text, bits=32)
    except ValueError:
        raise BadValue(f'must be an integer, got "{shorten(text)}"') from None


def long_value(text: str) -> int:
    """``Long.parseLong``."""
    try:
        return parse_int(text, bits=64)
    except ValueError:
        raise BadValue(f'must be an integer, got "{shorten(text)}"') from None


def seconds_to_ms(text: str) -> int:
    """A timeout in seconds as YARN stores it: ``Long.parseLong(text) * 1000L``, which wraps."""
    return wrap_long(long_value(text) * 1000)


def java_double(text: str) -> float:
    """``Double.parseDouble`` (on already-trimmed text)."""
    try:
        return parse_double(text)
    except ValueError:
        raise BadValue(f'must be a number, got "{shorten(text)}"') from None


def java_float(text: str) -> float:
    """``Float.parseFloat``, as a float32 value (see ``javalang.parse_float``)."""
    return float32(java_double(text))


def java_boolean(text: str) -> bool:
    """``Boolean.parseBoolean``: ``true`` in any case is true, anything else false."""
    return equals_ignore_case(text, "true")


def clamp_unit(value: float) -> float:
    """``Math.max(Math.min(v, 1.0f), 0.0f)`` — NaN stays NaN, as in YARN."""
    return java_max(java_min(value, 1.0), 0.0)


def parse_policy(text: str) -> PolicyName:
    """``SchedulingPolicy.parse``: ``fair``/``fifo``/``drf`` in any case, or a policy class name.

    Of class names only Hadoop's three policy classes can be resolved here; any other name is
    reported as YARN reports a class missing from the RM's classpath.
    """
    lowered = text.lower()
    for policy in (PolicyName.FAIR, PolicyName.FIFO, PolicyName.DRF):
        if equals_ignore_case(lowered, policy.value):
            return policy
    if text in _POLICY_CLASSES:
        return _POLICY_CLASSES[text]
    raise BadValue(f"{shorten(text, 100)} SchedulingPolicy class not found!")

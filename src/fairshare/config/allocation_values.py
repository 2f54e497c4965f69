"""Scalar values of the allocation file, parsed exactly as YARN's Java code parses them.

The Java parsers decide which odd inputs are accepted (``Integer.parseInt`` takes any Unicode
digit but no ``_`` or inner spaces, ``Double.parseDouble`` takes ``1e3``, ``0x1p4``, ``2f`` and
``NaN`` but not ``nan``, ``Boolean.parseBoolean`` calls anything but ``true`` false). Where YARN
would throw ``NumberFormatException`` we raise :class:`BadValue` with a readable reason; the
allocation parser adds the queue, element and line (spec §1.7).
"""

from __future__ import annotations

import math
import re

from fairshare.config.model import PolicyName
from fairshare.config.placement.dom import java_equals_ignore_case
from fairshare.resources.parse import parse_java_integer
from fairshare.resources.vector import LONG_MIN, float32


class BadValue(ValueError):
    """A value YARN cannot parse; the message says why, without a location."""


# Java's floating-point literal grammar (FloatingDecimal), ASCII digits only.
_DECIMAL = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[fFdD]?)"
)
_HEX = re.compile(r"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+[fFdD]?")

_POLICY_PACKAGE = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.policies."
_POLICY_CLASSES = {
    _POLICY_PACKAGE + "FairSharePolicy": PolicyName.FAIR,
    _POLICY_PACKAGE + "DominantResourceFairnessPolicy": PolicyName.DRF,
    _POLICY_PACKAGE + "FifoPolicy": PolicyName.FIFO,
}


def java_int(text: str) -> int:
    """``Integer.parseInt``."""
    try:
        return parse_java_integer(text, bits=32)
    except ValueError:
        raise BadValue(f'must be an integer, got "{text}"') from None


def java_long(text: str) -> int:
    """``Long.parseLong``."""
    try:
        return parse_java_integer(text, bits=64)
    except ValueError:
        raise BadValue(f'must be an integer, got "{text}"') from None


def seconds_to_ms(text: str) -> int:
    """A timeout in seconds as YARN stores it: ``Long.parseLong(text) * 1000L``, which wraps."""
    product = java_long(text) * 1000
    return (product - LONG_MIN) % 2**64 + LONG_MIN


def java_double(text: str) -> float:
    """``Double.parseDouble`` (on already-trimmed text)."""
    if _HEX.fullmatch(text):
        return _hex_float(text.rstrip("fFdD"))
    if not _DECIMAL.fullmatch(text):
        raise BadValue(f'must be a number, got "{text}"')
    return float(text.rstrip("fFdD"))


def java_float(text: str) -> float:
    """``Float.parseFloat``, as a float32 value.

    Rounds via a double, which can differ from Java's direct rounding only for decimal strings
    lying within 2^-53 of a float32 rounding boundary; no realistic setting does.
    """
    return float32(java_double(text))


def java_boolean(text: str) -> bool:
    """``Boolean.parseBoolean``: ``true`` in any case is true, anything else false."""
    return java_equals_ignore_case(text, "true")


def java_min(a: float, b: float) -> float:
    """``Math.min`` for floats: NaN wins, and -0.0 is below 0.0."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0.0:
        return a if math.copysign(1.0, a) < 0 else b
    return min(a, b)


def java_max(a: float, b: float) -> float:
    """``Math.max`` for floats: NaN wins, and 0.0 is above -0.0."""
    if math.isnan(a) or math.isnan(b):
        return math.nan
    if a == b == 0.0:
        return a if math.copysign(1.0, a) > 0 else b
    return max(a, b)


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
        if java_equals_ignore_case(lowered, policy.value):
            return policy
    if text in _POLICY_CLASSES:
        return _POLICY_CLASSES[text]
    raise BadValue(f"{text} SchedulingPolicy class not found!")


def _hex_float(text: str) -> float:
    try:
        return float.fromhex(text)
    except OverflowError:  # Java gives ±Infinity for an exponent out of range
        return -math.inf if text.startswith("-") else math.inf

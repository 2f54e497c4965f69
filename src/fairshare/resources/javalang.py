"""Java (and Hadoop ``StringUtils``) semantics that decide which odd inputs YARN accepts.

The configuration files are read by Java code, so the edge cases are Java's: ``String.trim``
stops at U+0020, ``String.split`` drops trailing empty pieces, ``Integer.parseInt`` takes any
Unicode digit but no ``_``, ``Double.parseDouble`` takes ``1e3``, ``0x1p4`` and ``2f`` but not
``nan``, and ``long`` arithmetic wraps. Every parser in ``resources`` and ``config`` uses the
helpers here, so each rule is written once. The numeric casts of ``vector.py`` (``java_long``,
``float32``, ``java_div``, ``clamp_long``) complete the set.
"""

from __future__ import annotations

import math
import re
import unicodedata

from fairshare.resources.vector import float32

__all__ = [
    "equals_ignore_case",
    "java_max",
    "java_min",
    "java_split",
    "java_split_regex",
    "java_trim",
    "parse_double",
    "parse_float",
    "parse_int",
    "trimmed_string_collection",
    "trimmed_strings",
    "wrap_int",
    "wrap_long",
]

# --- strings ----------------------------------------------------------------------------------


def java_trim(text: str) -> str:
    """``String.trim()``: strips characters up to U+0020 only, not Unicode whitespace."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def java_split(text: str, separator: str) -> list[str]:
    """``String.split`` on a literal: no match gives ``[text]``; trailing empty pieces go."""
    if separator not in text:
        return [text]
    return _drop_trailing_empty(text.split(separator))


def java_split_regex(text: str, pattern: re.Pattern[str]) -> list[str]:
    """``String.split(regex)`` for a pattern that never matches the empty string."""
    parts = pattern.split(text)
    return parts if len(parts) == 1 else _drop_trailing_empty(parts)


def _drop_trailing_empty(parts: list[str]) -> list[str]:
    while parts and parts[-1] == "":
        parts.pop()
    return parts


# Java's \s is ASCII-only: [ \t\n\x0B\f\r].
_TRIMMED_SEPARATOR = re.compile(r"[ \t\n\x0b\f\r]*[,\n][ \t\n\x0b\f\r]*")


def trimmed_strings(text: str) -> list[str]:
    """Hadoop ``StringUtils.getTrimmedStrings``: trim, then split on ``\\s*[,\\n]\\s*``.

    A blank string gives no pieces; inner empty pieces stay (``"a,,b"`` → ``a``, ``""``, ``b``).
    """
    trimmed = java_trim(text)
    return java_split_regex(trimmed, _TRIMMED_SEPARATOR) if trimmed else []


def trimmed_string_collection(text: str) -> tuple[str, ...]:
    """Hadoop ``StringUtils.getTrimmedStringCollection``: the pieces in first-seen order (a
    ``LinkedHashSet``), without duplicates or empty strings."""
    return tuple(dict.fromkeys(p for p in trimmed_strings(text) if p))


def equals_ignore_case(a: str, b: str) -> bool:
    """``String.equalsIgnoreCase``: per char, equal as is, upper-cased, or lower(upper(c))."""
    if len(a) != len(b):
        return False
    return all(
        x == y or _upper(x) == _upper(y) or _lower(_upper(x)) == _lower(_upper(y))
        for x, y in zip(a, b, strict=True)
    )


# Java maps one char to one char; where Python's mapping expands (e.g. "ß".upper() == "SS"),
# Java's Character.toUpperCase leaves the char alone.
def _upper(c: str) -> str:
    mapped = c.upper()
    return mapped if len(mapped) == 1 else c


def _lower(c: str) -> str:
    mapped = c.lower()
    return mapped if len(mapped) == 1 else c


# --- integers ---------------------------------------------------------------------------------

_FULLWIDTH_HEX = {chr(0xFF21 + i): 10 + i for i in range(6)} | {
    chr(0xFF41 + i): 10 + i for i in range(6)
}


def _java_digit(char: str, radix: int) -> int:
    """``Character.digit``: any Unicode decimal digit counts, plus Latin letters above 9."""
    value = unicodedata.decimal(char, -1)
    if value < 0 and radix > 10:
        if "a" <= char.lower() <= "z" and char.isascii():
            value = ord(char.lower()) - ord("a") + 10
        else:
            value = _FULLWIDTH_HEX.get(char, -1)
    return value if value < radix else -1


def parse_int(text: str, *, bits: int = 32, radix: int = 10) -> int:
    """``Integer.parseInt`` (``bits=32``) / ``Long.parseLong`` (``bits=64``), radix 10 or 16.

    An optional sign, then at least one digit; no whitespace, underscores or prefixes. Raises
    ``ValueError`` with Java's ``For input string`` wording, including on overflow.
    """
    limit = 2 ** (bits - 1)
    digits = text[1:] if text[:1] in "+-" else text
    negative = text[:1] == "-"
    if not digits:
        raise _number_format(text)
    value = 0
    for char in digits:
        digit = _java_digit(char, radix)
        if digit < 0:
            raise _number_format(text)
        value = value * radix + digit
        if value > limit:  # stop early: no huge ints, and -2**(bits-1) still fits
            raise _number_format(text)
    result = -value if negative else value
    if result >= limit:
        raise _number_format(text)
    return result


def wrap_int(value: int) -> int:
    """Two's-complement wrap into ``int`` (``long.intValue()``, int overflow)."""
    return (value + 2**31) % 2**32 - 2**31


def wrap_long(value: int) -> int:
    """Two's-complement wrap into ``long`` (``long`` overflow, e.g. ``seconds * 1000L``)."""
    return (value + 2**63) % 2**64 - 2**63


# --- floating point ---------------------------------------------------------------------------

# FloatingDecimal.readJavaFormatString, ASCII digits only: NaN / Infinity (no suffix), decimal
# with optional exponent, or hex with a mandatory binary exponent; then an optional f/F/d/D.
_JAVA_FLOAT = re.compile(
    r"[+-]?(?:NaN|Infinity|(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"|0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)[pP][+-]?[0-9]+)[fFdD]?)"
)


def parse_double(text: str) -> float:
    """``Double.parseDouble`` on already-trimmed text; ``ValueError`` where Java throws."""
    if _JAVA_FLOAT.fullmatch(text) is None:
        raise _number_format(text)
    body = text if text[-1] in "yN" else text.rstrip("fFdD")  # keep "Infinity"/"NaN" whole
    if "x" not in body.lower():
        return float(body)
    try:
        return float.fromhex(body)
    except OverflowError:  # Java gives ±Infinity for an exponent out of range
        return -math.inf if body.startswith("-") else math.inf


def parse_float(text: str) -> float:
    """``Float.parseFloat``, as a float32 value (docs/semantics.md §0.2).

    Rounds via a double, which can differ from Java's direct rounding only for decimal strings
    lying within 2^-53 of a float32 rounding boundary; no realistic setting does.
    """
    return float32(parse_double(text))


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


def _number_format(text: str) -> ValueError:
    return ValueError(f'For input string: "{shorten(text)}"')


# --- messages ---------------------------------------------------------------------------------

MAX_ECHO = 40


def shorten(text: str, limit: int = MAX_ECHO) -> str:
    """A value as echoed in a message: at most ``limit`` characters, cut with "…"."""
    return text if len(text) <= limit else text[: limit - 1] + "…"

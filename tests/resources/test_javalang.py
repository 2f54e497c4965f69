"""Java and Hadoop string/number semantics (``fairshare.resources.javalang``)."""

from __future__ import annotations

import math
import re

import pytest

from fairshare.resources.javalang import (
    equals_ignore_case,
    java_max,
    java_min,
    java_split,
    java_split_regex,
    java_trim,
    parse_double,
    parse_float,
    parse_int,
    shorten,
    trimmed_string_collection,
    trimmed_strings,
    wrap_int,
    wrap_long,
)

TRIMS = {
    "control characters go": ("\t\n a \x1f", "a"),
    "unicode spaces stay": ("\u00a0a\u2003", "\u00a0a\u2003"),
    "all blank": (" \t ", ""),
}


@pytest.mark.parametrize(("text", "expected"), TRIMS.values(), ids=TRIMS.keys())
def test_java_trim(text: str, expected: str) -> None:
    assert java_trim(text) == expected


SPLITS = {
    "no separator gives the text": ("abc", ["abc"]),
    "the empty string gives itself": ("", [""]),
    "trailing empty pieces go": ("a,b,,", ["a", "b"]),
    "leading and inner empty pieces stay": (",a,,b", ["", "a", "", "b"]),
    "only separators give nothing": (",,,", []),
}


@pytest.mark.parametrize(("text", "expected"), SPLITS.values(), ids=SPLITS.keys())
def test_java_split(text: str, expected: list[str]) -> None:
    assert java_split(text, ",") == expected
    assert java_split_regex(text, re.compile(",")) == expected


TRIMMED = {
    "blank gives nothing": ("  ", [], ()),
    "commas and newlines separate": ("a, b\nc", ["a", "b", "c"], ("a", "b", "c")),
    "whitespace around separators goes": ("a \t,\n b", ["a", "b"], ("a", "b")),
    "inner empty pieces are dropped from the collection": ("a,,b", ["a", "", "b"], ("a", "b")),
    "repeats keep their first place": ("b,a,b", ["b", "a", "b"], ("b", "a")),
    "inner spaces stay": ("a b,c", ["a b", "c"], ("a b", "c")),
    "unicode spaces are not Java's \\s": ("a\u2003,b", ["a\u2003", "b"], ("a\u2003", "b")),
}


@pytest.mark.parametrize(("text", "strings", "collection"), TRIMMED.values(), ids=TRIMMED.keys())
def test_trimmed_strings(text: str, strings: list[str], collection: tuple[str, ...]) -> None:
    assert trimmed_strings(text) == strings
    assert trimmed_string_collection(text) == collection


@pytest.mark.parametrize(
    ("a", "b", "equal"),
    [
        ("TRUE", "true", True),
        ("tRuE", "true", True),
        ("true ", "true", False),
        ("ß", "SS", False),  # Java maps char to char: no expansion
        ("\u212a", "k", True),  # KELVIN SIGN lower-cases to k
    ],
)
def test_equals_ignore_case(a: str, b: str, equal: bool) -> None:
    assert equals_ignore_case(a, b) is equal


@pytest.mark.parametrize(
    ("text", "bits", "expected"),
    [("2147483647", 32, 2**31 - 1), ("-2147483648", 32, -(2**31)), ("+7", 32, 7), ("٣", 32, 3)],
)
def test_parse_int(text: str, bits: int, expected: int) -> None:
    assert parse_int(text, bits=bits) == expected


@pytest.mark.parametrize("text", ["", "-", "2147483648", "1_000", " 1", "0x10", "9" * 1000])
def test_parse_int_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="For input string"):
        parse_int(text, bits=32)


def test_parse_int_echoes_a_long_input_shortened() -> None:
    with pytest.raises(ValueError) as info:
        parse_int("1" * 100_000, bits=64)
    assert len(str(info.value)) < 80


@pytest.mark.parametrize(
    ("value", "int_value", "long_value"),
    [(2**31, -(2**31), 2**31), (2**63 + 5, 5, -(2**63) + 5), (-1, -1, -1)],
)
def test_wrapping(value: int, int_value: int, long_value: int) -> None:
    assert (wrap_int(value), wrap_long(value)) == (int_value, long_value)


DOUBLES = {
    "plain": ("1.5", 1.5),
    "suffix f": ("2f", 2.0),
    "suffix D": ("2.5D", 2.5),
    "leading dot": (".5", 0.5),
    "trailing dot": ("3.", 3.0),
    "exponent": ("1e3", 1000.0),
    "hex": ("0x1p4", 16.0),
    "hex with a fraction and suffix": ("-0x1.8p1f", -3.0),
    "infinity": ("-Infinity", -math.inf),
    "beyond the double range": ("1e999", math.inf),
    "hex beyond the range": ("0x1p99999", math.inf),
}


@pytest.mark.parametrize(("text", "expected"), DOUBLES.values(), ids=DOUBLES.keys())
def test_parse_double(text: str, expected: float) -> None:
    assert parse_double(text) == expected


@pytest.mark.parametrize(
    "text", ["", ".", "nan", "inf", "Infinityf", "NaNd", "1_0", "0x1.8", "1e", "١", " 1"]
)
def test_parse_double_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="For input string"):
        parse_double(text)


def test_parse_float_rounds_to_float32() -> None:
    assert parse_float("0.1") == 13421773 / 2**27
    assert parse_float("1e39") == math.inf
    assert math.isnan(parse_float("NaN"))


def test_java_min_max() -> None:
    assert math.isnan(java_min(math.nan, 1.0)) and math.isnan(java_max(1.0, math.nan))
    assert math.copysign(1.0, java_min(0.0, -0.0)) == -1.0
    assert math.copysign(1.0, java_max(-0.0, 0.0)) == 1.0


def test_shorten() -> None:
    assert shorten("x" * 40) == "x" * 40
    assert shorten("x" * 41) == "x" * 39 + "…"
    assert shorten("abcdef", 4) == "abc…"

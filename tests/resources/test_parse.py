"""Resource strings (docs/semantics.md §1.4, error wording §1.7, vectors §8.2).

Expected values are worked out by hand from docs/semantics.md §1.4; percentages are the written
value divided by 100.
"""

from __future__ import annotations

import contextlib
from typing import Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.parse import (
    ResourceStringError,
    parse_java_integer,
    parse_resource_config,
)
from fairshare.resources.vector import INT_MAX, LONG_MAX, Resource, ResourceTypes, res

GPU = ResourceTypes.with_custom(["yarn.io/gpu"])
U = LONG_MAX
Missing = Literal["zero", "unbounded"]
MISSING: tuple[Missing, ...] = ("zero", "unbounded")


def absolute(*values: int) -> ConfigurableResource:
    return ConfigurableResource(absolute=Resource(tuple(values)))


def percent(*fractions: float) -> ConfigurableResource:
    return ConfigurableResource(percentages=tuple(fractions))


# (text, types, missing, expected)
VALID = {
    # §8.2 vectors
    "old style with a space before each unit": ("1024 mb, 2 vcores", None, "zero", res(1024, 2)),
    "old style without commas is scanned for tokens": (
        "1024mb 2vcores",
        None,
        "zero",
        res(1024, 2),
    ),
    "one old-style percentage applies to every type": ("50%", None, "zero", percent(0.5, 0.5)),
    "old-style memory and cpu percentages": (
        "50% memory, 25% cpu",
        None,
        "zero",
        percent(0.5, 0.25),
    ),
    "new style absolute": ("memory-mb=1024, vcores=2", None, "zero", res(1024, 2)),
    "new style percentages in any order": (
        "vcores=50%, memory-mb=25%",
        None,
        "zero",
        percent(0.25, 0.5),
    ),
    # old-style absolute details
    "vcores may come first": ("2 vcores, 5120 mb", None, "zero", res(5120, 2)),
    "no spaces around a comma": ("5120mb,2vcores", None, "zero", res(5120, 2)),
    "units are case-insensitive": ("5120 Mb, 2 vCores", None, "zero", res(5120, 2)),
    "surrounding blanks are ignored": ("  5120 mb, 2 vcores  ", None, "zero", res(5120, 2)),
    "decimal parts are truncated": ("  5120.9 mb, 2.99 vcores  ", None, "zero", res(5120, 2)),
    "a bare decimal point is allowed": ("5120. mb, 2. vcores", None, "zero", res(5120, 2)),
    "the number need only lead its item": ("5120mb   mb, 2    vcores", None, "zero", res(5120, 2)),
    "space-separated with a space before units": ("5120 mb 2 vcores", None, "zero", res(5120, 2)),
    "zero is allowed": ("0 mb, 0 vcores", None, "zero", res(0, 0)),
    "minus zero is zero": ("-0 mb, 1 vcores", None, "zero", res(0, 1)),
    "old-style absolute gives custom types 0 even for a max": (
        "1024 mb, 2 vcores",
        GPU,
        "unbounded",
        res(1024, 2, 0),
    ),
    "the largest int is accepted": ("2147483647 mb, 1 vcores", None, "zero", res(INT_MAX, 1)),
    # old-style percentage details
    "percentages are case-insensitive": ("50% Memory, 50% CpU", None, "zero", percent(0.5, 0.5)),
    "cpu may come first": (" 100% cpu, 50% memory", None, "zero", percent(0.5, 1.0)),
    "blanks between number, percent sign and name": (
        "  50  %  memory,  25  %  cpu  ",
        None,
        "zero",
        percent(0.5, 0.25),
    ),
    "fractional percentages": ("10.9% memory, 50.6% cpu", None, "zero", percent(0.109, 0.506)),
    "extra items are ignored": ("10% memory, 20% cpu, 30% disk", None, "zero", percent(0.1, 0.2)),
    "a single percentage covers custom types": ("50%", GPU, "zero", percent(0.5, 0.5, 0.5)),
    "memory and cpu percentages give custom types 0%": (
        "40% memory, 60% cpu",
        GPU,
        "zero",
        percent(0.4, 0.6, 0.0),
    ),
    "more than 100% is accepted": ("150%", None, "zero", percent(1.5, 1.5)),
    "a trailing comma is dropped like Java's split": ("50%,", None, "zero", percent(0.5, 0.5)),
    # new style details
    "new style unspecified types are 0 for a min": ("memory-mb=4096", None, "zero", res(4096, 0)),
    # createResourceWithSameValue(Long.MAX_VALUE): vcores, an int, narrows to -1
    "new style unspecified vcores narrow to -1 for a max": (
        "memory-mb=4096",
        None,
        "unbounded",
        absolute(4096, -1),
    ),
    "new style unspecified custom type unbounded": (
        "vcores=2, memory-mb=5120",
        GPU,
        "unbounded",
        absolute(5120, 2, U),
    ),
    "new style unspecified custom type zero": (
        "vcores=2, memory-mb=5120",
        GPU,
        "zero",
        absolute(5120, 2, 0),
    ),
    "new style names a custom type": (
        "yarn.io/gpu=4, vcores=2, memory-mb=5120",
        GPU,
        "zero",
        absolute(5120, 2, 4),
    ),
    "new style with blanks around names and values": (
        " vcores = 2 , memory-mb = 5120 ",
        None,
        "zero",
        res(5120, 2),
    ),
    "new style percentages leave other types at 100%": (
        "memory-mb=40%",
        GPU,
        "zero",
        percent(0.4, 1.0, 1.0),
    ),
    "new style percentages with blanks": (
        " vcores = 75 % , memory-mb = 40 % ",
        None,
        "unbounded",
        percent(0.4, 0.75),
    ),
    "new style percentage of a custom type": (
        "yarn.io/gpu=50%, vcores=75%, memory-mb=40%",
        GPU,
        "zero",
        percent(0.4, 0.75, 0.5),
    ),
    "new style percentage with a bare decimal point": (
        "vcores=50.%",
        None,
        "zero",
        percent(1.0, 0.5),
    ),
    "new style: the last duplicate wins": ("vcores=1, vcores=3", None, "zero", res(0, 3)),
    "new style: a trailing comma is dropped": ("memory-mb=1024,", None, "zero", res(1024, 0)),
    "new style: a plus sign is accepted like Long.parseLong": (
        "memory-mb=+8",
        None,
        "zero",
        res(8, 0),
    ),
    "new style: huge vcores saturate at Integer.MAX_VALUE": (
        "vcores=4294967296",
        None,
        "zero",
        res(0, INT_MAX),
    ),
    "new style: huge memory stays a long": (
        "memory-mb=9223372036854775807",
        None,
        "zero",
        res(LONG_MAX, 0),
    ),
}


@pytest.mark.parametrize(("text", "types", "missing", "expected"), VALID.values(), ids=VALID.keys())
def test_valid_strings(
    text: str, types: ResourceTypes | None, missing: Missing, expected: object
) -> None:
    if isinstance(expected, Resource):
        expected = ConfigurableResource(absolute=expected)
    got = parse_resource_config(text, types or ResourceTypes(), missing=missing)
    if got.percentages is not None and isinstance(expected, ConfigurableResource):
        assert expected.percentages is not None
        assert got.percentages == pytest.approx(expected.percentages, rel=0, abs=1e-15)
        assert got.absolute is None
    else:
        assert got == expected


def test_percentages_are_the_written_number_over_100() -> None:
    # 10.9 / 100 in double, as YARN's Double.parseDouble(x) / 100.0.
    got = parse_resource_config("10.9% memory, 50.6% cpu", missing="zero")
    assert got.percentages == (10.9 / 100.0, 50.6 / 100.0)


def test_a_percentage_resolves_against_the_cluster() -> None:
    # §1.4: trunc(cluster × pct); 10240 × 0.109 = 1116.16 → 1116, 4 × 0.506 = 2.024 → 2.
    got = parse_resource_config("10.9% memory, 50.6% cpu", missing="zero")
    assert got.resolve(res(10240, 4)) == res(1116, 2)


DEF = "Error reading resource config--invalid resource definition: "
NOT_PCT = "is either not a non-negative number or does not include the '%' symbol."
ERRORS = {
    # §8.2 vectors
    "empty string": ("", None, "Error reading resource config--the resource string is empty."),
    "only memory, old style": ("1024 mb", None, "Cannot parse resource values from input: 1024 mb"),
    "decimal in new style": (
        "memory-mb=1.5",
        None,
        DEF + 'memory-mb=1.5. The resource values must all be integers. "1.5" is not an integer.',
    ),
    "negative in new style": (
        "memory-mb=-1",
        None,
        "Invalid value of memory-mb: -1, value should not be negative!",
    ),
    "unknown resource name": (
        "foo=1",
        None,
        DEF + 'foo=1. The resource name, "foo" was not recognized. Please check the value of '
        "yarn.resource-types in the Resource Manager's configuration files.",
    ),
    # dispatch / blank
    "blank string": ("  \t ", None, "Error reading resource config--the resource string is empty."),
    # old-style absolute
    "a bare number": ("1024", None, "Cannot parse resource values from input: 1024"),
    "only memory without space": (
        "1024mb",
        None,
        "Cannot parse resource values from input: 1024mb",
    ),
    "only vcores": ("1024vcores", None, "Cannot parse resource values from input: 1024vcores"),
    "gibberish": ("1o24vc0res", None, "Cannot parse resource values from input: 1o24vc0res"),
    "three tokens": (
        "2 vcores 5120 mb 555 mb",
        None,
        "Cannot parse resource values from input: 2 vcores 5120 mb 555 mb",
    ),
    "two items but no vcores": ("1024 mb, 2 cpus", None, "Missing resource: vcores"),
    "two items but no mb": ("1 gb, 2 vcores", None, "Missing resource: mb"),
    "two numbers before vcores": (
        "1024 mb, 2 4 vcores",
        None,
        "Invalid value of vcores: 2 4 vcores",
    ),
    "two numbers before mb": (
        "2048 1024 mb, 2 vcores",
        None,
        "Invalid value of memory: 2048 1024 mb",
    ),
    "negative memory": (
        "2 vcores,-5120 mb",
        None,
        "Invalid value of memory: -5120, value should not be negative!",
    ),
    "negative vcores": (
        "-2 vcores, 5120 mb",
        None,
        "Invalid value of vcores: -2, value should not be negative!",
    ),
    "negative fractional vcores": (
        "5120.3 mb, -2.35 vcores",
        None,
        "Invalid value of vcores: -2, value should not be negative!",
    ),
    "memory beyond an int": (
        "2147483648 mb, 1 vcores",
        None,
        'Error reading resource config: For input string: "2147483648"',
    ),
    # old-style percentage
    "single malformed percentage": ("abc%", None, "Invalid percentage: abc%"),
    "single negative percentage": (
        "-50%",
        None,
        "Invalid percentage: -50%, percentage should not be negative!",
    ),
    "percentage without cpu": ("95%, 50% memory", None, "Missing resource: cpu"),
    "percentage with malformed cpu": (
        "95A% cpu, 50% memory",
        None,
        "Invalid percentage of cpu: 95a% cpu",
    ),
    "cpu percentage with absolute memory": ("50% cpu, 1024 mb", None, "Missing resource: memory"),
    "memory percentage with absolute vcores": (
        "50% memory, 2 vcores",
        None,
        "Missing resource: cpu",
    ),
    "two numbers before cpu": (
        "50% memory, 50% 100%cpu",
        None,
        "Invalid percentage of cpu: 50% 100%cpu",
    ),
    "two numbers before memory": (
        "50% 80% memory, 100%cpu",
        None,
        "Invalid percentage of memory: 50% 80% memory",
    ),
    "negative memory percentage": (
        "-10% memory, 50% cpu",
        None,
        "Invalid percentage: -10% memory, percentage should not be negative!",
    ),
    "negative cpu percentage": (
        "10% memory, -10% cpu",
        None,
        "Invalid percentage: -10% cpu, percentage should not be negative!",
    ),
    "blank second item of a percentage": ("50%, ", None, "Missing resource: memory"),
    # new style
    "item without =": (
        "memory-mb=1024, vcores",
        None,
        DEF + "memory-mb=1024, vcores. Every resource must be of the form: name=value.",
    ),
    "item with two =": (
        "memory-mb=1=2",
        None,
        DEF + "memory-mb=1=2. Every resource must be of the form: name=value.",
    ),
    "empty value": (
        "vcores=",
        None,
        DEF + "vcores=. Every resource must be of the form: name=value.",
    ),
    "empty middle item": (
        "vcores=1,,memory-mb=2",
        None,
        DEF + "vcores=1,,memory-mb=2. Every resource must be of the form: name=value.",
    ),
    "mixed percentages and absolutes": (
        "vcores=50%, memory-mb=1024",
        None,
        DEF + "vcores=50%, memory-mb=1024. The resource values must all be percentages. "
        f'"1024" {NOT_PCT}',
    ),
    "two percentages in one value": (
        "vcores = 75%, memory-mb = 40% 80%",
        None,
        DEF + "vcores = 75%, memory-mb = 40% 80%. The resource values must all be percentages. "
        f'"40% 80%" {NOT_PCT}',
    ),
    "negative new-style percentage": (
        "vcores=-75%,memory-mb=40%",
        None,
        DEF + "vcores=-75%,memory-mb=40%. The resource values must all be percentages. "
        f'"-75%" {NOT_PCT}',
    ),
    "units are not allowed in new style": (
        "memory-mb=1024mb",
        None,
        DEF + 'memory-mb=1024mb. The resource values must all be integers. "1024mb" is not an '
        "integer.",
    ),
    "negative custom value": (
        "vcores=2,memory-mb=5120,yarn.io/gpu=-4",
        GPU,
        "Invalid value of yarn.io/gpu: -4, value should not be negative!",
    ),
    "custom type not configured": (
        "yarn.io/gpu=1",
        None,
        DEF + 'yarn.io/gpu=1. The resource name, "yarn.io/gpu" was not recognized. Please check '
        "the value of yarn.resource-types in the Resource Manager's configuration files.",
    ),
    "names are case-sensitive": (
        "Memory-MB=1",
        None,
        DEF + 'Memory-MB=1. The resource name, "Memory-MB" was not recognized. Please check '
        "the value of yarn.resource-types in the Resource Manager's configuration files.",
    ),
    "the value is checked before the name": (
        "foo=-1",
        None,
        "Invalid value of foo: -1, value should not be negative!",
    ),
    "beyond a long": (
        "memory-mb=9223372036854775808",
        None,
        DEF + "memory-mb=9223372036854775808. The resource values must all be integers. "
        '"9223372036854775808" is not an integer.',
    ),
}


@pytest.mark.parametrize(("text", "types", "message"), ERRORS.values(), ids=ERRORS.keys())
def test_errors(text: str, types: ResourceTypes | None, message: str) -> None:
    with pytest.raises(ResourceStringError) as info:
        parse_resource_config(text, types or ResourceTypes(), missing="unbounded")
    assert str(info.value) == message


def test_resource_string_error_is_a_value_error() -> None:
    assert issubclass(ResourceStringError, ValueError)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "memory-mb=" + "1" * 10_000,
            "Error reading resource config--invalid resource definition: memory-mb="
            + "1" * 69
            + '…. The resource values must all be integers. "'
            + "1" * 39
            + '…" is not an integer.',
        ),
        ("x" * 10_000 + "%", "Invalid percentage: " + "x" * 39 + "…"),
    ],
    ids=["new-style", "old-style"],
)
def test_long_values_are_echoed_shortened(text: str, message: str) -> None:
    with pytest.raises(ResourceStringError) as info:
        parse_resource_config(text, missing="zero")
    assert str(info.value) == message


INTEGERS = {
    "plain": ("123", 32, 10, 123),
    "plus sign": ("+7", 32, 10, 7),
    "int minimum": ("-2147483648", 32, 10, -(2**31)),
    "long maximum": ("9223372036854775807", 64, 10, LONG_MAX),
    "hex digits": ("fF", 32, 16, 255),
    "Arabic-Indic digits count as digits in Java": ("\u0661\u0662", 32, 10, 12),
}


@pytest.mark.parametrize(
    ("text", "bits", "radix", "expected"), INTEGERS.values(), ids=INTEGERS.keys()
)
def test_java_integer_parsing(text: str, bits: int, radix: int, expected: int) -> None:
    assert parse_java_integer(text, bits=bits, radix=radix) == expected


@pytest.mark.parametrize("text", ["", "-", "+", "2147483648", " 1", "1_000", "0x10", "1.0", "g"])
def test_java_integer_rejects(text: str) -> None:
    with pytest.raises(ValueError, match="For input string"):
        parse_java_integer(text, bits=32)


ALPHABET = st.sampled_from(list("0123456789 .,=%-+mbvcoreMBpuyaigf/\t\n\u0661x"))


@given(st.one_of(st.text(), st.text(ALPHABET, max_size=40)))
def test_any_text_raises_only_resource_string_errors(text: str) -> None:
    for types in (ResourceTypes(), GPU):
        for missing in MISSING:
            with contextlib.suppress(ResourceStringError):
                parse_resource_config(text, types, missing=missing)


@given(st.integers(min_value=0, max_value=2**31 - 1), st.integers(0, 2**31 - 1))
def test_old_style_round_trip(memory: int, vcores: int) -> None:
    got = parse_resource_config(f"{memory} mb, {vcores} vcores", missing="zero")
    assert got == ConfigurableResource(absolute=res(memory, vcores))

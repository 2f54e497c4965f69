"""Hadoop's own unit tests for resource strings and yarn-site values, ported as an independent
reference (docs/semantics.md §1.1, §1.4, §1.7).

Sources (apache/hadoop, ``.../scheduler/fair/``): ``TestFairSchedulerConfiguration`` and
``TestConfigurableResource``. Each test, or each ``pytest.param`` id, is the Hadoop test method
it comes from. Only the inputs and the expected outcomes are taken over, restated in our API:

* ``parseResourceConfigValue(s)`` is ``parse_resource_config(s, missing="unbounded")`` (Hadoop's
  one-argument form leaves unnamed types at ``Long.MAX_VALUE``); the two-argument form with
  ``0L`` is ``missing="zero"``;
* ``getResource()`` is ``.absolute``, ``getResource(cluster)`` is ``.resolve(cluster)``;
* Hadoop's ``AllocationConfigurationException`` is our ``ResourceStringError``, and its
  ``expectMessage`` (a substring test) is ``pytest.raises(match=re.escape(...))``;
* ``FairSchedulerConfiguration.getIncrementAllocation`` is ``SiteConfig.increment_allocation``
  and ``DominantResourceCalculator.normalize`` is ``vector.normalize``.
"""

from __future__ import annotations

import re

import pytest

from fairshare.config.errors import ConfigError
from fairshare.config.yarnsite import load_site
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.parse import ResourceStringError, parse_resource_config
from fairshare.resources.vector import (
    DEFAULT_TYPES,
    INT_MAX,
    LONG_MAX,
    Resource,
    ResourceTypes,
    normalize,
    res,
)

# Hadoop's testParseResourceConfigValue switches on one custom type, "test1", half-way through;
# its negative-value tests for test1 rely on that type being defined.
TEST1 = ResourceTypes.with_custom(["test1"])
A_CUSTOM_RESOURCE = "a-custom-resource"


def parse(text: str, types: ResourceTypes = DEFAULT_TYPES) -> ConfigurableResource:
    """``parseResourceConfigValue(text)``: unnamed types of a new-style string are unbounded."""
    return parse_resource_config(text, types, missing="unbounded")


def parse_zero(text: str, types: ResourceTypes = DEFAULT_TYPES) -> ConfigurableResource:
    """``parseResourceConfigValue(text, 0L)``."""
    return parse_resource_config(text, types, missing="zero")


def absolute(resource: ConfigurableResource) -> Resource:
    """``getResource()`` of a resource that must be absolute."""
    assert resource.absolute is not None, resource
    return resource.absolute


# --- TestFairSchedulerConfiguration.testParseResourceConfigValue ----------------------------

OLD_STYLE_5G_2 = [
    "5120 mb 2 vcores",
    "2 vcores, 5120 mb",
    "5120 mb, 2 vcores",
    "2vcores,5120mb",
    "5120mb,2vcores",
    "5120mb   mb, 2    vcores",
    "5120 Mb, 2 vCores",
    "  5120 mb, 2 vcores  ",
    "  5120.3 mb, 2.35 vcores  ",
    "  5120. mb, 2. vcores  ",
]


@pytest.mark.parametrize("text", OLD_STYLE_5G_2)
def test_parse_resource_config_value_old_style_absolute(text: str) -> None:
    assert absolute(parse(text)) == res(5 * 1024, 2)


CLUSTER_10G_4 = res(10 * 1024, 4)

OLD_STYLE_PERCENTAGES = [
    ("50% memory, 50% cpu", res(5120, 2)),
    ("50% Memory, 50% CpU", res(5120, 2)),
    ("50% memory, 100% cpu", res(5120, 4)),
    (" 100% cpu, 50% memory", res(5120, 4)),
    ("50% memory, 0% cpu", res(5120, 0)),
    ("50 % memory, 50 % cpu", res(5120, 2)),
    ("50%memory,50%cpu", res(5120, 2)),
    ("  50  %  memory,  50  %  cpu  ", res(5120, 2)),
    ("50.% memory, 50.% cpu", res(5120, 2)),
    ("10.9% memory, 50.6% cpu", res(int(1024 * 10 * 0.109), 2)),
    ("50%", res(5120, 2)),
]


@pytest.mark.parametrize(("text", "expected"), OLD_STYLE_PERCENTAGES)
def test_parse_resource_config_value_old_style_percentages(text: str, expected: Resource) -> None:
    resource = parse(text)
    assert resource.absolute is None  # a percentage has no absolute value
    assert resource.resolve(CLUSTER_10G_4) == expected


NEW_STYLE_5G_2 = [
    "vcores=2, memory-mb=5120",
    "memory-mb=5120, vcores=2",
    "vcores=2,memory-mb=5120",
    " vcores = 2 , memory-mb = 5120 ",
]


@pytest.mark.parametrize("text", NEW_STYLE_5G_2)
def test_parse_resource_config_value_new_style_unnamed_types(text: str) -> None:
    # One-argument form: the unnamed custom type is unbounded; with 0L it is 0.
    assert absolute(parse(text, TEST1)) == res(5120, 2, LONG_MAX)
    assert absolute(parse_zero(text, TEST1)) == res(5120, 2, 0)


CLUSTER_WITH_TEST1 = res(10 * 1024, 4, 8)


@pytest.mark.parametrize(
    "text",
    [
        "vcores=2, memory-mb=5120, test1=4",
        "test1=4, vcores=2, memory-mb=5120",
        "memory-mb=5120, test1=4, vcores=2",
        "vcores=2,memory-mb=5120,test1=4",
        " vcores = 2 , memory-mb = 5120 , test1 = 4 ",
    ],
)
def test_parse_resource_config_value_new_style_with_custom_type(text: str) -> None:
    assert absolute(parse(text, TEST1)) == res(5120, 2, 4)


def test_parse_resource_config_value_single_percentage_covers_custom_types() -> None:
    assert parse("50%", TEST1).resolve(CLUSTER_WITH_TEST1) == res(5120, 2, 4)


@pytest.mark.parametrize(
    "text",
    [
        "vcores=75%, memory-mb=40%",
        "memory-mb=40%, vcores=75%",
        "vcores=75%,memory-mb=40%",
        " vcores = 75 % , memory-mb = 40 % ",
    ],
)
def test_parse_resource_config_value_new_style_percentages(text: str) -> None:
    # The unnamed custom type of a new-style percentage string is 100 %.
    assert parse(text, TEST1).resolve(CLUSTER_WITH_TEST1) == res(4 * 1024, 3, 8)


@pytest.mark.parametrize(
    "text",
    [
        "vcores=75%, memory-mb=40%, test1=50%",
        "test1=50%, vcores=75%, memory-mb=40%",
        "memory-mb=40%, test1=50%, vcores=75%",
        "vcores=75%,memory-mb=40%,test1=50%",
        " vcores = 75 % , memory-mb = 40 % , test1 = 50 % ",
    ],
)
def test_parse_resource_config_value_new_style_percentages_with_custom_type(text: str) -> None:
    assert parse(text, TEST1).resolve(CLUSTER_WITH_TEST1) == res(4 * 1024, 3, 4)


def test_old_style_resources_separated_by_spaces() -> None:
    assert absolute(parse("2 vcores, 5120 mb")) == res(5120, 2)


# --- TestFairSchedulerConfiguration: the rejected strings -----------------------------------


# Hadoop's expectation helpers, as the message fragment they look for.
def missing_resource(resource: str) -> str:
    return f"Missing resource: {resource}"


def unparsable(value: str) -> str:
    return f"Cannot parse resource values from input: {value}"


def invalid_value(resource: str) -> str:
    return f"Invalid value of {resource}: "


def invalid_percentage(resource: str) -> str:
    return f"Invalid percentage of {resource}: "


def invalid_percentage_new_style(value: str) -> str:
    return f'"{value}" is either not a non-negative number'


NEGATIVE_PERCENTAGE_OLD_STYLE = "percentage should not be negative"
NEGATIVE_PERCENTAGE_NEW_STYLE = "is either not a non-negative number"


def negative_value(resource: str) -> str:
    return f"Invalid value of {resource}"


REJECTED = [
    pytest.param("1024", unparsable("1024"), id="testNoUnits"),
    pytest.param("1024mb", unparsable("1024mb"), id="testOnlyMemory"),
    pytest.param("1024vcores", unparsable("1024vcores"), id="testOnlyCPU"),
    pytest.param("1o24vc0res", unparsable("1o24vc0res"), id="testGibberish"),
    pytest.param("95%, 50% memory", missing_resource("cpu"), id="testNoUnitsPercentage"),
    pytest.param("95A% cpu, 50% memory", invalid_percentage("cpu"), id="testInvalidNumPercentage"),
    pytest.param(
        "50% cpu, 1024 mb", missing_resource("memory"), id="testCpuPercentageMemoryAbsolute"
    ),
    pytest.param(
        "50% memory, 2 vcores", missing_resource("cpu"), id="testMemoryPercentageCpuAbsolute"
    ),
    pytest.param(
        "1024 mb, 2 4 vcores", invalid_value("vcores"), id="testDuplicateVcoresDefinitionAbsolute"
    ),
    pytest.param(
        "2048 1024 mb, 2 vcores",
        invalid_value("memory"),
        id="testDuplicateMemoryDefinitionAbsolute",
    ),
    pytest.param(
        "50% memory, 50% 100%cpu",
        invalid_percentage("cpu"),
        id="testDuplicateVcoresDefinitionPercentage",
    ),
    pytest.param(
        "50% 80% memory, 100%cpu",
        invalid_percentage("memory"),
        id="testDuplicateMemoryDefinitionPercentage",
    ),
    pytest.param(
        "vcores = 75%, memory-mb = 40% 80%",
        invalid_percentage_new_style("40% 80%"),
        id="testParseNewStyleDuplicateMemoryDefinitionPercentage",
    ),
    pytest.param(
        "vcores = 75% 65%, memory-mb = 40%",
        invalid_percentage_new_style("75% 65%"),
        id="testParseNewStyleDuplicateVcoresDefinitionPercentage",
    ),
    pytest.param(
        "-10% memory, 50% cpu",
        NEGATIVE_PERCENTAGE_OLD_STYLE,
        id="testMemoryPercentageNegativeValue",
    ),
    pytest.param(
        "10% memory, -10% cpu", NEGATIVE_PERCENTAGE_OLD_STYLE, id="testCpuPercentageNegativeValue"
    ),
    pytest.param(
        "-20% memory, -10% cpu",
        NEGATIVE_PERCENTAGE_OLD_STYLE,
        id="testMemoryAndCpuPercentageNegativeValue",
    ),
    pytest.param(
        "-50% cpu, 1024 mb",
        missing_resource("memory"),
        id="testCpuPercentageMemoryAbsoluteCpuNegative",
    ),
    pytest.param(
        "50% cpu, -1024 mb",
        missing_resource("memory"),
        id="testCpuPercentageMemoryAbsoluteMemoryNegative",
    ),
    pytest.param(
        "50% memory, -2 vcores",
        missing_resource("cpu"),
        id="testMemoryPercentageCpuAbsoluteCpuNegative",
    ),
    pytest.param(
        "-50% memory, 2 vcores",
        NEGATIVE_PERCENTAGE_OLD_STYLE,
        id="testMemoryPercentageCpuAbsoluteMemoryNegative",
    ),
    pytest.param("-2 vcores,5120 mb", negative_value("vcores"), id="testAbsoluteVcoresNegative"),
    pytest.param("2 vcores,-5120 mb", negative_value("memory"), id="testAbsoluteMemoryNegative"),
    pytest.param(
        "-2 vcores, 5120 mb", negative_value("vcores"), id="testAbsoluteVcoresNegativeWithSpaces"
    ),
    pytest.param(
        "2 vcores, -5120 mb", negative_value("memory"), id="testAbsoluteMemoryNegativeWithSpaces"
    ),
    pytest.param(
        "5120mb   mb, -2    vcores",
        negative_value("vcores"),
        id="testAbsoluteVcoresNegativeWithMoreSpaces",
    ),
    pytest.param(
        "-5120mb   mb, 2    vcores",
        negative_value("memory"),
        id="testAbsoluteMemoryNegativeWithMoreSpaces",
    ),
    pytest.param(
        "  5120.3 mb, -2.35 vcores  ",
        negative_value("vcores"),
        id="testAbsoluteVcoresNegativeFractional",
    ),
    pytest.param(
        "  -5120.3 mb, 2.35 vcores  ",
        negative_value("memory"),
        id="testAbsoluteMemoryNegativeFractional",
    ),
    pytest.param(
        "2 vcores 5120 mb 555 mb",
        unparsable("2 vcores 5120 mb 555 mb"),
        id="testOldStyleResourcesSeparatedBySpacesInvalid",
    ),
    pytest.param(
        "2 vcores 5120 MB 555 GB",
        unparsable("2 vcores 5120 MB 555 GB"),
        id="testOldStyleResourcesSeparatedBySpacesInvalidUppercaseUnits",
    ),
    pytest.param(
        "memory-mb=-5120,vcores=2",
        negative_value("memory"),
        id="testParseNewStyleResourceMemoryNegative",
    ),
    pytest.param(
        "memory-mb=5120,vcores=-2",
        negative_value("vcores"),
        id="testParseNewStyleResourceVcoresNegative",
    ),
    pytest.param(
        "memory-mb=-5120, vcores=2",
        negative_value("memory"),
        id="testParseNewStyleResourceMemoryNegativeWithSpaces",
    ),
    pytest.param(
        "memory-mb=5120, vcores=-2",
        negative_value("vcores"),
        id="testParseNewStyleResourceVcoresNegativeWithSpaces",
    ),
    pytest.param(
        " vcores = 2 ,  memory-mb = -5120 ",
        negative_value("memory"),
        id="testParseNewStyleResourceMemoryNegativeWithMoreSpaces",
    ),
    pytest.param(
        " vcores = -2 ,  memory-mb = 5120 ",
        negative_value("vcores"),
        id="testParseNewStyleResourceVcoresNegativeWithMoreSpaces",
    ),
    pytest.param(
        "vcores=2,memory-mb=-5120,test1=4",
        negative_value("memory"),
        id="testParseNewStyleResourceWithCustomResourceMemoryNegative",
    ),
    pytest.param(
        "vcores=-2,memory-mb=-5120,test1=4",
        negative_value("vcores"),
        id="testParseNewStyleResourceWithCustomResourceVcoresNegative",
    ),
    pytest.param(
        "vcores=2,memory-mb=5120,test1=-4",
        negative_value("test1"),
        id="testParseNewStyleResourceWithCustomResourceNegative",
    ),
    pytest.param(
        " vcores = 2 , memory-mb = 5120 , test1 = -4 ",
        negative_value("test1"),
        id="testParseNewStyleResourceWithCustomResourceNegativeWithSpaces",
    ),
    pytest.param(
        "vcores=-75%,memory-mb=40%",
        NEGATIVE_PERCENTAGE_NEW_STYLE,
        id="testParseNewStyleResourceWithPercentagesVcoresNegative",
    ),
    pytest.param(
        "vcores=75%,memory-mb=-40%",
        NEGATIVE_PERCENTAGE_NEW_STYLE,
        id="testParseNewStyleResourceWithPercentagesMemoryNegative",
    ),
    pytest.param(
        "vcores=-75%, memory-mb=40%",
        NEGATIVE_PERCENTAGE_NEW_STYLE,
        id="testParseNewStyleResourceWithPercentagesVcoresNegativeWithSpaces",
    ),
    pytest.param(
        "vcores=75%, memory-mb=-40%",
        NEGATIVE_PERCENTAGE_NEW_STYLE,
        id="testParseNewStyleResourceWithPercentagesMemoryNegativeWithSpaces",
    ),
    pytest.param(
        "vcores = -75%, memory-mb = 40%",
        NEGATIVE_PERCENTAGE_NEW_STYLE,
        id="testParseNewStyleResourceWithPercentagesVcoresNegativeWithMoreSpaces",
    ),
    pytest.param(
        "vcores = 75%, memory-mb = -40%",
        NEGATIVE_PERCENTAGE_NEW_STYLE,
        id="testParseNewStyleResourceWithPercentagesMemoryNegativeWithMoreSpaces",
    ),
    pytest.param(
        " vcores = 2 , memory-mb = 5120 , test1 = -4 ",
        negative_value("test1"),
        id="testParseNewStyleResourceWithPercentagesCustomResourceNegativeWithSpaces",
    ),
]


@pytest.mark.parametrize(("text", "message"), REJECTED)
@pytest.mark.parametrize("missing", ["unbounded", "zero"])
def test_rejected_resource_strings(text: str, message: str, missing: str) -> None:
    """Every Hadoop negative case, with either default for unnamed types."""
    with pytest.raises(ResourceStringError, match=re.escape(message)):
        parse_resource_config(text, TEST1, missing="zero" if missing == "zero" else "unbounded")


# --- TestFairSchedulerConfiguration: increment allocation (yarn-site) -----------------------

MIN_0 = res(0, 0)
MAX_ALL = res(LONG_MAX, INT_MAX)
INCREMENT = "yarn.resource-types.{}.increment-allocation"


def increment_of(overrides: dict[str, object], types: str | None = None) -> Resource:
    if types is not None:
        overrides = {"yarn.resource-types": types, **overrides}
    return load_site(overrides=overrides).increment_allocation


def test_allocation_increment_memory_default_unit() -> None:
    step = increment_of({INCREMENT.format("memory-mb"): "256"})
    for ask, normalized in ((769, 1024), (1023, 1024), (1024, 1024), (1025, 1280)):
        assert normalize(res(ask, 0), MIN_0, MAX_ALL, step).memory == normalized


def test_allocation_increment_memory_non_default_unit() -> None:
    step = increment_of({INCREMENT.format("memory-mb"): "1 Gi"})
    for ask, normalized in ((1023, 1024), (1024, 1024), (1025, 2048)):
        assert normalize(res(ask, 0), MIN_0, MAX_ALL, step).memory == normalized


def test_allocation_increment_invalid_unit() -> None:
    # Hadoop: IllegalArgumentException from getIncrementAllocation; ours: an init-time error.
    with pytest.raises(ConfigError, match="Unknown unit 'Xi'"):
        increment_of({INCREMENT.format("memory-mb"): "1 Xi"})


def test_allocation_increment_v_core_no_unit() -> None:
    step = increment_of({INCREMENT.format("vcores"): "10"})
    for ask, normalized in ((9, 10), (10, 10), (11, 20)):
        assert normalize(res(0, ask), MIN_0, MAX_ALL, step).vcores == normalized


def test_allocation_increment_v_core_with_unit() -> None:
    step = increment_of({INCREMENT.format("vcores"): "1k"})
    for ask, normalized in ((999, 1000), (1000, 1000), (1001, 2000)):
        assert normalize(res(0, ask), MIN_0, MAX_ALL, step).vcores == normalized


def test_allocation_increment_custom_resource() -> None:
    """Hadoop declares the custom type with unit ``k`` and asks for 9k, 10k and 11k with an
    increment of ``10`` (= 10k). We carry no per-type units, so values are in the type's own
    unit; the asks Hadoop writes in base units (9999 → 10000, ...) are not expressible here."""
    step = increment_of({INCREMENT.format(A_CUSTOM_RESOURCE): "10"}, types=A_CUSTOM_RESOURCE)
    assert step == res(1024, 1, 10)  # memory/vcores keep the legacy defaults
    minimum = res(0, 0, 0)
    maximum = res(LONG_MAX, INT_MAX, LONG_MAX // 1000)
    for ask, normalized in ((9, 10), (10, 10), (11, 20)):
        assert normalize(res(0, 0, ask), minimum, maximum, step)[2] == normalized


@pytest.mark.parametrize(
    ("legacy", "name", "index"),
    [
        pytest.param("mb", "memory-mb", 0, id="testMemoryIncrementConfiguredViaMultipleProperties"),
        pytest.param("vcores", "vcores", 1, id="testCpuIncrementConfiguredViaMultipleProperties"),
    ],
)
def test_increment_configured_via_multiple_properties(legacy: str, name: str, index: int) -> None:
    legacy_key = f"yarn.scheduler.increment-allocation-{legacy}"
    site = load_site(overrides={legacy_key: "7", INCREMENT.format(name): "13"})
    assert site.increment_allocation[index] == 13
    expected = (
        f"Configuration yarn.resource-types.{name}.increment-allocation=13 is overriding the "
        f"yarn.scheduler.increment-allocation-{legacy}=7 property"
    )
    assert any(expected in w.message for w in site.warnings), site.warnings


# --- TestConfigurableResource ---------------------------------------------------------------

CLUSTER_2G_2 = res(2048, 2)


def test_get_resource_with_percentage() -> None:
    resource = ConfigurableResource(percentages=(0.5, 0.5))
    assert resource.resolve(CLUSTER_2G_2) == res(1024, 1)
    # No absolute value: the percentages only mean something against a cluster.
    assert resource.absolute is None


def test_get_resource_with_absolute() -> None:
    resource = ConfigurableResource(absolute=res(3072, 3))
    assert resource.absolute == res(3072, 3)
    # An absolute value ignores the cluster it is resolved against.
    assert resource.resolve(CLUSTER_2G_2) == res(3072, 3)
    assert resource.resolve(res(0, 0)) == res(3072, 3)

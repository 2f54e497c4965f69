"""Resource strings of the allocation file (docs/semantics.md §1.4).

``minResources``, ``maxResources``, ``maxChildResources``, ``maxContainerAllocation`` and
``queueMaxResourcesDefault`` all take the same three notations, picked by what the string
contains (§1.4):

1. blank → error;
2. contains ``=`` → *new style*, ``memory-mb=4096, vcores=4`` or ``vcores=50%, memory-mb=25%``;
3. else contains ``%`` → *old-style percentage*, ``50%`` or ``50% memory, 25% cpu``;
4. else → *old-style absolute*, ``1024 mb, 4 vcores`` (or ``1024mb 4vcores``).

The Java string handling this relies on — ``String.split`` dropping trailing empty pieces,
``String.trim`` stopping at U+0020, ``Integer``/``Long.parseLong`` overflow — comes from
:mod:`fairshare.resources.javalang`; the patterns below use ASCII-only ``\\d`` and ``\\s`` as Java's
do. Those details decide which odd inputs YARN accepts.
"""

from __future__ import annotations

import re
from typing import Literal

from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.javalang import java_split, java_trim, parse_int, shorten, wrap_int
from fairshare.resources.vector import (
    DEFAULT_TYPES,
    INT_MAX,
    LONG_MAX,
    MEMORY,
    VCORES,
    Resource,
    ResourceTypes,
)

__all__ = ["ResourceStringError", "parse_java_integer", "parse_resource_config"]

parse_java_integer = parse_int  # the name this module exported before javalang existed


class ResourceStringError(ValueError):
    """A malformed resource string; the message is YARN's (abridged), without a location."""


# Java's regex classes are ASCII-only by default; Python's are Unicode unless told otherwise.
_FLAGS = re.ASCII
_PERCENT = re.compile(r"(-?\d+(?:\.\d*)?)\s*%\s*", _FLAGS)
_OLD_PERCENT = {
    key: re.compile(r"(-?\d+(?:\.\d*)?)\s*%\s*" + key, _FLAGS) for key in ("memory", "cpu")
}
_OLD_VALUE = {key: re.compile(r"(-?\d+)(?:\.\d*)?\s*" + key, _FLAGS) for key in ("mb", "vcores")}
_OLD_TOKEN = re.compile(r"-?\d+(?:\.\d*)?\s*[a-z]+\s*", _FLAGS)
_INVALID_DEFINITION = "Error reading resource config--invalid resource definition: "
_ECHO_WHOLE = 80  # a whole resource string is echoed up to this length, a single value up to 40


def parse_resource_config(
    text: str,
    types: ResourceTypes = DEFAULT_TYPES,
    *,
    missing: Literal["zero", "unbounded"],
) -> ConfigurableResource:
    """Parse a resource string into an absolute vector or per-type fractions (§1.4).

    ``missing`` is the value of types a new-style absolute string leaves out: ``"zero"`` for
    ``minResources``, ``"unbounded"`` (``LONG_MAX``) for the max-type fields. New-style
    percentages leave out types at 100 %; old-style strings always give custom types 0 / 0 %.

    Percentages are returned as they are written. It is the *caller's* job to know that YARN
    reads only the absolute value of ``minResources`` and ``maxContainerAllocation``, so a
    percentage there silently means "unset" (no minimum / inherit the cap) — the allocation
    parser maps it to ``None`` (§1.3.2, §8.3 item 16).

    Raises :class:`ResourceStringError` with YARN's message (§1.7).
    """
    if not java_trim(text):
        raise ResourceStringError("Error reading resource config--the resource string is empty.")
    if "=" in text:
        return _parse_new_style(text, types, LONG_MAX if missing == "unbounded" else 0)
    if "%" in text:
        return _parse_old_percentage(text.lower(), types)
    return _parse_old_absolute(text, types)


# --- new style: name=value, ... ---------------------------------------------------------------


def _parse_new_style(text: str, types: ResourceTypes, missing: int) -> ConfigurableResource:
    as_percent = "%" in text  # decided for the whole string, not per item (§1.4)
    percentages = [1.0] * len(types)
    # Unspecified types take ``missing``, built as ResourceUtils.createResourceWithSameValue
    # builds it: vcores is an int there, so an unbounded (Long.MAX_VALUE) vcores narrows to -1,
    # which FSQueue.getMaxShare then raises to the min share — usually 0.
    values = [missing] * len(types)
    values[types.index(VCORES)] = wrap_int(missing)  # Long.intValue()
    for item in java_split(text, ","):
        parts = java_split(item, "=")
        if len(parts) != 2:
            raise _definition_error(text, "Every resource must be of the form: name=value.")
        name, raw = java_trim(parts[0]), java_trim(parts[1])
        # YARN validates the value before it looks the name up, so "foo=-1" reports the value.
        if as_percent:
            number: float | int = _new_style_percentage(text, raw)
        else:
            number = _new_style_absolute(text, name, raw)
        if name not in types.names:
            raise _definition_error(
                text,
                f'The resource name, "{shorten(name)}" was not recognized. Please check the '
                "value of yarn.resource-types in the Resource Manager's configuration files.",
            )
        index = types.index(name)
        if as_percent:
            percentages[index] = float(number)
        else:
            # Resource.setResourceValue saturates an explicit vcores value at Integer.MAX_VALUE.
            values[index] = min(int(number), INT_MAX) if name == VCORES else int(number)
    if as_percent:
        return ConfigurableResource(percentages=tuple(percentages))
    return ConfigurableResource(absolute=Resource(tuple(values)))


def _new_style_percentage(text: str, raw: str) -> float:
    match = _PERCENT.fullmatch(raw)
    fraction = float(match.group(1)) / 100.0 if match else -1.0
    if fraction < 0:  # "-0%" is -0.0, which is not below zero: accepted, like Java
        raise _definition_error(
            text,
            f'The resource values must all be percentages. "{shorten(raw)}" is either not a '
            "non-negative number or does not include the '%' symbol.",
        )
    return fraction


def _new_style_absolute(text: str, name: str, raw: str) -> int:
    try:
        value = parse_int(raw, bits=64)
    except ValueError:
        raise _definition_error(
            text, f'The resource values must all be integers. "{shorten(raw)}" is not an integer.'
        ) from None
    if value < 0:
        raise ResourceStringError(
            f"Invalid value of {name}: {value}, value should not be negative!"
        )
    return value


def _definition_error(text: str, message: str) -> ResourceStringError:
    return ResourceStringError(f"{_INVALID_DEFINITION}{shorten(text, _ECHO_WHOLE)}. {message}")


# --- old style ---------------------------------------------------------------------------------


def _parse_old_percentage(lowered: str, types: ResourceTypes) -> ConfigurableResource:
    items = java_split(lowered, ",")
    if len(items) == 1:
        raw = java_trim(items[0])
        match = _PERCENT.fullmatch(raw)
        if match is None:
            raise ResourceStringError(f"Invalid percentage: {shorten(raw)}")
        return ConfigurableResource(percentages=(_old_fraction(match, raw),) * len(types))
    memory = _old_keyed_percentage(items, "memory")
    cpu = _old_keyed_percentage(items, "cpu")
    # Custom types are not mentioned in this notation and stay at 0 % (§1.4).
    return ConfigurableResource(percentages=(memory, cpu) + (0.0,) * (len(types) - 2))


def _old_keyed_percentage(items: list[str], key: str) -> float:
    raw = _first_containing(items, key)
    match = _OLD_PERCENT[key].fullmatch(raw)
    if match is None:
        raise ResourceStringError(f"Invalid percentage of {key}: {shorten(raw)}")
    return _old_fraction(match, raw)


def _old_fraction(match: re.Match[str], raw: str) -> float:
    fraction = float(match.group(1)) / 100.0
    if fraction < 0:
        raise ResourceStringError(
            f"Invalid percentage: {shorten(raw)}, percentage should not be negative!"
        )
    return fraction


def _parse_old_absolute(text: str, types: ResourceTypes) -> ConfigurableResource:
    lowered = text.lower()
    items = java_split(lowered, ",")
    if len(items) != 2:
        # "1024mb 4vcores": fall back to scanning for number+unit tokens (§1.4).
        items = _OLD_TOKEN.findall(lowered)
        if len(items) != 2:
            raise ResourceStringError(
                f"Cannot parse resource values from input: {shorten(text, _ECHO_WHOLE)}"
            )
    memory = _old_value(items, "mb", "memory")
    vcores = _old_value(items, "vcores", "vcores")
    values = {MEMORY: memory, VCORES: vcores}  # custom types are 0 (§1.4)
    return ConfigurableResource(absolute=types.of(values))


def _old_value(items: list[str], unit: str, label: str) -> int:
    raw = _first_containing(items, unit)
    match = _OLD_VALUE[unit].match(raw)  # anchored at the start only: "1024.7mb x" is fine
    if match is None:
        raise ResourceStringError(f"Invalid value of {label}: {shorten(raw)}")
    try:
        value = parse_int(match.group(1), bits=32)
    except ValueError as exc:
        # YARN's Integer.parseInt overflow escapes as a RuntimeException and is wrapped.
        raise ResourceStringError(f"Error reading resource config: {exc}") from None
    if value < 0:
        raise ResourceStringError(
            f"Invalid value of {label}: {value}, value should not be negative!"
        )
    return value


def _first_containing(items: list[str], key: str) -> str:
    for item in items:
        if key in item:
            return java_trim(item)
    raise ResourceStringError(f"Missing resource: {key}")

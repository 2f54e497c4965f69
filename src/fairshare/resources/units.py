"""Resource values with units, as ``ResourceUtils`` / ``UnitsConversionUtil`` read them
(docs/semantics.md §1.1).

Used for ``yarn.resource-types.<name>.increment-allocation`` style values: ``"value [unit]"``, a
non-negative decimal number optionally followed by one space and a unit (``512 Mi``, ``2G``),
converted to the type's default unit (``Mi`` for memory-mb, none for the others) with YARN's
overflow checks.
"""

from __future__ import annotations

import re

from fairshare.resources.javalang import parse_int, shorten
from fairshare.resources.vector import LONG_MAX

__all__ = ["UNITS", "VALUE_UNIT", "convert", "value_in_unit"]

# UnitsConversionUtil: unit -> (numerator, denominator) relative to the base unit.
UNITS: dict[str, tuple[int, int]] = {
    "p": (1, 10**12), "n": (1, 10**9), "u": (1, 10**6), "m": (1, 1000), "": (1, 1),
    "k": (1000, 1), "M": (1000**2, 1), "G": (1000**3, 1), "T": (1000**4, 1), "P": (1000**5, 1),
    "Ki": (1024, 1), "Mi": (1024**2, 1), "Gi": (1024**3, 1), "Ti": (1024**4, 1),
    "Pi": (1024**5, 1),
}  # fmt: skip
VALUE_UNIT = re.compile(r"([0-9]+) ?([a-zA-Z]*)", re.ASCII)  # the ResourceUtils pattern


def value_in_unit(text: str, target: str) -> int | None:
    """``text`` ("value [unit]") in unit ``target``; None when it is not in that format.

    Raises ``ValueError`` for a number Java cannot hold, an unknown unit or an overflow.
    """
    match = VALUE_UNIT.fullmatch(text)
    if match is None:
        return None
    value = parse_int(match.group(1), bits=64)
    unit = match.group(2)
    return convert(value, unit, target) if unit else value


def convert(value: int, unit: str, target: str) -> int:
    """``UnitsConversionUtil.convert`` of a non-negative value, with its overflow checks."""
    if unit == target:
        return value
    if unit not in UNITS:
        raise ValueError(f"Unknown unit '{shorten(unit)}'. Known units are [{', '.join(UNITS)}]")
    (from_num, from_den), (to_num, to_den) = UNITS[unit], UNITS[target]
    num, den = from_num * to_den, from_den * to_num
    overflow = f"Converting {value} from '{unit}' to '{target}' will result in an overflow of Long"
    if num < den:
        if LONG_MAX // num < value:
            raise ValueError(overflow)
        return value * num // den
    if LONG_MAX // num > value:
        return num * value // den
    if LONG_MAX // (num // den) < value:
        raise ValueError(overflow)
    return value * (num // den)

"""``--cluster``: a cluster's size as an admin says it.

Two forms, each optionally multiplied by a node count (``10x…``):

* ``64g/16`` — memory, then vcores, of one node (``10x64g/16``: ten of them). Custom resource
  types follow as ``,yarn.io/gpu=4``.
* ``memory-mb=65536,vcores=16`` — every resource type by its YARN name.
* ``65536 mb, 16 vcores`` — YARN's own older form, read as ``<maxResources>`` is
  (``FairSchedulerConfiguration.parseResourceConfigValue``: memory in MB, either order, the comma
  optional), so a value copied from an allocation file or the RM's page works as it is. It has no
  custom resource types, and a percentage, a share of a cluster, is not a cluster's size.

Memory takes a unit: ``m``/``mb``/``mi`` (the default), ``g``/``gb``/``gi``, ``t``/``tb``/``ti``,
any case, all binary (``1g`` = 1,024 MB) as YARN's and the JVM's sizes are. Every resource type the
configuration defines must be given: a cluster with "no vcores" is almost always a typo, and YARN
would offer it nothing to run.
"""

from __future__ import annotations

import re
from decimal import Decimal

from fairshare.cli.common import fail
from fairshare.resources.parse import ResourceStringError, parse_resource_config
from fairshare.resources.vector import LONG_MAX, MEMORY, VCORES, Resource, ResourceTypes

__all__ = ["CLUSTER_HELP", "ClusterSizeError", "cluster_option", "parse_cluster"]

EXAMPLES = "e.g. 10x64g/16, 640g/160 or memory-mb=655360,vcores=160"
_MB_PER_UNIT = {"": 1, "m": 1, "mb": 1, "mi": 1, "g": 1024, "gb": 1024, "gi": 1024,
                "t": 1024**2, "tb": 1024**2, "ti": 1024**2}
_COUNT = re.compile(r"\s*(\d+)\s*[x×*]\s*(.+)", re.ASCII | re.IGNORECASE | re.DOTALL)
_MEMORY = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]*)", re.ASCII | re.IGNORECASE)
_WHOLE = re.compile(r"\d+", re.ASCII)
_YARN_FORM = re.compile(r"\d\s*%?\s*(?:mb|vcores|memory|cpu)\b", re.ASCII | re.IGNORECASE)


CLUSTER_HELP = ("Cluster resources: 10x64g/16 (nodes × memory/vcores), 640g/160, "
                "memory-mb=655360,vcores=160, or YARN's \"655360 mb, 160 vcores\"; every "
                "resource type must be given.")


class ClusterSizeError(ValueError):
    """What is wrong with a ``--cluster`` value (the option's name is the caller's to add)."""


def parse_cluster(text: str, types: ResourceTypes) -> Resource:
    """The cluster's total resources described by ``text`` (see the module docstring)."""
    nodes, rest = 1, text
    if (counted := _COUNT.fullmatch(text)) is not None:
        nodes, rest = int(counted.group(1)), counted.group(2)
        if nodes == 0:
            raise ClusterSizeError(f"{text!r}: a cluster of 0 nodes has nothing to share")
    values = _per_node(rest, types)
    missing = [name for name in types.names if name not in values]
    if missing:
        raise ClusterSizeError(
            f"{text!r} gives no {', '.join(missing)}: every resource type must be given "
            f"(a missing one would be 0, and YARN could place nothing that asks for it); "
            f"{EXAMPLES}"
        )
    total = {name: value * nodes for name, value in values.items()}
    too_big = [name for name, value in total.items() if value > LONG_MAX]
    if too_big:
        raise ClusterSizeError(f"{text!r}: the cluster's {too_big[0]} is more than YARN's "
                               f"largest amount ({LONG_MAX:,}, a Java long)")
    return types.of(total)


def cluster_option(text: str, types: ResourceTypes) -> Resource:
    """``--cluster``'s value, or exit 2 with ``--cluster: what is wrong``."""
    try:
        return parse_cluster(text, types)
    except ClusterSizeError as exc:
        raise fail([f"--cluster: {exc}"]) from None


def _per_node(text: str, types: ResourceTypes) -> dict[str, int]:
    if "=" not in text and "/" not in text and _YARN_FORM.search(text) is not None:
        return _yarn_form(text, types)
    pieces = [p.strip() for p in text.split(",")]
    if not pieces[0] or "=" in pieces[0]:
        named = pieces
        values: dict[str, int] = {}
    else:
        named = pieces[1:]
        values = _short_form(pieces[0])
    for piece in named:
        name, equals, value = (part.strip() for part in piece.partition("="))
        if not equals or not name:
            raise ClusterSizeError(f"{piece!r} is not NAME=VALUE; {EXAMPLES}")
        if name not in types.names:
            raise ClusterSizeError(
                f"unknown resource type {name!r} (this configuration has {', '.join(types.names)})"
            )
        if name in values:
            raise ClusterSizeError(f"{name} is given twice")
        values[name] = _memory_mb(value) if name == MEMORY else _whole(name, value)
    return values


def _yarn_form(text: str, types: ResourceTypes) -> dict[str, int]:
    """``65536 mb, 16 vcores`` as YARN reads a max share in that form; it has only memory and
    vcores (custom types are 0 in it), so a configuration with more types needs NAME=VALUE."""
    if "%" in text:
        raise ClusterSizeError(f"{text!r} is a percentage, a share of a cluster, not its size; "
                               f"{EXAMPLES}")
    try:
        parsed = parse_resource_config(text, types, missing="zero")
    except ResourceStringError as exc:
        raise ClusterSizeError(f"{text!r}: {exc}; {EXAMPLES}") from None
    assert parsed.absolute is not None  # no "%" (refused above): the absolute form
    if len(types.names) > 2:
        raise ClusterSizeError(
            f"{text!r} gives no {', '.join(types.names[2:])}: YARN's \"mb, vcores\" form has no "
            f"other resource types, so give every type as NAME=VALUE (memory-mb=…,vcores=…,"
            f"{types.names[2]}=…)")
    return {MEMORY: parsed.absolute.memory, VCORES: parsed.absolute.vcores}


def _short_form(text: str) -> dict[str, int]:
    memory, slash, vcores = (part.strip() for part in text.partition("/"))
    if not slash:
        raise ClusterSizeError(f"{text!r}: give memory/vcores, {EXAMPLES}")
    return {MEMORY: _memory_mb(memory), VCORES: _whole(VCORES, vcores)}


def _memory_mb(text: str) -> int:
    match = _MEMORY.fullmatch(text)
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in _MB_PER_UNIT:
        raise ClusterSizeError(
            f"memory {text!r}: give a number with an optional unit m, g or t (binary: "
            f"1g = 1024 MB), e.g. 64g"
        )
    mb = Decimal(match.group(1)) * _MB_PER_UNIT[unit]  # exact: no float rounding or overflow
    if mb != mb.to_integral_value():
        raise ClusterSizeError(f"memory {text!r} is not a whole number of MB")
    return int(mb)


def _whole(name: str, text: str) -> int:
    if _WHOLE.fullmatch(text) is None:
        raise ClusterSizeError(f"{name} {text!r}: give a whole number, e.g. {name}=16")
    return int(text)

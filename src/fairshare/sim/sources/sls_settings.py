"""SLS's own sizes, read from the scenario's ``site`` properties under SLS's names.

SLS reads them from ``sls-runner.xml`` (``SLSConfiguration``, ``NMRunner``, ``SLSRunner``); a
scenario gives them in its ``site`` map, read with Hadoop ``Configuration`` rules (trimmed,
``0x`` hex, ``getInt`` / ``getLong`` ranges):

=====================================  =======  ==============================================
property                               default  what
=====================================  =======  ==============================================
``yarn.sls.nm.memory.mb``              10240    memory of a node without its own size (getInt)
``yarn.sls.nm.vcores``                 10       vcores of such a node (getInt)
``yarn.sls.nm.<type>``                 0        any other resource type of such a node (getLong)
``yarn.sls.container.memory.mb``       1024     a task container's memory unless the trace
                                                gives ``container.memory-mb`` (getInt)
``yarn.sls.container.vcores``          1        a task container's vcores (getInt)
``yarn.sls.am.container.memory``       1024     an AM container's memory unless the job gives
                                                ``am.memory-mb`` (getLong)
``yarn.sls.am.container.vcores``       1        an AM container's vcores (getInt)
=====================================  =======  ==============================================

SLS reads ``yarn.sls.nm.<type>`` only for types declared in ``yarn.resource-types``; here every
``yarn.sls.nm.<type>`` property names a type, and an undeclared one is reported when the cluster
is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from fairshare.config.hadoopconf import conf_int
from fairshare.resources.javalang import java_trim
from fairshare.sim.sources.values import RESOURCE_NAME
from fairshare.sim.specs import Resources

__all__ = ["SlsSettings", "sls_settings"]

NM = "yarn.sls.nm."
# yarn.sls.nm.* properties that are not a resource type ("memory-mb" is memory.mb's type)
_NM_SETTINGS = frozenset({"memory.mb", "memory-mb", "vcores", "heartbeat.interval.ms",
                          "resource.utilization.ratio"})


@dataclass(frozen=True)
class SlsSettings:
    """Sizes SLS uses where a trace gives none (defaults as in ``SLSConfiguration``)."""

    node: Resources = field(default_factory=lambda: {"memory-mb": 10240, "vcores": 10})
    container: Resources = field(default_factory=lambda: {"memory-mb": 1024, "vcores": 1})
    am: Resources = field(default_factory=lambda: {"memory-mb": 1024, "vcores": 1})


def sls_settings(site: Mapping[str, str]) -> tuple[SlsSettings, list[tuple[str, str]]]:
    """The settings of a scenario's ``site`` texts, and ``(property, message)`` for each bad one
    (its default is used in its place)."""
    problems: list[tuple[str, str]] = []

    def number(key: str, default: int, bits: int = 32) -> int:
        text = site.get(key)
        if text is None:
            return default
        getter = "getInt" if bits == 32 else "getLong"
        try:
            value = conf_int(java_trim(text), bits)
        except ValueError:
            problems.append((key, f"must be an integer (SLS reads it with {getter}), "
                                  f"got {text!r}"))
            return default
        if value < 0:
            problems.append((key, f"must not be negative, got {value}"))
            return default
        return value

    node = {"memory-mb": number(NM + "memory.mb", 10240), "vcores": number(NM + "vcores", 10)}
    for key in site:
        name = key[len(NM):]
        if key.startswith(NM) and name not in _NM_SETTINGS and RESOURCE_NAME.fullmatch(name):
            node[name] = number(key, 0, 64)
    container = {"memory-mb": number("yarn.sls.container.memory.mb", 1024),
                 "vcores": number("yarn.sls.container.vcores", 1)}
    am = {"memory-mb": number("yarn.sls.am.container.memory", 1024, 64),
          "vcores": number("yarn.sls.am.container.vcores", 1)}
    return SlsSettings(node, container, am), problems

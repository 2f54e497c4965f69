"""SLS's own sizes, read from the scenario's ``site-file`` and ``site`` under SLS's names.

SLS reads them from ``sls-runner.xml`` (``SLSConfiguration``, ``NMRunner``, ``SLSRunner``); a
scenario gives them in the file named by ``site-file`` (an ``sls-runner.xml`` or a
``yarn-site.xml``: its ``yarn.sls.*`` properties, ``${var}`` expanded) and in its ``site`` map,
which wins over the file as ``Configuration.set`` wins over a resource. Both are read with Hadoop
``Configuration`` rules (trimmed, ``0x`` hex, ``getInt`` / ``getLong`` ranges):

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
from pathlib import Path

from fairshare.config.errors import ConfigError, all_errors
from fairshare.config.hadoopconf import SubstitutionTooDeep, conf_int, read_entries, substitute
from fairshare.resources.javalang import java_trim
from fairshare.sim.parse.specs import Resources
from fairshare.sim.sources.values import RESOURCE_NAME

__all__ = ["SlsSettings", "sls_settings"]

PREFIX = "yarn.sls."  # SLSConfiguration.PREFIX
NM = PREFIX + "nm."
# yarn.sls.nm.* properties that are not a resource type ("memory-mb" is memory.mb's type)
_NM_SETTINGS = frozenset({"memory.mb", "memory-mb", "vcores", "heartbeat.interval.ms",
                          "resource.utilization.ratio"})


@dataclass(frozen=True)
class SlsSettings:
    """Sizes SLS uses where a trace gives none (defaults as in ``SLSConfiguration``)."""

    node: Resources = field(default_factory=lambda: {"memory-mb": 10240, "vcores": 10})
    container: Resources = field(default_factory=lambda: {"memory-mb": 1024, "vcores": 1})
    am: Resources = field(default_factory=lambda: {"memory-mb": 1024, "vcores": 1})


def sls_settings(site: Mapping[str, str], site_file: Path | None = None,
                 display: str = "") -> tuple[SlsSettings, list[tuple[str, str]],
                                             list[ConfigError]]:
    """The settings of a scenario's ``site`` texts over the ``yarn.sls.*`` properties of its
    ``site_file`` (named ``display`` in errors); ``(property, message)`` for each bad ``site``
    value and an error at its line for each bad value of the file, or the file's own errors
    (its default is used in place of a bad value)."""
    try:
        in_file = _sls_properties(site_file, display) if site_file is not None else {}
    except ConfigError as error:
        return SlsSettings(), [], all_errors(error)
    merged = {**{key: value for key, (value, _) in in_file.items()}, **site}
    settings, problems = _settings(merged)
    errors = [ConfigError(f"{key}: {message}", display, in_file[key][1])
              for key, message in problems if key not in site]
    return settings, [(key, message) for key, message in problems if key in site], errors


def _sls_properties(path: Path, display: str) -> dict[str, tuple[str, int | None]]:
    """``yarn.sls.*`` property → (value, line) of a site file, as ``Configuration`` holds it."""
    entries, _ = read_entries(path, display)  # the file's warnings are the site reader's
    found = {}
    for name, entry in entries.items():
        if name.startswith(PREFIX):
            try:
                found[name] = (substitute(entry.value, entries), entry.line)
            except SubstitutionTooDeep as exc:
                raise ConfigError(f"{name}: {exc}", display, entry.line) from None
    return found


def _settings(site: Mapping[str, str]) -> tuple[SlsSettings, list[tuple[str, str]]]:
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

"""Hadoop's ``Configuration`` semantics for ``*-site.xml`` files, as the Fair Scheduler sees them.

* Every ``<property>`` element counts, wherever it sits; ``name``/``value``/``final`` come from
  child elements or attributes (children win). The name is trimmed, the value is not, an empty
  ``<value/>`` sets nothing, and ``final`` must be exactly ``true``.
* A later definition replaces an earlier one unless the earlier was final (then it is ignored
  and we warn); a final property without a value still freezes its name.
* ``${name}`` expands from the same configuration, first reference first, at most 20 rounds
  (``Configuration.substituteVars``). Java system properties are not consulted — a simulation has
  no JVM — and environment variables are treated as unset, so that a run never depends on the
  shell it starts from: ``${env.X:-def}`` and ``${env.X-def}`` give ``def``, as Hadoop does for an
  unset variable, and ``${env.X}`` falls back to a property named ``env.X``, else stays literal,
  as Hadoop leaves any unbound reference.
* ``<xi:include>`` is not followed (Hadoop reads the included file); each one gets a warning.
* Getters trim, then parse like ``Integer.parseInt``/``Long.parseLong`` (``[-]0x`` = hex) or
  ``Float.parseFloat``; a boolean that is neither ``true`` nor ``false`` means the default.

:class:`ConfReader` collects problems instead of raising, so one run reports all of them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from fairshare.config.dom import dom_tag, line_of
from fairshare.config.errors import ConfigError, ConfigErrors
from fairshare.config.model import ConfigWarning
from fairshare.config.xml import Element, parse_xml_file
from fairshare.resources.javalang import (
    equals_ignore_case,
    java_trim,
    parse_float,
    parse_int,
    shorten,
)
from fairshare.resources.vector import float32

MAX_SUBST = 20  # Configuration.MAX_SUBST
OVERRIDES = "<overrides>"  # the "file" of values set programmatically (Configuration.set)
_VARIABLE = re.compile(r"\$\{([^}$ ]+)\}")


@dataclass(frozen=True, slots=True)
class ConfEntry:
    """One property's raw (unsubstituted) value and where it was set."""

    value: str
    file: str | None
    line: int | None


class SubstitutionTooDeep(Exception):
    """``${var}`` expansion needed more than :data:`MAX_SUBST` rounds (Hadoop throws)."""


def read_site_xml(path: str | Path) -> dict[str, tuple[str, int | None]]:
    """``name -> (value, line)`` as Hadoop's ``Configuration`` would hold the file's properties."""
    entries, _ = read_entries(path, str(path))
    result: dict[str, tuple[str, int | None]] = {}
    for name, entry in entries.items():
        try:
            result[name] = (substitute(entry.value, entries), entry.line)
        except SubstitutionTooDeep as exc:
            raise ConfigError(f"{name}: {exc}", entry.file, entry.line) from None
    return result


def read_entries(path: str | Path, label: str) -> tuple[dict[str, ConfEntry], list[ConfigWarning]]:
    """The raw properties of one file, with ``final`` applied; ``label`` names it in messages."""
    try:
        root = parse_xml_file(path)
    except ConfigError as exc:
        raise ConfigError(exc.message, label, exc.line) from None
    warnings = []
    if _local_name(root) == "allocations":
        raise ConfigError(
            "this is a Fair Scheduler allocation file (top-level <allocations>, like "
            "fair-scheduler.xml), not a Hadoop site file (yarn-site.xml, top-level "
            "<configuration>): give it as the allocation file, and the site file as the site "
            "file (--site, or a scenario's site-file)",
            label,
            line_of(root),
        )
    if _local_name(root) != "configuration":
        message = f"top-level element is <{_local_name(root)}>, not <configuration>"
        warnings.append(ConfigWarning(
            message, label, consequence="Hadoop's Configuration reads its <property> elements "
            "anyway", fix="make the top-level element <configuration>"))
    entries: dict[str, ConfEntry] = {}
    finals: set[str] = set()
    for element in root.iter():
        if _local_name(element) == "include":
            warnings.append(_include_warning(element, label))
        if _local_name(element) != "property" or (prop := _property(element)) is None:
            continue
        name, value, final = prop
        line = line_of(element)
        if name in finals:  # Configuration.loadProperty: a final value cannot be replaced
            if value is not None and (name not in entries or entries[name].value != value):
                message = f"{name} is final; this later definition is ignored"
                warnings.append(ConfigWarning(
                    message, label, line, consequence="Configuration.loadProperty keeps a "
                    "final value: the earlier one stays in force",
                    fix="remove this definition, or the <final> of the earlier one"))
        elif value is not None:
            entries[name] = ConfEntry(value, label, line)
        if final:
            finals.add(name)
    return entries, warnings


def _local_name(element: Element) -> str:
    """The tag as Hadoop's namespace-aware StAX reader sees it: without any prefix."""
    return dom_tag(element).rpartition(":")[2]


def _include_warning(element: Element, label: str) -> ConfigWarning:
    href = shorten(element.get("href") or "", 80)
    return ConfigWarning(
        f"<{dom_tag(element)} href={href!r}> is not followed", label, line_of(element),
        consequence="fairshare does not read included files (Hadoop does), so the properties "
        "in it are missing here and take their defaults",
        fix="copy the included properties into the file given to fairshare")


def _property(element: Element) -> tuple[str, str | None, bool] | None:
    """Name, value and final flag of one ``<property>``; children win over attributes."""
    name, value = element.get("name"), element.get("value")
    final = element.get("final") == "true"
    for child in element.iter():
        tag = _local_name(child)
        text = "".join(t for t in child.itertext() if isinstance(t, str))
        if tag == "name" and text:
            name = java_trim(text)
        elif tag == "value" and text:
            value = text
        elif tag == "final":
            final = text == "true"
    return None if name is None else (name, value, final)


def substitute(expr: str, entries: Mapping[str, ConfEntry]) -> str:
    """``Configuration.substituteVars``: expand the first ``${var}``, again, up to 20 times."""
    current = expr
    for _ in range(MAX_SUBST):
        match = _VARIABLE.search(current)
        if match is None:
            return current
        value = _env_default(match.group(1))
        if value is None:
            entry = entries.get(match.group(1))
            if entry is None:
                return current  # unbound: it, and everything after it, stays literal
            value = entry.value
        if match.group(0) in value:
            return expr  # a self-reference: Hadoop gives up and returns the original text
        current = current[: match.start()] + value + current[match.end() :]
    # Hadoop throws after the 20th substitution even when nothing is left to expand.
    raise SubstitutionTooDeep(f"Variable substitution depth too large: {MAX_SUBST} {expr}")


def _env_default(name: str) -> str | None:
    """The value of ``${env.X:-def}`` / ``${env.X-def}`` with X unset (environment variables are
    treated as unset): ``def``. None for any other name, ``${env.X}`` included, which Hadoop then
    looks up as a property. ``:-`` also replaces an empty variable; the first ``-`` ends X."""
    if not name.startswith("env.") or len(name) <= 4:
        return None
    rest = name[4:]
    for i, char in enumerate(rest):
        if char == ":" and rest[i + 1 : i + 2] == "-":
            return rest[i + 2 :]
        if char == "-":
            return rest[i + 1 :]
    return None


# --- Java value parsing -----------------------------------------------------------------------


def conf_int(text: str, bits: int = 32) -> int:
    """``getInt``/``getLong`` on trimmed text: ``[-]0x…`` is hex, so ``0x-5`` is -5 as in Java."""
    negative = text.startswith("-")
    body = text[1:] if negative else text
    if body.startswith(("0x", "0X")):
        return parse_int(("-" if negative else "") + body[2:], bits=bits, radix=16)
    return parse_int(text, bits=bits)


def java_string(key: str, value: object) -> str:
    """An override value as ``Configuration.set`` would store it (bool/int/float/str only)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if value.bit_length() > 8192:  # no Java number has this many digits; str() would refuse
            raise ConfigError(f"override {key}: the integer is far too large", OVERRIDES)
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if math.isinf(value):
            return "-Infinity" if value < 0 else "Infinity"
        return float.__repr__(value)  # plain digits, also for float subclasses
    if isinstance(value, str):
        return value
    kind = type(value).__name__
    raise ConfigError(f"override {key}: a {kind} is not a bool, int, float or str", OVERRIDES)


# --- typed getters that collect problems ------------------------------------------------------


class ConfReader:
    """``Configuration`` getters over merged properties; errors and warnings are collected."""

    def __init__(self, entries: dict[str, ConfEntry], warnings: list[ConfigWarning]) -> None:
        self.entries = entries
        self.errors: list[ConfigError] = []
        self.warnings = warnings

    def _where(self, key: str) -> tuple[str | None, int | None]:
        entry = self.entries.get(key)
        return (None, None) if entry is None else (entry.file, entry.line)

    def error(self, key: str, message: str) -> None:
        self.errors.append(ConfigError(message, *self._where(key)))

    def warn(self, key: str, message: str, *, code: str = "config", consequence: str = "",
             fix: str = "") -> None:
        self.warnings.append(ConfigWarning(message, *self._where(key), code=code,
                                           consequence=consequence, fix=fix))

    def get(self, key: str) -> str | None:
        """``Configuration.get``: substituted, untrimmed; a too-deep expansion is an error."""
        entry = self.entries.get(key)
        if entry is None:
            return None
        try:
            return substitute(entry.value, self.entries)
        except SubstitutionTooDeep as exc:
            self.error(key, f"{key}: {exc}")
            return None

    def trimmed(self, key: str) -> str | None:
        value = self.get(key)
        return None if value is None else java_trim(value)

    def boolean(self, key: str, default: bool) -> bool:
        text = self.trimmed(key)
        if not text:
            return default
        if equals_ignore_case(text, "true"):
            return True
        if equals_ignore_case(text, "false"):
            return False
        fallback = "true" if default else "false"
        self.warn(
            key,
            f"{key}={shorten(text)!r} is neither true nor false",
            consequence=f"Configuration.getBoolean falls back to the default, {fallback}",
            fix="write true or false",
        )
        return default

    def integer(self, key: str, default: int, *, bits: int = 32, soft: str = "") -> int:
        """``getInt`` (32 bits) or ``getLong`` (64); ``soft``: why a bad value only warns."""
        text = self.trimmed(key)
        if text is None:
            return default
        try:
            return conf_int(text, bits)
        except ValueError:
            self._bad(key, text, "an int" if bits == 32 else "a long", soft)
            return default

    def floating(self, key: str, default: float, *, soft: str = "") -> float:
        """``getFloat``, as float32."""
        text = self.trimmed(key)
        if text is None:
            return float32(default)
        try:
            return parse_float(text)  # Float.parseFloat, as float32
        except ValueError:
            self._bad(key, text, "a float", soft)
            return float32(default)

    def _bad(self, key: str, text: str, kind: str, soft: str) -> None:
        message = f"{key}={shorten(text)!r} is not {kind}"
        if soft:
            self.warn(key, message, consequence=f"{soft}, so the default applies",
                      fix=f"write {kind}")
        else:
            self.error(key, message)

    def raise_errors(self) -> None:
        if len(self.errors) == 1:
            raise self.errors[0]
        if self.errors:
            raise ConfigErrors(self.errors)

"""Values in trace files read the way Hadoop's SLS reads them, and errors collected per file.

SLS reads most numbers of a JSON job as ``Long.parseLong(value.toString())`` or
``Integer.parseInt(…)``: a JSON integer or a string of digits is fine, ``1.5``, ``1e3`` (a double
to Jackson, so ``"1000.0"``) or ``true`` are not. :func:`java_long` and :func:`java_int` accept
exactly that. Names read with a ``(String)`` cast must be JSON strings (:func:`java_string`);
those read with ``toString()`` may also be numbers (:func:`java_text`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NoReturn

from pydantic import ConfigDict

from fairshare.config.errors import ConfigError, ConfigErrors
from fairshare.config.model import ConfigWarning
from fairshare.config.yarnsite import RESOURCE_NAME
from fairshare.resources.javalang import parse_int
from fairshare.sim.parse.scenario_schema import SchemaModel
from fairshare.sim.parse.yaml_lines import (
    Loc,
    Problem,
    YamlDoc,
    not_a_string,
    render_path,
    scalar_text,
    show,
    suggest,
)

__all__ = [
    "RESOURCE_NAME",
    "Bad",
    "FileErrors",
    "JsonModel",
    "add_problems",
    "java_int",
    "java_long",
    "java_string",
    "java_text",
    "non_negative",
    "resource_key",
    "unknown_key",
]

MAX_ERRORS = 20  # per file; a broken trace would otherwise print thousands of lines



class JsonModel(SchemaModel):
    """A JSON object of a trace file: keys as written (no ``_`` → ``-``), unknown keys refused
    with a "did you mean" (:mod:`fairshare.sim.parse.scenario_schema`)."""

    model_config = ConfigDict(extra="allow", alias_generator=None, frozen=True)


class Bad(Exception):
    """A wrong value at ``loc`` of the record being read (``loc`` empty: the record itself)."""

    def __init__(self, loc: Loc, message: str) -> None:
        super().__init__(message)
        self.loc = loc
        self.message = message


def java_long(value: Any, loc: Loc, bits: int = 64) -> int:
    """``Long.parseLong(value.toString())`` (``bits=32``: ``Integer.parseInt``)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
            return value
    elif isinstance(value, str):
        try:
            return parse_int(value, bits=bits)
        except ValueError:
            pass
    kind = "an integer" if bits == 64 else "a 32-bit integer"
    raise Bad(loc, f"must be {kind}, got {show(value)}")


def java_int(value: Any, loc: Loc) -> int:
    return java_long(value, loc, bits=32)


def non_negative(value: Any, loc: Loc) -> int:
    amount = java_long(value, loc)
    if amount < 0:
        raise Bad(loc, f"must not be negative, got {amount}")
    return amount


def java_string(value: Any, loc: Loc) -> str:
    """A value SLS casts to ``String``: a non-empty JSON string."""
    if not isinstance(value, str):
        raise Bad(loc, not_a_string(value))
    if not value.strip():
        raise Bad(loc, f"must be a non-empty name, got {show(value)}")
    return value


def java_text(value: Any, loc: Loc) -> str:
    """A value SLS reads with ``toString()``: a non-empty string, or a number as text."""
    text = scalar_text(value)
    if text is None:
        raise Bad(loc, not_a_string(value))
    if not text.strip():
        raise Bad(loc, f"must be a non-empty name, got {show(text)}")
    return text


def resource_key(key: str, prefix: str, known: Iterable[str]) -> str | None:
    """The resource type named by ``prefix + type`` (``container.yarn.io/gpu``), or None when
    ``key`` is not one: another prefix, not a resource name, or a misspelt known key (then a
    "did you mean" is the caller's). Only the names after the prefix are compared, so that
    ``container.gpu`` is a type and ``container.memory`` a slip for ``container.memory-mb``."""
    if not key.startswith(prefix):
        return None
    name = key[len(prefix):]
    names = [k[len(prefix):] for k in known if k.startswith(prefix)]
    if not RESOURCE_NAME.fullmatch(name):
        return None
    if name in names or "/" in name or not suggest(name, names, cutoff=0.75):
        return name
    return None


def unknown_key(key: str, known: Iterable[str]) -> str:
    return f"unknown key '{key}'{suggest(key, known)}"


class FileErrors:
    """The errors found in one file, each ``file:line: message``, at most :data:`MAX_ERRORS`;
    and its warnings (what SLS accepts and fairshare reads as SLS would, or doubts), at most
    as many, raised along with the errors or returned with what was loaded."""

    def __init__(self, display: str) -> None:
        self.display = display
        self.errors: list[ConfigError] = []
        self.more = 0
        self.warnings: list[ConfigWarning] = []
        self.more_warnings = 0

    def warn(self, message: str, line: int | None) -> None:
        if len(self.warnings) < MAX_ERRORS:
            self.warnings.append(ConfigWarning(message, self.display, line))
        else:
            self.more_warnings += 1

    def all_warnings(self) -> tuple[ConfigWarning, ...]:
        """The warnings, and a last one counting those left out."""
        more = ((ConfigWarning(f"{self.more_warnings} more warnings like these", self.display),)
                if self.more_warnings else ())
        return (*self.warnings, *more)

    @property
    def full(self) -> bool:
        return len(self.errors) >= MAX_ERRORS

    def add(self, message: str, line: int | None) -> None:
        if self.full:
            self.more += 1
        else:
            self.errors.append(ConfigError(message, self.display, line))

    def fail(self) -> NoReturn:
        """Raise the errors found (there must be some)."""
        self.raise_any()
        raise AssertionError("FileErrors.fail without errors")

    def raise_any(self) -> None:
        if not self.errors:
            return
        errors = list(self.errors)
        if self.full:
            errors.append(ConfigError(f"stopped after {len(self.errors)} errors", self.display))
        raise ConfigErrors(errors, self.all_warnings())



def add_problems(errors: FileErrors, problems: Iterable[Problem], doc: YamlDoc,
                 prefix: str = "") -> None:
    """Pydantic problems of one record (located in ``doc``) as ``file:line`` errors."""
    for problem in problems:
        if errors.full:  # no line to look up for an error that will not be shown
            errors.add("", None)
            continue
        line = problem.line or doc.line(problem.loc)
        path = render_path(problem.loc[:-1] if problem.parent else problem.loc)
        errors.add(prefix + (f"{path}: {problem.message}" if path else problem.message), line)

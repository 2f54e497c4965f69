"""Expectations: the snapshot's fields, what an ``expect`` step may say, and the matcher.

:data:`SNAPSHOT_FIELDS` is the one list of what a snapshot records for the cluster and for each
queue, app and node (the contract's "Snapshot" section); the snapshot builder and ``expect`` both
read it. Each field has a :class:`Kind`, which says what an expected value may look like:

* ``NUMBER``: a number (exact equality), or a *matcher* ``{at-least: x}``, ``{at-most: x}``, both
  (a range), or ``{approx: x, tol: t}`` (``|actual − x| ≤ t``). ``tol`` is required with
  ``approx``: a silent default tolerance would make ``{approx: 0.333}`` pass or fail by accident.
* ``RESOURCE``: a map resource type → number or matcher; only the types given are compared.
* ``RESOURCES_BY_APP``: a map app → resource (``earmarked``); only the apps given are compared.
* ``TEXT`` / ``BOOL``: equality (a number given for a text field is compared as its text).

``null`` is accepted for every field and matches only null (``min-share-starved-since-ms: null``
asserts the queue is not starved). An expectation with no fields asserts that its subject exists.

:func:`validate_expectation` checks an ``expect`` step's shape at parse time, returning problems
located relative to the step; :func:`check` compares validated fields with a snapshot entry.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal

from fairshare.sim.parse.yaml_lines import Loc, Problem, not_a_string, scalar_text, show, suggest

__all__ = [
    "MATCHER_KEYS",
    "SNAPSHOT_FIELDS",
    "SUBJECT_SECTIONS",
    "Expectation",
    "Kind",
    "Mismatch",
    "SubjectKind",
    "check",
    "validate_expectation",
]


class Kind(Enum):
    """What a snapshot field holds (and so what an expectation of it may look like)."""

    NUMBER = "number"
    TEXT = "text"
    BOOL = "bool"
    RESOURCE = "resource"
    RESOURCES_BY_APP = "resources-by-app"
    METRICS = "metrics"  # YARN metric name → number or text (docs/semantics.md §6.1)


N, T, B, R = Kind.NUMBER, Kind.TEXT, Kind.BOOL, Kind.RESOURCE

SNAPSHOT_FIELDS: Mapping[str, Mapping[str, Kind]] = {
    "cluster": {
        "capacity": R, "allocated": R, "reserved": R, "utilization": N, "apps-submitted": N,
        "apps-running": N, "apps-pending": N, "apps-completed": N, "containers-allocated": N,
        # beyond the contract
        "apps-killed": N, "apps-rejected": N, "nodes": N,
    },
    "queues": {
        "type": T, "policy": T, "weight": N, "preemptable": B, "dynamic": B,
        "steady-fair-share": R, "fair-share": R, "min-share": R, "max-share": R, "usage": R,
        "demand": R, "reserved": R, "am-usage": R, "max-am-share": R,
        "max-am-share-fraction": N, "num-active-apps": N, "num-pending-apps": N,
        "num-runnable-apps": N, "num-non-runnable-apps": N, "containers-preempted": N,
        "min-share-starved-since-ms": N,
        # beyond the contract
        "metrics": Kind.METRICS,
    },
    "apps": {
        "queue": T, "user": T, "state": T, "runnable": B, "am-running": B, "usage": R,
        "demand": R, "fair-share": R, "live-containers": N, "reserved-containers": N,
        "fairshare-starvation": R, "minshare-starvation": R, "starved": B,
        "to-be-preempted": R, "preempted-containers": N, "preempted-am-containers": N,
        "rejection-reason": T,
        # beyond the contract
        "attempt": N, "start-time-ms": N, "below-fair-share": B,
        "to-be-preempted-containers": N, "preempted-resource": R,
    },
    "nodes": {
        "rack": T, "capacity": R, "allocated": R, "unallocated": R, "containers": N,
        "am-containers": N, "reserved-by": T, "earmarked": Kind.RESOURCES_BY_APP,
        # beyond the contract
        "marked-for-preemption": N,
    },
}
"""Section of the snapshot → field → kind: the contract's names, then the fields we add."""

SubjectKind = Literal["app", "node", "queue", "cluster"]
SUBJECT_SECTIONS: Mapping[SubjectKind, str] = {
    "app": "apps", "node": "nodes", "queue": "queues", "cluster": "cluster",
}
_NAMED_SUBJECTS: tuple[SubjectKind, ...] = ("app", "node", "queue")

# Text fields whose values the contract enumerates.
_TEXT_VALUES: Mapping[str, tuple[str, ...]] = {
    "type": ("leaf", "parent"),
    "state": ("accepted", "running", "finished", "killed", "rejected"),
}
MATCHER_KEYS = ("at-least", "at-most", "approx", "tol")
_RESOURCE_NAMES = ("memory-mb", "vcores")


@dataclass(frozen=True)
class Expectation:
    """A validated ``expect`` step: the subject (``None`` for the cluster) and its fields."""

    subject_kind: SubjectKind
    subject: str | None
    fields: dict[str, Any]


@dataclass(frozen=True)
class Mismatch:
    """A failed comparison at ``path`` (``usage.memory-mb``). ``absent`` means the snapshot has
    no such key (``actual`` is then None)."""

    path: str
    expected: Any
    actual: Any
    absent: bool = False

    def describe(self) -> str:
        """``usage.memory-mb: expected at least 3072, got 2048``."""
        wanted = _render_expected(self.expected)
        if self.absent:
            return f"{self.path}: expected {wanted}, but it is absent"
        return f"{self.path}: expected {wanted}, got {_render(self.actual)}"


# ---- parse-time validation ---------------------------------------------------------------------


def validate_expectation(args: Any) -> tuple[Expectation | None, list[Problem]]:
    """Check an ``expect`` step's map; problems have locs relative to it."""
    if not isinstance(args, dict):
        message = f"must be a map like {{app: a1, state: running}}, got {show(args)}"
        return None, [Problem((), message)]
    problems: list[Problem] = []
    kind, subject = _subject(args, problems)
    if kind is None:
        return None, problems
    known = SNAPSHOT_FIELDS[SUBJECT_SECTIONS[kind]]
    fields: dict[str, Any] = {}
    for name, value in args.items():
        if name == kind:
            continue
        if name not in known:
            hint = suggest(name, known)
            problems.append(Problem((name,), f"unknown {kind} field '{name}'{hint}", parent=True))
            continue
        fields[name] = _value(known[name], name, value, (name,), problems)
    if problems:
        return None, problems
    return Expectation(kind, subject, fields), []


def _subject(
    args: dict[str, Any], problems: list[Problem]
) -> tuple[SubjectKind | None, str | None]:
    for kind in _NAMED_SUBJECTS:
        if kind in args:
            name = scalar_text(args[kind])
            if not name:
                problems.append(Problem((kind,), f"must be a name, got {show(args[kind])}"))
            return kind, name
    if "cluster" in args:
        if args["cluster"] is not True:
            problems.append(Problem(("cluster",), f"must be true, got {show(args['cluster'])}"))
        return "cluster", None
    problems.append(Problem((), "needs a subject: 'app', 'node', 'queue' or 'cluster: true'"))
    return None, None


def _value(kind: Kind, name: str, value: Any, loc: Loc, problems: list[Problem]) -> Any:
    if value is None:
        return None
    if kind is Kind.NUMBER:
        return _number(value, loc, problems)
    if kind is Kind.BOOL:
        if not isinstance(value, bool):
            problems.append(Problem(loc, f"must be true or false, got {show(value)}"))
        return value
    if kind is Kind.TEXT:
        return _text_value(name, value, loc, problems)
    if kind is Kind.RESOURCE:
        return _resource(value, loc, problems)
    if kind is Kind.METRICS:
        return _metrics(value, loc, problems)
    return _resources_by_app(value, loc, problems)


def _metrics(value: Any, loc: Loc, problems: list[Problem]) -> Any:
    if not isinstance(value, dict) or not value:
        message = f"must be a map of YARN metric names, like {{AppsRunning: 2}}, got {show(value)}"
        problems.append(Problem(loc, message))
        return value
    for name, expected in value.items():
        if not isinstance(expected, str):
            _number(expected, (*loc, name), problems)
    return value


def _text_value(name: str, value: Any, loc: Loc, problems: list[Problem]) -> Any:
    text = scalar_text(value)
    allowed = _TEXT_VALUES.get(name)
    if text is None:
        problems.append(Problem(loc, not_a_string(value)))
    elif allowed is not None and text not in allowed:
        hint = suggest(text, allowed) or f" (one of {', '.join(allowed)})"
        problems.append(Problem(loc, f"unknown {name} {show(text)}{hint}"))
    return text


def _number(value: Any, loc: Loc, problems: list[Problem]) -> Any:
    if isinstance(value, dict):
        _matcher(value, loc, problems)
    elif not _is_number(value):
        message = f"must be a number or a matcher like {{at-least: 3}}, got {show(value)}"
        problems.append(Problem(loc, message))
    return value


def _matcher(value: dict[str, Any], loc: Loc, problems: list[Problem]) -> None:
    before = len(problems)
    for key, bound in value.items():
        if key not in MATCHER_KEYS:
            hint = suggest(key, MATCHER_KEYS)
            problems.append(Problem((*loc, key), f"unknown matcher '{key}'{hint}", parent=True))
        elif not _is_number(bound) or (key == "tol" and bound < 0):
            what = "a non-negative number" if key == "tol" else "a number"
            problems.append(Problem((*loc, key), f"must be {what}, got {show(bound)}"))
    if len(problems) > before:
        return
    keys = set(value)
    if not keys:
        problems.append(Problem(loc, "an empty matcher: give 'at-least', 'at-most' or 'approx'"))
    elif "approx" in keys and keys & {"at-least", "at-most"}:
        problems.append(Problem(loc, "'approx' cannot be combined with 'at-least' or 'at-most'"))
    elif ("approx" in keys) != ("tol" in keys):
        problems.append(Problem(loc, "'approx' and 'tol' go together: {approx: x, tol: t}"))


def _resource(value: Any, loc: Loc, problems: list[Problem]) -> Any:
    if not isinstance(value, dict) or not value:
        got = "an empty map" if value == {} else show(value)
        message = f"must be a resource like {{memory-mb: 4096, vcores: 2}}, got {got}"
        problems.append(Problem(loc, message))
        return value
    for key, amount in value.items():
        if key in MATCHER_KEYS or suggest(key, MATCHER_KEYS, cutoff=0.8):
            message = (f"a resource is compared type by type, e.g. "
                       f"{{memory-mb: {{{key}: ...}}}}, not {{{key}: ...}}")
            problems.append(Problem((*loc, key), message))
        elif key not in _RESOURCE_NAMES and suggest(key, _RESOURCE_NAMES, cutoff=0.75):
            hint = suggest(key, _RESOURCE_NAMES, cutoff=0.75)
            problems.append(Problem((*loc, key), f"unknown resource type '{key}'{hint}",
                                    parent=True))
        else:
            _number(amount, (*loc, key), problems)
    return value


def _resources_by_app(value: Any, loc: Loc, problems: list[Problem]) -> Any:
    if not isinstance(value, dict) or not value:
        got = "an empty map" if value == {} else show(value)
        message = f"must be a map app → resource, like {{a1: {{memory-mb: 4096}}}}, got {got}"
        problems.append(Problem(loc, message))
        return value
    for app, resource in value.items():
        _resource(resource, (*loc, app), problems)
    return value


def _is_number(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return not isinstance(value, float) or math.isfinite(value)


# ---- matching ----------------------------------------------------------------------------------


def check(fields: Mapping[str, Any], actual: Mapping[str, Any]) -> list[Mismatch]:
    """Compare expected ``fields`` with a snapshot entry (kebab-case keys, resources as maps).

    Maps compare only the keys given (recursively); a key missing from ``actual`` is a mismatch
    with ``absent``; a matcher map (keys among :data:`MATCHER_KEYS`) compares a number; anything
    else compares by equality, booleans never equal to numbers.
    """
    return _match_map("", fields, actual)


def _match_map(
    prefix: str, expected: Mapping[str, Any], actual: Mapping[str, Any]
) -> list[Mismatch]:
    out: list[Mismatch] = []
    for key, wanted in expected.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if key not in actual:
            out.append(Mismatch(path, wanted, None, absent=True))
        else:
            out.extend(_match(path, wanted, actual[key]))
    return out


def _match(path: str, expected: Any, actual: Any) -> list[Mismatch]:
    if _is_matcher(expected):
        return [] if _number_matches(expected, actual) else [Mismatch(path, expected, actual)]
    if isinstance(expected, Mapping):
        if not isinstance(actual, Mapping):
            return [Mismatch(path, expected, actual)]
        return _match_map(path, expected, actual)
    return [] if _equal(expected, actual) else [Mismatch(path, expected, actual)]


def _is_matcher(value: Any) -> bool:
    return isinstance(value, Mapping) and bool(value) and all(k in MATCHER_KEYS for k in value)


def _number_matches(matcher: Mapping[str, Any], actual: Any) -> bool:
    if not _is_number(actual):
        return False
    if "approx" in matcher:
        return bool(abs(actual - matcher["approx"]) <= matcher.get("tol", 0))
    low, high = matcher.get("at-least"), matcher.get("at-most")
    return (low is None or actual >= low) and (high is None or actual <= high)


def _equal(expected: Any, actual: Any) -> bool:
    if isinstance(expected, bool) or isinstance(actual, bool):
        return expected is actual
    if _is_number(expected) and _is_number(actual):
        return bool(expected == actual)
    return type(expected) is type(actual) and bool(expected == actual)


def _render_expected(expected: Any) -> str:
    if not _is_matcher(expected):
        return _render(expected)
    if "approx" in expected:
        return f"{_render(expected['approx'])} ± {_render(expected.get('tol', 0))}"
    parts = [f"{word} {_render(expected[key])}"
             for key, word in (("at-least", "at least"), ("at-most", "at most")) if key in expected]
    return " and ".join(parts)


def _render(value: Any) -> str:
    if isinstance(value, Mapping):
        inner = ", ".join(f"{k}: {_render_expected(v)}" for k, v in value.items())
        return "{" + inner + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_render(v) for v in value) + "]"
    return show(value)

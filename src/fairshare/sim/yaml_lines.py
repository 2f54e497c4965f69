"""YAML with line numbers, and problems located as ``file:line: message``.

Scenario files are read with PyYAML's *safe* loader (plain data only: maps, lists, strings,
numbers, booleans, null), then walked node by node so that every mapping key and every sequence
item keeps the 1-based line where it starts. A value's place in the document is its *loc*, the
tuple of keys and indices leading to it (``("steps", 3, "submit", "queue")``), the same shape as a
pydantic error's ``loc``, so a validation error maps straight back to a line.

Deliberate strictness: duplicate keys are errors (YAML loaders silently keep the last), keys must
be plain scalars (their source text is the key: ``on: 1`` has key ``"on"``, not ``True``),
explicit tags other than YAML's core types are refused, and anchors/aliases are expanded under a
size budget so that a "billion laughs" document fails fast instead of eating memory. Timestamps
(``2024-01-01``) stay strings: no scenario value is a date.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from fairshare.config.errors import ConfigError

__all__ = [
    "MAX_SCENARIO_BYTES",
    "Loc",
    "Problem",
    "YamlDoc",
    "load_yaml",
    "locate",
    "read_text",
    "render_path",
    "scalar_text",
    "show",
    "suggest",
]

Loc = tuple[str | int, ...]

MAX_SCENARIO_BYTES = 16 * 1024 * 1024
MAX_VALUES = 1_000_000  # values after alias expansion
MAX_DEPTH = 64

_CORE = "tag:yaml.org,2002:"
_SCALAR_TAGS = frozenset(_CORE + t for t in ("str", "int", "float", "bool", "null"))
_TIMESTAMP = _CORE + "timestamp"


@dataclass(frozen=True)
class Problem:
    """One thing wrong at ``loc``. With ``parent`` the message is about key ``loc[-1]`` of the
    map at ``loc[:-1]`` (``steps[3].submit: unknown key 'quue'``); ``line`` overrides the line
    looked up from ``loc``."""

    loc: Loc
    message: str
    parent: bool = False
    line: int | None = None


@dataclass(frozen=True)
class YamlDoc:
    """A loaded document: plain Python ``value``, the line of every loc, the source text of every
    scalar (what Hadoop's Configuration would see for a site property), and the problems found
    while loading (duplicate keys)."""

    value: Any
    lines: dict[Loc, int]
    texts: dict[Loc, str]
    problems: tuple[Problem, ...]

    def line(self, loc: Loc) -> int:
        """The line of ``loc``, or of its nearest ancestor present in the document."""
        for end in range(len(loc), 0, -1):
            found = self.lines.get(loc[:end])
            if found is not None:
                return found
        return self.lines.get((), 1)


def read_text(path: Path) -> str:
    """A file's text (UTF-8, optional BOM); any problem reading it is a :class:`ConfigError`."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_SCENARIO_BYTES + 1)
    except (OSError, ValueError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ConfigError(f"cannot read file: {reason}", str(path)) from None
    if len(data) > MAX_SCENARIO_BYTES:
        raise ConfigError(f"file is too large (the limit is {MAX_SCENARIO_BYTES} bytes)", str(path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError("file is not UTF-8 text", str(path), line) from None


def load_yaml(text: str, source: str) -> YamlDoc:
    """Parse one YAML document; syntax errors raise :class:`ConfigError` at their line."""
    try:
        loader = yaml.SafeLoader(text)
    except yaml.YAMLError as exc:
        raise _syntax_error(exc, text, source) from None
    try:
        node = loader.get_single_node()
        walker = _Walker(loader, source)
        value = None if node is None else walker.walk(node, (), 0)
    except yaml.YAMLError as exc:
        raise _syntax_error(exc, text, source) from None
    except RecursionError:
        raise ConfigError(f"values nested more than {MAX_DEPTH} levels deep", source) from None
    finally:
        loader.dispose()
    if node is not None:
        walker.lines[()] = node.start_mark.line + 1
    return YamlDoc(value, walker.lines, walker.texts, tuple(walker.problems))


class _Walker:
    def __init__(self, loader: yaml.SafeLoader, source: str) -> None:
        self.loader = loader
        self.source = source
        self.lines: dict[Loc, int] = {}
        self.texts: dict[Loc, str] = {}
        self.problems: list[Problem] = []
        self.budget = MAX_VALUES
        self.active: set[int] = set()  # ids of the collections being walked (alias cycles)
        self.written: dict[int, set[int]] = {}  # mapping node id → ids of its own key nodes

    def walk(self, node: Node, loc: Loc, depth: int) -> Any:
        self.budget -= 1
        if self.budget < 0:
            raise self.error(node, f"more than {MAX_VALUES} values (after expanding aliases)")
        if depth > MAX_DEPTH:
            raise self.error(node, f"values nested more than {MAX_DEPTH} levels deep")
        if isinstance(node, ScalarNode):
            return self.scalar(node, loc)
        if id(node) in self.active:
            raise self.error(node, "an alias refers to a value that contains it")
        self.active.add(id(node))
        try:
            if isinstance(node, MappingNode):
                return self.mapping(node, loc, depth)
            if isinstance(node, SequenceNode):
                return self.sequence(node, loc, depth)
            raise self.error(node, "unsupported YAML node")
        finally:
            self.active.discard(id(node))

    def scalar(self, node: ScalarNode, loc: Loc) -> Any:
        self.texts[loc] = node.value
        if node.tag == _TIMESTAMP:
            return node.value
        if node.tag not in _SCALAR_TAGS:
            raise self.error(node, f"unsupported YAML tag {_tag(node.tag)}")
        try:
            return self.loader.construct_object(node, deep=True)
        except (yaml.YAMLError, ValueError, OverflowError):
            raise self.error(node, f"cannot read the value {show(node.value)}") from None

    def mapping(self, node: MappingNode, loc: Loc, depth: int) -> dict[str, Any]:
        if node.tag != _CORE + "map":
            raise self.error(node, f"unsupported YAML tag {_tag(node.tag)}")
        written = self.written.get(id(node))
        if written is None:  # first visit (an alias may bring the node again)
            written = self.written[id(node)] = {id(key) for key, _ in node.value}
            self.loader.flatten_mapping(node)  # "<<" merge keys: merged pairs first, later wins
        result: dict[str, Any] = {}
        merged: set[str] = set()
        for key_node, value_node in node.value:
            if not isinstance(key_node, ScalarNode):
                raise self.error(key_node, "a key must be plain text, not a list or a map")
            key = key_node.value
            line = key_node.start_mark.line + 1
            if id(key_node) not in written:
                merged.add(key)
            elif key in result and key not in merged:
                first = self.lines[(*loc, key)]
                message = f"duplicate key '{key}' (first at line {first})"
                self.problems.append(Problem((*loc, key), message, parent=True, line=line))
            self.lines[(*loc, key)] = line
            result[key] = self.walk(value_node, (*loc, key), depth + 1)
        return result

    def sequence(self, node: SequenceNode, loc: Loc, depth: int) -> list[Any]:
        if node.tag != _CORE + "seq":
            raise self.error(node, f"unsupported YAML tag {_tag(node.tag)}")
        items = []
        for index, item in enumerate(node.value):
            self.lines[(*loc, index)] = item.start_mark.line + 1
            items.append(self.walk(item, (*loc, index), depth + 1))
        return items

    def error(self, node: Node, message: str) -> ConfigError:
        return ConfigError(message, self.source, node.start_mark.line + 1)


def _syntax_error(exc: yaml.YAMLError, text: str, source: str) -> ConfigError:
    if isinstance(exc, yaml.reader.ReaderError):
        line = text[: max(exc.position, 0)].count("\n") + 1
        return ConfigError(f"invalid YAML: character #x{exc.character:04x} is not allowed"
                           if isinstance(exc.character, int)
                           else "invalid YAML: unreadable character", source, line)
    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return ConfigError(f"invalid YAML: {exc}", source)
    problem = exc.problem or "syntax error"
    if "'\\t'" in problem:
        problem = "a tab character: YAML indents with spaces only"
    if exc.context and exc.context_mark is not None:
        problem += f" ({exc.context} at line {exc.context_mark.line + 1})"
    return ConfigError(f"invalid YAML: {problem}", source, exc.problem_mark.line + 1)


def _tag(tag: str) -> str:
    return "'!!" + tag[len(_CORE):] + "'" if tag.startswith(_CORE) else repr(tag)


def render_path(loc: Loc) -> str:
    """``("steps", 3, "submit")`` → ``steps[3].submit``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def locate(problems: Iterable[Problem], doc: YamlDoc | None, source: str) -> list[ConfigError]:
    """Problems as ``ConfigError``s, each with its line, sorted by line (stable)."""
    errors = []
    for problem in problems:
        line = problem.line or (doc.line(problem.loc) if doc is not None else None)
        path = render_path(problem.loc[:-1] if problem.parent else problem.loc)
        message = f"{path}: {problem.message}" if path else problem.message
        errors.append(ConfigError(message, source, line))
    return sorted(errors, key=lambda e: e.line or 0)


def show(value: Any, limit: int = 60) -> str:
    """A value as quoted in a message: ``'lots'``, ``-5``, ``true``, ``null``, ``a map``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value) if value.bit_length() <= 128 else "a very large number"
    if isinstance(value, float):
        return str(value) if math.isfinite(value) else repr(value).replace("inf", ".inf")
    if isinstance(value, str):
        text = value if len(value) <= limit else value[: limit - 1] + "…"
        return repr(text)
    if isinstance(value, dict):
        return "a map"
    if isinstance(value, list | tuple):
        return "a list"
    return type(value).__name__


def scalar_text(value: Any) -> str | None:
    """A string, or a number as text (``app: 7`` names app "7"); None for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() <= 64:
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return str(value)
    return None


def suggest(name: str, known: Iterable[str], cutoff: float = 0.7) -> str:
    """``" (did you mean 'x'?)"`` for the known name closest to ``name`` (case ignored), else
    ``""``."""
    by_lower = {k.lower(): k for k in known}
    close = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=cutoff)
    return f" (did you mean '{by_lower[close[0]]}'?)" if close else ""

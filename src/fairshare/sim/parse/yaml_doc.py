"""A loaded YAML document, the line of every place in it, and how messages name them.

Read :mod:`fairshare.sim.parse.yaml_lines` first: it loads documents and re-exports the public names
defined here. A place in a document is its *loc*, the tuple of keys and indices leading to it
(``("steps", 3, "submit", "queue")``), the same shape as a pydantic error's ``loc``, so a
validation error maps straight back to a line.

Lines are kept in a tree beside the value (a few bytes per value), not as a map of locs: each
value has an *entry* in its parent's entries (a dict for a map, a list for a sequence):

* an int, the line of its key or item, when the value is a string or its source text is not
  needed (an int written as ``str(value)``);
* a ``(line, text)`` pair for other scalars (``5.0``, ``true``: the text as written);
* a :class:`Meta` (line, entries of the children) for a map or a sequence.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from fairshare.config.errors import ConfigError

__all__ = [
    "SURROGATE",
    "Loc",
    "Meta",
    "Problem",
    "YamlDoc",
    "built_doc",
    "entry_line",
    "locate",
    "lone_surrogate",
    "render_path",
    "scalar_text",
    "show",
    "suggest",
    "surrogate_message",
]

Loc = tuple[str | int, ...]

SURROGATE = re.compile("[\ud800-\udfff]")


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
    lines: Mapping[Loc, int]
    texts: Mapping[Loc, str]
    problems: tuple[Problem, ...]

    def line(self, loc: Loc) -> int:
        """The line of ``loc``, or of its nearest ancestor present in the document."""
        for end in range(len(loc), 0, -1):
            found = self.lines.get(loc[:end])
            if found is not None:
                return found
        return self.lines.get((), 1)


# ---- the tree of entries -----------------------------------------------------------------------


class Meta:
    """The entry of a map or a sequence: its line, and its children's entries."""

    __slots__ = ("entries", "line")

    def __init__(self, line: int, entries: dict[str, Any] | list[Any]) -> None:
        self.line = line
        self.entries = entries


def entry_line(entry: Any) -> int:
    if type(entry) is int:
        return entry
    if type(entry) is tuple:
        return int(entry[0])
    return int(entry.line)


def built_doc(value: Any, root: Any, problems: Iterable[Problem]) -> YamlDoc:
    """The document of ``value``, whose entry is ``root`` (None for an empty document)."""
    lines = _Lines(root, value)
    return YamlDoc(value, lines, _Texts(lines), tuple(problems))


def _find(root: Any, value: Any, loc: Loc) -> tuple[Any, Any] | None:
    """The entry and the value at ``loc``, or None."""
    entry = root
    for part in loc:
        if type(entry) is not Meta:
            return None
        entries: Any = entry.entries
        if type(entries) is dict:
            if type(part) is not str or part not in entries:
                return None
        elif type(part) is not int or not 0 <= part < len(entries):
            return None
        entry, value = entries[part], value[part]
    return entry, value


class _Lines(Mapping[Loc, int]):
    """The line of every loc, looked up in the tree of entries."""

    def __init__(self, root: Any, value: Any) -> None:
        self.root, self.value = root, value

    def __getitem__(self, loc: Loc) -> int:
        found = _find(self.root, self.value, loc) if self.root is not None else None
        if found is None:
            raise KeyError(loc)
        return entry_line(found[0])

    def __iter__(self) -> Iterator[Loc]:
        if self.root is None:
            return
        todo: list[tuple[Loc, Any]] = [((), self.root)]
        while todo:
            loc, entry = todo.pop()
            yield loc
            if type(entry) is Meta:
                items = entry.entries.items() if type(entry.entries) is dict \
                    else enumerate(entry.entries)
                todo.extend(((*loc, k), e) for k, e in reversed(list(items)))

    def __len__(self) -> int:
        return sum(1 for _ in self)


class _Texts(Mapping[Loc, str]):
    """The source text of every scalar: the string itself, or a number's text as written."""

    def __init__(self, lines: _Lines) -> None:
        self.lines = lines

    def __getitem__(self, loc: Loc) -> str:
        found = _find(self.lines.root, self.lines.value, loc) \
            if self.lines.root is not None else None
        if found is not None:
            entry, value = found
            if type(entry) is tuple:
                return str(entry[1])
            if type(entry) is int and isinstance(value, str):
                return value
            if type(entry) is int and type(value) is int:
                return str(value)  # an entry without text: the text is exactly str(value)
        raise KeyError(loc)

    def __iter__(self) -> Iterator[Loc]:
        return (loc for loc in self.lines if loc in self)

    def __len__(self) -> int:
        return sum(1 for _ in self)


# ---- naming places and values in messages ------------------------------------------------------


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


def not_a_string(value: Any) -> str:
    """``must be a string, got …``, with how to write it as one when YAML read plain text as a
    boolean or null (``name: off`` is false)."""
    message = f"must be a string, got {show(value)}"
    if isinstance(value, bool):
        words = "yes, on, true" if value else "no, off, false"
        return (f"{message}: YAML reads an unquoted {words} as a boolean; "
                f"quote the text if that is what you meant, e.g. 'off'")
    if value is None:
        return f"{message}: YAML reads an empty value, ~ or null as null; quote it, e.g. 'null'"
    return message


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


def lone_surrogate(text: str) -> str | None:
    """The first UTF-16 surrogate of ``text`` that is not half of a pair, or None."""
    index = 0
    while (match := SURROGATE.search(text, index)) is not None:
        char, at = match.group(), match.start()
        if char <= "\udbff" and "\udc00" <= text[at + 1 : at + 2] <= "\udfff":
            index = at + 2
            continue
        return char
    return None


def surrogate_message(char: str) -> str:
    return (f"contains a lone surrogate \\u{ord(char):04x}, which cannot be written as UTF-8 "
            "(a \\u escape of half of a UTF-16 pair)")

"""Reading trace files: text, JSON values with the line each starts at, and lines of locs.

SLS reads its JSON files with Jackson's ``readValues``: a file is a sequence of JSON values one
after another (``{…}{…}`` or one per line), or a single top-level array whose elements are the
values. :func:`json_values` reads both with the stdlib decoder (C speed, so a trace with a
million tasks loads in seconds) and yields each value with the line of its first character.

The stdlib decoder knows no positions inside a value, so :func:`json_line` walks a value's text
once more to find the line of a loc (``("job.tasks", 3, "container.end.ms")``) — only the way
to it, skipping what is beside it without decoding it — and :func:`json_doc` gives a
``YamlDoc`` whose lines are found that way when asked for, so that
:func:`~fairshare.sim.parse.yaml_lines.locate` and pydantic locs work with JSON as with YAML.

JSON is strict here: ``NaN`` and ``Infinity`` (which Python's decoder would accept) are errors, as
they are for Jackson. A ``\\u`` escape of half a UTF-16 surrogate pair without its other half
(``"\\ud800"``) is an error at its line: no UTF-8 output could hold it (a pair,
``"\\ud83d\\ude00"``, is one character and fine).

Limits, checked before anything is decoded (:func:`read_trace_text`, :func:`check_json_size`):
a trace file (SLS jobs, CSV) is at most :data:`MAX_TRACE_BYTES`, a topology file at most
:data:`MAX_TOPOLOGY_BYTES`, a SYNTH file at most :data:`MAX_SYNTH_BYTES`; a JSON file has at
most :data:`MAX_JSON_CONTAINERS` objects and arrays and :data:`MAX_JSON_VALUES` values
(counted from the raw text: its ``{``, ``[`` and ``,``), which bounds the memory its decoded
values can take whatever their shape; and nesting is bounded by the decoder's recursion limit.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NoReturn

from fairshare.config.errors import ConfigError
from fairshare.config.files import decode_utf8, memory_guard, read_input
from fairshare.sim.parse.yaml_lines import Loc, YamlDoc, lone_surrogate, render_path

__all__ = [
    "MAX_JSON_CONTAINERS", "MAX_JSON_VALUES", "MAX_SYNTH_BYTES", "MAX_TOPOLOGY_BYTES",
    "MAX_TRACE_BYTES", "MAX_TRACE_TEXT", "JsonValue", "check_json_size", "json_doc",
    "json_element_lines", "json_line", "json_single", "json_values", "read_trace_text",
]

MAX_TRACE_BYTES = 192 * 1024**2  # SLS job traces and CSV files
MAX_TRACE_TEXT = 192 * 1024**2  # the decoded text in memory (1, 2 or 4 bytes a character)
MAX_TOPOLOGY_BYTES = 16 * 1024**2  # SLS topology files (~100,000 nodes)
MAX_SYNTH_BYTES = 4 * 1024**2  # SYNTH descriptions (written by hand: a few KB)
MAX_JSON_CONTAINERS = 2_000_000  # objects and arrays of one file: a task is one
MAX_JSON_VALUES = 8_000_000  # values of one file (an upper bound: ',' + '{' + '[' + 1)

_SPACE = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"[^"\\]*+(?:\\.[^"\\]*+)*+"', re.DOTALL)
_SCALAR = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_WIDE = (re.compile(rb"[\xf0-\xf4]"), re.compile(rb"[\xc4-\xef]"))  # UTF-8 lead bytes of
# characters that make Python store a text with 4 bytes (beyond U+FFFF), 2 bytes (beyond U+00FF)


def read_trace_text(path: Path, display: str, limit: int | None = None) -> str:
    """A trace file's text (UTF-8, optional BOM); problems are a :class:`ConfigError`: not a
    regular file (:mod:`fairshare.config.files`), more than ``limit`` bytes (default
    :data:`MAX_TRACE_BYTES`), not UTF-8, or a text that would take more than
    :data:`MAX_TRACE_TEXT` bytes of memory."""
    data = read_input(path, display, MAX_TRACE_BYTES if limit is None else limit)
    width = 4 if _WIDE[0].search(data) else 2 if _WIDE[1].search(data) else 1
    if len(data) * width > MAX_TRACE_TEXT:
        raise ConfigError(f"too large to load in memory: {len(data):,} bytes of text with "
                          f"characters that Python stores in {width} bytes each (at most "
                          f"{MAX_TRACE_TEXT:,} bytes)", display)
    text = decode_utf8(data, display)
    del data
    return text


def check_json_size(text: str, display: str) -> None:
    """Refuse a JSON text whose decoded values could take too much memory: more than
    :data:`MAX_JSON_CONTAINERS` objects and arrays or :data:`MAX_JSON_VALUES` values, counted
    from its characters before anything is decoded (characters inside strings count too)."""
    containers = text.count("{") + text.count("[")
    if containers > MAX_JSON_CONTAINERS:
        raise ConfigError(f"too large: more than {MAX_JSON_CONTAINERS:,} JSON objects and "
                          f"arrays ({containers:,} '{{' and '[')", display)
    values = containers + text.count(",") + 1
    if values > MAX_JSON_VALUES:
        raise ConfigError(f"too large: more than {MAX_JSON_VALUES:,} JSON values ({values:,} "
                          "',', '{' and '[')", display)


def _no_constants(name: str) -> NoReturn:
    raise ValueError(f"{name} is not a JSON value")


_DECODER = json.JSONDecoder(parse_constant=_no_constants)


class JsonValue:
    """One top-level value of a file: ``value``, its text span and the line it starts at."""

    __slots__ = ("end", "index", "line", "start", "value")

    def __init__(self, index: int, start: int, end: int, line: int, value: Any) -> None:
        self.index, self.start, self.end, self.line, self.value = index, start, end, line, value


def json_values(text: str, display: str) -> Iterator[JsonValue]:
    """The values of a JSON sequence file, or the elements of its single top-level array.

    Raises :class:`ConfigError` at the line of a syntax error (with its column), for a file
    over the limits (:func:`check_json_size`), and at a lone surrogate's line.
    """
    check_json_size(text, display)
    escapes = _SURROGATE_ESCAPE.search(text) is not None  # else no string can hold a surrogate
    pos = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    line = 1 + text.count("\n", 0, pos)
    in_array = text.startswith("[", pos)
    if in_array:
        pos = _skip(text, pos + 1)
        line = 1 + text.count("\n", 0, pos)
        if text.startswith("]", pos):
            _only_space_after(text, pos + 1, display)
            return
    index = 0
    while pos < len(text):
        value, end = _decode(text, pos, display)
        if escapes:
            _check_surrogates(value, text, pos, end, line, display)
        yield JsonValue(index, pos, end, line, value)
        index += 1
        after = _skip(text, end)
        if in_array:
            if text.startswith("]", after):
                _only_space_after(text, after + 1, display)
                return
            if not text.startswith(",", after):
                _syntax(text, after, "expecting ',' or ']' after an array element", display)
            after = _skip(text, after + 1)
        line += text.count("\n", pos, after)
        pos = after
    if in_array:
        _syntax(text, pos, "the top-level array is not closed", display)


def json_single(text: str, display: str) -> JsonValue:
    """The one JSON value of a file (an object, for the files that use this)."""
    check_json_size(text, display)
    pos = _skip(text, 0)
    if pos == len(text):
        raise ConfigError("the file is empty: expected a JSON object", display, 1)
    value, end = _decode(text, pos, display)
    _only_space_after(text, end, display)
    line = 1 + text.count("\n", 0, pos)
    _check_surrogates(value, text, pos, end, line, display)
    return JsonValue(0, pos, end, line, value)


def _check_surrogates(value: Any, text: str, start: int, end: int, line: int,
                      display: str) -> None:
    """A lone surrogate in any string (key or value) of the value at ``text[start:end]`` is an
    error at its line. Cheap unless the value's text has a ``\\u`` escape of a surrogate."""
    if _SURROGATE_ESCAPE.search(text, start, end) is None:
        return
    todo: list[tuple[Loc, Any]] = [((), value)]
    while todo:
        loc, item = todo.pop()
        if isinstance(item, str):
            lone = lone_surrogate(item)
            if lone is not None:
                _lone(lone, loc, text, start, line, display, key=False)
        elif isinstance(item, dict):
            for key in item:
                lone = lone_surrogate(key)
                if lone is not None:
                    _lone(lone, loc, text, start, line, display, key=True)
            todo.extend(((*loc, k), v) for k, v in reversed(item.items()))
        elif isinstance(item, list):
            todo.extend(((*loc, i), v) for i, v in reversed(list(enumerate(item))))


def _lone(char: str, loc: Loc, text: str, start: int, line: int, display: str, *,
          key: bool) -> NoReturn:
    where = render_path(loc)
    what = ("a key " if key else "") + (f"contains a lone surrogate \\u{ord(char):04x}, which "
                                        "cannot be written as UTF-8 (a \\u escape of half of a "
                                        "UTF-16 pair)")
    raise ConfigError(f"{where}: {what}" if where else what, display,
                      json_line(text, start, line, loc))


def _skip(text: str, pos: int) -> int:
    return _SPACE.match(text, pos).end()  # type: ignore[union-attr]


def _decode(text: str, pos: int, display: str) -> tuple[Any, int]:
    try:
        with memory_guard(display):
            return _DECODER.raw_decode(text, pos)
    except json.JSONDecodeError as exc:
        _syntax(text, exc.pos, exc.msg.lower(), display)
    except ValueError as exc:  # NaN / Infinity, or an integer of thousands of digits
        message = str(exc)
        if "integer string conversion" in message:
            message = "number too long"
        _syntax(text, pos, message, display)
    except RecursionError:
        _syntax(text, pos, "values nested too deeply", display)


def _only_space_after(text: str, pos: int, display: str) -> None:
    end = _skip(text, pos)
    if end < len(text):
        _syntax(text, end, "extra data after the top-level value", display)


def _syntax(text: str, pos: int, message: str, display: str) -> NoReturn:
    line = 1 + text.count("\n", 0, pos)
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    raise ConfigError(f"invalid JSON: {message} (column {column})", display, line)


def json_doc(value: Any, text: str, start: int, line: int) -> YamlDoc:
    """A JSON value with its lines, as the YAML loader would give it; each line is found when
    asked for (:func:`json_line`), so a large value costs nothing until then."""
    return YamlDoc(value, _JsonLines(text, start, line), {}, ())


class _JsonLines(Mapping[Loc, int]):
    """The line of a loc of a JSON value — or of the deepest part of the loc that the value
    has, as :meth:`YamlDoc.line` wants it — found by :func:`json_line`, remembered."""

    def __init__(self, text: str, start: int, line: int) -> None:
        self.index, self.start, self.line = _Index(text), start, line
        self.found: dict[Loc, int] = {}

    def __getitem__(self, loc: Loc) -> int:
        found = self.found.get(loc)
        if found is None:
            found = self.found[loc] = self.index.line(self.start, self.line, loc)
        return found

    def __iter__(self) -> Iterator[Loc]:
        return iter(self.found)

    def __len__(self) -> int:
        return len(self.found)


def json_line(text: str, start: int, line: int, loc: Loc) -> int:
    """The line of ``loc`` (or of its deepest part present) in the valid JSON value at
    ``text[start:]``, which starts on ``line``; walks only the way to it, skipping what is
    beside it without decoding it, so it is cheap on a large value."""
    return _Index(text).line(start, line, loc)


class _Index:
    """Where the members of objects and the elements of arrays of a JSON text start, found as
    lookups need them and remembered (a value's position → its members or elements)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.objects: dict[int, dict[str, tuple[int, int]]] = {}
        self.arrays: dict[int, tuple[list[int], int | None]] = {}
        self._newlines: list[int] | None = None  # where each "\n" is, found at first need

    def lines_between(self, start: int, end: int) -> int:
        """The newlines in ``text[start:end]``: by bisection in the newlines' positions, so a
        dump's thousands of lookups cost no scan of the text each (an RM's compact answer of
        15 MB would otherwise be counted through once per app)."""
        if self._newlines is None:
            self._newlines = [m.start() for m in re.finditer("\n", self.text)]
        return bisect_left(self._newlines, end) - bisect_left(self._newlines, start)

    def line(self, start: int, line: int, loc: Loc) -> int:
        text = self.text
        pos, found = start, start
        try:
            for part in loc:
                pos = _skip(text, pos)
                if text.startswith("{", pos) and isinstance(part, str):
                    at = self.member(pos, part)
                elif text.startswith("[", pos) and isinstance(part, int):
                    element = self.element(pos, part)
                    at = None if element is None else (element, element)
                else:
                    break
                if at is None:
                    break
                found, pos = at
        except (ValueError, IndexError):  # not the valid JSON expected
            pass
        return line + self.lines_between(start, found)

    def member(self, pos: int, name: str) -> tuple[int, int] | None:
        """(where the key is, where its value starts) of member ``name`` of the object at
        ``pos`` (its last one: the decoder keeps the last of duplicate keys)."""
        members = self.objects.get(pos)
        if members is None:
            members = self.objects[pos] = _members(self.text, pos + 1)
        return members.get(name)

    def element(self, pos: int, index: int) -> int | None:
        """Where element ``index`` of the array at ``pos`` starts."""
        text = self.text
        found, resume = self.arrays.get(pos, ([], pos + 1))
        while len(found) <= index and resume is not None:
            at = _skip(text, resume)
            if at >= len(text) or text.startswith("]", at):
                resume = None
                break
            found.append(at)
            after = _skip(text, _past_value(text, at))
            resume = after + 1 if text.startswith(",", after) else None
        self.arrays[pos] = found, resume
        return found[index] if index < len(found) else None


def _members(text: str, pos: int) -> dict[str, tuple[int, int]]:
    members: dict[str, tuple[int, int]] = {}
    while True:
        pos = _skip(text, pos)
        match = _STRING.match(text, pos)
        if match is None:
            return members
        key_at = pos
        pos = _skip(text, _skip(text, match.end()) + 1)  # past ':'
        members[json.loads(match.group())] = key_at, pos
        pos = _skip(text, _past_value(text, pos))
        if not text.startswith(",", pos):
            return members
        pos += 1


# everything up to the next bracket: strings (which may hold brackets) and other characters
_FLAT = re.compile(r'(?:[^"\[\]{}]++|"[^"\\]*+(?:\\.[^"\\]*+)*+")*+', re.DOTALL)


def _past_value(text: str, pos: int) -> int:
    """Where the (valid) JSON value at ``pos`` ends, found without decoding it: one step per
    bracket, the text between brackets skipped by a regular expression."""
    if not text.startswith(("{", "["), pos):
        match = _STRING.match(text, pos) if text.startswith('"', pos) else \
            _SCALAR.match(text, pos)
        if match is None:
            raise ValueError("not a JSON value")
        return match.end()
    depth = 0
    while True:
        char = text[pos : pos + 1]
        if char in ("{", "["):
            depth += 1
        elif char in ("}", "]"):
            depth -= 1
            if depth == 0:
                return pos + 1
        elif not char:
            raise ValueError("unclosed JSON value")
        pos = _FLAT.match(text, pos + 1).end()  # type: ignore[union-attr]


def json_element_lines(text: str, start: int, line: int, loc: Loc) -> list[int]:
    """The line of each element of the array at ``loc`` of the (valid) JSON value at
    ``text[start:]`` on ``line``, in one pass ([] if there is no array there)."""
    index = _Index(text)
    pos = start
    for part in loc:
        pos = _skip(text, pos)
        at = index.member(pos, part) if text.startswith("{", pos) and isinstance(part, str) \
            else None
        if at is None:
            return []
        pos = at[1]
    pos = _skip(text, pos)
    if not text.startswith("[", pos):
        return []
    index.element(pos, len(text))  # all of them
    lines: list[int] = []
    counted, current = start, line
    for element in index.arrays[pos][0]:
        current += text.count("\n", counted, element)
        counted = element
        lines.append(current)
    return lines

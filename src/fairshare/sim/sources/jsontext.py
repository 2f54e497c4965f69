"""Reading trace files: text, JSON values with the line each starts at, and lines of locs.

SLS reads its JSON files with Jackson's ``readValues``: a file is a sequence of JSON values one
after another (``{…}{…}`` or one per line), or a single top-level array whose elements are the
values. :func:`json_values` reads both with the stdlib decoder (C speed, so a trace with a
million tasks loads in seconds) and yields each value with the line of its first character.

The stdlib decoder knows no positions inside a value, so :func:`json_lines` walks a value's text
once more to map every loc (``("job.tasks", 3, "container.end.ms")``) to its line — the same
shape as :class:`~fairshare.sim.yaml_lines.YamlDoc`'s lines, so :func:`json_doc` gives a
``YamlDoc`` that :func:`~fairshare.sim.yaml_lines.locate` and pydantic locs work with. It runs
on small files (SYNTH, topology) and, for a large job trace, only on a job found to be wrong.

JSON is strict here: ``NaN`` and ``Infinity`` (which Python's decoder would accept) are errors, as
they are for Jackson.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NoReturn

from fairshare.config.errors import ConfigError
from fairshare.sim.yaml_lines import Loc, YamlDoc

__all__ = ["JsonValue", "json_doc", "json_lines", "json_single", "json_values",
           "read_trace_text"]

MAX_TRACE_BYTES = 4 * 1024**3  # a guard against /dev/zero, not a limit on real traces

_SPACE = re.compile(r"[ \t\r\n]*")
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_SCALAR = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")


def read_trace_text(path: Path, display: str) -> str:
    """A trace file's text (UTF-8, optional BOM); problems are a :class:`ConfigError`."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_TRACE_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"cannot read file: {exc.strerror or exc}", display) from None
    if len(data) > MAX_TRACE_BYTES:
        raise ConfigError(f"file is too large (the limit is {MAX_TRACE_BYTES} bytes)", display)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ConfigError("file is not UTF-8 text", display, line) from None


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

    Raises :class:`ConfigError` at the line of a syntax error (with its column).
    """
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
    pos = _skip(text, 0)
    if pos == len(text):
        raise ConfigError("the file is empty: expected a JSON object", display, 1)
    value, end = _decode(text, pos, display)
    _only_space_after(text, end, display)
    return JsonValue(0, pos, end, 1 + text.count("\n", 0, pos), value)


def _skip(text: str, pos: int) -> int:
    return _SPACE.match(text, pos).end()  # type: ignore[union-attr]


def _decode(text: str, pos: int, display: str) -> tuple[Any, int]:
    try:
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


def json_lines(text: str, start: int, line: int) -> dict[Loc, int]:
    """The line of every loc of the (valid) JSON value at ``text[start:]`` on ``line``: a map
    key's line for ``(…, key)``, an element's first line for ``(…, index)``, and ``()``."""
    walker = _LineWalker(text, start, line)
    with contextlib.suppress(RecursionError):  # deeper than any trace: the lines found suffice
        walker.value(())
    return walker.lines


class _LineWalker:
    def __init__(self, text: str, pos: int, line: int) -> None:
        self.text, self.pos, self.line = text, pos, line
        self.lines: dict[Loc, int] = {}

    def space(self) -> None:
        end = _skip(self.text, self.pos)
        self.line += self.text.count("\n", self.pos, end)
        self.pos = end

    def value(self, loc: Loc) -> None:
        self.space()
        self.lines.setdefault(loc, self.line)
        char = self.text[self.pos : self.pos + 1]
        if char == "{":
            self.container(loc, "}", keyed=True)
        elif char == "[":
            self.container(loc, "]", keyed=False)
        else:
            match = (_STRING if char == '"' else _SCALAR).match(self.text, self.pos)
            self.pos = match.end() if match else self.pos + 1

    def container(self, loc: Loc, close: str, *, keyed: bool) -> None:
        self.pos += 1
        index = 0
        while True:
            self.space()
            if self.text.startswith(close, self.pos) or self.pos >= len(self.text):
                self.pos += 1
                return
            part: str | int = index
            if keyed:
                match = _STRING.match(self.text, self.pos)
                if match is None:
                    return
                part = json.loads(match.group())
                self.lines[(*loc, part)] = self.line
                self.pos = match.end()
                self.space()
                self.pos += 1  # ':'
            else:
                self.lines[(*loc, part)] = self.line
            self.value((*loc, part))
            self.space()
            if self.text.startswith(",", self.pos):
                self.pos += 1
            index += 1


def json_doc(value: Any, text: str, start: int, line: int) -> YamlDoc:
    """A JSON value with its lines, as the YAML loader would give it."""
    return YamlDoc(value, json_lines(text, start, line), {}, ())

"""YAML with line numbers, and problems located as ``file:line: message``.

Scenario files are read with a YAML *event* parser (libyaml's, through PyYAML, when PyYAML has
it; else PyYAML's own) and built straight into plain data — maps, lists, strings, numbers,
booleans, null — while every mapping key and every sequence item keeps the 1-based line where it
starts. A value's place in the document is its *loc*, the tuple of keys and indices leading to
it (``("steps", 3, "submit", "queue")``), the same shape as a pydantic error's ``loc``, so a
validation error maps straight back to a line.

Bounded work: values are counted and nesting depth checked *as the events arrive*, so a document
of more than :data:`MAX_VALUES` values (after expanding aliases) or nested deeper than
:data:`MAX_DEPTH` is refused as soon as the parser reaches the value over the limit, before the
rest of it is read; an alias adds the size of what it names without copying it (a "billion
laughs" document fails fast). Lines are kept in a tree beside the value (a few bytes per value),
not as a map of locs.

Deliberate strictness: duplicate keys are errors (YAML loaders silently keep the last), keys must
be plain scalars (their source text is the key: ``on: 1`` has key ``"on"``, not ``True``),
explicit tags other than YAML's core types are refused (``!!python/object``), and so are
duplicate anchors and numbers longer than :data:`MAX_NUMBER_CHARS` characters. Timestamps
(``2024-01-01``) stay strings: no scenario value is a date. ``\\u`` escapes of UTF-16 surrogates
(JSON's way to write an emoji, ``"\\ud83d\\ude00"``) are joined in pairs; a lone surrogate, which
no UTF-8 output could hold, is an error at its line.
"""

from __future__ import annotations

import bisect
import difflib
import math
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import yaml
from yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)
from yaml.nodes import ScalarNode

from fairshare.config.errors import ConfigError
from fairshare.config.files import decode_utf8, gc_paused, memory_guard, read_input

__all__ = [
    "MAX_DEPTH",
    "MAX_NUMBER_CHARS",
    "MAX_SCENARIO_BYTES",
    "MAX_VALUES",
    "Loc",
    "Problem",
    "YamlDoc",
    "load_yaml",
    "locate",
    "lone_surrogate",
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
MAX_NUMBER_CHARS = 4300  # Python's own limit for decimal integer strings

_CParser: Any = None
if getattr(yaml, "__with_libyaml__", False):  # pragma: no branch
    try:
        from yaml._yaml import CParser as _CParser
    except ImportError:  # pragma: no cover
        _CParser = None

_CORE = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_CORE + t for t in ("str", "int", "float", "bool", "null"))
_MAP, _SEQ, _TIMESTAMP, _MERGE = (_CORE + t for t in ("map", "seq", "timestamp", "merge"))
_SCALAR_TAGS = frozenset({_STR, _INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP})
_PLAIN_INT = re.compile(r"0|-?[1-9][0-9]{0,17}")  # decimal, and exactly str(int(text))
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
# an escape in a double-quoted scalar: a backslash not itself escaped (even backslashes before)
_ESCAPE_AT = re.compile(r"(?<!\\)((?:\\\\)*)\\u([dD][89a-fA-F][0-9a-fA-F]{2})")


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


def read_text(path: Path) -> str:
    """A file's text (UTF-8, optional BOM); any problem reading it is a :class:`ConfigError`:
    not a regular file (:mod:`fairshare.config.files`), more than :data:`MAX_SCENARIO_BYTES`,
    not UTF-8."""
    data = read_input(path, str(path), MAX_SCENARIO_BYTES)
    return decode_utf8(data, str(path))


# ---- lines beside the value --------------------------------------------------------------------
#
# Each value has an *entry* in its parent's entries (a dict for a map, a list for a sequence):
# the line of its key or item, as an int when the value is a string or the value's own source
# text is not needed; a (line, text) pair for other scalars (``5``, ``true``: the text as
# written); a _Meta (line, entries of the children) for a map or a sequence.


class _Meta:
    __slots__ = ("entries", "line")

    def __init__(self, line: int, entries: dict[str, Any] | list[Any]) -> None:
        self.line = line
        self.entries = entries


def _entry_line(entry: Any) -> int:
    if type(entry) is int:
        return entry
    if type(entry) is tuple:
        return int(entry[0])
    return int(entry.line)


def _find(root: Any, value: Any, loc: Loc) -> tuple[Any, Any] | None:
    """The entry and the value at ``loc``, or None."""
    entry = root
    for part in loc:
        if type(entry) is not _Meta:
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
        return _entry_line(found[0])

    def __iter__(self) -> Iterator[Loc]:
        if self.root is None:
            return
        todo: list[tuple[Loc, Any]] = [((), self.root)]
        while todo:
            loc, entry = todo.pop()
            yield loc
            if type(entry) is _Meta:
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


# ---- loading -----------------------------------------------------------------------------------


def load_yaml(text: str, source: str) -> YamlDoc:
    """Parse one YAML document; syntax errors raise :class:`ConfigError` at their line, and so
    do documents over the limits (values, depth), unsupported tags, lone surrogates; running out
    of memory is "too large to load in memory"."""
    with memory_guard(source), gc_paused():
        if _CParser is not None:
            escapes = None
            parsed = text
            if _SURROGATE_ESCAPE.search(text):
                prepared = _Escapes.prepare(text)
                if prepared is not None:
                    parsed, escapes = prepared
            if escapes is not None or not _SURROGATE_ESCAPE.search(text):
                try:
                    parser = _CParser(parsed)
                except UnicodeEncodeError as exc:
                    line = text.count("\n", 0, exc.start) + 1
                    raise ConfigError(_surrogate_message(text[exc.start]), source,
                                      line) from None
                try:
                    return _Builder(source, text, escapes=escapes).load(parser)
                except _Retry:
                    pass
        # Without libyaml, or for the rare text whose surrogate escapes cannot be hidden from it
        loader = yaml.SafeLoader(text)
        try:
            return _Builder(source, text, python=True).load(loader)
        finally:
            loader.dispose()


# blocks of 2048 characters to stand for the surrogates: private use first, then any other
_PLACEHOLDER_BASES = (0xE000, 0xE800, 0xF000, *range(0x0800, 0xD800, 0x800))


class _Escapes:
    """``\\u`` escapes of UTF-16 surrogates, hidden from libyaml (which refuses them all, even
    pairs) and brought back in the values.

    Each escape ``\\uD83D`` is rewritten, in place and at the same length, to an escape of a
    character (``\\uE03D``, private use, for a base of U+E000) of a block of 2048 that the text
    uses nowhere, not even as an escape, so that lines and positions stay those of the file. In
    a double-quoted scalar, where it was an escape, that character goes back to the surrogate
    (then pairs are joined); in any other scalar, where it was plain text, the original six
    characters are put back."""

    def __init__(self, original: str, positions: list[int], base: int) -> None:
        self.original, self.positions, self.base = original, positions, base
        self.chars = re.compile(f"[{chr(base)}-{chr(base + 0x7FF)}]")
        self.table = {base + i: 0xD800 + i for i in range(0x800)}
        high = f"{base >> 12:X}"
        second = "[0-7]" if base & 0x800 == 0 else "[89A-F]"
        self.sequence = re.compile(rf"\\u{high}{second}[0-9A-F]{{2}}")

    @classmethod
    def prepare(cls, text: str) -> tuple[str, _Escapes] | None:
        """The text to give libyaml, and how to undo it; None if no block is free."""
        for base in _PLACEHOLDER_BASES:
            high = f"[{base >> 12:x}{base >> 12:X}]"
            second = "[0-7]" if base & 0x800 == 0 else "[89a-fA-F]"
            used = rf"[{chr(base)}-{chr(base + 0x7FF)}]|\\(?:u|U0000){high}{second}"
            if re.search(used, text) is None:
                break
        else:
            return None
        positions: list[int] = []

        def hide(match: re.Match[str]) -> str:
            positions.append(match.start(2) - 2)
            return f"{match.group(1)}\\u{int(match.group(2), 16) - 0xD800 + base:04X}"

        return _ESCAPE_AT.sub(hide, text), cls(text, positions, base)

    def restore(self, event: Any) -> str:
        """A scalar's text as the original file meant it (surrogates not yet joined)."""
        text: str = event.value
        if event.style == '"':
            return text.translate(self.table) if self.chars.search(text) else text
        if "\\u" not in text:
            return text
        lo = bisect.bisect_left(self.positions, event.start_mark.index)
        hi = bisect.bisect_left(self.positions, event.end_mark.index)
        originals = [self.original[p : p + 6] for p in self.positions[lo:hi]]
        if len(self.sequence.findall(text)) != len(originals):
            raise _Retry  # not as expected: let PyYAML's parser read the file
        found = iter(originals)
        return self.sequence.sub(lambda _: next(found), text)


class _Retry(Exception):
    pass


_MERGE_KEY = object()  # the key "<<" (plain): merge another map in


class _Frame:
    """A map or sequence being built."""

    __slots__ = ("anchor", "count", "entries", "height", "is_map", "key", "key_line", "loc",
                 "merges", "meta", "value")

    def __init__(self, is_map: bool, loc: Loc, meta: _Meta, anchor: str | None,
                 count: int) -> None:
        self.is_map = is_map
        self.loc = loc
        self.meta = meta
        self.entries: Any = meta.entries
        self.value: Any = {} if is_map else []
        self.anchor = anchor
        self.count = count  # values counted before this one
        self.height = 0  # levels of values below this one
        self.key: Any = None  # a map's key waiting for its value
        self.key_line = 0
        self.merges: list[tuple[dict[str, Any], dict[str, Any]]] | None = None


class _Anchor:
    __slots__ = ("entries", "height", "size", "text", "value")

    def __init__(self, value: Any, entries: Any, text: str | None, size: int,
                 height: int) -> None:
        self.value, self.entries, self.text = value, entries, text
        self.size, self.height = size, height


class _Builder:
    """Plain values and their lines from a stream of YAML events, within the limits."""

    def __init__(self, source: str, text: str, *, python: bool = False,
                 escapes: _Escapes | None = None) -> None:
        self.source = source
        self.text = text
        self.escapes = escapes
        # every scalar's text checked: PyYAML's parser gives surrogates from \u escapes, and
        # libyaml's values may hold hidden ones
        self.python = python or escapes is not None
        self.count = 0
        self.anchors: dict[str, _Anchor] = {}
        self.anchor_lines: dict[str, int] = {}
        self.problems: list[Problem] = []
        self.resolver = yaml.resolver.Resolver()
        self.implicit = yaml.resolver.Resolver.yaml_implicit_resolvers
        self.constructor = yaml.constructor.SafeConstructor()

    def error(self, message: str, line: int) -> NoReturn:
        raise ConfigError(message, self.source, line)

    def load(self, parser: Any) -> YamlDoc:
        try:
            value, root = self.document(parser.get_event)
        except yaml.YAMLError as exc:
            raise _syntax_error(exc, self.text, self.source,
                                libyaml=self.escapes is not None or not self.python) from None
        except RecursionError:  # PyYAML's own parser, on deeply nested flow collections
            raise ConfigError(f"values nested more than {MAX_DEPTH} levels deep",
                              self.source) from None
        lines = _Lines(root, value)
        return YamlDoc(value, lines, _Texts(lines), tuple(self.problems))

    def document(self, next_event: Any) -> tuple[Any, Any]:
        event = next_event()
        assert isinstance(event, StreamStartEvent)
        event = next_event()
        if isinstance(event, StreamEndEvent):
            return None, None
        assert isinstance(event, DocumentStartEvent)
        value, root = self.values(next_event)
        event = next_event()
        assert isinstance(event, DocumentEndEvent)
        event = next_event()
        if not isinstance(event, StreamEndEvent):
            self.error("invalid YAML: a second document (a scenario is one YAML document)",
                       event.start_mark.line + 1)
        return value, root

    def values(self, next_event: Any) -> tuple[Any, Any]:
        """The document's value and its entry: events up to the end of the root value.

        The common events (a plain key, a string or decimal scalar) are handled inline: a
        scenario or trace may have a million of them."""
        stack: list[_Frame] = []
        top: _Frame | None = None
        depth = 0  # open collections
        python = self.python
        implicit = self.implicit
        plain_int = _PLAIN_INT.fullmatch
        while True:
            event = next_event()
            kind = type(event)
            if top is not None and top.is_map and top.key is None:
                if kind is ScalarEvent and event.tag is None and event.anchor is None \
                        and not python and event.value != "<<":
                    top.key = event.value
                    top.key_line = event.start_mark.line + 1
                    continue
                if kind is MappingEndEvent:
                    value, entry, height = self.close(top)
                    stack.pop()
                    depth -= 1
                    top = stack[-1] if stack else None
                    done = self.add(top, value, entry, height)
                    if done is not None:
                        return done
                    continue
                self.key(top, event)
                continue
            line = top.key_line if top is not None and top.is_map \
                else event.start_mark.line + 1
            if kind is ScalarEvent:
                self.count += 1
                if self.count > MAX_VALUES or depth > MAX_DEPTH:
                    self.over(line, depth)
                text = event.value
                if python:
                    text = self.text_of(event, top, line)
                if event.tag is not None or event.anchor is not None:
                    value, entry = self.scalar(event, line, text)
                elif not event.implicit[0] or (text and text[:1] not in implicit):
                    value, entry = text, line  # quoted, or plain and cannot be a number, …
                elif plain_int(text):
                    value, entry = int(text), line  # its text is str(value)
                else:
                    value, entry = self.scalar(event, line, text)
                if top is None:
                    return value, entry
                if not top.height:
                    top.height = 1
                if not top.is_map:
                    top.value.append(value)
                    top.entries.append(entry)
                    continue
                key = top.key
                if key is not _MERGE_KEY and key not in top.value:
                    top.value[key] = value
                    top.entries[key] = entry
                    top.key = None
                    continue
                done = self.add(top, value, entry, 0)
            elif kind is SequenceEndEvent:
                assert top is not None
                value, entry, height = self.close(top)
                stack.pop()
                depth -= 1
                top = stack[-1] if stack else None
                done = self.add(top, value, entry, height)
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                self.count += 1
                if self.count > MAX_VALUES or depth > MAX_DEPTH:
                    self.over(line, depth)
                is_map = kind is MappingStartEvent
                self.check_tag(event.tag, _MAP if is_map else _SEQ, line)
                meta = _Meta(line, {} if is_map else [])
                loc = () if top is None else (*top.loc, self.part(top))
                top = _Frame(is_map, loc, meta, event.anchor, self.count)
                if event.anchor is not None:
                    self.new_anchor(event.anchor, event.start_mark.line + 1)
                stack.append(top)
                depth += 1
                continue
            elif kind is AliasEvent:
                value, entry, height = self.alias(event, line, depth)
                done = self.add(top, value, entry, height)
            else:  # pragma: no cover - the parser sends nothing else inside a document
                raise AssertionError(f"unexpected YAML event {event}")
            if done is not None:
                return done

    @staticmethod
    def part(frame: _Frame) -> str | int:
        if frame.is_map:
            return "<<" if frame.key is _MERGE_KEY else str(frame.key)
        return len(frame.value)

    def over(self, line: int, depth: int) -> NoReturn:
        """The error for the value just counted: too many, or too deep."""
        if self.count > MAX_VALUES:
            self.error(f"more than {MAX_VALUES} values (after expanding aliases)", line)
        self.error(f"values nested more than {MAX_DEPTH} levels deep", line)

    def check_tag(self, tag: str | None, default: str, line: int) -> None:
        if tag is not None and tag != "!" and tag != default:
            self.error(f"unsupported YAML tag {_tag(tag)}", line)

    def new_anchor(self, anchor: str, line: int) -> None:
        first = self.anchor_lines.setdefault(anchor, line)
        if first != line or anchor in self.anchors:
            self.error(f"invalid YAML: found duplicate anchor '{anchor}' (first at line {first})",
                       line)

    def key(self, frame: _Frame, event: Any) -> None:
        """A map's key: a scalar's text (or an alias of one)."""
        line = event.start_mark.line + 1
        kind = type(event)
        if kind is ScalarEvent:
            text = self.text_of(event, frame, line, key=True)
            if event.tag is None and event.implicit[0] and text == "<<":
                frame.key = _MERGE_KEY
            else:
                if event.tag is not None and event.tag != "!" and event.tag not in _SCALAR_TAGS:
                    self.error(f"unsupported YAML tag {_tag(event.tag)}", line)
                frame.key = text
            if event.anchor is not None:
                self.new_anchor(event.anchor, line)
                value = self.construct(self.resolve(event, text), text, line)
                self.anchors[event.anchor] = _Anchor(value, None, text, 1, 0)
        elif kind is AliasEvent and event.anchor in self.anchors \
                and self.anchors[event.anchor].text is not None:
            frame.key = self.anchors[event.anchor].text
        elif kind is AliasEvent and event.anchor not in self.anchors:
            self.undefined(event.anchor, line)
        else:
            self.error("a key must be plain text, not a list or a map", line)
        frame.key_line = line

    def undefined(self, anchor: str, line: int) -> NoReturn:
        if anchor in self.anchor_lines:
            self.error("an alias refers to a value that contains it", line)
        self.error(f"invalid YAML: found undefined alias '{anchor}'", line)

    def resolve(self, event: Any, text: str) -> str:
        tag = event.tag
        if tag is not None:  # "!" (non-specific): a string, as libyaml resolves it
            return _STR if tag == "!" else str(tag)
        if event.implicit[0] and (text[:1] in self.implicit or not text):
            resolve: Any = self.resolver.resolve
            return str(resolve(ScalarNode, text, event.implicit))
        return _STR

    def scalar(self, event: Any, line: int, text: str) -> tuple[Any, Any]:
        """A scalar's value and entry from its ``text`` (tags, anchors: the general case)."""
        tag = self.resolve(event, text)
        if tag in (_STR, _TIMESTAMP):
            value: Any = text
            entry: Any = line
        else:
            value = self.construct(tag, text, line)
            entry = line if type(value) is int and str(value) == text else (line, text)
        if event.anchor is not None:
            self.new_anchor(event.anchor, event.start_mark.line + 1)
            self.anchors[event.anchor] = _Anchor(value, None, text, 1, 0)
        return value, entry

    def construct(self, tag: str, text: str, line: int) -> Any:
        if tag in (_STR, _TIMESTAMP):
            return text
        if tag not in _SCALAR_TAGS:
            self.error(f"unsupported YAML tag {_tag(tag)}", line)
        if tag in (_INT, _FLOAT) and len(text) > MAX_NUMBER_CHARS:
            self.error(f"cannot read the value: a number of {len(text):,} characters (at most "
                       f"{MAX_NUMBER_CHARS:,})", line)
        try:
            return self.constructor.construct_object(ScalarNode(tag, text), deep=True)
        except (yaml.YAMLError, ValueError, OverflowError, KeyError, IndexError):
            self.error(f"cannot read the value {show(text)}", line)

    def text_of(self, event: Any, top: _Frame | None, line: int, *, key: bool = False) -> str:
        """A scalar's text (a key's, or a value's in ``top``), escapes of surrogates restored
        and joined in pairs; a lone surrogate is an error at ``line``."""
        text: str = event.value if self.escapes is None else self.escapes.restore(event)
        return self.joined(text, top, line, key=key) if _SURROGATE.search(text) else text

    def joined(self, text: str, top: _Frame | None, line: int, *, key: bool) -> str:
        lone = lone_surrogate(text)
        if lone is not None:
            loc = () if top is None else top.loc if key else (*top.loc, self.part(top))
            path = render_path(loc)
            message = ("a key " if key else "") + _surrogate_message(lone)
            self.error(f"{path}: {message}" if path else message, line)
        return text.encode("utf-16", "surrogatepass").decode("utf-16")

    def alias(self, event: Any, line: int, depth: int) -> tuple[Any, Any, int]:
        anchor = self.anchors.get(event.anchor)
        if anchor is None:
            self.undefined(event.anchor, line)
        self.count += anchor.size
        if self.count > MAX_VALUES:
            self.error(f"more than {MAX_VALUES} values (after expanding aliases)", line)
        if depth + anchor.height > MAX_DEPTH:
            self.error(f"values nested more than {MAX_DEPTH} levels deep", line)
        if anchor.entries is not None:
            return anchor.value, _Meta(line, anchor.entries), anchor.height
        value = anchor.value
        plain = isinstance(value, str) or (type(value) is int and str(value) == anchor.text)
        return value, line if plain else (line, anchor.text), 0

    def close(self, frame: _Frame) -> tuple[Any, Any, int]:
        """The finished map or sequence of ``frame``, its entry and height."""
        value, entries = frame.value, frame.entries
        if frame.merges:
            merged: dict[str, Any] = {}
            merged_entries: dict[str, Any] = {}
            for other, other_entries in frame.merges:
                merged.update(other)
                merged_entries.update(other_entries)
            merged.update(value)
            merged_entries.update(entries)
            value, entries = merged, merged_entries
            frame.meta.entries = entries
        if frame.anchor is not None:
            self.anchors[frame.anchor] = _Anchor(value, entries, None,
                                                 self.count - frame.count + 1, frame.height)
        return value, frame.meta, frame.height

    def add(self, top: _Frame | None, value: Any, entry: Any,
            height: int) -> tuple[Any, Any] | None:
        """Put a finished value into the open collection; at the top level: the result."""
        if top is None:
            return value, entry
        if height + 1 > top.height:
            top.height = height + 1
        if not top.is_map:
            top.value.append(value)
            top.entries.append(entry)
            return None
        key = top.key
        top.key = None
        if key is _MERGE_KEY:
            self.merge(top, value, entry)
            return None
        if key in top.value:
            first = _entry_line(top.entries[key])
            self.problems.append(Problem((*top.loc, key), f"duplicate key '{key}' (first at "
                                         f"line {first})", parent=True, line=top.key_line))
        top.value[key] = value
        top.entries[key] = entry
        return None

    def merge(self, top: _Frame, value: Any, entry: Any) -> None:
        """``<<: *base`` or ``<<: [*a, *b]``: pairs merged in, explicit keys win (PyYAML's
        ``flatten_mapping``: in a list, earlier maps win)."""
        if isinstance(value, dict):
            found = [(value, entry.entries)]
        elif isinstance(value, list) and all(isinstance(v, dict) for v in value):
            found = [(v, e.entries) for v, e in zip(value, entry.entries, strict=True)][::-1]
        else:
            self.error(f"a merge key '<<' takes a map or a list of maps, got {show(value)}",
                       top.key_line)
        if top.merges is None:
            top.merges = []
        top.merges.extend(found)


def lone_surrogate(text: str) -> str | None:
    """The first UTF-16 surrogate of ``text`` that is not half of a pair, or None."""
    index = 0
    while (match := _SURROGATE.search(text, index)) is not None:
        char, at = match.group(), match.start()
        if char <= "\udbff" and "\udc00" <= text[at + 1 : at + 2] <= "\udfff":
            index = at + 2
            continue
        return char
    return None


def _surrogate_message(char: str) -> str:
    return (f"contains a lone surrogate \\u{ord(char):04x}, which cannot be written as UTF-8 "
            "(a \\u escape of half of a UTF-16 pair)")


def _syntax_error(exc: yaml.YAMLError, text: str, source: str, *,
                  libyaml: bool = False) -> ConfigError:
    if isinstance(exc, yaml.reader.ReaderError):
        position = max(exc.position, 0)  # libyaml's: bytes of the UTF-8 text
        if libyaml:
            line = text.encode("utf-8", "surrogatepass")[:position].count(b"\n") + 1
        else:
            line = text.count("\n", 0, position) + 1
        return ConfigError(f"invalid YAML: character #x{exc.character:04x} is not allowed"
                           if isinstance(exc.character, int)
                           else "invalid YAML: unreadable character", source, line)
    if not isinstance(exc, yaml.MarkedYAMLError) or exc.problem_mark is None:
        return ConfigError(f"invalid YAML: {exc}", source)
    problem = exc.problem or "syntax error"
    mark = exc.problem_mark
    at = text[mark.index : mark.index + 1] if 0 <= mark.index < len(text) else ""
    if "'\\t'" in problem or "tab character" in problem \
            or ("cannot start any token" in problem and at == "\t"):
        problem = "a tab character: YAML indents with spaces only"
    elif exc.context and exc.context_mark is not None:
        problem += f" ({exc.context} at line {exc.context_mark.line + 1})"
    # libyaml puts the end of the stream on the line after an unterminated last line
    line = min(exc.problem_mark.line + 1, text.count("\n") + 1)
    return ConfigError(f"invalid YAML: {problem}", source, line)


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

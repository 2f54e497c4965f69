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
laughs" document fails fast).

Deliberate strictness: duplicate keys are errors (YAML loaders silently keep the last), keys must
be plain scalars (their source text is the key: ``on: 1`` has key ``"on"``, not ``True``),
explicit tags other than YAML's core types are refused (``!!python/object``), and so are
duplicate anchors and numbers longer than :data:`MAX_NUMBER_CHARS` characters. Timestamps
(``2024-01-01``) stay strings: no scenario value is a date. ``\\u`` escapes of UTF-16 surrogates
(JSON's way to write an emoji, ``"\\ud83d\\ude00"``) are joined in pairs; a lone surrogate, which
no UTF-8 output could hold, is an error at its line. libyaml refuses every such escape, even a
pair, so it is given each pair as the character it stands for (on the same line); a pair
written outside a double-quoted scalar, where ``\\u`` is plain text, is left as it is in a
second reading.

Reading order: this module (loading, the limits, syntax errors), then
:mod:`fairshare.sim.parse.yaml_events` (the values built from the parser's events), then
:mod:`fairshare.sim.parse.yaml_doc` (the loaded document, where lines are kept, and the helpers that
name places and values in messages, re-exported here).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from fairshare.config.errors import ConfigError
from fairshare.config.files import decode_utf8, gc_paused, memory_guard, read_input
from fairshare.sim.parse.yaml_doc import (
    SURROGATE,
    Loc,
    Problem,
    YamlDoc,
    locate,
    lone_surrogate,
    not_a_string,
    render_path,
    scalar_text,
    show,
    suggest,
    surrogate_message,
)
from fairshare.sim.parse.yaml_events import Builder as _Builder  # not API (tests patch it here)
from fairshare.sim.parse.yaml_events import NotAnEscape

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
    "not_a_string",
    "read_text",
    "render_path",
    "scalar_text",
    "show",
    "suggest",
]

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

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
# a high and a low surrogate escape, after an even number of backslashes (so, escapes)
_PAIR_ESCAPE = re.compile(
    r"(?<!\\)((?:\\\\)*)\\u([dD][89abAB][0-9a-fA-F]{2})\\u([dD][c-fC-F][0-9a-fA-F]{2})")


def read_text(path: Path) -> str:
    """A file's text (UTF-8, optional BOM); any problem reading it is a :class:`ConfigError`:
    not a regular file (:mod:`fairshare.config.files`), more than :data:`MAX_SCENARIO_BYTES`,
    not UTF-8."""
    data = read_input(path, str(path), MAX_SCENARIO_BYTES)
    return decode_utf8(data, str(path))


def load_yaml(text: str, source: str) -> YamlDoc:
    """Parse one YAML document; syntax errors raise :class:`ConfigError` at their line, and so
    do documents over the limits (values, depth), unsupported tags, lone surrogates; running out
    of memory is "too large to load in memory"."""
    with memory_guard(source), gc_paused():
        if _CParser is None:
            return _load(text, source, libyaml=False)
        if _SURROGATE_ESCAPE.search(text) is None:
            return _load(text, source, libyaml=True)
        # libyaml refuses \u escapes of surrogates, even pairs: a pair is given to it as the
        # character it stands for (on the same line); pairs found outside a double-quoted
        # scalar, where \u is plain text, are left as they are in a second reading
        parsed, joined = _join_pairs(text, set())
        try:
            return _load(text, source, libyaml=True, parsed=parsed, joined=joined)
        except NotAnEscape as found:
            text_pairs = found.pairs
        parsed, joined = _join_pairs(text, text_pairs)
        try:
            return _load(text, source, libyaml=True, parsed=parsed, joined=joined)
        except NotAnEscape:  # pragma: no cover - the second reading joins escapes only
            return _load(text, source, libyaml=False)


def _join_pairs(text: str, keep: set[int]) -> tuple[str, list[int]]:
    """``text`` with each ``\\uD8xx\\uDCxx`` escape pair replaced by its character but those
    whose index is in ``keep``, and the positions of those characters in the new text."""
    joined: list[int] = []
    shift = 0
    index = -1

    def join(match: re.Match[str]) -> str:
        nonlocal shift, index
        index += 1
        if index in keep:
            return match.group()
        slashes = match.group(1)
        joined.append(match.start() - shift + len(slashes))
        shift += len(match.group()) - len(slashes) - 1
        pair = chr(int(match.group(2), 16)) + chr(int(match.group(3), 16))
        return slashes + pair.encode("utf-16-le", "surrogatepass").decode("utf-16-le")

    return _PAIR_ESCAPE.sub(join, text), joined


def _load(text: str, source: str, *, libyaml: bool, parsed: str | None = None,
          joined: list[int] | None = None) -> YamlDoc:
    """``text`` read by one parser; libyaml reads ``parsed`` instead when given (``text`` with
    its surrogate pairs joined, at the positions ``joined``)."""
    builder = _Builder(source, max_values=MAX_VALUES, max_depth=MAX_DEPTH,
                       max_number_chars=MAX_NUMBER_CHARS, surrogates=not libyaml,
                       parsed=parsed, joined=joined or ())
    read = text if parsed is None else parsed  # the same lines
    parser = None
    try:
        parser = _parser(read, source, libyaml=libyaml)
        return builder.load(parser)
    except yaml.YAMLError as exc:
        raise _syntax_error(exc, read, source, libyaml=libyaml) from None
    except RecursionError:  # PyYAML's own parser, on deeply nested flow collections
        raise ConfigError(f"values nested more than {MAX_DEPTH} levels deep", source) from None
    finally:
        if parser is not None:
            parser.dispose()


def _parser(text: str, source: str, *, libyaml: bool) -> Any:
    """libyaml's parser of ``text``, or PyYAML's own. Both refuse a surrogate *character*
    (not an escape: a string that did not come from a UTF-8 file) as a lone surrogate."""
    if libyaml:
        try:
            return _CParser(text)
        except UnicodeEncodeError as exc:  # libyaml reads UTF-8
            at = exc.start
    else:
        found = SURROGATE.search(text)
        if found is None:
            return yaml.SafeLoader(text)
        at = found.start()
    raise ConfigError(surrogate_message(text[at]), source, text.count("\n", 0, at) + 1)


def _syntax_error(exc: yaml.YAMLError, text: str, source: str, *,
                  libyaml: bool) -> ConfigError:
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

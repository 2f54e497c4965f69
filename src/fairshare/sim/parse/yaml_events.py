"""Plain values and their lines, built from a YAML parser's events within limits.

:func:`fairshare.sim.parse.yaml_lines.load_yaml` hands a parser (libyaml's or PyYAML's own: both
send the same events) to a :class:`Builder`, which asks it for one event at a time and builds as
they arrive. The open collections form a stack of :class:`Frame` objects; the bottom one stands
for the document and receives its one value. :meth:`Builder.values` sends each event to its
step:

* :meth:`~Builder.start` opens a frame for a map or a list, :meth:`~Builder.end` closes it and
  puts the finished value into the frame below (:meth:`~Builder.add`);
* in a map, scalars alternate: :meth:`~Builder.key` keeps a key in the frame until its value
  arrives; :meth:`~Builder.scalar` reads a value (a string, number, boolean or null);
* :meth:`~Builder.alias` puts in the value an anchor named, counted at its full size but never
  copied (a "billion laughs" document fails at once).

Every value is counted and its depth checked when its event arrives, so a document over the
limits fails at the value that crosses them, before the parser reads on. Beside each value goes
its *entry*, its line (:mod:`fairshare.sim.parse.yaml_doc`). Plain keys, strings and decimal
integers, of which a scenario or trace may hold a million, take the shortest paths.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
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
from fairshare.sim.parse.yaml_doc import (
    SURROGATE,
    Meta,
    Problem,
    YamlDoc,
    built_doc,
    entry_line,
    lone_surrogate,
    render_path,
    show,
    surrogate_message,
)
from fairshare.sim.parse.yaml_frames import MERGE_KEY, Anchor, Frame, NotAnEscape, merged_map

__all__ = ["Builder", "NotAnEscape"]

_CORE = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL = (_CORE + t for t in ("str", "int", "float", "bool", "null"))
_MAP, _SEQ, _TIMESTAMP = (_CORE + t for t in ("map", "seq", "timestamp"))
_SCALAR_TAGS = frozenset({_STR, _INT, _FLOAT, _BOOL, _NULL, _TIMESTAMP})
_PLAIN_INT = re.compile(r"0|-?[1-9][0-9]{0,17}").fullmatch  # decimal, exactly str(int(text))
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class Builder:
    """Plain values and their lines from a stream of YAML events, within the limits.

    With ``surrogates`` every scalar's text is checked for UTF-16 surrogates: PyYAML's own
    parser turns ``\\u`` escapes of them into characters (libyaml refuses those escapes).
    ``parsed`` is the text libyaml reads when the file had such escapes, each pair replaced by
    its character at the positions ``joined``: right in a double-quoted scalar, where ``\\u``
    is an escape, wrong anywhere else (:class:`NotAnEscape` at the end names those, to be read
    again unjoined); a lone one is libyaml's error, reported here with its place."""

    def __init__(self, source: str, *, max_values: int, max_depth: int, max_number_chars: int,
                 surrogates: bool, parsed: str | None = None,
                 joined: Sequence[int] = ()) -> None:
        self.source = source
        self.max_values, self.max_depth = max_values, max_depth
        self.max_number_chars = max_number_chars
        self.surrogates = surrogates or bool(joined)
        self.parsed, self.joined = parsed, joined
        self.not_escapes: set[int] = set()  # indices in ``joined`` of pairs that were text
        self.top: Frame | None = None  # the innermost open collection
        self.count = 0  # values so far, an alias counting all those it names
        self.anchors: dict[str, Anchor] = {}
        self.anchor_lines: dict[str, int] = {}
        self.problems: list[Problem] = []
        self.resolver = yaml.resolver.Resolver()
        self.implicit = yaml.resolver.Resolver.yaml_implicit_resolvers
        self.constructor = yaml.constructor.SafeConstructor()

    def error(self, message: str, line: int) -> NoReturn:
        raise ConfigError(message, self.source, line)

    def load(self, parser: Any) -> YamlDoc:
        """The one document of ``parser``'s events (the parser's errors pass through)."""
        next_event = parser.get_event
        event = next_event()
        assert isinstance(event, StreamStartEvent)
        event = next_event()
        if isinstance(event, StreamEndEvent):
            return built_doc(None, None, ())
        assert isinstance(event, DocumentStartEvent)
        value, root = self.values(next_event)
        event = next_event()
        if not isinstance(event, StreamEndEvent):
            self.error("invalid YAML: a second document (a scenario is one YAML document)",
                       event.start_mark.line + 1)
        if self.not_escapes:
            raise NotAnEscape(self.not_escapes)
        return built_doc(value, root, self.problems)

    def values(self, next_event: Any) -> tuple[Any, Any]:
        """The document's value and its entry: the events up to the document's end."""
        document = Frame(None, False, 1, None, 0)
        try:
            return self.events(next_event, document)
        except yaml.MarkedYAMLError as exc:
            if self.parsed is not None and self.top is not None and exc.problem_mark \
                    and "invalid Unicode character escape" in (exc.problem or ""):
                self.lone_escape(exc.problem_mark, self.top)
            raise

    def events(self, next_event: Any, document: Frame) -> tuple[Any, Any]:
        top = self.top = document  # the innermost open collection
        while True:
            event = next_event()
            kind = type(event)
            if kind is ScalarEvent:
                if top.is_map and top.key is None:
                    self.key(top, event)
                else:
                    self.scalar(top, event)
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                top = self.top = self.end(top)
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                top = self.top = self.start(top, event)
            elif kind is AliasEvent:
                self.alias(top, event)
            elif kind is DocumentEndEvent:
                return document.value[0], document.entries[0]
            else:  # pragma: no cover - the parser sends nothing else inside a document
                raise AssertionError(f"unexpected YAML event {event}")

    # ---- the steps, one per kind of event ------------------------------------------------------

    def key(self, top: Frame, event: Any) -> None:
        """A map's key: a scalar's text, kept in ``top`` until its value arrives."""
        line = event.start_mark.line + 1
        top.key_line = line
        if event.tag is None and event.anchor is None and not self.surrogates \
                and event.value != "<<":
            top.key = event.value  # the common case: plain text, nothing to check
            return
        text = self.text_of(event, top, line, key=True)
        if event.tag is not None and event.tag != "!" and event.tag not in _SCALAR_TAGS:
            self.error(f"unsupported YAML tag {_tag(event.tag)}", line)
        top.key = MERGE_KEY if event.tag is None and event.implicit[0] and text == "<<" else text
        if event.anchor is not None:
            self.new_anchor(event.anchor, line)
            value = self.construct(self.resolve(event, text), text, line)
            self.anchors[event.anchor] = Anchor(value, None, text, 1, 0)

    def scalar(self, top: Frame, event: Any) -> None:
        """A scalar value, counted, read and put into ``top`` (in a map, at its key's line)."""
        line = top.key_line if top.is_map else event.start_mark.line + 1
        self.count += 1
        if self.count > self.max_values or top.depth > self.max_depth:
            self.over(line)
        text = self.text_of(event, top, line) if self.surrogates else event.value
        if event.tag is not None or event.anchor is not None:
            value, entry = self.tagged(event, line, text)
        elif not event.implicit[0] or (text and text[:1] not in self.implicit):
            value, entry = text, line  # quoted, or plain but cannot be a number, bool or null
        elif _PLAIN_INT(text):
            value, entry = int(text), line  # its text is str(value)
        else:
            value, entry = self.tagged(event, line, text)
        # add(top, value, entry, 0), its common cases inline: an item, a new key
        if not top.height:
            top.height = 1
        if not top.is_map:
            top.value.append(value)
            top.entries.append(entry)
        elif top.key is not MERGE_KEY and top.key not in top.value:
            top.value[top.key] = value
            top.entries[top.key] = entry
            top.key = None
        else:
            self.add(top, value, entry, 0)

    def start(self, top: Frame, event: Any) -> Frame:
        """A map or a list begins: counted, and its frame opened on ``top``."""
        if top.is_map and top.key is None:
            self.error("a key must be plain text, not a list or a map",
                       event.start_mark.line + 1)
        line = top.key_line if top.is_map else event.start_mark.line + 1
        self.count += 1
        if self.count > self.max_values or top.depth > self.max_depth:
            self.over(line)
        is_map = type(event) is MappingStartEvent
        if event.tag is not None and event.tag != "!" and event.tag != (_MAP if is_map else _SEQ):
            self.error(f"unsupported YAML tag {_tag(event.tag)}", line)
        frame = Frame(top, is_map, line, event.anchor, self.count)
        if event.anchor is not None:
            self.new_anchor(event.anchor, event.start_mark.line + 1)
        return frame

    def end(self, top: Frame) -> Frame:
        """``top`` is complete: merges applied, its anchor noted, put into the frame below."""
        value, entries = top.value, top.entries
        if top.merges:
            value, entries = merged_map(top.merges, value, entries)
            top.meta.entries = entries
        if top.anchor is not None:
            self.anchors[top.anchor] = Anchor(value, entries, None, self.count - top.count + 1,
                                               top.height)
        parent = top.parent
        assert parent is not None
        self.add(parent, value, top.meta, top.height)
        return parent

    def alias(self, top: Frame, event: Any) -> None:
        """``*a``: what anchor ``a`` named, counted again (as a key: the text it named)."""
        if top.is_map and top.key is None:
            self.alias_key(top, event)
            return
        line = top.key_line if top.is_map else event.start_mark.line + 1
        anchor = self.anchors.get(event.anchor)
        if anchor is None:
            self.undefined(event.anchor, line)
        self.count += anchor.size
        if self.count > self.max_values or top.depth + anchor.height > self.max_depth:
            self.over(line)
        value = anchor.value
        if anchor.entries is not None:
            entry: Any = Meta(line, anchor.entries)
        elif isinstance(value, str) or (type(value) is int and str(value) == anchor.text):
            entry = line
        else:
            entry = (line, anchor.text)
        self.add(top, value, entry, anchor.height)

    def alias_key(self, top: Frame, event: Any) -> None:
        line = event.start_mark.line + 1
        anchor = self.anchors.get(event.anchor)
        if anchor is None:
            self.undefined(event.anchor, line)
        if anchor.text is None:
            self.error("a key must be plain text, not a list or a map", line)
        top.key, top.key_line = anchor.text, line

    # ---- putting values in ---------------------------------------------------------------------

    def add(self, top: Frame, value: Any, entry: Any, height: int) -> None:
        """Put a finished value (with ``height`` levels below it) into ``top``."""
        if height >= top.height:
            top.height = height + 1
        if not top.is_map:
            top.value.append(value)
            top.entries.append(entry)
            return
        key = top.key
        top.key = None
        if key is MERGE_KEY:
            self.merge(top, value, entry)
            return
        if key in top.value:
            first = entry_line(top.entries[key])
            self.problems.append(Problem((*top.loc, key), f"duplicate key '{key}' (first at "
                                         f"line {first})", parent=True, line=top.key_line))
        top.value[key] = value
        top.entries[key] = entry

    def merge(self, top: Frame, value: Any, entry: Any) -> None:
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

    # ---- scalars -------------------------------------------------------------------------------

    def lone_escape(self, mark: Any, top: Frame) -> None:
        """libyaml stopped at an escape it cannot read: if it is a surrogate's, the error of
        a lone surrogate, at its place in ``top``."""
        assert self.parsed is not None
        found = _SURROGATE_ESCAPE.match(self.parsed, max(mark.index - 2, 0))  # at its digits
        if found is None:
            return
        key = top.is_map and top.key is None
        line = top.key_line if top.is_map and not key else mark.line + 1
        path = render_path(top.loc if key else top.child_loc())
        message = ("a key " if key else "") + surrogate_message(chr(int(found.group()[2:], 16)))
        self.error(f"{path}: {message}" if path else message, line)

    def text_of(self, event: Any, top: Frame, line: int, *, key: bool = False) -> str:
        """A scalar's text (a key's, or a value's in ``top``), surrogates joined in pairs; a
        lone surrogate is an error at ``line``."""
        text: str = event.value
        if self.joined and event.style != '"':
            at = bisect.bisect_left(self.joined, event.start_mark.index)
            end = bisect.bisect_left(self.joined, event.end_mark.index)
            self.not_escapes.update(range(at, end))
        if SURROGATE.search(text) is None:
            return text
        lone = lone_surrogate(text)
        if lone is not None:
            path = render_path(top.loc if key else top.child_loc())
            message = ("a key " if key else "") + surrogate_message(lone)
            self.error(f"{path}: {message}" if path else message, line)
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le")

    def tagged(self, event: Any, line: int, text: str) -> tuple[Any, Any]:
        """A scalar's value and entry, the general case: tags, anchors, resolved types."""
        tag = self.resolve(event, text)
        if tag in (_STR, _TIMESTAMP):
            value: Any = text
            entry: Any = line
        else:
            value = self.construct(tag, text, line)
            entry = line if type(value) is int and str(value) == text else (line, text)
        if event.anchor is not None:
            self.new_anchor(event.anchor, event.start_mark.line + 1)
            self.anchors[event.anchor] = Anchor(value, None, text, 1, 0)
        return value, entry

    def resolve(self, event: Any, text: str) -> str:
        """A scalar's tag: its own, or what the YAML 1.1 rules make of a plain one."""
        tag = event.tag
        if tag is not None:  # "!" (non-specific): a string, as libyaml resolves it
            return _STR if tag == "!" else str(tag)
        if event.implicit[0] and (text[:1] in self.implicit or not text):
            resolve: Any = self.resolver.resolve
            return str(resolve(ScalarNode, text, event.implicit))
        return _STR

    def construct(self, tag: str, text: str, line: int) -> Any:
        if tag in (_STR, _TIMESTAMP):
            return text  # timestamps stay strings: no scenario value is a date
        if tag not in _SCALAR_TAGS:
            self.error(f"unsupported YAML tag {_tag(tag)}", line)
        if tag in (_INT, _FLOAT) and len(text) > self.max_number_chars:
            self.error(f"cannot read the value: a number of {len(text):,} characters (at most "
                       f"{self.max_number_chars:,})", line)
        try:
            return self.constructor.construct_object(ScalarNode(tag, text), deep=True)
        except (yaml.YAMLError, ValueError, OverflowError, KeyError, IndexError):
            self.error(f"cannot read the value {show(text)}", line)

    # ---- errors --------------------------------------------------------------------------------

    def over(self, line: int) -> NoReturn:
        """The error for the value just counted: too many, or too deep."""
        if self.count > self.max_values:
            self.error(f"more than {self.max_values} values (after expanding aliases)", line)
        self.error(f"values nested more than {self.max_depth} levels deep", line)

    def new_anchor(self, anchor: str, line: int) -> None:
        first = self.anchor_lines.setdefault(anchor, line)
        if first != line or anchor in self.anchors:
            self.error(f"invalid YAML: found duplicate anchor '{anchor}' (first at line {first})",
                       line)

    def undefined(self, anchor: str, line: int) -> NoReturn:
        if anchor in self.anchor_lines:
            self.error("an alias refers to a value that contains it", line)
        self.error(f"invalid YAML: found undefined alias '{anchor}'", line)


def _tag(tag: str) -> str:
    return "'!!" + tag[len(_CORE):] + "'" if tag.startswith(_CORE) else repr(tag)

"""The pieces :class:`~fairshare.sim.parse.yaml_events.Builder` builds with: the open
collections (:class:`Frame`), what an anchor named (:class:`Anchor`), a map's merge keys
applied, and the exception for surrogate escapes that were plain text."""

from __future__ import annotations

from typing import Any

from fairshare.sim.parse.yaml_doc import Loc, Meta

MERGE_KEY = object()  # the key "<<" (plain): merge another map in


class Frame:
    """A map or list being filled; the bottom frame (no parent) is the document."""

    __slots__ = ("anchor", "count", "depth", "entries", "height", "is_map", "key", "key_line",
                 "loc", "merges", "meta", "parent", "value")

    def __init__(self, parent: Frame | None, is_map: bool, line: int, anchor: str | None,
                 count: int) -> None:
        self.parent = parent
        self.is_map = is_map
        self.loc: Loc = () if parent is None else parent.child_loc()
        self.depth: int = 0 if parent is None else parent.depth + 1  # open collections
        self.meta = Meta(line, {} if is_map else [])
        self.entries: Any = self.meta.entries
        self.value: Any = {} if is_map else []
        self.anchor = anchor
        self.count = count  # values counted up to this one
        self.height = 0  # levels of values below this one
        self.key: Any = None  # a map's key waiting for its value
        self.key_line = 0
        self.merges: list[tuple[dict[str, Any], dict[str, Any]]] | None = None

    def child_loc(self) -> Loc:
        """The loc of the value this frame is reading."""
        if self.parent is None:
            return ()  # the document's one value
        if self.is_map:
            return (*self.loc, "<<" if self.key is MERGE_KEY else str(self.key))
        return (*self.loc, len(self.value))


class Anchor:
    """What ``&a`` named: its value, entries (a collection's), text (a scalar's), size, height."""

    __slots__ = ("entries", "height", "size", "text", "value")

    def __init__(self, value: Any, entries: Any, text: str | None, size: int,
                 height: int) -> None:
        self.value, self.entries, self.text = value, entries, text
        self.size, self.height = size, height


class NotAnEscape(Exception):
    """Joined pairs of surrogate escapes that were plain text (outside a double-quoted scalar):
    ``pairs`` holds their indices among the joined ones."""

    def __init__(self, pairs: set[int]) -> None:
        super().__init__(pairs)
        self.pairs = pairs


def merged_map(merges: list[tuple[dict[str, Any], dict[str, Any]]], value: dict[str, Any],
            entries: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A map's pairs after its merge keys': the map's own keys win."""
    merged: dict[str, Any] = {}
    merged_entries: dict[str, Any] = {}
    for other, other_entries in [*merges, (value, entries)]:
        merged.update(other)
        merged_entries.update(other_entries)
    return merged, merged_entries

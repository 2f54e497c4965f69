"""One JSON file of a ResourceManager dump, read with the line of every value it is asked for.

Errors name the file, the field (``apps.app[3].allocatedMB``) and its line, so that a truncated
or edited dump is fixed where it is wrong (:mod:`fairshare.sim.parse.jsontext` gives the
lines).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NoReturn

from fairshare.config.errors import ConfigError
from fairshare.sim.parse.jsontext import (
    MAX_TOPOLOGY_BYTES,
    json_doc,
    json_single,
    read_trace_text,
)
from fairshare.sim.parse.yaml_lines import Loc, render_path, show

_BUILT_IN = ("memory-mb", "vcores")  # the resource types every RM has
MAX_DUMP_BYTES = 8 * MAX_TOPOLOGY_BYTES  # 128 MiB: a busy RM's apps list with its history


class JsonFile:
    """A dump file's value and text, and located errors about it: read from a file
    (:meth:`read`) or, for ``fairshare watch``, from an answer the RM just gave (``display``
    names the endpoint)."""

    @classmethod
    def read(cls, path: Path, display: str) -> JsonFile:
        return cls(read_trace_text(path, display, MAX_DUMP_BYTES), display)

    def __init__(self, text: str, display: str, *, lines: bool = True) -> None:
        """``lines=False``: every value is on line 1 — an RM's answer is one line of compact
        JSON (Jersey writes no newlines), where errors are located by field alone and
        indexing ten thousand apps for their lines would cost more than reading them."""
        self.display = display
        self.text = text
        single = json_single(self.text, display)
        self.value: Any = single.value
        # one index of the text for every line asked for: a dump has thousands of records
        self._doc = json_doc(single.value, self.text, single.start, single.line) if lines \
            else None

    def line(self, loc: Loc) -> int:
        return self._doc.lines[loc] if self._doc is not None else 1

    def fail(self, loc: Loc, message: str) -> NoReturn:
        where = render_path(loc)
        raise ConfigError(f"{where}: {message}" if where else message, self.display,
                          self.line(loc))

    def member(self, parent: Any, loc: Loc, key: str, *, required: bool = True) -> Any:
        """``parent[key]`` (``parent`` is the object at ``loc``); None when optional and
        missing or null."""
        if not isinstance(parent, dict):
            self.fail(loc, f"must be a JSON object, got {show(parent)}")
        value = parent.get(key)
        if value is None and required:
            self.fail(loc, f"missing field '{key}'" if key not in parent else
                      f"'{key}' is null")
        return value

    def obj(self, parent: Any, loc: Loc, key: str, *, required: bool = True) -> Any:
        value = self.member(parent, loc, key, required=required)
        if value is not None and not isinstance(value, dict):
            self.fail((*loc, key), f"must be a JSON object, got {show(value)}")
        return value

    def text_of(self, parent: Any, loc: Loc, key: str, *, required: bool = True) -> str | None:
        if type(parent) is dict:  # the common case first: an RM answer has 300,000 of them
            found = parent.get(key)
            if type(found) is str:
                return found
        value = self.member(parent, loc, key, required=required)
        if value is not None and not isinstance(value, str):
            self.fail((*loc, key), f"must be text, got {show(value)}")
        return value

    def count(self, parent: Any, loc: Loc, key: str, *, required: bool = True,
              unknown: bool = False) -> int | None:
        """A non-negative whole number (MB, vcores, containers, times in ms). ``unknown``:
        -1 is read as 0 (the RM reports -1 for what an app without an attempt holds)."""
        if type(parent) is dict:  # the common case first: an RM answer has 300,000 of them
            found = parent.get(key)
            if type(found) is int and found >= 0:
                return found
        value = self.member(parent, loc, key, required=required)
        if value is None:
            return None
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if unknown and value == -1:
            return 0
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            self.fail((*loc, key), f"must be a non-negative whole number, got {show(value)}")
        return value

    def flag(self, parent: Any, loc: Loc, key: str) -> bool | None:
        value = self.member(parent, loc, key, required=False)
        if value is not None and not isinstance(value, bool):
            self.fail((*loc, key), f"must be true or false, got {show(value)}")
        return value

    def items(self, parent: Any, loc: Loc, key: str, inner: str) -> list[tuple[Loc, Any]]:
        """The entries of a Jersey list: ``{key: {inner: [...]}}``; ``{key: null}`` (nothing
        to list) is empty and a single entry may come as an object instead of a list."""
        wrapper = self.member(parent, loc, key, required=False)
        if wrapper is None:
            return []
        where: Loc = (*loc, key)
        if isinstance(wrapper, list):  # Hadoop 2's childQueues: the list itself
            return [((*where, i), item) for i, item in enumerate(wrapper)]
        value = self.member(wrapper, where, inner, required=False)
        if value is None:
            return []
        if isinstance(value, dict):
            return [((*where, inner), value)]
        if not isinstance(value, list):
            self.fail((*where, inner), f"must be a list, got {show(value)}")
        return [((*where, inner, i), item) for i, item in enumerate(value)]

    def amounts(self, parent: Any, loc: Loc, key: str, *, required: bool = True
                ) -> tuple[int, int] | None:
        """A resource object ``{"memory": MB, "vCores": n}`` as (memory-mb, vcores)."""
        value = self.obj(parent, loc, key, required=required)
        if value is None:
            return None
        where: Loc = (*loc, key)
        memory = self.count(value, where, "memory")
        vcores = self.count(value, where, "vCores")
        assert memory is not None and vcores is not None
        return memory, vcores

    def custom_types(self, parent: Any, loc: Loc, key: str) -> list[tuple[str, int]]:
        """The resource types beyond memory-mb and vcores of the resource object ``key``
        (``resourceInformations.resourceInformation[]``, Hadoop 3's ``ResourceInfo``), as
        (name, value); none when the object or its list is missing (Hadoop 2)."""
        value = parent.get(key) if isinstance(parent, dict) else None
        if not isinstance(value, dict):
            return []
        infos = value.get("resourceInformations")
        listed = infos.get("resourceInformation") if type(infos) is dict else None
        if type(listed) is list and all(type(i) is dict and i.get("name") in _BUILT_IN
                                        for i in listed):
            return []  # the common case, memory and vcores only: nothing to locate
        where: Loc = (*loc, key)
        found = []
        for item_loc, item in self.items(value, where, "resourceInformations",
                                         "resourceInformation"):
            name = self.text_of(item, item_loc, "name")
            if name in _BUILT_IN:
                continue
            amount = self.count(item, item_loc, "value")
            assert name is not None and amount is not None
            found.append((name, amount))
        return found

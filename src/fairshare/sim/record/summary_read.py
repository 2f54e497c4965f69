"""Reading ``summary.json`` into :class:`~fairshare.sim.record.summary_model.Summary`.

Every reader of a run's summary (the report, ``compare``, ``explain``, the terminal, a sweep)
comes through :func:`load_summary`: a file that is not a summary of the schema this fairshare
writes — a key missing or unknown, a value of the wrong type, no ``schema`` (an older
fairshare) or a newer one — is refused once, as a :class:`ConfigError` naming the file and the
field, never a traceback halfway through a chart or a table.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.sim.record.outputs import SUMMARY, read_summary
from fairshare.sim.record.summary_model import SCHEMA, Summary, json_key


class SummaryError(ValueError):
    """A document that is not a summary of :data:`SCHEMA`; ``field`` is the path of what is
    wrong (``queues.root.a.usage.vcores``, ``schema``)."""

    def __init__(self, field_path: str, message: str) -> None:
        super().__init__(f"{field_path}: {message}" if field_path else message)
        self.field = field_path


def load_summary(outdir: Path) -> Summary:
    """The summary of the run in ``outdir``; a missing, unreadable or malformed file, or one
    of another schema, is a :class:`ConfigError` naming the file (and the field)."""
    doc = read_summary(outdir)
    try:
        return parse_summary(doc)
    except SummaryError as e:
        raise ConfigError(f"not a fairshare summary (docs/outputs.md): {e}",
                          str(outdir / SUMMARY)) from None


# -- reading ------------------------------------------------------------------------------------


def parse_summary(doc: object) -> Summary:
    """``doc`` (parsed JSON) as a :class:`Summary`; :class:`SummaryError` naming the field
    when a key is missing or unknown, a value of the wrong type, or the schema not
    :data:`SCHEMA`."""
    if not isinstance(doc, dict):
        raise SummaryError("", "not a JSON object")
    if "schema" not in doc:
        raise SummaryError("schema", f"missing: written before summaries had a version (an "
                           f"older fairshare); this one reads schema {SCHEMA} — run the "
                           f"scenario again")
    version = doc["schema"]
    if isinstance(version, bool) or not isinstance(version, int):
        raise SummaryError("schema", f"expected a whole number, got {_shown(version)}")
    if version != SCHEMA:
        age = "newer" if version > SCHEMA else "older"
        raise SummaryError("schema", f"{version} is {age} than the schema this fairshare reads "
                           f"({SCHEMA})")
    parsed = _reader(Summary)(doc, "")
    assert isinstance(parsed, Summary)
    return parsed


Reader = Callable[[Any, str], Any]
_READERS: dict[object, Reader] = {}


def _reader(hint: object) -> Reader:
    """The checking reader of a type the model uses, made once per type."""
    made = _READERS.get(hint)
    if made is None:
        made = _READERS[hint] = _make_reader(hint)
    return made


def _make_reader(hint: object) -> Reader:
    if isinstance(hint, type) and is_dataclass(hint):
        return _dataclass_reader(hint)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is types.UnionType or origin is typing.Union:
        inner = _reader(next(a for a in args if a is not type(None)))
        return lambda value, where: None if value is None else inner(value, where)
    if origin is tuple:
        item = _reader(args[0])
        return lambda value, where: tuple(item(v, f"{where}[{i}]")
                                          for i, v in enumerate(_list(value, where)))
    if origin is Mapping:
        item = _reader(args[1])
        return lambda value, where: {k: item(v, _join(where, k))
                                     for k, v in _object(value, where).items()}
    return _scalar_reader(hint)


def _dataclass_reader(cls: type) -> Reader:
    hints = typing.get_type_hints(cls)
    spec = [(f.name, json_key(f), _reader(hints[f.name])) for f in fields(cls)]
    keys = {key for _, key, _ in spec}

    def read(value: Any, where: str) -> Any:
        obj = _object(value, where)
        values = {}
        for name, key, item in spec:
            if key not in obj:
                raise SummaryError(_join(where, key), "missing")
            values[name] = item(obj[key], _join(where, key))
        unknown = next((k for k in obj if k not in keys), None)
        if unknown is not None:
            raise SummaryError(_join(where, unknown), "not a field of a summary")
        return cls(**values)

    return read


def _scalar_reader(hint: object) -> Reader:
    if hint is bool:
        def check(value: Any) -> bool:
            return isinstance(value, bool)
        wanted = "true or false"
    elif hint is int:
        def check(value: Any) -> bool:
            return isinstance(value, int) and not isinstance(value, bool)
        wanted = "a whole number"
    elif hint is float:  # a whole number too, kept as it is (the same bytes again)
        def check(value: Any) -> bool:
            return isinstance(value, int | float) and not isinstance(value, bool)
        wanted = "a number"
    elif hint is str:
        def check(value: Any) -> bool:
            return isinstance(value, str)
        wanted = "a string"
    else:
        raise TypeError(f"no summary reader for {hint!r}")

    def read(value: Any, where: str) -> Any:
        if not check(value):
            raise SummaryError(where, f"expected {wanted}, got {_shown(value)}")
        return value

    return read


def _object(value: Any, where: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise SummaryError(where, f"expected an object, got {_shown(value)}")
    return value


def _list(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list):
        raise SummaryError(where, f"expected a list, got {_shown(value)}")
    return value


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _shown(value: object) -> str:
    return "null" if value is None else f"{value!r:.40}"


__all__ = ["SummaryError", "load_summary", "parse_summary"]

"""Events as records: :func:`event_record` turns an event into the JSON-ready record of
``events.jsonl`` (docs/scenario-format.md): ``{"seq", "t", "type", ...fields in kebab-case}``;
:func:`record_problem` checks a record read back against its event class.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from fairshare.core.model import events
from fairshare.core.model.events import Event
from fairshare.core.model.reasons import Because, parse_member, parse_reason
from fairshare.resources.vector import Resource, ResourceTypes


def _plain(value: Any, types: ResourceTypes) -> Any:
    if isinstance(value, Resource):
        return types.as_dict(value)
    if isinstance(value, str):  # a reason (a StrEnum member or a Because) as its text
        return value if type(value) is str else str(value)
    if isinstance(value, tuple):
        return [_plain(v, types) for v in value]
    if isinstance(value, dict):  # no-preemption's blocked: BlockedCause → count
        return {str(k): v for k, v in value.items()}
    return value


def event_record(event: Event, types: ResourceTypes) -> dict[str, Any]:
    """The ``events.jsonl`` record: ``t`` and ``type`` first, then the fields in kebab-case."""
    record: dict[str, Any] = {"t": event.time, "type": event.type, "seq": event.seq}
    if event.cause is not None:
        record["cause"] = event.cause
    for f in dataclasses.fields(event):
        if f.name in ("seq", "time", "cause"):
            continue
        record[f.name.replace("_", "-")] = _plain(getattr(event, f.name), types)
    return record


# -- reading records back -------------------------------------------------------------------------

class _Amounts(dict[str, int]):
    """Stands for a Resource written as ``{"memory-mb": n, "vcores": n, …}`` (never built)."""


_JSON_KINDS: dict[object, tuple[type, ...]] = {
    str: (str,), int: (int,), float: (int, float), bool: (bool,), Resource: (_Amounts,),
}


def _json_kinds(annotation: object) -> tuple[type, ...]:
    """The JSON values (as Python decodes them) a field of this annotation is written as."""
    if annotation in _JSON_KINDS:
        return _JSON_KINDS[annotation]
    if annotation is type(None):
        return (type(None),)
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        return (str,)
    if typing.get_origin(annotation) is Because:
        return (str,)
    if isinstance(annotation, types.UnionType):
        return tuple(k for option in typing.get_args(annotation) for k in _json_kinds(option))
    origin = typing.get_origin(annotation)
    if origin is tuple:
        return (list,)
    if origin in (dict, Mapping):
        return (dict,)
    raise TypeError(f"no JSON kind for {annotation!r}")


def _event_classes() -> list[type[Event]]:
    """The event classes as their module names them, in definition order. (Not
    ``Event.__subclasses__()``: ``dataclass(slots=True)`` builds a new class and leaves the
    one it replaced among the subclasses.)"""
    return [v for v in vars(events).values()
            if isinstance(v, type) and issubclass(v, Event) and v is not Event]


def _record_fields(cls: type[Event]) -> dict[str, tuple[type, ...]]:
    hints = typing.get_type_hints(cls)
    return {f.name.replace("_", "-"): _json_kinds(hints[f.name]) for f in dataclasses.fields(cls)
            if f.name not in ("seq", "time", "cause")}


# how a reason field is read back: a member, a Because of the kind, or a mapping's keys
_Reading = tuple[type[StrEnum], str]


def _reason_fields(cls: type[Event]) -> dict[str, _Reading]:
    found: dict[str, _Reading] = {}
    for name, hint in typing.get_type_hints(cls).items():
        key = name.replace("_", "-")
        args = typing.get_args(hint)
        if isinstance(hint, type) and issubclass(hint, StrEnum):
            found[key] = (hint, "member")
        elif typing.get_origin(hint) is Because:
            found[key] = (args[0], "because")
        elif typing.get_origin(hint) in (dict, Mapping) and isinstance(args[0], type) \
                and issubclass(args[0], StrEnum):
            found[key] = (args[0], "keys")
    return found


EVENT_CLASSES = {cls.type: cls for cls in _event_classes()}
RECORD_FIELDS = {name: _record_fields(cls) for name, cls in EVENT_CLASSES.items()}
REASON_FIELDS = {name: _reason_fields(cls) for name, cls in EVENT_CLASSES.items()}


def record_reasons(record: Mapping[str, Any]) -> dict[str, Any]:
    """The reasons of a record read back (``events.jsonl``), typed: per reason key present, its
    member (fairshare.core.model.reasons), its :class:`Because` (kind and details), or for
    ``blocked`` a dict by member. ValueError naming the event type and key when a value is not
    one this version writes (a type it does not know has none)."""
    typed: dict[str, Any] = {}
    for key, (kind, how) in REASON_FIELDS.get(str(record.get("type")), {}).items():
        if key not in record:
            continue
        value = record[key]
        try:
            if how == "member":
                typed[key] = parse_member(kind, value)
            elif how == "because":
                typed[key] = parse_reason(kind, value)
            else:
                typed[key] = {parse_member(kind, k): n for k, n in value.items()}
        except ValueError as e:
            raise ValueError(f"{record['type']} {key!r}: {e}") from None
    return typed


def record_problem(record: object) -> str | None:
    """What makes ``record`` (one decoded line of ``events.jsonl``) not an event this version
    writes, or None. A type it does not know is checked for ``t``, ``type`` and ``seq`` only
    (a newer version's event); keys a type gained later (``added``) may be missing; a reason
    must be one this version writes (:func:`record_reasons`)."""
    if not isinstance(record, dict):
        return "not a JSON object"
    for key, kind in (("t", int), ("seq", int), ("type", str)):
        value = record.get(key)
        if not isinstance(value, kind) or isinstance(value, bool):
            return f"{key!r} missing or not {'text' if kind is str else 'a whole number'}"
    fields = RECORD_FIELDS.get(record["type"])
    if fields is None:
        return None
    added = EVENT_CLASSES[record["type"]].added
    for key, kinds in fields.items():
        if key not in record:
            if key in added:
                continue
            return f"{record['type']} without {key!r}"
        value = record[key]
        if _Amounts in kinds and (value is not None or type(None) not in kinds):
            if not isinstance(value, dict) or not all(
                    isinstance(v, int | float) and not isinstance(v, bool)
                    for v in value.values()):
                return f"{record['type']} {key!r} is not resource amounts"
            continue
        if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
            return f"{record['type']} {key!r} is {type(value).__name__}, not " + \
                " or ".join(k.__name__ for k in kinds)
    try:
        record_reasons(record)
    except ValueError as e:
        return str(e)
    return None

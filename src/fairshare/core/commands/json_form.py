"""A command's JSON form: ``{"kind": …}`` and its fields in kebab-case, read back with every
field checked (docs/architecture.md, "Commands")."""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from types import UnionType
from typing import Any, Literal

from fairshare.core.commands.vocabulary import (
    _CLASSES,
    COMMAND_KINDS,
    AddNode,
    Command,
    Reload,
)
from fairshare.core.lifecycle.asks import ContainerRequest
from fairshare.core.model.records import ANY
from fairshare.resources.vector import Resource, ResourceTypes

# -- the JSON form -----------------------------------------------------------------------------

_NOT_IN_JSON = frozenset({"allocations"})  # a Reload's, which is parsed from its text
_HINTS = {cls: typing.get_type_hints(cls) for cls in _CLASSES}


def _key(name: str) -> str:
    return name.replace("_", "-")


def _request_json(r: ContainerRequest, types: ResourceTypes) -> dict[str, Any]:
    return {"count": r.count, "resource": types.as_dict(r.resource), "priority": r.priority,
            "locality": r.locality, "relax-locality": r.relax_locality}


def command_to_json(command: Command, types: ResourceTypes) -> dict[str, Any]:
    """``command`` as a JSON-ready dict: ``kind`` first, then every field (defaults too)."""
    out: dict[str, Any] = {"kind": command.kind}
    for f in dataclasses.fields(command):
        if f.name in _NOT_IN_JSON:
            continue
        value = getattr(command, f.name)
        if isinstance(value, Resource):
            value = types.as_dict(value)
        elif isinstance(value, tuple):  # an ask's requests, or the nodes of an add-nodes
            value = [_request_json(r, types) if isinstance(r, ContainerRequest)
                     else _without_kind(command_to_json(r, types)) for r in value]
        out[_key(f.name)] = value
    return out


def _without_kind(data: dict[str, Any]) -> dict[str, Any]:
    del data["kind"]
    return data


def command_from_json(data: Mapping[str, Any], types: ResourceTypes) -> Command:
    """The command ``data`` (as :func:`command_to_json` writes it) stands for; fields left out
    take their defaults. Raises ``ValueError`` naming what is wrong (``ConfigError`` for a
    reload whose text does not parse)."""
    kind = data.get("kind")
    cls = COMMAND_KINDS.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"unknown command kind {kind!r}; known: {', '.join(COMMAND_KINDS)}")
    fields = {_key(f.name): f for f in dataclasses.fields(cls) if f.name not in _NOT_IN_JSON}
    unknown = set(data) - set(fields) - {"kind"}
    if unknown:
        raise ValueError(f"{kind}: unknown field(s) {', '.join(sorted(unknown))}")
    values: dict[str, Any] = {}
    for key, f in fields.items():
        if key in data:
            values[f.name] = _decode(data[key], _HINTS[cls][f.name], f"{kind}.{key}", types)
        elif (f.default is dataclasses.MISSING
              and f.default_factory is dataclasses.MISSING):
            raise ValueError(f"{kind}: missing field {key}")
    if cls is Reload:
        return Reload.of_text(values["text"], values["source"], types)
    return cls(**values)


def _decode(value: Any, hint: Any, where: str, types: ResourceTypes) -> Any:
    args = typing.get_args(hint)
    if isinstance(hint, UnionType) and type(None) in args:
        if value is None:
            return None
        (hint,) = [a for a in args if a is not type(None)]
    if typing.get_origin(hint) is Literal:
        if value not in args:
            raise ValueError(f"{where}: {value!r} is not one of {', '.join(map(str, args))}")
        return value
    if hint is Resource:
        return _resource(value, where, types)
    if typing.get_origin(hint) is tuple and typing.get_args(hint)[0] is AddNode:
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a list of nodes, got {value!r}")
        return tuple(_node(n, f"{where}[{i}]", types) for i, n in enumerate(value))
    if typing.get_origin(hint) is tuple:
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a list of requests, got {value!r}")
        return tuple(_request(r, f"{where}[{i}]", types) for i, r in enumerate(value))
    kinds = {str: (str,), int: (int,), bool: (bool,)}[hint]
    if not isinstance(value, kinds) or (hint is int and isinstance(value, bool)):
        raise ValueError(f"{where}: expected {hint.__name__}, got {value!r}")
    return value



def _node(value: Any, where: str, types: ResourceTypes) -> AddNode:
    """One node of an ``add-nodes``: an ``add-node`` without its kind."""
    if not isinstance(value, dict) or "kind" in value:
        raise ValueError(f"{where}: expected a node (an add-node's fields), got {value!r}")
    try:
        node = command_from_json({"kind": AddNode.kind, **value}, types)
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    assert isinstance(node, AddNode)
    return node


def _resource(value: Any, where: str, types: ResourceTypes) -> Resource:
    if not isinstance(value, dict) or not all(
            isinstance(k, str) and isinstance(v, int) and not isinstance(v, bool)
            for k, v in value.items()):
        raise ValueError(f"{where}: expected resource amounts by type, got {value!r}")
    try:
        return types.of(value)
    except KeyError as e:
        raise ValueError(f"{where}: {e.args[0]}") from None


_REQUEST_FIELDS: dict[str, tuple[Any, Any]] = {  # key: (type, default)
    "count": (int, dataclasses.MISSING), "resource": (Resource, dataclasses.MISSING),
    "priority": (int, 1), "locality": (str, ANY), "relax-locality": (bool, True),
}


def _request(value: Any, where: str, types: ResourceTypes) -> ContainerRequest:
    if not isinstance(value, dict):
        raise ValueError(f"{where}: expected a request, got {value!r}")
    unknown = set(value) - set(_REQUEST_FIELDS)
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    got: list[Any] = []
    for key, (hint, default) in _REQUEST_FIELDS.items():
        if key in value:
            got.append(_decode(value[key], hint, f"{where}.{key}", types))
        elif default is dataclasses.MISSING:
            raise ValueError(f"{where}: missing field {key}")
        else:
            got.append(default)
    return ContainerRequest(*got)

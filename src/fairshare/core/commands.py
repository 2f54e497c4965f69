"""The engine's commands as data: one frozen dataclass per thing a caller can make it do.

Every driver speaks this vocabulary — the scripted runner's steps, the workload's timed changes,
the simulator's app model, the differential oracle's trace — and so will a live service's
request handlers and a state store's journal. :func:`apply_command` carries one out on an
:class:`~fairshare.core.engine.Engine` through exactly the public method a direct caller would
use, so a command has the same effect and events as that call.

Each command has a stable ``kind`` and a JSON form (:func:`command_to_json`,
:func:`command_from_json`; docs/architecture.md, "Commands"): ``{"kind": …}`` and its fields in
kebab-case, resources as ``{"memory-mb": n, "vcores": n, …}`` of the engine's resource types.
A :class:`Reload` travels as the allocation file YARN read (``text``) and is parsed again when
read back, as ``AllocationFileLoaderService`` would on the ResourceManager that replays it.

The names follow YARN's protocols: :class:`Ask` is the ``ask`` list of an AM's
``AllocateRequest`` (``AMRMClient.addContainerRequest``), :class:`Release` and
:class:`CompleteContainer` its ``release`` list and a task's container exiting, :class:`Kill`
and :class:`Move` the client's ``killApplication`` and ``moveApplicationAcrossQueues``,
:class:`Decommission` ``yarn rmadmin -refreshNodes -g``.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, UnionType
from typing import Any, ClassVar, Literal, overload

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.model import AllocationConfig
from fairshare.core.engine import DEFAULT_RACK, Engine
from fairshare.core.lifecycle.asks import ContainerRequest
from fairshare.core.model.records import ANY, App, Container, Node
from fairshare.resources.vector import Resource, ResourceTypes

__all__ = [
    "COMMAND_KINDS", "AddNode", "Advance", "AdvanceTo", "Ask", "Command", "CompleteContainer",
    "Decommission", "Finish", "Heartbeat", "HeartbeatAll", "Kill", "Move", "Preempt",
    "RecoverContainer", "Release", "Reload", "ReloadFailed", "RemoveNode", "ResizeNode",
    "Submit", "Update", "apply_command", "command_from_json", "command_to_json",
]


# Slots: the simulator's loop makes one per engine call it makes (bench/simulate.py).

# -- nodes -------------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class AddNode:
    """A NodeManager registers (``FairScheduler.addNode``)."""
    kind: ClassVar[str] = "add-node"
    node: str
    capacity: Resource
    rack: str = DEFAULT_RACK


@dataclass(frozen=True, slots=True)
class RemoveNode:
    """The node is lost (``FairScheduler.removeNode``): its containers end."""
    kind: ClassVar[str] = "remove-node"
    node: str


@dataclass(frozen=True, slots=True)
class ResizeNode:
    """The node's total changes (``FairScheduler.updateNodeResource``)."""
    kind: ClassVar[str] = "resize-node"
    node: str
    capacity: Resource


@dataclass(frozen=True, slots=True)
class Decommission:
    """Graceful decommission; ``timeout_ms`` None: no timeout (YARN's -1)."""
    kind: ClassVar[str] = "decommission-node"
    node: str
    timeout_ms: int | None


@dataclass(frozen=True, slots=True)
class Heartbeat:
    """One NodeManager heartbeat: ``attemptScheduling`` on that node."""
    kind: ClassVar[str] = "heartbeat"
    node: str


@dataclass(frozen=True, slots=True)
class HeartbeatAll:
    """Every node heartbeats once, in registration order."""
    kind: ClassVar[str] = "heartbeat-all"


# -- applications ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Submit:
    """An application is submitted; ``am`` None: an unmanaged AM. ``recovering``: it was
    running before an RM restart (its containers come as :class:`RecoverContainer`)."""
    kind: ClassVar[str] = "submit"
    app: str
    queue: str = "default"
    user: str = "nobody"
    am: Resource | None = None
    requests: tuple[ContainerRequest, ...] = ()
    recovering: bool = False


@dataclass(frozen=True, slots=True)
class RecoverContainer:
    """A container that ran before an RM restart, reported by its node (work-preserving
    recovery); ``container`` None: the engine names it."""
    kind: ClassVar[str] = "recover-container"
    app: str
    node: str
    resource: Resource
    am: bool = False
    priority: int = 0
    container: str | None = None


@dataclass(frozen=True, slots=True)
class Ask:
    """The AM asks for more containers: the ``ask`` of its ``AllocateRequest``."""
    kind: ClassVar[str] = "request"
    app: str
    requests: tuple[ContainerRequest, ...]


@dataclass(frozen=True, slots=True)
class Release:
    """The AM gives back ``count`` containers: its newest or oldest tasks, or its AM."""
    kind: ClassVar[str] = "release"
    app: str
    count: int = 1
    which: Literal["newest", "oldest", "am"] = "newest"


@dataclass(frozen=True, slots=True)
class CompleteContainer:
    """The task in ``container`` has finished: the container completes (``released``)."""
    kind: ClassVar[str] = "complete-container"
    app: str
    container: str


@dataclass(frozen=True, slots=True)
class Finish:
    kind: ClassVar[str] = "finish"
    app: str


@dataclass(frozen=True, slots=True)
class Kill:
    kind: ClassVar[str] = "kill"
    app: str


@dataclass(frozen=True, slots=True)
class Move:
    kind: ClassVar[str] = "move"
    app: str
    queue: str


# -- the update pass, the clock, configuration -------------------------------------------------

@dataclass(frozen=True, slots=True)
class Update:
    """One update pass, then (``preempt``) a preemption round."""
    kind: ClassVar[str] = "update"
    preempt: bool = True


@dataclass(frozen=True, slots=True)
class Preempt:
    """A preemption round alone."""
    kind: ClassVar[str] = "preempt"


@dataclass(frozen=True, slots=True)
class Advance:
    """The clock moves ``ms`` forward."""
    kind: ClassVar[str] = "advance"
    ms: int


@dataclass(frozen=True, slots=True)
class AdvanceTo:
    """The clock moves to ``time_ms``."""
    kind: ClassVar[str] = "advance-to"
    time_ms: int


@dataclass(frozen=True, slots=True)
class Reload:
    """A successfully parsed allocation file is applied. ``text`` is the file YARN read
    (overrides written in), ``allocations`` what it parsed to."""
    kind: ClassVar[str] = "reload"
    allocations: AllocationConfig = field(repr=False)
    source: str
    text: str

    @staticmethod
    def of_text(text: str, source: str, types: ResourceTypes) -> Reload:
        """The reload of ``text``; raises ``ConfigError`` when it does not parse."""
        return Reload(parse_allocations_text(text, source, types), source, text)


@dataclass(frozen=True, slots=True)
class ReloadFailed:
    """A reload that did not parse: the configuration in force stays. ``text``: the file
    YARN read, when it could be read."""
    kind: ClassVar[str] = "reload-failed"
    source: str
    message: str
    text: str | None = None


Command = (
    AddNode | RemoveNode | ResizeNode | Decommission | Heartbeat | HeartbeatAll | Submit
    | RecoverContainer | Ask | Release | CompleteContainer | Finish | Kill | Move | Update
    | Preempt | Advance | AdvanceTo | Reload | ReloadFailed
)
_CLASSES: tuple[type[Command], ...] = typing.get_args(Command)
COMMAND_KINDS: Mapping[str, type[Command]] = MappingProxyType(
    {cls.kind: cls for cls in _CLASSES})


# -- applying ----------------------------------------------------------------------------------

_HANDLERS: dict[type, Callable[[Engine, Any], object]] = {
    AddNode: lambda e, c: e.add_node(c.node, c.capacity, c.rack),
    RemoveNode: lambda e, c: e.remove_node(c.node),
    ResizeNode: lambda e, c: e.resize_node(c.node, c.capacity),
    Decommission: lambda e, c: e.decommission_node(c.node, c.timeout_ms),
    Heartbeat: lambda e, c: e.heartbeat(c.node),
    HeartbeatAll: lambda e, c: e.heartbeat_all(),
    Submit: lambda e, c: e.submit(c.app, c.queue, c.user, c.am, c.requests, c.recovering),
    RecoverContainer: lambda e, c: e.recover_container(
        c.app, c.node, c.resource, am=c.am, priority=c.priority, container_id=c.container),
    Ask: lambda e, c: e.request(c.app, c.requests),
    Release: lambda e, c: e.release(c.app, c.count, c.which),
    CompleteContainer: lambda e, c: e.complete_container(c.app, c.container),
    Finish: lambda e, c: e.finish(c.app),
    Kill: lambda e, c: e.kill(c.app),
    Move: lambda e, c: e.move(c.app, c.queue),
    Update: lambda e, c: e.update(c.preempt),
    Preempt: lambda e, c: e.preempt(),
    Advance: lambda e, c: e.advance(c.ms),
    AdvanceTo: lambda e, c: e.advance_to(c.time_ms),
    Reload: lambda e, c: e.reload(c.allocations, c.source),
    ReloadFailed: lambda e, c: e.reload_failed(c.source, c.message),
}


@overload
def apply_command(engine: Engine, command: Submit) -> App: ...
@overload
def apply_command(engine: Engine, command: RecoverContainer) -> Container: ...
@overload
def apply_command(engine: Engine, command: AddNode) -> Node: ...
@overload
def apply_command(engine: Engine, command: Release) -> int: ...
@overload
def apply_command(engine: Engine, command: Move) -> bool: ...
@overload
def apply_command(engine: Engine, command: Command) -> object: ...


def apply_command(engine: Engine, command: Command) -> object:
    """Carry ``command`` out on ``engine`` at its present time; what the engine's method
    returns (the app submitted, the container recovered, the node added, the number of
    containers released, whether a move was done), else None. Raises what the method raises
    (``EngineError`` for a command the engine refuses)."""
    return _HANDLERS[type(command)](engine, command)


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
        elif isinstance(value, tuple):
            value = [_request_json(r, types) for r in value]
        out[_key(f.name)] = value
    return out


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
    if typing.get_origin(hint) is tuple:
        if not isinstance(value, list):
            raise ValueError(f"{where}: expected a list of requests, got {value!r}")
        return tuple(_request(r, f"{where}[{i}]", types) for i, r in enumerate(value))
    kinds = {str: (str,), int: (int,), bool: (bool,)}[hint]
    if not isinstance(value, kinds) or (hint is int and isinstance(value, bool)):
        raise ValueError(f"{where}: expected {hint.__name__}, got {value!r}")
    return value



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

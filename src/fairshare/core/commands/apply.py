"""Carrying a command out: one handler per kind, each the public ``Engine`` method a direct
caller would use."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, overload

from fairshare.core.commands.vocabulary import (
    AddNode,
    AddNodes,
    Advance,
    AdvanceTo,
    Ask,
    Command,
    CompleteContainer,
    Decommission,
    Finish,
    Forget,
    Heartbeat,
    HeartbeatAll,
    HeartbeatTick,
    Kill,
    Move,
    Preempt,
    RecoverContainer,
    Release,
    Reload,
    ReloadFailed,
    RemoveNode,
    ResizeNode,
    Restart,
    Submit,
    Update,
)
from fairshare.core.engine import Engine
from fairshare.core.model.records import App, Container, Node

# -- applying ----------------------------------------------------------------------------------

_HANDLERS: dict[type, Callable[[Engine, Any], object]] = {
    AddNode: lambda e, c: e.add_node(c.node, c.capacity, c.rack),
    AddNodes: lambda e, c: e.add_nodes((n.node, n.capacity, n.rack) for n in c.nodes),
    RemoveNode: lambda e, c: e.remove_node(c.node),
    ResizeNode: lambda e, c: e.resize_node(c.node, c.capacity),
    Decommission: lambda e, c: e.decommission_node(c.node, c.timeout_ms),
    Heartbeat: lambda e, c: e.heartbeat(c.node),
    HeartbeatAll: lambda e, c: e.heartbeat_all(),
    HeartbeatTick: lambda e, c: e.heartbeat_tick(c.skip_quiet, c.verify),
    Submit: lambda e, c: e.submit(c.app, c.queue, c.user, c.am, c.requests, c.recovering),
    RecoverContainer: lambda e, c: e.recover_container(
        c.app, c.node, c.resource, am=c.am, priority=c.priority, container_id=c.container),
    Ask: lambda e, c: e.request(c.app, c.requests),
    Release: lambda e, c: e.release(c.app, c.count, c.which),
    CompleteContainer: lambda e, c: e.complete_container(c.app, c.container),
    Finish: lambda e, c: e.finish(c.app),
    Kill: lambda e, c: e.kill(c.app),
    Forget: lambda e, c: e.forget(c.app),
    Move: lambda e, c: e.move(c.app, c.queue),
    Update: lambda e, c: e.update(c.preempt),
    Preempt: lambda e, c: e.preempt(),
    Advance: lambda e, c: e.advance(c.ms),
    AdvanceTo: lambda e, c: e.advance_to(c.time_ms),
    Reload: lambda e, c: e.reload(c.allocations, c.source),
    ReloadFailed: lambda e, c: e.reload_failed(c.source, c.message),
    Restart: lambda e, c: e.restart(c.epoch, c.scheduling_wait_ms),
}


@overload
def apply_command(engine: Engine, command: Submit) -> App: ...
@overload
def apply_command(engine: Engine, command: RecoverContainer) -> Container: ...
@overload
def apply_command(engine: Engine, command: AddNode) -> Node: ...
@overload
def apply_command(engine: Engine, command: AddNodes) -> list[Node]: ...
@overload
def apply_command(engine: Engine, command: HeartbeatTick) -> Iterator[str]: ...
@overload
def apply_command(engine: Engine, command: Release) -> int: ...
@overload
def apply_command(engine: Engine, command: Move | Forget) -> bool: ...
@overload
def apply_command(engine: Engine, command: Command) -> object: ...


def apply_command(engine: Engine, command: Command) -> object:
    """Carry ``command`` out on ``engine`` at its present time; what the engine's method
    returns (the app submitted, the container recovered, the node or nodes added, the number
    of containers released, whether a move or a forget was done, a tick's iterator), else
    None. Raises what the method raises (``EngineError`` for a command the engine refuses)."""
    return _HANDLERS[type(command)](engine, command)

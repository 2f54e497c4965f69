"""The commands themselves: one frozen dataclass per thing a caller can make the engine do,
with its stable ``kind`` (the package's docstring says who speaks them)."""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar, Literal

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.model import AllocationConfig
from fairshare.core.engine import DEFAULT_RACK
from fairshare.core.lifecycle.asks import ContainerRequest
from fairshare.resources.vector import Resource, ResourceTypes

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
class AddNodes:
    """NodeManagers register one after the other, each as an :class:`AddNode` (the same
    events), steady fair shares computed once for the cluster they make: a cluster's nodes at
    the start of a run (``Engine.add_nodes``)."""
    kind: ClassVar[str] = "add-nodes"
    nodes: tuple[AddNode, ...]


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


@dataclass(frozen=True, slots=True)
class HeartbeatTick:
    """One heartbeat interval of the whole cluster (``Engine.heartbeat_tick``): every node
    heartbeats once, in registration order, those that provably change nothing skipped
    (``skip_quiet``; ``verify``: run anyway and checked). Applied, it gives the iterator that
    carries the tick out as it is consumed, yielding each node after its heartbeat so that the
    caller answers it before the next."""
    kind: ClassVar[str] = "heartbeat-tick"
    skip_quiet: bool = True
    verify: bool = False


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
class Forget:
    """The ResourceManager forgets an ended app (``Engine.forget``: once nothing refers to
    it)."""
    kind: ClassVar[str] = "forget"
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


@dataclass(frozen=True, slots=True)
class Restart:
    """The ResourceManager started again on its state store (``Engine.restart``): its epoch,
    and the recovery wait (None: nothing to recover)."""
    kind: ClassVar[str] = "restart"
    epoch: int
    scheduling_wait_ms: int | None = None


Command = (
    AddNode | AddNodes | RemoveNode | ResizeNode | Decommission | Heartbeat | HeartbeatAll
    | HeartbeatTick | Submit | RecoverContainer | Ask | Release | CompleteContainer | Finish
    | Kill | Forget | Move | Update | Preempt | Advance | AdvanceTo | Reload | ReloadFailed
    | Restart
)
_CLASSES: tuple[type[Command], ...] = typing.get_args(Command)
COMMAND_KINDS: Mapping[str, type[Command]] = MappingProxyType(
    {cls.kind: cls for cls in _CLASSES})

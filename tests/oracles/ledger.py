"""What the event stream alone must satisfy: no allocation takes a node past its capacity
(docs/semantics.md §0.3, §3.6.2, §5.7), and the nodes and containers rebuilt from the events
match the engine's state. The checks over the state itself are
:mod:`tests.oracles.invariants`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from fairshare.core.engine import Engine
from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.events import (
    ContainerAllocated,
    ContainerCompleted,
    ContainerPreempted,
    ContainerRecovered,
    Event,
    NodeAdded,
    NodeRemoved,
    NodeResized,
)
from fairshare.resources.vector import Resource, fits_in, none_like
from tests.oracles.invariants import differs, scheduler_of

__all__ = ["NodeLedger", "allocation_overflows"]


@dataclass
class NodeLedger:
    """Node capacity and allocation rebuilt from events alone (§0.3, §3.6.2, §5.7).

    :meth:`feed` reports an allocation that takes its node past its capacity *at that moment*
    (so a resize that shrinks a busy node is not a violation, but allocating on it afterwards
    is), a container allocated twice, and a completion of a container that is not running.
    :meth:`mismatches` compares the rebuilt ledger with an engine's state.
    """

    capacity: dict[str, Resource] = field(default_factory=dict)
    allocated: dict[str, Resource] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)
    live: dict[str, tuple[str, Resource]] = field(default_factory=dict)  # container → node, r

    def feed(self, event: Event) -> list[str]:
        if isinstance(event, NodeAdded):
            return self._added(event)
        if isinstance(event, NodeResized):
            self.capacity[event.node] = event.capacity
        elif isinstance(event, NodeRemoved):
            self.removed.add(event.node)
        elif isinstance(event, ContainerAllocated | ContainerRecovered):
            return self._allocated(event)
        elif isinstance(event, ContainerCompleted | ContainerPreempted):
            return self._ended(event.seq, event.container, event.node)
        return []

    def feed_all(self, events: Iterable[Event]) -> list[str]:
        return [problem for event in events for problem in self.feed(event)]

    def _added(self, e: NodeAdded) -> list[str]:
        left = self.allocated.get(e.node)
        out = []
        if left is not None and any(left.values):
            out.append(f"event {e.seq}: node {e.node} re-registers still holding {left!r}")
        self.capacity[e.node] = e.capacity
        self.allocated[e.node] = none_like(e.capacity)
        self.removed.discard(e.node)
        return out

    def _allocated(self, e: ContainerAllocated | ContainerRecovered) -> list[str]:
        if e.node not in self.capacity or e.node in self.removed:
            return [f"event {e.seq}: container {e.container} allocated on unknown node {e.node}"]
        out = []
        if e.container in self.live:
            out.append(f"event {e.seq}: container {e.container} allocated while already running")
        self.live[e.container] = (e.node, e.resource)
        after = self.allocated[e.node] + e.resource
        self.allocated[e.node] = after
        if not fits_in(after, self.capacity[e.node]):
            out.append(f"event {e.seq}: allocating {e.container} ({e.resource!r}) on {e.node} "
                       f"makes it hold {after!r}, over its capacity {self.capacity[e.node]!r}")
        return out

    def _ended(self, seq: int, container: str, node: str) -> list[str]:
        entry = self.live.pop(container, None)
        if entry is None:
            return [f"event {seq}: container {container} ended but was not running"]
        where, resource = entry
        self.allocated[where] = self.allocated[where] - resource
        if where != node:
            return [f"event {seq}: container {container} ended on {node}, ran on {where}"]
        return []

    def mismatches(self, target: Engine | Scheduler) -> list[str]:
        """Where the ledger and the engine's state disagree."""
        state = scheduler_of(target).state
        out: list[str] = []
        known = {n for n in self.capacity if n not in self.removed}
        if known != set(state.nodes):
            out.append(f"ledger nodes {sorted(known)} != state nodes {sorted(state.nodes)}")
        for node in state.nodes.values():
            if node.name in known:
                out += differs(f"ledger capacity of {node.name}", self.capacity[node.name],
                                node.capacity)
                out += differs(f"ledger allocation of {node.name}", self.allocated[node.name],
                                node.allocated)
        running = {cid for n in state.nodes.values() for cid in n.containers}
        if set(self.live) != running:
            out.append(f"ledger containers differ from state: only in ledger "
                       f"{sorted(set(self.live) - running)}, only in state "
                       f"{sorted(running - set(self.live))}")
        return out


def allocation_overflows(events: Sequence[Event]) -> list[str]:
    """:class:`NodeLedger` over a whole event stream: every allocation within capacity."""
    return NodeLedger().feed_all(events)

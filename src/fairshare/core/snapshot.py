"""A frozen picture of the engine: what a caller may keep while the engine moves on.

The records the engine's queries hand out (:class:`~fairshare.core.model.records.App`,
:class:`~fairshare.core.model.records.Node`, …) are its own, valid between two commands and
changed by the next. :func:`take_snapshot` (``Engine.snapshot()``) copies what a watcher shows
into frozen dataclasses and tuples: resource vectors are immutable already
(:class:`~fairshare.resources.vector.Resource`), so they are shared, not copied. Taking one
writes nothing (the AM limit is computed afresh, not through the walk's remembered one).

A live server snapshots thousands of nodes several times a second, and between two snapshots
few of them change: :class:`Snapshots` keeps the frozen copy of every node, every running
container and every ended app from one snapshot to the next and copies afresh only the nodes
the change log says were written since (:mod:`fairshare.core.model.changes`, ``nodes``), the
containers made since and the apps that were not ended last time. A snapshot taken with it
equals one taken without (``take_snapshot(s)``), field for field;
``tests/core/test_engine_properties.py`` checks it after every step.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TypeVar

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.lifecycle.asks import pending_demand
from fairshare.core.metrics import apps_below
from fairshare.core.model.changes import ChangeReader
from fairshare.core.model.records import App, AppState, Container, Node
from fairshare.core.rules.am_share import max_am_resource
from fairshare.resources.vector import Resource

T = TypeVar("T")
K = TypeVar("K")


@dataclass(frozen=True, slots=True)
class QueueSnapshot:
    """One queue (``FSQueue``): its shares, demand, usage, limits and apps (those of its
    subtree, by id, in their leaves' order)."""

    name: str
    leaf: bool
    steady_fair_share: Resource
    fair_share: Resource  # instantaneous
    demand: Resource
    usage: Resource
    min_share: Resource
    max_share: Resource  # effective, on the present cluster
    am_usage: Resource
    am_limit: Resource | None  # leaves whose maxAMShare is not -1 only (docs/semantics.md §3.6.4)
    running_apps: tuple[str, ...]  # runnable
    pending_apps: tuple[str, ...]  # not runnable (over a max-running-apps limit)
    # the AM limit the leaf's FSQueueMetrics last published (MaxAMShare, every resource type:
    # /scheduler's amMaxResources); a zero vector for parents
    am_limit_metric: Resource


@dataclass(frozen=True, slots=True)
class AppSnapshot:
    id: str
    state: AppState
    queue: str
    user: str
    runnable: bool
    usage: Resource
    demand: Resource
    pending: Resource  # outstanding ANY asks (§2.2)
    fair_share: Resource
    containers: tuple[str, ...]  # running, in allocation order
    # what the RM's REST API shows of an app (AppInfo): its ANY-level asks by scheduler key,
    # its attempt and what preemption took from it (FSAppAttempt's preemption counters)
    asks: tuple[AskSnapshot, ...] = ()
    attempt: int = 1
    start_time: int = 0
    finish_time: int | None = None
    preempted_containers: int = 0
    preempted_am_containers: int = 0
    preempted_resource: Resource | None = None
    rejection_reason: str | None = None
    unmanaged: bool = False  # no AM container (an unmanaged AM: AppInfo's unmanagedApplication)
    # every resource request the attempt holds, at every place, by scheduler key: the keys'
    # and the placement allocators' left when their ANY ask ran out (§3.6.6), which YARN's
    # getPendingResourceRequestsForAttempt lists too
    requests: tuple[AskSnapshot, ...] = ()
    # the attempt's AM container and its node, kept after the container ended (None: not
    # allocated yet, or an unmanaged AM)
    master_container: str | None = None
    master_node: str | None = None
    created_queue: bool = False  # its submission made its leaf (the queue did not exist)


@dataclass(frozen=True, slots=True)
class AskSnapshot:
    """One ANY-level resource request (``getPendingResourceRequestsForAttempt``)."""

    priority: int
    allocation_request_id: int
    resource: Resource
    count: int
    relax_locality: bool
    resource_name: str = "*"  # ANY, a rack (/rack) or a host


@dataclass(frozen=True, slots=True)
class ReservationSnapshot:
    app: str
    resource: Resource


@dataclass(frozen=True, slots=True)
class NodeSnapshot:
    name: str
    rack: str
    capacity: Resource
    allocated: Resource
    reservation: ReservationSnapshot | None
    decommissioning: bool
    containers: tuple[str, ...]  # in allocation order


@dataclass(frozen=True, slots=True)
class ContainerSnapshot:
    id: str
    app: str
    node: str
    resource: Resource
    am: bool
    priority: int
    allocated_at: int


@dataclass(frozen=True, slots=True)
class EngineSnapshot:
    """The engine at ``time``, after ``events_emitted`` events: queues depth-first from root,
    apps in submission order (ended and rejected ones too), nodes in registration order,
    containers by app, each app's in allocation order."""

    time: int
    events_emitted: int
    capacity: Resource
    allocated: Resource
    queues: tuple[QueueSnapshot, ...]
    apps: tuple[AppSnapshot, ...]
    nodes: tuple[NodeSnapshot, ...]
    containers: tuple[ContainerSnapshot, ...]
    # by name, for the lookups below: built by the first lookup (a live server takes more
    # snapshots than it is asked about), never changed after
    _index: _Index | None = field(default=None, init=False, repr=False, compare=False)

    def _lookup(self) -> _Index:
        index = self._index
        if index is None:  # (two threads may both build it: equal, either one kept)
            index = _Index({q.name: q for q in self.queues}, {a.id: a for a in self.apps},
                           {n.name: n for n in self.nodes},
                           {(c.app, c.id): c for c in self.containers})
            object.__setattr__(self, "_index", index)
        return index

    def queue(self, name: str) -> QueueSnapshot:
        return _get(self._lookup().queues, name, "queue", name)

    def app(self, app_id: str) -> AppSnapshot:
        return _get(self._lookup().apps, app_id, "app", app_id)

    def node(self, name: str) -> NodeSnapshot:
        return _get(self._lookup().nodes, name, "node", name)

    def nodes_by_name(self) -> Mapping[str, NodeSnapshot]:
        """Every node by name (for a caller looking up thousands: one lookup each)."""
        return MappingProxyType(self._lookup().nodes)

    def container(self, app_id: str, container_id: str) -> ContainerSnapshot:
        return _get(self._lookup().containers, (app_id, container_id), "container",
                    f"{app_id} {container_id}")


@dataclass(frozen=True, slots=True)
class _Index:
    queues: dict[str, QueueSnapshot]
    apps: dict[str, AppSnapshot]
    nodes: dict[str, NodeSnapshot]
    containers: dict[tuple[str, str], ContainerSnapshot]


def _get(index: Mapping[K, T], key: K, kind: str, name: str) -> T:
    item = index.get(key)
    if item is None:
        raise KeyError(f"no {kind} {name} in the snapshot")
    return item


def take_snapshot(s: Scheduler, kept: Snapshots | None = None) -> EngineSnapshot:
    """Copy what :class:`EngineSnapshot` holds out of the engine's state; with ``kept``,
    the nodes and ended apps unchanged since ``kept``'s last snapshot are not copied again."""
    state = s.state
    if kept is None:
        apps = tuple(_app(app) for app in state.apps.values())
        nodes = tuple(_node(node) for node in state.nodes.values())
        containers = tuple(_container(c) for app in state.apps.values()
                           for c in app.containers.values())
    else:
        apps, nodes, containers = kept.apps(s), kept.nodes(s), kept.containers(s)
    queues = tuple(_queue(s, node.name, node.is_leaf) for node in s.tree.depth_first())
    return EngineSnapshot(s.now, s.events_emitted, state.capacity, state.allocated, queues,
                          apps, nodes, containers)


class Snapshots:
    """The frozen copies of nodes, running containers and ended apps kept between one
    engine's snapshots (the module docstring). A node's copy is taken again once the change
    log recorded a write to it, or when nodes came, went or were resized (the log's
    ``cluster``); an ended app's is kept for as long as the app is the same record (a
    stopped app is written no more)."""

    def __init__(self, s: Scheduler) -> None:
        self._changes: ChangeReader = s.changes.reader(apps=False, queues=False, nodes=True)
        self._nodes: dict[str, tuple[Node, NodeSnapshot]] = {}
        self._ended: dict[str, tuple[App, AppSnapshot]] = {}
        self._containers: dict[str, tuple[Container, ContainerSnapshot]] = {}

    def nodes(self, s: Scheduler) -> tuple[NodeSnapshot, ...]:
        changes = self._changes
        if changes.cluster:
            self._nodes = {}
        written, kept = changes.nodes, self._nodes
        copies = []
        for name, node in s.state.nodes.items():
            held = kept.get(name)
            if held is None or held[0] is not node or name in written:
                held = kept[name] = (node, _node(node))
            copies.append(held[1])
        if len(kept) > len(copies):  # nodes left: forget their copies
            self._nodes = {c.name: kept[c.name] for c in copies}
        changes.clear()
        return tuple(copies)

    def containers(self, s: Scheduler) -> tuple[ContainerSnapshot, ...]:
        """Every running container's copy: a container's record is never written once it
        is made, so its copy is kept for as long as it runs."""
        kept, running = self._containers, {}
        copies = []
        for app in s.state.apps.values():
            for c in app.containers.values():
                held = kept.get(c.id)
                if held is None or held[0] is not c:
                    held = (c, _container(c))
                running[c.id] = held
                copies.append(held[1])
        self._containers = running
        return tuple(copies)

    def apps(self, s: Scheduler) -> tuple[AppSnapshot, ...]:
        kept = self._ended
        copies = []
        for app_id, app in s.state.apps.items():
            held = kept.get(app_id)
            if held is not None and held[0] is app:
                copies.append(held[1])
                continue
            copy = _app(app)
            if app.stopped:
                kept[app_id] = (app, copy)
            copies.append(copy)
        if len(kept) > len(copies):  # the engine forgot apps: so does the snapshot
            self._ended = {a.id: kept[a.id] for a in copies if a.id in kept}
        return tuple(copies)


def _queue(s: Scheduler, name: str, leaf: bool) -> QueueSnapshot:
    runtime, settings = s.state.queues[name], s.settings(name)
    runnable, waiting = apps_below(s, name)
    max_share = s.max_share(name)
    am_limit = None
    if leaf and settings.max_am_share >= 0:
        am_limit = max_am_resource(runtime.fair_share, max_share, s.root_available(),
                                   settings.max_am_share)
    return QueueSnapshot(
        name, leaf, runtime.steady_fair_share, runtime.fair_share, runtime.demand,
        runtime.usage, settings.min_share, max_share, runtime.am_resource_usage, am_limit,
        tuple(a.id for a in runnable), tuple(a.id for a in waiting),
        runtime.max_am_share_metric)


def _app(app: App) -> AppSnapshot:
    held = {**app.inactive_asks, **app.asks} if app.inactive_asks else app.asks
    requests = tuple(AskSnapshot(key[0], key[1], ask.capability, ask.count, ask.relax_locality,
                                 place)
                     for key in sorted(held) for place, ask in held[key].items())
    # the ANY asks: only an active key has one (an inactive allocator lost its ANY ask)
    asks = tuple(a for a in requests if a.resource_name == "*")
    master: tuple[str | None, str | None] = app.master or (None, None)
    return AppSnapshot(app.id, app.state, app.queue, app.user, app.runnable, app.usage,
                       app.demand, pending_demand(app), app.fair_share, tuple(app.containers),
                       asks, app.attempt, app.start_time, app.finish_time,
                       app.preempted_containers, app.preempted_am_containers,
                       app.preempted_resource, app.rejection_reason, app.unmanaged,
                       requests, master[0], master[1], app.created_queue)


def _node(node: Node) -> NodeSnapshot:
    reservation = node.reservation
    held = (None if reservation is None
            else ReservationSnapshot(reservation.app_id, reservation.resource))
    return NodeSnapshot(node.name, node.rack, node.capacity, node.allocated, held,
                        node.decommissioning, tuple(node.containers))


def _container(c: Container) -> ContainerSnapshot:
    return ContainerSnapshot(c.id, c.app_id, c.node, c.resource, c.is_am, c.key[0],
                             c.allocated_at)

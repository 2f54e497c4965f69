"""What a request may read: the server's state frozen after a batch of commands.

The engine thread builds one :class:`ServerSnapshot` after each batch; requests, the pages and
the metrics read the latest, never the live engine. The engine's own frozen snapshot
(:class:`~fairshare.core.EngineSnapshot`) is inside; beside it what the ResourceManager keeps
that the scheduler does not — applications with their states and attempts
(``RMAppImpl``/``RMAppAttemptImpl``), node states (``RMNodeImpl``) — and what the REST layer's
DAOs read (each queue's settings and ``QueueMetrics``).

Times here are epoch milliseconds of the server's clock, which runs ``--speed`` times faster
than the wall for the virtual executor: ``epoch(engine ms)`` = ``cluster_timestamp`` +
engine ms (the engine's clock starts at 0 when the server starts). Ids are the engine's
(an app's is YARN's ``application_<ts>_<n>``; a container's is ``container_<app id>_…``, which
the REST layer writes in YARN's form with :func:`yarn_container_id`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fairshare.core import EngineSnapshot, QueueSettings
from fairshare.resources.vector import Resource, ResourceTypes

RM_VERSION = "3.4.2"  # the Hadoop the REST answers are checked against (rmharness/)


@dataclass(frozen=True, slots=True)
class AttemptView:
    """One application attempt (``RMAppAttemptImpl``)."""

    number: int  # 1, 2, …
    start_ms: int  # epoch
    finish_ms: int  # epoch; 0 while it runs
    # RMAppAttemptState: SUBMITTED, SCHEDULED, ALLOCATED, RUNNING, FINISHED, FAILED, KILLED
    state: str
    container: str | None  # the AM container (the engine's id, as all ids here), once placed
    node: str | None  # the AM's node id (host:port)
    node_http: str | None  # that node's HTTP address (host:port)


@dataclass(frozen=True, slots=True)
class RMAppView:
    """One application as the RM knows it; its scheduler side is ``engine.app(id)`` while the
    scheduler holds it (rejected-before-scheduling apps have none)."""

    id: str  # application_<cluster timestamp>_<nnnn>; the engine's app id too
    name: str
    user: str
    queue: str  # the leaf it was placed in; before placement (or rejected), the queue asked for
    # YarnApplicationState: NEW, NEW_SAVING, SUBMITTED, ACCEPTED, RUNNING, FINISHED, FAILED,
    # KILLED
    state: str
    rm_state: str  # RMAppState, what PUT …/state answers with (FINAL_SAVING, KILLING, …)
    final_status: str  # FinalApplicationStatus: UNDEFINED, SUCCEEDED, FAILED, KILLED
    progress: float  # 0.0–1.0
    diagnostics: str
    application_type: str  # "YARN" unless the submission says
    tags: tuple[str, ...]  # lower-cased as YARN stores them, in submission order
    priority: int
    unmanaged: bool
    submitted_ms: int  # epoch: AppInfo.startedTime (RMAppImpl.startTime is the submission)
    launched_ms: int  # epoch: launchTime, -1 until the AM container is launched
    finished_ms: int  # epoch; 0 until it ends
    attempts: tuple[AttemptView, ...]
    # aggregate resource-seconds over its containers, ended and running, by resource type name
    # in the cluster's type order (RMAppAttemptMetrics): memory-mb, vcores, …
    resource_seconds: tuple[tuple[str, int], ...]
    preempted_resource_seconds: tuple[tuple[str, int], ...]
    preempted_am_containers: int = 0
    preempted_non_am_containers: int = 0
    preempted_resource: Resource | None = None  # total of what preemption took; None: nothing
    max_attempts: int = 2
    # the submission context's app-node-label-expression: "" for a REST submission without
    # one (RMWebServices copies ApplicationSubmissionContextInfo's default), None without a
    # submission context that says (AppInfo then leaves it out)
    node_label_expression: str | None = None


@dataclass(frozen=True, slots=True)
class RMNodeView:
    """One NodeManager (``RMNodeImpl``); its scheduler side is ``engine.node(id)`` while it is
    active. Inactive nodes (LOST, DECOMMISSIONED, SHUTDOWN) keep their last capacity."""

    id: str  # host:port, the engine's node name
    host: str
    http_address: str  # host:port
    rack: str
    state: str  # NodeState: RUNNING, DECOMMISSIONING, DECOMMISSIONED, LOST, SHUTDOWN, UNHEALTHY
    # epoch: lastHealthUpdate; None: the snapshot's heartbeat_ms (ServerSnapshot.last_heartbeat)
    last_heartbeat_ms: int | None
    capacity: Resource
    health_report: str = ""


@dataclass(frozen=True, slots=True)
class ServerSnapshot:
    """The server after one batch of commands (see the module docstring)."""

    cluster_timestamp: int  # epoch ms the RM started: clusterInfo.id, in every app and container id
    now_ms: int  # epoch ms of the server's clock when the snapshot was taken
    engine: EngineSnapshot
    types: ResourceTypes
    min_allocation: Resource  # yarn.scheduler.minimum-allocation-*
    max_allocation: Resource  # yarn.scheduler.maximum-allocation-*
    settings: Mapping[str, QueueSettings]  # every queue of engine.queues
    queue_metrics: Mapping[str, Mapping[str, Any]]  # Engine.queue_metrics, under YARN's names
    apps: tuple[RMAppView, ...]  # by id (submission order), ended and failed ones too
    nodes: tuple[RMNodeView, ...]  # active in registration order, then inactive ones
    ha_state: str = "ACTIVE"
    # epoch ms of the last heartbeat round, when every active node heartbeat (0: none yet)
    heartbeat_ms: int = 0
    _apps: dict[str, RMAppView] = field(init=False, repr=False, compare=False)
    _nodes: dict[str, RMNodeView] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_apps", {a.id: a for a in self.apps})
        object.__setattr__(self, "_nodes", {n.id: n for n in self.nodes})

    def epoch(self, engine_ms: int) -> int:
        """An engine time (ms since the server started) on the server's epoch clock."""
        return self.cluster_timestamp + engine_ms

    def app(self, app_id: str) -> RMAppView | None:
        return self._apps.get(app_id)

    def node(self, node_id: str) -> RMNodeView | None:
        return self._nodes.get(node_id)

    def last_heartbeat(self, node: RMNodeView) -> int:
        """A node's lastHealthUpdate (epoch ms): its own, or the last heartbeat round's."""
        return self.heartbeat_ms if node.last_heartbeat_ms is None else node.last_heartbeat_ms


@functools.lru_cache(maxsize=100_000)  # every node's, in every snapshot
def node_http_address(node_id: str) -> str:
    """A NodeManager's web address: its port + 1000 on the same host (45454 → 46454; a node
    without a port: 8042, YARN's default). Nothing listens there: the server's NodeManagers
    are its own."""
    host, _, port = node_id.rpartition(":")
    return f"{host}:{int(port) + 1000}" if host and port.isdigit() else f"{node_id}:8042"


def _epoch_prefix(container_id: str) -> str:
    """``container_`` or ``container_e<epoch>_`` (an id of an attempt made after a restart:
    ``ContainerId.toString``), or "" when the id has neither."""
    if not container_id.startswith("container_"):
        return ""
    if container_id.startswith("container_e"):
        epoch, sep, _ = container_id[len("container_e"):].partition("_")
        if sep and epoch.isdigit():
            return f"container_e{epoch}_"
    return "container_"


def yarn_container_id(engine_container_id: str) -> str:
    """The engine names containers ``container_[e<epoch>_]<app id>_<attempt>_<seq>``; the app
    id being ``application_<ts>_<n>``, YARN's form drops the ``application_``:
    ``container_[e<epoch>_]<ts>_<n>_<attempt>_<seq>`` (``ContainerId.toString``)."""
    prefix = _epoch_prefix(engine_container_id)
    if prefix and engine_container_id.startswith("application_", len(prefix)):
        return prefix + engine_container_id[len(prefix) + len("application_"):]
    return engine_container_id


def container_of_app(engine_container_id: str, app_id: str) -> bool:
    """Whether an engine container id names a container of ``app_id`` (any epoch)."""
    prefix = _epoch_prefix(engine_container_id) or "container_"
    return engine_container_id.startswith(f"{prefix}{app_id}_")


def engine_container_id(yarn_id: str) -> str:
    """The inverse of :func:`yarn_container_id`."""
    prefix = _epoch_prefix(yarn_id)
    if not prefix or yarn_id.startswith("application_", len(prefix)):
        return yarn_id
    return prefix + "application_" + yarn_id[len(prefix):]

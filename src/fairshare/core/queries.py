"""What the engine may be asked: its queries, which write nothing (caches included; a
snapshot keeps its own copies for the next, :class:`~fairshare.core.snapshot.Snapshots`, which
nothing the engine decides reads).

:class:`EngineQueries` is the read side of :class:`~fairshare.core.engine.Engine`: the state and
tree to read, each queue's effective settings and shares, the queue metrics. ``sim/``, ``cli/``,
the reports and the benchmarks read the engine through these only, never through its
:class:`~fairshare.core.hub.scheduler.Scheduler`. The records they hand out are the engine's own,
valid between commands; :meth:`~fairshare.core.engine.Engine.snapshot` gives a frozen copy to
keep. Steady fair shares are kept up to date by the commands that change the tree or the
cluster (:class:`~fairshare.core.steps.SteadyShares`): reading one only reads.
"""

from __future__ import annotations

from typing import Any

from fairshare.config.acl import QueueAcls
from fairshare.config.model import AllocationConfig, PlacementPolicy
from fairshare.config.yarnsite import SiteConfig
from fairshare.core.heartbeat.quiet import QuietHeartbeats
from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.metrics import apps_below, queue_metrics
from fairshare.core.model.errors import UnknownApp, UnknownNode
from fairshare.core.model.events import Event
from fairshare.core.model.queue_settings import QueueSettings
from fairshare.core.model.records import App, ClusterState, Node
from fairshare.core.model.tree import QueueTree
from fairshare.core.snapshot import EngineSnapshot, Snapshots, take_snapshot
from fairshare.resources.vector import Resource, ResourceTypes


class EngineQueries:
    """Read access to an engine: records, queues, metrics."""

    s: Scheduler
    _quiet: QuietHeartbeats | None
    _deadlines: list[tuple[int, str]]  # decommission timeouts, a heap: (due, node)
    _snapshots: Snapshots | None  # the copies kept between snapshots (made by the first)

    # -- records -------------------------------------------------------------------------------

    @property
    def now(self) -> int:
        return self.s.now

    @property
    def events(self) -> list[Event]:
        return self.s.events

    @property
    def events_emitted(self) -> int:
        """How many events the engine has emitted so far (to whatever sink)."""
        return self.s.events_emitted

    @property
    def state(self) -> ClusterState:
        return self.s.state

    @property
    def tree(self) -> QueueTree:
        return self.s.tree

    @property
    def types(self) -> ResourceTypes:
        return self.s.types

    @property
    def site(self) -> SiteConfig:
        return self.s.site

    @property
    def allocations(self) -> AllocationConfig:
        """The allocation file in force (the last one loaded or reloaded successfully)."""
        return self.s.allocations

    @property
    def placement_policy(self) -> PlacementPolicy:
        """The placement rules in force: the file's, or the ones yarn-site generates
        (docs/semantics.md §1.5.4)."""
        return self.s.placement_policy

    @property
    def queue_acls(self) -> QueueAcls:
        """The queue ACLs the submission check reads (docs/semantics.md §1.3.4), from the file
        in force."""
        return self.s.acls

    def next_timer(self) -> int | None:
        """When the next kill timer fires or decommission times out, if any."""
        timers = self.s.state.kill_timers
        kill = timers[0][0] if timers else None
        due = _next_deadline(self._deadlines, self.s.state.nodes)
        return kill if due is None else due if kill is None else min(kill, due)

    def app(self, app_id: str) -> App:
        app = self.s.state.apps.get(app_id)
        if app is None:
            raise UnknownApp(f"unknown application {app_id}")
        return app

    def node(self, name: str) -> Node:
        node = self.s.state.nodes.get(name)
        if node is None:
            raise UnknownNode(f"unknown node {name}")
        return node

    def snapshot(self) -> EngineSnapshot:
        """The engine as it is now, frozen: queues, apps, nodes and containers
        (:mod:`fairshare.core.snapshot`), to keep while the engine moves on."""
        if self._snapshots is None:
            self._snapshots = Snapshots(self.s)
        return take_snapshot(self.s, self._snapshots)

    # -- queues and apps -----------------------------------------------------------------------

    def settings(self, queue: str) -> QueueSettings:
        """The queue's effective settings: its own, inherited, or the file's defaults."""
        return self.s.settings(queue)

    def ancestry(self, queue: str) -> tuple[str, ...]:
        """The queue and its ancestors, up to root."""
        return self.s.ancestry(queue)

    def max_share(self, queue: str) -> Resource:
        """The queue's effective max share on the present cluster."""
        return self.s.max_share(queue)

    def max_share_above(self, queue: str) -> bool:
        """Is a max share configured on the queue or an ancestor (could one ever bind)?"""
        return self.s.max_share_above(queue)

    def steady_fair_share(self, queue: str) -> Resource:
        return self.s.state.queues[queue].steady_fair_share

    def queue_metrics(self, queue: str) -> dict[str, Any]:
        """The queue's ``FSQueueMetrics``, under YARN's names."""
        return queue_metrics(self.s, queue, self.steady_fair_share(queue))

    def apps_below(self, queue: str) -> tuple[list[App], list[App]]:
        """The runnable and the waiting apps of the queue's subtree."""
        return apps_below(self.s, queue)

    def is_starved_for_fair_share(self, app: App) -> bool:
        """Below its fair share times its leaf's threshold (``FSAppAttempt``'s test)."""
        return self.s.is_starved_for_fair_share(app)

    def utilization(self) -> float:
        """Allocated over capacity, YARN's preemption gate (NaN on an empty cluster)."""
        return self.s.utilization()

    # -- heartbeat ticks -----------------------------------------------------------------------

    @property
    def heartbeats_run(self) -> int:
        """Heartbeats run by ``heartbeat_tick`` while skipping quiet ones (0 if it never did)."""
        return 0 if self._quiet is None else self._quiet.run_count

    @property
    def heartbeats_skipped(self) -> int:
        """Heartbeats ``heartbeat_tick`` skipped as quiet (0 if it never did)."""
        return 0 if self._quiet is None else self._quiet.skipped


def in_force(entry: tuple[int, str], nodes: dict[str, Node]) -> bool:
    """Is a decommission-timeout entry ``(due, node)`` still the node's timeout (not of a node
    gone, nor replaced by a later ``-refreshNodes -g``)?"""
    node = nodes.get(entry[1])
    return node is not None and node.decommission_deadline == entry[0]


def _next_deadline(deadlines: list[tuple[int, str]], nodes: dict[str, Node]) -> int | None:
    """The earliest decommission timeout still in force, the heap left as it is: entries of
    nodes gone or given a new timeout are dropped by the commands (``Engine._next_deadline``),
    so the head is almost always in force and the scan rarely needed."""
    if deadlines and in_force(deadlines[0], nodes):
        return deadlines[0][0]
    return min((entry[0] for entry in deadlines if in_force(entry, nodes)), default=None)

"""What the engine may be asked without changing anything it decides.

:class:`EngineQueries` is the read side of :class:`~fairshare.core.engine.Engine`: the state and
tree to read, each queue's effective settings and shares, the queue metrics, and the questions
the simulator's event-driven loop asks to know which heartbeats would be quiet. ``sim/``,
``cli/``, the reports and the benchmarks read the engine through these only, never through its
:class:`~fairshare.core.hub.scheduler.Scheduler`.

The loop's questions read the tree walk's index, which they first bring up to date (a cache:
the walk would do the same before its next visit), so asking never changes what the engine
decides. Steady fair shares (:class:`SteadyShares`) are computed when first read after the tree
or the cluster changed: nothing in scheduling reads them.
"""

from __future__ import annotations

from typing import Any

from fairshare.config.model import AllocationConfig
from fairshare.config.yarnsite import SiteConfig
from fairshare.core.heartbeat.assignment import earmarked_attempt, keeps_earmark
from fairshare.core.heartbeat.order_index import OrderIndex
from fairshare.core.hub.scheduler import ROOT, Scheduler
from fairshare.core.lifecycle.apps import EngineError
from fairshare.core.metrics import apps_below, queue_metrics
from fairshare.core.model.changes import ChangeLog
from fairshare.core.model.events import Event
from fairshare.core.model.queue_settings import QueueSettings
from fairshare.core.model.records import App, AttemptKey, ClusterState, Node
from fairshare.core.model.tree import QueueTree
from fairshare.core.shares.fair_shares import compute_steady_fair_shares
from fairshare.resources.vector import Resource, ResourceTypes


class EngineQueries:
    """Read access to an engine: records, queues, metrics, and the event-driven loop's
    questions."""

    s: Scheduler
    order_index: OrderIndex
    steady: SteadyShares

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

    def app(self, app_id: str) -> App:
        app = self.s.state.apps.get(app_id)
        if app is None:
            raise EngineError(f"unknown application {app_id}")
        return app

    def node(self, name: str) -> Node:
        node = self.s.state.nodes.get(name)
        if node is None:
            raise EngineError(f"unknown node {name}")
        return node

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

    def steady_fair_share(self, queue: str) -> Resource:
        self.steady.refresh(self.s)
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

    # -- the event-driven loop's questions -----------------------------------------------------

    def earmarked_attempt(self, key: AttemptKey) -> App | None:
        """The app whose current attempt a node's earmark entry is for, or None if it ended."""
        return earmarked_attempt(self.s, key)

    def keeps_earmark(self, app: App) -> bool:
        """Would a heartbeat's earmark step keep ``app``'s earmarks (running and starved)?"""
        return keeps_earmark(self.s, app)

    def max_share_above(self, queue: str) -> bool:
        """Is a max share configured on the queue or an ancestor (could one ever bind)?"""
        return self.s.max_share_above(queue)

    def walk_version(self) -> int:
        """A number that changes whenever the answer of :meth:`could_act` may have."""
        self.order_index.refresh(self.s)
        return self.order_index.root_version

    def could_act(self, free: Resource) -> bool:
        """Could some app allocate or reserve on an unreserved node with ``free`` space?"""
        self.order_index.refresh(self.s)
        return self.order_index.may_act(ROOT, free, self.s.unbounded)

    def walk_writes_gauges(self) -> bool:
        """Does a walk that allocates nothing still write some leaf's MaxAMShare gauge?"""
        return self.order_index.runs_am_checks(ROOT)


class SteadyShares:
    """Steady shares change with the cluster and the configuration only (docs/semantics.md
    §2.4). YARN recomputes them on every node and queue change; nothing in scheduling reads
    them, so they are recomputed once, when next read after a change (thousands of nodes
    register one by one)."""

    def __init__(self, log: ChangeLog) -> None:
        self._changes = log.reader(apps=False, queues=False)

    def refresh(self, s: Scheduler) -> None:
        changes = self._changes
        if changes.tree or changes.cluster:
            s.write.set_steady_fair_shares(compute_steady_fair_shares(s.tree, s.state.capacity))
            changes.clear()

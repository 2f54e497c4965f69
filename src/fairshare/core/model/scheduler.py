"""The scheduler's shared context: configuration, queue tree, state, clock and event sink.

:class:`Scheduler` is what every engine module works on. It holds the immutable configuration
(yarn-site, allocation file, queue tree) next to the mutable :class:`ClusterState`, plus the
few bookkeeping operations that several paths share: container completion, reservations,
queue usage up the ancestry. Time is whatever the caller last passed in (``now``). The §
numbers cited here are sections of docs/semantics.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fairshare.config.acl import QueueAcls, queue_acls
from fairshare.config.model import AllocationConfig, PlacementPolicy
from fairshare.config.placement.policy import generated_policy
from fairshare.config.yarnsite import SiteConfig
from fairshare.core.heartbeat.order_index import OrderIndex
from fairshare.core.model.events import Completion, ContainerCompleted, ContainerUnreserved, Event
from fairshare.core.model.policies import SchedulableView, calculator_for
from fairshare.core.model.queue_settings import QueueSettings
from fairshare.core.model.records import (
    App,
    ClusterState,
    Container,
    Node,
    QueueRuntime,
    Reservation,
)
from fairshare.core.model.tree import ROOT, QueueTree, build_queue_tree
from fairshare.core.shares.fair_shares import app_weight, compute_steady_fair_shares
from fairshare.core.update import IncrementalUpdate
from fairshare.resources.calc import ResourceCalculator
from fairshare.resources.vector import (
    Resource,
    ResourceTypes,
    add,
    float32,
    long_to_float32,
    subtract,
    unbounded_like,
)


class Scheduler:
    """Configuration + state + clock + sink; the engine modules are functions over this."""

    def __init__(
        self,
        site: SiteConfig,
        allocations: AllocationConfig,
        sink: Callable[[Event], None] | None = None,
        now: int = 0,
    ) -> None:
        self.site = site
        self.types: ResourceTypes = site.resource_types
        self.none = self.types.none()
        self.unbounded = unbounded_like(self.none)
        self.reservation_threshold = site.reservation_threshold  # computed once (§3.6.5)
        self.now = now
        self.events: list[Event] = []
        self._sink = sink if sink is not None else self.events.append
        self._seq = 0
        self.state = ClusterState(self.none)
        self.timers: list[Any] = []  # (due, seq, KillTimer) heap, see preemption.commit
        self.allocations = allocations
        self.tree = build_queue_tree(allocations, self.types)
        self.acls: QueueAcls = queue_acls(allocations)
        self._steady_stale = True
        self.order = OrderIndex()  # the tree walk's sorted lists (order_index.py)
        # preemption owners' views, kept from round to round (preemption/search.py): app id →
        # (what the view was built from, the view and its cached decisions)
        self.owner_views: dict[str, tuple[tuple[object, ...], Any]] = {}
        # preemption nodes' entries and bounds, kept likewise: node name → what they were built
        # from; and the nodes in search order, with the cluster they were listed for
        self.victim_nodes: dict[str, Any] = {}
        self.search_order: tuple[Resource, Any] | None = None
        # leaf → (fair share, max share, root available, maxAMShare, the AM limit computed from
        # them): every walk's AM checks ask for it, and reservations change none of them
        self.am_limits: dict[str, tuple[Resource, Resource, Resource, float, Resource]] = {}
        # root's AvailableMB/VCores gauge: refreshed where FairScheduler calls
        # updateRootQueueMetrics, so stale within a heartbeat (see root_available)
        self._available: Resource = subtract(self.state.capacity, self.state.allocated)
        # what the update pass remembers between passes, and what changed since
        self.incremental = IncrementalUpdate()
        self._sync_queues()

    # -- configuration -------------------------------------------------------------------------

    @property
    def placement_policy(self) -> PlacementPolicy:
        """The file's rules, or the ones yarn-site generates when it has none (§1.5.4)."""
        if self.allocations.placement_policy is not None:
            return self.allocations.placement_policy
        return generated_policy(self.site.user_as_default_queue, self.site.allow_undeclared_pools)

    def app_number(self, app_id: str) -> int:
        """The app's number in YARN's ``application_<cluster timestamp>_<number>``: apps are
        numbered from 1 in submission order, rejected ones included."""
        return self.state.apps[app_id].seq + 1

    @property
    def preemption_enabled(self) -> bool:
        """The preemption thread exists only when enabled and not in migration mode (§1.1)."""
        return self.site.preemption and not self.site.migration_mode

    def set_tree(self, tree: QueueTree) -> None:
        self.tree = tree
        self._sync_queues()
        self.invalidate_order()

    def _sync_queues(self) -> None:
        """Give every queue of the tree its runtime record (new queues start at the clock)."""
        queues = self.state.queues
        for node in self.tree:
            if node.name not in queues:
                queues[node.name] = QueueRuntime(node.name, self.none,
                                                 last_time_at_min_share=self.now)
        for name in [n for n in queues if n not in self.tree]:
            del queues[name]
        self._ancestry: dict[str, tuple[str, ...]] = {}
        self._max_shares: dict[str, Resource] = {}

    def settings(self, queue: str) -> QueueSettings:
        return self.tree[queue].settings

    def ancestry(self, queue: str) -> tuple[str, ...]:
        """``queue`` and its ancestors, leaf first."""
        cached = self._ancestry.get(queue)
        if cached is None:
            parts = queue.split(".")
            cached = tuple(".".join(parts[:i]) for i in range(len(parts), 0, -1))
            self._ancestry[queue] = cached
        return cached

    def max_share(self, queue: str) -> Resource:
        """Effective max share (§2.8); cached, as every walk reads it at every level."""
        share = self._max_shares.get(queue)
        if share is None:
            share = self.settings(queue).effective_max_share(self.state.capacity)
            self._max_shares[queue] = share
        return share

    def cluster_changed(self) -> None:
        """Nodes came, went or were resized: everything that reads the cluster size follows."""
        self._max_shares.clear()  # percentages of the cluster
        self.victim_nodes.clear()  # built for the old cluster: would never match again
        self.update_root_queue_metrics()
        self.recompute_steady_shares()
        self.order.cluster_changed(self)

    def calc(self, queue: str) -> ResourceCalculator:
        return calculator_for(self.settings(queue).policy)

    def recompute_steady_shares(self) -> None:
        """Steady shares change with the cluster and the configuration only (§2.4).

        YARN recomputes them on every node and queue change; nothing in scheduling reads
        them, so we recompute once, when they are next read (thousands of nodes register
        one by one).
        """
        self._steady_stale = True

    def steady_fair_share(self, queue: str) -> Resource:
        if self._steady_stale:
            steady = compute_steady_fair_shares(self.tree, self.state.capacity)
            for name, share in steady.items():
                self.state.queues[name].steady_fair_share = share
            self._steady_stale = False
        return self.state.queues[queue].steady_fair_share

    # -- telling the walk's index what changed ----------------------------------------------------

    def invalidate_order(self) -> None:
        """The queue tree (and with it settings and policies) changed: rebuild the index."""
        self.order.invalidate()

    def touch_app(self, app: App) -> None:
        """``app``'s usage, asks, AM or admission changed."""
        self.order.touch_app(app)
        self.incremental.touch_app(app)

    def touch_membership(self, app: App) -> None:
        """``app`` may have joined or left its leaf's lists without a ``touch_app`` (a waiting
        app that ends or moves): the incremental update pass re-reads that leaf's demand."""
        self.incremental.touch_app(app)

    def touch_fair_share(self, queue: str) -> None:
        """``queue``'s instantaneous fair share changed: a leaf's AM limit reads it."""
        if self.tree[queue].is_leaf:
            self.order.touch_am_limit(queue)

    def touch_am_usage(self, leaf: str) -> None:
        """The leaf's AM usage changed: its AM limit may now let a waiting AM in, or not."""
        self.order.touch_am_limit(leaf)

    def touch_queue(self, queue: str) -> None:
        """``queue``'s usage or demand changed: its place among its siblings may move."""
        self.order.touch_queue(queue)

    # -- events --------------------------------------------------------------------------------

    @property
    def events_emitted(self) -> int:
        """How many events were emitted so far (the last event's ``seq``)."""
        return self._seq

    def subscribe(self, listener: Callable[[Event], None]) -> None:
        """Hand every later event to ``listener`` too, after the sink."""
        sink = self._sink

        def both(event: Event) -> None:
            sink(event)
            listener(event)

        self._sink = both

    def emit(self, cls: type[Event], cause: int | None = None, **fields: Any) -> Event:
        self._seq += 1
        event = cls(seq=self._seq, time=self.now, cause=cause, **fields)
        self._sink(event)
        return event

    # -- views for the pure functions ----------------------------------------------------------

    def app_weight(self, app: App) -> float:
        return app_weight(app.demand.memory, self.site.size_based_weight)

    def queue_view(self, name: str) -> SchedulableView:
        q = self.state.queues[name]
        s = self.settings(name)
        return SchedulableView(name, q.demand, q.usage, s.min_share, s.weight, 0)

    def app_view(self, app: App) -> SchedulableView:
        return SchedulableView(app.id, app.demand, app.usage, self.none, self.app_weight(app),
                               app.start_time)

    def is_starved_for_fair_share(self, app: App) -> bool:
        """§4.5: below the instantaneous app fair share — no threshold, no timeout."""
        calc = self.calc(app.queue)
        return calc.compare(self.state.capacity, app.usage, app.fair_share, True) < 0

    def is_starved(self, app: App) -> bool:
        """§4.5 ``isStarved``: fair-share starved, or some min-share starvation attributed."""
        return self.is_starved_for_fair_share(app) or any(app.minshare_starvation.values)

    def utilization(self) -> float:
        """§1.1: the larger of the allocated memory and vcore fractions, in Java float math."""
        alloc, cap = self.state.allocated, self.state.capacity
        return max(_f32_div(alloc.memory, cap.memory), _f32_div(alloc.vcores, cap.vcores))

    def root_available(self) -> Resource:
        """Root ``AvailableMB/VCores`` (what ``canRunAppAM`` reads): cluster − allocated,
        reservations not subtracted, as of the last :meth:`update_root_queue_metrics`."""
        return self._available

    def update_root_queue_metrics(self) -> None:
        """``FairScheduler.updateRootQueueMetrics``: YARN refreshes the gauge in ``update()``,
        when a container completes, when nodes come, go or change size, and at the end of a
        node's ``attemptScheduling`` — not as each container is allocated, so the AM checks
        of one heartbeat all read the space free before it."""
        available = subtract(self.state.capacity, self.state.allocated)
        if available != self._available:
            self._available = available

    # -- bookkeeping shared by several paths ---------------------------------------------------

    def add_usage(self, queue: str, amount: Resource) -> None:
        order = self.order
        for name in self.ancestry(queue):
            q = self.state.queues[name]
            q.usage = add(q.usage, amount)
            order.touch_queue(name)

    def free_container(self, container: Container) -> App:
        """Give a container's resources back: node, app, queues, cluster; drop its marks."""
        state = self.state
        node = state.nodes.get(container.node)
        if node is not None:
            node.allocated = subtract(node.allocated, container.resource)
            node.containers.pop(container.id, None)
            node.marked_for_preemption.pop(container.id, None)
        app = state.apps[container.app_id]
        app.containers.pop(container.id, None)
        app.usage = subtract(app.usage, container.resource)
        self.touch_app(app)
        if app.to_be_preempted.pop(container.id, None) is not None:
            app.resources_to_be_preempted = subtract(
                app.resources_to_be_preempted, container.resource)
        self.add_usage(app.queue, subtract(self.none, container.resource))
        for name in self.ancestry(app.queue):
            state.queues[name].containers_released += 1
        state.allocated = subtract(state.allocated, container.resource)
        self.update_root_queue_metrics()
        return app

    def complete_container(
        self, container: Container, status: Completion, cause: int | None = None
    ) -> Event:
        """A container ends for any reason but preemption (see preemption.commit)."""
        app = self.free_container(container)
        return self.emit(
            ContainerCompleted, cause, app=app.id, queue=app.queue, container=container.id,
            node=container.node, resource=container.resource, am=container.is_am,
            status=status,
        )

    def reserve(self, app: App, node: Node, key: tuple[int, int], resource: Resource) -> bool:
        """Create or refresh ``app``'s reservation on ``node``; True if it is new (§3.6.5)."""
        existing = node.reservation
        if existing is not None:
            self.change_reserved(app.queue, subtract(resource, existing.resource), 0)
            existing.key, existing.resource = key, resource
            return False
        reservation = Reservation(app.id, node.name, key, resource, app.new_container_id())
        node.reservation = reservation
        app.reservations[node.name] = reservation
        self.touch_app(app)  # one reservation nearer its reservable-nodes limit
        self.change_reserved(app.queue, resource, 1)
        return True

    def unreserve(self, app: App, node: Node, reason: str, cause: int | None = None) -> None:
        reservation = node.reservation
        if reservation is None:
            return
        node.reservation = None
        app.reservations.pop(node.name, None)
        self.touch_app(app)
        self.change_reserved(app.queue, subtract(self.none, reservation.resource), -1)
        self.emit(ContainerUnreserved, cause, app=app.id, node=node.name,
                  resource=reservation.resource, reason=reason)

    def change_reserved(self, queue: str, delta: Resource, count: int) -> None:
        for name in self.ancestry(queue):
            q = self.state.queues[name]
            q.reserved = add(q.reserved, delta)
            q.reserved_containers += count
        self.state.reserved = add(self.state.reserved, delta)



def _f32_div(a: int, b: int) -> float:
    """``(float) a / b`` with a long ``b``: float32 division; x/0 is ±Infinity or NaN."""
    fa, fb = long_to_float32(a), long_to_float32(b)
    if fb == 0.0:
        if fa == 0.0:
            return float("nan")
        return float("inf") if fa > 0 else float("-inf")
    return float32(fa / fb)


__all__ = ["ROOT", "Scheduler"]

"""What every step works through: the read-only context, the state and its writer, the clock
and the event sink.

:class:`Scheduler` is a :class:`~fairshare.core.hub.context.Context` (configuration, queue
tree) that also holds the :class:`~fairshare.core.model.records.ClusterState` (read freely),
its only writer (:class:`~fairshare.core.hub.state.StateWriter`, as ``s.write``) with the
change log the caches drain, the clock (``now``, whatever the engine last set) and the sink
events go to. It keeps no cache of any step: the tree walk's index, the update pass's memory
and the preemption search's kept nodes belong to those steps, which the engine holds. The §
numbers cited here are sections of docs/semantics.md.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fairshare.config.model import AllocationConfig
from fairshare.config.yarnsite import SiteConfig
from fairshare.core.hub.context import Context
from fairshare.core.hub.state import StateWriter
from fairshare.core.model.changes import ChangeLog
from fairshare.core.model.events import Completion, ContainerCompleted, ContainerUnreserved, Event
from fairshare.core.model.reasons import UnreserveReason
from fairshare.core.model.records import App, ClusterState, Container, Node
from fairshare.core.model.tree import ROOT, QueueTree
from fairshare.core.rules.policies import SchedulableView, app_weight
from fairshare.resources.vector import Resource, float32, long_to_float32


class Scheduler(Context):
    """Context + state (with its writer) + clock + sink; the engine's steps are functions
    over this."""

    def __init__(
        self,
        site: SiteConfig,
        allocations: AllocationConfig,
        sink: Callable[[Event], None] | None = None,
        now: int = 0,
    ) -> None:
        super().__init__(site, allocations)
        self.set_clock(now)
        self.events: list[Event] = []
        self._first_sink = sink if sink is not None else self.events.append
        self._sink = self._first_sink
        self._listeners: list[Callable[[Event], None]] = []
        self._tap: list[Event] | None = None
        self._seq = 0
        self.state = ClusterState(self.none)
        self.changes = ChangeLog()
        self.write = StateWriter(self.state, self, self.changes)
        self.write.sync_queues(self.tree, now)

    def set_clock(self, time_ms: int) -> None:
        """The one place the clock is set (the engine's ``advance_to`` decides when;
        ``tests/core/hub/test_clock.py`` checks no other code assigns ``now``)."""
        self.now = time_ms

    def set_tree(self, tree: QueueTree, allocations: AllocationConfig | None = None) -> None:
        super().set_tree(tree, allocations)
        self.write.sync_queues(tree, self.now)

    def app_number(self, app_id: str) -> int:
        """The app's number in YARN's ``application_<cluster timestamp>_<number>``: apps are
        numbered from 1 in submission order, rejected ones included."""
        return self.state.apps[app_id].seq + 1

    def max_share(self, queue: str) -> Resource:
        """Effective max share (§2.8) in the cluster as it is now (every walk asks, at every
        level: the remembered answer is looked up here first)."""
        cluster = self.state.capacity
        if cluster is self._cluster:
            share = self._max_shares.get(queue)
            if share is not None:
                return share
        return self.max_share_in(queue, cluster)

    # -- events --------------------------------------------------------------------------------

    @property
    def events_emitted(self) -> int:
        """How many events were emitted so far (the last event's ``seq``)."""
        return self._seq

    def subscribe(self, listener: Callable[[Event], None]) -> Callable[[], None]:
        """Hand every later event to ``listener`` too, after the sink and the listeners
        subscribed before it; returns what unsubscribes it (see :meth:`unsubscribe`)."""
        self._listeners.append(listener)
        self._chain()
        return lambda: self.unsubscribe(listener)

    def unsubscribe(self, listener: Callable[[Event], None]) -> None:
        """Stop handing events to ``listener`` (its latest subscription; a listener not
        subscribed is ignored)."""
        for i in range(len(self._listeners) - 1, -1, -1):
            if self._listeners[i] == listener:  # a bound method is equal, not identical
                del self._listeners[i]
                self._chain()
                return

    def _chain(self) -> None:
        """The sink, then every listener: built once per (un)subscription, not per event."""
        sink, listeners = self._first_sink, tuple(self._listeners)
        if not listeners:
            self._sink = sink
        elif len(listeners) == 1:
            only = listeners[0]

            def both(event: Event) -> None:
                sink(event)
                only(event)

            self._sink = both
        else:
            def every(event: Event) -> None:
                sink(event)
                for listener in listeners:
                    listener(event)

            self._sink = every

    def tap(self, events: list[Event] | None) -> None:
        """Append every later event to ``events`` as well (None: stop): how the engine's own
        quiet-heartbeat tracker hears them, without a listener's call per event — the
        simulated day emits hundreds of thousands (docs/benchmarks.md, issue 31)."""
        self._tap = events

    def emit(self, cls: type[Event], cause: int | None = None, **fields: Any) -> Event:
        self._seq += 1
        event = cls(seq=self._seq, time=self.now, cause=cause, **fields)
        self._sink(event)
        if self._tap is not None:
            self._tap.append(event)
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
        reservations not subtracted, as of the last ``updateRootQueueMetrics``
        (:meth:`StateWriter.update_root_queue_metrics`)."""
        return self.state.root_available

    # -- writes that also report ---------------------------------------------------------------

    def complete_container(
        self, container: Container, status: Completion, cause: int | None = None
    ) -> Event:
        """A container ends for any reason but preemption (see preemption.commit)."""
        app = self.write.free_container(container)
        return self.emit(
            ContainerCompleted, cause, app=app.id, queue=app.queue, container=container.id,
            node=container.node, resource=container.resource, am=container.is_am,
            status=status,
        )

    def unreserve(self, app: App, node: Node, reason: UnreserveReason,
                  cause: int | None = None) -> None:
        """Drop ``app``'s reservation on ``node``, if it has one, and report it."""
        reservation = self.write.unreserve(app, node)
        if reservation is not None:
            self.emit(ContainerUnreserved, cause, app=app.id, node=node.name,
                      resource=reservation.resource, reason=reason)


def _f32_div(a: int, b: int) -> float:
    """``(float) a / b`` with a long ``b``: float32 division; x/0 is ±Infinity or NaN."""
    fa, fb = long_to_float32(a), long_to_float32(b)
    if fb == 0.0:
        if fa == 0.0:
            return float("nan")
        return float("inf") if fa > 0 else float("-inf")
    return float32(fa / fb)


__all__ = ["ROOT", "Scheduler"]

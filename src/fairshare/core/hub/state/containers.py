"""The writers of a container's life on a node, an app and the queues above it: allocation,
release and reservations (docs/semantics.md §3.6.2, §3.6.5; the § numbers here are its
sections).
"""

from __future__ import annotations

from fairshare.core.hub.state.apps import AppWriter
from fairshare.core.hub.state.base import Records
from fairshare.core.hub.state.nodes import NodeWriter
from fairshare.core.model.changes import Change
from fairshare.core.model.records import (
    App,
    AppState,
    AttemptKey,
    Container,
    Node,
    Reservation,
    SchedulerKey,
)
from fairshare.core.rules.locality import Locality
from fairshare.resources.vector import Resource, add, componentwise_min, is_none, subtract


class ContainerWriter(NodeWriter, AppWriter):
    def allocate(self, app: App, node: Node, container: Container,
                 kind: Locality | None) -> None:
        """A new container accounted for everywhere (§3.6.2 ``allocate``; the app's first is
        its AM) — or, ``kind`` None, a recovered one: no locality, earmark or cluster count."""
        state, resource = self.state, container.resource
        node.allocated = add(node.allocated, resource)
        node.containers[container.id] = container
        node.peak_containers = max(node.peak_containers, len(node.containers))
        self.log.node(node.name)
        if kind is not None:
            if app.id not in node.apps_ran:
                self.note_app_ran(node, app.id)
            self._consume_earmark(node, app.attempt_key, resource)
        app.containers[container.id] = container
        app.usage = add(app.usage, resource)
        if not app.am_running and not app.unmanaged:
            app.am_resource, app.am_running = resource, True
            app.master = container.id, node.name
            leaf = state.queues[app.queue]
            leaf.am_resource_usage = add(leaf.am_resource_usage, resource)
            if kind is None:  # (an allocation's record of the app covers its leaf's AM limit)
                self.log.am_limit(app.queue)
        app.state = AppState.RUNNING
        self.log.app(app)
        self.add_usage(app.queue, resource)
        for name in self._context.ancestry(app.queue):
            q = state.queues[name]
            q.containers_allocated += 1  # QueueMetrics.allocateResources
            if kind is Locality.NODE_LOCAL:
                q.node_local += 1
            elif kind is Locality.RACK_LOCAL:
                q.rack_local += 1
            elif kind is Locality.OFF_SWITCH:
                q.off_switch += 1
        state.allocated = add(state.allocated, resource)
        if kind is not None:
            state.containers_allocated += 1

    def _consume_earmark(self, node: Node, attempt: AttemptKey, allocated: Resource) -> None:
        """Every allocation for an earmarked attempt reduces its entry on the node (§3.2)."""
        entry = node.earmarks.get(attempt)
        if entry is None:
            return
        taken = componentwise_min(entry, allocated)
        node.earmarked_total = subtract(node.earmarked_total, taken)
        left = subtract(entry, taken)
        if is_none(left):
            del node.earmarks[attempt]
        else:
            node.earmarks[attempt] = left

    def free_container(self, container: Container) -> App:
        """Give a container's resources back everywhere; reports nothing (``Scheduler`` does)."""
        state = self.state
        node = state.nodes.get(container.node)
        if node is not None:
            node.allocated = subtract(node.allocated, container.resource)
            node.containers.pop(container.id, None)
            node.marked_for_preemption.pop(container.id, None)
            self.log.node(node.name)
        app = state.apps[container.app_id]
        app.containers.pop(container.id, None)
        app.usage = subtract(app.usage, container.resource)
        self.log.app(app)
        if app.to_be_preempted.pop(container.id, None) is not None:
            app.resources_to_be_preempted -= container.resource
        self.add_usage(app.queue, subtract(state.none, container.resource))
        queues = state.queues
        for name in self._context.ancestry(app.queue):
            queues[name].containers_released += 1  # QueueMetrics.releaseResources
        state.allocated = subtract(state.allocated, container.resource)
        self.update_root_queue_metrics()
        return app

    def reserve(self, app: App, node: Node, key: SchedulerKey, resource: Resource) -> bool:
        """Create or refresh ``app``'s reservation on ``node``; True if it is new."""
        existing = node.reservation
        self.log.node(node.name)
        if existing is not None:
            self.change_reserved(app.queue, subtract(resource, existing.resource), 0)
            existing.key, existing.resource = key, resource
            return False
        reservation = Reservation(app.id, node.name, key, resource, self.new_container_id(app))
        node.reservation = reservation
        app.reservations[node.name] = reservation
        self.log.app(app)  # one reservation nearer its reservable-nodes limit
        self.change_reserved(app.queue, resource, 1)
        return True

    def unreserve(self, app: App, node: Node) -> Reservation | None:
        """Drop the reservation; reports nothing (``Scheduler.unreserve`` does)."""
        reservation = node.reservation
        if reservation is None:
            return None
        node.reservation = None
        self.log.node(node.name)
        app.reservations.pop(node.name, None)
        self.log.app(app)
        self.change_reserved(app.queue, subtract(self.state.none, reservation.resource), -1)
        return reservation

    def move_reservations(self, app: App, old: str, new: str) -> None:
        for reservation in app.reservations.values():
            self.change_reserved(old, subtract(self.state.none, reservation.resource), -1)
            self.change_reserved(new, reservation.resource, 1)


RECORDS: Records = {
    # a recovered AM's leaf's AM limit (an allocation's record of the app covers the others)
    ContainerWriter.allocate: (Change.APP, Change.QUEUE, Change.AM_LIMIT, Change.NODE),
    # (a container of a node that left records no node)
    ContainerWriter.free_container: (Change.APP, Change.QUEUE, Change.NODE),
    ContainerWriter.reserve: (Change.APP, Change.NODE),  # the app: a new reservation only
    ContainerWriter.unreserve: (Change.APP, Change.NODE),
    ContainerWriter.move_reservations: (),
}

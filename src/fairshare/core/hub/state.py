"""The only writer of the cluster's state: every field of an app, a node, a queue's runtime
record or the cluster is assigned here (``tests/test_state_writes.py`` checks it), and each
write a cache depends on is recorded in the change log (:mod:`fairshare.core.model.changes`).
The writers decide and report nothing (their callers emit the events); vectors are replaced,
never changed in place. The § numbers cited here are sections of docs/semantics.md.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping

from fairshare.core.hub.context import Context
from fairshare.core.model.changes import ChangeLog
from fairshare.core.model.records import (
    ANY,
    App,
    AppState,
    Ask,
    AttemptKey,
    ClusterState,
    Container,
    KillTimer,
    Node,
    QueueRuntime,
    Reservation,
    SchedulerKey,
    StarvationWrites,
    StarvedApps,
)
from fairshare.core.model.tree import QueueTree
from fairshare.core.rules.locality import Locality, LocalityState
from fairshare.resources.vector import Resource, add, componentwise_min, is_none, subtract


class StateWriter:
    """Every write of the state, each recording what it changed (grouped by what they write)."""

    def __init__(self, state: ClusterState, context: Context, log: ChangeLog) -> None:
        self.state, self._context, self.log = state, context, log

    def sync_queues(self, tree: QueueTree, now: int) -> None:  # new queues start at the clock
        queues, none = self.state.queues, self.state.none
        for node in tree:
            if node.name not in queues:
                queues[node.name] = QueueRuntime(node.name, none, last_time_at_min_share=now)
        for name in [n for n in queues if n not in tree]:
            del queues[name]
        self.log.tree()

    def add_usage(self, queue: str, amount: Resource) -> None:
        queues, log = self.state.queues, self.log
        for name in self._context.ancestry(queue):
            q = queues[name]
            q.usage = add(q.usage, amount)
            log.queue(name)

    def change_reserved(self, queue: str, delta: Resource, count: int) -> None:
        for name in self._context.ancestry(queue):
            q = self.state.queues[name]
            q.reserved = add(q.reserved, delta)
            q.reserved_containers += count
        self.state.reserved = add(self.state.reserved, delta)

    def count(self, queue: str, counter: str) -> None:  # a QueueMetrics counter, and above
        for name in self._context.ancestry(queue):
            q = self.state.queues[name]
            setattr(q, counter, getattr(q, counter) + 1)

    def set_max_am_share_metric(self, leaf: str, limit: Resource) -> None:
        self.state.queues[leaf].max_am_share_metric = limit

    def set_queue_demand(self, name: str, demand: Resource) -> None:
        self.state.queues[name].demand = demand
        self.log.queue(name)

    def set_queue_fair_share(self, name: str, share: Resource, is_leaf: bool) -> None:
        self.state.queues[name].fair_share = share
        if is_leaf:
            self.log.am_limit(name)  # a leaf's AM limit reads its fair share

    def set_steady_fair_shares(self, shares: Mapping[str, Resource]) -> None:
        for name, share in shares.items():
            self.state.queues[name].steady_fair_share = share

    def update_root_queue_metrics(self) -> None:
        """``FairScheduler.updateRootQueueMetrics`` (see ``Scheduler.root_available``)."""
        available = self.state.capacity - self.state.allocated
        if available != self.state.root_available:
            self.state.root_available = available

    def add_node(self, node: Node) -> None:
        self.state.nodes[node.name] = node
        self._cluster_is(add(self.state.capacity, node.capacity))

    def remove_node(self, node: Node) -> None:
        del self.state.nodes[node.name]
        self._cluster_is(subtract(self.state.capacity, node.capacity))

    def resize_node(self, node: Node, capacity: Resource) -> None:
        cluster = add(subtract(self.state.capacity, node.capacity), capacity)
        node.capacity = capacity
        self._cluster_is(cluster)

    def _cluster_is(self, capacity: Resource) -> None:
        self.state.capacity = capacity
        self.update_root_queue_metrics()
        self.log.cluster()

    def start_decommission(self, node: Node, deadline: int | None) -> None:
        node.decommissioning, node.decommission_deadline = True, deadline

    def note_app_ran(self, node: Node, app_id: str) -> None:
        """``app_id`` ran a container on ``node`` (``RMNodeImpl.runningApplications``); apps
        that ended are dropped whenever the record doubles."""
        ran = node.apps_ran
        ran[app_id] = None
        if len(ran) > node.apps_ran_limit:
            apps = self.state.apps
            for gone in [a for a in ran if a not in apps or apps[a].stopped]:
                del ran[gone]
            node.apps_ran_limit = max(16, 2 * len(ran))

    def add_app(self, app: App) -> None:
        self.state.apps[app.id] = app
        self.log.membership(app)

    def reject_app(self, app: App, reason: str | None) -> None:
        app.state, app.rejection_reason = AppState.REJECTED, reason

    def place_app(self, app: App, queue: str, am_preemption: bool) -> None:
        app.queue, app.am_preemption = queue, am_preemption
        self.log.membership(app)

    def move_app(self, app: App, queue: str) -> None:
        self.log.membership(app)  # the leaf it leaves
        app.queue = queue
        self.log.membership(app)  # the leaf it joins

    def end_app(self, app: App, state: AppState, now: int) -> None:
        app.state, app.finish_time = state, now
        app.asks.clear()
        app.inactive_asks.clear()
        self.count(app.queue, "apps_completed" if state is AppState.FINISHED else "apps_killed")
        self.log.membership(app)

    def new_attempt(self, app: App, now: int, am_preemption: bool) -> None:
        """A new ``FSAppAttempt``: demand 0 until the next update pass, so unserved till then."""
        none = self.state.none
        app.attempt += 1
        app.am_preemption = am_preemption
        app.start_time = app.last_time_at_fair_share = now
        app.am_running, app.am_resource, app.next_container = False, None, 1
        app.fairshare_starvation = app.minshare_starvation = app.fair_share = app.demand = none
        app.next_starvation_check = 0
        app.locality.clear()
        app.state = AppState.ACCEPTED

    def new_container_id(self, app: App) -> str:
        """YARN-like ``container_<app>_<attempt>_<seq>``; reservations draw from it too."""
        container_id = f"container_{app.id}_{app.attempt:02d}_{app.next_container:06d}"
        app.next_container += 1
        return container_id

    def set_app_demand(self, app: App, demand: Resource) -> None:
        app.demand = demand
        self.log.app(app)  # the walk's order and offers read the demand

    def set_app_fair_share(self, app: App, share: Resource) -> None:
        app.fair_share = share
        self.log.app(app)  # whether it is starved (may reserve) reads its fair share

    def set_locality(self, app: App, key: SchedulerKey, locality: LocalityState) -> None:
        app.locality[key] = locality

    def track_runnable(self, app: App) -> None:
        """``trackRunnableApp`` + ``addApp(runnable=true)``."""
        state = self.state
        app.runnable = True
        state.queues[app.queue].runnable_apps.append(app)
        self.log.app(app)
        state.user_runnable[app.user] = state.user_runnable.get(app.user, 0) + 1
        for name in self._context.ancestry(app.queue):
            state.queues[name].num_runnable += 1

    def track_non_runnable(self, app: App) -> None:
        """``trackNonRunnableApp`` + ``addApp(runnable=false)``."""
        app.runnable = False
        self.state.queues[app.queue].non_runnable_apps.append(app)
        self.state.user_waiting.setdefault(app.user, []).append(app)

    def promote(self, app: App) -> None:
        self.state.queues[app.queue].non_runnable_apps.remove(app)
        self.state.user_waiting[app.user].remove(app)
        self.track_runnable(app)

    def untrack(self, app: App) -> bool:
        """``removeApp``: out of its leaf, its AM out of the leaf's AM usage, and out of the
        counts; True if it was runnable."""
        state = self.state
        leaf = state.queues[app.queue]
        if app.runnable and app in leaf.runnable_apps:
            leaf.runnable_apps.remove(app)
            self.log.app(app)
            if app.am_running and app.am_resource is not None:
                leaf.am_resource_usage = subtract(leaf.am_resource_usage, app.am_resource)
                self.log.am_limit(app.queue)  # a move changes app.queue before the index looks
            state.user_runnable[app.user] -= 1
            for name in self._context.ancestry(app.queue):
                state.queues[name].num_runnable -= 1
            app.runnable = False
            return True
        if app in leaf.non_runnable_apps:
            leaf.non_runnable_apps.remove(app)
        waiting = state.user_waiting.get(app.user, [])
        if app in waiting:
            waiting.remove(app)
        return False

    def add_asks(self, app: App, key: SchedulerKey, places: Iterable[tuple[str, bool]],
                 capability: Resource, count: int) -> None:
        """``count`` more containers of ``key`` asked at each of ``places`` (name, relax).

        A key asked for again takes back the host and rack asks it was left with when its ANY
        ask ran out (§3.6.6: YARN's placement allocator outlives the scheduler key)."""
        table = app.asks.get(key)
        if table is None:
            table = app.asks[key] = app.inactive_asks.pop(key, {})
        for name, relax in places:
            ask = table.get(name)
            if ask is None:
                table[name] = Ask(capability, count, relax)
            else:
                ask.count += count
                ask.relax_locality = relax  # the newest request's flag wins, as in YARN
        if ANY in table and next(iter(table)) != ANY:  # keep ANY first (the §5.2 order)
            app.asks[key] = {ANY: table.pop(ANY), **table}
        self.log.app(app)

    def decrement_asks(self, app: App, key: SchedulerKey, places: Iterable[str]) -> None:
        """One less at each of ``places``; an ask at 0 goes, ANY at 0 ends the key. The key's
        other asks stay, inactive, until it is asked for again (§3.6.6,
        ``LocalityAppPlacementAllocator.decrementOutstanding``)."""
        table = app.asks[key]
        for name in places:
            ask = table.get(name)
            if ask is None:
                continue
            ask.count -= 1
            if ask.count <= 0:
                del table[name]
        if ANY not in table:
            del app.asks[key]
            if table:
                app.inactive_asks[key] = table

    def allocate(self, app: App, node: Node, container: Container,
                 kind: Locality | None) -> None:
        """A new container accounted for everywhere (§3.6.2 ``allocate``; the app's first is
        its AM) — or, ``kind`` None, a recovered one: no locality, earmark or cluster count."""
        state, resource = self.state, container.resource
        node.allocated = add(node.allocated, resource)
        node.containers[container.id] = container
        node.peak_containers = max(node.peak_containers, len(node.containers))
        if kind is not None:
            if app.id not in node.apps_ran:
                self.note_app_ran(node, app.id)
            self._consume_earmark(node, app.attempt_key, resource)
        app.containers[container.id] = container
        app.usage = add(app.usage, resource)
        if not app.am_running and not app.unmanaged:
            app.am_resource, app.am_running = resource, True
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

    def drop_earmark(self, node: Node, attempt: AttemptKey) -> None:
        node.earmarked_total -= node.earmarks.pop(attempt)

    def free_container(self, container: Container) -> App:
        """Give a container's resources back everywhere; reports nothing (``Scheduler`` does)."""
        state = self.state
        node = state.nodes.get(container.node)
        if node is not None:
            node.allocated = subtract(node.allocated, container.resource)
            node.containers.pop(container.id, None)
            node.marked_for_preemption.pop(container.id, None)
        app = state.apps[container.app_id]
        app.containers.pop(container.id, None)
        app.usage = subtract(app.usage, container.resource)
        self.log.app(app)
        if app.to_be_preempted.pop(container.id, None) is not None:
            app.resources_to_be_preempted -= container.resource
        self.add_usage(app.queue, subtract(state.none, container.resource))
        self.count(app.queue, "containers_released")
        state.allocated = subtract(state.allocated, container.resource)
        self.update_root_queue_metrics()
        return app

    def reserve(self, app: App, node: Node, key: SchedulerKey, resource: Resource) -> bool:
        """Create or refresh ``app``'s reservation on ``node``; True if it is new."""
        existing = node.reservation
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
        app.reservations.pop(node.name, None)
        self.log.app(app)
        self.change_reserved(app.queue, subtract(self.state.none, reservation.resource), -1)
        return reservation

    def move_reservations(self, app: App, old: str, new: str) -> None:
        for reservation in app.reservations.values():
            self.change_reserved(old, subtract(self.state.none, reservation.resource), -1)
            self.change_reserved(new, reservation.resource, 1)

    def open_starvation_gate(self, gate_open: bool) -> None:
        self.state.starvation_gate_open = gate_open

    def set_starved(self, starved: StarvedApps) -> None:
        self.state.starved = starved

    def apply_starvation(self, writes: StarvationWrites) -> None:
        """The starvation step's decisions (:class:`StarvationWrites`), in the order made."""
        for runtime in writes.stamp_min_share:
            runtime.last_time_at_min_share = writes.clock
        for stamped in writes.stamp_fair_share:
            stamped.last_time_at_fair_share = writes.clock
        for runtime, last in writes.last_time_at_min_share.items():
            runtime.last_time_at_min_share = last
        for app, (amount, last) in writes.fairshare.items():
            app.fairshare_starvation, app.last_time_at_fair_share = amount, last
        for app, amount in writes.minshare.items():
            app.minshare_starvation = amount
            self.log.app(app)  # min-share starvation makes it starved: it may reserve
        for runtime, (starved, since) in writes.min_share_starved.items():
            if not starved:
                runtime.min_share_starved_since = None
            elif runtime.min_share_starved_since is None:
                runtime.min_share_starved_since = since
        if writes.starved is not None:
            self.state.starved = writes.starved

    def set_next_starvation_check(self, app: App, when: int) -> None:
        app.next_starvation_check = when

    def mark_for_preemption(self, node: Node, owner: App, container: Container,
                            beneficiary: AttemptKey) -> None:
        """§5.6: marked on its node and app, its resource earmarked for ``beneficiary``."""
        node.marked_for_preemption[container.id] = container
        resource = container.resource
        node.earmarks[beneficiary] = node.earmarks.get(beneficiary, self.state.none) + resource
        node.earmarked_total += resource
        owner.to_be_preempted[container.id] = container
        owner.resources_to_be_preempted += resource

    def count_preempted(self, owner: App, container: Container) -> None:
        owner.preempted_resource += container.resource
        owner.preempted_containers += 1  # AM containers included; also counted below
        if container.is_am:
            owner.preempted_am_containers += 1
        self.count(owner.queue, "containers_preempted")  # AggregateContainersPreempted

    def add_kill_timer(self, due: int, seq: int, timer: KillTimer) -> None:
        heapq.heappush(self.state.kill_timers, (due, seq, timer))

    def pop_kill_timer(self) -> tuple[int, int, KillTimer]:
        return heapq.heappop(self.state.kill_timers)

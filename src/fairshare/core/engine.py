"""The scheduling engine: the FairScheduler's operations, driven from outside with a clock.

:class:`Engine` is the public face of ``fairshare.core``. Every method takes effect at the
engine's current time (``now``), which only :meth:`Engine.advance_to` moves; kill timers of
preemption fire as the clock passes them. Nothing happens on its own: the caller decides when
nodes heartbeat and when the update pass runs (a simulator does so on YARN's intervals).

Everything the engine decides is reported as events (:mod:`fairshare.core.model.events`), in order,
to the sink given at construction (default: the ``events`` list).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from fairshare.config.model import AllocationConfig
from fairshare.config.yarnsite import SiteConfig
from fairshare.core.heartbeat.quiet import QuietHeartbeats
from fairshare.core.heartbeat.walk import attempt_scheduling
from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.lifecycle import apps as lifecycle
from fairshare.core.lifecycle.admission import promote_on_reload
from fairshare.core.lifecycle.asks import ContainerRequest
from fairshare.core.lifecycle.decommission import drained
from fairshare.core.lifecycle.recovery import recover_container
from fairshare.core.model.errors import ClockError, DuplicateNode, EngineError, UnknownContainer
from fairshare.core.model.events import (
    Completion,
    ConfigErrorEvent,
    ConfigReloaded,
    Event,
    NodeAdded,
    NodeDecommissioned,
    NodeDecommissioning,
    NodeRemoved,
    NodeResized,
)
from fairshare.core.model.reasons import AttemptRestart, Decommissioned, UnreserveReason
from fairshare.core.model.records import App, AppState, Container, Node
from fairshare.core.model.tree import reload_queue_tree
from fairshare.core.preemption.commit import fire_due_timers
from fairshare.core.preemption.round import preempt_for_starved_apps
from fairshare.core.queries import EngineQueries, in_force
from fairshare.core.rules.yarn_order import containers_in_hash_order
from fairshare.core.snapshot import Snapshots
from fairshare.core.steps import EngineSteps, SteadyShares
from fairshare.resources.vector import Resource

DEFAULT_RACK = "/default-rack"

__all__ = ["MAX_TIME_MS", "ContainerRequest", "Engine", "EngineError"]

# The clock's range: YARN's clock is a Java long, but every time is written to JSON outputs,
# whose readers (JavaScript, jq) hold numbers as doubles, exact only up to 2^53 - 1.
MAX_TIME_MS = 2**53 - 1


class Engine(EngineQueries):
    """A fair scheduler with its preemption machinery, on an external clock (its read side:
    :class:`~fairshare.core.queries.EngineQueries`)."""

    def __init__(
        self,
        site: SiteConfig,
        allocations: AllocationConfig,
        *,
        start_ms: int = 0,
        groups: Mapping[str, Sequence[str]] | None = None,
        sink: Callable[[Event], None] | None = None,
    ) -> None:
        if not 0 <= start_ms <= MAX_TIME_MS:
            raise ClockError(f"the clock must start between 0 and {MAX_TIME_MS:,} ms, "
                              f"not at {start_ms:,} ms")
        self.s = Scheduler(site, allocations, sink, start_ms)
        # the steps with caches, a seam for reference checks only (core/steps.py): tests and
        # benchmarks put the steps of tests/oracles/ there to compare decisions
        self._steps = EngineSteps.own(self.s.changes)
        self._steady = SteadyShares(self.s.changes)
        self._steady.refresh(self.s)
        self._quiet: QuietHeartbeats | None = None  # made by the first heartbeat_tick that skips
        self.groups: Mapping[str, Sequence[str]] = groups or {}
        self._deadlines: list[tuple[int, str]] = []  # decommission timeouts: (due, node)
        self._snapshots: Snapshots | None = None  # made by the first snapshot

    def subscribe(self, listener: Callable[[Event], None]) -> Callable[[], None]:
        """Hand every event from now on to ``listener`` as well, after the engine's sink (and
        the listeners subscribed before); call what it returns to unsubscribe."""
        return self.s.subscribe(listener)

    def unsubscribe(self, listener: Callable[[Event], None]) -> None:
        """Stop handing events to ``listener`` (a listener not subscribed is ignored)."""
        self.s.unsubscribe(listener)

    # -- the clock -----------------------------------------------------------------------------

    def advance_to(self, time_ms: int) -> None:
        """Move the clock to ``time_ms``, killing preemption victims whose time has come."""
        if time_ms < self.s.now:
            raise ClockError(f"time cannot go back from {self.s.now} to {time_ms} ms")
        due = self._next_deadline()
        while due is not None and due <= time_ms:  # kill timers due by then go first
            fire_due_timers(self.s, due)
            self.s.set_clock(max(self.s.now, due))
            _, name = heapq.heappop(self._deadlines)
            self._decommissioned(self.s.state.nodes[name], Decommissioned.TIMEOUT)
            due = self._next_deadline()
        fire_due_timers(self.s, time_ms)
        self.s.set_clock(time_ms)

    def advance(self, ms: int) -> None:
        """Move the clock ``ms`` forward; it cannot pass :data:`MAX_TIME_MS` (the simulator's
        loop, which calls :meth:`advance_to` directly, stops there)."""
        if self.s.now + ms > MAX_TIME_MS:
            raise ClockError(f"the clock would pass {MAX_TIME_MS:,} ms (2^53 - 1, the largest "
                              f"time the outputs hold exactly): it is at {self.s.now:,} ms")
        self.advance_to(self.s.now + ms)

    def _next_deadline(self) -> int | None:
        """The next decommission timeout still in force (entries of nodes gone or given a new
        timeout are dropped here)."""
        deadlines, nodes = self._deadlines, self.s.state.nodes
        while deadlines:
            if in_force(deadlines[0], nodes):
                return deadlines[0][0]
            heapq.heappop(deadlines)
        return None

    # -- nodes -----------------------------------------------------------------------------------

    def add_node(self, name: str, capacity: Resource, rack: str = DEFAULT_RACK) -> Node:
        """A NodeManager registers; steady fair shares follow the new cluster size."""
        node = self._register(name, capacity, rack)
        self._steady.refresh(self.s)
        return node

    def add_nodes(self, nodes: Iterable[tuple[str, Resource, str]]) -> list[Node]:
        """NodeManagers ``(name, capacity, rack)`` register one after the other, as
        :meth:`add_node` each (the same events), with steady fair shares computed once for the
        cluster they make: a cluster's thousands of nodes at the start of a run."""
        try:
            return [self._register(name, capacity, rack) for name, capacity, rack in nodes]
        finally:  # the nodes registered before a refused one stay, with their shares
            self._steady.refresh(self.s)

    def _register(self, name: str, capacity: Resource, rack: str) -> Node:
        if name in self.s.state.nodes:
            raise DuplicateNode(f"node {name} is already registered")
        node = Node(name, rack, capacity, self.s.none)
        self.s.write.add_node(node)
        self.s.emit(NodeAdded, node=name, rack=rack, capacity=capacity)
        return node

    def remove_node(self, name: str, cause: int | None = None) -> None:
        """The node is lost: its containers end (AMs among them restart their attempt)."""
        node = self.node(name)
        event = self.s.emit(NodeRemoved, cause, node=name, lost_containers=len(node.containers))
        if node.reservation is not None:
            owner = self.s.state.apps[node.reservation.app_id]
            self.s.unreserve(owner, node, UnreserveReason.NODE_REMOVED, event.seq)
        # FairScheduler.removeNode ends every container on the node as lost, in its map's
        # order; only then does the ResourceManager fail the attempts whose AM was there
        lost_ams = []
        for container in containers_in_hash_order(node.containers, node.peak_containers):
            completed = self.s.complete_container(container, Completion.LOST, event.seq)
            if container.is_am:
                lost_ams.append((self.s.state.apps[container.app_id], completed.seq))
        for owner, completed_seq in lost_ams:
            lifecycle.restart_attempt(self.s, owner, AttemptRestart.AM_LOST,
                                      completed_seq)
        self.s.write.remove_node(node)
        self._steady.refresh(self.s)
        self._next_deadline()  # its timeout, if it had one, leaves the head (see next_timer)

    def resize_node(self, name: str, capacity: Resource, cause: int | None = None) -> None:
        """The node's total changes; running containers stay even if they no longer fit."""
        node = self.node(name)
        self.s.write.resize_node(node, capacity)
        self.s.emit(NodeResized, cause, node=name, capacity=capacity)
        self._steady.refresh(self.s)

    def decommission_node(self, name: str, timeout_ms: int | None) -> None:
        """Graceful decommission (``yarn rmadmin -refreshNodes -g``;
        core/lifecycle/decommission.py): the node's total becomes what its containers use, so
        nothing new is placed there; it leaves when drained or after ``timeout_ms`` (None: no
        timeout). Asked again, the new timeout counts from now, as a second ``-refreshNodes -g``
        does."""
        node = self.node(name)
        deadline = None if timeout_ms is None else min(self.s.now + timeout_ms, MAX_TIME_MS)
        self.s.write.start_decommission(node, deadline)
        if deadline is not None:
            heapq.heappush(self._deadlines, (deadline, name))
        self._next_deadline()  # an earlier timeout it replaces leaves the head (next_timer)
        event = self.s.emit(NodeDecommissioning, node=name, deadline=deadline,
                            running_containers=len(node.containers))
        self._shrink_to_used(node, event.seq)

    def _shrink_to_used(self, node: Node, cause: int | None) -> None:
        """A decommissioning node's total follows its used resource (YARN-3223)."""
        if node.capacity != node.allocated:
            self.resize_node(node.name, node.allocated, cause)

    def _decommissioned(self, node: Node, reason: Decommissioned) -> None:
        event = self.s.emit(NodeDecommissioned, node=node.name, reason=reason)
        self.remove_node(node.name, event.seq)

    def heartbeat(self, name: str) -> None:
        """One NodeManager heartbeat: ``attemptScheduling`` on that node (docs/semantics.md §3.1). A
        decommissioning node first leaves if drained, else its total follows its usage."""
        if self._quiet is not None:  # a heartbeat outside the ticks: the tracker starts afresh
            self._quiet.forget()
        self._heartbeat(name)

    def _heartbeat(self, name: str) -> None:
        node = self.node(name)
        if node.decommissioning:
            if drained(self.s, node):
                self._decommissioned(node, Decommissioned.DRAINED)
                return
            self._shrink_to_used(node, None)
        if self._scheduling_ready():
            attempt_scheduling(self.s, node, self._steps.tree_walk)
        self.s.write.update_root_queue_metrics()

    def _scheduling_ready(self) -> bool:
        """Whether a heartbeat may allocate: not until the recovery wait after a restart has
        passed (``FairScheduler.attemptScheduling`` returns at once before that)."""
        until = self.s.state.scheduling_wait_until
        if until is None:
            return True
        if self.s.now > until:  # (now - recovery start) > wait, as YARN compares
            self.s.write.end_scheduling_wait()
            return True
        return False

    def heartbeat_all(self) -> None:
        """Every node once, in registration order."""
        for name in list(self.s.state.nodes):
            if name in self.s.state.nodes:  # a decommissioned node leaves on its heartbeat
                self.heartbeat(name)

    def heartbeat_tick(self, skip_quiet: bool = True, verify: bool = False) -> Iterator[str]:
        """One heartbeat interval: every node registered at its start heartbeats once, in
        registration order, and its name is yielded after its heartbeat, so that the caller
        answers it (an AM asking for more) before the next node's. ``skip_quiet``: heartbeats
        that provably change nothing are skipped (core/heartbeat/quiet.py; with delay
        scheduling on nothing is); ``verify``: they run anyway, and ``AssertionError`` is
        raised if one was not quiet. The decisions and events are the same either way."""
        if (not skip_quiet or self.s.site.delay_scheduling_enabled  # (every walk counts then)
                or self.s.state.scheduling_wait_until is not None):
            # (during the recovery wait a heartbeat allocates nothing whatever it saw: the
            # tracker of quiet heartbeats starts afresh after it)
            return self._every_heartbeat()
        if self._quiet is None:  # it learns the nodes at its first tick: events before do not count
            self._quiet = QuietHeartbeats(self.s, self._steps.order_index, self._heartbeat)
            self.s.tap(self._quiet.heard)
        self._quiet.verify = verify
        return self._quiet.tick()

    def _every_heartbeat(self) -> Iterator[str]:
        for name in list(self.s.state.nodes):
            self.heartbeat(name)  # (the tracker, if any, learns the nodes afresh at its next tick)
            yield name

    def restart(self, epoch: int, scheduling_wait_ms: int | None) -> None:
        """The ResourceManager started again on its state store, its ``epoch``-th time: the
        containers of every attempt made from now on are numbered from ``epoch << 40``
        (``container_e<epoch>_…``, ``AppSchedulingInfo``); ``scheduling_wait_ms`` (None: no
        app to recover) is ``yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms``,
        during which heartbeats allocate nothing while the apps and their containers are
        recovered (``ResourceManager.setSchedulerRecoveryStartAndWaitTime``)."""
        if not 0 <= epoch < 1 << 23:  # the upper 24 bits of a container id's long, signed
            raise ValueError(f"an epoch is between 0 and {(1 << 23) - 1}, not {epoch}")
        if scheduling_wait_ms is not None and scheduling_wait_ms < 0:
            raise ValueError(f"a scheduling wait is 0 ms or more, not {scheduling_wait_ms}")
        self.s.write.start_epoch(epoch, None if scheduling_wait_ms is None
                                 else self.s.now + scheduling_wait_ms)

    # -- applications ----------------------------------------------------------------------------

    def submit(
        self, app_id: str, queue: str = "default", user: str = "nobody",
        am: Resource | None = None, requests: Sequence[ContainerRequest] = (),
        recovering: bool = False,
    ) -> App:
        """Submit an app; ``am`` is its AM container size (None: an unmanaged AM).

        ``recovering``: the app was running before an RM restart; its attempt does not ask for
        its AM, whose container (like its others) is recovered by :meth:`recover_container`."""
        app = lifecycle.submit(self.s, app_id, queue, user, self.groups.get(user, ()), am,
                               requests, recovering)
        self._steady.refresh(self.s)  # a dynamic queue may have been created for it
        return app

    def recover_container(
        self, app_id: str, node: str, resource: Resource, *, am: bool = False,
        priority: int = 0, container_id: str | None = None,
    ) -> Container:
        """A container that ran before an RM restart is reported by its registering node and
        taken over as it is: YARN's work-preserving recovery
        (:mod:`fairshare.core.lifecycle.recovery`)."""
        return recover_container(self.s, self.app(app_id), self.node(node), resource, am,
                                 priority, container_id)

    def request(self, app_id: str, requests: Sequence[ContainerRequest]) -> None:
        lifecycle.add_requests(self.s, self.app(app_id), requests)

    def release(self, app_id: str, count: int = 1, which: str = "newest") -> int:
        return lifecycle.release(self.s, self.app(app_id), count, which)

    def complete_container(self, app_id: str, container_id: str) -> None:
        """The task in ``container_id`` has finished: its container completes (``released``)."""
        container = self.app(app_id).containers.get(container_id)
        if container is None:
            raise UnknownContainer(f"application {app_id} has no running container {container_id}")
        self.s.complete_container(container, Completion.RELEASED)

    def finish(self, app_id: str) -> None:
        app = self.app(app_id)
        lifecycle.end_app(self.s, app, AppState.FINISHED)

    def kill(self, app_id: str) -> None:
        app = self.app(app_id)
        lifecycle.end_app(self.s, app, AppState.KILLED)

    def forget(self, app_id: str) -> bool:
        """The caller's ResourceManager forgot the ended app ``app_id``: so does the engine,
        once nothing refers to it any more (docs/semantics.md §3.9); False: not yet, nothing
        changed. Raises ``AppNotEnded`` for an app still running or waiting."""
        return lifecycle.forget(self.s, self.app(app_id))

    def move(self, app_id: str, queue: str) -> bool:
        moved = lifecycle.move(self.s, self.app(app_id), queue)
        self._steady.refresh(self.s)  # a dynamic queue may have been created for it
        return moved

    # -- the update pass and preemption ------------------------------------------------------

    def update(self, preempt: bool = True) -> None:
        """One update pass (§2.1, §4); then, as the preemption thread would, every starved
        app's victims are chosen and warned (§5)."""
        self.s.write.update_root_queue_metrics()
        self._steps.update_pass.update(self.s)
        if preempt:
            self.preempt()

    def preempt(self) -> None:
        preempt_for_starved_apps(self.s, self._steps.round_planner(self.s))

    # -- configuration -------------------------------------------------------------------------

    def reload(self, allocations: AllocationConfig, source: str) -> None:
        """Apply a successfully parsed allocation file (§1.2 steps 1–7) to the queues that
        exist, as YARN's reload listener does
        (:func:`~fairshare.core.model.tree.reload_queue_tree`): what it cannot apply yet is
        listed in the ``config-reloaded`` event's ``problems``."""
        busy = {a.queue for a in self.s.state.live_apps() if a.queue}
        tree = reload_queue_tree(self.s.tree, allocations,
                                 lambda queue: not _holds_apps(queue, busy))
        self.s.set_tree(tree, allocations)
        self._steady.refresh(self.s)
        problems = [f"{name}: {why}" for name, why in tree.not_created]
        if tree.policies_kept is not None:
            problems.insert(0, tree.policies_kept)
        event = self.s.emit(ConfigReloaded, source=source, queues=len(list(tree)),
                            problems=tuple(problems))
        promote_on_reload(self.s, event.seq)

    def reload_failed(self, source: str, message: str) -> None:
        """A reload that did not parse: the previous configuration stays in force (§1.2)."""
        self.s.emit(ConfigErrorEvent, source=source, message=message)

    # -- for benchmarks ----------------------------------------------------------------------

    def _refresh_walk_index(self) -> None:
        """Bring the walk's order index up to date, as the next heartbeat would first do (for
        ``bench/allocate.py``, which times building it)."""
        self._steps.order_index.refresh(self.s)


def _holds_apps(queue: str, busy: set[str]) -> bool:
    return any(q == queue or q.startswith(queue + ".") for q in busy)

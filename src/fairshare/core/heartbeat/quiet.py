"""Which heartbeats of a tick can be skipped: the engine's ``heartbeat_tick`` (issue 4).

A node's heartbeat is *quiet* when it would change nothing but the MaxAMShare gauge that the AM
checks of a walk write (docs/semantics.md §3.6.4). Skipping quiet heartbeats leaves every decision,
event and number as the plain fixed-interval loop has them; the gauge is kept right by running, for
real, the last quiet heartbeat before each one that does something (see ``_skip``).

Quiet, provably (delay scheduling off — with it on, every visit counts an opportunity and
nothing is skipped):

* a node **without a reservation** is quiet when nothing in the whole tree could allocate on
  its free space or reserve it — the walk index's root activity (``OrderIndex.may_act``),
  asked afresh before every choice, so new asks are seen at once. Nodes are filed by their
  free space, so one question per distinct free space finds them.
* a node **with a reservation**, an AM already running for the reserving app, and no max share
  configured on the app's queues, is quiet if since its last heartbeat no event named the node
  and the reserving app neither lost the reserved ask (an allocation that left it no container
  to ask for) nor its AM (a new attempt): the reservation stays valid and still does not fit
  (``assign_reserved_container`` reads nothing else; more asks, starvation, warnings, other
  reservations and tasks ending change none of that). The node's own heartbeat's events (the
  reservation it just made, say) do not count: a reservation that stays and does not fit makes
  a heartbeat that changes nothing.

A node **with earmarks** first runs the earmark step (``assign_preempted_containers``): each
earmarked app, if still starved, tries the node until it fails. A heartbeat ends with that step
at a fixpoint, so the step is quiet if since the node's last heartbeat no event named the node
(its own heartbeat's aside) or an earmarked app (its own heartbeat's included: an AM served
there asks for its tasks), and the update pass changed for no earmarked app whether
``preemption_list`` keeps its earmarks (``keeps_earmark``, compared at the start of each tick).
The rest of its heartbeat is then judged as above. Earmarked apps without a running AM (their
check writes the gauge), gone, or under a configured max share make the node run every time.

A **decommissioning** node runs every time (it leaves on its heartbeat once drained, which an
app finishing elsewhere may allow without an event naming the node). Everything else runs:
reservations of apps whose AM is not running yet (their check writes the gauge) or under a
configured max share (any usage change may flip them), and every node an event named since its
last heartbeat. docs/simulator.md tells how this is checked.

The tracker hears each event as it is emitted (an engine listener) and looks at it at its next
decision — a tick's start, or the end of a heartbeat it ran once the caller has answered it —
so every event is seen before a node is judged quiet, with the state as it is then.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left, insort
from collections.abc import Callable, Iterator

from fairshare.core.heartbeat.assignment import earmarked_attempt, keeps_earmark
from fairshare.core.heartbeat.order_index import OrderIndex
from fairshare.core.hub.scheduler import ROOT, Scheduler
from fairshare.core.model.events import (
    ConfigReloaded,
    ContainerAllocated,
    ContainerCompleted,
    ContainerPreempted,
    ContainerReserved,
    ContainersRequested,
    ContainerUnreserved,
    Event,
    NodeAdded,
    NodeDecommissioned,
    NodeDecommissioning,
    NodeRemoved,
    NodeResized,
    PreemptionWarned,
    Starvation,
)
from fairshare.core.model.records import ANY, App, AttemptKey, Node, Reservation, SchedulerKey
from fairshare.resources.vector import Resource

RESHAPING = (NodeAdded, NodeRemoved, NodeResized, ConfigReloaded, NodeDecommissioning,
             NodeDecommissioned)
# a node's reservation before its heartbeat: the record, and what it holds
_Before = tuple[Reservation | None, tuple[object, Resource] | None]
# What a reserved node's heartbeat reads of the reserving app is whether the reserved ask is
# still wanted and whether its AM runs: more asks, starvation, warnings, and tasks ending or
# being killed change neither.
KEEPS_RESERVATIONS_QUIET = (ContainersRequested, Starvation, PreemptionWarned,
                            ContainerReserved, ContainerUnreserved)  # these name their node


class QuietHeartbeats:
    """Chooses, tick by tick, the heartbeats that must run; learns from the engine's events
    (``heard``, the list the scheduler's tap appends them to). ``heartbeat(name)`` runs one
    node's heartbeat."""

    def __init__(self, s: Scheduler, order: OrderIndex, heartbeat: Callable[[str], None]) -> None:
        self.s, self.order, self.heartbeat = s, order, heartbeat
        self.verify = False  # run every heartbeat, and check the skipped ones were quiet
        self.skipped = 0
        self.run_count = 0
        # the scheduler's tap (Scheduler.tap): each event waits here to be looked at before
        # the next decision
        self.heard: list[Event] = []
        self._reshaped = True
        self._pos = -1  # position in the tick under way; -1 between ticks
        self._running = -1  # the node whose heartbeat is running, if any
        self._due: list[int] = []
        self._queued: set[int] = set()

    def forget(self) -> None:
        """A heartbeat ran outside the ticks (what it left is unknown): learn afresh."""
        self.heard.clear()
        self._reshaped = True

    def _catch_up(self) -> None:
        if pending := self.heard:
            if not self._reshaped:  # (else the next tick learns everything afresh)
                for event in pending:
                    self.note(event)
            pending.clear()

    def _rebuild(self) -> None:
        """(Re)learn the nodes: at the start, and after nodes or the queue tree changed."""
        state = self.s.state
        self.names = list(state.nodes)
        self.position = {name: i for i, name in enumerate(self.names)}
        self.nodes = [state.nodes[name] for name in self.names]
        self.filed: list[Resource | None] = [None] * len(self.nodes)  # free space, if unreserved
        self.by_free: dict[Resource, list[int]] = {}  # unreserved nodes by free space
        self.unreserved: list[int] = []
        self.always: set[int] = set()
        self.next_due = set(range(len(self.nodes)))  # nothing is known yet
        self._active_lists: list[list[int]] | None = None  # members of classes that may act
        self._active_version = -1
        self._all_active = False
        # earmarked nodes whose earmark step was quiet when last filed: what it read of the
        # earmarked apps' starvation, checked at the start of each tick (the update pass may
        # change it without an event); and, per earmarked app, the nodes to look at again when
        # an event names the app (stale entries only cost a heartbeat)
        self.watched: dict[int, tuple[tuple[AttemptKey, bool], ...]] = {}
        self.earmarked_by_app: dict[str, set[int]] = {}
        for i in range(len(self.nodes)):
            self._file(i)
        self._reshaped = False

    def note(self, event: Event) -> None:
        """An event the engine emitted: the nodes and apps it names must be looked at again."""
        if self._reshaped:
            return
        if isinstance(event, RESHAPING):
            self._reshaped = True
            return
        name = getattr(event, "node", None)
        if name is not None and name in self.position:
            i = self.position[name]
            if i != self._running:  # its own heartbeat's events: it is filed when it ends
                self._touch(i)
        app_id = getattr(event, "app", None)
        if app_id is None:
            return
        earmarked = self.earmarked_by_app.get(app_id)
        if earmarked:  # whatever changed of the app, its earmark steps may now act
            for i in list(earmarked):  # (in any order: touching is order-free)
                if any(a == app_id for a, _ in self.nodes[i].earmarks):
                    self._touch(i)
                else:
                    earmarked.discard(i)
        if isinstance(event, KEEPS_RESERVATIONS_QUIET):
            return
        if isinstance(event, ContainerCompleted | ContainerPreempted) and not event.am:
            return
        app = self.s.state.apps.get(app_id)
        if app is None or not app.reservations:
            return
        allocated = isinstance(event, ContainerAllocated)
        wanted: dict[SchedulerKey, bool] = {}  # by reserved key: an app reserves many nodes for one
        for name, reservation in app.reservations.items():
            if allocated:
                still = wanted.get(reservation.key)
                if still is None:
                    still = wanted[reservation.key] = _still_wanted(app, reservation)
                if still:
                    continue  # the reservation's ask is still there: the node stays as it was
            self._touch(self.position[name])

    def _touch(self, i: int) -> None:
        if i in self.next_due or (i > self._pos and i in self._queued):
            return  # already due: it runs at its turn whatever its filing says, then is refiled
        self._file(i, ran=False)
        if self._pos >= 0 and i > self._pos:  # still to come in this tick
            if i not in self._queued:
                self._queued.add(i)
                heapq.heappush(self._due, i)
        else:
            self.next_due.add(i)

    def _file(self, i: int, ran: bool = True) -> None:
        """File node ``i`` under its free space (unreserved) or not at all (reserved), and
        note whether it must run every tick. ``ran``: its heartbeat just ended (else it is due,
        and what its earmark step reads is taken when it has run)."""
        node, old = self.nodes[i], self.filed[i]
        new = node.unallocated if node.reservation is None else None
        if old is not None and old != new:
            members = self.by_free[old]
            del members[bisect_left(members, i)]  # an emptied class stays: it will refill
        if old is None and new is not None:
            insort(self.unreserved, i)
        elif old is not None and new is None:
            del self.unreserved[bisect_left(self.unreserved, i)]
        if new is not None and new != old:
            if new not in self.by_free:
                self.by_free[new] = []
                self._active_lists = None  # a class never seen: ask about it
            insort(self.by_free[new], i)
        self.filed[i] = new
        if node.decommissioning or (node.earmarks and self._earmarks_run(node)) or (
                node.reservation is not None and self._reservation_runs(node)):
            self.always.add(i)
        else:
            self.always.discard(i)
        if ran and node.earmarks and i not in self.always:
            self.watched[i] = self._earmark_step_reads(node)
            self._note_earmarks(i, node)
        else:
            self.watched.pop(i, None)

    def _earmarks_run(self, node: Node) -> bool:
        """Must the earmark step run even when nothing happened to the node or its apps?
        An attempt gone or stopped is dropped (quietly), one without its AM writes the gauge, one
        under a configured max share may flip with any usage change."""
        for key in node.earmarks:
            app = earmarked_attempt(self.s, key)
            if app is None or app.stopped or not (app.am_running or app.unmanaged):
                return True
            if self._queue_bounded(app.queue):
                return True
        return False

    def _earmark_step_reads(self, node: Node, kept: dict[AttemptKey, bool] | None = None
                            ) -> tuple[tuple[AttemptKey, bool], ...]:
        """What ``preemption_list`` reads of each earmarked attempt: are its earmarks kept.
        ``kept``: answers already known in the present state, by attempt (filled as found)."""
        s = self.s
        known = {} if kept is None else kept
        reads = []
        for key in node.earmarks:
            keeps = known.get(key)
            if keeps is None:
                app = earmarked_attempt(s, key)
                keeps = known[key] = app is not None and keeps_earmark(s, app)
            reads.append((key, keeps))
        return tuple(reads)

    def _queue_bounded(self, queue: str) -> bool:
        return self.s.max_share_above(queue)

    def _reservation_runs(self, node: Node) -> bool:
        """Must a reserved node's heartbeat run even when nothing happened to it?"""
        assert node.reservation is not None
        app = self.s.state.apps[node.reservation.app_id]
        if not (app.am_running or app.unmanaged):
            return True  # its AM check writes the gauge
        return self._queue_bounded(app.queue)  # usage changes elsewhere may flip fitsInMaxShare

    def tick(self) -> Iterator[str]:
        """One heartbeat of every node, in registration order, skipping the quiet ones;
        yields each node's name after its heartbeat, for the caller to answer it."""
        self._catch_up()
        if self._reshaped:
            self._rebuild()
        # an update pass may have changed these; nothing changes during this check, so each
        # app is asked once however many nodes it has earmarked (hundreds under preemption)
        kept: dict[AttemptKey, bool] = {}
        for i, reads in self.watched.items():
            if self._earmark_step_reads(self.nodes[i], kept) != reads:
                self.next_due.add(i)
        self._due = sorted(self.next_due | self.always)
        self._queued = set(self._due)
        self.next_due = set()
        pos, done, names = -1, False, self.names
        try:  # (generators nest no deeper than this one: a tick runs thousands of heartbeats)
            while True:
                nxt = self._next(pos + 1)
                stop = len(names) if nxt is None else nxt
                if pos + 1 < stop:  # the quiet ones between
                    if self.verify:
                        yield from self._check_quiet(pos + 1, stop)
                    elif (k := self._skip(pos + 1, stop)) >= 0:
                        before = self._begin(k)
                        yield names[k]
                        self._end(k, before)
                if nxt is None:
                    break
                self._pos = nxt
                before = self._begin(nxt)
                yield names[nxt]
                self._end(nxt, before)
                pos = nxt
                if self._reshaped:  # nodes or queues changed under us: the rest run plainly
                    for name in names[pos + 1:]:
                        self.heartbeat(name)
                        yield name
                    break
            done = True
        finally:
            self._pos = self._running = -1
            if not done:  # left mid-tick: the nodes still due this tick are not remembered
                self.forget()

    def _note_earmarks(self, i: int, node: Node) -> None:
        """Node ``i`` is to be looked at again when an event names an app it is earmarked
        for; those of apps the engine forgot since go (``ClusterState.pruned``)."""
        if not node.earmarks:  # (every heartbeat of a tick comes here)
            return
        by_app = self.earmarked_by_app
        for app_id, _ in node.earmarks:
            by_app.setdefault(app_id, set()).add(i)
        self.earmarked_by_app = self.s.state.pruned(by_app)

    def _begin(self, i: int) -> _Before:
        """Run node ``i``'s heartbeat; what its reservation was before (see :meth:`_end`)."""
        node = self.nodes[i]
        before = node.reservation, _reservation_of(node)
        self._note_earmarks(i, node)  # an app it serves may ask for more as it is served
        self._running = i
        self.heartbeat(self.names[i])
        return before

    def _end(self, i: int, before: _Before) -> None:
        """Node ``i``'s heartbeat and the caller's answer to it are over: file it."""
        self._catch_up()  # its own events and its caller's answers: filed below
        self._running = -1
        self.run_count += 1
        node = self.nodes[i]
        if node.reservation is before[0] and _reservation_of(node) != before[1]:
            self.next_due.add(i)  # re-reserved in place (earmark path), without an event
        self._file(i)

    def _next(self, start: int) -> int | None:
        """The first node at or after ``start`` whose heartbeat must run."""
        due = self._due
        while due and due[0] < start:
            self._queued.discard(heapq.heappop(due))
        first = due[0] if due else None
        candidate = self._next_unreserved(start, first)
        if candidate is not None:
            return candidate
        if first is not None:
            self._queued.discard(heapq.heappop(due))
        return first

    def _next_unreserved(self, start: int, before: int | None) -> int | None:
        """The first unreserved node in [start, before) something could use, if any."""
        s, order = self.s, self.order
        order.refresh(s)  # a cache: the walk brings it up to date before its next visit too
        version = order.root_version
        if self._active_lists is None or version != self._active_version:
            self._active_version = version
            self._active_lists = [members for free, members in self.by_free.items()
                                  if order.may_act(ROOT, free, s.unbounded)]
            # under contention some starved app may reserve any node: every class is active
            self._all_active = len(self._active_lists) == len(self.by_free)
        if self._all_active:  # then one list holds them all
            k = bisect_left(self.unreserved, start)
            first = self.unreserved[k] if k < len(self.unreserved) else None
            return first if first is not None and (before is None or first < before) else None
        best = before
        for members in self._active_lists:
            k = bisect_left(members, start)
            if k < len(members) and (best is None or members[k] < best):
                best = members[k]
        return None if best == before else best

    def _skip(self, start: int, stop: int) -> int:
        """Nodes ``start`` … ``stop - 1`` are quiet. Their walks would all write the same
        MaxAMShare gauges (nothing changes between them), so running the last unreserved one
        for real leaves the gauges as the plain loop does (the node returned, -1 if none);
        reserved quiet nodes write none."""
        self.skipped += stop - start
        if not self.order.runs_am_checks(ROOT):
            return -1
        k = bisect_left(self.unreserved, stop) - 1
        if k >= 0 and self.unreserved[k] >= start:
            self.skipped -= 1
            return self.unreserved[k]
        return -1

    def _check_quiet(self, start: int, stop: int) -> Iterator[str]:
        """Verify mode: run the quiet nodes' heartbeats, failing if one changed anything."""
        s = self.s
        for i in range(start, stop):
            events = s.events_emitted  # (each node on its own: the caller answers in between)
            node = self.nodes[i]
            before = (node.allocated, _reservation_of(node), len(node.earmarks))
            self.heartbeat(self.names[i])
            yield self.names[i]
            self._catch_up()
            after = (node.allocated, _reservation_of(node), len(node.earmarks))
            if s.events_emitted != events or before != after:
                raise AssertionError(f"the heartbeat of {self.names[i]} at {s.now} was "
                                     "taken for quiet but changed something")


def _reservation_of(node: Node) -> tuple[object, Resource] | None:
    reservation = node.reservation
    return None if reservation is None else (reservation.key, reservation.resource)


def _still_wanted(app: App, reservation: Reservation) -> bool:
    """The reserved key still asks for a container, anywhere (no rack or node asks, which the
    validity check would read too)."""
    table = app.asks.get(reservation.key)
    if table is None or len(table) != 1:
        return False
    ask = table.get(ANY)
    return ask is not None and ask.count > 0

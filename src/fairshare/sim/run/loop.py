"""The discrete-event loop: a workload run through the engine on simulated time.

Every node heartbeats every ``heartbeat_interval_ms`` and the update pass runs every
``update_interval_ms``. By default (``event_driven``) the heartbeats that provably change
nothing are skipped, with the same decisions, events and numbers as when every heartbeat runs
(``--fixed-interval``, the plain loop; docs/simulator.md).

Items due at the same millisecond run in this order (YARN runs them on concurrent threads; we
pick one and keep it): kill timers of preemption and decommission timeouts, the workload's
timed changes (reloads, node additions, losses and decommissions: sim/run/timed.py), task
completions, app arrivals, the update pass (with preemption), then every node's heartbeat in
registration order.

App model (docs/scenario-format.md, "Workload"): a managed app asks for its AM at submission and,
once the AM runs, for all its tasks; an unmanaged app asks for its tasks at submission. A task
container runs its group's ``duration_ms`` and completes; when every task has completed, the app
finishes. A preempted task (or one lost with its node) is asked for again and runs its full
duration again; the time it had run is lost work. When the AM is preempted or lost, the engine
starts a new attempt that asks again for the AM, the outstanding tasks and the tasks killed with
the attempt (docs/fidelity.md); the app model then asks for nothing more, and the killed tasks'
run time is lost work. The AM learns about its containers right after the heartbeat that
placed them (AM–RM heartbeat latency is not modelled).

The loop reads the engine's events from ``events``: the engine's own list by default, or the
list its sink appends to. Observers (recorders, writers, a progress bar) receive every event
once, in order, in batches: before each snapshot tick and at the end; the list is then cleared,
so a day-long run does not keep millions of events in memory.
"""

from __future__ import annotations

import gc
import heapq
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from fairshare.core import (
    MAX_TIME_MS,
    AdvanceTo,
    AppFinished,
    AppRejected,
    AppSubmitted,
    Ask,
    Command,
    CompleteContainer,
    Completion,
    ContainerAllocated,
    ContainerCompleted,
    ContainerPreempted,
    ContainerRequest,
    ContainersRequested,
    Engine,
    EngineError,
    Event,
    Finish,
    Forget,
    Heartbeat,
    HeartbeatTick,
    RecoverContainer,
    Submit,
    Update,
    apply_command,
)
from fairshare.sim.run.model import AppProgress, AppRefused, RunningTask, SimObserver, WaitingKey
from fairshare.sim.run.timed import TimedChange
from fairshare.sim.sources.workload import AppSpec, TaskGroup

# order of items due at the same time
CHANGE, COMPLETION, ARRIVAL, UPDATE, HEARTBEATS, SNAPSHOT = range(6)
STALL_LIMIT_MS = 3_600_000
UPDATE_PASS = Update()  # with its preemption round
PROGRESS = (ContainerAllocated, ContainerCompleted, ContainerPreempted, AppSubmitted,
            AppRejected, AppFinished)


@contextmanager
def fewer_collections() -> Iterator[None]:
    """Run with the cyclic garbage collector mostly out of the way, then restore it.

    A run makes and drops millions of objects but almost no reference cycles (a 10-hour run of
    ``bench/simulate.py`` collected ~300 objects in all), so the collector's passes, and above
    all its full passes over every live object, are pure overhead: ~11 % of that run. Objects
    alive at the start (the engine, the workload) are frozen out of its view and collections
    are ~70× rarer. Reference counting still frees everything else at once; nothing the engine
    computes depends on when a collection runs.
    """
    thresholds, frozen_by_caller = gc.get_threshold(), gc.get_freeze_count() > 0
    gc.freeze()
    gc.set_threshold(50_000, 50, 1_000)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        if not frozen_by_caller:  # else we cannot tell their objects from ours: leave all frozen
            gc.unfreeze()


class Simulation:
    """Runs ``apps`` on ``engine`` (whose nodes are already registered) up to a time."""

    def __init__(self, engine: Engine, apps: Sequence[AppSpec], *,
                 heartbeat_interval_ms: int = 1000, update_interval_ms: int | None = None,
                 events: list[Event] | None = None, observers: Sequence[SimObserver] = (),
                 snapshot_every_ms: int | None = None, event_driven: bool = True,
                 verify_skips: bool = False, changes: Sequence[TimedChange] = (),
                 journal: Callable[[Command], None] | None = None) -> None:
        self.engine = engine
        # told every command the loop applies, in order (fairshare serve's session journal);
        # a journal needs every heartbeat run as a command of its own (no quiet skips)
        if journal is not None and event_driven:
            raise ValueError("a journaled simulation runs every heartbeat: event_driven=False")
        self._journal = journal
        self._external: set[str] = set()  # live apps whose tasks end when told (processes)
        self.observers = tuple(observers)
        self.events = engine.events if events is None else events
        # the event-driven loop skips heartbeats that provably change nothing (the engine's
        # heartbeat_tick; verify_skips: runs them anyway and fails if one was not quiet)
        self.tick = HeartbeatTick(skip_quiet=event_driven, verify=verify_skips)
        self.heartbeat_ms = heartbeat_interval_ms
        self.update_ms = update_interval_ms or engine.site.update_interval_ms
        self.apps = {spec.id: AppProgress(spec) for spec in apps}
        # (time, order, seq, app, container): app ids may hold any character, so a completion
        # keeps its app and container apart
        self._queue: list[tuple[int, int, int, str, str]] = []
        self._seq = 0
        self._seen = self._delivered = len(self.events)  # what was there before is not ours
        self._open = len(self.apps)  # neither finished nor rejected
        self._arrivals_left = len(self.apps)
        self.changes = tuple(changes)  # in time order; the run lasts at least until the last
        self._changes_left = len(self.changes)
        self._running_tasks = 0  # task containers the app model knows to be running
        self._last_progress_ms = engine.now
        self.stalled = False
        start = engine.now
        for spec in apps:
            self._push(start + spec.at_ms, ARRIVAL, spec.id)  # the workload's clock starts now
        for index, change in enumerate(self.changes):
            self._push(start + change.at_ms, CHANGE, str(index))
        self._push(start + self.update_ms, UPDATE, "")
        self._push(start + self.heartbeat_ms, HEARTBEATS, "")
        self.snapshot_ms = snapshot_every_ms
        if snapshot_every_ms is not None:
            self._push(start, SNAPSHOT, "")

    def _push(self, time_ms: int, order: int, what: str, container: str = "") -> None:
        self._seq += 1
        heapq.heappush(self._queue, (time_ms, order, self._seq, what, container))

    def run(self, until_ms: int | None = None) -> None:
        """Process everything due up to and including ``until_ms``. Without it, run until
        every app has finished or was rejected — or, once no arrival is left and no task is
        running, until nothing has been allocated, completed or preempted for an hour of
        simulated time (``stalled``: something can never be placed) — or until the clock's
        limit, :data:`~fairshare.core.engine.MAX_TIME_MS`."""
        with fewer_collections():
            self._run(until_ms)

    def _run(self, until_ms: int | None, live: bool = False) -> None:
        engine = self.engine
        limit = until_ms if until_ms is not None else MAX_TIME_MS
        while True:
            timer = engine.next_timer()
            item = self._queue[0][0] if self._queue else None
            if until_ms is None and (item is None or item > engine.now) and (
                    (self._open == 0 and not self._changes_left) or self._is_stalled()):
                break  # at the end of a millisecond: everything due at it has run
            if timer is not None and timer <= limit and (item is None or timer <= item):
                self._apply(AdvanceTo(timer))  # kill timers first (victims re-ask)
                self._react()
                continue
            if item is None or item > limit:
                break
            time_ms, order, _, what, container = heapq.heappop(self._queue)
            self._apply(AdvanceTo(time_ms))
            self._react()
            if order == CHANGE:
                self._changes_left -= 1
                self.changes[int(what)].apply(engine)
                self._react()
            elif order == COMPLETION:
                self._complete(what, container)
            elif order == ARRIVAL:
                self._arrivals_left -= 1
                self._arrive(self.apps[what])
            elif order == UPDATE:
                self._apply(UPDATE_PASS)
                self._react()
                self._push(time_ms + self.update_ms, UPDATE, "")
            elif order == HEARTBEATS:
                for name in apply_command(engine, self.tick):
                    if self._journal is not None:  # (applied inside the tick, journaled as one)
                        self._journal(Heartbeat(name))
                    self._react()  # the app model answers each node before the next one's
                self._push(time_ms + self.heartbeat_ms, HEARTBEATS, "")
            else:
                self._deliver()
                for observer in self.observers:
                    observer.on_snapshot(time_ms)
                assert self.snapshot_ms is not None
                self._push(time_ms + self.snapshot_ms, SNAPSHOT, "")
        if until_ms is not None and engine.now < until_ms:
            self._apply(AdvanceTo(until_ms))
            self._react()
        self._deliver()
        if not live:
            for observer in self.observers:
                observer.on_end(engine.now)

    # -- live: fairshare serve drives the loop from a clock ---------------------------------------

    def run_live(self, until_ms: int) -> None:
        """Everything due up to ``until_ms``, then the clock at ``until_ms``; the observers get
        the events so far, not the end. Called again and again as a live clock moves."""
        self._run(until_ms, live=True)

    def deliver(self) -> None:
        """Hand the observers the events so far (after a command applied from outside)."""
        self._deliver()

    def next_due(self) -> int | None:
        """When the loop next has something to do (an item or a kill timer), or None."""
        timer = self.engine.next_timer()
        item = self._queue[0][0] if self._queue else None
        return item if timer is None else timer if item is None else min(item, timer)

    def arrive(self, spec: AppSpec, *, external: bool = False) -> None:
        """A live submission: ``spec`` arrives at the engine's clock now (its ``at_ms`` is not
        read); ``external``: its task containers end when :meth:`complete` says so (real
        processes), not after their groups' durations."""
        if spec.id in self.apps:
            raise ValueError(f"app {spec.id} is already in the workload")
        self.apps[spec.id] = AppProgress(spec)
        self._open += 1
        self._arrivals_left += 1
        if external:
            self._external.add(spec.id)
        self._push(self.engine.now, ARRIVAL, spec.id)

    def is_external(self, app_id: str) -> bool:
        """Whether a live app's task containers end when :meth:`complete` says so."""
        return app_id in self._external

    def apply(self, command: Command) -> Any:
        """A command from outside the app model (a request: kill, move, …), applied at the
        clock now, journaled, and answered by the app model."""
        result = self._apply(command)
        self._react()
        return result

    def forget(self, app_id: str) -> bool:
        """The live service's RM forgot the ended app ``app_id``: the engine forgets it
        (:class:`~fairshare.core.Forget`, journaled) once nothing refers to it, and so does the
        app model; False: not yet (the caller asks again later)."""
        forgotten: bool = self._apply(Forget(app_id))
        if forgotten:
            self.apps.pop(app_id, None)
            self._external.discard(app_id)
        return forgotten

    def complete(self, app_id: str, container_id: str) -> None:
        """An external app's task container ended by itself (its process exited)."""
        if app_id in self._external:
            self._complete(app_id, container_id)

    def _is_stalled(self) -> bool:
        if self._arrivals_left or self._changes_left or self.engine.next_timer() is not None:
            return False
        if self._running_tasks:
            return False
        self.stalled = self.engine.now - self._last_progress_ms >= STALL_LIMIT_MS
        return self.stalled

    def _deliver(self) -> None:
        """Hand the events seen so far to the observers and forget them."""
        if not self.observers:
            return
        batch = self.events[self._delivered:self._seen]
        for observer in self.observers:
            observer.on_events(batch)
        del self.events[self._delivered:self._seen]
        self._seen = self._delivered

    # -- the app model ---------------------------------------------------------------------------

    def _apply(self, command: Command) -> Any:
        if self._journal is not None:
            self._journal(command)
        return apply_command(self.engine, command)

    def _command(self, app_id: str, command: Command) -> None:
        """One engine command for ``app_id``; a refusal names the app (its workload entry)."""
        try:
            self._apply(command)
        except EngineError as e:
            raise AppRefused(app_id, str(e)) from None

    def _arrive(self, app: AppProgress) -> None:
        spec = app.spec
        app.submitted_ms = self.engine.now
        if spec.running:
            self._recover(app)
            return
        groups: range = range(0)
        if spec.am is None:
            groups, app.asked_tasks = range(len(spec.tasks)), True
        self._ask(app, groups, Submit(spec.id, spec.queue, spec.user, spec.am,
                                      self._requests(app, groups)))
        self._react()
        if spec.am is None and app.total_tasks == 0:
            self._finish(app)  # nothing to run

    def _recover(self, app: AppProgress) -> None:
        """An app found running (an imported cluster): re-added with its attempt running, its
        containers recovered where they run (:mod:`fairshare.core.lifecycle.recovery`), and only its
        tasks not running yet asked for. A recovered task completes after its remaining time;
        an app without tasks finishes when its AM's time is up."""
        spec, engine, now = app.spec, self.engine, self.engine.now
        held = Counter(c.group for c in spec.running)
        groups = [g for g, task in enumerate(spec.tasks) if task.count > held[g]]
        requests = tuple(ContainerRequest(spec.tasks[g].count - held[g], spec.tasks[g].resource,
                                          spec.tasks[g].priority) for g in groups)
        app.asked_tasks = True
        self._ask(app, groups, Submit(spec.id, spec.queue, spec.user, spec.am, requests, True))
        if engine.app(spec.id).stopped:
            return  # rejected on arrival: nothing runs
        app.started_ms = now
        for c in spec.running:
            try:
                container = self._apply(RecoverContainer(
                    spec.id, c.node, c.resource, c.am, c.priority, c.container_id))
            except EngineError as e:
                raise AppRefused(spec.id, str(e)) from None
            if c.group >= 0:
                app.first_task_ms = now
                app.running[container.id] = RunningTask(c.group, (c.priority,
                                                                   c.resource.values), now)
                self._running_tasks += 1
                if spec.id not in self._external:  # (a process ends when it exits)
                    self._push(now + (c.remaining_ms or 0), COMPLETION, spec.id, container.id)
            elif app.total_tasks == 0 and spec.id not in self._external:
                self._push(now + (c.remaining_ms or 0), COMPLETION, spec.id, "")
        self._react()

    @staticmethod
    def _requests(app: AppProgress, groups: Sequence[int], count: int | None = None
                  ) -> tuple[ContainerRequest, ...]:
        """One request per task group: all its tasks, or ``count`` of them."""
        tasks = app.spec.tasks
        return tuple(ContainerRequest(tasks[g].count if count is None else count,
                                      tasks[g].resource, tasks[g].priority) for g in groups)

    def _ask(self, app: AppProgress, groups: Sequence[int], command: Submit | Ask) -> None:
        """A command that asks for ``groups``' containers (one request each, in order).

        The engine records each request with a ``containers-requested`` event, in the order
        given, or none when it refuses the call whole (docs/semantics.md §3.10); a managed app's
        submission first asks for its AM. The events tell the normalised size the app will be given,
        and which group each belongs to is known only here: groups of equal size and priority are
        one request to YARN, yet their tasks may last differently."""
        start = len(self.events)
        self._command(app.spec.id, command)
        asked = [e for e in self.events[start:]
                 if isinstance(e, ContainersRequested) and e.app == app.spec.id]
        if groups and len(asked) >= len(groups):
            for event, group in zip(asked[len(asked) - len(groups):], groups, strict=True):
                self._wait(app, (event.priority, event.resource.values), group, event.count)

    @staticmethod
    def _wait(app: AppProgress, key: WaitingKey, group: int, count: int) -> None:
        slots = app.waiting.setdefault(key, [])
        slot = next((s for s in slots if s[0] == group), None)
        if slot is None:
            slots.append([group, count])
        else:
            slot[1] += count

    def _ask_again(self, app: AppProgress, group: int) -> None:
        self._ask(app, (group,), Ask(app.spec.id, self._requests(app, (group,), count=1)))

    def _complete(self, app_id: str, container_id: str) -> None:
        app = self.apps.get(app_id)
        if app is None:
            return  # ended (killed) and forgotten since
        if not container_id:  # a recovered app without tasks: its AM's time is up
            self._finish(app)
            return
        if app.running.pop(container_id, None) is None:
            return  # preempted or killed meanwhile
        self._running_tasks -= 1
        self._command(app_id, CompleteContainer(app_id, container_id))
        app.tasks_done += 1
        self._react()
        if app.tasks_done == app.total_tasks:
            self._finish(app)

    def _finish(self, app: AppProgress) -> None:
        if self.engine.app(app.spec.id).stopped:
            return  # rejected
        self._command(app.spec.id, Finish(app.spec.id))
        app.finished_ms = self.engine.now
        self._react()

    def _react(self) -> None:
        """The app model's answer to what the engine just did."""
        events = self.events
        while self._seen < len(events):
            event = events[self._seen]
            self._seen += 1
            if isinstance(event, PROGRESS):
                self._last_progress_ms = event.time
                if isinstance(event, AppRejected | AppFinished) and event.app in self.apps:
                    self._open -= 1
            if isinstance(event, ContainerAllocated):
                self._allocated(event)
            elif isinstance(event, AppFinished) and event.state == "killed":
                self._killed(event.app)
            elif isinstance(event, ContainerPreempted):
                if event.am and event.app in self.apps:
                    self.apps[event.app].preempted_containers += 1  # the engine restarts it
                else:
                    self._task_lost(event.app, event.container, asked_by_engine=False,
                                    preempted=True)
            elif isinstance(event, ContainerCompleted) and not event.am and event.status in (
                    Completion.LOST, Completion.ATTEMPT_FAILED):
                # a new attempt asks for the tasks killed with the old one by itself
                self._task_lost(event.app, event.container, preempted=False,
                                asked_by_engine=event.status is Completion.ATTEMPT_FAILED)

    def _allocated(self, event: ContainerAllocated) -> None:
        app = self.apps.get(event.app)
        if app is None:
            return
        now = self.engine.now
        if app.started_ms is None:
            app.started_ms = now
        if event.am:
            if not app.asked_tasks:
                app.asked_tasks = True
                if app.total_tasks == 0:
                    self._finish(app)  # an AM with no tasks is done once it ran
                else:
                    groups = range(len(app.spec.tasks))
                    self._ask(app, groups, Ask(app.spec.id, self._requests(app, groups)))
            return
        priority = self.engine.app(event.app).containers[event.container].key[0]
        if app.first_task_ms is None:
            app.first_task_ms = now
        key = (priority, event.resource.values)
        slot = next(s for s in app.waiting.get(key, ()) if s[1] > 0)
        slot[1] -= 1
        group: TaskGroup = app.spec.tasks[slot[0]]
        app.running[event.container] = RunningTask(slot[0], key, now)
        self._running_tasks += 1
        if app.spec.id not in self._external:
            self._push(now + group.duration_ms, COMPLETION, app.spec.id, event.container)

    def _killed(self, app_id: str) -> None:
        """Killed (a request): its containers went with it, their completions will not come."""
        app = self.apps.get(app_id)
        if app is not None:
            self._running_tasks -= len(app.running)
            app.running.clear()
            app.finished_ms = self.engine.now

    def _task_lost(self, app_id: str, container: str, *, asked_by_engine: bool,
                   preempted: bool) -> None:
        app = self.apps.get(app_id)
        if app is None:
            return
        task = app.running.pop(container, None)
        if task is None:
            return
        self._running_tasks -= 1
        app.lost_work_ms += self.engine.now - task.started_ms
        app.preempted_containers += preempted
        if asked_by_engine:  # restart_attempt asks again for it, at its size and priority
            self._wait(app, task.key, task.group, 1)
        else:
            self._ask_again(app, task.group)

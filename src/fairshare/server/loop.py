"""The engine loop: one thread owns the engine and applies every command in order, on a clock.

What it applies, in the order they fall due on the clock: the update pass every
``yarn.scheduler.fair.update-interval-ms`` (with the preemption round after it), kill timers,
every node's heartbeat every heartbeat interval, the virtual executor's task completions — all
the simulator's loop (:class:`~fairshare.sim.run.loop.Simulation`, driven live with
``run_live``) — and, between them, the requests (submit, kill, move, an AM's asks, a
process's exit), each queued as a job and applied at the clock's reading when it is taken. The
clock is the wall's, ``speed`` times faster (the virtual executor only), from 0 at start.

Requests never read live state: after each job (and at most every ``SNAPSHOT_EVERY_S`` while
the clock runs) the loop publishes a new frozen :class:`~fairshare.server.view.ServerSnapshot`.
Every command it applies is journaled in the order applied (``journal``, the commands' JSON
form), so a session replays through ``fairshare run`` with the same events
(:mod:`fairshare.server.journal`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from queue import Empty, SimpleQueue
from typing import Any, TypeVar

from fairshare.core import (
    AddNode,
    AddNodes,
    AppFinished,
    Command,
    ContainerAllocated,
    ContainerCompleted,
    ContainerPreempted,
    Decommission,
    Engine,
    Event,
    Finish,
    Heartbeat,
    Kill,
    Move,
    MoveRejected,
    NodeDecommissioned,
    RecoverContainer,
    RemoveNode,
    ResizeNode,
    Restart,
    Submit,
    event_record,
)
from fairshare.resources.vector import Resource
from fairshare.server.am import AMHub
from fairshare.server.control import (
    EventListener,
    KillResult,
    Refused,
    StreamedEvent,
    bad_request,
    not_found,
    unavailable,
)
from fairshare.server.executors.base import SIGKILL_DELAY_MS, Executor, Launch
from fairshare.server.rm import ACTIVE_STATES, RMRecords
from fairshare.server.session import SNAPSHOT_EVERY_MS, SessionOutputs
from fairshare.server.snapshots import server_snapshot
from fairshare.server.store.codec import app_of, resource_of
from fairshare.server.store.keeper import StateKeeper
from fairshare.server.store.store import Record, StateStore, StateStoreError, StoredState
from fairshare.server.submission import Submission
from fairshare.server.view import ServerSnapshot, engine_container_id, yarn_container_id
from fairshare.sim.record.snapshot import snapshot as scenario_snapshot
from fairshare.sim.run.loop import Simulation
from fairshare.sim.sources.workload import AppSpec, RunningContainer, TaskGroup

T = TypeVar("T")
log = logging.getLogger("fairshare.serve")

SNAPSHOT_EVERY_S = 0.1  # while only the clock moves, requests see it at most this stale
# the event stream's memory: older events are forgotten (they are in events.jsonl); ~300 B
# each, some 5 minutes of a busy server (3 apps a second)
EVENTS_KEPT = 20_000
JOB_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class NodeSpec:
    id: str  # host:port
    capacity: Resource
    rack: str = "/default-rack"


@dataclass(slots=True)
class ShellCounts:
    """The counters of YARN's DistributedShell ApplicationMaster, for the built-in one's
    diagnostics (``ApplicationMaster.finish``)."""

    total: int
    # numAllocatedContainers, numCompletedContainers, numFailedContainers:
    num_allocated: int = 0  # containers given, less those the RM took back (asked for again)
    num_completed: int = 0  # containers whose command exited, whatever its exit code
    num_failed: int = 0  # ... with an exit code other than 0

    def diagnostics(self) -> str:
        """What the AM unregisters with when not every container succeeded."""
        return (f"Diagnostics., total={self.total}, completed={self.num_completed}, "
                f"allocated={self.num_allocated}, failed={self.num_failed}")


class ServerClock:
    """Engine ms from the wall's monotonic clock, ``speed`` times faster, from 0 at start."""

    def __init__(self, speed: float = 1.0,
                 monotonic: Callable[[], float] = time.monotonic) -> None:
        if not speed > 0:
            raise ValueError("the speed must be positive")
        self.speed = speed
        self._monotonic = monotonic
        self._start = monotonic()

    def engine_ms(self) -> int:
        return int((self._monotonic() - self._start) * 1000 * self.speed)

    def seconds_until(self, engine_ms: int) -> float:
        return max(0.0, (engine_ms - self.engine_ms()) / 1000 / self.speed)


class EngineLoop:
    """The engine's one thread (see the module docstring); implements ``Control``,
    ``EngineDriver`` and ``ExecutorHost`` for the rest of the server."""

    def __init__(self, engine: Engine, executor: Executor, nodes: Sequence[NodeSpec], *,
                 cluster_timestamp: int, clock: ServerClock, work_dir: Path,
                 heartbeat_ms: int = 1000, journal: Callable[[Command], None] | None = None,
                 outputs: Path | None = None, grace_ms: int = SIGKILL_DELAY_MS,
                 store: StateStore | None = None) -> None:
        self.engine = engine
        # yarn.nodemanager.sleep-delay-before-sigkill.ms: a process the RM takes back gets
        # SIGTERM, then SIGKILL this long after (ContainerCleanup.signalProcess)
        self.grace_ms = grace_ms
        self.executor = executor
        self.clock = clock
        self.work_dir = work_dir
        self.heartbeat_ms = heartbeat_ms
        self.records = RMRecords(cluster_timestamp, engine.types,
                                 engine.site.max_completed_apps)
        self._journal = journal
        self.sim = Simulation(engine, (), heartbeat_interval_ms=heartbeat_ms,
                              event_driven=False, observers=[self], journal=self._journaled,
                              snapshot_every_ms=None if outputs is None else SNAPSHOT_EVERY_MS)
        # the session's run outputs (events.jsonl, the timeline, summary.json): explain reads them
        self.outputs = (None if outputs is None
                        else SessionOutputs.attached(outputs, self.sim))
        self.hub: AMHub | None = None  # the AM protocol (attach_hub, before start)
        # what a restart left for the hub to take over once it is attached
        self._for_hub: list[Callable[[AMHub], None]] = []
        self._jobs: SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = SimpleQueue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._thread_id: int | None = None
        self._listeners: list[EventListener] = []
        # told of each ended app the RM forgets (RMRecords.max_completed), on this thread
        self.forgetting: list[Callable[[str], None]] = []
        # those the engine and the session's outputs are still to let go of (_forget_ended),
        # each with the engine time before which it is not tried (again)
        self._unforgotten: list[tuple[str, int]] = []
        self._stream: deque[StreamedEvent] = deque(maxlen=EVENTS_KEPT)
        self._stream_changed = threading.Condition()
        self._launched: dict[tuple[str, str], Launch] = {}  # (app, engine container) → launch
        self._external: dict[str, Submission] = {}  # apps whose containers are processes
        self.shells: dict[str, ShellCounts] = {}  # the built-in distributed-shell AM's apps
        self._published_at = 0.0
        self.failure: BaseException | None = None  # what stopped the engine thread
        self.ended = threading.Event()  # set when the engine thread has ended
        # the state store (docs/serve.md "State store and restart"): every change written
        # before it is acknowledged or acted on
        self.keeper = (None if store is None
                       else StateKeeper(store, self.records, engine, self.sim))
        if self.keeper is not None:  # told first of an app the RM forgets
            self.forgetting.append(self.keeper.forget)
        # read by GET /ws/v1/fairshare/loop: the heartbeats applied, and how late the loop
        # last took what was due (the clock's time then less the time it was due at)
        self.heartbeats = 0
        self.lag_ms = self.max_lag_ms = 0
        self._cost_s = 0.0  # what the last snapshot took to take (wall seconds)
        for node in nodes:
            self.records.add_node(node.id, node.rack, node.capacity, 0)
        if nodes:
            self.sim.apply(AddNodes(tuple(AddNode(n.id, n.capacity, n.rack) for n in nodes)))
            self.sim.deliver()
        self._nodes_changed()
        self._flush()
        self._snapshot = self._take_snapshot()

    # -- the thread --------------------------------------------------------------------------------

    def attach_hub(self, hub: AMHub) -> None:
        """The AM protocol's hub, before :meth:`start`; the apps with their own AM that a
        restart recovered are handed to it."""
        self.hub = hub
        for hand_over in self._for_hub:
            hand_over(hub)
        self._for_hub.clear()

    def start(self) -> None:
        self.executor.start(self)
        self._thread = threading.Thread(target=self._run, name="fairshare-engine", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the engine thread, then every container the executor runs; the session's
        outputs are closed at the engine's last time (nothing writes them any more)."""
        if self.hub is not None:
            self.hub.close()
        self._stop.set()
        self._jobs.put((lambda: None, Future()))  # wake it
        if self._thread is not None:
            self._thread.join(timeout=10)
        if self.outputs is not None and not self.outputs.closed:
            self.outputs.close(self.engine.now)
        self.executor.close()

    def _run(self) -> None:
        self._thread_id = threading.get_ident()
        try:
            while not self._stop.is_set():
                self._advance()
                self._publish(force=False)
                due = self.sim.next_due()
                wait = 1.0 if due is None else min(1.0, self.clock.seconds_until(due))
                try:
                    job, future = self._jobs.get(timeout=wait)
                except Empty:
                    continue
                self._batch(job, future)
        except StateStoreError as e:  # YARN's RM stops when its store fails (fail-fast)
            self.failure = e
            log.error("the engine thread stopped: %s", e)
        except BaseException as e:  # the engine refused what its own loop did: a bug
            self.failure = e
            log.exception("the engine thread stopped")
            raise
        finally:
            self.ended.set()

    def _batch(self, job: Callable[[], Any] | None, future: Future[Any]) -> None:
        """Every job waiting, then one snapshot for them all; each caller is answered once it
        is published, so that what the caller reads next shows what its job did."""
        answers: list[tuple[Future[Any], Future[Any]]] = []
        try:
            while job is not None:
                done: Future[Any] = Future()
                answers.append((done, future))
                self._do(job, done)
                try:
                    job, future = self._jobs.get_nowait()
                except Empty:
                    job = None
            self._publish(force=True)
        finally:
            for done, asked in answers:
                if not done.done():  # the thread stopped before it
                    done.set_exception(unavailable("the ResourceManager is stopping"))
                if asked.set_running_or_notify_cancel():
                    if done.exception() is not None:
                        asked.set_exception(done.exception())
                    else:
                        asked.set_result(done.result())

    def _do(self, job: Callable[[], Any], future: Future[Any]) -> None:
        if not future.set_running_or_notify_cancel():
            return
        result: Any = None
        error: BaseException | None = None
        try:
            self._advance()
            result = job()
        except BaseException as e:
            error = e
        if not isinstance(error, StateStoreError):
            try:  # what the job did goes to the observers and the store, refused or not
                self.sim.deliver()
                self._flush()
            except StateStoreError as e:
                error = e
        if isinstance(error, StateStoreError):
            # what the request did is not stored: it is not acknowledged, and the RM stops
            future.set_exception(unavailable(str(error)))
            raise error
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)

    def _advance(self) -> None:
        now = self.clock.engine_ms()
        due = self.sim.next_due()
        self.lag_ms = 0 if due is None or due >= now else now - due
        self.max_lag_ms = max(self.max_lag_ms, self.lag_ms)
        if now > self.engine.now:
            self.sim.run_live(now)

    def _call(self, job: Callable[[], T]) -> T:
        """Run ``job`` on the engine thread and return what it returns (or raise)."""
        if threading.get_ident() == self._thread_id:
            return job()
        if self.failure is not None or self._stop.is_set():
            raise unavailable("the ResourceManager is stopping")
        future: Future[T] = Future()
        self._jobs.put((job, future))
        return future.result(timeout=JOB_TIMEOUT_S)

    # -- snapshots ---------------------------------------------------------------------------------

    def _forget_ended(self) -> None:
        """The engine and the app model let go of the ended apps the RM forgot, as
        ``FairScheduler.removeApplication`` did when they ended (docs/semantics.md §3.9): not
        while the events that end them are being handed out (every observer reads the engine
        for them), and, for the few a kill timer, an earmark or the starved queue still
        names, once it no longer does (tried again a heartbeat interval later, so that the
        journal gets a line a second at most for each). Each try is journaled: a replay
        forgets them too."""
        if not self._unforgotten:
            return
        now, waiting = self.engine.now, self._unforgotten
        self._unforgotten = []
        for app_id, not_before in waiting:
            if app_id not in self.engine.state.apps:
                continue  # ended before a restart: the engine never had it
            if now < not_before:
                self._unforgotten.append((app_id, not_before))
                continue
            if self.outputs is not None:  # its summary entry, made while the engine has it
                self.outputs.forget(app_id)
            if not self.sim.forget(app_id):
                self._unforgotten.append((app_id, now + self.heartbeat_ms))

    def _take_snapshot(self) -> ServerSnapshot:
        self._forget_ended()
        now = self.engine.now
        self.records.heartbeats_at(now - now % self.heartbeat_ms)
        snap = self.engine.snapshot()
        # (an app nothing was taken from is (0, 0, None), freeze's default: not listed)
        preempted = {a.id: (a.preempted_am_containers, a.preempted_containers,
                            a.preempted_resource)
                     for a in snap.apps if a.preempted_containers}
        if self.hub is not None:
            for app_id in list(self.records.apps):
                report = self.hub.report(app_id)
                if report is not None:
                    self.records.am_report(app_id, report, now)
                    self._changed(app_id)
        apps, nodes = self.records.freeze(now, preempted)
        ts = self.records.cluster_timestamp
        return server_snapshot(self.engine, ts, ts + now, apps, nodes, snap,
                               ts + self.records.heartbeat_ms)

    def _publish(self, force: bool) -> None:
        wall = time.monotonic()
        # while only the clock moves, at most a tenth of the thread goes to snapshots (one
        # of thousands of nodes and apps is not cheap)
        if force or wall - self._published_at >= max(SNAPSHOT_EVERY_S, 10 * self._cost_s):
            self._snapshot = self._take_snapshot()
            self._flush()  # what the AMs' reports changed
            self._published_at = wall
            self._cost_s = time.monotonic() - wall

    def snapshot(self) -> ServerSnapshot:
        return self._snapshot

    def sync(self) -> int:
        """Let the engine catch up with the clock; its time then (engine ms). The snapshot
        published after it shows that time."""
        return self._call(lambda: self.engine.now)

    # -- the simulation's observer: every event, in order, once ------------------------------------

    def on_events(self, events: Sequence[Event]) -> None:
        self.records.on_events(events)
        for app_id in self.records.take_forgotten():  # yarn.resourcemanager.max-completed-…
            for forget in self.forgetting:
                forget(app_id)
            self._unforgotten.append((app_id, 0))
        if self.keeper is not None:  # stored before any container of theirs is started
            self.keeper.on_events(events)
            if any(isinstance(e, NodeDecommissioned) for e in events):
                self._nodes_changed()
            self._flush()
        types = self.engine.types
        for event in events:
            self._executor_reacts(event)
        for listener in self._listeners:
            listener(events)
        if events:
            with self._stream_changed:
                self._stream.extend(StreamedEvent.of(e.seq, event_record(e, types))
                                    for e in events)
                self._stream_changed.notify_all()

    def on_snapshot(self, now_ms: int) -> None:
        pass

    def on_end(self, now_ms: int) -> None:
        pass

    def _executor_reacts(self, event: Event) -> None:
        if self.hub is not None and self.hub.owns(getattr(event, "app", "")):
            return  # the AM protocol's hub launches and stops that app's containers
        shell = self.shells.get(getattr(event, "app", ""))
        if isinstance(event, ContainerAllocated):
            submission = self._external.get(event.app)
            if submission is not None:
                self._launch(submission, event)
            if shell is not None and not event.am:
                shell.num_allocated += 1
        elif isinstance(event, ContainerPreempted | ContainerCompleted):
            launch = self._launched.pop((event.app, event.container), None)
            if launch is not None:  # the RM took it back: its process is stopped
                self.executor.stop(launch.app, launch.container, self.grace_ms)
                if shell is not None and not launch.am:
                    # the app model asks for it again, as DistributedShell's AM does for a
                    # container the RM aborted: no longer counted as allocated
                    shell.num_allocated -= 1
        elif isinstance(event, AppFinished):
            self._external.pop(event.app, None)
            self.shells.pop(event.app, None)
            if shell is not None and event.state != "killed" and shell.num_failed:
                # the app FINISHED with the final status FAILED (RMRecords) and the message
                # DistributedShell's AM unregisters with
                record = self.records.apps.get(event.app)
                if record is not None:  # (not forgotten at once: max-completed-applications)
                    record.diagnostics = shell.diagnostics()
                    self._changed(event.app)

    def _launch(self, submission: Submission, event: ContainerAllocated) -> None:
        """A container of an app whose containers are processes: the distributed shell's
        command in its task containers (its AM is the server's own), the app's AM command in
        its AM container."""
        launch = self._launch_of(submission, event.container, event.node, event.resource,
                                 event.am, self.engine.app(event.app).attempt)
        if launch is not None:
            self._launched[(event.app, event.container)] = launch
            self.executor.launch(launch)

    def _launch_of(self, submission: Submission, engine_id: str, node: str,
                   resource: Resource, am: bool, attempt: int) -> Launch | None:
        """What runs in a container of ``submission``'s app, or None: nothing (the built-in
        AM, a task of an app without a shell command)."""
        shell = submission.distributed_shell
        if am:
            if shell is not None or submission.am_command is None:
                return None
            command = submission.am_command
        else:
            if shell is None:
                return None
            command = shell.shell_command
        return self._container_launch(submission, engine_id, node, resource, am, attempt,
                                      command)

    def _container_launch(self, submission: Submission, engine_id: str, node: str,
                          resource: Resource, am: bool, attempt: int, command: str) -> Launch:
        app_id = submission.application_id
        container = yarn_container_id(engine_id)
        host, _, port = node.rpartition(":")
        environment = dict(submission.environment)
        environment.update({
            "CONTAINER_ID": container, "APPLICATION_ID": app_id,
            "APP_ATTEMPT_ID": f"appattempt_{app_id[len('application_'):]}_{attempt:06d}",
            "NM_HOST": host or node, "NM_PORT": port, "USER": submission.user,
            "LOGNAME": submission.user,
        })
        # the NodeManager's layout, as the AM protocol's containers have it (AMHub._launch):
        # <local>/usercache/<user>/appcache/<app>/<container> to work in (so LOCAL_DIRS is the
        # app's appcache directory) and <log-dir>/<app>/<container> for stdout and stderr
        # (ContainerLaunch.getRelativeContainerLogDir)
        work = self.work_dir / "usercache" / submission.user / "appcache" / app_id / container
        return Launch(app_id, attempt, container, node, resource, am, command, environment,
                      work, self.work_dir / app_id / container)

    # -- ExecutorHost ------------------------------------------------------------------------------

    def container_exited(self, app: str, container: str, exit_status: int,
                         diagnostics: str) -> None:
        if self.hub is not None and self.hub.owns(app):
            self.hub.container_exited(app, container, exit_status, diagnostics)
            return

        def job() -> None:
            engine_id = engine_container_id(container)
            if (app, engine_id) not in self._launched:
                return  # stopped by the RM meanwhile: its end was the RM's
            launch = self._launched.pop((app, engine_id))
            if launch.am:  # an AM that ended by itself: the app ends with it
                record = self.records.apps[app]
                if exit_status == 0:
                    self.sim.apply(Finish(app))
                else:
                    self.records.failed(app, f"AM container {container} exited with "
                                        f"exitCode: {exit_status}. {diagnostics}".strip(),
                                        self.engine.now)
                    self._changed(app)
                    self.sim.apply(Kill(app))
                    record.state = record.rm_state = record.final_status = "FAILED"
                return
            if exit_status != 0 and app in self.records.apps:
                self.records.apps[app].exit_failures += 1
            shell = self.shells.get(app)
            if shell is not None:
                shell.num_completed += 1
                shell.num_failed += exit_status != 0
            self.sim.complete(app, engine_id)

        self._call(job)

    def container_started(self, app: str, container: str, pid: int, started: int) -> None:
        """Stored for a restart to re-attach to; not waited for (the executor's thread goes
        on at once)."""
        keeper = self.keeper
        if keeper is None or self._stop.is_set():
            return

        def job() -> None:
            keeper.process_started(engine_container_id(container), pid, started)

        self._jobs.put((job, Future()))

    # -- EngineDriver ------------------------------------------------------------------------------

    def command(self, command: object) -> Sequence[object]:
        def job() -> Sequence[object]:
            events = self.sim.events
            start = len(events)
            self.sim.apply(command)  # type: ignore[arg-type]
            return list(events[start:])

        return self._call(job)

    def add_listener(self, listener: EventListener) -> None:
        self._listeners.append(listener)

    def now_ms(self) -> int:
        return self.records.cluster_timestamp + self.clock.engine_ms()

    # -- Control -----------------------------------------------------------------------------------

    def submissions(self) -> list[Submission]:
        """Every app's submission (those a restart recovered included), in submission
        order, read on the engine thread."""
        return self._call(lambda: [app.submission for app in self.records.apps.values()])

    def new_application(self) -> tuple[str, Resource]:
        """An application id, on the caller's thread: it waits for nothing the engine does
        (``ClientRMService.getNewApplication``)."""
        if self.failure is not None or self._stop.is_set():
            raise unavailable("the ResourceManager is stopping")
        return self.records.new_application_id(), self.engine.site.maximum_allocation

    def submit(self, submission: Submission) -> None:
        self._call(lambda: self._submit(submission))

    def _submit(self, s: Submission) -> None:
        app_id = s.application_id
        if app_id in self.records.apps:
            raise bad_request(f"org.apache.hadoop.yarn.exceptions.YarnException: Application "
                              f"with id {app_id} is already present! Cannot add a duplicate!")
        self.records.submitted(s, self.engine.now)
        self._admit(s, s.queue)
        self.sim.run_live(self.engine.now)  # the arrival is due now

    def _admit(self, s: Submission, queue: str, *, recovering: bool = False,
               running: tuple[RunningContainer, ...] = (), done: Sequence[int] = (),
               failed: int = 0) -> None:
        """The app's arrival in the engine, by what runs it: the simulator's app model (a
        virtual app with tasks), the built-in distributed shell (processes), or an AM that
        runs until it ends (a process) or is killed (virtual). After a restart: ``recovering``
        (no AM asked for: it runs), ``running`` the containers taken over, ``done`` the tasks
        completed per task group (not run again), ``failed`` the shell's failed ones."""
        app_id = s.application_id
        am = None if s.unmanaged else s.am_resource
        processes = self.executor.kind != "virtual"
        if self.keeper is not None and done:
            self.keeper.tasks_done[app_id] = list(done)
        if s.tasks and not processes:
            tasks = tuple(TaskGroup(t.count - _done(done, g), t.resource, t.duration_ms,
                                    t.priority) for g, t in enumerate(s.tasks))
            self.sim.arrive(AppSpec(app_id, 0, queue, s.user, am, tasks, running=running))
        elif s.distributed_shell is not None and processes:
            shell = s.distributed_shell
            completed = _done(done, 0)
            self._external[app_id] = s
            # DistributedShell's counters as they stand: each running task allocated, the
            # failed ones those the RM's record counted
            self.shells[app_id] = ShellCounts(
                shell.num_containers, completed + sum(not r.am for r in running), completed,
                failed)
            self.sim.arrive(AppSpec(app_id, 0, queue, s.user, am, (
                TaskGroup(shell.num_containers - completed, shell.container_resource, 0,
                          shell.priority),), running=running), external=True)
        else:
            if processes and s.am_command and not s.unmanaged:  # its own AM: the AM protocol
                if not recovering:  # (a recovered attempt is the hub's: attach_hub)
                    if self.hub is not None:
                        self.hub.expect(s)
                    else:  # (a restart: the hub is attached before anything is allocated)
                        self._for_hub.append(lambda hub: hub.expect(s))
            elif processes:
                self._external[app_id] = s
            self.sim.apply(Submit(app_id, queue, s.user, am, (), recovering))
            for r in running:
                self.sim.apply(RecoverContainer(app_id, r.node, r.resource, r.am, r.priority,
                                                r.container_id))

    def _known(self, app_id: str) -> None:
        if app_id not in self.records.apps:
            raise not_found(f"app with id: {app_id} not found")

    def kill(self, app_id: str, user: str, diagnostics: str | None) -> KillResult:
        def job() -> KillResult:
            self._known(app_id)
            record = self.records.apps[app_id]
            if record.state not in ACTIVE_STATES:
                return KillResult(record.rm_state, True)
            self.records.kill_requested(app_id, diagnostics)
            self._changed(app_id)
            if self.engine.app(app_id).stopped:
                return KillResult(record.rm_state, True)
            self.sim.apply(Kill(app_id))
            return KillResult("FINAL_SAVING", False)

        return self._call(job)

    def move(self, app_id: str, queue: str, user: str) -> str:
        def job() -> str:
            self._known(app_id)
            record = self.records.apps[app_id]
            if record.state not in ACTIVE_STATES:
                # RMWebServices.updateAppQueue answers this YarnException as a plain 400
                raise Refused(400, "", "", f"App in {record.state} state cannot be moved.",
                              plain=True)
            target = queue if queue.startswith("root.") or queue == "root" else f"root.{queue}"
            if target == record.queue:
                return record.queue
            events = self.sim.events
            start = len(events)
            self.sim.apply(Move(app_id, target))
            refused = next((e for e in events[start:] if isinstance(e, MoveRejected)), None)
            if refused is not None or target not in self.engine.state.queues:
                # FairScheduler.moveApplication's YarnException (no such leaf, a limit the
                # move would break): doAs wraps it and GenericExceptionHandler answers the
                # wrapper, 503 without a message (a Hadoop 3.4 RM with yarn.acl.enable false)
                raise Refused(503, "UndeclaredThrowableException",
                              "java.lang.reflect.UndeclaredThrowableException", None)
            record.queue = self.engine.app(app_id).queue
            self._changed(app_id)
            return record.queue

        return self._call(job)

    # -- fairshare's extensions: the scenario snapshot, node management (virtual executor) ------

    def scenario_snapshot(self) -> dict[str, Any]:
        """The engine's state as a scenario's ``snapshot`` step records it
        (docs/scenario-format.md "Snapshots"), taken on the engine thread."""
        return self._call(lambda: scenario_snapshot(self.engine))

    def add_node(self, node: NodeSpec) -> None:
        def job() -> None:
            self._virtual_only()
            if node.id in self.engine.state.nodes:
                raise bad_request(f"node {node.id} is already registered")
            self.records.add_node(node.id, node.rack, node.capacity, self.engine.now)
            self.sim.apply(AddNode(node.id, node.capacity, node.rack))
            self._nodes_changed()

        self._call(job)

    def remove_node(self, node_id: str) -> None:
        """The node is lost (``NodeRemovedSchedulerEvent``): its containers with it."""
        def job() -> None:
            self._virtual_only()
            self._active_node(node_id)
            self.sim.apply(RemoveNode(node_id))
            self.records.node_left(node_id, "LOST")
            self._nodes_changed()

        self._call(job)

    def resize_node(self, node_id: str, capacity: Resource) -> None:
        def job() -> None:
            self._virtual_only()
            self._active_node(node_id)
            self.sim.apply(ResizeNode(node_id, capacity))
            self.records.resize_node(node_id, capacity)
            self._nodes_changed()

        self._call(job)

    def decommission_node(self, node_id: str, timeout_ms: int | None) -> None:
        def job() -> None:
            self._virtual_only()
            self._active_node(node_id)
            self.sim.apply(Decommission(node_id, timeout_ms))
            self.records.node_left(node_id, "DECOMMISSIONING")
            self._nodes_changed()

        self._call(job)

    def _virtual_only(self) -> None:
        if self.executor.kind != "virtual":
            raise bad_request(f"nodes are managed by the {self.executor.kind} executor here; "
                              "node management is for the virtual executor")

    def _active_node(self, node_id: str) -> None:
        if node_id not in self.engine.state.nodes:
            raise not_found(f"nodeId, {node_id}, is not found")

    def explain_json(self, subject: str, kind: str) -> dict[str, Any]:
        """An app or a container explained from the session's outputs (404 if unknown)."""
        outputs = self.outputs
        if outputs is None:
            raise not_found("this server writes no session outputs to explain from")
        return self._call(lambda: outputs.explain_json(subject, kind))  # type: ignore[arg-type]

    def events_since(self, seq: int, timeout_s: float) -> Sequence[StreamedEvent]:
        deadline = time.monotonic() + timeout_s
        with self._stream_changed:
            while True:
                newer = [e for e in self._stream if e.seq > seq]
                left = deadline - time.monotonic()
                if newer or left <= 0 or self._stop.is_set():
                    return newer
                self._stream_changed.wait(left)

    # -- the state store ---------------------------------------------------------------------------

    def recover(self, state: StoredState, scheduling_wait_ms: int) -> int:
        """Before :meth:`start`: take over what the store holds, as YARN's work-preserving
        restart does (``RMAppManager.recover``, then each NodeManager's containers:
        ``AbstractYarnScheduler.recoverContainersOnNode``). Every app is there again with its
        attempts; those still running are re-added to their queues (``recovering``: no AM
        asked for) with their containers where they ran — the virtual executor's tasks for
        what they still had to run, a process re-attached by the executor or, gone meanwhile,
        reported ended. No container is allocated until ``scheduling_wait_ms`` has passed.
        Returns how many containers were recovered."""
        ts, types = self.records.cluster_timestamp, self.engine.types
        by_app: dict[str, list[Record]] = {}
        for record in state.containers:
            by_app.setdefault(record["app"], []).append(record)
        active = [r for r in state.apps if r["state"] in ACTIVE_STATES]
        self.sim.apply(Restart(state.epoch, scheduling_wait_ms if active else None))
        for record in state.apps:
            self.records.restored(record["id"], app_of(record, ts, types))
            if self.keeper is not None:
                self.keeper.known(record["id"], record)
        recovered = 0
        for record in active:
            recovered += self._recover_app(record, by_app.pop(record["id"], []))
        # containers of apps that ended are not recovered, and their processes are stopped
        # (TestWorkPreservingRMRestart.testContainersNotRecoveredForCompletedApps)
        for app_id, left in by_app.items():
            ended = self.records.apps.get(app_id)
            if ended is not None:
                for c in left:
                    self._stop_orphan(ended.submission, c)
        self.sim.run_live(self.engine.now)  # the recovered apps' arrivals are due now
        self.sim.deliver()
        if self.keeper is not None:
            self.keeper.forget_others(c["id"] for c in state.containers)
        self._flush()
        self._snapshot = self._take_snapshot()
        return recovered

    def _recover_app(self, record: Record, containers: list[Record]) -> int:
        app_id, rm_app = record["id"], self.records.apps[record["id"]]
        s, types = rm_app.submission, self.engine.types
        now_epoch = self.records.cluster_timestamp + self.engine.now
        alive = [c for c in containers if c["node"] in self.engine.state.nodes]
        alive.sort(key=lambda c: not c["am"])  # the first recovered is the attempt's AM
        processes = self.executor.kind != "virtual"
        adopt = getattr(self.executor, "adopt", None)
        own_am = (processes and bool(s.am_command) and not s.unmanaged
                  and s.distributed_shell is None)  # the AM protocol's (the hub's) app
        attempt = rm_app.attempts[-1] if rm_app.attempts else None
        if attempt is not None and attempt.container is None and not s.unmanaged:
            # no AM container yet: YARN stores an attempt only once its AM is allocated, so
            # the app starts its attempt afresh (asking for its AM)
            return self._resubmit(app_id, s, record.get("tasks_done", []))
        if processes and adopt is not None:
            # each process re-attached; one that never started is not recovered (its task
            # is asked for again); an AM that did not survive fails its attempt (below)
            taken = []
            for c in alive:
                launch = self._adoptable(s, c)
                process = c.get("process") or {}
                if launch is not None and not adopt(launch, process.get("pid"),
                                                    process.get("started")):
                    continue
                if launch is not None and not own_am:
                    self._launched[(app_id, c["id"])] = launch
                taken.append(c)
            alive = taken
        elif processes:
            alive = []  # Ray's tasks end with the server that ran them
        if not (s.unmanaged or any(c["am"] for c in alive)):
            # the attempt's AM did not survive: the attempt has failed (where YARN waits for
            # the AM's liveness to expire, fairshare, its own NodeManager, knows at once), its
            # containers go with it, and a new attempt asks for its AM again
            for c in alive:
                self._stop_orphan(s, c)
            self.records.attempt_failed(app_id, self.engine.now)
            self._changed(app_id)
            return self._resubmit(app_id, s, record.get("tasks_done", []))
        if own_am and attempt is not None:
            am_container = next(c["id"] for c in alive if c["am"])
            held = [(c["id"], c["node"], resource_of(c["resource"], types), c["priority"],
                     c.get("process") is not None) for c in alive]
            number, queue = attempt.number, rm_app.queue
            self._for_hub.append(lambda hub: hub.recover(s, queue, number, am_container, held))
        if self.keeper is not None:
            for c in alive:
                self.keeper.container_known(c)
        running = tuple(RunningContainer(
            c["node"], resource_of(c["resource"], types), c["am"], c["priority"],
            None if c["ends_ms"] is None else max(0, c["ends_ms"] - now_epoch),
            -1 if c["group"] is None else c["group"], c["id"]) for c in alive)
        self._admit(s, rm_app.queue, recovering=True, running=running,
                    done=record.get("tasks_done", []), failed=rm_app.exit_failures)
        return len(running)

    def _resubmit(self, app_id: str, s: Submission, done: Sequence[int]) -> int:
        """A recovered app whose attempt failed with the restart (or had no AM yet): it
        arrives again as a new attempt that asks for its AM (what its tasks completed is not
        run again)."""
        self._admit(s, self.records.apps[app_id].queue, done=done)
        return 0

    def _adoptable(self, s: Submission, container: Record) -> Launch | None:
        """What an executor re-attaches to a stored container's process: its launch (for a
        container of the AM protocol, whose command only the AM knew, the layout alone), or
        None: a container without a process (the built-in AM)."""
        resource = resource_of(container["resource"], self.engine.types)
        launch = self._launch_of(s, container["id"], container["node"], resource,
                                 container["am"], container["attempt"])
        if launch is None and bool(s.am_command) and not s.unmanaged and not container["am"]:
            launch = self._container_launch(s, container["id"], container["node"], resource,
                                            False, container["attempt"], "")
        return launch

    def _stop_orphan(self, s: Submission, container: Record) -> None:
        """A container a restart does not take over: its process, if one still runs, is
        ended (SIGTERM, then SIGKILL), as the NodeManager kills the containers of an attempt
        that failed."""
        adopt = getattr(self.executor, "adopt", None)
        launch = self._adoptable(s, container)
        if adopt is None or launch is None:
            return
        process = container.get("process") or {}
        # (not in _launched: its exit, if the executor reports one, is no container's)
        adopt(launch, process.get("pid"), process.get("started"))
        self.executor.stop(s.application_id, launch.container, self.grace_ms)

    def _changed(self, app_id: str) -> None:
        if self.keeper is not None:
            self.keeper.app_changed(app_id)

    def _nodes_changed(self) -> None:
        """The NodeManagers fairshare runs itself (not Ray's) are the store's to keep."""
        if self.keeper is not None and self.executor.kind != "ray":
            self.keeper.nodes((n.id, n.rack, n.capacity) for n in self.records.nodes.values()
                              if n.id in self.engine.state.nodes)

    def _flush(self) -> None:
        if self.keeper is not None:
            self.keeper.flush()

    # -- the journal -------------------------------------------------------------------------------

    def _journaled(self, command: Command) -> None:
        if type(command) is Heartbeat:
            self.heartbeats += 1
        if self._journal is not None:
            self._journal(command)



def _done(done: Sequence[int], group: int) -> int:
    """The tasks of ``group`` completed before a restart."""
    return done[group] if group < len(done) else 0

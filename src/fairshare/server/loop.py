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
    RemoveNode,
    ResizeNode,
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
)
from fairshare.server.executors.base import SIGKILL_DELAY_MS, Executor, Launch
from fairshare.server.rm import ACTIVE_STATES, RMRecords
from fairshare.server.session import SNAPSHOT_EVERY_MS, SessionOutputs
from fairshare.server.snapshots import server_snapshot
from fairshare.server.submission import Submission
from fairshare.server.view import ServerSnapshot, engine_container_id, yarn_container_id
from fairshare.sim.record.snapshot import snapshot as scenario_snapshot
from fairshare.sim.run.loop import Simulation
from fairshare.sim.sources.workload import AppSpec, TaskGroup

T = TypeVar("T")
log = logging.getLogger("fairshare.serve")

SNAPSHOT_EVERY_S = 0.1  # while only the clock moves, requests see it at most this stale
EVENTS_KEPT = 100_000  # the event stream's memory; older events are forgotten
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


class _Unseen:
    """A job whose change no snapshot shows (an id given out): no snapshot is taken for it."""

    def __init__(self, job: Callable[[], T]) -> None:
        self.job = job

    def __call__(self) -> Any:
        return self.job()


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
                 outputs: Path | None = None, grace_ms: int = SIGKILL_DELAY_MS) -> None:
        self.engine = engine
        # yarn.nodemanager.sleep-delay-before-sigkill.ms: a process the RM takes back gets
        # SIGTERM, then SIGKILL this long after (ContainerCleanup.signalProcess)
        self.grace_ms = grace_ms
        self.executor = executor
        self.clock = clock
        self.work_dir = work_dir
        self.heartbeat_ms = heartbeat_ms
        self.records = RMRecords(cluster_timestamp, engine.types)
        self._journal = journal
        self.sim = Simulation(engine, (), heartbeat_interval_ms=heartbeat_ms,
                              event_driven=False, observers=[self], journal=self._journaled,
                              snapshot_every_ms=None if outputs is None else SNAPSHOT_EVERY_MS)
        # the session's run outputs (events.jsonl, the timeline, summary.json): explain reads them
        self.outputs = (None if outputs is None
                        else SessionOutputs.attached(outputs, self.sim))
        self.hub: AMHub | None = None  # the AM protocol (set by the service before start)
        self._jobs: SimpleQueue[tuple[Callable[[], Any], Future[Any]]] = SimpleQueue()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._thread_id: int | None = None
        self._listeners: list[EventListener] = []
        self._stream: deque[StreamedEvent] = deque(maxlen=EVENTS_KEPT)
        self._stream_changed = threading.Condition()
        self._launched: dict[tuple[str, str], Launch] = {}  # (app, engine container) → launch
        self._external: dict[str, Submission] = {}  # apps whose containers are processes
        self.shells: dict[str, ShellCounts] = {}  # the built-in distributed-shell AM's apps
        self._published_at = 0.0
        self.failure: BaseException | None = None  # what stopped the engine thread
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
        self._snapshot = self._take_snapshot()

    # -- the thread --------------------------------------------------------------------------------

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
        except BaseException as e:  # the engine refused what its own loop did: a bug
            self.failure = e
            log.exception("the engine thread stopped")
            raise

    def _batch(self, job: Callable[[], Any] | None, future: Future[Any]) -> None:
        """Every job waiting, then one snapshot for them all; each caller is answered once it
        is published, so that what the caller reads next shows what its job did."""
        answers: list[tuple[Future[Any], Future[Any]]] = []
        publish = False
        try:
            while job is not None:
                done: Future[Any] = Future()
                answers.append((done, future))
                self._do(job, done)
                publish = publish or not isinstance(job, _Unseen)
                try:
                    job, future = self._jobs.get_nowait()
                except Empty:
                    job = None
            self._publish(force=publish)
        finally:
            for done, asked in answers:
                if not done.done():  # the thread stopped before it
                    done.set_exception(Refused(
                        503, "ServiceUnavailableException",
                        "org.apache.hadoop.yarn.exceptions.YarnRuntimeException",
                        "the ResourceManager is stopping"))
                if asked.set_running_or_notify_cancel():
                    if done.exception() is not None:
                        asked.set_exception(done.exception())
                    else:
                        asked.set_result(done.result())

    def _do(self, job: Callable[[], Any], future: Future[Any]) -> None:
        if not future.set_running_or_notify_cancel():
            return
        try:
            self._advance()
            result = job()
            self.sim.deliver()
        except BaseException as e:
            self.sim.deliver()
            future.set_exception(e)
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
            raise Refused(503, "ServiceUnavailableException",
                          "org.apache.hadoop.yarn.exceptions.YarnRuntimeException",
                          "the ResourceManager is stopping")
        future: Future[T] = Future()
        self._jobs.put((job, future))
        return future.result(timeout=JOB_TIMEOUT_S)

    # -- snapshots ---------------------------------------------------------------------------------

    def _take_snapshot(self) -> ServerSnapshot:
        now = self.engine.now
        last_heartbeat = now - now % self.heartbeat_ms
        for node in self.records.nodes.values():
            if node.state in ("RUNNING", "DECOMMISSIONING"):
                node.last_heartbeat_ms = last_heartbeat
        snap = self.engine.snapshot()
        preempted = {a.id: (a.preempted_am_containers, a.preempted_containers,
                            a.preempted_resource if a.preempted_containers else None)
                     for a in snap.apps}
        if self.hub is not None:
            for app_id in list(self.records.apps):
                report = self.hub.report(app_id)
                if report is not None:
                    self.records.am_report(app_id, report, now)
        apps, nodes = self.records.freeze(now, preempted)
        return server_snapshot(self.engine, self.records.cluster_timestamp,
                               self.records.cluster_timestamp + now, apps, nodes, snap)

    def _publish(self, force: bool) -> None:
        wall = time.monotonic()
        # while only the clock moves, at most a tenth of the thread goes to snapshots (one
        # of thousands of nodes and apps is not cheap)
        if force or wall - self._published_at >= max(SNAPSHOT_EVERY_S, 10 * self._cost_s):
            self._snapshot = self._take_snapshot()
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
        types = self.engine.types
        for event in events:
            self._executor_reacts(event)
        for listener in self._listeners:
            listener(events)
        if events:
            with self._stream_changed:
                self._stream.extend(StreamedEvent(e.seq, event_record(e, types))
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
                self.records.apps[event.app].diagnostics = shell.diagnostics()

    def _launch(self, submission: Submission, event: ContainerAllocated) -> None:
        """A container of an app whose containers are processes: the distributed shell's
        command in its task containers (its AM is the server's own), the app's AM command in
        its AM container."""
        shell = submission.distributed_shell
        if event.am:
            if shell is not None or submission.am_command is None:
                return
            command = submission.am_command
        else:
            if shell is None:
                return
            command = shell.shell_command
        app = self.engine.app(event.app)
        container = yarn_container_id(event.container)
        host, _, port = event.node.rpartition(":")
        environment = dict(submission.environment)
        environment.update({
            "CONTAINER_ID": container, "APPLICATION_ID": event.app,
            "APP_ATTEMPT_ID": f"appattempt_{event.app[len('application_'):]}_{app.attempt:06d}",
            "NM_HOST": host or event.node, "NM_PORT": port, "USER": submission.user,
            "LOGNAME": submission.user,
        })
        # the NodeManager's layout, as the AM protocol's containers have it (AMHub._launch):
        # <local>/usercache/<user>/appcache/<app>/<container> to work in (so LOCAL_DIRS is the
        # app's appcache directory) and <log-dir>/<app>/<container> for stdout and stderr
        # (ContainerLaunch.getRelativeContainerLogDir)
        work = self.work_dir / "usercache" / submission.user / "appcache" / event.app / container
        launch = Launch(event.app, app.attempt, container, event.node, event.resource, event.am,
                        command, environment, work, self.work_dir / event.app / container)
        self._launched[(event.app, event.container)] = launch
        self.executor.launch(launch)

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
                    self.sim.apply(Kill(app))
                    record.state = record.rm_state = record.final_status = "FAILED"
                return
            if exit_status != 0:
                self.records.apps[app].exit_failures += 1
            shell = self.shells.get(app)
            if shell is not None:
                shell.num_completed += 1
                shell.num_failed += exit_status != 0
            self.sim.complete(app, engine_id)

        self._call(job)

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

    def new_application(self) -> tuple[str, Resource]:
        return (self._call(_Unseen(self.records.new_application_id)),
                self.engine.site.maximum_allocation)

    def submit(self, submission: Submission) -> None:
        self._call(lambda: self._submit(submission))

    def _submit(self, s: Submission) -> None:
        app_id = s.application_id
        if app_id in self.records.apps:
            raise bad_request(f"org.apache.hadoop.yarn.exceptions.YarnException: Application "
                              f"with id {app_id} is already present! Cannot add a duplicate!")
        self.records.submitted(s, self.engine.now)
        am = None if s.unmanaged else s.am_resource
        processes = self.executor.kind != "virtual"
        if s.tasks and not processes:  # the simulator's app model runs it
            self.sim.arrive(AppSpec(app_id, 0, s.queue, s.user, am, s.tasks))
        elif s.distributed_shell is not None and processes:
            shell = s.distributed_shell
            self._external[app_id] = s
            self.shells[app_id] = ShellCounts(shell.num_containers)
            self.sim.arrive(AppSpec(app_id, 0, s.queue, s.user, am, (
                TaskGroup(shell.num_containers, shell.container_resource, 0, shell.priority),)),
                external=True)
        else:  # an AM that runs until it ends (a process) or is killed (virtual)
            if processes and self.hub is not None and s.am_command and not s.unmanaged:
                self.hub.expect(s)  # its own AM: the AM protocol
            elif processes:
                self._external[app_id] = s
            self.sim.apply(Submit(app_id, s.queue, s.user, am, ()))
        self.sim.run_live(self.engine.now)  # the arrival is due now

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
            if target not in self.engine.state.queues and self.engine.site.acl_enable:
                # ClientRMService.moveApplicationAcrossQueues: with ACLs on, a target queue
                # that does not exist fails its access check (AccessControlException), which
                # RMWebServices.updateAppQueue answers as a plain 403
                raise Refused(403, "ForbiddenException",
                              "org.apache.hadoop.yarn.webapp.ForbiddenException",
                              f"Unauthorized attempt to move appid {app_id} by remote user "
                              f"{user}", plain=True)
            if refused is not None or target not in self.engine.state.queues:
                # FairScheduler.moveApplication's YarnException (no such leaf, a limit the
                # move would break): doAs wraps it and GenericExceptionHandler answers the
                # wrapper, 503 without a message (a Hadoop 3.4 RM with yarn.acl.enable false)
                raise Refused(503, "UndeclaredThrowableException",
                              "java.lang.reflect.UndeclaredThrowableException", None)
            record.queue = self.engine.app(app_id).queue
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

        self._call(job)

    def remove_node(self, node_id: str) -> None:
        """The node is lost (``NodeRemovedSchedulerEvent``): its containers with it."""
        def job() -> None:
            self._virtual_only()
            self._active_node(node_id)
            self.sim.apply(RemoveNode(node_id))
            self.records.node_left(node_id, "LOST")

        self._call(job)

    def resize_node(self, node_id: str, capacity: Resource) -> None:
        def job() -> None:
            self._virtual_only()
            self._active_node(node_id)
            self.sim.apply(ResizeNode(node_id, capacity))
            self.records.nodes[node_id].capacity = capacity

        self._call(job)

    def decommission_node(self, node_id: str, timeout_ms: int | None) -> None:
        def job() -> None:
            self._virtual_only()
            self._active_node(node_id)
            self.sim.apply(Decommission(node_id, timeout_ms))
            self.records.node_left(node_id, "DECOMMISSIONING")

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

    # -- the journal -------------------------------------------------------------------------------

    def _journaled(self, command: Command) -> None:
        if type(command) is Heartbeat:
            self.heartbeats += 1
        if self._journal is not None:
            self._journal(command)


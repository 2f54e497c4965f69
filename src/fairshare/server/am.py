"""The AM protocol's server side: an application that brings its own ApplicationMaster.

An app whose submission has an ``am_command`` runs that command as its AM container; the AM (any
program) then acts through REST (``am_routes.py``, under ``/ws/v1/fairshare/am``;
docs/am-protocol.md) with a bearer token made for its attempt: it registers, allocates
(asks, releases, progress; in return the containers newly allocated, the statuses of those
completed, and those about to be preempted), starts containers on what it was given, and
unregisters. :class:`AMHub` is that protocol's state, speaking to the engine only through
:class:`~fairshare.server.control.EngineDriver`.

The loop-facing interface (what ``loop.py`` calls)::

    hub = AMHub(driver, executor, types=…, maximum_allocation=…, base_url="http://host:port",
                work_root=Path(…), log_root=Path(…))
    hub.start()                 # once, before the first submit: subscribes to the engine's
                                # events (driver.add_listener) and starts the hub's worker
    hub.expect(submission)      # at submit, BEFORE command(Submit(…)), for every submission
                                # with an am_command that is not unmanaged; returns nothing
    hub.owns(app_id) -> bool    # True for an expected app: the loop then neither launches
                                # nor stops that app's containers (the hub does, through the
                                # executor, on the engine's container-allocated/-completed
                                # events), and passes it every executor exit of that app:
    hub.container_exited(app_id, container_id, exit_status, diagnostics)
                                # from ExecutorHost.container_exited, for owned apps; any
                                # thread; returns at once (the hub's worker applies what
                                # follows: CompleteContainer, Finish, Release(am) or Kill)
    hub.report(app_id) -> AMReport | None
                                # what the RM's app record takes from the AM: registered
                                # (RMAppState RUNNING), final status, diagnostics, progress,
                                # tracking URL, attempts failed, failed for good (FAILED);
                                # safe on the engine thread (snapshot building)
    hub.close()                 # at shutdown, before executor.close(): tokens revoked
    hub.recover(submission, attempt_number, am_container, containers)
                                # at a restart, BEFORE start: the attempt of a running AM,
                                # unregistered until the AM registers again (its token is
                                # the same: made from the store's master key)

Every method is safe from any thread; none calls ``driver.command`` on the caller's thread
except the REST handlers' (request threads), and none holds the hub's lock while a command is
applied, so the engine thread's listener never waits for a request.

An AM container that ends without unregistering fails its attempt, as YARN's
``RMAppAttemptImpl`` (``AMContainerCrashedBeforeRunningTransition`` / ``ContainerFinished``
before ``AMUnregistered``): the engine offers ``Release(which="am")``, which ends the attempt
(its containers complete ``attempt-failed``) and starts a new one that asks for an AM again;
and ``Kill``, which ends the app. The hub counts the attempts so failed (those whose AM was
preempted or lost with its node do not count, as ``shouldCountTowardsMaxAttemptRetry``): below
the submission's ``max_attempts`` it releases the AM (a new attempt); at it, it kills the app
and :meth:`AMHub.report` says ``failed`` (the RM's FAILED with final status FAILED — the
engine itself records it as killed: it has no failed state). The engine's new attempt also
asks again for the old one's killed tasks (its app model); a real AM asks for itself, so the
hub releases at once any task container given to an attempt beyond what its AM asked for.

A token is the attempt id signed with the hub's master key (HMAC-SHA256), as YARN's
``AMRMTokenSecretManager`` signs an ``AMRMTokenIdentifier``; with a state store the key is the
store's, so after a restart the AM's token is still good. The restarted hub knows the attempt
as not registered: the AM's next call answers ``ApplicationMasterNotRegisteredException``, and
the AM registers again and sends its outstanding asks again, as YARN's ``AMRMClientImpl``
resyncs (``fairshare.client.AMClient`` does).

After ``unregister`` the app ends (``Finish``) when its AM container exits, or
``finish_wait_ms`` later, whichever first (YARN's attempt waits in FINISHING for the AM
container; its AM-liveness expiry is 10 minutes, shortened here).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import queue
import secrets
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fairshare.core import (
    AppAttemptRestarted,
    AppFinished,
    AppMoved,
    AppRejected,
    AppSubmitted,
    Ask,
    CompleteContainer,
    Completion,
    ContainerAllocated,
    ContainerCompleted,
    ContainerPreempted,
    ContainerRequest,
    ContainersRequested,
    EngineError,
    Finish,
    Kill,
    PreemptionWarned,
    Release,
    RequestsRejected,
)
from fairshare.resources.vector import Resource, ResourceTypes
from fairshare.server.am_state import (
    AllocatedContainer,
    AllocateResult,
    AMReport,
    Attempt,
    CompletedStatus,
    completion_status,
)
from fairshare.server.control import EngineDriver, Refused
from fairshare.server.executors.base import SIGKILL_DELAY_MS, Executor, Launch
from fairshare.server.submission import Submission
from fairshare.server.view import (
    container_of_app,
    engine_container_id,
    node_http_address,
    yarn_container_id,
)

__all__ = ["AMHub", "AMReport", "AllocateResult", "AllocatedContainer", "CompletedStatus"]

log = logging.getLogger(__name__)

TOKEN_ENV = "FAIRSHARE_AM_TOKEN"  # the attempt's bearer token
URL_ENV = "FAIRSHARE_AM_URL"  # the server's base URL (the AM protocol is under it)
FINISH_WAIT_MS = 10_000


@dataclass(slots=True)
class _App:
    submission: Submission
    submit_ms: int
    queue: str
    attempt: Attempt | None = None
    attempts_started: int = 0
    attempts_failed: int = 0
    report: AMReport = field(default_factory=AMReport)
    ended: bool = False


class AMHub:
    """The AM protocol's state (see the module docstring for the loop's interface)."""

    def __init__(self, driver: EngineDriver, executor: Executor, *, types: ResourceTypes,
                 maximum_allocation: Resource, base_url: str, work_root: Path,
                 log_root: Path, grace_ms: int = SIGKILL_DELAY_MS,
                 finish_wait_ms: int = FINISH_WAIT_MS,
                 http_address: Callable[[str], str] = node_http_address,
                 master_key: bytes | None = None) -> None:
        self.driver = driver
        self.executor = executor
        self.types = types
        self.maximum_allocation = maximum_allocation
        self.base_url = base_url.rstrip("/")
        self.work_root = work_root
        self.log_root = log_root
        self.grace_ms = grace_ms
        self.finish_wait_ms = finish_wait_ms
        self.http_address = http_address
        self._master_key = master_key or secrets.token_bytes(32)
        self._lock = threading.Lock()
        self._apps: dict[str, _App] = {}
        self._by_token: dict[str, Attempt] = {}  # sha-256 of the token → its attempt
        self._work: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self._timers: list[threading.Timer] = []

    # -- the loop's interface -------------------------------------------------------------

    def start(self) -> None:
        self.driver.add_listener(self._on_events)
        self._worker = threading.Thread(target=self._run_worker, name="am-hub", daemon=True)
        self._worker.start()

    def expect(self, submission: Submission) -> None:
        if submission.am_command is None or submission.unmanaged:
            raise ValueError(f"{submission.application_id} brings no AM command")
        with self._lock:
            self._apps[submission.application_id] = _App(submission, self.driver.now_ms(),
                                                         submission.queue)

    def owns(self, app_id: str) -> bool:
        with self._lock:
            return app_id in self._apps

    def container_exited(self, app_id: str, container_id: str, exit_status: int,
                         diagnostics: str) -> None:
        container = engine_container_id(container_id)  # Launch.container is YARN's form
        self._work.put(lambda: self._exited(app_id, container, exit_status, diagnostics))

    def report(self, app_id: str) -> AMReport | None:
        with self._lock:
            app = self._apps.get(app_id)
            return None if app is None else app.report

    def close(self) -> None:
        with self._lock:
            self._by_token.clear()
            timers, self._timers = self._timers, []
        for timer in timers:
            timer.cancel()
        if self._worker is not None:
            self._work.put(None)
            self._worker.join(timeout=10)
            self._worker = None

    # -- what the REST handlers call (request threads) ------------------------------------

    def attempt_of(self, token: str) -> Attempt:
        """The live attempt a bearer token was made for; Refused 401 otherwise."""
        with self._lock:
            attempt = self._by_token.get(_digest(token))
        if attempt is None:
            raise Refused(401, "AuthorizationException",
                          "org.apache.hadoop.security.authorize.AuthorizationException",
                          "Unauthorized request from ApplicationMaster: no live application "
                          "attempt holds this token")
        return attempt

    def register(self, attempt: Attempt, host: str, rpc_port: int, tracking_url: str
                 ) -> dict[str, object]:
        """``ApplicationMasterService.registerApplicationMaster``."""
        with self._lock:
            app = self._apps[attempt.app]
            if attempt.registered:
                raise _invalid_request(f"Application Master is already registered : "
                                       f"{attempt.app}")
            attempt.registered = True
            app.report = app.report.with_(registered=True, host=host, rpc_port=rpc_port,
                                          tracking_url=tracking_url)
            queue_name = app.queue
        # RegisterApplicationMasterResponse (maximumResourceCapability: the routes add it)
        return {"queue": queue_name, "containersFromPreviousAttempts": [],
                "schedulerResourceTypes": ["MEMORY", "CPU"]}

    def allocate(self, attempt: Attempt, asks: Sequence[ContainerRequest],
                 releases: Sequence[str], progress: float) -> AllocateResult:
        """``ApplicationMasterService.allocate``: releases, then asks, then what happened."""
        self._need_registered(attempt)
        ids = [engine_container_id(c) for c in releases]
        with self._lock:
            foreign = [c for c in ids if not container_of_app(c, attempt.app)]
        if foreign:  # RMServerUtils.validateContainerReleaseRequest
            raise Refused(400, "InvalidContainerReleaseException",
                          "org.apache.hadoop.yarn.exceptions.InvalidContainerReleaseException",
                          f"Cannot release container : {yarn_container_id(foreign[0])} not "
                          f"belonging to this application attempt : {attempt.attempt_id}")
        for container in ids:
            with self._lock:
                live = container in attempt.live and container != attempt.am_container
            if live:  # one gone already (preempted, exited) is left alone
                self._command(CompleteContainer(attempt.app, container))
        if asks:
            self._ask(attempt, asks)
        with self._lock:
            attempt.progress = min(1.0, max(0.0, progress))  # ApplicationMasterService clamps
            app = self._apps[attempt.app]
            app.report = app.report.with_(progress=attempt.progress)
            return attempt.drain()

    def start_container(self, attempt: Attempt, container_id: str, command: str,
                        environment: Mapping[str, str]) -> None:
        """``ContainerManagementProtocol.startContainers`` on a container of the attempt."""
        self._need_registered(attempt)
        container = engine_container_id(container_id)
        with self._lock:
            held = attempt.live.get(container)
            if held is None or container == attempt.am_container:
                raise Refused(404, "InvalidContainerException",
                              "org.apache.hadoop.yarn.exceptions.InvalidContainerException",
                              f"Container {container_id} is not allocated to "
                              f"{attempt.attempt_id} or has completed")
            if container in attempt.started:
                raise Refused(400, "InvalidContainerException",
                              "org.apache.hadoop.yarn.exceptions.InvalidContainerException",
                              f"Container {container_id} is already started")
            attempt.started.add(container)
            user = self._apps[attempt.app].submission.user
        env = {"USER": user, **environment}
        env.pop(TOKEN_ENV, None)
        self.executor.launch(self._launch(attempt, container, held, False, command, env))

    def unregister(self, attempt: Attempt, final_status: str, diagnostics: str,
                   tracking_url: str) -> None:
        """``finishApplicationMaster``: the attempt is FINISHING until its AM exits."""
        self._need_registered(attempt)
        with self._lock:
            attempt.unregistered = True
            app = self._apps[attempt.app]
            app.report = app.report.with_(final_status=final_status, diagnostics=diagnostics,
                                          tracking_url=tracking_url or app.report.tracking_url)
            timer = threading.Timer(self.finish_wait_ms / 1000,
                                    lambda: self._work.put(lambda: self._finish(attempt)))
            timer.daemon = True
            self._timers.append(timer)
        timer.start()

    # -- the engine's events (engine thread: must not block, no command) -------------------

    def _on_events(self, events: Sequence[object]) -> None:
        for event in events:
            app_id = getattr(event, "app", None)
            if not isinstance(app_id, str):
                continue
            with self._lock:
                app = self._apps.get(app_id)
                if app is None:
                    continue
                self._apply_event(app, event)

    def _apply_event(self, app: _App, event: object) -> None:
        attempt = app.attempt
        if isinstance(event, AppSubmitted):
            app.queue = event.queue
        elif isinstance(event, AppMoved):
            app.queue = event.to_queue
        elif isinstance(event, ContainerAllocated):
            if event.am:
                self._new_attempt(app, event)
            elif attempt is not None:
                self._allocated(attempt, event)
        elif isinstance(event, PreemptionWarned) and attempt is not None:
            if event.container in attempt.live:
                attempt.to_preempt.add(event.container)
        elif isinstance(event, ContainerCompleted) and attempt is not None:
            self._completed(app, attempt, event.container, event.am, event.status)
        elif isinstance(event, ContainerPreempted) and attempt is not None:
            # preemption.commit.kill: a victim ends as container-preempted, not -completed
            self._completed(app, attempt, event.container, event.am, Completion.PREEMPTED)
        elif isinstance(event, AppAttemptRestarted) and attempt is not None:
            self._end_attempt(attempt)
            app.attempt = None
        elif isinstance(event, AppFinished | AppRejected):
            if attempt is not None:
                self._end_attempt(attempt)
            app.ended = True
            if isinstance(event, AppRejected):
                app.report = app.report.with_(diagnostics=str(event.reason))

    def _new_attempt(self, app: _App, event: ContainerAllocated) -> None:
        """The AM container is allocated: a new attempt, a new token, the AM launched."""
        app.attempts_started += 1
        sub = app.submission
        attempt_id = (f"appattempt_{sub.application_id.removeprefix('application_')}_"
                      f"{app.attempts_started:06d}")
        token = self._token(attempt_id)
        attempt = Attempt(sub.application_id, app.attempts_started, event.container,
                          _digest(token))
        attempt.live[event.container] = (event.node, event.resource, 0)
        app.attempt = attempt
        self._by_token[attempt.token_digest] = attempt
        env = {**dict(sub.environment), "USER": sub.user, URL_ENV: self.base_url,
               TOKEN_ENV: token, "APP_SUBMIT_TIME_ENV": str(app.submit_ms),
               "MAX_APP_ATTEMPTS": str(sub.max_attempts)}
        assert sub.am_command is not None
        self.executor.launch(self._launch(attempt, event.container, (event.node,
                             event.resource, 0), True, sub.am_command, env))
        log.info("launched the AM of %s in %s", attempt.attempt_id, event.container)

    def _token(self, attempt_id: str) -> str:
        """The attempt's token: its id signed with the master key (url-safe base64)."""
        mac = hmac.new(self._master_key, attempt_id.encode(), hashlib.sha256).digest()
        return base64.urlsafe_b64encode(mac).decode().rstrip("=")

    def recover(self, submission: Submission, queue_name: str, number: int,
                am_container: str, containers: Sequence[tuple[str, str, Resource, int, bool]]
                ) -> None:
        """At a restart: the running attempt ``number`` of an app with its own AM, its AM in
        ``am_container``; ``containers``: (engine id, node, resource, priority, started) of
        each container it holds, its AM's included. Not registered: the AM registers again."""
        self.expect(submission)
        with self._lock:
            app = self._apps[submission.application_id]
            app.queue = queue_name
            app.attempts_started = number
            attempt = Attempt(submission.application_id, number, am_container, "")
            attempt.token_digest = _digest(self._token(attempt.attempt_id))
            for container, node, resource, priority, started in containers:
                attempt.live[container] = (node, resource, priority)
                if started and container != am_container:
                    attempt.started.add(container)
            app.attempt = attempt
            self._by_token[attempt.token_digest] = attempt

    def _allocated(self, attempt: Attempt, event: ContainerAllocated) -> None:
        priority = attempt.take_priority(event.resource)
        if priority is None:  # asked by the engine's app model, not by this AM: give back
            self._work.put(lambda: self._release_unasked(attempt, event.container))
            return
        attempt.live[event.container] = (event.node, event.resource, priority)
        attempt.allocated.append(AllocatedContainer(
            yarn_container_id(event.container), event.node, self.http_address(event.node),
            event.resource, priority))

    def _completed(self, app: _App, attempt: Attempt, container: str, am: bool,
                   status: Completion) -> None:
        held = attempt.live.pop(container, None)
        attempt.to_preempt.discard(container)
        exit_code = attempt.exit_codes.pop(container, None)
        if held is None:
            return
        if exit_code is None and (container in attempt.started or am):
            # the RM took it back while it ran (preempted, released, app or attempt ended)
            self.executor.stop(app.submission.application_id, yarn_container_id(container),
                               self.grace_ms)
        if am:
            return  # the attempt ends with it (app-attempt-restarted or app-finished follow)
        if status in (Completion.APP_ENDED, Completion.ATTEMPT_FAILED):
            return  # the attempt ends: no AM left to tell
        attempt.completed.append(completion_status(yarn_container_id(container), status,
                                                   exit_code))

    def _end_attempt(self, attempt: Attempt) -> None:
        self._by_token.pop(attempt.token_digest, None)  # the token expires with its attempt
        attempt.ended = True

    # -- the worker (commands that follow executor exits and timers) -----------------------

    def _run_worker(self) -> None:
        while True:
            job = self._work.get()
            if job is None:
                return
            try:
                job()
            except Exception:  # one failed job must not stop the hub
                log.exception("AM hub job failed")

    def _exited(self, app_id: str, container: str, status: int, diagnostics: str) -> None:
        with self._lock:
            app = self._apps.get(app_id)
            attempt = None if app is None else app.attempt
            if app is None or attempt is None or container not in attempt.live:
                return  # of an attempt that ended already
            if container != attempt.am_container:
                attempt.exit_codes[container] = (status, diagnostics)
                command: object = CompleteContainer(app_id, container)
            elif attempt.unregistered:
                attempt.exit_codes[container] = (status, diagnostics)
                command = Finish(app_id)
            else:
                command = self._fail_attempt(app, attempt, status, diagnostics)
        self._command(command)

    def _fail_attempt(self, app: _App, attempt: Attempt, status: int, diagnostics: str
                      ) -> object:
        """The AM exited before unregistering: the attempt FAILED (RMAppAttemptImpl)."""
        app.attempts_failed += 1
        # RMAppAttemptImpl.getAMContainerCrashedDiagnostics, then RMAppImpl's final words
        text = (f"AM Container for {attempt.attempt_id} exited with  exitCode: {status}\n"
                f"Failing this attempt.Diagnostics: {diagnostics}")
        last = app.attempts_failed >= app.submission.max_attempts
        if last:
            text = (f"Application {attempt.app} failed {app.attempts_failed} times due to "
                    f"{text}. Failing the application.")
        app.report = app.report.with_(diagnostics=text, attempts_failed=app.attempts_failed,
                                      failed=last, final_status="FAILED" if last else
                                      app.report.final_status, registered=False)
        attempt.exit_codes[attempt.am_container] = (status, diagnostics)
        return Kill(attempt.app) if last else Release(attempt.app, 1, "am")

    def _finish(self, attempt: Attempt) -> None:
        with self._lock:
            ended = attempt.ended
        if not ended:
            self._command(Finish(attempt.app))

    def _release_unasked(self, attempt: Attempt, container: str) -> None:
        with self._lock:
            ended = attempt.ended
        if not ended:
            self._command(CompleteContainer(attempt.app, container))

    # -- helpers ---------------------------------------------------------------------------

    def _ask(self, attempt: Attempt, asks: Sequence[ContainerRequest]) -> None:
        events = self._command(Ask(attempt.app, tuple(asks)))
        rejected = next((e for e in events if isinstance(e, RequestsRejected)), None)
        if rejected is not None:  # ApplicationMasterService: the whole allocate call fails
            raise Refused(400, "InvalidResourceRequestException",
                          "org.apache.hadoop.yarn.exceptions.InvalidResourceRequestException",
                          str(rejected.reason))
        with self._lock:
            for event in events:
                if isinstance(event, ContainersRequested):
                    attempt.add_asked(event.priority, event.resource, event.count)

    def _command(self, command: object) -> Sequence[object]:
        try:
            return self.driver.command(command)
        except EngineError as e:  # the app ended meanwhile, a container already gone
            log.info("AM hub: %s refused: %s", type(command).__name__, e)
            if isinstance(command, Ask):
                raise Refused(400, "ApplicationAttemptNotFoundException",
                              "org.apache.hadoop.yarn.exceptions."
                              "ApplicationAttemptNotFoundException", str(e)) from e
            return ()

    def _need_registered(self, attempt: Attempt) -> None:
        with self._lock:
            if attempt.ended:
                raise Refused(401, "AuthorizationException",
                              "org.apache.hadoop.security.authorize.AuthorizationException",
                              f"{attempt.attempt_id} has ended")
            if not attempt.registered:  # ApplicationMasterService.allocate
                raise Refused(400, "ApplicationMasterNotRegisteredException",
                              "org.apache.hadoop.yarn.exceptions."
                              "ApplicationMasterNotRegisteredException",
                              f"AM is not registered for known application attempt: "
                              f"{attempt.attempt_id} or RM had restarted after AM registered. "
                              f"AM should re-register.")

    def _launch(self, attempt: Attempt, container: str, held: tuple[str, Resource, int],
                am: bool, command: str, env: Mapping[str, str]) -> Launch:
        user = self._apps[attempt.app].submission.user
        # NodeManager's layout: <local>/usercache/<user>/appcache/<app>/<container>, and
        # <log-dir>/<app>/<container> (ContainerLaunch.getRelativeContainerLogDir)
        yarn_id = yarn_container_id(container)
        work = self.work_root / "usercache" / user / "appcache" / attempt.app / yarn_id
        environment = {**env, "APP_ATTEMPT_ID": attempt.attempt_id}
        return Launch(attempt.app, attempt.number, yarn_id, held[0], held[1], am, command,
                      environment, work, self.log_root / attempt.app / yarn_id)


def _digest(token: str) -> str:
    """Tokens are kept by digest: a dictionary lookup then leaks nothing of the token."""
    return hashlib.sha256(token.encode()).hexdigest()


def _invalid_request(message: str) -> Refused:
    return Refused(400, "InvalidApplicationMasterRequestException",
                   "org.apache.hadoop.yarn.exceptions.InvalidApplicationMasterRequestException",
                   message)

"""What the ResourceManager keeps beside the scheduler: applications with their states,
attempts and resource-seconds (``RMAppImpl``, ``RMAppAttemptImpl``, ``RMAppAttemptMetrics``)
and NodeManagers with their states (``RMNodeImpl``).

:class:`RMRecords` is written on the engine thread only, from the engine's events (and from the
requests the loop applies), but for the application ids it gives out, under a lock of their own
from any thread (``ClientRMService.getNewApplication`` takes an id from an atomic counter,
nothing of the scheduler's); :meth:`RMRecords.freeze` copies it into the views a snapshot holds.
Times are engine ms (the server's clock from 0); the views carry epoch ms.

A server freezes its records several times a second, and most of them have not changed since
the last time: the nodes' views are kept until a node is written (its state, its capacity; the
heartbeat time every active node shares is the snapshot's, not theirs), and an ended app's view
for as long as what it shows is the same.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field

from fairshare.core import (
    AppAttemptRestarted,
    AppFinished,
    AppRejected,
    AppSubmitted,
    ContainerAllocated,
    ContainerCompleted,
    ContainerPreempted,
    ContainerRecovered,
    Event,
    NodeDecommissioned,
    Rejection,
)
from fairshare.resources.vector import Resource, ResourceTypes
from fairshare.server.am_state import AMReport
from fairshare.server.submission import Submission
from fairshare.server.view import AttemptView, RMAppView, RMNodeView, node_http_address

_STATES = ("NEW", "NEW_SAVING", "SUBMITTED", "ACCEPTED", "RUNNING", "FINISHED", "FAILED",
           "KILLED")
ACTIVE_STATES = ("NEW", "NEW_SAVING", "SUBMITTED", "ACCEPTED", "RUNNING")
MAX_COMPLETED_APPS = 1000  # yarn.resourcemanager.max-completed-applications' default


@dataclass(slots=True)
class RMAttempt:
    number: int
    start_ms: int
    state: str = "SCHEDULED"
    finish_ms: int | None = None  # (engine ms, negative before a restart)
    container: str | None = None
    node: str | None = None


@dataclass(slots=True)
class RMApp:
    submission: Submission
    queue: str
    submitted_ms: int
    state: str = "SUBMITTED"
    rm_state: str = "SUBMITTED"
    final_status: str = "UNDEFINED"
    diagnostics: str = ""
    launched_ms: int | None = None  # engine ms (negative: before a restart); None: not yet
    finished_ms: int | None = None
    attempts: list[RMAttempt] = field(default_factory=list)
    # resource-seconds (RMAppAttemptMetrics): resource·ms of ended containers, by type index
    used_ms: list[int] = field(default_factory=list)
    preempted_ms: list[int] = field(default_factory=list)
    running: dict[str, tuple[Resource, int]] = field(default_factory=dict)  # container → (r, since)
    kill_diagnostics: str | None = None
    exit_failures: int = 0  # task containers that exited non-zero (distributed shell)
    progress: float | None = None  # as an AM of the AM protocol says (None: 0, or 1 ended)


@dataclass(slots=True)
class RMNode:
    id: str
    rack: str
    capacity: Resource
    state: str = "RUNNING"
    # engine ms; None: it heartbeats with the others (RMRecords.heartbeat_ms), as every
    # active node does from the first heartbeat round after it registered
    last_heartbeat_ms: int | None = 0


class RMRecords:
    """The RM's records (see the module docstring)."""

    def __init__(self, cluster_timestamp: int, types: ResourceTypes,
                 max_completed: int = MAX_COMPLETED_APPS) -> None:
        self.cluster_timestamp = cluster_timestamp
        self.types = types
        self.apps: dict[str, RMApp] = {}
        # RMAppManager.completedApps: the ended apps kept, in the order they ended; past
        # max_completed the oldest is forgotten (checkAppNumCompletedLimit)
        self.max_completed = max_completed
        self._completed: deque[str] = deque()
        self.forgotten: list[str] = []  # apps forgotten since the loop last took them
        self.nodes: dict[str, RMNode] = {}
        self._counter = 0
        self._ids = threading.Lock()  # the counter's
        self.heartbeat_ms = 0  # engine ms: when the active nodes last heartbeat
        self._node_views: tuple[RMNodeView, ...] | None = None  # None: a node was written
        self._views_by_node: dict[str, RMNodeView] = {}
        # ended apps' views, with what they were made from (_ended_key)
        self._ended_views: dict[str, tuple[tuple[object, ...], RMAppView]] = {}

    # -- ids ---------------------------------------------------------------------------------------

    def new_application_id(self) -> str:
        """``ClientRMService.getNewApplication``: the cluster timestamp and a counter."""
        with self._ids:
            self._counter += 1
            app_id = f"application_{self.cluster_timestamp}_{self._counter:04d}"
        return app_id

    # -- requests ----------------------------------------------------------------------------------

    def submitted(self, submission: Submission, now: int) -> RMApp:
        app = RMApp(submission, submission.queue, now,
                    used_ms=[0] * len(self.types), preempted_ms=[0] * len(self.types))
        app.attempts.append(RMAttempt(1, now))
        self.apps[submission.application_id] = app
        return app

    def restored(self, app_id: str, app: RMApp) -> None:
        """An app read back from the state store at a restart (an ended one counts among
        the completed, as its recovered final state makes RMAppManager count it)."""
        self.apps[app_id] = app
        if app.state in _ENDED:
            self._completed_now(app_id)

    def take_forgotten(self) -> list[str]:
        """The apps forgotten since the last call, oldest first."""
        forgotten, self.forgotten = self.forgotten, []
        return forgotten

    def _completed_now(self, app_id: str) -> None:
        """``RMAppManager.finishApplication`` then ``checkAppNumCompletedLimit``."""
        self._completed.append(app_id)
        while len(self._completed) > max(self.max_completed, 0):
            oldest = self._completed.popleft()
            self.apps.pop(oldest, None)
            self._ended_views.pop(oldest, None)
            self.forgotten.append(oldest)

    def attempt_failed(self, app_id: str, now: int) -> None:
        """Its attempt did not survive a restart (its AM is gone): FAILED, and a new one,
        as ``RMAppAttemptImpl`` fails an attempt whose AM container is lost."""
        app = self.apps[app_id]
        if app.attempts:
            attempt = app.attempts[-1]
            attempt.state, attempt.finish_ms = "FAILED", now
        app.attempts.append(RMAttempt(len(app.attempts) + 1, now))
        app.state = app.rm_state = "ACCEPTED"

    def kill_requested(self, app_id: str, diagnostics: str | None) -> None:
        app = self.apps[app_id]
        user = app.submission.user
        message = f"Application {app_id} was killed by user {user}"
        if diagnostics:
            message += f" with diagnostic message: {diagnostics}"
        app.kill_diagnostics = message

    def failed(self, app_id: str, diagnostics: str, now: int) -> None:
        """Ended by the server itself (its AM failed, a task failed its last attempt)."""
        app = self.apps[app_id]
        self._end(app, "FAILED", "FAILED", now)
        app.diagnostics = diagnostics

    def am_report(self, app_id: str, report: AMReport, now: int) -> None:
        """What an AM of the AM protocol told the RM: registered (RUNNING, as
        ``RMAppImpl`` once ``AttemptRegistered``), its final status and diagnostics, its
        progress, and an app failed for good when its last attempt failed."""
        app = self.apps[app_id]
        if app.state in ("FINISHED", "KILLED", "FAILED") and not report.failed:
            if app.state == "FINISHED" and report.final_status != "UNDEFINED":
                app.final_status = report.final_status
                app.diagnostics = report.diagnostics or app.diagnostics
            return
        if report.failed:
            if app.state != "FAILED":
                self._end(app, "FAILED", "FAILED", now)
            app.diagnostics = report.diagnostics or app.diagnostics
            return
        app.progress = report.progress
        if app.state == "RUNNING" and not report.registered:
            app.state = app.rm_state = "ACCEPTED"  # the AM runs but has not registered yet
        elif app.state == "ACCEPTED" and report.registered:
            app.state = app.rm_state = "RUNNING"

    def add_node(self, node_id: str, rack: str, capacity: Resource, now: int) -> None:
        self.nodes[node_id] = RMNode(node_id, rack, capacity, last_heartbeat_ms=now)
        self._node_views = None

    def node_left(self, node_id: str, state: str) -> None:
        node = self.nodes.get(node_id)
        if node is not None:
            node.state = state
            if state not in _HEARTBEATING and node.last_heartbeat_ms is None:
                node.last_heartbeat_ms = self.heartbeat_ms  # its last, kept from now on
            self._node_views = None

    def resize_node(self, node_id: str, capacity: Resource) -> None:
        self.nodes[node_id].capacity = capacity
        self._node_views = None

    def heartbeats_at(self, heartbeat_ms: int) -> None:
        """Every active node (RUNNING, DECOMMISSIONING) heartbeat at ``heartbeat_ms`` (the
        server's NodeManagers heartbeat together, once per interval): the nodes' views
        name no time of their own then, so they stay the same objects from one heartbeat
        round to the next."""
        if heartbeat_ms == self.heartbeat_ms:
            return
        self.heartbeat_ms = heartbeat_ms
        for node in self.nodes.values():
            if node.state in _HEARTBEATING and node.last_heartbeat_ms is not None:
                node.last_heartbeat_ms = None  # registered since the last round
                self._node_views = None

    # -- the engine's events -----------------------------------------------------------------------

    def on_events(self, events: Iterable[Event]) -> None:
        for event in events:
            if isinstance(event, NodeDecommissioned):
                self.node_left(event.node, "DECOMMISSIONED")
                continue
            app = self.apps.get(getattr(event, "app", ""))
            if app is None:
                continue
            now = event.time
            if isinstance(event, AppSubmitted):
                app.queue = event.queue
                app.state = app.rm_state = "ACCEPTED"
            elif isinstance(event, AppRejected):
                # the scheduler refused it before RMAppImpl's APP_ACCEPTED made an attempt:
                # no attempt, no tracking URL, no usage report (an empty resourceSecondsMap)
                app.attempts.clear()
                placed = event.reason.details.get("queue")
                if isinstance(placed, str) and placed:
                    # RMAppManager put the placed queue in the submission context before the
                    # scheduler refused the app: the FAILED app shows it (root.a, not a)
                    app.queue = placed
                app.diagnostics = _rejected(event, app)
                self._end(app, "FAILED", "FAILED", now)
            elif isinstance(event, ContainerAllocated):
                app.running[event.container] = (event.resource, now)
                if event.am:
                    attempt = app.attempts[-1]
                    attempt.container, attempt.node, attempt.state = (event.container,
                                                                      event.node, "RUNNING")
                    if app.launched_ms is None:
                        app.launched_ms = now
                    app.state = app.rm_state = "RUNNING"
            elif isinstance(event, ContainerRecovered):  # running since before a restart
                app.running[event.container] = (event.resource, now)
                if event.am:  # its AM runs on (for the AM protocol: until it re-registers)
                    attempt = app.attempts[-1]
                    attempt.container, attempt.node, attempt.state = (event.container,
                                                                      event.node, "RUNNING")
                    app.state = app.rm_state = "RUNNING"
            elif isinstance(event, ContainerCompleted | ContainerPreempted):
                self._container_ended(app, event.container, now,
                                      preempted=isinstance(event, ContainerPreempted))
            elif isinstance(event, AppAttemptRestarted):
                old = app.attempts[-1]
                old.state, old.finish_ms = "FAILED", now
                app.attempts.append(RMAttempt(old.number + 1, now))
                app.state = app.rm_state = "ACCEPTED"
            elif isinstance(event, AppFinished):
                if event.state == "killed":
                    app.diagnostics = app.kill_diagnostics or "Application killed by user."
                    self._end(app, "KILLED", "KILLED", now)
                elif app.state != "FAILED":
                    final = "FAILED" if app.exit_failures else "SUCCEEDED"
                    self._end(app, "FINISHED", final, now)

    def _container_ended(self, app: RMApp, container: str, now: int, *, preempted: bool) -> None:
        held = app.running.pop(container, None)
        if held is None:
            return
        resource, since = held
        for i, amount in enumerate(resource.values):
            app.used_ms[i] += amount * (now - since)
            if preempted:
                app.preempted_ms[i] += amount * (now - since)

    def _end(self, app: RMApp, state: str, final: str, now: int) -> None:
        if app.state not in _ENDED:
            self._completed_now(app.submission.application_id)
        for container in list(app.running):
            self._container_ended(app, container, now, preempted=False)
        app.state = app.rm_state = state
        app.final_status = final
        app.finished_ms = now
        if app.attempts:
            attempt = app.attempts[-1]
            attempt.state = {"FINISHED": "FINISHED", "KILLED": "KILLED"}.get(state, "FAILED")
            attempt.finish_ms = now

    # -- the views ---------------------------------------------------------------------------------

    def freeze(self, now: int, preempted: dict[str, tuple[int, int, Resource | None]]
               ) -> tuple[tuple[RMAppView, ...], tuple[RMNodeView, ...]]:
        """The views at engine time ``now``; ``preempted``: per app the engine's (AM
        containers, all containers, resource) taken by preemption."""
        kept, ended = self._ended_views, {}
        apps = []
        for app_id, app in self.apps.items():
            taken = preempted.get(app_id, (0, 0, None))
            if app.state in _ENDED and not app.running:
                key = _ended_key(app, taken)
                held = kept.get(app_id)
                view = held[1] if held is not None and held[0] == key else \
                    self._app_view(app_id, app, now, taken)
                ended[app_id] = (key, view)
            else:
                view = self._app_view(app_id, app, now, taken)
            apps.append(view)
        self._ended_views = ended
        return tuple(apps), self._nodes_view()

    def _app_view(self, app_id: str, app: RMApp, now: int,
                  preempted: tuple[int, int, Resource | None]) -> RMAppView:
        ts, names, s = self.cluster_timestamp, self.types.names, app.submission
        used = list(app.used_ms)
        for resource, since in app.running.values():  # running containers count so far
            for i, amount in enumerate(resource.values):
                used[i] += amount * (now - since)
        am_taken, taken, taken_resource = preempted
        attempts = tuple(
            AttemptView(a.number, ts + a.start_ms,
                        0 if a.finish_ms is None else ts + a.finish_ms, a.state,
                        a.container, a.node,
                        None if a.node is None else node_http_address(a.node))
            for a in app.attempts)
        return RMAppView(
            app_id, s.name, s.user, app.queue, app.state, app.rm_state, app.final_status,
            1.0 if app.state in _ENDED else app.progress or 0.0,
            app.diagnostics,
            s.application_type, s.tags, s.priority, s.unmanaged, ts + app.submitted_ms,
            -1 if app.launched_ms is None else ts + app.launched_ms,
            ts + app.finished_ms if app.finished_ms is not None else 0, attempts,
            tuple((n, u // 1000) for n, u in zip(names, used, strict=True))
            if app.attempts else (),
            tuple((n, p // 1000) for n, p in zip(names, app.preempted_ms, strict=True)
                  if any(app.preempted_ms)),
            am_taken, taken - am_taken, taken_resource, s.max_attempts,
            s.node_label_expression)

    def _nodes_view(self) -> tuple[RMNodeView, ...]:
        views = self._node_views
        if views is None:  # a node was written: its view made again, the others kept
            ts, kept, made = self.cluster_timestamp, self._views_by_node, {}
            for n in sorted(self.nodes.values(), key=lambda n: n.state not in _HEARTBEATING):
                beat = None if n.last_heartbeat_ms is None else ts + n.last_heartbeat_ms
                view = kept.get(n.id)
                if view is None or (view.state, view.last_heartbeat_ms, view.capacity,
                                    view.rack) != (n.state, beat, n.capacity, n.rack):
                    view = RMNodeView(n.id, n.id.rpartition(":")[0] or n.id,
                                      node_http_address(n.id), n.rack, n.state, beat,
                                      n.capacity)
                made[n.id] = view
            self._views_by_node = made
            views = self._node_views = tuple(made.values())
        return views


_ENDED = ("FINISHED", "FAILED", "KILLED")
_HEARTBEATING = ("RUNNING", "DECOMMISSIONING")


def _ended_key(app: RMApp, preempted: tuple[int, int, Resource | None]) -> tuple[object, ...]:
    """Everything an ended app's view is made from that may still be written after it ended
    (an AM's late report, the diagnostics of the server's own AM, a restart's failed
    attempt); its submission, its resource-seconds and its ended attempts are fixed."""
    last = app.attempts[-1] if app.attempts else None
    return (app.state, app.rm_state, app.final_status, app.diagnostics, app.queue,
            app.finished_ms, app.launched_ms, len(app.attempts),
            None if last is None else (last.state, last.finish_ms, last.container, last.node),
            preempted)


def _rejected(event: AppRejected, app: RMApp) -> str:
    """The diagnostics YARN gives a FAILED app (``FairScheduler.addApplication``)."""
    user = app.submission.user
    if event.reason.kind is Rejection.BY_PLACEMENT_RULES:
        return (f"Reject application {event.app} submitted by user {user} application "
                "rejected by placement rules.")
    if event.reason.kind is Rejection.ACL_DENIED:
        return (f"User {user} does not have permission to submit {event.app} to queue "
                f"{app.queue}")
    return str(event.reason)

"""A :class:`~fairshare.server.control.Control` for the REST tests: a real engine driven by
hand (nodes, heartbeats, update passes), its snapshots built as the loop builds them
(``server_snapshot`` + ``rm_records_of``), and the RM's side — ids, names, kills, moves —
kept the way ``RMAppManager``/``RMAppImpl`` keep them. Not the engine loop: enough of an RM
to answer every route."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.yarnsite import load_site
from fairshare.core import ContainerRequest, Engine
from fairshare.resources.vector import DEFAULT_TYPES, Resource
from fairshare.server.control import KillResult, Refused, StreamedEvent, bad_request, not_found
from fairshare.server.snapshots import rm_records_of, server_snapshot
from fairshare.server.submission import Submission
from fairshare.server.view import AttemptView, RMAppView, ServerSnapshot

REPO = Path(__file__).resolve().parents[3]
CONTENTION_XML = REPO / "rmharness" / "scripts" / "contention.xml"
TS = 1796196824096  # the recorded fair-preempted case's cluster timestamp
NODES = tuple(f"127.0.0.1:{port}" for port in range(45454, 45458))


def r(memory: int, vcores: int) -> Resource:
    return DEFAULT_TYPES.of({"memory-mb": memory, "vcores": vcores})


def contention_engine(allocations: str | None = None) -> Engine:
    """The harness's cluster (rmharness/README.md): 4 nodes of 8192 MB / 8 vcores, the
    contention allocation file, preemption on, 1 s before a warned container is killed."""
    site = load_site(None, {"yarn.scheduler.fair.preemption": "true",
                            "yarn.scheduler.fair.waitTimeBeforeKill": "1000"})
    text = allocations if allocations is not None else CONTENTION_XML.read_text()
    engine = Engine(site, parse_allocations_text(text, "contention.xml", site.resource_types))
    for name in NODES:
        engine.add_node(name, r(8192, 8))
    return engine


class FakeControl:
    """Control over ``engine``; ``tick`` moves its clock as the harness's heartbeats do."""

    def __init__(self, engine: Engine, cluster_timestamp: int = TS) -> None:
        self.engine = engine
        self.ts = cluster_timestamp
        self.issued: list[str] = []
        self.numbers = 0  # the RM's app counter: ClientRMService.getNewApplicationId
        self.submitted: dict[str, Submission] = {}
        self.killing: set[str] = set()  # kills queued and not yet seen done (FINAL_SAVING)
        self.moves: list[tuple[str, str, str]] = []
        self.masters: dict[tuple[str, int], AttemptView] = {}  # attempts that had an AM

    def tick(self, heartbeats: int) -> None:
        """``heartbeats`` rounds of 150 ms (every node once), an update pass each 450 ms."""
        for _ in range(heartbeats):
            self.engine.advance(150)
            self.engine.heartbeat_all()
            if self.engine.now % 450 == 0:
                self.engine.update()

    def _next_id(self) -> str:
        self.numbers += 1
        return f"application_{self.ts}_{self.numbers:04d}"

    def submit_direct(self, queue: str, user: str, am: Resource,
                      asks: Sequence[ContainerRequest] = ()) -> str:
        """An app as the harness submits one (no REST): the next id."""
        app_id = self._next_id()
        self.engine.submit(app_id, queue, user, am, asks)
        return app_id

    # -- Control ---------------------------------------------------------------------------

    def snapshot(self) -> ServerSnapshot:
        snap = self.engine.snapshot()
        apps, nodes = rm_records_of(snap, self.ts)
        return server_snapshot(self.engine, self.ts, self.ts + snap.time,
                               tuple(self._rm(a) for a in apps), nodes)

    def _rm(self, a: RMAppView) -> RMAppView:
        # RMAppAttemptImpl keeps its master container after the container ended;
        # rm_records_of only sees live ones
        attempts = []
        for t in a.attempts:
            seen = self.masters.get((a.id, t.number))
            if t.container is not None:
                self.masters[(a.id, t.number)] = t
            elif seen is not None:
                t = dataclasses.replace(t, container=seen.container, node=seen.node,
                                        node_http=seen.node_http)
            attempts.append(t)
        a = dataclasses.replace(a, attempts=tuple(attempts))
        sub = self.submitted.get(a.id)
        if sub is not None:
            a = dataclasses.replace(a, name=sub.name, application_type=sub.application_type,
                                    tags=sub.tags, unmanaged=sub.unmanaged)
        if (a.preempted_resource is not None and any(a.preempted_resource.values)
                and not a.preempted_resource_seconds):
            # RMAppAttemptMetrics keeps preempted resource-seconds per type once a container
            # was preempted; rm_records_of has no clock of them (the loop's job): 0 each
            a = dataclasses.replace(a, preempted_resource_seconds=tuple(
                (name, 0) for name in self.engine.types.names))
        if a.id in self.killing and a.state == "KILLED":
            a = dataclasses.replace(a, rm_state="FINAL_SAVING")
        return a

    def new_application(self) -> tuple[str, Resource]:
        app_id = self._next_id()
        self.issued.append(app_id)
        return app_id, self.engine.site.maximum_allocation

    def submit(self, submission: Submission) -> None:
        if submission.application_id not in self.issued:
            raise bad_request(f"Application with id {submission.application_id} was not "
                              "handed out by new-application")
        if submission.application_id in self.submitted:
            raise bad_request(f"Application with id {submission.application_id} is already "
                              "present! Cannot add a duplicate!")
        self.submitted[submission.application_id] = submission
        asks = [ContainerRequest(g.count, g.resource, g.priority) for g in submission.tasks]
        am = None if submission.unmanaged else submission.am_resource
        self.engine.submit(submission.application_id, submission.queue, submission.user,
                           am, asks)

    def kill(self, app_id: str, user: str, diagnostics: str | None) -> KillResult:
        app = self.snapshot().app(app_id)
        if app is None:
            raise not_found(f"app with id: {app_id} not found")
        if app.state in ("FINISHED", "FAILED", "KILLED"):
            self.killing.discard(app_id)  # the final state is stored: YARN answers it
            return KillResult(app.state, True)
        self.engine.kill(app_id)
        self.killing.add(app_id)
        return KillResult("FINAL_SAVING", False)

    def move(self, app_id: str, queue: str, user: str) -> str:
        app = self.snapshot().app(app_id)
        if app is None:
            raise not_found(f"app with id: {app_id} not found")
        if app.state in ("FINISHED", "FAILED", "KILLED"):
            raise Refused(400, "", "", f"App in {app.state} state cannot be moved.",
                          plain=True)
        known = {q.name: q for q in self.engine.snapshot().queues}
        target = queue if queue.startswith("root.") else f"root.{queue}"
        if target not in known or not known[target].leaf:  # as EngineLoop.move, ACLs off
            raise Refused(503, "UndeclaredThrowableException",
                          "java.lang.reflect.UndeclaredThrowableException", None)
        self.engine.move(app_id, target)
        self.moves.append((app_id, target, user))
        return target

    def events_since(self, seq: int, timeout_s: float) -> Sequence[StreamedEvent]:
        return ()

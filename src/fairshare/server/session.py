"""A served session is a run: its outputs are what ``fairshare run -o`` writes (docs/outputs.md),
so the tools that answer questions about a run (``explain``, ``report``, ``compare``) read it.

:class:`SessionOutputs` is an observer of the engine loop's simulation (``SimObserver``):
``events.jsonl`` streams as the loop hands the events over (the run's own
:class:`~fairshare.sim.record.outputs.EventWriter`), the timeline is sampled on the
simulation's snapshot ticks (a :class:`~fairshare.sim.record.recorder.SimRecorder` feeding a
:class:`~fairshare.sim.record.outputs.TimelineWriter`), ``snapshots.json`` is ``[]`` (a session
has no ``snapshot`` steps) and ``summary.json`` is written when asked
(:meth:`SessionOutputs.write_summary`: what a run stopped at that moment would write, the
session going on) and at the end (:meth:`SessionOutputs.close`).

What differs from ``fairshare run``: the files are written in place as the session goes, not
staged (a session's outputs are read while it runs); ``timeline.parquet`` is readable only once
closed (Parquet's footer comes last); the summary's apps are the app model's and also those it
does not know (submitted directly, an AM alone), whose progress is read from their events.

Every method runs on the engine thread (the loop's ``_call``): the summary reads the engine,
and :meth:`SessionOutputs.explain` reads ``events.jsonl`` while nothing appends to it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TextIO

from fairshare.core import (
    AppFinished,
    AppRejected,
    AppSubmitted,
    Completion,
    ContainerAllocated,
    ContainerCompleted,
    ContainerPreempted,
    ContainerRecovered,
    Event,
)
from fairshare.resources.vector import Resource
from fairshare.server.control import not_found
from fairshare.server.view import engine_container_id
from fairshare.sim.record.outputs import (
    EVENTS,
    SNAPSHOTS,
    SUMMARY,
    EventWriter,
    TimelineWriter,
    write_snapshots,
    write_summary,
)
from fairshare.sim.record.recorder import SimRecorder
from fairshare.sim.record.summary import Progress, app_entry, build_summary
from fairshare.sim.record.summary_model import AppEntry, ScenarioEntry, Summary
from fairshare.sim.run.loop import Simulation
from fairshare.sim.sources.workload import AppSpec
from fairshare.workbench.explain.model import Run
from fairshare.workbench.explain.queue import Explanation, explain, load_run

SESSION_NAME = "serve session"  # the journal's scenario name (server/journal.py)
# what the loop samples at: fairshare run's default (run.snapshot-every-ms), and a multiple of
# the heartbeat interval, so a sample sees each heartbeat's outcome
SNAPSHOT_EVERY_MS = 1000

Subject = Literal["app", "container"]


class UnknownSubject(LookupError):
    """No app or container of that id in the session's events (or its summary)."""


@dataclass(slots=True)
class _DirectApp:
    """An app the app model does not run (submitted directly: an AM alone, an external AM):
    its progress as the summary reads it (``Progress``), from its events. The app model's
    tasks are its workload's; here each container other than the AM is a task, one that was
    preempted or lost not counted (what it ran is lost work; the app asks for it again)."""

    spec: AppSpec
    submitted_ms: int | None = None
    started_ms: int | None = None  # first container
    first_task_ms: int | None = None
    finished_ms: int | None = None
    tasks_done: int = 0
    total_tasks: int = 0
    preempted_containers: int = 0  # AM included, as the app model counts it
    lost_work_ms: int = 0  # run time of task containers preempted or lost


class SessionOutputs:
    """``simulation``'s outputs in ``outdir`` (see the module docstring). The simulation must
    sample (``snapshot_every_ms``, :data:`SNAPSHOT_EVERY_MS` recommended); the loop adds this
    to its observers before the first event it should write (the nodes' registration)."""

    def __init__(self, outdir: Path, simulation: Simulation, *,
                 scenario: ScenarioEntry | None = None) -> None:
        if simulation.snapshot_ms is None:
            raise ValueError("a session's simulation must sample: give it snapshot_every_ms")
        self.outdir = outdir
        self.simulation = simulation
        self.engine = simulation.engine
        self.scenario = scenario or ScenarioEntry(SESSION_NAME, "", 0, ())
        outdir.mkdir(parents=True, exist_ok=True)
        (outdir / SUMMARY).unlink(missing_ok=True)  # an earlier run's, until ours is written
        write_snapshots(outdir / SNAPSHOTS, [])
        self._events_file: TextIO = (outdir / EVENTS).open("w", encoding="utf-8",
                                                           newline="\n")
        self._events = EventWriter(self._events_file, self.engine.types)
        self._timeline = TimelineWriter(outdir)
        self.recorder = SimRecorder(self.engine, simulation.snapshot_ms, self._timeline)
        # every app in submission order: its own progress, None for the app model's, or
        # the summary entry of an ended app the RM forgot (forget)
        self._apps: dict[str, _DirectApp | AppEntry | None] = {}
        self._held: dict[str, tuple[int, bool]] = {}  # direct apps' containers: since, am
        self.closed = False

    @classmethod
    def attached(cls, outdir: Path, simulation: Simulation, *,
                 scenario: ScenarioEntry | None = None) -> SessionOutputs:
        """The outputs of ``simulation``, added to its observers (after those it has)."""
        outputs = cls(outdir, simulation, scenario=scenario)
        simulation.observers = (*simulation.observers, outputs)
        return outputs

    # -- SimObserver ---------------------------------------------------------------------------

    def on_events(self, events: Sequence[Event]) -> None:
        if events:
            self._events.on_events(events)
            # whole lines on disk after every batch, as the journal: a reader following the
            # file (or a server killed) has every event handed over so far
            self._events_file.flush()
        self.recorder.on_events(events)
        for event in events:
            self._direct(event)

    def on_snapshot(self, now_ms: int) -> None:
        self.recorder.on_snapshot(now_ms)

    def on_end(self, now_ms: int) -> None:
        self.close(now_ms)

    # -- the apps the app model does not know ----------------------------------------------------

    def _direct(self, event: Event) -> None:
        if isinstance(event, AppSubmitted | AppRejected):
            if event.app in self._apps:
                return
            if event.app in self.simulation.apps:
                self._apps[event.app] = None
                return
            am: Resource | None = event.am if isinstance(event, AppSubmitted) else None
            self._apps[event.app] = _DirectApp(
                AppSpec(event.app, 0, event.requested_queue, event.user, am, ()),
                submitted_ms=event.time)
            return
        if not isinstance(event, ContainerAllocated | ContainerRecovered | ContainerCompleted
                          | ContainerPreempted | AppFinished):
            return
        app = self._apps.get(event.app)
        if not isinstance(app, _DirectApp):
            return
        if isinstance(event, AppFinished):
            app.finished_ms = event.time
        elif isinstance(event, ContainerAllocated | ContainerRecovered):
            self._held[event.container] = (event.time, event.am)
            if app.started_ms is None:
                app.started_ms = event.time
            if not event.am:
                app.total_tasks += 1
                if app.first_task_ms is None:
                    app.first_task_ms = event.time
        else:
            since, was_am = self._held.pop(event.container, (event.time, event.am))
            if isinstance(event, ContainerPreempted):
                app.preempted_containers += 1
            if was_am:
                return
            # lost work as the app model counts it: a task preempted, or lost with its node
            # or its attempt, ran for nothing
            if isinstance(event, ContainerPreempted) or event.status in (
                    Completion.LOST, Completion.ATTEMPT_FAILED):
                app.lost_work_ms += event.time - since
                app.total_tasks -= 1
            elif event.status is Completion.RELEASED:
                app.tasks_done += 1

    def forget(self, app_id: str) -> None:
        """The RM forgot the ended app ``app_id`` (``max-completed-applications``), and the
        engine and the app model are to let go of it: its summary entry is made now and kept
        in their place, as it is final (an ended app's times and state change no more). A
        summary stays the one a run that forgot nothing would write; one entry is what a
        long session keeps of each app."""
        held = self._apps.get(app_id)
        if app_id not in self._apps or isinstance(held, AppEntry):
            return
        progress = self.simulation.apps.get(app_id) if held is None else held
        if progress is None or self.engine.state.apps.get(app_id) is None:
            return
        self._apps[app_id] = app_entry(self.engine, self.recorder, progress)
        self.recorder.forget(app_id)

    def _progress(self) -> dict[str, Progress | AppEntry]:
        """Every app, in submission order (then the app model's not submitted yet)."""
        known = self.simulation.apps
        apps: dict[str, Progress | AppEntry] = {}
        for app_id, held in self._apps.items():
            apps[app_id] = known[app_id] if held is None else held
        for app_id, progress in known.items():
            apps.setdefault(app_id, progress)
        return apps

    # -- the summary -------------------------------------------------------------------------------

    def summary(self, now_ms: int) -> Summary:
        """``summary.json`` as a run stopped at ``now_ms`` would write it; the live recorder
        goes on as it was (:meth:`SimRecorder.ended`)."""
        if now_ms < self.engine.now:
            raise ValueError(f"a summary at {now_ms} ms, before the engine's clock "
                             f"({self.engine.now} ms)")
        recorder = self.recorder if self.closed else self.recorder.ended(now_ms)
        return build_summary(self.engine, recorder, self._progress(), self.scenario)

    def write_summary(self, now_ms: int | None = None) -> Summary:
        """Flush ``events.jsonl`` and write ``summary.json`` as of ``now_ms``: the engine's
        clock (the default; a later time only when nothing falls due before it, or the
        summary tells of a time the engine has not run). Written beside and renamed into
        place: a reader never sees half of it."""
        if self.closed:
            raise ValueError("the session's outputs are closed")
        self._events_file.flush()
        summary = self.summary(self.engine.now if now_ms is None else now_ms)
        self._write(summary)
        return summary

    def _write(self, summary: Summary) -> None:
        path = self.outdir / SUMMARY
        partial = path.with_name(f".{SUMMARY}.{os.getpid()}.partial")
        write_summary(partial, summary)  # the bytes fairshare run writes
        os.replace(partial, path)

    def close(self, now_ms: int) -> None:
        """The end of the session at ``now_ms``: the recorder closes its intervals (as a run's
        end does), the summary is written, the files closed. Once."""
        if self.closed:
            return
        self.recorder.on_end(now_ms)
        self._events.on_end(now_ms)
        self.closed = True
        try:
            self._write(build_summary(self.engine, self.recorder, self._progress(),
                                      self.scenario))
        finally:
            self._events_file.close()
            self._timeline.close()

    # -- explain -----------------------------------------------------------------------------------

    def explain(self, subject: str, kind: Subject | None = None) -> Explanation:
        """``fairshare explain --app`` / ``--container`` on the outputs as they are now: the
        events flushed and the summary written at the engine's clock, then the run loaded as
        ``fairshare explain`` loads it. ``kind`` None: a container when the id is a
        container's (``container_…``). A container may be named in YARN's form
        (``container_<ts>_<n>_<attempt>_<seq>``, the REST API's) or the engine's (the events').
        :class:`UnknownSubject` when the session has no such app or container."""
        if kind is None:
            kind = "container" if subject.startswith("container_") else "app"
        if not self.closed:
            self.write_summary()
        names = [subject]
        if kind == "container" and engine_container_id(subject) != subject:
            names.insert(0, engine_container_id(subject))  # YARN's form: the engine's first
        for name in names:
            run = load_run(self.outdir, name)
            if _mentioned(run, kind, name):
                return explain(run, kind, name)
        raise UnknownSubject(f"{kind} with id: {subject} not found")

    def explain_json(self, subject: str, kind: Subject | None = None) -> dict[str, Any]:
        """:meth:`explain` as the REST API answers it (``Explanation.as_json``); an unknown
        app or container is YARN's 404 (``NotFoundException``), as for ``/apps/{id}``."""
        try:
            return self.explain(subject, kind).as_json()
        except UnknownSubject as e:
            raise not_found(str(e)) from None


def _mentioned(run: Run, kind: Subject, name: str) -> bool:
    """Whether explain has something to say of ``name``: the workbench's own test (an app in
    the summary or its events, a container in its events), asked first so that an unknown id
    is told apart from a damaged file (both are the workbench's ``ConfigError``)."""
    if kind == "container":
        return any(e.get("container") == name for e in run.events)
    return name in run.summary.apps or any(_of_app(run.events, name))


def _of_app(events: Sequence[dict[str, Any]], app: str) -> Iterator[bool]:
    return (True for e in events if e.get("app") == app or e.get("beneficiary-app") == app)


__all__ = ["SESSION_NAME", "SNAPSHOT_EVERY_MS", "SessionOutputs", "Subject", "UnknownSubject"]

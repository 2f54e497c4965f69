"""Running a scenario: its scripted ``steps``, then its workload (docs/scenario-format.md).

In scripted mode nothing happens on its own: each step is engine commands
(:mod:`fairshare.core.commands`; a ``heartbeat`` step one per time), and only the kill
timers of preemption fire as ``advance`` moves the clock. ``expect`` steps compare the current
snapshot with what the scenario says; a failure is recorded (as an ``expect-failed`` event too)
and the run goes on. A step that cannot be carried out (an unknown app or node, a resource type
the cluster does not have) stops the run with a ``file:line`` error.

A workload then runs in the simulator (:mod:`fairshare.sim.run.loop`) from where the steps left the
clock. Its events are not kept: with an output directory they stream to ``events.jsonl`` after
the steps' records, and the timeline to ``timeline.csv``/``.parquet``; a
:class:`~fairshare.sim.record.recorder.SimRecorder` samples the queues for ``summary.json`` (written
with ``-o``, and in :attr:`RunResult.summary` either way). A scripted-only run writes
``events.jsonl`` and ``snapshots.json`` only (docs/outputs.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from fairshare.config.allocation import allocation_text, read_allocations
from fairshare.config.errors import ConfigError
from fairshare.core import (
    MAX_TIME_MS,
    AddNode,
    Advance,
    Ask,
    Command,
    ContainerRequest,
    Engine,
    EngineError,
    Event,
    Finish,
    Heartbeat,
    HeartbeatAll,
    HeartbeatTick,
    Kill,
    Move,
    RecoverContainer,
    Release,
    Reload,
    ReloadFailed,
    RemoveNode,
    ResizeNode,
    Submit,
    Update,
    apply_command,
    command_from_json,
    event_record,
)
from fairshare.resources.vector import Resource
from fairshare.sim.parse.expect import check
from fairshare.sim.parse.schema_values import MAX_HEARTBEATS_PER_STEP
from fairshare.sim.parse.specs import MinimumSpan, WorkloadApp, minimum_span
from fairshare.sim.parse.steps import (
    AddNodeStep,
    AdvanceStep,
    CommandStep,
    ExpectStep,
    FinishStep,
    HeartbeatStep,
    KillStep,
    MoveStep,
    RecoverContainerStep,
    ReleaseStep,
    ReloadStep,
    RemoveNodeStep,
    RequestSpec,
    RequestStep,
    ResizeNodeStep,
    RunSpec,
    Scenario,
    SnapshotStep,
    Step,
    SubmitStep,
    UpdateStep,
)
from fairshare.sim.record.outputs import (
    EVENTS,
    SNAPSHOTS,
    SUMMARY,
    EventWriter,
    TimelineWriter,
    staged_outputs,
    write_outputs,
    write_snapshots,
    write_summary,
)
from fairshare.sim.record.recorder import SimRecorder
from fairshare.sim.record.snapshot import snapshot
from fairshare.sim.record.summary import build_summary
from fairshare.sim.record.summary_model import ScenarioEntry, Summary
from fairshare.sim.run.build import PreparedRun, build_engine, prepare_run, scenario_resource
from fairshare.sim.run.loop import Simulation
from fairshare.sim.run.model import AppRefused, SimObserver
from fairshare.sim.run.recovered import with_running
from fairshare.sim.sources.workload import AppSpec, TaskGroup

SECTIONS = {"app": "apps", "node": "nodes", "queue": "queues"}
MAX_IMPLICIT_SPAN_MS = 7 * 86_400_000  # a longer simulation needs run.until-ms
MAX_TIMELINE_SAMPLES = 10_000_000  # per queue: run.snapshot-every-ms over the run's span


def _days(ms: int) -> str:
    return f"{ms:,} ms ({ms / 86_400_000:,.1f} days)"


@dataclass(frozen=True, slots=True)
class ExpectFailure:
    line: int
    subject: str
    mismatches: tuple[str, ...]

    def describe(self, source: str) -> str:
        return f"{source}:{self.line}: expect {self.subject}: " + "; ".join(self.mismatches)


@dataclass(slots=True)
class RunResult:
    engine: Engine
    # the steps' events.jsonl records, in order (a simulation's events are streamed, not kept)
    records: list[dict[str, Any]] = field(default_factory=list)
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    failures: list[ExpectFailure] = field(default_factory=list)
    expectations: int = 0
    events: int = 0  # lines of events.jsonl: the records, then the simulation's events
    summary: Summary | None = None  # summary.json; None without a workload
    outputs: list[Path] = field(default_factory=list)  # files written
    # len(records) before the first step, then after each step: the records of step i are
    # records[step_bounds[i]:step_bounds[i + 1]] (what the differential oracle compares by)
    step_bounds: list[int] = field(default_factory=list)


class ScriptRunner:
    """Carries out steps one by one, then simulates the workload; :meth:`run` returns what the
    CLI shows. With ``outdir`` the outputs are written there; ``observers`` (a progress bar)
    also watch the simulation. A scenario is prepared here; a :class:`PreparedRun` was by the
    caller (the CLI, which checks its configuration first), and is not read again."""

    def __init__(self, scenario: Scenario | PreparedRun, outdir: Path | None = None,
                 observers: Sequence[SimObserver] = (), *, event_driven: bool = True,
                 until_for_ms: int | None = None) -> None:
        prepared = scenario if isinstance(scenario, PreparedRun) else prepare_run(scenario)
        self.scenario = prepared.scenario
        # ``--until``: simulate this long from where the steps leave the clock, instead of
        # the scenario's run.until-ms (a clock time)
        self.until_for_ms = until_for_ms
        self.event_driven = event_driven  # False: every heartbeat runs (docs/simulator.md)
        self.outdir = outdir
        self.observers = tuple(observers)
        self._events: list[Event] = []
        self.engine = build_engine(prepared, self._events.append)
        self.timed = prepared.timed
        self.result = RunResult(self.engine)
        # a step is engine commands (fairshare.core.commands), or the runner's own look
        self._commands: dict[type, Callable[[Any], Iterator[Command]]] = {
            AddNodeStep: self._add_node, RemoveNodeStep: lambda st: iter((RemoveNode(st.name),)),
            ResizeNodeStep: self._resize_node, SubmitStep: self._submit,
            RecoverContainerStep: self._recover_container,
            RequestStep: lambda st: iter((Ask(st.app, self._requests(st.requests, st.line)),)),
            UpdateStep: lambda step: iter((Update(),)), HeartbeatStep: self._heartbeat,
            AdvanceStep: lambda st: iter((Advance(st.ms),)),
            ReleaseStep: lambda st: iter((Release(st.app, st.count, st.which),)),
            FinishStep: lambda st: iter((Finish(st.app),)),
            KillStep: lambda st: iter((Kill(st.app),)), ReloadStep: self._reload,
            MoveStep: lambda st: iter((Move(st.app, st.queue),)),
            CommandStep: self._command,
        }
        self._looks: dict[type, Callable[[Any], None]] = {
            SnapshotStep: self._snapshot, ExpectStep: self._expect}

    def run(self) -> RunResult:
        """With an output directory, the outputs are written to a staging directory and moved
        into place only if the run gets to its end
        (:func:`~fairshare.sim.record.outputs.staged_outputs`): an error, an interrupt or a full
        disk leave the directory as it was."""
        if self.outdir is None:
            return self._run(None)
        with staged_outputs(self.outdir) as stage:
            result = self._run(stage)
        result.outputs = [self.outdir / path.name for path in result.outputs]
        return result

    def _check_span(self, workload: Sequence[WorkloadApp]) -> None:
        """Refuse, before the simulation starts, one that cannot end in reasonable time: one
        that would run longer than :data:`MAX_IMPLICIT_SPAN_MS` without an explicit
        ``until-ms``, pass the clock's limit, or sample its timeline too often."""
        run, start = self._run_spec(), self.engine.now
        capacity = self.engine.types.as_dict(self.engine.state.capacity)
        span, line = minimum_span(workload, capacity), None
        last = self.scenario.changes[-1] if self.scenario.changes else None
        if last is not None and last.at_ms > span.ms:  # the run lasts until its last change
            span, line = MinimumSpan(last.at_ms, "its last timed change", None), last.line
        if run.until_ms is None and (span.ms > MAX_IMPLICIT_SPAN_MS
                                     or start + span.ms > MAX_TIME_MS):
            app = span.app
            raise ConfigError(
                f"workload: runs for at least {_days(span.ms)} ({span.why}); a simulation "
                f"longer than {_days(MAX_IMPLICIT_SPAN_MS)} needs an explicit run.until-ms",
                self.scenario.source if app is None else self._source(app),
                line if app is None else app.line)
        end = start + span.ms if run.until_ms is None else run.until_ms
        samples = (end - start) // run.snapshot_every_ms
        if samples > MAX_TIMELINE_SAMPLES:
            raise ConfigError(
                f"run: sampling every {run.snapshot_every_ms:,} ms for {_days(end - start)} "
                f"gives {samples:,} timeline samples per queue, more than "
                f"{MAX_TIMELINE_SAMPLES:,}: raise run.snapshot-every-ms or lower run.until-ms",
                self.scenario.source, run.line or None)

    def _run(self, outdir: Path | None) -> RunResult:
        self._flush()
        self.result.step_bounds.append(len(self.result.records))
        for step in self.scenario.steps:
            try:
                self._step(step)
            except EngineError as e:
                raise ConfigError(str(e), self.scenario.source, step.line) from None
            self._flush()
            self.result.step_bounds.append(len(self.result.records))
        result = self.result
        result.events = len(result.records)
        if self.scenario.workload is not None:
            self._simulate(self.scenario.workload, outdir)
        elif outdir is not None:
            result.outputs = write_outputs(outdir, result.records, result.snapshots)
        return result

    def _step(self, step: Step) -> None:
        commands = self._commands.get(type(step))
        if commands is None:
            self._looks[type(step)](step)
            return
        for command in commands(step):
            if isinstance(command, HeartbeatTick):
                for _ in apply_command(self.engine, command):  # a tick runs as it is iterated
                    pass
            else:
                apply_command(self.engine, command)

    def _simulate(self, workload: tuple[WorkloadApp, ...], outdir: Path | None) -> None:
        """The workload runs from where the steps left the clock (docs/scenario-format.md)."""
        run, engine = self._run_spec(), self.engine  # until-ms None: until the apps are done
        self._check_span(workload)
        apps = [self._app_spec(a) for a in workload]
        heartbeat = run.heartbeat_interval_ms or engine.site.nm_heartbeat_interval_ms
        with ExitStack() as files:
            observers: list[SimObserver] = []
            timeline = None
            if outdir is not None:
                observers.append(self._event_writer(files, outdir))
                timeline = TimelineWriter(outdir)
                files.callback(timeline.close)
            recorder = SimRecorder(engine, run.snapshot_every_ms, timeline)
            simulation = Simulation(engine, apps, heartbeat_interval_ms=heartbeat,
                                    events=self._events, snapshot_every_ms=run.snapshot_every_ms,
                                    observers=[*observers, recorder, *self.observers],
                                    event_driven=self.event_driven,
                                    changes=self.timed.changes)
            try:
                simulation.run(run.until_ms)
            except AppRefused as e:  # nothing the workload's own checks let through is expected
                culprit = next(a for a in workload if a.id == e.app)
                raise ConfigError(f"workload app {e.app}: {e}", self._source(culprit),
                                  culprit.line) from None
        s = self.scenario
        result = self.result
        before, result.events = result.events, result.events + recorder.events
        result.summary = build_summary(
            engine, recorder, simulation.apps,
            ScenarioEntry(s.name, s.description, s.seed, tuple(o.text for o in s.overrides)),
            events_before=before, changes=tuple(c.record() for c in self.timed.applied))
        if outdir is not None and timeline is not None:
            write_snapshots(outdir / SNAPSHOTS, result.snapshots)
            write_summary(outdir / SUMMARY, result.summary)
            result.outputs = [outdir / name for name in (EVENTS, SNAPSHOTS)]
            result.outputs += [timeline.csv_path, timeline.parquet_path, outdir / SUMMARY]

    def _event_writer(self, files: ExitStack, outdir: Path) -> EventWriter:
        """``events.jsonl``, opened for the simulation to stream into, the steps' records first."""
        f = files.enter_context((outdir / EVENTS).open("w", encoding="utf-8", newline="\n"))
        writer = EventWriter(f, self.engine.types)
        writer.write_records(self.result.records)
        return writer

    def _run_spec(self) -> RunSpec:
        """The scenario's ``run``, bounded by ``until_for_ms`` from the clock now if given."""
        run = self.scenario.run
        if self.until_for_ms is None:
            return run
        return replace(run, until_ms=min(self.engine.now + self.until_for_ms, MAX_TIME_MS))

    def _source(self, app: WorkloadApp) -> str:
        """Where a workload app was read: its trace file, or the scenario file."""
        return app.source or self.scenario.source

    def _app_spec(self, a: WorkloadApp) -> AppSpec:
        source = self._source(a)
        if a.id in self.engine.state.apps:
            raise ConfigError(f"app {a.id} was already submitted by a step", source, a.line)
        types = self.engine.types
        am = None if a.am is None else scenario_resource(types, a.am, source, a.line)
        tasks = tuple(TaskGroup(t.count, scenario_resource(types, t.resources, source, a.line),
                                t.duration_ms, t.priority) for t in a.tasks)
        spec = AppSpec(a.id, a.at_ms, a.queue, a.user, am, tasks)
        if not a.running:
            return spec
        return with_running(spec, [(c, scenario_resource(types, c.resources, source, a.line))
                                   for c in a.running])

    def _flush(self) -> None:
        types = self.engine.types
        self.result.records.extend(event_record(e, types) for e in self._events)
        self._events.clear()

    def _res(self, values: Mapping[str, int], line: int) -> Resource:
        return scenario_resource(self.engine.types, values, self.scenario.source, line)

    def _requests(self, specs: tuple[RequestSpec, ...], line: int
                  ) -> tuple[ContainerRequest, ...]:
        return tuple(ContainerRequest(spec.count, self._res(spec.resources, line),
                                      spec.priority, spec.locality, spec.relax_locality)
                     for spec in specs)

    def _add_node(self, step: AddNodeStep) -> Iterator[Command]:
        node = step.node
        yield AddNode(node.name, self._res(node.resources, step.line), node.rack)

    def _resize_node(self, step: ResizeNodeStep) -> Iterator[Command]:
        yield ResizeNode(step.name, self._res(step.resources, step.line))

    def _submit(self, step: SubmitStep) -> Iterator[Command]:
        am = None if step.am is None else self._res(step.am, step.line)
        yield Submit(step.app, step.queue, step.user, am,
                     self._requests(step.requests, step.line), step.recovering)

    def _recover_container(self, step: RecoverContainerStep) -> Iterator[Command]:
        yield RecoverContainer(step.app, step.node, self._res(step.resources, step.line),
                               step.am, step.priority, step.container)

    def _command(self, step: CommandStep) -> Iterator[Command]:
        """A command in its JSON form, as a ``fairshare serve`` session journal writes it; a
        heartbeat tick is consumed here (it runs as it is iterated)."""
        try:
            command = command_from_json(step.data, self.engine.types)
        except ValueError as e:
            raise EngineError(f"command: {e}") from None
        yield command

    def _heartbeat(self, step: HeartbeatStep) -> Iterator[Command]:
        """``times`` heartbeats of the node, or of every node (``*``) in registration order."""
        nodes = len(self.engine.state.nodes) if step.node == "*" else 1
        if step.times * nodes > MAX_HEARTBEATS_PER_STEP:
            raise EngineError(f"heartbeat: {step.times:,} times {nodes:,} nodes is more than "
                              f"{MAX_HEARTBEATS_PER_STEP:,} node heartbeats in one step")
        command = HeartbeatAll() if step.node == "*" else Heartbeat(step.node)
        for _ in range(step.times):
            yield command

    def _reload(self, step: ReloadStep) -> Iterator[Command]:
        """The file parsed now: a reload, or YARN's failed reload when it does not parse."""
        types, overrides = self.engine.types, self.scenario.overrides
        if step.allocations_text is not None:
            source = f"{self.scenario.source}:{step.line} (reload)"
        else:
            source = str(step.allocations_file)
        try:
            config = read_allocations(step.allocations_text, step.allocations_file, source,
                                      types, overrides=overrides)
        except ConfigError as e:
            try:
                text: str | None = allocation_text(step.allocations_text,
                                                   step.allocations_file, overrides)
            except ConfigError:  # a file that cannot be read (or decoded) at all
                text = None
            yield ReloadFailed(source, str(e), text)
            return
        yield Reload(config, source, allocation_text(step.allocations_text,
                                                     step.allocations_file, overrides))

    def _snapshot(self, step: SnapshotStep) -> None:
        self.result.snapshots.append(snapshot(self.engine, step.label))

    def _expect(self, step: ExpectStep) -> None:
        self.result.expectations += 1
        state = snapshot(self.engine)
        if step.subject_kind == "cluster":
            subject, actual = "cluster", state["cluster"]
        else:
            assert step.subject is not None
            subject = f"{step.subject_kind} {step.subject}"
            actual = state[SECTIONS[step.subject_kind]].get(step.subject)
        if actual is None:
            mismatches = [f"there is no {subject}"]
        else:
            mismatches = [m.describe() for m in check(step.fields, actual)]
        if mismatches:
            failure = ExpectFailure(step.line, subject, tuple(mismatches))
            self.result.failures.append(failure)
            self.result.records.append({"t": self.engine.now, "type": "expect-failed",
                                        "line": step.line, "subject": subject,
                                        "mismatches": list(mismatches)})


def run_scenario(scenario: Scenario | PreparedRun, outdir: Path | None = None,
                 observers: Sequence[SimObserver] = (), *, event_driven: bool = True,
                 until_for_ms: int | None = None) -> RunResult:
    """Run ``scenario``; ``until_for_ms`` bounds its simulation to that long from its start
    (``--until``), in place of ``run.until-ms``."""
    return ScriptRunner(scenario, outdir, observers, event_driven=event_driven,
                        until_for_ms=until_for_ms).run()


__all__ = ["ExpectFailure", "RunResult", "ScriptRunner", "Step", "run_scenario"]

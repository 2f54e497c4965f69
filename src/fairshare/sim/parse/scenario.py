"""Scenario files: parse and validate them into plain frozen data for the runner.

The format is documented in docs/scenario-format.md; this module only reads it. YAML (so also
JSON) is loaded with line numbers (:mod:`fairshare.sim.parse.yaml_lines`), checked with private
pydantic models (:mod:`fairshare.sim.parse.scenario_schema`: unknown keys rejected with a
did-you-mean, ints must be ints, bools must be bools), ``expect`` steps by
:mod:`fairshare.sim.parse.expect`, and every problem in the file is reported at once as
:class:`ConfigErrors`, sorted by line, each ``file:line: path: message``.

Choices where the contract is silent:

* ``version`` is required and must be ``1``.
* Requests and AMs default to ``memory-mb: 1024`` and ``vcores: 1`` (YARN's minimum allocation);
  nodes must give both. Any other key of a node, request or AM is a custom resource type with a
  non-negative integer amount (``yarn.io/gpu: 2``) unless it looks like a misspelt known key
  (``memory: 1024`` → "did you mean 'memory-mb'?"). Whether the type exists is the runner's check
  (it needs yarn-site's resource types).
* ``submit`` defaults: ``queue: default``, ``user: nobody``, ``am: null`` (unmanaged).
* A step given as a bare name (``- update``) or with a null value means "no arguments".
* ``snapshot.label`` is optional (None). ``resize-node`` gives the node's new total resource.
* ``run.snapshot-every-ms`` and ``run.heartbeat-interval-ms`` must be positive; a rack must start
  with ``/`` (YARN's network topology requires it).
* Files named by ``site-file``, ``allocations-file`` and ``reload.allocations-file`` are resolved
  against the scenario's directory and must be regular files now (not a directory, a FIFO or a
  device such as ``/dev/zero``: :func:`fairshare.config.files.file_problem`).
* ``workload.sls``, ``sls-nodes``, ``synth`` and ``csv`` files too; they are read here, by
  :mod:`fairshare.sim.sources` (docs/workloads.md), once the scenario itself is valid: their apps
  follow ``workload.apps`` in :attr:`Scenario.workload`, the topology's nodes follow
  ``cluster.nodes``, and their errors are located in their own files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path, PurePath
from typing import Any, TypeVar

from pydantic import ValidationError

from fairshare.config.errors import ConfigError, ConfigErrors, LocatedWarning, all_errors
from fairshare.config.files import memory_guard
from fairshare.sim.parse.expect import validate_expectation
from fairshare.sim.parse.scenario_schema import (
    AddNodeModel,
    AdvanceModel,
    AppModel,
    ClockModel,
    HeartbeatModel,
    MoveModel,
    NoArgsModel,
    NodeModel,
    NodeNameModel,
    RecoverContainerModel,
    ReleaseModel,
    ReloadModel,
    RequestModel,
    RequestStepModel,
    ResizeNodeModel,
    RunModel,
    ScenarioModel,
    SchemaModel,
    SnapshotModel,
    SubmitModel,
    WorkloadAppModel,
    problems_of,
)
from fairshare.sim.parse.schema_values import MAX_NODES
from fairshare.sim.parse.specs import (
    NodeSpec,
    TaskSpec,
    WorkloadApp,
    running_priority,
    running_specs,
)
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
from fairshare.sim.parse.timed_spec import ChangeSpec, parse_changes
from fairshare.sim.parse.yaml_lines import (
    Loc,
    Problem,
    YamlDoc,
    load_yaml,
    locate,
    read_text,
    show,
    suggest,
)
from fairshare.sim.sources import SourceFile, load_workload, sls_settings

__all__ = ["load_scenario", "parse_scenario_text"]


# ---- parsing -----------------------------------------------------------------------------------


def load_scenario(path: Path) -> Scenario:
    """Read and parse a scenario file; relative paths in it are relative to its directory.

    A path that is not a regular file (missing, a directory, a FIFO, ``/dev/zero``) is refused
    without being opened; the file's size, its values and their nesting are limited
    (:mod:`fairshare.sim.parse.yaml_lines`), and so are the trace files it names
    (:mod:`fairshare.sim.sources`); running out of memory is a :class:`ConfigError` too."""
    with memory_guard(str(path)):
        return parse_scenario_text(read_text(path), str(path), path.parent)


def parse_scenario_text(text: str, source: str, base_dir: Path) -> Scenario:
    """Parse scenario YAML/JSON; ``source`` names it in errors, ``base_dir`` anchors its paths.

    Raises :class:`ConfigError` (a YAML syntax error, a file that is not a map) or
    :class:`ConfigErrors` with every problem found, sorted by line.
    """
    with memory_guard(source):
        doc = load_yaml(text, source)
        if not isinstance(doc.value, dict):
            message = ("the file is empty" if doc.value is None else
                       f"a scenario is a map of keys like 'version: 1', got {show(doc.value)}")
            raise ConfigError(message, source, doc.line(()))
        parser = _Parser(doc, base_dir, source)
        scenario = parser.parse()
    if scenario is None or parser.problems or parser.elsewhere:
        raise ConfigErrors(locate(parser.problems, doc, source) + parser.elsewhere,
                           parser.warnings)
    return scenario


def _request(model: RequestModel) -> RequestSpec:
    return RequestSpec(model.count, model.resources(), model.priority, model.locality,
                       model.relax_locality, model.duration_ms)


def _not_a_step(item: Any) -> str:
    if isinstance(item, dict):
        keys = ", ".join(f"'{key}'" for key in item) or "none"
        return f"a step has exactly one key, its kind; got {keys}"
    return f"a step is a one-key map like 'advance: {{ms: 1000}}', got {show(item)}"


_Build = Callable[[Any, int], Step]
_STEPS: dict[str, tuple[type[SchemaModel], _Build]] = {
    "add-node": (AddNodeModel, lambda m, line: AddNodeStep(
        line=line, node=NodeSpec(m.name, m.rack, m.resources(), line))),
    "remove-node": (NodeNameModel, lambda m, line: RemoveNodeStep(line=line, name=m.name)),
    "resize-node": (ResizeNodeModel, lambda m, line: ResizeNodeStep(
        line=line, name=m.name, resources=m.resources())),
    "submit": (SubmitModel, lambda m, line: SubmitStep(
        line=line, app=m.app, queue=m.queue, user=m.user,
        am=None if m.am is None else m.am.resources(),
        requests=tuple(_request(r) for r in m.requests), recovering=m.recovering)),
    "recover-container": (RecoverContainerModel, lambda m, line: RecoverContainerStep(
        line=line, app=m.app, node=m.node, resources=m.resources(), am=m.am,
        priority=running_priority(m.am, m.priority), container=m.container)),
    "request": (RequestStepModel, lambda m, line: RequestStep(
        line=line, app=m.app, requests=tuple(_request(r) for r in m.requests))),
    "update": (NoArgsModel, lambda m, line: UpdateStep(line=line)),
    "heartbeat": (HeartbeatModel, lambda m, line: HeartbeatStep(
        line=line, node=m.node, times=m.times)),
    "advance": (AdvanceModel, lambda m, line: AdvanceStep(line=line, ms=m.ms)),
    "release": (ReleaseModel, lambda m, line: ReleaseStep(
        line=line, app=m.app, count=m.count, which=m.which)),
    "finish": (AppModel, lambda m, line: FinishStep(line=line, app=m.app)),
    "kill": (AppModel, lambda m, line: KillStep(line=line, app=m.app)),
    "reload": (ReloadModel, lambda m, line: ReloadStep(
        line=line, allocations_text=m.allocations, allocations_file=m.allocations_file)),
    "move": (MoveModel, lambda m, line: MoveStep(line=line, app=m.app, queue=m.queue)),
    "snapshot": (SnapshotModel, lambda m, line: SnapshotStep(line=line, label=m.label)),
}
STEP_KINDS = (*_STEPS, "expect", "command")

M = TypeVar("M", bound=SchemaModel)


class _Parser:
    """One pass over a loaded document, collecting every problem."""

    def __init__(self, doc: YamlDoc, base_dir: Path, source: str) -> None:
        self.doc = doc
        self.raw: dict[str, Any] = doc.value
        self.source = source
        self.context = {"base_dir": base_dir}
        self.problems: list[Problem] = list(doc.problems)
        self.elsewhere: list[ConfigError] = []  # errors in other files (workload traces)
        self.warnings: list[LocatedWarning] = []  # warnings of the workload's trace files

    def validate(self, model: type[M], data: Any, loc: Loc) -> M | None:
        try:
            return model.model_validate(data, context=self.context)
        except ValidationError as error:
            self.problems.extend(problems_of(error, loc))
            return None

    def parse(self) -> Scenario | None:
        top = self.validate(ScenarioModel, self.raw, ())
        if "allocations" in self.raw and "allocations-file" in self.raw:
            later = max(("allocations", "allocations-file"), key=lambda k: self.doc.line((k,)))
            message = "give either 'allocations' or 'allocations-file', not both"
            self.problems.append(Problem((later,), message))
        nodes = self.nodes()
        steps = self.steps()
        workload = self.workload(top)
        more_nodes: tuple[NodeSpec, ...] = ()
        if top is not None and workload is not None and not self.problems:
            workload, more_nodes = self.sources(top, workload, nodes, steps)
        changes = self.changes(top, (*nodes, *more_nodes), steps)
        if top is None or self.problems or self.elsewhere:
            return None
        return replace(self.assemble(top, (*nodes, *more_nodes), steps, workload),
                       changes=changes)

    def changes(self, top: ScenarioModel | None, nodes: tuple[NodeSpec, ...],
                steps: tuple[Step, ...]) -> tuple[ChangeSpec, ...]:
        """``workload.changes``, checked against the nodes registered when the workload
        starts: the cluster's, then the steps' additions and removals."""
        if top is None or top.workload is None or not top.workload.changes:
            return ()
        names = {node.name for node in nodes}
        for step in steps:
            if isinstance(step, AddNodeStep):
                names.add(step.node.name)
            elif isinstance(step, RemoveNodeStep):
                names.discard(step.name)
        return parse_changes(top.workload.changes, self.validate, self.doc.line, names,
                             self.problems)

    def workload(self, top: ScenarioModel | None) -> tuple[WorkloadApp, ...] | None:
        if top is None or top.workload is None:
            return None
        apps: list[WorkloadApp] = []
        seen: dict[str, int] = {}
        for index, entry in enumerate(top.workload.apps or []):
            loc: Loc = ("workload", "apps", index)
            model = self.validate(WorkloadAppModel, entry, loc)
            if model is None:
                continue
            line = self.doc.line(loc)
            if model.id in seen:
                self.problems.append(Problem(loc, f"duplicate app id '{model.id}' (first at "
                                                  f"line {seen[model.id]})"))
                continue
            seen[model.id] = line
            tasks = tuple(TaskSpec(t.count, t.resources(), t.duration_ms, t.priority)
                          for t in model.tasks)
            am = None if model.am is None else model.am.resources()
            apps.append(WorkloadApp(model.id, model.at_ms, model.queue, model.user, am, tasks,
                                    line, running=running_specs(model.running)))
        return tuple(apps)

    def sources(self, top: ScenarioModel, native: tuple[WorkloadApp, ...],
                nodes: tuple[NodeSpec, ...],
                steps: tuple[Step, ...]) -> tuple[tuple[WorkloadApp, ...], tuple[NodeSpec, ...]]:
        """The workload's trace files read and combined with ``native`` apps and ``nodes``
        (:mod:`fairshare.sim.sources`); their errors go to :attr:`elsewhere`."""
        model = top.workload
        assert model is not None
        paths = {"sls": model.sls, "sls-nodes": model.sls_nodes, "synth": model.synth,
                 "csv": model.csv}
        if not any(paths.values()):
            return native, ()
        settings, bad, in_file = sls_settings(self.site_texts(top), top.site_file,
                                              self.display(("site-file",)))
        for key, message in bad:
            self.problems.append(Problem(("site", key), message))
        self.elsewhere.extend(in_file)
        if bad or in_file:
            return native, ()
        files = {key: SourceFile(path, self.display(("workload", key)))
                 for key, path in paths.items() if path is not None}
        no_nodes = not nodes and not any(isinstance(step, AddNodeStep) for step in steps)
        try:
            loaded = load_workload(
                native=native, cluster=nodes, scenario=self.source, seed=top.seed,
                settings=settings, derive_nodes=no_nodes and model.sls_nodes is None,
                max_nodes=MAX_NODES, sls=files.get("sls"), sls_nodes=files.get("sls-nodes"),
                synth=files.get("synth"), csv=files.get("csv"),
                synth_time_unit=model.synth_time_unit)
        except ConfigError as error:
            self.elsewhere.extend(all_errors(error))
            self.warnings.extend(error.warnings)
            return native, ()
        self.warnings.extend(loaded.warnings)
        return loaded.apps, loaded.nodes

    def display(self, loc: Loc) -> str:
        """A file named at ``loc`` as errors show it: relative to the scenario file's name."""
        text = self.doc.texts.get(loc, "")
        return text if PurePath(text).is_absolute() else str(PurePath(self.source).parent / text)

    def site_texts(self, top: ScenarioModel) -> dict[str, str]:
        """``site`` values as Hadoop's Configuration sees them (``true``, ``0.8``)."""
        return {key: self.doc.texts.get(("site", key), str(value))
                for key, value in (top.site or {}).items()}

    def nodes(self) -> tuple[NodeSpec, ...]:
        cluster = self.raw.get("cluster")
        entries = cluster.get("nodes") if isinstance(cluster, dict) else None
        specs: list[NodeSpec] = []
        first_line: dict[str, int] = {}
        for index, entry in enumerate(entries if isinstance(entries, list) else []):
            loc: Loc = ("cluster", "nodes", index)
            model = self.validate(NodeModel, entry, loc)
            if model is not None:
                specs.extend(self.expand(model, loc, first_line))
            if len(specs) > MAX_NODES:
                self.problems.append(Problem(loc, f"more than {MAX_NODES} nodes in the cluster"))
                break
        return tuple(specs)

    def expand(self, model: NodeModel, loc: Loc, first_line: dict[str, int]) -> list[NodeSpec]:
        line = self.doc.line(loc)
        specs = []
        for name in model.names():
            if name in first_line:
                message = f"duplicate node name '{name}' (first at line {first_line[name]})"
                self.problems.append(Problem(loc, message))
                break
            first_line[name] = line
            specs.append(NodeSpec(name, model.rack, model.resources(), line))
        return specs

    def steps(self) -> tuple[Step, ...]:
        items = self.raw.get("steps")
        steps = []
        for index, item in enumerate(items if isinstance(items, list) else []):
            step = self.step(item, ("steps", index))
            if step is not None:
                steps.append(step)
        return tuple(steps)

    def step(self, item: Any, loc: Loc) -> Step | None:
        if isinstance(item, str):
            kind, args = item, None  # "- update": a step without arguments
        elif isinstance(item, dict) and len(item) == 1:
            kind, args = next(iter(item.items()))
        else:
            self.problems.append(Problem(loc, _not_a_step(item)))
            return None
        line = self.doc.line(loc)
        if kind == "expect":
            return self.expect(args, (*loc, kind), line)
        if kind == "command":
            if not isinstance(args, dict) or not isinstance(args.get("kind"), str):
                self.problems.append(Problem((*loc, kind), "a command step is an engine "
                                             "command's JSON form, a map with its 'kind'"))
                return None
            return CommandStep(line=line, data=dict(args))
        if kind not in _STEPS:
            message = f"unknown step '{kind}'{suggest(kind, STEP_KINDS)}"
            self.problems.append(Problem((*loc, kind), message, parent=True))
            return None
        model_type, build = _STEPS[kind]
        model = self.validate(model_type, {} if args is None else args, (*loc, kind))
        return None if model is None else build(model, line)

    def expect(self, args: Any, loc: Loc, line: int) -> ExpectStep | None:
        expectation, problems = validate_expectation(args)
        for p in problems:
            self.problems.append(Problem((*loc, *p.loc), p.message, p.parent, p.line))
        if expectation is None:
            return None
        return ExpectStep(line=line, subject_kind=expectation.subject_kind,
                          subject=expectation.subject, fields=expectation.fields)

    def assemble(self, top: ScenarioModel, nodes: tuple[NodeSpec, ...],
                 steps: tuple[Step, ...], workload: tuple[WorkloadApp, ...] | None) -> Scenario:
        site = self.site_texts(top)
        run = top.run or RunModel()
        return Scenario(
            name=Path(self.source).stem if top.name is None else top.name,
            description=top.description or "",
            seed=top.seed,
            site=site,
            site_file=top.site_file,
            allocations_text=top.allocations,
            allocations_file=top.allocations_file,
            nodes=nodes,
            groups={user: tuple(groups) for user, groups in (top.groups or {}).items()},
            start_ms=(top.clock or ClockModel()).start_ms,
            steps=steps,
            workload=workload,
            run=RunSpec(run.until_ms, run.snapshot_every_ms, run.heartbeat_interval_ms,
                        self.doc.lines.get(("run",), 0)),
            source=self.source,
            site_lines={key: self.doc.line(("site", key)) for key in site},
            warnings=tuple(self.warnings),
        )

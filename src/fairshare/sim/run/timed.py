"""What ``workload.changes`` do when their time comes (parsed by
:mod:`fairshare.sim.parse.timed_spec`).

* **reload** — YARN's allocation-file reload (``AllocationFileLoaderService``). The
  configuration in force is an allocation file plus overrides: the command line's ``--set``
  (applied to every file, as for the ``reload`` step) and the timed ``set`` overrides, which
  **accumulate** — each reload's are written after those of the earlier reloads, so a later
  value of the same setting wins — until a reload brings a new file, which replaces the file
  and drops them (its own ``set`` then applies on top of it). Every configuration is parsed
  before the simulation starts: an override that names a queue or element the file does not
  have, or gives a value the file's own checks refuse, is an error in the scenario (its line,
  exit 2). A new file that does not parse is YARN's failed reload instead: a ``config-error``
  event at that time, and the previous configuration stays in force (later overrides apply
  on top of it).
* **add-node**, **remove-node** — a NodeManager registers; a node is lost (its containers end,
  AMs restart their attempt). A node already gone after a graceful decommission is left alone.
* **decommission-node** — graceful decommission (:mod:`fairshare.core.lifecycle.decommission`).

Each change is an engine command (:mod:`fairshare.core.commands`), built before the run; each
one applied is kept as a :class:`Applied` record for ``summary.json`` (``changes``),
which the report marks on its timeline charts and ``explain`` cites.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Protocol

from fairshare.config.allocation import allocation_text, read_allocations
from fairshare.config.errors import ConfigError, all_errors
from fairshare.config.overrides import Override
from fairshare.core import (
    AddNode,
    Command,
    Decommission,
    Engine,
    QueueSettings,
    QueueTree,
    Reload,
    ReloadFailed,
    RemoveNode,
    apply_command,
)
from fairshare.resources import display as units
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import Resource, ResourceTypes, float32_decimal
from fairshare.sim.parse.timed_spec import (
    AddNodeChange,
    ChangeSpec,
    DecommissionChange,
    ReloadChange,
    RemoveNodeChange,
)
from fairshare.sim.record.summary_model import ChangeRecord

__all__ = ["Applied", "TimedChange", "TimedRun", "timed_changes"]

class TimedChange(Protocol):
    """What the loop (:mod:`fairshare.sim.run.loop`) runs at ``at_ms`` after the simulation
    starts."""

    at_ms: int

    def apply(self, engine: Engine) -> None:
        """Carry the change out at the engine's present time."""


@dataclass(frozen=True, slots=True)
class Applied:
    """A change as it happened: when, what kind, a one-line label, a few words for a chart's
    mark, and per queue what a reload changed in its effective settings (``root.a`` →
    ``["weight 1 → 3"]``)."""

    time_ms: int
    kind: str  # reload, config-error, add-node, remove-node, decommission-node, skipped
    label: str
    mark: str
    queues: dict[str, list[str]] = field(default_factory=dict)
    node: str | None = None  # the node a node change names

    def record(self) -> ChangeRecord:
        """As summary.json's ``changes`` hold it."""
        return ChangeRecord(self.time_ms, self.kind, self.label, self.mark, self.node,
                            {queue: tuple(what) for queue, what in self.queues.items()})


@dataclass(slots=True)
class TimedRun:
    """The changes of one run, ready for the loop; ``applied`` fills as they happen."""

    changes: list[_Change]
    applied: list[Applied] = field(default_factory=list)


@dataclass(slots=True)
class _Change:
    """A timed change and the engine command it is: a reload's configuration (or why it
    fails) is known before the run."""

    at_ms: int
    spec: ChangeSpec
    run: TimedRun
    command: Command

    def apply(self, engine: Engine) -> None:
        self.run.applied.append(_apply(self, engine))


def timed_changes(specs: Sequence[ChangeSpec], scenario_source: str,
                  base: tuple[str | None, Path | None], overrides: Sequence[Override],
                  types: ResourceTypes) -> TimedRun:
    """The changes with every reload's configuration parsed now; ``base`` is the scenario's
    allocation text or file, ``overrides`` the command line's. A bad timed override raises
    :class:`ConfigError` at its change's line."""
    run = TimedRun([])
    text, path = base
    source = (f"{scenario_source} (allocations)" if text is not None
              else str(path or "(no allocation file)"))
    timed: tuple[Override, ...] = ()
    for spec in specs:
        command: Command
        if isinstance(spec, ReloadChange):
            new = (text, path, source, (*timed, *spec.overrides))
            if spec.allocations_text is not None:
                new = (spec.allocations_text, None, f"{scenario_source}:{spec.line} (reload)",
                       spec.overrides)
            elif spec.allocations_file is not None:
                new = (None, spec.allocations_file, str(spec.allocations_file), spec.overrides)
            command = _parse(new[0], new[1], new[2], (*overrides, *new[3]), spec,
                             scenario_source, types)
            if isinstance(command, Reload):  # else the previous one stays in force
                text, path, source, timed = new
        elif isinstance(spec, AddNodeChange):
            command = _add_node(spec, scenario_source, types)
        elif isinstance(spec, RemoveNodeChange):
            command = RemoveNode(spec.name)
        else:
            assert isinstance(spec, DecommissionChange)
            command = Decommission(spec.name, spec.timeout_ms)
        run.changes.append(_Change(spec.at_ms, spec, run, command))
    return run


def _add_node(spec: AddNodeChange, scenario_source: str, types: ResourceTypes) -> AddNode:
    node = spec.node
    try:
        capacity = types.of(dict(node.resources))
    except KeyError as e:  # a type yarn-site does not declare
        raise ConfigError(f"workload.changes: add-node {node.name}: {e.args[0]} (declare "
                          "others in yarn.resource-types)", scenario_source, spec.line) from None
    return AddNode(node.name, capacity, node.rack)


def _parse(text: str | None, path: Path | None, source: str, overrides: Sequence[Override],
           spec: ReloadChange, scenario_source: str, types: ResourceTypes
           ) -> Reload | ReloadFailed:
    """The reload, with the file YARN reads (overrides written in: ``allocation_text``)."""
    try:
        # an empty inline text reads as an empty file here (the reload step refuses it)
        config = read_allocations(text or None, path, source, types, overrides=overrides)
    except ConfigError as e:
        own = {o.where for o in spec.overrides}
        for error in all_errors(e):
            if error.file in own:  # the change's own override: the scenario is wrong
                raise ConfigError(f"workload.changes: reload at {spec.at_ms:,} ms: {error}",
                                  scenario_source, spec.line) from None
        try:
            read: str | None = allocation_text(text or None, path, overrides)
        except ConfigError:  # a file that cannot be read (or decoded) at all
            read = None
        return ReloadFailed(source, str(e), read)
    return Reload(config, source, allocation_text(text or None, path, overrides))


def _apply(change: _Change, engine: Engine) -> Applied:
    command, now = change.command, engine.now
    if isinstance(command, Reload | ReloadFailed):
        return _reload(change, command, engine)
    if isinstance(command, AddNode):
        apply_command(engine, command)
        return Applied(now, "add-node", f"node {command.node} added", f"{command.node} added",
                       node=command.node)
    assert isinstance(command, RemoveNode | Decommission)
    name = command.node
    present = engine.state.nodes.get(name)
    if present is None:
        return Applied(now, "skipped", f"node {name} had already left", "", node=name)
    running = len(present.containers)
    apply_command(engine, command)
    if isinstance(command, RemoveNode):
        return Applied(now, "remove-node",
                       f"node {name} lost, killing {running} of its containers",
                       f"{name} lost", node=name)
    limit = ("no timeout" if command.timeout_ms is None
             else f"timeout {units.duration(command.timeout_ms)}")
    return Applied(now, "decommission-node", f"node {name} decommissioning "
                   f"({running} container{'' if running == 1 else 's'} running, {limit})",
                   f"{name} decommissioning",
                   node=name)


def _reload(change: _Change, command: Reload | ReloadFailed, engine: Engine) -> Applied:
    now = engine.now
    if isinstance(command, ReloadFailed):
        apply_command(engine, command)
        return Applied(now, "config-error", "reload failed, the configuration stays: "
                       + command.message.splitlines()[0], "reload failed")
    before = engine.tree
    apply_command(engine, command)
    spec = change.spec
    assert isinstance(spec, ReloadChange)
    what = [o.text for o in spec.overrides]
    if spec.allocations_text is not None or spec.allocations_file is not None:
        what.insert(0, "new allocation file")
    return Applied(now, "reload", "configuration reloaded: " + ", ".join(what), "reload",
                   settings_changed(before, engine.tree, engine.types))


def settings_changed(before: QueueTree, after: QueueTree, types: ResourceTypes
                     ) -> dict[str, list[str]]:
    """Per queue, what changed in its effective settings (``weight 1 → 3``); queues the
    reload created or dropped too."""
    out: dict[str, list[str]] = {}
    for node in after:
        if node.name not in before:
            out[node.name] = ["created"]
            continue
        old, new = before[node.name].settings, node.settings
        diffs = [f"{_name(f.name)} {_show(getattr(old, f.name), types, f.name)} → "
                 f"{_show(getattr(new, f.name), types, f.name)}"
                 for f in fields(QueueSettings) if getattr(old, f.name) != getattr(new, f.name)]
        if diffs:
            out[node.name] = diffs
    for node in before:
        if node.name not in after:
            out[node.name] = ["removed"]
    return out


def _name(field_name: str) -> str:
    return field_name.removesuffix("_ms").replace("_", " ")


def _show(value: object, types: ResourceTypes, field_name: str) -> str:
    if value is None:
        return "none"
    if isinstance(value, Resource):
        amounts = types.as_dict(value)
        text = [units.memory(amounts.pop("memory-mb", 0)), f"{amounts.pop('vcores', 0)} vcores"]
        return ", ".join(text + [f"{v} {k}" for k, v in amounts.items()])
    if isinstance(value, ConfigurableResource):
        if value.absolute is not None:
            return _show(value.absolute, types, field_name)
        shares = value.percentages or ()
        return ", ".join(f"{units.percent(p)} {n}" for n, p in zip(types.names, shares,
                                                                    strict=False))
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{float32_decimal(value):g}"
    if isinstance(value, int) and field_name.endswith("_ms"):
        return units.duration(value)
    return str(value)

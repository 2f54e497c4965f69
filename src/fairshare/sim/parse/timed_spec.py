"""``workload.changes``: what the workload does to the cluster and its configuration over time.

Each entry is a map with ``at-ms`` (after the simulation starts, like an app's ``at-ms``) and
exactly one change: ``reload`` (``set``: ``alloc:`` overrides as ``--set`` takes them, and/or a
new ``allocations`` / ``allocations-file``), ``add-node`` (as the step), ``remove-node`` (a node
lost) or ``decommission-node`` (graceful, with ``timeout-ms``). They are checked here, each
problem located at its line: times in order, nodes that exist at that point (after the
cluster, the steps and the earlier changes), overrides that parse and are ``alloc:`` ones
(yarn-site is read once, when the ResourceManager starts). What they do:
:mod:`fairshare.sim.run.timed`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Self

from pydantic import Field, PlainValidator, model_validator

from fairshare.config.errors import ConfigError
from fairshare.config.overrides import Override, parse_override
from fairshare.core import DEFAULT_TIMEOUT_MS, MAX_TIME_MS
from fairshare.sim.parse.scenario_schema import AddNodeModel, NodeNameModel, SchemaModel, fail
from fairshare.sim.parse.schema_values import ExistingFile, Millis, Name, Text
from fairshare.sim.parse.specs import NodeSpec
from fairshare.sim.parse.yaml_lines import Loc, Problem, show, suggest

__all__ = ["AddNodeChange", "ChangeSpec", "DecommissionChange", "ReloadChange",
           "RemoveNodeChange", "parse_changes"]

CHANGE_KINDS = ("reload", "add-node", "remove-node", "decommission-node")


@dataclass(frozen=True, kw_only=True)
class ChangeSpec:
    at_ms: int  # after the simulation starts
    line: int  # of the entry in the scenario file


@dataclass(frozen=True, kw_only=True)
class ReloadChange(ChangeSpec):
    """``overrides`` on top of the configuration in force, or of the new file when one is
    given (``allocations_text`` or ``allocations_file``)."""

    overrides: tuple[Override, ...] = ()
    allocations_text: str | None = None
    allocations_file: Path | None = None


@dataclass(frozen=True, kw_only=True)
class AddNodeChange(ChangeSpec):
    node: NodeSpec


@dataclass(frozen=True, kw_only=True)
class RemoveNodeChange(ChangeSpec):
    name: str


@dataclass(frozen=True, kw_only=True)
class DecommissionChange(ChangeSpec):
    name: str
    timeout_ms: int | None  # None: no timeout (YARN's -1)


# ---- schema ------------------------------------------------------------------------------------


def _timeout(value: Any) -> int | None:
    """YARN's ``-g`` timeout: seconds there, milliseconds here; -1 waits for ever."""
    if isinstance(value, int) and not isinstance(value, bool) and (
            value == -1 or 0 <= value <= MAX_TIME_MS):
        return None if value == -1 else value
    fail(f"must be a non-negative integer, or -1 for no timeout, got {show(value)}")


class ReloadChangeModel(SchemaModel):
    overrides: tuple[Text, ...] = Field(default=(), alias="set")
    allocations: Text | None = None
    allocations_file: ExistingFile | None = None

    @model_validator(mode="after")
    def _something(self) -> Self:
        if self.allocations is not None and self.allocations_file is not None:
            fail("give 'allocations' or 'allocations-file', not both")
        if not self.overrides and self.allocations is None and self.allocations_file is None:
            fail("give 'set' (alloc:KEY=VALUE overrides), a new 'allocations' or "
                 "'allocations-file', or both")
        return self


class DecommissionModel(SchemaModel):
    name: Name
    timeout_ms: Annotated[int | None, PlainValidator(_timeout)] = DEFAULT_TIMEOUT_MS


class ChangeModel(SchemaModel):
    at_ms: Millis
    reload: ReloadChangeModel | None = None
    add_node: AddNodeModel | None = None
    remove_node: NodeNameModel | None = None
    decommission_node: DecommissionModel | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Self:
        given = [self.reload, self.add_node, self.remove_node, self.decommission_node]
        if sum(change is not None for change in given) != 1:
            fail(f"give exactly one change: {', '.join(CHANGE_KINDS)}")
        return self


# ---- parsing -----------------------------------------------------------------------------------

Validate = Callable[[type[ChangeModel], Any, Loc], ChangeModel | None]


@dataclass
class _Checker:
    """The scenario's nodes as the changes find them, in order; problems found so far."""

    nodes: set[str]
    problems: list[Problem]
    last_at: tuple[int, int] | None = None  # at-ms and line of the previous change

    def order(self, at_ms: int, line: int, loc: Loc) -> None:
        if self.last_at is not None and at_ms < self.last_at[0]:
            self.problems.append(Problem((*loc, "at-ms"), (
                f"{at_ms:,} ms is before the change at line {self.last_at[1]} "
                f"({self.last_at[0]:,} ms): list changes in time order")))
        self.last_at = (at_ms, line)

    def existing(self, name: str, loc: Loc) -> bool:
        if name in self.nodes:
            return True
        self.problems.append(Problem((*loc, "name"), (
            f"no node {name!r} at this point (the cluster's, the steps' and earlier changes' "
            f"nodes, less those removed){suggest(name, self.nodes)}")))
        return False


def parse_changes(entries: list[Any], validate: Validate, line_of: Callable[[Loc], int],
                  nodes: Iterable[str], problems: list[Problem]) -> tuple[ChangeSpec, ...]:
    """``workload.changes`` checked in order against ``nodes`` (those registered when the
    workload starts); problems are appended to ``problems``."""
    checker = _Checker(set(nodes), problems)
    changes: list[ChangeSpec] = []
    for index, entry in enumerate(entries):
        loc: Loc = ("workload", "changes", index)
        model = validate(ChangeModel, entry, loc)
        if model is None:
            continue
        line = line_of(loc)
        checker.order(model.at_ms, line, loc)
        change = _change(model, line, loc, checker)
        if change is not None:
            changes.append(change)
    return tuple(changes)


def _change(m: ChangeModel, line: int, loc: Loc, checker: _Checker) -> ChangeSpec | None:
    at = m.at_ms
    if m.reload is not None:
        overrides = _overrides(m.reload.overrides, (*loc, "reload", "set"), checker.problems)
        return ReloadChange(at_ms=at, line=line, overrides=overrides,
                            allocations_text=m.reload.allocations,
                            allocations_file=m.reload.allocations_file)
    if m.add_node is not None:
        node = m.add_node
        if node.name in checker.nodes:
            checker.problems.append(Problem((*loc, "add-node", "name"),
                                            f"node {node.name!r} is already registered"))
        checker.nodes.add(node.name)
        return AddNodeChange(at_ms=at, line=line,
                             node=NodeSpec(node.name, node.rack, node.resources(), line))
    if m.remove_node is not None:
        name = m.remove_node.name
        if not checker.existing(name, (*loc, "remove-node")):
            return None
        checker.nodes.discard(name)
        return RemoveNodeChange(at_ms=at, line=line, name=name)
    assert m.decommission_node is not None
    name = m.decommission_node.name
    if not checker.existing(name, (*loc, "decommission-node")):
        return None
    return DecommissionChange(at_ms=at, line=line, name=name,
                              timeout_ms=m.decommission_node.timeout_ms)


def _overrides(texts: tuple[str, ...], loc: Loc, problems: list[Problem]
               ) -> tuple[Override, ...]:
    parsed = []
    for index, text in enumerate(texts):
        try:
            override = parse_override(text)
        except ConfigError as e:
            problems.append(Problem((*loc, index), e.message))
            continue
        if override.scope != "alloc":
            problems.append(Problem((*loc, index), (
                "only alloc: settings can change during a run: YARN reads yarn-site once, when "
                "the ResourceManager starts, and a reload reads the allocation file only")))
            continue
        parsed.append(override)
    return tuple(parsed)

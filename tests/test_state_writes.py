"""The state is written in one place: only the package ``fairshare/core/hub/state/`` (its
writers, one module per noun) assigns the fields of the engine's records (apps, nodes,
containers, reservations, asks, queue runtime records, the cluster state) or changes their
collections in place.

The rule is checked on the syntax of every module of ``src/``: an assignment, augmented
assignment or ``del`` whose target is an attribute named like a field of a record (or an item
of one), and a call of a mutating method (``append``, ``pop``, ``clear`` …) on such an
attribute. An object's writes to its *own* attributes (``self.x = …`` in a class of its own)
are not the state's; in the records' module only their initialisation (``__post_init__``) and
the node's cache of its free space may write to ``self``. Names that some other structure
also uses are listed with that structure in :data:`NOT_STATE`, each with the reason.

A write by a name in a string (``setattr``, ``delattr`` or their dunders, on anything but the
writing object itself) escapes that check, so it is refused everywhere, the writers included.
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from fairshare.core.model import records
from fairshare.core.rules.locality import LocalityState

SRC = Path(__file__).resolve().parents[1] / "src" / "fairshare"
OWNER = SRC / "core" / "hub" / "state"  # the writers' package
RECORDS = SRC / "core" / "model" / "records.py"
RECORD_TYPES = (records.App, records.Node, records.Container, records.Reservation, records.Ask,
                records.QueueRuntime, records.ClusterState, LocalityState)
FIELDS = frozenset(f.name for cls in RECORD_TYPES for f in dataclasses.fields(cls))
MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "popitem", "clear",
                      "update", "setdefault", "add", "discard", "sort", "reverse"})
# (file, expression written) → why it is not the state
NOT_STATE = {
    ("config/allocation.py", "top.queues"): "the allocation file parser's queue list",
    ("core/model/tree.py", "builder.nodes"): "the queue tree's builder, before the tree exists",
    ("core/preemption/requests.py", "v.nodes"): "a starved request's candidate nodes",
    ("core/model/changes.py", "reader.apps"): "a change reader's record of what changed",
    ("core/model/changes.py", "reader.queues"): "a change reader's record of what changed",
    ("core/model/changes.py", "reader.nodes"): "a change reader's record of what changed",
    ("core/heartbeat/order_index.py", "changes.apps"):
        "the order index's change reader, to which a cluster change adds entries to redo",
    ("core/heartbeat/order_index.py", "changes.queues"):
        "the order index's change reader, to which a cluster change adds entries to redo",
    ("core/starvation/leaf.py", "writes.last_time_at_min_share"):
        "the starvation step's notes of what to write (StarvationWrites), applied by hub/state",
    ("core/starvation/incremental.py", "writes.starved"):
        "the starvation step's notes of what to write (StarvationWrites), applied by hub/state",
    ("sim/importer/history.py", "history.apps"): "the importer's job-history record",
    ("sim/parse/timed_spec.py", "checker.nodes"): "the timed scenario checker's node names",
    ("sim/parse/yaml_events.py", "top.key"): "a YAML document's position",
    ("sim/run/loop.py", "self.apps[event.app].preempted_containers"):
        "the simulator's own progress record of an app (AppProgress)",
    ("sim/run/loop.py", "app.preempted_containers"):
        "the simulator's own progress record of an app (AppProgress)",
    ("server/am.py", "app.queue"):
        "the AM protocol's own records of an app and its attempts (server/am_state.py)",
    ("server/am.py", "app.attempt"):
        "the AM protocol's own records of an app and its attempts (server/am_state.py)",
    ("server/am.py", "attempt.allocated"):
        "the AM protocol's own records of an app and its attempts (server/am_state.py)",
    ("server/loop.py", "record.state"):
        "the RM's own records of apps, attempts and nodes (server/rm.py), not the engine's",
    ("server/loop.py", "record.queue"):
        "the RM's own records of apps, attempts and nodes (server/rm.py), not the engine's",
    ("server/rm.py", "self.nodes[node_id].capacity"):
        "the RM's own records of apps, attempts and nodes (server/rm.py), not the engine's",
    ("server/rm.py", "app.state"):
        "the RM's own records of apps, attempts and nodes (server/rm.py), not the engine's",
    ("server/rm.py", "node.state"):
        "the RM's own records of apps, attempts and nodes (server/rm.py), not the engine's",
    ("server/rm.py", "app.queue"):
        "the RM's own records of apps, attempts and nodes (server/rm.py), not the engine's",
    ("server/rm.py", "attempt.state"):
        "the RM's own records of apps, attempts and nodes (server/rm.py), not the engine's",
    ("server/rm.py", "attempt.node"):
        "the RM's own records of apps, attempts and nodes (server/rm.py), not the engine's",
    ("server/rm.py", "old.state"):
        "the RM's own records of apps, attempts and nodes (server/rm.py), not the engine's",
    ("server/session.py", "app.preempted_containers"):
        "the session's progress record of an app the app model does not run",
    ("sim/record/recorder.py", "other.starved"):
        "the recorder's integrals copied for a summary mid-session (_Integrals.copy)",
    ("sim/record/recorder.py", "view.apps"):
        "the recorder's copy of its own state for a summary mid-session (SimRecorder.ended)",
}
RECORD_SELF_WRITES = {"__post_init__", "unallocated"}


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign | ast.Delete):
        found = list(node.targets)
    elif isinstance(node, ast.AugAssign | ast.AnnAssign):
        found = [node.target]
    else:
        return []
    flat: list[ast.expr] = []
    while found:
        target = found.pop()
        if isinstance(target, ast.Tuple | ast.List):
            found.extend(target.elts)
        else:
            flat.append(target)
    return flat


def _written(node: ast.AST) -> list[ast.Attribute]:
    """The record-like attributes ``node`` writes: assigned, an item assigned, or mutated."""
    written: list[ast.Attribute] = []
    for target in _targets(node):
        if isinstance(target, ast.Subscript):
            target = target.value  # type: ignore[assignment]
        if isinstance(target, ast.Attribute) and target.attr in FIELDS:
            written.append(target)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
            and node.func.attr in MUTATORS and isinstance(node.func.value, ast.Attribute) \
            and node.func.value.attr in FIELDS:
        written.append(node.func.value)
    return written


def _own(attribute: ast.Attribute) -> bool:
    return isinstance(attribute.value, ast.Name) and attribute.value.id == "self"


def writes_outside_the_owner(path: Path, text: str, exceptions: bool = True) -> list[str]:
    """``file:line expression`` for every write of the state in ``text`` (from ``path``),
    but those :data:`NOT_STATE` lists (unless ``exceptions`` is off)."""
    if path.is_relative_to(OWNER):
        return []
    name = path.relative_to(SRC).as_posix()
    found: list[str] = []

    def visit(node: ast.AST, function: str | None) -> None:
        for attribute in _written(node):
            expression = ast.unparse(attribute)
            if exceptions and (name, expression) in NOT_STATE:
                continue
            if _own(attribute) and (path != RECORDS or function in RECORD_SELF_WRITES):
                continue
            found.append(f"{name}:{getattr(node, 'lineno', 0)} {expression}")
        inner = node.name if isinstance(node, ast.FunctionDef) else function
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(ast.parse(text), None)
    return found


def _by_name(call: ast.Call) -> ast.expr | None:
    """The object ``call`` writes by an attribute name in a string, if it is such a call."""
    func = call.func
    if ((isinstance(func, ast.Name) and func.id in ("setattr", "delattr"))
            or (isinstance(func, ast.Attribute) and func.attr in ("__setattr__", "__delattr__"))) \
            and call.args:
        return call.args[0]
    return None


def writes_by_name(path: Path, text: str) -> list[str]:
    """``file:line call`` for every write by a name in a string in ``text`` (from ``path``)
    but an object's of its own fields (in the records' module, only their initialisation)."""
    name = path.relative_to(SRC).as_posix()
    found: list[str] = []

    def visit(node: ast.AST, function: str | None) -> None:
        target = _by_name(node) if isinstance(node, ast.Call) else None
        if target is not None and not (
                isinstance(target, ast.Name) and target.id == "self"
                and (path != RECORDS or function in RECORD_SELF_WRITES)):
            found.append(f"{name}:{getattr(node, 'lineno', 0)} {ast.unparse(node)}")
        inner = node.name if isinstance(node, ast.FunctionDef) else function
        for child in ast.iter_child_nodes(node):
            visit(child, inner)

    visit(ast.parse(text), None)
    return found


def test_only_the_state_package_writes_the_state() -> None:
    found = [w for path in sorted(SRC.rglob("*.py"))
             for w in writes_outside_the_owner(path, path.read_text())]
    assert found == []


def test_the_writers_are_in_the_package() -> None:
    """The rule exempts the package: it must be where the writers are."""
    assert (OWNER / "__init__.py").is_file() and {p.stem for p in OWNER.glob("*.py")} >= {
        "nodes", "apps", "queues", "containers", "preemption", "starvation"}


def test_no_write_by_a_name_in_a_string() -> None:
    found = [w for path in sorted(SRC.rglob("*.py"))
             for w in writes_by_name(path, path.read_text())]
    assert found == []


@pytest.mark.parametrize("code", [
    "setattr(q, counter, getattr(q, counter) + 1)",
    "delattr(app, name)",
    "object.__setattr__(app, 'usage', x)",
    "class QueueRuntime:\n    def bump(self):\n        setattr(self, 'apps_killed', 1)",
])
def test_a_write_by_a_name_is_found(code: str) -> None:
    path = RECORDS if code.startswith("class") else OWNER / "queues.py"
    assert len(writes_by_name(path, code)) == 1


@pytest.mark.parametrize("code", [
    "class Cache:\n    def f(self, name):\n        setattr(self, name, 0)",
    "value = getattr(app, name)",
])
def test_an_object_s_own_fields_by_name_and_reads_are_not_writes(code: str) -> None:
    assert writes_by_name(OWNER / "queues.py", code) == []


def test_records_write_by_name_only_in_their_initialisation() -> None:
    code = ("class App:\n    def __post_init__(self):\n        setattr(self, name, none)\n")
    assert writes_by_name(RECORDS, code) == []


def test_the_exceptions_are_still_there() -> None:
    """An exception no longer needed is a hole in the rule: each must still match a write."""
    for file, expression in NOT_STATE:
        path = SRC / file
        assert any(w.endswith(" " + expression) for w in writes_outside_the_owner(
            path, path.read_text(), exceptions=False)), (file, expression)


@pytest.mark.parametrize("code", [
    "app.usage = x",
    "s.state.allocated += x",
    "node.containers[c.id] = c",
    "del node.earmarks[key]",
    "app.asks.clear()",
    "s.state.queues[name].runnable_apps.append(app)",
    "a.fairshare_starvation, a.last_time_at_fair_share = amount, last",
    "def f(self):\n    self.s.state.starved = q",
])
def test_a_write_anywhere_else_is_found(code: str) -> None:
    found = writes_outside_the_owner(SRC / "core" / "engine.py", code)
    assert found and all(w.split(" ", 1)[1] in code for w in found)


@pytest.mark.parametrize("code", [
    "class Cache:\n    def f(self):\n        self.apps = {}",
    "usage = app.usage",
    "x = node.containers.get(c)",
    "ask_count = len(app.asks)",
])
def test_reads_and_an_object_s_own_fields_are_not_writes(code: str) -> None:
    assert writes_outside_the_owner(SRC / "core" / "engine.py", code) == []


def test_records_write_only_their_initialisation() -> None:
    code = ("class App:\n    def __post_init__(self):\n        self.usage = none\n"
            "    def bump(self):\n        self.next_container += 1\n")
    assert writes_outside_the_owner(RECORDS, code) == [
        "core/model/records.py:5 self.next_container"]

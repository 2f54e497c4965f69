"""One place sets the engine's clock: ``Scheduler.set_clock`` (issue 31).

Every step reads ``s.now``; only the engine's ``advance_to`` (through ``set_clock``) decides
when it moves, so a live ResourceManager driving the engine from a real clock has one method to
hook. An assignment to ``.now`` anywhere else in ``fairshare.core`` is refused here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import fairshare.core

CORE = Path(fairshare.core.__file__).parent


def _now_assignments(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, enclosing function) of every ``….now = …``, ``….now += …`` or ``….now: … = …``."""
    found: list[tuple[int, str]] = []

    def visit(node: ast.AST, function: str) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            function = node.name
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            for part in ast.walk(target):
                if isinstance(part, ast.Attribute) and part.attr == "now":
                    found.append((node.lineno, function))
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, "")
    return found


def test_only_set_clock_assigns_now() -> None:
    where = []
    for path in sorted(CORE.rglob("*.py")):
        for line, function in _now_assignments(ast.parse(path.read_text(encoding="utf-8"))):
            where.append((path.relative_to(CORE).as_posix(), function, line))
    assert [(p, f) for p, f, _ in where] == [("hub/scheduler.py", "set_clock")], where


def test_the_check_sees_assignments() -> None:
    tree = ast.parse("def f(s):\n    s.now = 1\n    s.x.now += 2\n")
    assert _now_assignments(tree) == [(2, "f"), (3, "f")]

"""Layers import only downward (docs/architecture.md): resources < config < core < cli."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "fairshare"
ORDER = ["resources", "config", "core", "sim", "report", "server", "cli"]


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m.split(".")[1] for m in found if m.startswith("fairshare.") and m.count(".") >= 1}


@pytest.mark.parametrize("layer", [p.name for p in SRC.iterdir() if p.is_dir() and
                                   p.name in ORDER])
def test_layer_imports_only_downward(layer: str) -> None:
    allowed = set(ORDER[: ORDER.index(layer) + 1])
    for path in (SRC / layer).rglob("*.py"):
        bad = _imports(path) - allowed
        assert not bad, f"{path.relative_to(SRC)} imports {sorted(bad)} above layer {layer!r}"


def test_core_does_no_io_and_reads_no_clock() -> None:
    forbidden = {"time", "datetime", "random", "os", "pathlib", "open"}
    for path in (SRC / "core").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                assert not {a.name for a in node.names} & forbidden, path
            if isinstance(node, ast.ImportFrom):
                assert (node.module or "") not in forbidden, path
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id != "open", path

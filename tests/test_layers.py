"""Layers import only downward (docs/architecture.md): resources < config < core < sim <
report, workbench (siblings: neither imports the other) < web (the live pages and their
history) < watch, server (siblings) < cli."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "fairshare"
LEVELS = [("resources",), ("config",), ("core",), ("sim",), ("report", "workbench"), ("web",),
          ("watch", "server"), ("cli",)]
ORDER = [layer for level in LEVELS for layer in level]


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
    level = next(i for i, names in enumerate(LEVELS) if layer in names)
    allowed = {name for names in LEVELS[:level] for name in names} | {layer}
    for path in (SRC / layer).rglob("*.py"):
        bad = _imports(path) - allowed
        assert not bad, f"{path.relative_to(SRC)} imports {sorted(bad)} above layer {layer!r}"


def test_no_relative_imports() -> None:
    # Layering is checked on absolute imports only, so relative ones are not allowed at all.
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                assert node.level == 0, f"{path.relative_to(SRC)} uses a relative import"


FORBIDDEN_IN_CORE = {
    "time", "datetime", "random", "os", "sys", "pathlib", "uuid", "secrets", "socket",
    "subprocess", "threading", "numpy.random",
}


@pytest.mark.parametrize("layer", ["resources", "core"])
def test_pure_layers_do_no_io_read_no_clock_and_draw_no_randomness(layer: str) -> None:
    for path in (SRC / layer).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = {a.name for a in node.names}
                assert not names & FORBIDDEN_IN_CORE, f"{path.name} imports {names}"
            if isinstance(node, ast.ImportFrom):
                assert (node.module or "") not in FORBIDDEN_IN_CORE, f"{path.name}: {node.module}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                # open: I/O; hash/id: per-process values that must never decide an order
                assert node.func.id not in {"open", "hash", "id", "input", "print"}, path.name
            is_random = isinstance(node, ast.Attribute) and node.attr == "random"
            assert not is_random, f"{path.name} uses .random"


ROOT = SRC.parents[1]
# everything that drives the engine from outside: the layers above core, the benchmarks, the
# differential oracle's driver of fairshare
OUTSIDE_CORE = sorted(
    [p for layer in ORDER[ORDER.index("sim"):] for p in (SRC / layer).rglob("*.py")]
    + list((ROOT / "bench").glob("*.py")) + list((ROOT / "oracle").rglob("*.py")))


def test_outside_core_only_the_public_api_is_used() -> None:
    """``from fairshare.core import …`` (its pinned ``__all__``), never a module inside it,
    and never the engine's Scheduler (``engine.s``)."""
    assert len(OUTSIDE_CORE) > 40
    for path in OUTSIDE_CORE:
        where = path.relative_to(ROOT)
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("fairshare.core."), \
                    f"{where} imports {node.module}"
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("fairshare.core.") for a in node.names), where
            if isinstance(node, ast.Attribute) and node.attr == "s":
                owner = node.value
                name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
                assert "engine" not in name, f"{where}:{node.lineno} reads {name}.s"



@pytest.mark.parametrize("package", ["parse", "sources"])
def test_reading_scenarios_and_workloads_needs_no_loop_and_no_recording(package: str) -> None:
    """sim/parse and sim/sources turn files into plain data; running it (sim/run), recording a
    run (sim/record) and importing a cluster (sim/importer) are above them."""
    above = {"fairshare.sim.run", "fairshare.sim.record", "fairshare.sim.importer"}
    for path in (SRC / "sim" / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                bad = {m for m in above if node.module == m or node.module.startswith(m + ".")}
                assert not bad, f"{path.relative_to(SRC)} imports {node.module}"


# Inside core: its packages by concept, each importing only those before it (and itself); the
# modules at the top of core come last, in this order. docs/architecture.md draws them.
CORE = SRC / "core"
CORE_LEVELS = [("rules",), ("model",), ("hub",), ("lifecycle",), ("shares",), ("starvation",),
               ("heartbeat",), ("preemption",), ("update", "metrics"),
               ("steps", "snapshot"), ("queries",), ("engine",), ("commands",), ("__init__",)]


def _core_unit(module: str) -> str:
    """``fairshare.core.shares.demand`` → ``shares``; ``fairshare.core.engine`` → ``engine``."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else "__init__"


def _core_imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "fairshare.core":
                found.update(f"fairshare.core.{a.name}" for a in node.names)
            elif node.module.startswith("fairshare.core."):
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names
                             if (CORE / Path(*node.module.split(".")[2:]) / a.name).is_dir()
                             or (CORE / Path(*node.module.split(".")[2:]) /
                                 f"{a.name}.py").is_file())
    return found


def _module_of(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


CORE_MODULES = {_module_of(p): p for p in sorted(CORE.rglob("*.py"))}


def test_core_is_one_folder_per_concept_each_importing_only_what_is_below_it() -> None:
    rank = {unit: i for i, level in enumerate(CORE_LEVELS) for unit in level}
    assert {_core_unit(m) for m in CORE_MODULES} == set(rank), "a core unit not in CORE_LEVELS"
    for module, path in CORE_MODULES.items():
        mine = rank[_core_unit(module)]
        for imported in _core_imports(path):
            theirs = rank[_core_unit(imported)]
            assert theirs < mine or (theirs == mine and _core_unit(imported)
                                     == _core_unit(module)), \
                f"{module} imports {imported}, which is not below it"


def test_no_import_cycle_inside_core() -> None:
    graph = {m: {i for i in _core_imports(p) if i in CORE_MODULES and i != m}
             for m, p in CORE_MODULES.items()}
    done: set[str] = set()

    def visit(module: str, path: tuple[str, ...]) -> None:
        assert module not in path, f"import cycle: {' → '.join((*path, module))}"
        if module in done:
            return
        for imported in sorted(graph[module]):
            visit(imported, (*path, module))
        done.add(module)

    for module in sorted(graph):
        visit(module, ())


def test_core_has_no_type_checking_imports() -> None:
    """An import hidden under ``TYPE_CHECKING`` is a cycle the layering above does not see."""
    for path in CORE.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert "TYPE_CHECKING" not in text, f"{path.relative_to(SRC)} uses TYPE_CHECKING"


def test_the_core_layer_checks_catch_an_upward_import_and_a_cycle(tmp_path: Path) -> None:
    upward = tmp_path / "x.py"
    upward.write_text("from fairshare.core.engine import Engine\n")
    assert _core_imports(upward) == {"fairshare.core.engine"}
    assert _core_unit("fairshare.core.engine") == "engine"
    rank = {unit: i for i, level in enumerate(CORE_LEVELS) for unit in level}
    assert rank["engine"] > rank["model"]  # so model importing engine is refused above
    package = tmp_path / "y.py"
    package.write_text("from fairshare.core import engine\n"
                       "from fairshare.core.hub import state\n")
    assert _core_imports(package) == {"fairshare.core.engine", "fairshare.core.hub",
                                      "fairshare.core.hub.state"}

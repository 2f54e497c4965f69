"""docs/architecture.md names only what exists: every module of its package table, every path,
and every dotted name (``update.IncrementalUpdate``, ``preemption.round.preempt_for_starved_apps``)
of its prose and diagrams. A module that moves or is renamed fails here until the page follows.

Names are looked up in the source, not imported: a name resolves where it is *defined* (a
class, a function, an assignment, a method or field of a class), so a name the page puts in a
module that merely re-exports it fails too."""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"
SRC = ROOT / "src" / "fairshare"
# where a path relative to something is looked for: the repository, the package, core
BASES = (ROOT, SRC, SRC / "core")
# backticked names in the module column that are folders of data, not packages
DATA_DIRS = {"containers/"}  # the dump's container lists (docs/import.md)
# dotted names in the prose that are scenario keys, not code (docs/scenario-format.md)
SCENARIO_KEYS = {"workload.changes"}
FILE_SUFFIXES = ("py", "json", "jsonl", "csv", "parquet", "html", "md", "png", "svg")

_TICKED = re.compile(r"`([^`\n]+)`")
_DOTTED = re.compile(r"[a-z_]\w*(?:\.[A-Za-z_]\w*)+")


def _text() -> str:
    return PAGE.read_text(encoding="utf-8")


def _table_rows() -> list[tuple[str, str]]:
    """(package, modules cell) of every row of the package table."""
    rows, inside = [], False
    for line in _text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| package | modules |"):
            inside = True  # the page has other tables (the commands'): only this one counts
        elif inside and not line.startswith("|"):
            break
        elif inside and line.startswith("| `") and len(cells) >= 2:
            rows.append((cells[0], cells[1]))
    assert rows, "docs/architecture.md has no package table"
    return rows


def _package_dir(cell: str) -> Path:
    """``core/model`` → src/fairshare/core/model; ``core`` (top) → src/fairshare/core."""
    names = _TICKED.findall(cell)
    assert len(names) == 1, f"the package cell {cell!r} names one package"
    return SRC / names[0]


def _exists(name: str, places: list[Path]) -> bool:
    return any(list(place.glob(name.rstrip("/"))) for place in places if place.is_dir())


def test_the_package_table_names_existing_packages_and_modules() -> None:
    """Each row's modules, read in order: a folder of the package (``lint/``, ``**parse/**``)
    holds the modules named after it, until the next one; a module is in that folder or the
    row's package. Other folders (``sim/``, ``bench/``) are the repository's or the package's."""
    rows = _table_rows()
    assert len(rows) >= 10, "the package table was not found"
    missing = []
    for package, modules in rows:
        top = _package_dir(package)
        if not top.is_dir():
            missing.append(f"{package}: no package {top.relative_to(ROOT)}")
            continue
        folder = top
        for name in _TICKED.findall(modules):
            if name.endswith("/"):
                if name in DATA_DIRS:
                    continue
                if (top / name).is_dir():
                    folder = top / name
                elif not any((base / name).is_dir() for base in BASES):  # sim/, bench/
                    missing.append(f"{package}: no folder {name}")
            elif name.endswith(".py"):
                places = [folder, top] + ([*BASES] if "/" in name else [])
                if not _exists(name, places):
                    missing.append(f"{package}: no module {name} in {folder.relative_to(SRC)}")
    assert missing == []


def _prose() -> str:
    """The page without its table rows (their module column is checked above; the last
    column names Hadoop's classes and packages)."""
    return "\n".join(line for line in _text().splitlines() if not line.startswith("|"))


def test_every_path_the_page_names_exists() -> None:
    """``hub/state.py``, ``tests/oracles/walk.py``, ``core/rules``, and a module's name with
    it: ``heartbeat/order_index.OrderIndex``."""
    names = {n for n in _TICKED.findall(_prose()) if "/" in n and " " not in n}
    assert len(names) > 20
    missing = []
    for name in sorted(names):
        path, _, attributes = name.partition(".") if not name.endswith(
            tuple(f".{s}" for s in FILE_SUFFIXES)) else (name, "", "")
        places = [base / path for base in BASES]
        if attributes:
            found = [p for p in places if p.with_suffix(".py").is_file()]
            if not any(_defines(p.with_suffix(".py"), attributes.split(".")) for p in found):
                missing.append(name)
        elif not any(p.exists() for p in places):
            missing.append(name)
    assert missing == []


@cache
def _modules() -> dict[str, Path]:
    """Every module of ``fairshare`` and of ``oracle/``, by dotted name; a package by its own."""
    found: dict[str, Path] = {}
    for top, prefix in ((SRC, "fairshare"), (ROOT / "oracle", "oracle")):
        for path in top.rglob("*.py"):
            parts = path.relative_to(top).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((prefix, *parts))] = path
    return found


def _scope_names(body: list[ast.stmt]) -> dict[str, ast.stmt]:
    names: dict[str, ast.stmt] = {}
    for node in body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            names[node.name] = node
        elif isinstance(node, ast.Assign):
            names.update((t.id, node) for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] = node
    return names


def _defines(path: Path, attributes: list[str]) -> bool:
    """Whether ``path`` defines ``attributes[0]``, it ``attributes[1]`` (a class's method or
    field), …"""
    body: list[ast.stmt] = ast.parse(path.read_text(encoding="utf-8")).body
    for name in attributes:
        node = _scope_names(body).get(name)
        if node is None:
            return False
        body = node.body if isinstance(node, ast.ClassDef) else []
    return True


def resolves(dotted: str) -> bool:
    """``update.IncrementalUpdate.update``: some module whose dotted name ends in a prefix of
    it (``…core.update``) defines the rest."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        tail = ".".join(parts[:cut])
        for module, path in _modules().items():
            if (module == tail or module.endswith("." + tail)) and (
                    cut == len(parts) or _defines(path, parts[cut:])):
                return True
    return False


def _is_ours(dotted: str) -> bool:
    """Whether a dotted name starts with one of our modules' or packages' names (``s.write``,
    ``order.apps``, ``root.default`` and ``concurrent.futures`` do not)."""
    first = dotted.split(".")[0]
    return any(module.split(".")[-1] == first or f".{first}." in f"{module}."
               for module in _modules())


def _dotted_names() -> set[str]:
    text = _text()
    names = {n for n in _TICKED.findall(re.sub(r"```.*?```", "", text, flags=re.S))
             if _DOTTED.fullmatch(n)}
    for block in re.findall(r"```\n(.*?)```", text, flags=re.S):
        # not a file's name (fair-scheduler.xml, oracle/events.jsonl)
        names |= set(re.findall(r"(?<![\w./-])" + _DOTTED.pattern, block))
    return {n for n in names if n.rsplit(".", 1)[-1] not in FILE_SUFFIXES
            and n not in SCENARIO_KEYS and _is_ours(n)}


def test_every_dotted_name_the_page_uses_is_defined_there() -> None:
    names = _dotted_names()
    assert {"update.IncrementalUpdate", "heartbeat.walk.attempt_scheduling",
            "sim.run.scripted.ScriptRunner"} <= names, "the page's names were not found"
    assert sorted(n for n in names if not resolves(n)) == []


def test_a_wrong_name_does_not_resolve() -> None:
    # where these were before issue 31's moves, or never were
    for wrong in ("preemption.commit.preempt_for_starved_apps", "model.context.Context",
                  "core.model.scheduler", "update.IncrementalUpdate.no_such_method"):
        assert not resolves(wrong), wrong
    assert resolves("preemption.round.preempt_for_starved_apps")

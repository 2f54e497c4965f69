"""Module docstrings name only what exists: every ``fairshare.…`` dotted name, every Sphinx
reference (``:func:`x```, ``:mod:`.timed```) and every ``sim/run/timed.py``-like path in the
docstring of a module under ``src/`` resolves. A module, function or file that moves or is
renamed fails here until the docstrings that name it follow.

A reference resolves as Sphinx would look for it: relative to the module (``x`` in its own
namespace, ``.x`` in its package), or absolute (``fairshare.core.hub.state``); a dotted name is
imported module by module, then looked up attribute by attribute."""

from __future__ import annotations

import ast
import builtins
import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "fairshare"
# where a path in a docstring is looked for: the repository, the package, and its layers
BASES = (ROOT, SRC, SRC / "core", SRC / "sim")

_ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc):`~?([.\w]+)`")
_DOTTED = re.compile(r"(?<![\w.])fairshare(?:\.\w+)+")
_PATH = re.compile(r"(?<![\w./-])((?:\w+/)+\w+\.py)\b")


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(SRC.rglob("*.py"))
           if p.name != "__main__.py"}


def _lookup(dotted: str) -> bool:
    """Whether ``a.b.c.d`` is a module, or a module's attribute (and an attribute of that…)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: object = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(obj, name):
                # a dataclass field without a default is no class attribute
                return name == parts[-1] and name in getattr(obj, "__dataclass_fields__", {})
            obj = getattr(obj, name)
        return True
    return False


def _resolves(reference: str, module: str, is_package: bool) -> bool:
    if reference.startswith("."):
        package = module if is_package else module.rsplit(".", 1)[0]
        return _lookup(package + reference)
    return (_lookup(f"{module}.{reference}") or _lookup(reference)
            or hasattr(builtins, reference))  # :class:`ValueError`


def _unresolved(module: str, path: Path) -> list[str]:
    doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
    is_package = path.name == "__init__.py"
    wrong = [f":{r}:" for r in _ROLE.findall(doc) if not _resolves(r, module, is_package)]
    wrong += [d for d in _DOTTED.findall(_ROLE.sub("", doc)) if not _lookup(d)]
    wrong += [p for p in _PATH.findall(doc) if not any((b / p).is_file() for b in BASES)]
    return wrong


@pytest.mark.parametrize("module", sorted(MODULES))
def test_a_module_docstring_names_only_what_exists(module: str) -> None:
    assert _unresolved(module, MODULES[module]) == []


def test_a_stale_name_is_found(tmp_path: Path) -> None:
    # the names issue 31's moves left behind, or that never were
    stale = tmp_path / "stale.py"
    stale.write_text('"""See :mod:`fairshare.core.model.scheduler`, :func:`.timed`, '
                     ':class:`NoSuchClass`, fairshare.sim.parse.units and sim/parse/units.py."""\n',
                     encoding="utf-8")
    assert _unresolved("fairshare.sim.parse.timed_spec", stale) == [
        ":fairshare.core.model.scheduler:", ":.timed:", ":NoSuchClass:",
        "fairshare.sim.parse.units", "sim/parse/units.py"]

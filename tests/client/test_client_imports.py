"""fairshare.client is carried alone by an AM: it imports httpx and the standard library, and
nothing else of fairshare."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

CLIENT = Path(__file__).resolve().parents[2] / "src" / "fairshare" / "client"


def test_the_client_imports_only_httpx_and_itself() -> None:
    for path in CLIENT.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                top = name.split(".")[0]
                assert (top in sys.stdlib_module_names or top == "httpx"
                        or name.startswith("fairshare.client")), f"{path.name}: {name}"

"""What every ``fairshare`` command shares: the consoles and the error path (exit 2)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import typer
from rich.console import Console

from fairshare.config.errors import ConfigError, LocatedWarning, all_errors

EXIT_INVALID = 2
_T = TypeVar("_T")

out = Console(highlight=False)
if not out.is_terminal:
    out = Console(highlight=False, width=120)  # files and pipes: don't wrap tables at 80
err = Console(stderr=True, highlight=False)


def fail(lines: Sequence[str]) -> typer.Exit:
    for line in lines:
        err.print(line, markup=False, soft_wrap=True)
    return typer.Exit(EXIT_INVALID)


def guarded(load: Callable[[], _T]) -> _T:
    """Run a configuration step; on error print every ``file:line: message`` and exit 2."""
    try:
        return load()
    except ConfigError as exc:
        # Errors and the warnings found in the same pass: each file's together, in line order,
        # the files in the order their first problem was found.
        found: list[ConfigError | LocatedWarning] = [*all_errors(exc), *exc.warnings]
        files = list(dict.fromkeys(p.file for p in found))
        ordered = sorted(found, key=lambda p: (files.index(p.file), p.line or 0))
        raise fail([str(p) for p in ordered]) from None

"""What every ``fairshare`` command shares: the consoles and the error path (exit 2).

Everything printed comes from user files at some point (queue, app and scenario names, paths),
so the consoles never read text as rich markup or ``:emoji:`` codes: ``[/x]`` and
``l100.yaml:100:`` print as they are. Styling is applied explicitly (``style=``, ``Text``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

import typer
from rich.console import Console

from fairshare.config.errors import ConfigError, LocatedWarning, all_errors

EXIT_INVALID = 2
_T = TypeVar("_T")


def _console(*, stderr: bool = False) -> Console:
    console = Console(stderr=stderr, markup=False, emoji=False, highlight=False)
    if not stderr and not console.is_terminal:  # files and pipes: don't wrap tables at 80
        console = Console(markup=False, emoji=False, highlight=False, width=120)
    return console


out = _console()
err = _console(stderr=True)


def fail(lines: Sequence[str]) -> typer.Exit:
    for line in lines:
        err.print(line, soft_wrap=True)
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

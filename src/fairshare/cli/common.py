"""What every ``fairshare`` command shares: the consoles and the error path (exit 2).

Everything printed comes from user files at some point (queue, app and scenario names, paths),
so the consoles never read text as rich markup or ``:emoji:`` codes: ``[/x]`` and
``l100.yaml:100:`` print as they are. Styling is applied explicitly (``style=``, ``Text``).
Control characters print escaped, and an error's newlines too (:func:`one_line`), so every
problem stays one ``file:line: message`` line.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import typer
from rich.console import Console
from rich.text import Text

from fairshare.config.errors import ConfigError, LocatedWarning, all_errors

EXIT_INVALID = 2
# Files and pipes get lines as long as they need: a table cell is never split across lines
# (a terminal wraps at its own width)
PIPE_WIDTH = 1_000_000
_T = TypeVar("_T")


# C0 controls but tab and newline, DEL, C1: a name could otherwise move the cursor, clear the
# screen or retitle the terminal (ESC sequences)
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def _escaped(match: re.Match[str]) -> str:
    return f"\\x{ord(match.group()):02x}"


def printable(text: str) -> str:
    """``text`` with its control characters escaped, as every console prints strings."""
    return _CONTROLS.sub(_escaped, text)


def one_line(text: str) -> str:
    """``text`` with its newlines escaped: every error or warning is one ``file:line:`` line."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


class _TextConsole(Console):
    """A console that prints every string as text: no markup, no emoji codes, and control
    characters escaped (``\x1b``)."""

    def render_str(self, text: str, **kwargs: Any) -> Text:
        return super().render_str(printable(text), **kwargs)


def _console(*, stderr: bool = False) -> Console:
    console = _TextConsole(stderr=stderr, markup=False, emoji=False, highlight=False)
    if not stderr and not console.is_terminal:  # files and pipes: never wrap
        console = _TextConsole(markup=False, emoji=False, highlight=False, width=PIPE_WIDTH)
    return console


out = _console()
err = _console(stderr=True)


def fail(lines: Sequence[str]) -> typer.Exit:
    for line in lines:
        err.print(one_line(line), soft_wrap=True)
    return typer.Exit(EXIT_INVALID)


def warn(warnings: Iterable[object]) -> None:
    """Print each warning (``file:line: warning: …``) on stderr, in yellow."""
    for warning in warnings:
        err.print(one_line(str(warning)), soft_wrap=True, style="yellow")


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

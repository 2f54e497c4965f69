"""What every ``fairshare`` command shares: the consoles and the error path (exit 2).

Everything printed comes from user files at some point (queue, app and scenario names, paths),
so the consoles never read text as rich markup or ``:emoji:`` codes: ``[/x]`` and
``l100.yaml:100:`` print as they are. Styling is applied explicitly (``style=``, ``Text``).
Control characters print escaped, and an error's newlines too (:func:`one_line`), so every
problem stays one ``file:line: message`` line.
"""

from __future__ import annotations

import inspect
import os
import re
import socket
from collections.abc import Callable, Iterable, Sequence
from enum import StrEnum
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from typer import _click as click
from typer.core import TyperGroup

from fairshare.config.errors import ConfigError, LocatedWarning, all_errors

EXIT_INVALID = 2
# Files and pipes get lines as long as they need (a table cell is never split across lines),
# unless COLUMNS says how wide: ``COLUMNS=100 fairshare … | less`` fits tables to 100 columns.
# A terminal's width is its own.
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

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        # rich pads every table row to the table's width: a diff, a grep or a copy from the
        # terminal would carry those spaces
        return super()._render_buffer(without_trailing_spaces(buffer))


def without_trailing_spaces(segments: Iterable[Segment]) -> list[Segment]:
    """``segments`` with the spaces at the end of every line dropped (styles and controls
    kept): rich writes the padding of a table's last column as trailing spaces."""
    kept: list[Segment] = []
    blank: list[Segment] = []  # spaces that stay only if text follows on the same line
    for segment in segments:
        if segment.control:
            kept += blank
            blank = []
            kept.append(segment)
            continue
        for i, piece in enumerate(segment.text.split("\n")):
            if i:
                blank = []
                kept.append(Segment("\n"))
            text = piece.rstrip(" ")
            if text:
                kept += blank
                kept.append(Segment(text, segment.style))
                blank = []
            if len(text) < len(piece):
                blank.append(Segment(piece[len(text):], segment.style))
    return kept + blank  # a line without its newline yet (a prompt, a progress line)


def _console(*, stderr: bool = False) -> Console:
    console = _TextConsole(stderr=stderr, markup=False, emoji=False, highlight=False)
    if not stderr and not console.is_terminal and not _columns_set():
        console = _TextConsole(markup=False, emoji=False, highlight=False, width=PIPE_WIDTH)
    return console


def _columns_set() -> bool:
    """Whether ``COLUMNS`` gives a width (rich then uses it, on a terminal or not)."""
    return os.environ.get("COLUMNS", "").strip().isdigit()


out = _console()
err = _console(stderr=True)


class CommandGroup(TyperGroup):
    """Lists each command with its whole first paragraph, wrapped to the terminal (click would
    cut it to one line with "...")."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                first = inspect.cleandoc(command.help or "").split("\n\n")[0]
                rows.append((name, " ".join(first.split())))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


class Format(StrEnum):
    """``--format``: what a command with a machine-readable output prints."""

    TEXT = "text"
    JSON = "json"


# One output option on every such command; --json stays as the short alias scripts already use
FormatOpt = Annotated[Format, typer.Option(
    "--format", help="text for people, json for scripts.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="The same as --format json.")]


def wants_json(output: Format, as_json: bool) -> bool:
    """Whether ``--format json`` or its alias ``--json`` was given."""
    return as_json or output is Format.JSON


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


def bind_listening(host: str, port: int, option: str = "--listen") -> socket.socket:
    """A listening socket, bound before anything is written or started: a port in use is an
    error of the option, and port 0 is a free one, whose number the caller can print."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named, not 0: asyncio sets TCP_NODELAY on the connections it accepts only
    # on a socket whose proto says TCP (base_events._set_nodelay); without it Nagle holds a
    # response's body behind its headers until the client's delayed ACK, 40 ms per request
    # on a kept-alive connection
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as e:
        sock.close()
        raise fail([f"{option}: cannot listen on {host}:{port}: {e.strerror}"]) from None
    sock.listen(128)
    return sock

"""The ``fairshare`` command: the group that registers every subcommand, each of which lives
in its own module of :mod:`fairshare.cli` (parses arguments, calls the library, prints with
rich), and the entry point.

Bad input never produces a traceback: configuration problems are printed one per line as
``file:line: message`` on stderr and the exit code is 2.
"""

from __future__ import annotations

import io
import signal
import sys
from importlib.metadata import version as package_version
from typing import Annotated

import typer

from fairshare.cli.common import CommandGroup, err, out
from fairshare.cli.compare import compare_command
from fairshare.cli.explain import explain_command
from fairshare.cli.importer import import_command, workload_app
from fairshare.cli.lint import lint as lint_command
from fairshare.cli.report import report_command
from fairshare.cli.run import run as run_command
from fairshare.cli.run import simulate as simulate_command
from fairshare.cli.serve import serve as serve_command
from fairshare.cli.serve_users import users_app
from fairshare.cli.shares import shares as shares_command
from fairshare.cli.sweep import sweep as sweep_command
from fairshare.cli.validate import validate as validate_command
from fairshare.cli.watch import watch_app

# Help in click's plain layout (rich_markup_mode=None): paragraphs are rewrapped to the
# terminal, flags show no "<bool>", and a pipe gets no box drawing or padding
app = typer.Typer(
    cls=CommandGroup,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
)
HADOOP_VERSION = "3.4"  # the release whose FairScheduler the engine reproduces


def _print_version(value: bool) -> None:
    if value:
        out.print(f"fairshare {package_version('fairshare')} (YARN Fair Scheduler semantics of "
                  f"Hadoop {HADOOP_VERSION})")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", is_eager=True,
                     callback=_print_version),
    ] = False,
) -> None:
    """The YARN Fair Scheduler, rebuilt in Python: check configurations, compute shares, run
    scenarios, simulate workloads, tune preemption."""


app.command("validate")(validate_command)
app.command("shares")(shares_command)
app.command("run")(run_command)
app.command("simulate")(simulate_command)
app.command("sweep")(sweep_command)
app.command("compare")(compare_command)
app.command("explain")(explain_command)
app.command("report")(report_command)
app.command("lint")(lint_command)
app.command("import")(import_command)
app.add_typer(workload_app, name="workload")
app.add_typer(watch_app, name="watch")
app.command("serve")(serve_command)
app.add_typer(users_app, name="serve-users")


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


class _Interrupted(BaseException):
    """Ctrl-C. Not a KeyboardInterrupt, which click turns into "Aborted!" and exit 1 (the
    code of a failed expectation); it unwinds the run, whose staged outputs are dropped."""


def _interrupt(signum: int, frame: object) -> None:
    raise _Interrupted


def main() -> None:
    # Paths from the command line can hold bytes that are not UTF-8 (Python keeps them as lone
    # surrogates): print them escaped rather than fail while reporting a problem.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    signal.signal(signal.SIGINT, _interrupt)
    try:
        app(prog_name="fairshare")
    except _Interrupted:
        err.print("interrupted: no output was written or changed")
        sys.exit(EXIT_INTERRUPTED)

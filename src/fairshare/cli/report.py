"""``fairshare report OUTDIR [-o PAGE] [--focus QUEUE]``: the Preemption Tuning page of a run,
or the trade-off page of a sweep (docs/report.md).

A run's directory (it has ``summary.json``) gets ``OUTDIR/report.html``, a sweep's (it has
``sweep.csv``) ``OUTDIR/sweep.html``; the charts go as PNG into ``<page>-files/`` beside the
page. Bad input — no such directory, neither file there, a file that is not what it should be
— is one ``path: message`` line on stderr and exit 2, and nothing is written. A long build
shows its progress on stderr (a bar on a terminal, a line every 30 s elsewhere; none with -q).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from fairshare.cli.common import err, fail, guarded, out
from fairshare.cli.progress import LINE_EVERY_S
from fairshare.config.errors import ConfigError

# fairshare.report is imported where it is used: it brings matplotlib, which the other
# commands (this module is imported by `simulate` and `sweep`) should not wait for
RUN_PAGE, SWEEP_PAGE = "report.html", "sweep.html"
SUMMARY, SWEEP_CSV = "summary.json", "sweep.csv"  # what tells a run's directory from a sweep's

ReportDir = Annotated[Path, typer.Argument(
    show_default=False, help="A run's output directory (fairshare simulate -o) or a sweep's "
    "(fairshare sweep -o).")]
PageOpt = Annotated[Path | None, typer.Option(
    "-o", "--output", show_default=False,
    help="The page to write (default: OUTDIR/report.html, for a sweep OUTDIR/sweep.html); "
    "its charts go as PNG into <page>-files/ beside it.")]
FocusOpt = Annotated[str | None, typer.Option(
    "--focus", metavar="QUEUE", show_default=False,
    help="Sweeps only: the queue whose p95 AM wait the trade-off chart shows (default: the "
    "focus queue whose wait varies most between variants).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print failures only.")]


def report_command(outdir: ReportDir, output: PageOpt = None, focus: FocusOpt = None,
                   quiet: QuietOpt = False) -> None:
    """Write the Preemption Tuning report of a run, or the trade-off page of a sweep: one
    self-contained HTML page, its charts also as PNG."""
    sweep = _is_sweep(outdir)
    if focus is not None and not sweep:
        raise fail([f"--focus {focus}: only for a sweep's directory (it has {SWEEP_CSV}); "
                    f"{outdir} is a run's"])
    page = output or outdir / (SWEEP_PAGE if sweep else RUN_PAGE)
    from fairshare.report import build_report, build_sweep_report

    if sweep:
        written = _guarded_io(lambda: build_sweep_report(outdir, page, focus), page)
    else:
        with build_progress(err, show=not quiet) as progress:
            written = _guarded_io(lambda: build_report(outdir, page, progress), page)
    if not quiet:
        _wrote(written)


def write_run_report(outdir: Path, quiet: bool) -> None:
    """``fairshare simulate --report``: the report of the run just written to ``outdir``."""
    from fairshare.report import build_report

    page = outdir / RUN_PAGE
    with build_progress(err, show=not quiet) as progress:
        written = _guarded_io(lambda: build_report(outdir, page, progress), page)
    if not quiet:
        _wrote(written)


def write_sweep_report(outdir: Path, focus: str | None) -> list[Path] | None:
    """``fairshare sweep``'s page at the end; a sweep with nothing to chart (no variant ran,
    no focus queue) gets a warning instead of a page — the sweep itself did not fail."""
    from fairshare.report import build_sweep_report

    try:
        return build_sweep_report(outdir, outdir / SWEEP_PAGE, focus)
    except ConfigError as e:
        err.print(f"warning: {SWEEP_PAGE} not written: {e}", soft_wrap=True, style="yellow")
        return None


def _is_sweep(outdir: Path) -> bool:
    """A run's directory has summary.json; a sweep's has sweep.csv (and none of its own)."""
    if not outdir.is_dir():
        raise fail([f"{outdir}: not a directory (give a run's or a sweep's output directory, "
                    "its -o)"])
    if (outdir / SUMMARY).exists():
        return False
    if (outdir / SWEEP_CSV).exists():
        return True
    raise fail([f"{outdir}: no {SUMMARY} or {SWEEP_CSV} here: give the -o directory of a "
                "simulation (fairshare simulate) or of a sweep (fairshare sweep)"])


def _guarded_io(build: Callable[[], list[Path]], page: Path) -> list[Path]:
    try:
        return guarded(build)
    except OSError as e:  # what the library did not already name a file for
        raise fail([f"{e.filename or page}: {e.strerror or e}"]) from None


def _wrote(written: list[Path]) -> None:
    from fairshare.report.write import files_dir

    page, charts = written[0], written[1:]
    size = page.stat().st_size
    shown = f"{size / 1e6:.1f} MB" if size >= 100_000 else f"{size / 1e3:.0f} kB"
    plural = "" if len(charts) == 1 else "s"
    out.print(f"Wrote {page} ({shown}) and {len(charts)} chart{plural} as PNG in "
              f"{files_dir(page)}/", soft_wrap=True)


@contextmanager
def build_progress(console: Console, *, show: bool
                   ) -> Iterator[Callable[[str, int, int], None] | None]:
    """A report build's progress: a bar on a terminal, a line every LINE_EVERY_S elsewhere."""
    if not show:
        yield None
        return
    if console.is_terminal:
        columns = (TextColumn("report"), BarColumn(), TextColumn("{task.fields[note]}"),
                   TimeElapsedColumn())
        with Progress(*columns, console=console, transient=True) as bar:
            task: list[TaskID] = []

            def update(note: str, done: int, total: int) -> None:
                if not task:
                    task.append(bar.add_task("report", total=total, note=note))
                bar.update(task[0], completed=done, total=total, note=note)

            yield update
        return
    began = last = time.monotonic()

    def line(note: str, done: int, total: int) -> None:
        nonlocal last
        now = time.monotonic()
        if now - last >= LINE_EVERY_S:
            last = now
            console.print(f"report: {note} ({done}/{total}), {now - began:.0f} s elapsed",
                          soft_wrap=True)

    yield line

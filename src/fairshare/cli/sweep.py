"""``fairshare sweep SCENARIO --set K=V1,V2,… -o OUTDIR``: the grid of variants, in parallel.

Every option and the scenario are checked first, and every variant's configuration (site and
allocation file with its overrides): problems that would stop every variant exit 2 before
anything runs or is written; a variant whose own value is bad is reported (its row says why)
while the others run. Exit 0 when every variant ran, 1 when some failed.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from fairshare.cli import format as fmt
from fairshare.cli.common import err, fail, guarded, one_line, out, warn
from fairshare.cli.progress import count_progress
from fairshare.cli.report import write_sweep_report
from fairshare.cli.run import FixedInterval, Quiet, ScenarioPath
from fairshare.cli.tables import FitTable
from fairshare.config.errors import ConfigError, all_errors
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.parse.steps import Scenario
from fairshare.sim.run.build import prepare_run
from fairshare.workbench.rows import focus_queues, sweep_row, write_rows
from fairshare.workbench.sweep import (
    Variant,
    VariantJob,
    VariantOutcome,
    executor,
    grid,
    parse_axis,
    run_variants,
)

EXIT_SOME_FAILED = 1
MAX_FOCUS_COLUMNS = 3  # focus queues shown on the terminal; sweep.csv has them all

SweepSet = Annotated[list[str] | None, typer.Option(
    "--set", metavar="SCOPE:KEY=V1,V2,…", show_default=False,
    help="A setting and the values to try, repeatable: the sweep runs every combination. "
    "alloc:root.a.fairSharePreemptionTimeout=5,15,60; site:yarn.scheduler.fair.preemption="
    "true,false. Separate values with ';' when they hold commas (resources).")]
Focus = Annotated[list[str] | None, typer.Option(
    "--focus", metavar="QUEUE", show_default=False,
    help="A queue to report on, repeatable (default: every leaf queue with apps).")]
Jobs = Annotated[int | None, typer.Option(
    "--jobs", "-j", min=1, show_default=False,
    help="Variants run at once on this machine (default: the number of cores).")]
Scheduler = Annotated[str | None, typer.Option(
    "--scheduler", metavar="ADDRESS", show_default=False,
    help="Run the variants on a Dask cluster (tcp://host:port); OUTDIR must be reachable "
    "from its workers.")]
SweepOutdir = Annotated[Path, typer.Option(
    "-o", "--outdir", show_default=False,
    help="Each variant's outputs go to OUTDIR/<variant>/; sweep.csv and sweep.parquet have "
    "one row per variant; sweep.html charts them (docs/report.md).")]


def sweep(scenario: ScenarioPath, outdir: SweepOutdir, settings: SweepSet = None,
          focus: Focus = None, jobs: Jobs = None, scheduler: Scheduler = None,
          quiet: Quiet = False, fixed_interval: FixedInterval = False) -> None:
    """Run a scenario's workload under every combination of --set values and compare."""
    if outdir.exists() and not outdir.is_dir():
        raise fail([f"-o {outdir}: not a directory"])
    axes = guarded(lambda: [parse_axis(text) for text in settings or []])
    variants = guarded(lambda: grid(axes))
    spec = guarded(lambda: load_scenario(scenario))
    warn(spec.warnings)
    if spec.workload is None:
        raise fail([f"{spec.source}: nothing to simulate: the scenario has no 'workload'"])
    invalid = _invalid_variants(spec, variants)
    if len(invalid) == len(variants):
        raise fail([line for v in variants for line in invalid[v.name].splitlines()])
    runnable = [VariantJob(str(scenario.resolve()), v, str(outdir / v.name), not fixed_interval)
                for v in variants if v.name not in invalid]
    created = not outdir.exists()
    outdir.mkdir(parents=True, exist_ok=True)
    try:
        ran = _run(runnable, jobs or os.cpu_count() or 1, scheduler, quiet)
    except typer.Exit:
        if created:  # nothing ran (no scheduler, no pool): leave no empty directory behind
            shutil.rmtree(outdir, ignore_errors=True)
        raise
    outcomes = {o.name: o for o in ran}
    for name, error in invalid.items():
        outcomes[name] = VariantOutcome(name, None, error, 0.0)
    ordered = [outcomes[v.name] for v in variants]
    chosen = focus or focus_queues(o.summary for o in ordered)
    rows = [sweep_row(v.name, [(f"{o.scope}:{o.key}", o.value) for o in v.overrides],
                      outcome.summary, outcome.error, chosen)
            for v, outcome in zip(variants, ordered, strict=True)]
    try:
        write_rows(outdir, rows)
    except OSError as e:
        raise fail([f"-o {outdir}: cannot write sweep.csv: {e.strerror or e}"]) from None
    _warn_unknown_focus(chosen, ordered)
    if any(o.summary is not None for o in ordered):  # the trade-off page: sweep.html
        write_sweep_report(outdir, focus[0] if focus else None)
    if not quiet:
        out.print(_table(variants, ordered, rows, chosen, outdir))
    for outcome in ordered:
        if outcome.error is not None:
            for line in outcome.error.splitlines():
                err.print(one_line(f"variant {outcome.name}: {line}"), soft_wrap=True)
    if any(o.error is not None for o in ordered):
        raise typer.Exit(EXIT_SOME_FAILED)


def _invalid_variants(spec: Scenario, variants: list[Variant]) -> dict[str, str]:
    """Variants whose site or allocation file, overrides applied, is wrong: name → problems."""
    invalid: dict[str, str] = {}
    for variant in variants:
        try:
            prepare_run(replace(spec, overrides=variant.overrides))
        except ConfigError as e:
            invalid[variant.name] = "\n".join(str(x) for x in all_errors(e))
    return invalid


def _run(jobs: list[VariantJob], workers: int, scheduler: str | None,
         quiet: bool) -> list[VariantOutcome]:
    if not jobs:
        return []
    try:
        with executor(min(workers, len(jobs)), scheduler) as pool, count_progress(
                err, "variants", len(jobs), show=not quiet) as advance:
            return run_variants(jobs, pool, lambda o: advance(
                f"{o.name}: {'ok' if o.error is None else 'failed'}"))
    except OSError as e:  # a scheduler that cannot be reached, a pool that cannot start
        where = f"--scheduler {scheduler}" if scheduler else "--jobs"
        raise fail([f"{where}: {e.strerror or e}"]) from None


def _warn_unknown_focus(focus: list[str], outcomes: list[VariantOutcome]) -> None:
    known = {q for o in outcomes if o.summary is not None for q in o.summary.queues}
    for queue in focus:
        if known and queue not in known:
            err.print(one_line(f"warning: --focus {queue}: no variant has this queue; its "
                               f"columns are empty"), soft_wrap=True)


def _table(variants: list[Variant], outcomes: list[VariantOutcome], rows: list[dict[str, object]],
           focus: list[str], outdir: Path) -> Table:
    shown = focus[:MAX_FOCUS_COLUMNS]
    more = f"; {len(focus) - len(shown)} more focus queues in" if len(focus) > len(shown) else \
        "; all figures in"
    table = FitTable(box=box.SIMPLE_HEAD, title_justify="left", caption_justify="left",
                  collapse_padding=True, pad_edge=False,
                  title=f"{len(variants)} variants",
                  caption=f"AM wait p95 and time short of the fair-share threshold per focus "
                          f"queue{more} {outdir / 'sweep.csv'}")
    keys = [f"{o.scope}:{o.key}" for o in variants[0].overrides] if variants else []
    table.add_column("variant")
    for key in keys:
        table.add_column(key.rsplit(".", 1)[-1] if key.startswith("site:") else
                         key.removeprefix("alloc:"), justify="right")
    for queue in shown:
        table.add_column(f"{queue}\nAM wait p95", justify="right")
        table.add_column(f"{queue}\nshort", justify="right")
    for column in ("preempted\ncontainer-h", "lost work\ncontainer-h", "memory\nutilization",
                   "wall"):
        table.add_column(column, justify="right")
    for variant, outcome, row in zip(variants, outcomes, rows, strict=True):
        cells = [variant.name.split("-", 1)[0], *(o.value for o in variant.overrides)]
        if outcome.summary is None:
            table.add_row(*cells, *(["–"] * (2 * len(shown))), "failed", "", "", "")
            continue
        for queue in shown:
            cells += [_ms(row.get(f"{queue}:am-wait-p95-ms")),
                      _ms(row.get(f"{queue}:short-of-threshold-ms"))]
        utilization = row["utilization-memory"]
        cells += [f"{row['preempted-container-hours']:.2f}", f"{row['lost-work-hours']:.2f}",
                  fmt.ratio(utilization if isinstance(utilization, float) else None),
                  f"{outcome.seconds:.1f} s"]
        table.add_row(*cells)
    return table


def _ms(value: object) -> str:
    return "–" if not isinstance(value, int) else fmt.duration(value) if value else "0"

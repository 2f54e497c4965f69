"""``fairshare run SCENARIO [-o OUTDIR]``: run a scenario's scripted steps, then its workload.

Exit codes (docs/scenario-format.md): 0 when every ``expect`` held, 1 when one failed (the run
still finishes and writes its outputs), 2 for a scenario or configuration that is wrong.

A scripted-only run ends with the queues as the steps left them. A simulation ends with its
summary (the numbers of ``summary.json``): the queues' time-averaged usage against their steady
and instantaneous fair shares, how long they were starved and how many containers were
preempted from and for them; the apps that waited longest and lost the most work (a few, for
big runs); the cluster's utilization and counts. While it runs, its progress is shown on stderr
(:mod:`fairshare.cli.progress`), unless ``--quiet``.

With ``-o`` the outputs are written to a staging directory and moved into place at the end: a
run that fails (exit 2) or is interrupted leaves the directory as it was.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from fairshare.cli import format as fmt
from fairshare.cli.common import err, fail, guarded, one_line, out, printable, warn
from fairshare.cli.progress import progress
from fairshare.cli.report import write_run_report
from fairshare.cli.tables import FitTable
from fairshare.cli.until import parse_until
from fairshare.config.lint.checks import configuration_findings
from fairshare.config.overrides import parse_override
from fairshare.core import Engine
from fairshare.report import units as report_units
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.record.summary_model import (
    AppEntry,
    IdleTail,
    MaybePair,
    Pair,
    QueueEntry,
    Span,
    Summary,
)
from fairshare.sim.run.build import prepare_run
from fairshare.sim.run.scripted import RunResult, run_scenario

EXIT_EXPECT_FAILED = 1
MAX_QUEUE_ROWS = 40  # a bigger tree shows its most starved and preempted queues
MAX_APP_ROWS = 15  # more apps: the longest waits and the most lost work, this many each
TOP_APPS = 10


ScenarioPath = Annotated[Path, typer.Argument(help="The scenario file (YAML or JSON).",
                                               show_default=False)]
Outdir = Annotated[Path | None, typer.Option(
    "-o", "--outdir", help="Write events.jsonl and snapshots.json here, and for a workload "
    "timeline.csv, timeline.parquet and summary.json.")]
Quiet = Annotated[bool, typer.Option("--quiet", "-q", help="Print failures only.")]
FixedInterval = Annotated[bool, typer.Option(
    "--fixed-interval", help="Simulate every heartbeat (the plain loop; same results, slower).")]
Set = Annotated[list[str] | None, typer.Option(
    "--set", metavar="SCOPE:KEY=VALUE", show_default=False,
    help="Change one setting for this run, repeatable: alloc:root.a.weight=2, "
    "alloc:defaultFairSharePreemptionThreshold=0.9 (top-level), "
    "site:yarn.scheduler.fair.preemption=false. Checked as the file's own value would be.")]


Until = Annotated[int | None, typer.Option(
    "--until", metavar="DURATION", parser=parse_until, show_default=False,
    help="Simulate this long from the simulation's start, in place of the scenario's "
    "run.until-ms: 30m, 1h30m, 90s, 2 h 05 m (as fairshare writes durations), or a number "
    "of milliseconds as in the scenario's -ms keys (600000).")]


def run(scenario: ScenarioPath, outdir: Outdir = None, quiet: Quiet = False,
        fixed_interval: FixedInterval = False, settings: Set = None,
        until: Until = None) -> None:
    """Run a scenario: its steps, snapshots and expectations, then its workload."""
    _execute(scenario, outdir, quiet, fixed_interval, settings or [], simulation_only=False,
             until=until)


Report = Annotated[bool, typer.Option(
    "--report", help="Also write OUTDIR/report.html, the Preemption Tuning report (charts as "
    "PNG in OUTDIR/report-files/; docs/report.md). Needs -o.")]


def simulate(scenario: ScenarioPath, outdir: Outdir = None, quiet: Quiet = False,
             fixed_interval: FixedInterval = False, settings: Set = None,
             report: Report = False, until: Until = None) -> None:
    """Simulate a scenario's workload (after its steps, if any) and summarise it; the
    scenario must have a workload."""
    if report and outdir is None:
        raise fail(["--report: needs -o OUTDIR (the report is made from the run's files)"])
    try:
        _execute(scenario, outdir, quiet, fixed_interval, settings or [], simulation_only=True,
                 until=until)
    except typer.Exit as stop:
        # a failed expectation still wrote the outputs: report on them, then exit 1
        if report and outdir is not None and stop.exit_code == EXIT_EXPECT_FAILED:
            write_run_report(outdir, quiet)
        raise
    if report and outdir is not None:
        write_run_report(outdir, quiet)


def _execute(scenario: Path, outdir: Path | None, quiet: bool, fixed_interval: bool,
             settings: list[str], *, simulation_only: bool, until: int | None = None) -> None:
    if outdir is not None and outdir.exists() and not outdir.is_dir():
        raise fail([f"-o {outdir}: not a directory"])
    overrides = tuple(guarded(lambda: [parse_override(text) for text in settings]))
    spec = guarded(lambda: replace(load_scenario(scenario), overrides=overrides))
    # parsed once: checked and warned about here, then run as they are (sim/run/build.py)
    prepared = guarded(lambda: prepare_run(spec))
    # what `fairshare lint` finds in the scenario's configuration, but its notes: a run is not
    # the place to recommend settings
    config_warnings = [f for f in configuration_findings(prepared.site, prepared.allocations)
                       if f.severity != "info"]
    warn([*config_warnings, *spec.warnings])
    if simulation_only and spec.workload is None:
        raise fail([f"{spec.source}: nothing to simulate: the scenario has no 'workload' "
                    "(use 'fairshare run' for scripted steps)"])
    if until is not None and spec.workload is None:
        raise fail([f"--until: {spec.source} has no 'workload': there is no simulation to "
                    "bound (scripted steps run as written)"])
    with progress(spec, err, show=not quiet, until_for_ms=until) as observers:
        try:
            result = guarded(lambda: run_scenario(prepared, outdir, observers,
                                                  event_driven=not fixed_interval,
                                                  until_for_ms=until))
        except OSError as e:
            raise fail([f"-o {outdir}: cannot write outputs: {e.strerror or e}"]) from None
    for failure in result.failures:
        err.print(one_line(failure.describe(spec.source)), soft_wrap=True, style="red")
    if not quiet:
        _summary(spec.name or str(scenario), result, written=outdir is not None)
    if result.failures:
        raise typer.Exit(EXIT_EXPECT_FAILED)


# -- the summary --------------------------------------------------------------------------------


def _summary(name: str, result: RunResult, *, written: bool) -> None:
    engine = result.engine
    passed = result.expectations - len(result.failures)
    checks = (f", {passed}/{result.expectations} expectations held"
              if result.expectations or result.summary is None else "")
    plural = "" if result.events == 1 else "s"
    title = one_line(printable(name))
    out.print(Text.assemble((title, "bold"), f": {result.events:,} event{plural}, clock at "
                            f"{engine.now:,} ms{checks}"))
    if result.summary is None:
        out.print(_queue_table(engine))
        return
    summary = result.summary
    rest = "all of them are in summary.json" if written else \
        "run with -o for all of them in summary.json"
    with fmt.one_memory_unit(summary.cluster.capacity["memory-mb"]):
        cluster, queues = _cluster_line(summary), (
            _sim_queue_table(summary, rest) if summary.queues else None)
    out.print(cluster, soft_wrap=True)
    if summary.idle_tail is not None:
        out.print(Text(_idle_tail_line(summary, summary.idle_tail), style="yellow"),
                  soft_wrap=True)
    if queues is not None:
        out.print(queues)
    for table in _app_tables(summary.apps, summary.span.end_ms, rest):
        out.print(table)


def _queue_table(engine: Engine) -> Table:
    table = FitTable(box=box.SIMPLE_HEAD, title="Queues at the end of the run",
                     title_justify="left")
    for column in ("queue", "steady fair share", "fair share", "usage", "demand",
                   "preempted from"):
        table.add_column(column, justify="left" if column == "queue" else "right")
    types = engine.types
    for node in engine.tree.tree_view():
        q = engine.state.queues[node.name]
        table.add_row(
            _indented(node.name),
            fmt.short(engine.steady_fair_share(node.name), types), fmt.short(q.fair_share, types),
            fmt.short(q.usage, types), fmt.short(q.demand, types),
            str(q.containers_preempted),
        )
    return table


def _indented(queue: str) -> str:
    return "  " * queue.count(".") + queue.rsplit(".", 1)[-1]


def _cluster_line(summary: Summary) -> str:
    cluster, counts, span = summary.cluster, summary.counts, summary.span
    use = cluster.utilization
    return (
        f"Cluster: {_count(cluster.nodes, 'node')}, {_res(cluster.capacity)}"
        f"; utilization {fmt.ratio(use.memory_mb)} of memory, {fmt.ratio(use.vcores)} of "
        f"vcores (time-averaged, {fmt.duration(_length(span))} simulated).\n"
        f"Apps: {counts.apps_submitted:,} submitted, {counts.apps_rejected:,} rejected, "
        f"{counts.apps_finished:,} finished, {counts.apps_unfinished:,} unfinished. "
        f"Containers: {report_units.recovered_phrase(counts.containers_recovered)}"
        f"{counts.containers_allocated:,} allocated, "
        f"{counts.containers_completed:,} completed, {counts.containers_preempted:,} "
        f"preempted ({fmt.duration(counts.lost_work_ms)} of work lost).")


def _idle_tail_line(summary: Summary, tail: IdleTail) -> str:
    """The warning that the averages include an end in which there was nothing to run."""
    start, use = summary.span.start_ms or 0, tail.utilization_without
    return (f"Note: for the last {fmt.duration(tail.ms)} (from t = "
            f"{fmt.duration(tail.start_ms - start)}) the cluster had nothing left to run; "
            f"every time average here includes that idle tail. Without it "
            f"({fmt.duration(tail.span_without_ms)}): utilization "
            f"{fmt.ratio(use.memory_mb)} of memory, {fmt.ratio(use.vcores)} of vcores, "
            f"and each queue's average usage {tail.usage_factor_without:.2f}× what is shown.")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _length(span: Span) -> int:
    start, end = span.start_ms, span.end_ms
    return 0 if start is None or end is None else end - start


def _sim_queue_table(summary: Summary, rest: str) -> Table:
    queues = summary.queues
    names = list(queues)
    caption = None
    if len(names) > MAX_QUEUE_ROWS:
        keep = set(sorted(names, key=lambda n: _interest(n, queues[n]))[:MAX_QUEUE_ROWS])
        names = [n for n in names if n in keep]
        caption = (f"{MAX_QUEUE_ROWS} of {len(queues):,} queues: the most starved and "
                   f"preempted; {rest}")
    span = summary.span
    table = FitTable(box=box.SIMPLE_HEAD, title_justify="left", caption=caption,
                  caption_justify="left", collapse_padding=True, pad_edge=False,
                  title=f"Queues, time-averaged over {fmt.duration(_length(span))} "
                        f"(sampled every {fmt.duration(span.snapshot_every_ms)})")
    for column in ("queue", "usage", "steady\nfair share", "instant.\nfair share",
                   "usage ÷\nsteady", "usage ÷\ninstant.", "time\nstarved",
                   "short of\nthreshold", "preempted\nfrom / for"):
        table.add_column(column, justify="left" if column == "queue" else "right")
    for name in names:
        q = queues[name]
        table.add_row(
            _indented(name), _pair(q.usage), _pair(q.steady_fair_share),
            _pair(q.fair_share), _ratios(q.usage_to_steady_fair_share),
            _ratios(q.usage_to_fair_share), _time(q.time_starved_ms),
            _time(q.time_short_of_fair_share_threshold_ms),
            f"{q.containers_preempted_from:,} / {q.containers_preempted_for:,}")
    return table


def _time(ms: int | None) -> str:
    """A time in a table: ``fmt.duration``, ``0`` for none at all, ``–`` when undefined (no
    AM, not finished)."""
    return "–" if ms is None else fmt.duration(ms) if ms else "0"


def _interest(name: str, q: QueueEntry) -> tuple[int, int, float, str]:
    """Most starved first, then most preempted, then busiest (name: a stable last key)."""
    preempted = q.containers_preempted_from + q.containers_preempted_for
    return (-q.time_starved_ms, -preempted, -q.usage.memory_mb, name)


def _res(r: Mapping[str, int]) -> str:
    return fmt.mb_vc(r["memory-mb"], r["vcores"])


def _pair(r: Pair) -> str:
    return fmt.mb_vc(r.memory_mb, r.vcores)


def _ratios(r: MaybePair) -> str:
    """Usage ÷ share for memory and vcores: ``75% / 60%``."""
    return f"{fmt.ratio(r.memory_mb)} / {fmt.ratio(r.vcores)}"


def _app_tables(apps: Mapping[str, AppEntry], end: int | None, rest: str) -> list[Table]:
    """The apps, or for many the longest waits and the largest losses (``end``: the run's)."""
    if not apps:
        return []
    if len(apps) <= MAX_APP_ROWS:
        return [_app_table("Apps", list(apps.items()), end)]
    # sorted is stable: equal waits (losses) keep the apps' order
    waits = sorted(((a, e) for a, e in apps.items() if _wait(e, end) is not None),
                   key=lambda ae: -(_wait(ae[1], end) or 0))
    lost = sorted(((a, e) for a, e in apps.items() if e.lost_work_ms > 0),
                  key=lambda ae: -ae[1].lost_work_ms)
    of = f"of {len(apps):,} apps; {rest}"
    tables = [_app_table(f"The {min(TOP_APPS, len(waits))} longest waits ({of})",
                         waits[:TOP_APPS], end)]
    if lost:
        tables.append(_app_table(f"The {min(TOP_APPS, len(lost))} apps that lost the most "
                                 f"work ({of})", lost[:TOP_APPS], end))
    return tables


def _wait(entry: AppEntry, end: int | None) -> int | None:
    """The wait, or for an app still waiting for its first container, the wait so far."""
    if entry.wait_ms is not None:
        return entry.wait_ms
    if entry.submit_ms is None or end is None or entry.state == "rejected":
        return None
    return end - entry.submit_ms


def _app_table(title: str, rows: list[tuple[str, AppEntry]], end: int | None) -> Table:
    """One row per app; every time in the same units (``fmt.duration``): submitted at, waits
    from submission, turnaround; a rejected app's reason in a last column."""
    table = FitTable(box=box.SIMPLE_HEAD, title=title, title_justify="left", collapse_padding=True,
                  pad_edge=False)
    rejected = any(e.rejected_reason for _, e in rows)
    columns = ["app", "queue", "state", "submitted\nat", "wait\n(1st cont.)", "AM\nwait",
               "first\ntask", "turn-\naround", "tasks", "pre-\nempted", "lost\nwork"]
    for column in [*columns, *(["reason"] if rejected else [])]:
        table.add_column(column, justify="left" if column in ("app", "queue", "state", "reason")
                         else "right")
    for app_id, e in rows:
        wait = _wait(e, end)
        waited = _time(wait)
        if e.wait_ms is None and wait is not None:
            waited = f"≥ {waited}"  # still waiting when the run stopped
        table.add_row(
            app_id, e.queue or e.requested_queue, e.state, _time(e.submit_ms),
            waited, _time(e.am_wait_ms), _time(e.first_task_wait_ms),
            _time(e.turnaround_ms), f"{e.tasks_done:,}/{e.tasks_total:,}",
            f"{e.preempted_containers:,}", _time(e.lost_work_ms),
            *([e.rejected_reason or ""] if rejected else []))
    return table

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

from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

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
    with fmt.one_memory_unit(summary["cluster"]["capacity"]["memory-mb"]):
        cluster, queues = _cluster_line(summary), (
            _sim_queue_table(summary, rest) if summary["queues"] else None)
    out.print(cluster, soft_wrap=True)
    if summary.get("idle-tail"):
        out.print(Text(_idle_tail_line(summary), style="yellow"), soft_wrap=True)
    if queues is not None:
        out.print(queues)
    for table in _app_tables(summary, rest):
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


def _cluster_line(summary: dict[str, Any]) -> str:
    cluster, counts, span = summary["cluster"], summary["counts"], summary["span"]
    use = cluster["utilization"]
    return (
        f"Cluster: {_count(cluster['nodes'], 'node')}, {_res(cluster['capacity'])}"
        f"; utilization {fmt.ratio(use['memory-mb'])} of memory, {fmt.ratio(use['vcores'])} of "
        f"vcores (time-averaged, {fmt.duration(_length(span))} simulated).\n"
        f"Apps: {counts['apps-submitted']:,} submitted, {counts['apps-rejected']:,} rejected, "
        f"{counts['apps-finished']:,} finished, {counts['apps-unfinished']:,} unfinished. "
        f"Containers: {report_units.recovered_phrase(counts)}"
        f"{counts['containers-allocated']:,} allocated, "
        f"{counts['containers-completed']:,} completed, {counts['containers-preempted']:,} "
        f"preempted ({fmt.duration(counts['lost-work-ms'])} of work lost).")


def _idle_tail_line(summary: dict[str, Any]) -> str:
    """The warning that the averages include an end in which there was nothing to run."""
    tail, start = summary["idle-tail"], summary["span"]["start-ms"]
    use = tail["utilization-without"]
    return (f"Note: for the last {fmt.duration(tail['ms'])} (from t = "
            f"{fmt.duration(tail['start-ms'] - start)}) the cluster had nothing left to run; "
            f"every time average here includes that idle tail. Without it "
            f"({fmt.duration(tail['span-without-ms'])}): utilization "
            f"{fmt.ratio(use['memory-mb'])} of memory, {fmt.ratio(use['vcores'])} of vcores, "
            f"and each queue's average usage {tail['usage-factor-without']:.2f}× what is shown.")


def _count(n: int, noun: str) -> str:
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def _length(span: dict[str, Any]) -> int:
    start, end = span["start-ms"], span["end-ms"]
    return 0 if start is None or end is None else end - start


def _sim_queue_table(summary: dict[str, Any], rest: str) -> Table:
    queues: dict[str, Any] = summary["queues"]
    names = list(queues)
    caption = None
    if len(names) > MAX_QUEUE_ROWS:
        keep = set(sorted(names, key=lambda n: _interest(n, queues[n]))[:MAX_QUEUE_ROWS])
        names = [n for n in names if n in keep]
        caption = (f"{MAX_QUEUE_ROWS} of {len(queues):,} queues: the most starved and "
                   f"preempted; {rest}")
    span = summary["span"]
    table = FitTable(box=box.SIMPLE_HEAD, title_justify="left", caption=caption,
                  caption_justify="left", collapse_padding=True, pad_edge=False,
                  title=f"Queues, time-averaged over {fmt.duration(_length(span))} "
                        f"(sampled every {fmt.duration(span['snapshot-every-ms'])})")
    for column in ("queue", "usage", "steady\nfair share", "instant.\nfair share",
                   "usage ÷\nsteady", "usage ÷\ninstant.", "time\nstarved",
                   "short of\nthreshold", "preempted\nfrom / for"):
        table.add_column(column, justify="left" if column == "queue" else "right")
    for name in names:
        q = queues[name]
        table.add_row(
            _indented(name), _res(q["usage"]), _res(q["steady-fair-share"]),
            _res(q["fair-share"]), _ratios(q["usage-to-steady-fair-share"]),
            _ratios(q["usage-to-fair-share"]), _time(q["time-starved-ms"]),
            _time(q["time-short-of-fair-share-threshold-ms"]),
            f"{q['containers-preempted-from']:,} / {q['containers-preempted-for']:,}")
    return table


def _time(ms: int | None) -> str:
    """A time in a table: ``fmt.duration``, ``0`` for none at all, ``–`` when undefined (no
    AM, not finished)."""
    return "–" if ms is None else fmt.duration(ms) if ms else "0"


def _interest(name: str, q: dict[str, Any]) -> tuple[int, int, float, str]:
    """Most starved first, then most preempted, then busiest (name: a stable last key)."""
    preempted = q["containers-preempted-from"] + q["containers-preempted-for"]
    return (-q["time-starved-ms"], -preempted, -q["usage"]["memory-mb"], name)


def _res(r: dict[str, float]) -> str:
    return fmt.mb_vc(r["memory-mb"], r["vcores"])


def _ratios(r: dict[str, float | None]) -> str:
    """Usage ÷ share for memory and vcores: ``75% / 60%``."""
    return f"{fmt.ratio(r['memory-mb'])} / {fmt.ratio(r['vcores'])}"


def _app_tables(summary: dict[str, Any], rest: str) -> list[Table]:
    apps: dict[str, Any] = summary["apps"]
    if not apps:
        return []
    end = summary["span"]["end-ms"]
    if len(apps) <= MAX_APP_ROWS:
        return [_app_table("Apps", list(apps.items()), end)]
    # sorted is stable: equal waits (losses) keep the apps' order
    waits = sorted(((a, e) for a, e in apps.items() if _wait(e, end) is not None),
                   key=lambda ae: -(_wait(ae[1], end) or 0))
    lost = sorted(((a, e) for a, e in apps.items() if e["lost-work-ms"] > 0),
                  key=lambda ae: -ae[1]["lost-work-ms"])
    of = f"of {len(apps):,} apps; {rest}"
    tables = [_app_table(f"The {min(TOP_APPS, len(waits))} longest waits ({of})",
                         waits[:TOP_APPS], end)]
    if lost:
        tables.append(_app_table(f"The {min(TOP_APPS, len(lost))} apps that lost the most "
                                 f"work ({of})", lost[:TOP_APPS], end))
    return tables


def _wait(entry: dict[str, Any], end: int | None) -> int | None:
    """The wait, or for an app still waiting for its first container, the wait so far."""
    if entry["wait-ms"] is not None:
        return int(entry["wait-ms"])
    if entry["submit-ms"] is None or end is None or entry["state"] == "rejected":
        return None
    return int(end - entry["submit-ms"])


def _app_table(title: str, rows: list[tuple[str, Any]], end: int | None) -> Table:
    """One row per app; every time in the same units (``fmt.duration``): submitted at, waits
    from submission, turnaround; a rejected app's reason in a last column."""
    table = FitTable(box=box.SIMPLE_HEAD, title=title, title_justify="left", collapse_padding=True,
                  pad_edge=False)
    rejected = any(e["rejected-reason"] for _, e in rows)
    columns = ["app", "queue", "state", "submitted\nat", "wait\n(1st cont.)", "AM\nwait",
               "first\ntask", "turn-\naround", "tasks", "pre-\nempted", "lost\nwork"]
    for column in [*columns, *(["reason"] if rejected else [])]:
        table.add_column(column, justify="left" if column in ("app", "queue", "state", "reason")
                         else "right")
    for app_id, e in rows:
        wait = _wait(e, end)
        waited = _time(wait)
        if e["wait-ms"] is None and wait is not None:
            waited = f"≥ {waited}"  # still waiting when the run stopped
        table.add_row(
            app_id, e["queue"] or e["requested-queue"], e["state"], _time(e["submit-ms"]),
            waited, _time(e["am-wait-ms"]), _time(e["first-task-wait-ms"]),
            _time(e["turnaround-ms"]), f"{e['tasks-done']:,}/{e['tasks-total']:,}",
            f"{e['preempted-containers']:,}", _time(e["lost-work-ms"]),
            *([e["rejected-reason"] or ""] if rejected else []))
    return table

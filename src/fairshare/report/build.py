"""``build_report``: a run's output directory → the Preemption Tuning page and its PNGs.

Reads only what ``fairshare simulate -o`` wrote (docs/outputs.md) — ``summary.json``,
``timeline.parquet`` (or ``timeline.csv``) and ``events.jsonl`` — never the engine: a report can
be made on another machine, long after the run, from the files alone. The files are checked
against each other (sample count, preemption count), so a page is never made from the files of
two different runs. Nothing is printed: a caller that wants progress passes ``progress``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from fairshare.config.errors import ConfigError
from fairshare.report.app_charts import app_chart
from fairshare.report.calibration import load_calibration
from fairshare.report.charts import Chart
from fairshare.report.choose import choose_queues
from fairshare.report.cluster_charts import usage_bars_chart, utilization_chart
from fairshare.report.events import Preemption, RunEvents, load_events
from fairshare.report.held import held_below
from fairshare.report.page import RunReport, run_page
from fairshare.report.queue_charts import QueueView, queue_chart
from fairshare.report.series import episodes, kill_times, kills_by_queue
from fairshare.report.summary import RunSummary, load_summary
from fairshare.report.timeline import load_timeline
from fairshare.report.write import check_target, files_dir, write_page
from fairshare.sim.record.outputs import EVENTS

Progress = Callable[[str, int, int], None]  # (what is being done, steps done, steps in all)


def build_report(outdir: Path, html: Path, progress: Progress | None = None) -> list[Path]:
    """Write the report of the run in ``outdir`` to ``html``, its charts as PNG in
    ``<html stem>-files/``; the files written, the page first. Bad or missing input is a
    ConfigError naming the file (nothing is written then)."""
    step = _Steps(progress)
    if not outdir.is_dir():
        raise ConfigError("not a directory (give a run's output directory, its -o)",
                          str(outdir))
    check_target(html)
    step("reading summary.json")
    run = load_summary(outdir)
    choice = choose_queues(run.queues)
    step.total = 7 + len(choice.charted)
    step("reading events.jsonl")
    events = load_events(outdir, run.end_ms)
    preemptions = _in_span(run, events, outdir)
    step("reading the timeline")
    names = [c.queue.name for c in choice.charted]
    timeline = load_timeline(outdir, names, run.end_ms, run.samples)
    victims, beneficiaries = kills_by_queue(preemptions)
    views = []
    for name in names:
        series = timeline.series[name]
        kills_for = kill_times(beneficiaries, name)
        views.append(QueueView(name, series, kill_times(victims, name), kills_for,
                               episodes(timeline, series, kills_for),
                               held_below(events.held, name)))
    step("drawing cluster utilization")
    utilization = utilization_chart(run, timeline, events.capacity, preemptions)
    step("drawing usage bars")
    bars = usage_bars_chart(run, [c.queue for c in choice.charted],
                            whole_tree=choice.whole_tree)
    charts: list[Chart] = []
    for i, view in enumerate(views, start=1):
        step(f"drawing {view.name}")
        charts.append(queue_chart(timeline, view, f"queue-{i:02d}-{_safe(view.name)}",
                                  f"{view.name}: shares, demand and usage",
                                  run.marks))
    step("drawing apps")
    apps = app_chart(run.apps)
    report = RunReport(run, events, timeline.source, choice, views, utilization, bars, charts,
                       apps, files_dir(html).name, load_calibration(outdir))
    step("writing the page")
    written = write_page(html, run_page(report), [utilization, bars, *charts, apps])
    step("done")
    return written


def _in_span(run: RunSummary, events: RunEvents, outdir: Path) -> list[Preemption]:
    """The simulation's preemptions (a scenario's steps may have preempted before it began),
    which must be at least as many as the summary counts."""
    found = [p for p in events.preemptions if run.start_ms <= p.time_ms <= run.end_ms]
    counted = run.counts.get("containers-preempted", 0)
    if len(events.preemptions) < counted:
        raise ConfigError(f"{len(events.preemptions):,} container-preempted events where "
                          f"summary.json counts {counted:,}: the files are not from the same "
                          "run", str(outdir / EVENTS))
    return found


def _safe(name: str) -> str:
    """A queue name as part of a file name (dynamic queues can be named after users)."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)[:80]


class _Steps:
    def __init__(self, progress: Progress | None) -> None:
        self.progress, self.done, self.total = progress, 0, 8

    def __call__(self, what: str) -> None:
        if self.progress is not None:
            self.progress(what, self.done, self.total)
        self.done += 1

"""The run report's page: facts about the run, then each chart and table with a caption that
says what it shows, in what units, and where its numbers come from (docs/report.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fairshare.report import units
from fairshare.report.advice import tuning_advice
from fairshare.report.calibration import CalibrationView, calibration_section
from fairshare.report.charts import Chart
from fairshare.report.choose import Choice
from fairshare.report.events import RunEvents
from fairshare.report.html_kit import attrs, document, esc, figure
from fairshare.report.queue_charts import QueueView
from fairshare.report.series import MAX_POINTS
from fairshare.report.summary import RunSummary
from fairshare.report.tables import recovery_table, tuning_table, waits_table


@dataclass(frozen=True)
class RunReport:
    run: RunSummary
    events: RunEvents
    timeline_source: str  # timeline.parquet or timeline.csv
    choice: Choice
    views: Sequence[QueueView]  # the charted queues, in the choice's order
    utilization: Chart
    bars: Chart
    queue_charts: Sequence[Chart]
    apps: Chart
    files_dir: str  # where the PNGs are, relative to the page
    calibration: CalibrationView | None = None  # a fork of a watched cluster, calibrated


SECTIONS = (("utilization", "Cluster utilization"), ("tuning", "Preemption tuning"),
            ("usage-bars", "Usage against fair share"), ("queues", "Queues over time"),
            ("recovery", "Recovery after preemption"), ("apps", "Apps: waits and lost work"))


def run_page(r: RunReport) -> str:
    title = f"Preemption tuning: {r.run.name or 'simulation'}"
    # one memory unit on the page, the cluster's: a column never mixes MB and GB
    with units.memory_unit_of(max(r.run.capacity.memory_mb or 0.0,
                                  r.run.queue("root").steady.memory_mb or 0.0)):
        body = [f"<header><h1>{esc(title)}</h1>", _facts(r), _nav(), "</header>",
                calibration_section(r.calibration) if r.calibration else "",
                _utilization(r), _tuning(r), _bars(r), _queues(r), _recovery(r), _apps(r),
                _footer(r)]
    return document(title, body)


def _png(r: RunReport, chart: Chart) -> str:
    return f"{r.files_dir}/{chart.name}.png"


def _facts(r: RunReport) -> str:
    run, c = r.run, r.run.counts
    every = f"sampled every {units.duration(run.every_ms)} ({run.samples:,} samples)"
    state = "on" if run.preemption else "off (yarn.scheduler.fair.preemption=false)"
    facts = [
        ("Scenario", esc(run.name or "–") + (f" — {esc(run.description)}"
                                             if run.description else "")),
        ("Overrides", ", ".join(f"<code>{esc(o)}</code>" for o in run.overrides) or "none"),
        ("Simulated", f"{units.duration(run.span_ms)}, {every}"),
        ("Cluster", f"{units.count(run.nodes, 'node')}, {units.memory(run.capacity.memory_mb)}"
                    f", {units.vcores(run.capacity.vcores)} at the end; utilization "
                    f"{units.percent(run.utilization.memory_mb)} of memory, "
                    f"{units.percent(run.utilization.vcores)} of vcores (time-averaged)"),
        ("Preemption", f"{state}; cluster utilization threshold "
                       f"{units.percent(run.threshold, 1)}"),
        ("Apps", f"{c.get('apps-submitted', 0):,} submitted, {c.get('apps-rejected', 0):,} "
                 f"rejected, {c.get('apps-finished', 0):,} finished, "
                 f"{c.get('apps-unfinished', 0):,} unfinished"),
        ("Containers", units.recovered_phrase(c.get("containers-recovered", 0))
                       + f"{c.get('containers-allocated', 0):,} allocated, "
                       f"{c.get('containers-preempted', 0):,} preempted "
                       f"({units.duration(c.get('preempted-container-ms', 0))} of container "
                       f"time; {units.duration(c.get('lost-work-ms', 0))} of work lost)"),
        ("Units", f"memory in {units.memory_unit()} throughout (the cluster's unit), vcores, "
                  "simulated time since the start of the run"),
        ("Read from", f"<code>summary.json</code>, <code>{esc(r.timeline_source)}</code>, "
                      "<code>events.jsonl</code>")]
    if run.idle_tail is not None:
        facts.insert(3, ("Idle tail", _idle_tail(run)))
    items = "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts)
    return f'<dl class="facts" id="facts">{items}</dl>'


def _idle_tail(run: RunSummary) -> str:
    """The warning that every time average on the page includes an end with nothing to run."""
    tail = run.idle_tail
    assert tail is not None
    use = tail.utilization_without
    return (f'<span class="warn" id="idle-tail"{attrs(data_ms=tail.ms)}>For the last '
            f"{units.duration(tail.ms)} (from {units.clock(tail.start_ms, run.start_ms)}) the "
            f"cluster had nothing left to run, and every time average on this page includes "
            f"that tail.</span> Without it ({units.duration(tail.span_without_ms)}): "
            f"utilization {units.percent(use.memory_mb)} of memory, "
            f"{units.percent(use.vcores)} of vcores; each queue's average usage "
            f"{tail.usage_factor_without:.2f}× what the tables show.")


def _nav() -> str:
    links = "".join(f'<li><a href="#{key}">{name}</a></li>' for key, name in SECTIONS)
    return f"<nav><ul>{links}</ul></nav>"


def _section(key: str, *parts: str) -> str:
    name = dict(SECTIONS)[key]
    return f'<section id="{key}">\n<h2>{name}</h2>\n' + "\n".join(parts) + "\n</section>"


def _utilization(r: RunReport) -> str:
    run = r.run
    state = ("YARN checks for starvation, and so preempts, only while utilization is above it"
             if run.preemption else "preemption was off in this run: nothing was checked or "
             "preempted, whatever the utilization")
    caption = (f"The root queue's usage ÷ the cluster's capacity at each sample, memory and "
               f"vcores (capacity from the <code>node-added</code>, <code>node-removed</code> "
               f"and <code>node-resized</code> events). Dashed red: "
               f"<code>yarn.scheduler.fair.preemption.cluster-utilization-threshold</code> = "
               f"{run.threshold:g}; {state}. Below: containers killed by preemption (every "
               f"queue), per 1/200 of the run. Time-averaged (summary.json): "
               f"{units.percent(run.utilization.memory_mb)} of memory, "
               f"{units.percent(run.utilization.vcores)} of vcores.")
    if run.changes:
        caption += (" Dotted grey: the workload's timed changes (<code>workload.changes</code>), "
                    "marked on the queue charts too.")
    return _section("utilization", figure(r.utilization, caption, _png(r, r.utilization)),
                    _changes(run))


def _changes(run: RunSummary) -> str:
    """The timed changes in a list: when, what, and what a reload changed per queue."""
    if not run.changes:
        return ""
    items = []
    for c in run.changes:
        touched = "; ".join(f"{esc(q)}: {esc(', '.join(what))}"
                            for q, what in c.queues.items())
        items.append(f"<li>{units.clock(c.time_ms, run.start_ms)}: {esc(c.label)}"
                     + (f" — {touched}" if touched else "") + "</li>")
    return ("<p>Timed changes of the workload (summary.json <code>changes</code>):</p>"
            f"<ul>{''.join(items)}</ul>")


def _tuning(r: RunReport) -> str:
    intro = (
        "<p>Every queue, in tree order. A queue is <em>in contention</em> in a sample where it "
        "has pending asks: demand it is not getting. The first five columns average over those "
        "samples only, the next four over the whole run (all from <code>summary.json</code>; "
        "memory in MB, GB from 100,000 MB). A queue whose allocation during contention stays "
        "well below its instantaneous fair share waited for something — the Advice below "
        "says what, by cause: more aggressive preemption (a shorter "
        "<code>fairSharePreemptionTimeout</code>, a higher "
        "<code>fairSharePreemptionThreshold</code>) only where that is what held it, "
        "otherwise the limit that did. <em>Short of fair-share "
        "threshold</em> (shaded when not 0): time in contention with usage below threshold × "
        "instantaneous fair share, in memory or vcores, counted whether or not preemption is "
        "on; <em>starved</em>: YARN's own starvation, which needs preemption on. Containers "
        "preempted <em>from</em> a queue were its own, <em>for</em> it were killed for its "
        "starved apps. A parent adds up its subtree.</p>")
    return _section("tuning", intro, tuning_table(r.run.queues), tuning_advice(r.run.queues))


def _bars(r: RunReport) -> str:
    shown = "every queue under root" if r.choice.whole_tree else \
        "the charted queues (see Queues over time)"
    # said only where the chart draws such a bar (cluster_charts.usage_bars_chart)
    unshared = any(not r.run.has_vcore_share(c.queue) for c in r.choice.charted)
    grey = ("Grey: vcores used by a queue that has no vcore share — its parent's policy is "
            "<code>fair</code>, which computes shares on memory only (vcores 0), so its "
            "vcores are neither within nor over a share. ") if unshared else ""
    caption = (f"As on the ResourceManager's Scheduler page, but for memory and vcores, and "
               f"as <strong>time averages over the whole run</strong> (summary.json), not one "
               f"moment: usage green up to the instantaneous fair share and orange beyond it; "
               f"the instantaneous fair share as the filled outline, the steady fair share "
               f"dashed. Percent of the time-averaged cluster (root's steady fair share: "
               f"{units.memory(r.run.queue('root').steady.memory_mb)}, "
               f"{units.vcores(r.run.queue('root').steady.vcores)}). {grey}Shown: {shown}.")
    return _section("usage-bars", figure(r.bars, caption, _png(r, r.bars)))


def _queues(r: RunReport) -> str:
    choice = r.choice
    total = len(choice.charted) + len(choice.left_out)
    if choice.whole_tree:
        intro = f"<p>All {total:,} queues under root.</p>"
    else:
        names = ", ".join(esc(n) for n in choice.left_out)
        intro = (f"<p>{len(choice.charted)} of the {total:,} queues under root: leaf queues "
                 f"taken in turn from three rankings — most time starved, most containers "
                 f"preempted (from and for), most time short of the fair-share threshold — "
                 f"then the busiest; each heading says why. The Preemption tuning table has "
                 f"them all.</p><details><summary>{len(choice.left_out):,} queues left out"
                 f"</summary><p class=muted>{names}</p></details>")
    sampling = (f"<p class=muted>Each point stands for one sample ({units.duration(r.run.every_ms)}"
                f"); with more than {MAX_POINTS} samples a series is drawn as the time average "
                f"over {MAX_POINTS} equal intervals. Shaded: samples in which the queue was "
                f"starving (<code>starving</code> &gt; 0 in memory or vcores: starvation YARN "
                f"recognised and had not met); ▼ along the top: containers preempted from the "
                f"queue, ▲ along the bottom: preempted for it, at their kill times; hatched strip "
                f"near the top: an app of the queue held not runnable (maxRunningApps); dash-dot: "
                f"the queue back at its share (Recovery after preemption).</p>")
    articles = [_queue_article(r, view, chart, c.reason)
                for view, chart, c in zip(r.views, r.queue_charts, choice.charted, strict=True)]
    return _section("queues", intro, sampling, *articles)


def _queue_article(r: RunReport, view: QueueView, chart: Chart, reason: str) -> str:
    start = r.run.start_ms
    lines = [f"Chosen: {esc(reason)}." if not r.choice.whole_tree else ""]
    if view.kills_for:
        done = [e for e in view.episodes if e.restored_ms is not None]
        last = view.episodes[-1]
        lines.append(f"{units.count(len(view.kills_for), 'container')} preempted for it "
                     f"(first killed at {units.clock(view.kills_for[0], start)}).")
        if last.restored_ms is not None:
            data = attrs(data_queue=view.name, data_restored_ms=last.restored_ms,
                         data_last_kill_ms=last.last_kill_ms)
            several = (f" (the last of {len(view.episodes):,} episodes; {len(done):,} ended "
                       "back at its share)" if len(view.episodes) > 1 else "")
            lines.append(f'<span class="restored"{data}>Back at its share at '
                         f"{units.clock(last.restored_ms, start)}</span>, "
                         f"{units.duration(last.restored_ms - last.last_kill_ms)} after the "
                         f"last kill for it{several}.")
        else:
            lines.append("Not back at its share by the end of the run.")
    if view.kills_from:
        lines.append(f"{units.count(len(view.kills_from), 'container')} preempted from it.")
    caption = (f"{esc(view.name)}: memory (top) and vcores (bottom) over simulated time; "
               f"steady and instantaneous fair share, demand and usage from the timeline. "
               f"When the first preemption for it was a short part of the run, a close-up "
               f"of it below.")
    return (f'<article id="queue-{esc(view.name)}"{attrs(data_queue=view.name)}>'
            f"<h3>{esc(view.name)}</h3><p class=why>{' '.join(x for x in lines if x)}</p>"
            f"{figure(chart, caption, _png(r, chart))}</article>")


def _recovery(r: RunReport) -> str:
    with_kills = [v for v in r.views if v.episodes]
    intro = ("<p>For each charted queue that containers were preempted for: the kills, and the "
             "first sample at which the queue was back at its share — its usage at least its "
             "instantaneous fair share in memory or in vcores (a resource it has a share of), "
             "or no pending demand left. Kills up to that sample make one episode. Times are "
             "since the start of the simulation.</p>")
    if not with_kills:
        return _section("recovery", "<p>No containers were preempted for the charted "
                                    "queues.</p>")
    return _section("recovery", intro, recovery_table(with_kills, r.run.start_ms))


def _apps(r: RunReport) -> str:
    caption = ("Cumulative distributions over the apps that ran (summary.json <code>apps</code>): "
               "AM wait (submission to AM container), first-task wait, turnaround (submission "
               "to finish), and lost work (task time lost to preemption and failed attempts). "
               "An app without a value — unmanaged (no AM), or not reached by the end — is left "
               "out and counted in the panel's title.")
    queues = [r.run.queue("root"), *(c.queue for c in r.choice.charted)]
    table_intro = ("<p>Per queue, over the apps placed in it or below it (summary.json; "
                   "nearest-rank percentiles; an app not there by the end counts with its wait "
                   "so far). Root and the charted queues.</p>")
    return _section("apps", figure(r.apps, caption, _png(r, r.apps)), table_intro,
                    waits_table(queues, r.run.apps))


def _footer(r: RunReport) -> str:
    charts = [r.utilization, r.bars, *r.queue_charts, r.apps]
    files = ", ".join(f'<a href="{esc(_png(r, c))}">{esc(c.name)}.png</a>' for c in charts)
    return (f"<footer><h2>Files</h2><p class=muted>Every chart as PNG in "
            f"<code>{esc(r.files_dir)}/</code>: {files}. Made by <code>fairshare report</code> "
            f"from the run's output files only (docs/report.md).</p></footer>")

"""The pages over the history: a queue's history (``/queue/{name}``) and Preemption Tuning
(``/tuning``), with their data at ``/api/queue/{name}`` and ``/api/tuning``.

The queue page charts ``History.series`` — per point the bucket's time averages — for
memory and vcores, lines for steady and instantaneous fair share, used, demand and max, shaded
where the queue was in contention and short of threshold × share (``Series.short``), with a
mark at every preemption taken from its apps (``History.preemptions``). Dragging over a
chart zooms: the script asks ``/api/queue/{name}?from=…&to=…`` for that span, at the finer
resolution the store then answers with, and puts the span in the address.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any
from urllib.parse import quote

from starlette.requests import Request

from fairshare.report import units
from fairshare.report.html_kit import esc, table
from fairshare.web.history.model import Window
from fairshare.web.pages import params
from fairshare.web.pages.common import cluster_mb, json_script, newest_ms, query, when
from fairshare.web.pages.errors import NotFound
from fairshare.web.pages.layout import href, note, page, status, window_form
from fairshare.web.pages.scheduler_page import settings_text
from fairshare.web.pages.source import LiveSource
from fairshare.web.pages.tuning import (
    contention_share,
    live_tuning_table,
    summaries,
    tuning_rows,
    wait_ratio,
)

QUEUE_SPAN_MS = params.HOUR_MS  # the queue page's window unless from/to say otherwise
TUNING_SPAN_MS = 24 * params.HOUR_MS
CHARTED = ("steady_fair_share", "fair_share", "used", "demand", "max_share")
MAX_POINTS = 2000


def _known_queue(source: LiveSource, name: str) -> None:
    latest = source.latest().sample
    names = set(source.history().queue_names())
    if latest is not None:
        names.update(q.name for q in latest.queues())
    if name not in names:
        raise NotFound(f"no queue {name!r} in the history or in the latest sample")


def queue_json(source: LiveSource, request: Request) -> dict[str, Any]:
    name = request.path_params["name"]
    _known_queue(source, name)
    q = query(request)
    w = params.window(q, newest_ms(source), QUEUE_SPAN_MS)
    try:
        points = int(q.get("points", MAX_POINTS))
    except ValueError as e:
        raise params.BadParameter("points", f"{q['points']!r} is not a whole number") from e
    if not 2 <= points <= 20_000:
        raise params.BadParameter("points", "must be from 2 to 20,000")
    history = source.history()
    s = history.series(name, w.start_ms, w.end_ms, points)
    columns = [f"{c}_{r}" for c in CHARTED for r in ("mb", "vcores")] + ["pending_containers"]
    per_unit, unit = units.memory_axis(cluster_mb(source) or 0.0)
    return {
        "queue": name, "start_ms": w.start_ms, "end_ms": w.end_ms, "timezone": w.timezone,
        "resolution_ms": s.resolution_ms, "times_ms": list(s.times_ms),
        "averages": {c: list(s.averages[c]) for c in columns if c in s.averages},
        "short": list(s.short), "memory_unit": unit, "mb_per_unit": per_unit,
        "preemptions": [{"time_ms": p.time_ms, "app": p.app, "queue": p.queue,
                         "containers": p.containers, "am_containers": p.am_containers,
                         "memory_mb": p.memory_mb, "vcores": p.vcores}
                        for p in history.preemptions(w.start_ms, w.end_ms, name)]}


def queue_page(source: LiveSource, request: Request) -> str:
    data = queue_json(source, request)
    name = data["queue"]
    w = Window(data["start_ms"], data["end_ms"], timezone=data["timezone"])
    settings = (source.settings() or {}).get(name)
    threshold = (units.DASH if settings is None else
                 f"{settings.fair_share_preemption_threshold:g}")
    configured = ("Allocation file: " + esc(settings_text(asdict(settings))) if settings
                  else "No allocation-file settings for this queue.")
    with units.memory_unit_of(cluster_mb(source)):
        marks = "".join(
            f'<tr><td>{when(p["time_ms"], w.timezone)}</td><td>'
            f'<a href="{href("/app/", p["app"])}">{esc(p["app"])}</a></td>'
            f'<td class="num">{p["containers"]:,}</td><td class="num">{p["am_containers"]:,}'
            f'</td><td class="num">{units.memory(p["memory_mb"])}</td></tr>'
            for p in data["preemptions"])
        marked = table("<tr><th>when</th><th>app</th><th class=num>containers</th>"
                       "<th class=num>of them AM</th><th class=num>memory</th></tr>", [marks],
                       table_id="preemptions")
    return page(f"Queue {name}", [
        status(source.latest()), note(configured),
        window_form("/queue/" + quote(name, safe=".-_"), w),
        note(f"{esc(params.describe(w))}. Lines: time averages per point (resolution "
             f"{units.duration(data['resolution_ms']) if data['resolution_ms'] else 'raw'}"
             f"). Shaded: in contention and below threshold ({threshold}) × instantaneous "
             "fair share. Red ticks: preemptions from this queue's apps. Drag over a chart to "
             "zoom in; double-click to go back."),
        json_script("queue-data", data),
        '<figure><div class="chart" id="chart-memory"></div><figcaption>Memory '
        f'({esc(data["memory_unit"])})</figcaption></figure>',
        '<figure><div class="chart" id="chart-vcores"></div><figcaption>vcores'
        "</figcaption></figure>",
        f"<h2>Preemptions ({len(data['preemptions']):,})</h2>", marked,
    ], scripts=("queue.js",), charts=True)


def _tuning_data(source: LiveSource, request: Request) -> tuple[Any, Any, list[Any], Any]:
    w = params.window(query(request), newest_ms(source), TUNING_SPAN_MS)
    history = source.history()
    tallies = history.tally(w)
    queues = summaries(tallies, history.preemptions(w.start_ms, w.end_ms), source.settings())
    return w, tallies, queues, tuning_rows(tallies, queues)


def tuning_json(source: LiveSource, request: Request) -> dict[str, Any]:
    w, _tallies, _queues, rows = _tuning_data(source, request)
    return {"start_ms": w.start_ms, "end_ms": w.end_ms, "timezone": w.timezone,
            "weekdays": None if w.weekdays is None else sorted(w.weekdays),
            "hours": None if w.hours is None else sorted(w.hours), "queues": rows}


def _filters(w: Any) -> str:
    days = "".join(
        f'<label><input type="checkbox" name="days" value="{i + 1}"'
        f'{" checked" if w.weekdays is None or i in w.weekdays else ""}>{d}</label>'
        for i, d in enumerate(params.DAY_NAMES))
    return (f'<span class="days">{days}</span> <label>hours <input name="hours" size="8" '
            f'placeholder="0-23" value="{esc(_hours_text(w.hours))}"></label> ')


def _hours_text(hours: frozenset[int] | None) -> str:
    return "" if hours is None else ",".join(str(h) for h in sorted(hours))


def _ratios_table(tallies: Any) -> str:
    rows = "".join(
        f'<tr data-queue="{esc(t.name)}"><td class="queue">{esc(t.name)}</td>'
        f'<td class="num">{t.samples:,}</td><td class="num">{units.duration(t.weight_ms)}</td>'
        f'<td class="num">{units.duration(t.contention_ms)}</td>'
        f'<td class="num">{units.percent(contention_share(t), 1)}</td>'
        f'<td class="num" data-ratio="{wait_ratio(t)}">{units.percent(wait_ratio(t), 1)}</td>'
        f'<td class="num">{units.percent(t.short_ms / t.weight_ms if t.weight_ms else None, 1)}'
        "</td></tr>" for t in tallies)
    head = ("<tr><th>Queue</th><th class=num>samples</th><th class=num>time covered</th>"
            "<th class=num>in contention</th><th class=num>share of the window in contention"
            "</th><th class=num>container wait ratio</th>"
            "<th class=num>short of threshold × share</th></tr>")
    return table(head, [rows], table_id="wait-ratios")


def tuning_page(source: LiveSource, request: Request) -> str:
    w, tallies, queues, _rows = _tuning_data(source, request)
    with units.memory_unit_of(cluster_mb(source)):
        tuning = live_tuning_table(queues)
        unit = units.memory_unit()
    return page("Preemption Tuning", [
        status(source.latest()), window_form("/tuning", w, _filters(w)),
        note(f"{esc(params.describe(w))}. Memory in {unit}. In contention: the samples with "
             "pending containers (Cloudera's “during contention”). Time averages weighted by "
             "each sample's interval. <b>n/a</b>: not in the RM's REST API (YARN's own "
             "starvation state; which queue a preemption served)."),
        tuning, "<h2>Container wait ratio</h2>",
        note("Container wait ratio = pending ÷ (pending + allocated) containers, "
             "time-averaged during contention: Cloudera's <code>container_wait_ratio</code>, "
             "“percent of pending containers when pending containers is more than zero” "
             "(its formula is unpublished: this is its words taken literally). Beside it, the "
             "share of the window in which the queue had containers waiting."),
        _ratios_table(tallies)])


"""Applications by queue (``/apps``: Cloudera Manager's "Historical Applications By YARN
Pool"), one app's record and explanation (``/app/{id}``), and the diagnosis (``/diagnosis``),
with their data under ``/api/…``. The numbers are defined in :mod:`fairshare.web.pages.app_stats`;
the findings are the diagnosis's own (:class:`fairshare.web.diagnosis.Finding`), drawn as
they come; where an engine runs behind the pages, an app's page also has the engine's own
account (:mod:`fairshare.web.pages.explained`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from starlette.requests import Request

from fairshare.report import units
from fairshare.report.html_kit import esc, table
from fairshare.sim.record.summary_model import Percentiles
from fairshare.web.diagnosis import Finding
from fairshare.web.history.model import AppRecord
from fairshare.web.pages import params
from fairshare.web.pages.app_stats import MB_S_PER_GB_H, MEASURES, WAITS, QueueApps, by_queue
from fairshare.web.pages.common import cluster_mb, newest_ms, query, when
from fairshare.web.pages.errors import NotFound
from fairshare.web.pages.explained import explain_section, explained_json
from fairshare.web.pages.layout import href, note, page, status, window_form
from fairshare.web.pages.source import Explained, LiveSource

APPS_SPAN_MS = 24 * params.HOUR_MS
WAIT_NAMES = {"am-wait-ms": "AM wait", "first-task-wait-ms": "first-container wait",
              "turnaround-ms": "turnaround"}


def _apps_data(source: LiveSource, request: Request) -> tuple[Any, list[QueueApps]]:
    q = query(request)
    w = params.window(q, newest_ms(source), APPS_SPAN_MS)
    history = source.history()
    names = history.queue_names()
    queue = q.get("queue") or None
    if queue is not None and queue not in names:
        raise NotFound(f"no queue {queue!r} in the history")
    return w, by_queue(history.apps(w, queue), names)


def _percentiles(p: Percentiles) -> dict[str, int | None]:
    return {"p50": p.p50, "p95": p.p95, "max": p.max, "apps": p.apps,
            "not_reached": p.not_reached}


def _record(a: AppRecord) -> dict[str, Any]:
    return {**asdict(a), **{key: f(a) for key, f in MEASURES.items()}}


def apps_json(source: LiveSource, request: Request) -> dict[str, Any]:
    w, groups = _apps_data(source, request)
    return {"start_ms": w.start_ms, "end_ms": w.end_ms, "timezone": w.timezone,
            "queues": [{"queue": g.queue, "apps": len(g.apps),
                        "waits": {k: _percentiles(v) for k, v in g.waits.items()},
                        "preempted_containers": g.preempted_containers,
                        "preempted_am_containers": g.preempted_am_containers,
                        "lost_gb_h": g.lost_gb_h, "lost_vcore_h": g.lost_vcore_h,
                        "app_ids": [a.id for a in g.apps]} for g in groups],
            "apps": [_record(a) for g in groups for a in g.apps]}


def _ms(v: int | None) -> str:
    return f'<td class="num" data-ms="{"" if v is None else v}">{units.duration(v)}</td>'


def _queue_rows(groups: Sequence[QueueApps]) -> str:
    rows = []
    for g in groups:
        cells = "".join(_ms(getattr(g.waits[k], f)) for k in WAITS for f in ("p50", "p95", "max"))
        rows.append(f'<tr data-queue="{esc(g.queue)}"><td class="queue">{esc(g.queue)}</td>'
                    f'<td class="num">{len(g.apps):,}</td>{cells}'
                    f'<td class="num">{g.preempted_containers:,}</td>'
                    f'<td class="num" data-gb-h="{g.lost_gb_h}">{g.lost_gb_h:,.2f} GB·h<br>'
                    f"{g.lost_vcore_h:,.2f} vcore·h</td></tr>")
    groups_head = "".join(f'<th colspan="3">{WAIT_NAMES[k]}</th>' for k in WAITS)
    head = ('<tr><th rowspan="2">Queue</th><th rowspan="2" class=num>apps</th>'
            f'{groups_head}<th rowspan="2" class=num>containers preempted</th>'
            '<th rowspan="2" class=num>lost work</th></tr><tr>'
            + "<th class=num>p50</th><th class=num>p95</th><th class=num>max</th>" * 3 + "</tr>")
    return table(head, rows, table_id="apps-by-queue")


def _app_rows(groups: Sequence[QueueApps], zone: str) -> str:
    rows = "".join(
        f'<tr data-app="{esc(a.id)}"><td><a href="{href("/app/", a.id)}">{esc(a.id)}</a><br>'
        f'<span class="muted">{esc(a.name)}</span></td><td>{esc(a.user)}</td>'
        f'<td>{esc(a.queue)}</td><td>{esc(a.state)}</td><td>{when(a.started_ms, zone)}</td>'
        + "".join(_ms(f(a)) for f in MEASURES.values())
        + f'<td class="num">{a.preempted + a.am_preempted:,}</td>'
        f'<td class="num">{a.preempted_memory_seconds / MB_S_PER_GB_H:,.2f} GB·h</td></tr>'
        for g in groups for a in g.apps)
    head = ("<tr><th>app</th><th>user</th><th>queue</th><th>state</th><th>started</th>"
            "<th class=num>AM wait</th><th class=num>first-container wait</th>"
            "<th class=num>turnaround</th><th class=num>containers preempted</th>"
            "<th class=num>lost work</th></tr>")
    return table(head, [rows], table_id="apps")


def apps_page(source: LiveSource, request: Request) -> str:
    w, groups = _apps_data(source, request)
    queue = query(request).get("queue", "")
    pick = (f'<label>queue <input name="queue" size="24" value="{esc(queue)}" '
            'placeholder="all"></label> ')
    return page("Applications by queue", [
        status(source.latest()), window_form("/apps", w, pick),
        note(f"{esc(params.describe(w))}. Apps alive in the window. AM wait: launch − start; "
             "first-container wait: the first sample with a container beyond the AM's − start "
             "(as precise as the polling interval); turnaround: finish − start; percentiles "
             "nearest-rank over the apps that got there. Lost work: the RM's "
             "<code>preemptedMemorySeconds</code> in GB·h (MB·s ÷ 1,024 ÷ 3,600) and "
             "<code>preemptedVcoreSeconds</code> in vcore·h."),
        _queue_rows(groups), "<h2>Applications</h2>", _app_rows(groups, w.timezone)])


def _find_app(source: LiveSource, app_id: str) -> AppRecord | dict[str, Any]:
    record = source.history().app(app_id)
    if record is not None:
        return record
    latest = source.latest().sample
    for a in () if latest is None else latest.apps:
        if a.id == app_id:  # seen by the poller, not stored yet
            return {"id": a.id, "user": a.user, "name": a.name, "queue": a.queue,
                    "state": a.state, "started_ms": a.started_ms}
    raise NotFound(f"no app {app_id!r} in the history or in the latest sample")


def _finding(f: Finding) -> dict[str, Any]:
    return {"queue": f.queue, "app": f.app, "cause": f.cause, "words": f.words,
            "setting": f.setting, "advice": f.advice}


def app_json(source: LiveSource, request: Request) -> dict[str, Any]:
    return _app_data(source, request)[0]


def _app_data(source: LiveSource, request: Request) -> tuple[dict[str, Any], Explained | None]:
    """The app's answer, and the engine's account of it (asked once: it reads the engine's
    events)."""
    app_id = request.path_params["app_id"]
    found = _find_app(source, app_id)
    record = _record(found) if isinstance(found, AppRecord) else found
    if isinstance(found, AppRecord):
        end = max(found.last_seen_ms, found.finished_ms) + 1
        taken = [p for p in source.history().preemptions(found.first_seen_ms, end, found.queue)
                 if p.app == app_id]
    else:
        taken = []
    data = {"app": record, "stored": isinstance(found, AppRecord),
            "findings": [_finding(f) for f in source.diagnosis() if f.app == app_id],
            "preemptions": [asdict(p) for p in taken]}
    explained = source.explain(app_id)
    if explained is not None:  # an engine behind the pages (serve): its own account
        data["explanation"] = explained_json(explained)
    return data, explained


# the app's record as the page lists it: (key, label, how it is written)
FACTS = (("user", "user", "text"), ("name", "name", "text"), ("queue", "queue", "queue"),
         ("state", "state", "text"), ("final_status", "final status", "text"),
         ("started_ms", "started", "time"), ("launched_ms", "AM launched", "time"),
         ("first_container_ms", "first container beyond the AM", "time"),
         ("finished_ms", "finished", "time"), ("am-wait-ms", "AM wait", "ms"),
         ("first-task-wait-ms", "first-container wait", "ms"),
         ("turnaround-ms", "turnaround", "ms"), ("allocated", "allocated (last sample)", "pair"),
         ("running_containers", "running containers", "count"),
         ("pending_containers", "pending containers", "count"),
         ("am_preempted", "AM containers preempted", "count"),
         ("preempted", "other containers preempted", "count"),
         ("preempted_resources", "resources preempted", "pair"),
         ("memory_seconds", "memory × time", "mb_s"),
         ("preempted_memory_seconds", "lost work (preempted memory × time)", "mb_s"),
         ("diagnostics", "diagnostics", "text"))


def _fact(kind: str, v: Any, zone: str) -> str:
    if v is None or v == "":
        return units.DASH
    if kind == "time":
        return when(v, zone)
    if kind == "ms":
        return units.duration(v)
    if kind == "queue":
        return f'<a href="{href("/queue/", v)}">{esc(v)}</a>'
    if kind == "pair":
        return f"{units.memory(v[0])}, {units.vcores(v[1])}"
    if kind == "count":
        return f"{v:,}"
    if kind == "mb_s":
        return f"{v / MB_S_PER_GB_H:,.2f} GB·h"
    return esc(v)


def _facts(app: dict[str, Any], zone: str) -> str:
    items = "".join(f"<dt>{label}</dt><dd data-key=\"{key}\">{_fact(kind, app[key], zone)}</dd>"
                    for key, label, kind in FACTS if key in app)
    return f'<dl class="facts" id="app-facts">{items}</dl>'


def _findings_table(findings: Sequence[dict[str, Any]]) -> str:
    rows = "".join(
        f'<tr data-cause="{esc(f["cause"])}"><td class="queue">'
        f'<a href="{href("/queue/", f["queue"])}">{esc(f["queue"])}</a></td>'
        f'<td>{"" if f["app"] is None else _app_link(f["app"])}</td><td>{esc(f["cause"])}</td>'
        f'<td>{esc(f["words"])}</td><td>{_code(f["setting"])}</td><td>{esc(f["advice"])}</td>'
        "</tr>" for f in findings)
    head = ("<tr><th>queue</th><th>app</th><th>cause</th><th>what holds it</th><th>setting</th>"
            "<th>what would change it</th></tr>")
    return table(head, [rows], table_id="findings")


def _app_link(app_id: str) -> str:
    return f'<a href="{href("/app/", app_id)}">{esc(app_id)}</a>'


def _code(text: str | None) -> str:
    return units.DASH if not text else f"<code>{esc(text)}</code>"


def app_page(source: LiveSource, request: Request) -> str:
    zone = query(request).get("tz") or "UTC"
    params.timezone({"tz": zone})
    data, explained = _app_data(source, request)
    app = data["app"]
    stored = "" if data["stored"] else note("Seen in the latest sample; not stored yet.")
    with units.memory_unit_of(cluster_mb(source)):
        facts = _facts(app, zone)
        taken = "".join(
            f'<tr><td>{when(p["time_ms"], zone)}</td><td class="num">{p["containers"]:,}</td>'
            f'<td class="num">{p["am_containers"]:,}</td><td class="num">'
            f'{units.memory(p["memory_mb"])}<br>{units.vcores(p["vcores"])}</td></tr>'
            for p in data["preemptions"])
    return page(f"App {app['id']}", [
        status(source.latest()), stored, facts,
        "" if explained is None else explain_section(explained, zone),
        "<h2>What holds it</h2>",
        _findings_table(data["findings"]) if data["findings"] else
        note("The diagnosis has no finding for this app."),
        f"<h2>Preemptions ({len(data['preemptions']):,})</h2>",
        table("<tr><th>seen at</th><th class=num>containers</th><th class=num>of them AM</th>"
              "<th class=num>resources</th></tr>", [taken], table_id="app-preemptions")])


def diagnosis_json(source: LiveSource, request: Request) -> dict[str, Any]:
    return {"findings": [_finding(f) for f in source.diagnosis()]}


def diagnosis_page(source: LiveSource, request: Request) -> str:
    findings = diagnosis_json(source, request)["findings"]
    return page("Diagnosis", [
        status(source.latest()),
        note("For each queue and each waiting app, what holds it, in the words of "
             "<code>fairshare explain</code>, with the setting that governs it."),
        _findings_table(findings) if findings else note("Nothing is held.")])

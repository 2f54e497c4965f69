"""The Scheduler page: the queue tree with a bar per resource type, each leaf's apps, the nodes.

Drawn from :func:`fairshare.web.pages.scheduler_data.scheduler_data` — the same numbers
``/api/scheduler`` serves — in the legend of the RM's Fair Scheduler page
(``FairSchedulerPage``): the steady fair share a solid outline, the instantaneous fair share a
dashed one, usage filled green (``#5BD75B``), orange (``#FFA333``) above the instantaneous share,
the max share as the bar's grey extent; and demand, which the RM's page does not draw, a dark
tick. Every bar's 100 % is the cluster's amount of that type.

The part under ``<div id="live">`` is served alone at ``/scheduler/live`` so the page's script
swaps it in when a new sample lands, without reloading the page.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fairshare.report import units
from fairshare.report.html_kit import esc, table
from fairshare.web.pages.layout import href
from fairshare.web.pages.scheduler_data import MEMORY, PARTS, VCORES
from fairshare.web.pages.source import LatestSample

LABELS = {"steady": "steady fair share", "instantaneous": "instantaneous fair share",
          "used": "used", "max": "max", "demand": "demand"}
LEGEND = ('<p class="legend" id="legend">'
          '<span class="key steady"></span> steady fair share '
          '<span class="key instantaneous"></span> instantaneous fair share '
          '<span class="key used"></span> used '
          '<span class="key used over"></span> used (over instantaneous fair share) '
          '<span class="key max"></span> max share '
          '<span class="key demand"></span> demand — each bar: the cluster\'s whole amount '
          "of that resource</p>")


def amount(resource: str, value: float | None) -> str:
    """A resource amount with its unit: the page's memory unit, vcores, or the type's name."""
    if resource == MEMORY:
        return units.memory(value)
    if resource == VCORES:
        return units.vcores(value)
    return units.DASH if value is None else f"{value:,.0f} {resource}"


def percent(value: int | None, total: int | None) -> float:
    """``value`` of ``total`` in %, for a bar's width (0 without a total, at most 100)."""
    if value is None or not total:
        return 0.0
    return max(0.0, min(100.0, 100.0 * value / total))


def bar(resource: str, parts: Mapping[str, int | None], total: int | None, over: bool,
        counted: bool) -> str:
    words = "; ".join(f"{LABELS[k]} {amount(resource, parts.get(k))}" for k, _a, _f in PARTS)
    if not counted:
        words += " (its parent's policy gives no share of this type)"
    spans = [f'<span class="max" style="width:{percent(parts.get("max"), total):.2f}%"></span>',
             f'<span class="steady" style="width:{percent(parts.get("steady"), total):.2f}%">'
             "</span>",
             f'<span class="instantaneous" style="width:'
             f'{percent(parts.get("instantaneous"), total):.2f}%"></span>',
             f'<span class="used{" over" if over else ""}" style="width:'
             f'{percent(parts.get("used"), total):.2f}%"></span>']
    if parts.get("demand") is not None:
        left = percent(parts.get("demand"), total)
        spans.append(f'<span class="demand" style="left:{left:.2f}%"></span>')
    used, share = parts.get("used"), parts.get("instantaneous")
    text = f"{amount(resource, used)} of {amount(resource, share)}"
    return (f'<div class="res" data-resource="{esc(resource)}"><span class="rname">'
            f'{esc(resource)}</span><div class="bar" title="{esc(words)}">{"".join(spans)}'
            f'</div><span class="btext">{esc(text)}</span></div>')


def settings_text(s: Mapping[str, Any] | None) -> str:
    """A queue's allocation-file settings in a line (ShownSettings as a mapping)."""
    if s is None:
        return units.DASH
    def timeout(ms: int | None) -> str:
        return "unset" if ms is None else units.duration(ms)
    return (f"weight {s['weight']:g}; fair-share timeout "
            f"{timeout(s['fair_share_preemption_timeout_ms'])}, threshold "
            f"{s['fair_share_preemption_threshold']:g}; min-share timeout "
            f"{timeout(s['min_share_preemption_timeout_ms'])}")


def queue_row(q: Mapping[str, Any], types: list[str], cluster: Mapping[str, int | None]) -> str:
    name = q["name"]
    depth = name.count(".")
    label = name.rsplit(".", 1)[-1]
    bars = "".join(bar(t, q["resources"][t], cluster.get(t), q["over_instantaneous_share"][t],
                       q["share_counts"][t]) for t in types)
    apps = f"{q['running_apps'] or 0:,} running, {q['pending_apps'] or 0:,} pending"
    return (f'<tr class="{"leaf" if q["leaf"] else "parent"}" data-queue="{esc(name)}">'
            f'<td class="queue" style="padding-left:{8 + 14 * depth}px" title="{esc(name)}">'
            f'<a href="{href("/queue/", name)}">{esc(label)}</a></td>'
            f'<td>{esc(q["policy"] or units.DASH)}</td><td class="bars">{bars}</td>'
            f'<td class="num" data-count="{q["pending_containers"] or 0}">'
            f'{q["pending_containers"] or 0:,}</td><td class="nowrap">{apps}</td>'
            f'<td class="muted">{esc(settings_text(q["settings"]))}</td></tr>')


def queue_table(data: Mapping[str, Any]) -> str:
    types = data["resource_types"]
    head = ("<tr><th>Queue</th><th>policy</th><th>shares and usage per resource</th>"
            "<th class=num>pending containers</th><th>apps</th>"
            "<th>allocation file</th></tr>")
    rows = [queue_row(q, types, data["cluster"]) for q in data["queues"]]
    return table(head, rows, css="tree", table_id="queues")


def _pair(p: Mapping[str, int] | None) -> str:
    if p is None:
        return units.DASH
    return f"{units.memory(p['memory_mb'])}<br>{units.vcores(p['vcores'])}"


def apps_table(apps: list[Mapping[str, Any]], css: str = "apps") -> str:
    head = ("<tr><th>app</th><th>user</th><th>queue</th><th>state</th>"
            "<th class=num>allocated</th><th class=num>pending</th>"
            "<th class=num>preempted</th></tr>")
    rows = []
    for a in apps:
        pending = a["pending"]
        ask = (units.DASH if pending is None else
               f"{units.count(pending['containers'], 'container')}<br>{_pair(pending)}")
        pre = a["preempted"]
        rows.append(
            f'<tr data-app="{esc(a["id"])}"><td><a href="{href("/app/", a["id"])}">{esc(a["id"])}'
            f'</a><br><span class="muted">{esc(a["name"])}</span></td><td>{esc(a["user"])}</td>'
            f'<td>{esc(a["queue"])}</td><td>{esc(a["state"])}</td>'
            f'<td class="num" data-mb="{a["allocated"]["memory_mb"]}">{_pair(a["allocated"])}'
            f'</td><td class="num">{ask}</td><td class="num">'
            f"{pre['containers'] + pre['am_containers']:,} containers "
            f"({pre['am_containers']:,} AM)<br>{_pair(pre)}</td></tr>")
    return table(head, rows, css=css)


def nodes_table(nodes: list[Mapping[str, Any]], skipped: list[str]) -> str:
    head = ("<tr><th>node</th><th>rack</th><th>state</th><th class=num>containers</th>"
            "<th class=num>used</th><th class=num>capacity</th></tr>")
    rows = [f'<tr data-node="{esc(n["id"])}"><td><a href="{href("/node/", n["id"])}">'
            f'{esc(n["host"])}</a></td><td>{esc(n["rack"])}</td>'
            f'<td>{esc(n["state"])}</td><td class="num">{n["containers"] or 0:,}</td>'
            f'<td class="num">{_pair(n["used"])}</td><td class="num">{_pair(n["capacity"])}</td>'
            "</tr>" for n in nodes]
    left = ("" if not skipped else
            f'<p class="muted">Not held by the scheduler: {esc(", ".join(skipped))}</p>')
    return table(head, rows, css="nodes", table_id="nodes") + left


def leaf_apps(data: Mapping[str, Any]) -> str:
    """Each leaf's apps, in tree order (the RM's page filters one table by the chosen queue)."""
    by_queue: dict[str, list[Mapping[str, Any]]] = {}
    for a in data["apps"]:
        by_queue.setdefault(a["queue"], []).append(a)
    parts = []
    for q in data["queues"]:
        mine = by_queue.get(q["name"]) if q["leaf"] else None
        if mine:
            parts.append(f'<details open data-leaf="{esc(q["name"])}"><summary>'
                         f"{esc(q['name'])}: {units.count(len(mine), 'app')}</summary>"
                         f"{apps_table(mine)}</details>")
    known = {q["name"] for q in data["queues"]}
    elsewhere = [a for a in data["apps"] if a["queue"] not in known]
    if elsewhere:
        parts.append(f"<details open><summary>in no queue of the tree (finished, or the queue "
                     f"was removed): {len(elsewhere):,}</summary>{apps_table(elsewhere)}"
                     "</details>")
    return "\n".join(parts) or '<p class="muted">No apps in this sample.</p>'


def live_part(data: Mapping[str, Any], latest: LatestSample) -> str:
    """What the script replaces on a new sample: everything drawn from the sample."""
    if latest.sample is None:
        return (f'<div id="live" data-time-ms="">'
                f'<p class="muted">No sample yet from {esc(latest.rm_url)}.</p></div>')
    memory = data["cluster"].get(MEMORY)
    with units.memory_unit_of(memory):
        cluster = ", ".join(amount(t, data["cluster"].get(t)) for t in data["resource_types"])
        body = [f'<p id="cluster">Cluster: {esc(cluster)}; {len(data["nodes"]):,} nodes, '
                f'{len(data["apps"]):,} apps. Memory in {units.memory_unit()}.</p>',
                LEGEND, queue_table(data), "<h2>Applications by leaf queue</h2>",
                leaf_apps(data), "<h2>Nodes</h2>",
                '<p class="muted">Every node, with its memory and vcores bars and its last '
                'health update: the <a href="/nodes" id="nodes-link">Nodes page</a>.</p>',
                nodes_table(data["nodes"], data["skipped_nodes"])]
    return (f'<div id="live" data-time-ms="{data["time_ms"]}">' + "\n".join(body) + "</div>")

"""The Nodes page (``/nodes``, its live part ``/nodes/live``, its data ``/api/nodes``) and one
node's page (``/node/{id}``, ``/api/node/{id}``), from the ``/ws/v1/cluster/nodes`` answer of
the latest sample — every node it lists: those the scheduler holds (RUNNING, DECOMMISSIONING,
NEW) and the others (LOST, UNHEALTHY, DECOMMISSIONED, SHUTDOWN), as YARN's own nodes page lists
them all (``NodesPage``).

Each node: its id, rack and state, its containers (``numContainers``), memory and vcores used
and available, each with a bar whose 100 % is the node's capacity (``totalResource``, else used
+ available), and its last health update (``lastHealthUpdate``: the NodeManager's last
heartbeat), with its ``healthReport`` when it has one. Sorted by rack then node (``?sort=``
chooses: the most used memory or vcores first, the most containers, the oldest health update,
the state); numbers in a node id are compared as numbers (``node2`` before ``node10``).

A node's page adds its HTTP address and the apps whose AM runs on its host (``AppInfo``'s
``amHostHttpAddress``): the RM's REST answers name no other container's node (the
NodeManager's own ``/ws/v1/node/containers`` does). The page updates itself as the Scheduler
page does (``scheduler.js``: the live part swapped in when a new sample lands).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote

from starlette.requests import Request

from fairshare.report import units
from fairshare.report.html_kit import esc, table
from fairshare.sim.importer.dump import SCHEDULED_NODE_STATES
from fairshare.web.pages import params
from fairshare.web.pages.common import query, when
from fairshare.web.pages.errors import NotFound
from fairshare.web.pages.layout import href, note, page, status
from fairshare.web.pages.params import BadParameter
from fairshare.web.pages.scheduler_data import app_entry, node_entry, status_data
from fairshare.web.pages.scheduler_page import apps_table, percent
from fairshare.web.pages.source import LatestSample, LiveSource
from fairshare.web.pages.views_live import POLL_MS

Entry = Mapping[str, Any]
# the states in the order they are sorted by: the scheduler's first, then the others
STATE_ORDER = (*SCHEDULED_NODE_STATES, "UNHEALTHY", "LOST", "DECOMMISSIONED", "SHUTDOWN",
               "REBOOTED")
RESOURCES = (("memory-mb", "memory_mb", units.memory), ("vcores", "vcores", units.vcores))


def natural(text: str) -> tuple[tuple[int, int, str], ...]:
    """``node10`` after ``node2``: the digits of a name compared as numbers."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                 for part in re.split(r"(\d+)", text) if part)


def _fraction(n: Entry, key: str) -> float:
    total = n["capacity"][key]
    return n["used"][key] / total if total else 0.0


def _state_rank(n: Entry) -> int:
    state = n["state"]
    return STATE_ORDER.index(state) if state in STATE_ORDER else len(STATE_ORDER)


# ?sort=: each a key over a node's entry, ties broken by the node's id
SORTS: Mapping[str, tuple[str, Callable[[Entry], Any]]] = {
    "rack": ("rack, then node", lambda n: (natural(n["rack"]), natural(n["id"]))),
    "node": ("node", lambda n: natural(n["id"])),
    "state": ("state", lambda n: (_state_rank(n), natural(n["id"]))),
    "memory": ("most memory used", lambda n: (-_fraction(n, "memory_mb"), natural(n["id"]))),
    "vcores": ("most vcores used", lambda n: (-_fraction(n, "vcores"), natural(n["id"]))),
    "containers": ("most containers", lambda n: (-(n["containers"] or 0), natural(n["id"]))),
    "health": ("oldest health update", lambda n: (n["last_health_update_ms"] or 0,
                                                  natural(n["id"]))),
}
DEFAULT_SORT = "rack"


def _sort(q: Mapping[str, str]) -> str:
    chosen = q.get("sort") or DEFAULT_SORT
    if chosen not in SORTS:
        raise BadParameter("sort", f"{chosen!r}: one of {', '.join(SORTS)}")
    return chosen


def every_node(latest: LatestSample) -> list[dict[str, Any]]:
    """The sample's nodes, held or not, in the answer's order."""
    s = latest.sample
    if s is None:
        return []
    return ([node_entry(n) for n in s.nodes]
            + [node_entry(n, held=False) for n in s.other_nodes])


def nodes_data(latest: LatestSample, sort: str) -> dict[str, Any]:
    """``/api/nodes``: the status, and every node sorted (see the module docstring), with the
    held nodes' totals."""
    listed = sorted(every_node(latest), key=SORTS[sort][1])
    held = [n for n in listed if n["held"]]
    totals = {part: {key: sum(n[part][key] for n in held) for _n, key, _f in RESOURCES}
              for part in ("capacity", "used", "available")}
    return {**status_data(latest), "sort": sort, "sorts": list(SORTS), "nodes": listed,
            "held": len(held), "totals": totals,
            "states": {state: sum(1 for n in listed if n["state"] == state)
                       for state in dict.fromkeys(n["state"] for n in listed)}}


def nodes_json(source: LiveSource, request: Request) -> dict[str, Any]:
    return nodes_data(source.latest(), _sort(query(request)))


def node_bar(n: Entry, resource: str, key: str, amount: Callable[[float | None], str]) -> str:
    """Used of the node's capacity in one resource, as the Scheduler page draws a queue's
    usage (green), with the available amount beside it."""
    used, total, free = n["used"][key], n["capacity"][key], n["available"][key]
    words = f"{amount(used)} of {amount(total)}"
    title = f"used {amount(used)}; available {amount(free)}; capacity {amount(total)}"
    return (f'<div class="res" data-resource="{resource}"><span class="rname">{resource}</span>'
            f'<div class="bar" title="{esc(title)}"><span class="used" style="width:'
            f'{percent(used, total):.2f}%"></span></div><span class="btext">{esc(words)}<br>'
            f'<span class="muted">{esc(amount(free))} available</span></span></div>')


def _health(n: Entry, sample_ms: int | None, zone: str) -> str:
    at = n["last_health_update_ms"]
    return (f'<td class="nowrap" data-ms="{"" if at is None else at}">'
            f"{_health_text(n, sample_ms, zone)}</td>")


def _health_text(n: Entry, sample_ms: int | None, zone: str) -> str:
    """When the node last reported (and how long before the sample), and its report."""
    at = n["last_health_update_ms"]
    report = ("" if not n["health_report"] else
              f'<br><span class="error">{esc(n["health_report"])}</span>')
    if at is None:
        return units.DASH + report
    before = ("" if sample_ms is None else
              f'<br><span class="muted">{_before(sample_ms - at)}</span>')
    return f"{when(at, zone)}{before}{report}"


def _before(ms: int) -> str:
    if ms < 0:  # the NodeManager's clock ahead of the sample's
        return f"{units.duration(-ms)} after the sample"
    return "at the sample" if ms == 0 else f"{units.duration(ms)} before the sample"


def node_row(n: Entry, sample_ms: int | None, zone: str) -> str:
    bars = "".join(node_bar(n, r, k, f) for r, k, f in RESOURCES)
    held = "" if n["held"] else " other"
    return (f'<tr class="node{held}" data-node="{esc(n["id"])}">'
            f'<td><a href="{href("/node/", n["id"])}">{esc(n["id"])}</a></td>'
            f'<td>{esc(n["rack"])}</td><td data-state="{esc(n["state"])}">{esc(n["state"])}</td>'
            f'<td class="num">{n["containers"] or 0:,}</td><td class="bars">{bars}</td>'
            f"{_health(n, sample_ms, zone)}</tr>")


def nodes_table(nodes: Sequence[Entry], sample_ms: int | None, zone: str) -> str:
    head = ("<tr><th>node</th><th>rack</th><th>state</th><th class=num>containers</th>"
            "<th>memory and vcores: used of the node's capacity</th>"
            "<th>last health update</th></tr>")
    return table(head, [node_row(n, sample_ms, zone) for n in nodes], css="tree",
                 table_id="nodes-list")


def _sort_links(sort: str, zone: str) -> str:
    tz = "" if zone == "UTC" else f"&amp;tz={esc(quote(zone))}"
    links = " · ".join(
        f"<b>{words}</b>" if key == sort else f'<a href="/nodes?sort={key}{tz}">{words}</a>'
        for key, (words, _k) in SORTS.items())
    return f'<p class="sort" id="nodes-sort">Sorted by: {links}</p>'


def _summary(data: Entry) -> str:
    totals = data["totals"]
    states = ", ".join(f"{n:,} {esc(state)}" for state, n in data["states"].items())
    held = units.count(data["held"], "node")
    parts = "; ".join(
        f"{name} {f(totals['used'][k])} used of {f(totals['capacity'][k])}, "
        f"{f(totals['available'][k])} available"
        for name, k, f in (("memory", "memory_mb", units.memory),
                           ("vcores", "vcores", units.vcores)))
    return (f'<p id="nodes-summary">{units.count(len(data["nodes"]), "node")} ({states}). '
            f"The scheduler holds {held}: {esc(parts)}.</p>")


def live_part(data: Entry, latest: LatestSample, zone: str) -> str:
    """What the script swaps in on a new sample: everything drawn from the sample."""
    if latest.sample is None:
        return (f'<div id="live" data-time-ms="">'
                f'<p class="muted">No sample yet from {esc(latest.rm_url)}.</p></div>')
    sample_ms = latest.sample.time_ms
    total_mb = data["totals"]["capacity"]["memory_mb"]
    with units.memory_unit_of(total_mb or None):
        body = [_summary(data), _sort_links(data["sort"], zone),
                nodes_table(data["nodes"], sample_ms, zone)
                if data["nodes"] else note("The RM lists no node.")]
    return f'<div id="live" data-time-ms="{data["time_ms"]}">' + "\n".join(body) + "</div>"


def _zone(q: Mapping[str, str]) -> str:
    zone = q.get("tz") or "UTC"
    params.timezone({"tz": zone})
    return zone


def _live_url(sort: str, zone: str) -> str:
    return f"/nodes/live?sort={sort}" + ("" if zone == "UTC" else f"&tz={quote(zone)}")


def nodes_fragment(source: LiveSource, request: Request) -> str:
    q = query(request)
    zone, sort = _zone(q), _sort(q)
    latest = source.latest()
    return live_part(nodes_data(latest, sort), latest, zone)


def nodes_page(source: LiveSource, request: Request) -> str:
    q = query(request)
    zone, sort = _zone(q), _sort(q)
    latest = source.latest()
    data = nodes_data(latest, sort)
    return page("Nodes", [
        status(latest),
        note("Every node the RM's <code>/ws/v1/cluster/nodes</code> lists. Each bar: the "
             "node's capacity, used part filled. Last health update: the NodeManager's last "
             "heartbeat (<code>lastHealthUpdate</code>)."),
        f'<div id="nodes-page" data-poll-ms="{POLL_MS}" '
        f'data-live-url="{esc(_live_url(sort, zone))}">',
        live_part(data, latest, zone), "</div>"], scripts=("scheduler.js",))


def _find_node(latest: LatestSample, node_id: str) -> dict[str, Any]:
    found = next((n for n in every_node(latest) if n["id"] == node_id), None)
    if found is None:
        raise NotFound(f"no node {node_id!r} in the latest sample")
    return found


def node_json(source: LiveSource, request: Request) -> dict[str, Any]:
    latest = source.latest()
    node = _find_node(latest, request.path_params["node_id"])
    apps = [] if latest.sample is None else [
        app_entry(a) for a in latest.sample.apps
        if a.am_host is not None and a.am_host == node["host"].rsplit(":", 1)[0]]
    return {**status_data(latest), "node": node, "am_apps": apps}


def node_page(source: LiveSource, request: Request) -> str:
    zone = _zone(query(request))
    data = node_json(source, request)
    n = data["node"]
    latest = source.latest()
    sample_ms = None if latest.sample is None else latest.sample.time_ms
    with units.memory_unit_of(n["capacity"]["memory_mb"] or None):
        facts = [("id", esc(n["id"])), ("host", esc(n["host"])),
                 ("HTTP address", esc(n["http"]) or units.DASH), ("rack", esc(n["rack"])),
                 ("state", esc(n["state"])),
                 ("held by the scheduler", "yes" if n["held"] else "no"),
                 ("containers", f"{n['containers'] or 0:,}")]
        facts += [(name, node_bar(n, resource, key, f))
                  for (resource, key, f), name in zip(RESOURCES, ("memory", "vcores"),
                                                      strict=True)]
        health = _health_text(n, sample_ms, zone)
        apps = apps_table(data["am_apps"]) if data["am_apps"] else note(
            "No app's AM runs on this node's host.")
    items = "".join(f'<dt>{label}</dt><dd data-key="{esc(label)}">{value}</dd>'
                    for label, value in facts)
    return page(f"Node {n['id']}", [
        status(latest),
        f'<dl class="facts" id="node-facts">{items}<dt>last health update</dt>'
        f'<dd data-key="last health update">{health}</dd></dl>',
        "<h2>Apps whose AM runs here</h2>", apps,
        '<p><a href="/nodes">All nodes</a></p>'])

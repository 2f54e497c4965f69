"""``fairshare watch status``: one screen of a ResourceManager for an admin without a browser —
per queue its steady and instantaneous fair share, usage and demand in memory and vcores,
pending containers, and what holds it (web/diagnosis.py) — or the same as JSON for scripts.

Numbers are written as everywhere else (report/units.py): one memory unit for the whole table,
chosen from the cluster's memory (GB from 100,000 MB), so that a column never reads MB in one
row and GB in the next; the unit is said once, in the table's title, and each cell holds
``memory / vcores``. The numbers are the RM's own (its ``FairSchedulerQueueInfo``).
"""

from __future__ import annotations

import io
import textwrap
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from fairshare.report import units
from fairshare.resources.display import vcores_number
from fairshare.sim.importer.dump import Amounts, DumpQueue
from fairshare.web.diagnosis import Finding, utilization
from fairshare.web.sample import Sample

APPS_LISTED = 3  # waiting apps named per queue; the rest are counted
_COLUMNS = (("Steady", "steady_fair"), ("Fair", "fair"), ("Used", "used"),
            ("Demand", "demand"))


def render_status(sample: Sample, findings: Sequence[Finding], *, width: int) -> str:
    """The screen as text, no line wider than ``width``: the queue table, then per queue
    with something waiting its diagnosis and what would help."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, emoji=False,
                      highlight=False, legacy_windows=False)
    cluster_mb = sample.cluster[0] if sample.cluster else None
    with units.memory_unit_of(cluster_mb):
        unit = units.memory_unit()
        console.print(Text(_headline(sample), overflow="fold"))
        wide, stacked = width >= 120, False
        rows = _rows(sample, findings, unit, wide=wide, stacked=stacked)
        if _least_width(rows) > width:
            wide, stacked = False, True
            rows = _rows(sample, findings, unit, wide=wide, stacked=stacked)
        console.print(_table(rows, unit, wide=wide, stacked=stacked))
    lines = [line.rstrip() for line in buffer.getvalue().splitlines()]
    for indent, line in _diagnosis_lines(findings):  # plain text: wrapped at words
        lines += textwrap.wrap(line, width, initial_indent=" " * indent,
                               subsequent_indent=" " * indent, break_on_hyphens=False)
    return "\n".join(lines) + "\n"


def _headline(sample: Sample) -> str:
    used = utilization(sample)
    cluster = (f"{units.memory(sample.cluster[0])}, {units.vcores(sample.cluster[1])}"
               if sample.cluster else "size not reported")
    share = "" if used != used else f", {units.percent(used)} used"  # NaN: an empty cluster
    return (f"{sample.rm} (Hadoop {sample.rm_version}): cluster {cluster}{share}; "
            f"{len(sample.nodes)} nodes, {len(sample.apps)} apps")


def _rows(sample: Sample, findings: Sequence[Finding], unit: str, *, wide: bool,
          stacked: bool) -> list[list[str]]:
    """One row per queue; ``stacked``: each cell's memory over its vcores, on two lines (a
    narrow terminal, or a big cluster's long numbers)."""
    held = {f.queue: f.cause for f in findings if f.app is None}
    rows = []
    for q in sample.queues():
        row = [_label(q), *(_pair(getattr(q, field), unit, stacked) for _, field in _COLUMNS),
               "–" if q.pending_containers is None else f"{q.pending_containers:,}"]
        rows.append([*row, held.get(q.name, "")] if wide else row)
    return rows


def _least_width(rows: list[list[str]]) -> int:
    """The narrowest the table prints in without cutting a number: every value column at
    its widest (header or cell), the queue names folded to 12, a space between columns."""
    headers = ["Queue", *(h for h, _ in _COLUMNS), "Pending", "Held by"]
    columns = list(zip(*rows, strict=True)) if rows else []
    widths = [max(len(headers[i]), *(len(line) for cell in column for line in cell.split("\n")))
              for i, column in enumerate(columns)]
    return min(widths[0], 12) + sum(widths[1:]) + len(widths) - 1 if widths else 0


def _table(rows: list[list[str]], unit: str, *, wide: bool, stacked: bool) -> Table:
    how = "over" if stacked else "/"
    table = Table(title=f"Queues (memory in {unit} {how} vcores)", box=None, padding=(0, 1),
                  pad_edge=False, title_justify="left", collapse_padding=True)
    table.add_column("Queue", overflow="fold", ratio=1, min_width=8)
    for header, _ in _COLUMNS:
        table.add_column(header, justify="right", no_wrap=True)
    table.add_column("Pending", justify="right", no_wrap=True)
    if wide:
        table.add_column("Held by", overflow="fold", ratio=1)
    for row in rows:
        table.add_row(*row)
    return table


def _label(q: DumpQueue) -> str:
    depth = q.name.count(".")
    name = q.name if not depth else "  " * depth + q.name.rsplit(".", 1)[-1]
    return name + ("/" if q.children else "")


def _pair(amounts: Amounts | None, unit: str, stacked: bool) -> str:
    """``13,312 / 8``: memory in the table's unit (a value that must be written in another
    unit keeps its own), vcores."""
    if amounts is None:
        return "–"
    mb = units.memory(amounts[0]).removesuffix(" " + unit)
    return f"{mb}{chr(10) if stacked else ' / '}{vcores_number(amounts[1])}"


def _diagnosis_lines(findings: Sequence[Finding]) -> list[tuple[int, str]]:
    """(indent, text): per queue its finding, the advice, and its first waiting apps."""
    lines: list[tuple[int, str]] = []
    waiting: dict[str, list[Finding]] = {}
    for f in findings:
        if f.app is not None:
            waiting.setdefault(f.queue, []).append(f)
    for f in findings:
        if f.app is not None:
            continue
        lines += [(0, f"{f.queue}: {f.words}."), (2, f"What would help: {f.advice}.")]
        apps = waiting.get(f.queue, [])
        if apps:
            named = ", ".join(f"{a.app} ({a.cause})" for a in apps[:APPS_LISTED])
            more = f" and {len(apps) - APPS_LISTED} more" if len(apps) > APPS_LISTED else ""
            lines.append((2, f"Waiting: {named}{more}."))
    if not lines:
        lines.append((0, "Nothing is waiting: no queue has pending containers or held apps."))
    return lines


def _amounts(a: Amounts | None) -> dict[str, int] | None:
    return None if a is None else {"memory_mb": a[0], "vcores": a[1]}


def status_json(sample: Sample, findings: Sequence[Finding]) -> dict[str, Any]:
    """``--format json``: the RM's numbers as it gave them (MB and vcores; null where its
    answer did not say) and the findings, per queue in tree order."""
    by_queue: dict[str, list[dict[str, Any]]] = {}
    for f in findings:
        by_queue.setdefault(f.queue, []).append(asdict(f))
    queues = [{
        "name": q.name, "leaf": not q.children, "policy": q.policy,
        "steady_fair_share": _amounts(q.steady_fair), "fair_share": _amounts(q.fair),
        "min_share": _amounts(q.min_resources), "max_share": _amounts(q.max_resources),
        "used": _amounts(q.used), "demand": _amounts(q.demand),
        "reserved": _amounts(q.reserved), "am_used": _amounts(q.am_used),
        "am_max": _amounts(q.am_max), "pending_containers": q.pending_containers,
        "allocated_containers": q.allocated_containers, "max_apps": q.max_apps,
        "running_apps": q.active_apps, "pending_apps": q.pending_apps,
        "preemptable": q.preemptable, "findings": by_queue.get(q.name, []),
    } for q in sample.queues()]
    used = utilization(sample)
    return {"time_ms": sample.time_ms, "rm": sample.rm, "cluster_id": sample.cluster_id,
            "rm_version": sample.rm_version, "cluster": _amounts(sample.cluster),
            "utilization": None if used != used else used, "nodes": len(sample.nodes),
            "apps": len(sample.apps), "queues": queues}


__all__ = ["render_status", "status_json"]

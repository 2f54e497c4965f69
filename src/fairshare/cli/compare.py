"""``fairshare compare OUT_A OUT_B [--format text|json]``: two runs' summaries, biggest changes
first."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich import box
from rich.table import Table
from rich.text import Text

from fairshare.cli import format as fmt
from fairshare.cli.common import Format, FormatOpt, JsonOpt, guarded, one_line, out, wants_json
from fairshare.cli.tables import FitTable
from fairshare.sim.record.outputs import json_text
from fairshare.sim.record.summary_model import as_json
from fairshare.workbench.compare import (
    Change,
    Comparison,
    compare,
    is_ratio,
    load_summary,
)

RunDir = Annotated[Path, typer.Argument(show_default=False,
                                        help="A simulation's output directory (its -o).")]
Top = Annotated[int, typer.Option("--top", min=1, help="Changes shown in the table.")]
Queues = Annotated[list[str] | None, typer.Option(
    "--queue", metavar="QUEUE", show_default=False,
    help="Only this queue's changes and those of the queues below it (repeatable).")]
Apps = Annotated[list[str] | None, typer.Option(
    "--app", metavar="APP", show_default=False, help="Only this app's changes (repeatable).")]


def compare_command(out_a: RunDir, out_b: RunDir, output: FormatOpt = Format.TEXT,
                    as_json: JsonOpt = False, top: Top = 30, queue: Queues = None,
                    app: Apps = None) -> None:
    """What changed from one run to another: per queue and per app, every summary number,
    biggest changes first (with --format json, every change)."""
    a = guarded(lambda: load_summary(out_a))
    b = guarded(lambda: load_summary(out_b))
    result = guarded(lambda: compare(a, b, queues=queue or [], apps=app or []))
    if wants_json(output, as_json):
        out.print(json_text(_document(result, out_a, out_b), indent=2), soft_wrap=True)
        return
    for label, path, scenario in (("A", out_a, result.scenarios[0]),
                                  ("B", out_b, result.scenarios[1])):
        overrides = scenario.overrides
        extra = f" with {' '.join(overrides)}" if overrides else ""
        out.print(Text(one_line(f"{label}: {path} ({scenario.name}{extra})")),
                  soft_wrap=True)
    if result.scenarios[0].name != result.scenarios[1].name:
        out.print("note: the two runs are of different scenarios", soft_wrap=True)
    out.print(_table(result, top))
    for side, names in zip("AB", result.only_in, strict=True):
        if names:
            shown = ", ".join(names[:10]) + (f" and {len(names) - 10:,} more"
                                              if len(names) > 10 else "")
            out.print(one_line(f"only in {side}: {shown}"), soft_wrap=True)


def _document(result: Comparison, out_a: Path, out_b: Path) -> dict[str, Any]:
    return {
        "a": {"path": str(out_a), "scenario": as_json(result.scenarios[0])},
        "b": {"path": str(out_b), "scenario": as_json(result.scenarios[1])},
        "changes": [{"kind": c.kind, "name": c.name, "metric": c.metric, "a": c.a, "b": c.b,
                     "change": c.delta, "relative": c.relative} for c in result.changes],
        "unchanged": result.unchanged,
        "only-in-a": list(result.only_in[0]),
        "only-in-b": list(result.only_in[1]),
    }


def _table(result: Comparison, top: int) -> Table:
    shown = result.changes[:top]
    more = len(result.changes) - len(shown)
    caption = (f"{more:,} smaller changes not shown (--top, or --json for all); "
               if more else "") + f"{result.unchanged:,} numbers unchanged"
    table = FitTable(box=box.SIMPLE_HEAD, title_justify="left", caption_justify="left",
                  collapse_padding=True, pad_edge=False, caption=caption,
                  title=f"{len(result.changes):,} numbers changed, biggest first")
    for column in ("", "name", "metric", "A", "B", "change", "relative"):
        table.add_column(column, justify="right" if column in ("A", "B", "change", "relative")
                         else "left")
    for change in shown:
        table.add_row(change.kind, change.name, change.metric, _value(change, change.a),
                      _value(change, change.b), _delta(change), _relative(change))
    return table


def _value(change: Change, value: float | None) -> str:
    if value is None:
        return "–"
    metric = change.metric
    if _is_time(metric):
        return fmt.duration(int(value)) if value else "0"
    if is_ratio(metric):  # before the units: usage-to-fair-share.memory-mb is no amount
        return fmt.ratio(value)
    if metric.endswith("usage-factor-without"):
        return f"{value:,.2f}×"
    if metric.endswith("memory-mb"):
        return f"{value:,.0f} MB"
    if metric.endswith("vcores"):
        return f"{value:,.1f} vc".replace(".0 vc", " vc")
    return f"{value:,.4g}" if not float(value).is_integer() else f"{int(value):,}"


def _is_time(metric: str) -> bool:
    """``wait-ms``, ``during-contention.ms``, ``am-wait-ms.p95`` — not ``am-wait-ms.apps``."""
    parts = metric.split(".")
    last = parts[-1]
    if last == "ms" or last.endswith("-ms"):
        return True
    return len(parts) > 1 and parts[-2].endswith("-ms") and last in ("p50", "p95", "max")


def _delta(change: Change) -> str:
    delta = change.delta
    if delta is None:
        return "–"
    sign = "+" if delta > 0 else "−"
    shown = _value(change, abs(delta))
    if is_ratio(change.metric):
        shown = f"{abs(delta) * 100:.0f} pt"  # percentage points
    return f"{sign}{shown}"


def _relative(change: Change) -> str:
    relative = change.relative
    if relative is None:
        return "new" if change.a in (0, None) and change.b not in (0, None) else "–"
    return f"{relative * 100:+.0f}%"

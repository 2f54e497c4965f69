"""The pieces every page is made of: escaping, table cells that carry their exact values, the
figure with its caption and PNG link, and the document with its inline style sheet.

The page is one file that opens offline: CSS inline, charts inline as SVG, no script, no font
or image from anywhere. Every user-given string (queue, app, scenario names) is escaped.
A cell shows a rounded number with its unit and keeps the exact value in ``data-*``
attributes (``data-mb``, ``data-vcores``, ``data-ms``, ``data-count``, ``data-ratio-mb`` …), so
that scripts and tests can read the numbers without parsing "20,430 MB".
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from fairshare.report import units
from fairshare.sim.record.summary_model import MaybePair

if TYPE_CHECKING:  # the charts bring matplotlib: the live pages use these tables without it
    from fairshare.report.charts import Chart

CSS = """
:root { color-scheme: light; --line: #d9dde3; --muted: #5b6470; --warn: #fdecea; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif;
       margin: 0 auto; max-width: 1240px; padding: 0 16px 48px; color: #1d2329;
       line-height: 1.45; font-size: 15px; }
h1 { margin: 24px 0 4px; font-size: 26px; }
h2 { margin: 36px 0 8px; padding-top: 8px; border-top: 1px solid var(--line); font-size: 20px; }
h3 { margin: 24px 0 4px; font-size: 16px; }
p, li, dd { max-width: 78em; }
code { font-size: 90%; background: #f2f4f7; padding: 0 3px; border-radius: 3px; }
.muted, figcaption, .why { color: var(--muted); font-size: 13.5px; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; }
nav ul { display: flex; flex-wrap: wrap; gap: 6px 18px; padding: 0; list-style: none; }
figure { margin: 12px 0 20px; }
svg.chart { display: block; width: 100%; max-width: 1000px; height: auto; }
.scroll { overflow: auto; max-height: 85vh; border: 1px solid var(--line); }
table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums; }
th, td { padding: 3px 6px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f5f7fa; text-align: left; font-size: 12.5px; line-height: 1.25; }
thead { position: sticky; top: 0; z-index: 1; }  /* both header rows, however they wrap */
th.num { text-align: right; }
td.num { text-align: right; white-space: nowrap; }
td.queue { white-space: nowrap; }
tr.leaf td.queue { font-weight: 500; } tr.parent td.queue { color: var(--muted); }
tbody tr:nth-child(even) { background: #fafbfc; }
td.short, .warn { background: var(--warn); }
.nowrap { white-space: nowrap; }
table.variants { font-size: 12.5px; }  /* 16 columns in 1,240 px */
table.variants th, table.variants td { padding: 3px 4px; }
details summary { cursor: pointer; color: var(--muted); }
.restored { font-weight: 600; color: #1b7a1b; }
"""


def esc(text: object) -> str:
    return html.escape(str(text), quote=True)


def attrs(**values: object) -> str:
    """`` data-mb="6144.0"`` …: names with ``_`` become ``-``; None values are empty."""
    return "".join(f' {k.replace("_", "-")}="{"" if v is None else esc(v)}"'
                   for k, v in values.items())


def res_cell(key: str, r: MaybePair) -> str:
    """Memory and vcores in one cell, each with its unit."""
    text = f"{units.memory(r.memory_mb)}<br>{units.vcores(r.vcores)}"
    return (f'<td class="num"{attrs(data_key=key, data_mb=r.memory_mb, data_vcores=r.vcores)}>'
            f"{text}</td>")


def ratio_cell(key: str, r: MaybePair, title: str) -> str:
    """Usage ÷ share, memory and vcores (``–`` where the share was 0)."""
    text = f"{units.percent(r.memory_mb)} mem<br>{units.percent(r.vcores)} vc"
    data = attrs(data_key=key, data_ratio_mb=r.memory_mb, data_ratio_vcores=r.vcores,
                 title=title)
    return f'<td class="num"{data}>{text}</td>'


def ms_cell(key: str, ms: int | None, *, css: str = "num") -> str:
    return f'<td class="{css}"{attrs(data_key=key, data_ms=ms)}>{units.duration(ms)}</td>'


def count_cell(key: str, n: int) -> str:
    return f'<td class="num"{attrs(data_key=key, data_count=n)}>{n:,}</td>'


def table(head: str, rows: Iterable[str], *, css: str = "", table_id: str = "") -> str:
    """A table in its horizontally scrolling box; ``css`` its class, ``table_id`` its id."""
    cls = (f' class="{css}"' if css else "") + (f' id="{table_id}"' if table_id else "")
    return (f'<div class="scroll"><table{cls}><thead>{head}</thead><tbody>\n'
            + "\n".join(rows) + "\n</tbody></table></div>")


def header_row(cells: Sequence[tuple[str, bool]]) -> str:
    """A header row: (label HTML, numeric?) per column."""
    return "<tr>" + "".join(f'<th{" class=num" if num else ""}>{label}</th>'
                            for label, num in cells) + "</tr>"


def figure(chart: Chart, caption: str, png_href: str) -> str:
    return (f'<figure id="chart-{esc(chart.name)}" data-chart="{esc(chart.name)}">\n'
            f"{chart.svg}\n<figcaption>{caption} "
            f'<a href="{esc(png_href)}">PNG</a></figcaption></figure>')


def document(title: str, body: Iterable[str]) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")

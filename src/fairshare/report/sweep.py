"""``build_sweep_report``: a sweep's ``sweep.csv`` (docs/tuning.md) → ``sweep.html``.

The question a sweep answers is a trade-off: how much shorter do a queue's apps wait, for how
much work thrown away? The chart puts one point per variant: the focus queue's p95 AM wait
(``QUEUE:am-wait-p95-ms``) against the container time preemption killed
(``preempted-container-hours``), and against the task time lost (``lost-work-hours``). The
best variants sit low and to the left. Only ``sweep.csv`` is read.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Annotation
from matplotlib.ticker import FuncFormatter
from matplotlib.transforms import Bbox

from fairshare.config.errors import ConfigError
from fairshare.config.files import decode_utf8, read_input
from fairshare.report import charts, units
from fairshare.report.charts import Chart
from fairshare.report.html_kit import attrs, document, esc, figure, table
from fairshare.report.write import check_target, files_dir, write_page

SWEEP_CSV = "sweep.csv"
MAX_SWEEP_BYTES = 256 << 20
X_AXES = (("preempted-container-hours", "container time killed by preemption (hours)"),
          ("lost-work-hours", "task time lost (hours)"))
FOCUS_STATS = (("am-wait-p50-ms", "AM wait p50"), ("am-wait-p95-ms", "AM wait p95"),
               ("am-wait-max-ms", "AM wait max"), ("first-task-wait-p95-ms", "first task p95"),
               ("turnaround-p95-ms", "turnaround p95"),
               ("short-of-threshold-ms", "short of threshold"), ("starved-ms", "starved"))


@dataclass(frozen=True, slots=True)
class Variant:
    number: str  # the grid position that starts its name: "3"
    name: str
    ok: bool
    error: str
    settings: tuple[tuple[str, str], ...]  # (scope:key, value), as swept
    cells: dict[str, str]  # every column of its row, as written


@dataclass(frozen=True, slots=True)
class Sweep:
    variants: tuple[Variant, ...]
    keys: tuple[str, ...]  # the swept settings
    focus_queues: tuple[str, ...]  # queues with QUEUE:am-wait-p95-ms columns


def load_sweep(sweep_dir: Path) -> Sweep:
    path = sweep_dir / SWEEP_CSV
    display = str(path)
    text = decode_utf8(read_input(path, display, MAX_SWEEP_BYTES), display)
    try:
        rows = list(csv.DictReader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as e:
        raise ConfigError(f"not CSV: {e}", display) from None
    header = list(rows[0]) if rows else []
    needed = {"variant", "status", "error", *(x for x, _ in X_AXES)}
    if not rows or not needed <= set(header) or any(
            None in r or None in r.values() for r in rows):  # a field missing or too many
        raise ConfigError("not a fairshare sweep.csv (docs/tuning.md): needs a header with "
                          "variant, status, error, preempted-container-hours, lost-work-hours "
                          "and one row per variant, each as long as the header", display)
    keys = tuple(c for c in header if c.startswith(("alloc:", "site:")))
    focus = tuple(c.removesuffix(":am-wait-p95-ms") for c in header
                  if c.endswith(":am-wait-p95-ms"))
    variants = tuple(Variant(r["variant"].split("-", 1)[0], r["variant"], r["status"] == "ok",
                             r["error"], tuple((k, r[k]) for k in keys), dict(r)) for r in rows)
    return Sweep(variants, keys, focus)


def number(variant: Variant, column: str) -> float | None:
    """A cell as a number; None when empty (a failed variant, a queue without apps) or not a
    number."""
    text = variant.cells.get(column) or ""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def choose_focus(sweep: Sweep, focus: str | None, display: str) -> str:
    """``focus`` if the sweep has it; else the focus queue whose p95 AM wait varies most
    between variants (the one the swept settings matter to), the first on a tie."""
    if focus is not None:
        if focus not in sweep.focus_queues:
            known = ", ".join(sweep.focus_queues) or "none"
            raise ConfigError(f"--focus {focus}: not a focus queue of this sweep (it has "
                              f"{known})", display)
        return focus
    if not sweep.focus_queues:
        raise ConfigError("no focus queue (no QUEUE:am-wait-p95-ms column): nothing to "
                          "chart", display)

    def spread(queue: str) -> float:
        values = [v for x in sweep.variants if (v := number(x, f"{queue}:am-wait-p95-ms"))
                  is not None]
        return max(values) - min(values) if values else -1.0
    return max(sweep.focus_queues, key=lambda q: (spread(q), -sweep.focus_queues.index(q)))


def build_sweep_report(sweep_dir: Path, html: Path, focus: str | None = None) -> list[Path]:
    """Write the sweep's page to ``html`` and its chart to ``<html stem>-files/tradeoff.png``;
    the files written, the page first."""
    if not sweep_dir.is_dir():
        raise ConfigError("not a directory (give a sweep's output directory, its -o)",
                          str(sweep_dir))
    check_target(html)
    sweep = load_sweep(sweep_dir)
    queue = choose_focus(sweep, focus, str(sweep_dir / SWEEP_CSV))
    chart = tradeoff_chart(sweep, queue)
    page = _page(sweep, queue, focus is None, chart, f"{files_dir(html).name}/{chart.name}.png")
    return write_page(html, page, [chart])


def _label(v: Variant) -> str:
    return f"{v.number} ({', '.join(value for _, value in v.settings)})" if v.settings \
        else v.number


def tradeoff_chart(sweep: Sweep, queue: str) -> Chart:
    """One point per variant that ran and has the focus queue's p95 AM wait, in each panel;
    each point's SVG group is ``tradeoff-<panel>-variant-<n>``."""
    column = f"{queue}:am-wait-p95-ms"
    points = [(v, number(v, column)) for v in sweep.variants if v.ok]
    drawn = [(v, y) for v, y in points if y is not None]
    largest = max((y for _, y in drawn), default=0.0)
    per, unit = units.time_axis(int(largest))
    title = f"Trade-off: {queue} p95 AM wait against work preemption threw away"
    with charts.style():
        fig = charts.new_figure(10.0, 4.6)
        for ax, (x_column, x_label) in zip(fig.subplots(1, 2, sharey=True), X_AXES,
                                           strict=True):
            _points(ax, drawn, x_column, per, f"{x_column.split('-')[0]}")
            ax.set_xlabel(x_label)
        fig.axes[0].set_ylabel(f"{queue} AM wait p95 ({unit})")
        fig.suptitle(title, fontsize=10, x=0.01, ha="left")
        return charts.render(fig, "tradeoff", title)


def _points(ax: Axes, drawn: Sequence[tuple[Variant, float]], x_column: str, per: float,
            panel: str) -> None:
    at: dict[tuple[float, float], list[Variant]] = {}
    for v, y in drawn:
        x = number(v, x_column) or 0.0
        ax.plot([x], [y / per], marker="o", markersize=7, linestyle="none", color=charts.FAIR,
                alpha=0.8, gid=f"{panel}-variant-{v.number}")
        at.setdefault((x, y / per), []).append(v)
    xs = [x for x, _ in at] or [0.0]
    ys = [y for _, y in at] or [0.0]
    ax.set_xlim(min(0.0, min(xs)), max(xs) * 1.3 + (0.01 if max(xs) == 0 else 0.0))
    ax.set_ylim(min(0.0, min(ys)), max(ys) * 1.2 + (1.0 if max(ys) == 0 else 0.0))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:g}"))
    # variants on one spot share one label
    place_labels(ax, [(x, y, "\n".join(_label(v) for v in together))
                      for (x, y), together in sorted(at.items(), key=lambda item: item[0])])


# where a label may go from its point, in points (x, y), tried in order: beside it, above,
# below, then further out; labels already placed, and every point, are kept clear of
_OFFSETS = [(6, 4), (-6, 4), (6, -12), (-6, -12), (6, 16), (-6, 16), (6, -24), (-6, -24),
            (18, 28), (-18, 28), (18, -36), (-18, -36), (30, 40), (-30, 40)]


def place_labels(ax: Axes, points: Sequence[tuple[float, float, str]]) -> list[Annotation]:
    """Each point's label at the first offset where its box overlaps no label placed before
    and no point (the last offset tried when none is free); returns the labels."""
    fig = ax.get_figure(root=True)
    assert isinstance(fig, Figure)
    # boxes are measured where the figure will draw them: its layout done first (labels are
    # left out of it, so that placing them does not move the axes they were placed on)
    renderer = FigureCanvasAgg(fig).get_renderer()  # type: ignore[no-untyped-call]
    fig.draw_without_rendering()
    dots = [ax.transData.transform((x, y)) for x, y, _ in points]
    taken: list[Bbox] = []
    placed = []
    for x, y, text in points:
        label = None
        for dx, dy in _OFFSETS:
            if label is not None:
                label.remove()
            label = ax.annotate(text, (x, y), xytext=(dx, dy), textcoords="offset points",
                                fontsize=7.5, ha="left" if dx > 0 else "right",
                                va="bottom" if dy > 0 else "top")
            label.set_in_layout(False)
            box = label.get_window_extent(renderer).expanded(1.05, 1.1)
            if not any(box.overlaps(t) for t in taken) and not any(
                    box.contains(px, py) for px, py in dots):
                break
        assert label is not None
        taken.append(label.get_window_extent(renderer))
        placed.append(label)
    return placed


# what a variant's row holds that is not a result: its name, status and the swept settings
_NOT_RESULTS = ("variant", "status", "error")


def same_runs(sweep: Sweep) -> list[tuple[Variant, ...]]:
    """Groups of two or more variants that ran and gave the same numbers in every column of
    sweep.csv but their settings: one run under several names (timeouts swept with preemption
    off, say), in grid order."""
    groups: dict[tuple[tuple[str, str], ...], list[Variant]] = {}
    for v in sweep.variants:
        if v.ok:
            key = tuple(sorted((k, x) for k, x in v.cells.items()
                               if k not in _NOT_RESULTS and k not in sweep.keys))
            groups.setdefault(key, []).append(v)
    return [tuple(g) for g in groups.values() if len(g) > 1]


def paid_by(sweep: Sweep, v: Variant) -> list[tuple[str, int, float]]:
    """The focus queues containers were preempted from in a variant: (queue, containers,
    hours of work its apps lost), most containers first."""
    found = []
    for q in sweep.focus_queues:
        n = number(v, f"{q}:preempted-from")
        if n:
            found.append((q, int(n), number(v, f"{q}:lost-work-hours") or 0.0))
    return sorted(found, key=lambda f: (-f[1], sweep.focus_queues.index(f[0])))


def _paid_text(sweep: Sweep, v: Variant) -> str:
    if not v.ok:
        return units.DASH
    paid = paid_by(sweep, v)
    if not paid:
        return "nobody"
    return "<br>".join(f'<span class="nowrap">{esc(q.removeprefix("root."))}: {n:,}, '
                       f"{units.duration(round(hours * 3_600_000))}</span>"
                       for q, n, hours in paid)


def _same_runs_note(sweep: Sweep) -> str:
    groups = same_runs(sweep)
    if not groups:
        return ""
    items = []
    for g in groups:
        differ = [k for k in sweep.keys if len({dict(v.settings)[k] for v in g}) > 1]
        what = ", ".join(f"<code>{esc(k)}</code>" for k in differ) or "nothing"
        items.append(f"<li>{', '.join(esc(v.number) for v in g)}: the same numbers — what "
                     f"differs between them ({what}) changed nothing in this run</li>")
    return ("<p id=\"same-runs\">Variants that are the same run (every number of "
            "<code>sweep.csv</code> equal; with preemption off, for example, no timeout or "
            f"threshold matters):</p><ul>{''.join(items)}</ul>")


def _page(sweep: Sweep, queue: str, chosen: bool, chart: Chart, png: str) -> str:
    ok = [v for v in sweep.variants if v.ok]
    failed = [v for v in sweep.variants if not v.ok]
    why = ("chosen: its p95 AM wait varies most between variants; <code>fairshare report "
           "--focus QUEUE</code> for another" if chosen else "given with --focus")
    others = ", ".join(esc(q) for q in sweep.focus_queues if q != queue) or "none"
    facts = (f'<dl class="facts"><dt>Variants</dt><dd>{len(sweep.variants)} ({len(ok)} ran, '
             f"{len(failed)} failed)</dd><dt>Swept</dt><dd>"
             + (", ".join(f"<code>{esc(k)}</code>" for k in sweep.keys) or "nothing")
             + f"</dd><dt>Focus queue</dt><dd>{esc(queue)} ({why})</dd>"
             f"<dt>Other focus queues</dt><dd>{others}</dd>"
             f"<dt>Read from</dt><dd><code>sweep.csv</code></dd></dl>")
    caption = (f"One point per variant that ran, labelled with its number and its values of "
               f"the swept settings. Up: {esc(queue)}'s apps waited longer for their AM (p95 "
               f"over the apps placed in it or below it). Right: preemption killed more "
               f"container time (left panel) or more task time was lost (right panel). Low and "
               f"left is better." + (" Failed variants have no point: " + ", ".join(
                   esc(v.name) for v in failed) + "." if failed else ""))
    body = [f"<header><h1>Sweep trade-off for {esc(queue)}</h1>{facts}</header>",
            '<section id="tradeoff"><h2>Trade-off</h2>', figure(chart, caption, png),
            _same_runs_note(sweep), "</section>", '<section id="variants"><h2>Variants</h2>',
            f"<p class=muted>Waits, time short of threshold and starved, and preempted from / "
            f"for: {esc(queue)}'s. Paid by: the focus queues containers were preempted from, "
            f"how many, and the work their apps lost. “= 2”: the same run as variant 2 (every "
            f"number equal).</p>", _variants_table(sweep, queue), "</section>"]
    return document(f"Sweep trade-off for {queue}", body)


def _breakable(header: str) -> str:
    """A setting's name may break after its dots and before its words' capitals
    (``fairShare<wbr>Preemption<wbr>Timeout``): the table fits a laptop's window."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "<wbr>", header.replace(".", ".<wbr>"))


def _variants_table(sweep: Sweep, queue: str) -> str:
    heads = ["variant", *(esc(k.rsplit(".", 1)[-1] if k.startswith("site:")
                              else k.removeprefix("alloc:")) for k in sweep.keys),
             "paid by: preempted from, work lost",
             *(label for _, label in FOCUS_STATS), "preempted from / for", "containers preempted",
             "container time killed (h)", "task time lost (h)",
             "memory util."]
    # a setting's dotted name may break after its dots: the table fits a laptop's window
    head = "<tr>" + "".join(f"<th>{_breakable(h)}</th>" for h in heads) + "</tr>"
    rows = []
    first = {v.name: g[0].number for g in same_runs(sweep) for v in g[1:]}
    for v in sweep.variants:
        # the number alone: the settings follow in their own columns, the name is its title
        # the number alone (the name is its title): the settings follow in their own columns;
        # then "failed" with why, or "= 2" for the same run as variant 2
        state = f"failed: {esc(v.error)}" if not v.ok else (
            f'<span data-key="same-as">= {esc(first[v.name])}</span>' if v.name in first
            else "")
        cells = [f'<td title="{esc(v.name)}">{esc(v.number)} {state}</td>',
                 *(f"<td>{esc(value)}</td>" for _, value in v.settings),
                 f'<td data-key="paid-by">{_paid_text(sweep, v)}</td>']
        for key, _ in FOCUS_STATS:
            value = number(v, f"{queue}:{key}")
            ms = None if value is None else round(value)  # times in sweep.csv are whole ms
            cells.append(f'<td class="num"{attrs(data_key=key, data_ms=ms)}>'
                         f"{units.duration(ms)}</td>")
        cells.append(f'<td class="num">{esc(v.cells.get(f"{queue}:preempted-from") or "–")} / '
                     f'{esc(v.cells.get(f"{queue}:preempted-for") or "–")}</td>')
        cells.append(f'<td class="num">{esc(v.cells.get("containers-preempted") or "–")}</td>')
        for key in ("preempted-container-hours", "lost-work-hours"):
            hours = number(v, key)
            text = units.DASH if hours is None else f"{hours:,.2f}"
            cells.append(f'<td class="num"{attrs(data_key=key, data_hours=hours)}>{text}</td>')
        cells.append(f'<td class="num">{units.percent(number(v, "utilization-memory"))}</td>')
        rows.append(f"<tr{attrs(data_variant=v.name)}>" + "".join(cells) + "</tr>")
    return table(head, rows, css="variants")

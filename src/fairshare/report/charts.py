"""Drawing with matplotlib, and turning a figure into what the page embeds.

Every chart is drawn once and saved twice: as SVG, inlined in the page (sharp at any zoom, its
text searchable), and as PNG, written beside the page for slides and tickets. Both are
deterministic — the same run gives the same bytes: matplotlib's SVG ids come from a fixed
salt, no date or software version is written into either file, and text is left as SVG text
(no glyph outlines) so the page stays small.

Only the Agg (non-GUI) backend is used: figures are made with :class:`Figure` directly, never
through ``pyplot``, so nothing here opens a window or depends on a display.
"""

from __future__ import annotations

import io
import re
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from fairshare.report import units

mpl.use("Agg")  # never a GUI backend, whoever imports this first

# One palette for every chart: the page's legend words mean the same colours throughout.
USAGE = "#2e8b57"  # green, as YARN's RM page draws used capacity
OVER = "#e8912d"  # usage above the instantaneous fair share
FAIR = "#1f5fbf"  # instantaneous fair share
STEADY = "#555555"  # steady fair share
DEMAND = "#9b59b6"
STARVED = "#d62728"  # starvation bands, containers preempted from a queue
BENEFIT = "#17becf"  # containers preempted for a queue
RESTORED = "#2ca02c"
VCORES = "#8c564b"
CHANGE = "#7f7f7f"  # a timed change of the workload: a reload, a node added, lost, leaving
MAX_CHANGE_LABELS = 12  # more: the lines only (the page's table of changes names them)

_STYLE: dict[Any, Any] = {
    "svg.fonttype": "none",  # text as <text>, in the page's own fonts
    "svg.hashsalt": "fairshare-report",  # ids from content, not from a random salt
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "figure.dpi": 100.0,
    "savefig.dpi": 100.0,
    "path.simplify": True,
}


@dataclass(frozen=True, slots=True)
class Chart:
    """A drawn chart: ``name`` is its PNG's file name without ``.png``."""

    name: str
    title: str
    svg: str  # ready to inline: no XML prolog, no namespace URLs, ids prefixed with name
    png: bytes


@contextmanager
def style() -> Iterator[None]:
    """The report's matplotlib settings, around building and saving a figure. matplotlib's
    warnings (an empty series, a degenerate axis) are not let through: this layer prints
    nothing, and a chart with nothing to show says so in its caption."""
    with mpl.rc_context(_STYLE), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def new_figure(width: float, height: float) -> Figure:
    return Figure(figsize=(width, height), layout="constrained")


def render(fig: Figure, name: str, title: str) -> Chart:
    """Save ``fig`` as inline SVG and as PNG."""
    svg = io.StringIO()
    fig.savefig(svg, format="svg", metadata={"Date": None, "Creator": None, "Format": None,
                                             "Type": None})
    fig.set_layout_engine("none")  # keep the layout just made: the PNG is the same figure
    png = io.BytesIO()
    fig.savefig(png, format="png", metadata={"Software": None})
    return Chart(name, title, inline_svg(svg.getvalue(), name, title), png.getvalue())


_NAMESPACES = re.compile(r'\s+xmlns(?::\w+)?="[^"]*"')
_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')


def inline_svg(svg: str, prefix: str, title: str) -> str:
    """matplotlib's SVG document as an element of an HTML page.

    The XML prolog and DOCTYPE go (the DOCTYPE names a URL), so do the namespace declarations
    (the HTML parser puts ``<svg>`` in the SVG namespace itself; leaving them would put
    ``http://`` strings in a page that must not reference the network); ``xlink:href`` becomes
    plain ``href``. Every id is prefixed with the chart's name so that two charts' ids never
    collide in one document.
    """
    svg = svg[svg.index("<svg"):]
    svg = _NAMESPACES.sub("", svg, count=3)
    svg = svg.replace("xlink:href=", "href=")
    svg = svg.replace(' id="', f' id="{prefix}-').replace('href="#', f'href="#{prefix}-')
    svg = svg.replace("url(#", f"url(#{prefix}-")
    label = title.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")
    return _SIZE.sub(lambda m: f'<svg class="chart" role="img" aria-label="{label}" '
                     f'width="{m[1]}pt" height="{m[2]}pt"', svg, count=1)


def step_line(ax: Axes, edges: Any, values: Any, **style: Any) -> None:
    """A step function: ``values[i]`` from ``edges[i]`` to ``edges[i + 1]``. A plain line
    drawn as steps, not ``Axes.stairs``, whose patch makes matplotlib walk every vertex in
    Python to update the axes' limits (40 ms a series)."""
    ax.plot(edges, np.append(values, values[-1:]), drawstyle="steps-post", **style)


def step_fill(ax: Axes, edges: Any, values: Any, **style: Any) -> None:
    """The area under a step function (see :func:`step_line`)."""
    ax.fill_between(edges, np.append(values, values[-1:]), step="post", **style)


def thousands(axis_unit: str = "") -> FuncFormatter:
    """Tick labels with thousands separators (``12,288``)."""
    def label(value: float, _pos: object) -> str:
        text = f"{value:,.0f}" if abs(value) >= 10 or value == int(value) else f"{value:.1f}"
        return text + axis_unit
    return FuncFormatter(label)


def mark_changes(ax: Axes, changes: Sequence[tuple[int, str]], scale: TimeScale, *,
                 named: bool) -> None:
    """A dotted vertical line at each timed change (time, label) inside the axes' time span;
    ``named``: each labelled at the top, when there are few enough to read."""
    lo, hi = sorted(ax.get_xlim())
    shown = [(scale.x(ms), label) for ms, label in changes if lo <= scale.x(ms) <= hi]
    for x, label in shown:
        ax.axvline(x, color=CHANGE, linestyle=":", linewidth=1.1, zorder=1)
        if named and len(shown) <= MAX_CHANGE_LABELS:
            text = label if len(label) <= 40 else label[:39] + "…"
            ax.text(x, 0.98, text, transform=ax.get_xaxis_transform(), rotation=90,
                    va="top", ha="right", fontsize=7, color=CHANGE, clip_on=True)


@dataclass(frozen=True, slots=True)
class TimeScale:
    """Simulated time on a chart's x axis: since the simulation's first sample, in a unit
    that suits the span (units.time_axis) — the same origin as the tables' ``t = …``."""

    origin_ms: float
    per_unit: float
    unit: str
    clock: bool = False  # ticks as h:mm:ss (a close-up hours into a run: not "41,050 s")

    @classmethod
    def over(cls, origin_ms: float, span_ms: float) -> TimeScale:
        per_unit, unit = units.time_axis(int(span_ms))
        return cls(origin_ms, per_unit, unit)

    def x(self, ms: Any) -> Any:
        """Milliseconds (a number or an array) → axis units."""
        return (ms - self.origin_ms) / self.per_unit

    def label(self, ax: Axes) -> None:
        if not self.clock:
            ax.set_xlabel(f"simulated time since the start ({self.unit})")
            ax.xaxis.set_major_formatter(thousands())
            return
        ax.set_xlabel("simulated time since the start (h:mm:ss)")

        def hms(value: float, _pos: object) -> str:
            seconds = round(value * self.per_unit / 1000)
            return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"
        ax.xaxis.set_major_formatter(FuncFormatter(hms))

"""One queue over time: its steady and instantaneous fair share, demand and usage, memory above
and vcores below (YARN's RM page shows memory only; under ``drf`` a queue can be held back by
either), with the samples where it was starving shaded and the containers preempted from and
for it marked at the moments they were killed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.typing import HashableList

from fairshare.report import charts, units
from fairshare.report.charts import Chart
from fairshare.report.series import Episode, Steps, bands, drawn_bands, starving, steps
from fairshare.report.timeline import Timeline, Values
from fairshare.report.units import MS_PER_H

MAX_RESTORED_LINES = 10  # more episodes than this: the table lists them, the chart does not
CROWDED = 100  # more kill markers than this along a panel: smaller, so the lines show


@dataclass(frozen=True, slots=True)
class QueueView:
    """What one queue's chart shows."""

    name: str
    series: Mapping[str, Values]
    kills_from: Sequence[int]
    kills_for: Sequence[int]
    episodes: Sequence[Episode]
    held: Sequence[tuple[int, int]] = ()  # its apps held not runnable (report/held.py)


def queue_chart(timeline: Timeline, view: QueueView, file_name: str, title: str,
                changes: Sequence[tuple[int, str]] = ()) -> Chart:
    """The whole run, memory above vcores; when preemption for the queue was a short part of
    a long run, a close-up of its first episode below, so the recovery can be seen. The
    workload's timed ``changes`` (time, label) are dotted lines, named on the memory panel."""
    origin = float(timeline.times[0])
    scale = charts.TimeScale.over(origin, timeline.end_ms - origin)
    largest = max(float(np.max(view.series[f"{m}_mb"], initial=0)) for m in
                  ("usage", "fair_share", "steady_fair_share", "demand"))
    mb_per, mb_unit = units.memory_axis(largest)
    window = close_up(timeline, view)
    with charts.style():
        fig = charts.new_figure(10.0, 7.8 if window else 5.6)
        layout: list[HashableList[str]] = [["memory", "memory"], ["vcores", "vcores"]]
        if window:
            layout.append(["zoom-memory", "zoom-vcores"])
        axes = fig.subplot_mosaic(layout)
        axes["memory"].sharex(axes["vcores"])
        _panels(axes, "", timeline, view, scale, mb_per, mb_unit)
        for name in ("memory", "vcores"):
            charts.mark_changes(axes[name], changes, scale, named=name == "memory")
        if window:
            part, zoomed = _window(timeline, view, window)
            per, unit = units.time_axis(window[1] - window[0])
            zoom = charts.TimeScale(origin, per, unit, clock=window[0] - origin >= MS_PER_H)
            _panels(axes, "zoom-", part, zoomed, zoom, mb_per, mb_unit)
            for name in ("zoom-memory", "zoom-vcores"):
                charts.mark_changes(axes[name], changes, zoom, named=False)
        fig.legend(handles=_legend(view), loc="outside lower center", ncols=4, fontsize=8)
        fig.suptitle(title, fontsize=10, x=0.01, ha="left")
        return charts.render(fig, file_name, title)


DRAWN = ("usage_mb", "usage_vcores", "fair_share_mb", "fair_share_vcores",
         "steady_fair_share_mb", "steady_fair_share_vcores", "demand_mb", "demand_vcores")
CLOSE_UP_BELOW = 0.25  # an episode shorter than this share of the run gets a close-up


def close_up(timeline: Timeline, view: QueueView) -> tuple[int, int] | None:
    """The span of the queue's first episode of preemption, with some time around it: from
    when it began starving (or the first kill) to when it was back at its share (or the last
    kill). None when there is no episode or it is a large part of the run anyway."""
    if not view.episodes:
        return None
    first = view.episodes[0]
    starved = [s for s, _ in bands(timeline, starving(view.series)) if s <= first.first_kill_ms]
    begin = int(max(starved)) if starved else first.first_kill_ms
    end = first.restored_ms if first.restored_ms is not None else first.last_kill_ms
    run_start = int(timeline.times[0])
    sample = int(np.median(np.diff(timeline.times))) if len(timeline.times) > 1 else 1
    pad = max((end - begin) // 2, 2 * sample)
    lo, hi = max(run_start, begin - pad), min(timeline.end_ms, end + pad)
    if hi - lo > CLOSE_UP_BELOW * (timeline.end_ms - run_start):
        return None
    return lo, hi


def _window(timeline: Timeline, view: QueueView, window: tuple[int, int]
            ) -> tuple[Timeline, QueueView]:
    """The samples and events of ``window`` (the sample in effect at its start included)."""
    lo, hi = window
    first = max(int(np.searchsorted(timeline.times, lo, side="right")) - 1, 0)
    last = int(np.searchsorted(timeline.times, hi, side="left"))
    series = {k: v[first:last] for k, v in view.series.items()}
    part = Timeline(timeline.source, timeline.times[first:last], hi, {view.name: series})
    return part, QueueView(view.name, series,
                           [t for t in view.kills_from if lo <= t < hi],
                           [t for t in view.kills_for if lo <= t < hi],
                           [e for e in view.episodes
                            if e.restored_ms is not None and lo <= e.restored_ms < hi],
                           [(max(a, lo), min(b, hi)) for a, b in view.held if a < hi and b > lo])


def _panels(axes: Mapping[str, Axes], prefix: str, timeline: Timeline, view: QueueView,
            scale: charts.TimeScale, mb_per: float, mb_unit: str) -> None:
    drawn = steps(timeline, {k: view.series[k] for k in DRAWN})
    starved = drawn_bands(timeline, starving(view.series))
    restored = [e.restored_ms for e in view.episodes if e.restored_ms is not None]
    for resource, per, label in (("mb", mb_per, f"memory ({mb_unit})"),
                                 ("vcores", 1.0, "vcores")):
        ax = axes[prefix + ("memory" if resource == "mb" else "vcores")]
        _lines(ax, drawn, resource, per, scale)
        ax.broken_barh([(scale.x(start), scale.x(end) - scale.x(start))
                        for start, end in starved], (0, 1), transform=ax.get_xaxis_transform(),
                       color=charts.STARVED, alpha=0.13, linewidth=0)
        _held(ax, view.held, scale)
        _kills(ax, view.kills_from, scale, "v", 0.97, charts.STARVED)
        _kills(ax, view.kills_for, scale, "^", 0.03, charts.BENEFIT)
        if len(restored) <= MAX_RESTORED_LINES:  # more: the recovery table lists them
            for ms in restored:
                ax.axvline(scale.x(ms), color=charts.RESTORED, linestyle="-.", linewidth=1.0)
        ax.yaxis.set_major_formatter(charts.thousands())
        if prefix:
            ax.set_title(f"close-up of the first preemption for it: {label}", loc="left",
                         fontsize=9)
        else:
            ax.set_ylabel(label)
        if prefix or resource == "vcores":
            scale.label(ax)


def _lines(ax: Axes, drawn: Steps, resource: str, per: float, scale: charts.TimeScale) -> None:
    x = scale.x(drawn.edges)
    v = drawn.values
    charts.step_fill(ax, x, v[f"usage_{resource}"] / per, color=charts.USAGE, alpha=0.35,
                     linewidth=0)
    charts.step_line(ax, x, v[f"usage_{resource}"] / per, color=charts.USAGE, linewidth=1.0)
    charts.step_line(ax, x, v[f"demand_{resource}"] / per, color=charts.DEMAND, linewidth=1.0,
                     linestyle=":")
    charts.step_line(ax, x, v[f"steady_fair_share_{resource}"] / per, color=charts.STEADY,
                     linewidth=1.2, linestyle="--")
    charts.step_line(ax, x, v[f"fair_share_{resource}"] / per, color=charts.FAIR,
                     linewidth=1.4)
    ax.set_xlim(x[0], x[-1])
    ax.set_ylim(bottom=0)


def _held(ax: Axes, spans: Sequence[tuple[int, int]], scale: charts.TimeScale) -> None:
    """A hatched strip below the top edge where an app of the queue was held not runnable
    (maxRunningApps): waiting that no share or preemption shows."""
    if spans:
        ax.broken_barh([(scale.x(a), scale.x(b) - scale.x(a)) for a, b in spans], (0.86, 0.08),
                       transform=ax.get_xaxis_transform(), facecolor="none",
                       edgecolor=HELD, hatch="////", linewidth=0)


HELD = "#6b5b95"


def _kills(ax: Axes, times: Sequence[int], scale: charts.TimeScale, marker: str, y: float,
           colour: str) -> None:
    """One marker per moment with kills (times within a pixel merged), along the panel's top
    (preempted from) or bottom (preempted for) edge."""
    if not times:
        return
    lo, hi = ax.get_xlim()
    pixel = (hi - lo) / 800
    x = np.unique(np.round(scale.x(np.asarray(times, dtype=np.float64)) / pixel)) * pixel
    crowded = len(x) > CROWDED
    ax.plot(x, np.full(len(x), y), linestyle="none", marker=marker,
            markersize=3 if crowded else 6, alpha=0.6 if crowded else 1.0, color=colour,
            transform=ax.get_xaxis_transform(), clip_on=False)


def _legend(view: QueueView) -> list[Line2D | Patch]:
    handles: list[Line2D | Patch] = [
        Patch(facecolor=charts.USAGE, alpha=0.5, label="usage"),
        Line2D([], [], color=charts.FAIR, linewidth=1.4, label="instantaneous fair share"),
        Line2D([], [], color=charts.STEADY, linestyle="--", label="steady fair share"),
        Line2D([], [], color=charts.DEMAND, linestyle=":", label="demand"),
        Patch(facecolor=charts.STARVED, alpha=0.2, label="starving (YARN's starvation, unmet)"),
        Line2D([], [], color=charts.STARVED, marker="v", linestyle="none",
               label=f"preempted from it ({len(view.kills_from):,})"),
        Line2D([], [], color=charts.BENEFIT, marker="^", linestyle="none",
               label=f"preempted for it ({len(view.kills_for):,})")]
    if view.held:
        handles.append(Patch(facecolor="none", edgecolor=HELD, hatch="////",
                             label=f"apps held not runnable ({len(view.held):,})"))
    if any(e.restored_ms is not None for e in view.episodes):
        handles.append(Line2D([], [], color=charts.RESTORED, linestyle="-.",
                              label="back at its share after preemption"))
    return handles

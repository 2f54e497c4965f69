"""Per app: how long apps waited and how much work preemption threw away, as cumulative
distributions ("what share of apps waited at most this long"), which read the same for 3 apps
and for 20,000 and keep the long tail that preemption tuning is about."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from matplotlib.axes import Axes

from fairshare.report import charts, units
from fairshare.report.charts import Chart
from fairshare.report.summary import AppSummary

MAX_POINTS = 1000  # quantiles drawn per curve
NOT_RUN = ("rejected", "not-submitted")


@dataclass(frozen=True, slots=True)
class Distribution:
    """One metric over the apps that ran: its values, and the apps left out (no value)."""

    label: str
    what: str  # what the metric measures, for the caption
    values: Sequence[int]
    missing: int  # apps that ran but have no value: unmanaged (AM wait), or not reached


def distributions(apps: Sequence[AppSummary]) -> list[Distribution]:
    ran = [a for a in apps if a.state not in NOT_RUN]
    found = []
    for key, label, what in (
            ("am-wait-ms", "AM wait", "submission to AM container (managed apps)"),
            ("first-task-wait-ms", "first-task wait", "submission to first task container"),
            ("turnaround-ms", "turnaround", "submission to finish")):
        values = [w for a in ran if (w := a.waits[key]) is not None]
        found.append(Distribution(label, what, values, len(ran) - len(values)))
    found.append(Distribution("lost work", "task time lost to preemption and failed attempts",
                              [a.lost_work_ms for a in ran], 0))
    return found


def nearest_rank(values: Sequence[int], p: float) -> int | None:
    """The smallest value with at least ``p`` of them at or below it (summary.json's rule)."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, int(np.ceil(p * len(ordered))) - 1)]


def app_chart(apps: Sequence[AppSummary]) -> Chart:
    found = distributions(apps)
    title = "Apps: waits and lost work (cumulative share of apps)"
    with charts.style():
        fig = charts.new_figure(10.0, 6.0)
        for ax, d in zip(fig.subplots(2, 2).flat, found, strict=True):
            _ecdf(ax, d)
        fig.suptitle(title, fontsize=10, x=0.01, ha="left")
        return charts.render(fig, "apps", title)


def _ecdf(ax: Axes, d: Distribution) -> None:
    ax.set_xscale("symlog", linthresh=1.0)  # seconds: 0 stays on the axis, hours fit too
    ax.set_xlabel("seconds (log scale above 1 s)")
    ax.set_ylabel("share of apps (%)")
    ax.set_ylim(0, 101)
    ax.xaxis.set_major_formatter(charts.thousands())
    if not d.values:
        ax.set_title(f"{d.label}: no apps", loc="left")
        return
    ordered = np.sort(np.asarray(d.values, dtype=np.float64)) / 1000
    n = len(ordered)
    at = np.unique(np.linspace(0, n - 1, min(n, MAX_POINTS)).round().astype(np.int64))
    # from 0 % at the smallest value: the curve rises where the first apps are
    ax.step(np.concatenate((ordered[:1], ordered[at])),
            np.concatenate(([0.0], (at + 1) / n * 100)), where="post", color=charts.FAIR,
            linewidth=1.3)
    p50, p95 = nearest_rank(d.values, 0.5), nearest_rank(d.values, 0.95)
    for p, value, style in (("p50", p50, ":"), ("p95", p95, "--")):
        if value is not None:
            ax.axvline(value / 1000, color=charts.STARVED, linestyle=style, linewidth=1.0,
                       label=f"{p} {units.duration(value)}")
    ax.set_xlim(left=0, right=max(float(ordered[-1]) * 1.5, 1.0))
    extra = f"; {d.missing:,} without one" if d.missing else ""
    if d.label == "lost work":
        lost = sum(1 for v in d.values if v > 0)
        extra = f"; {lost:,} lost some, {units.duration(sum(d.values))} in all"
    ax.set_title(f"{d.label}: {units.count(n, 'app')}, max {units.duration(max(d.values))}"
                 f"{extra}", loc="left", fontsize=9)
    ax.legend(loc="lower right", fontsize=8)

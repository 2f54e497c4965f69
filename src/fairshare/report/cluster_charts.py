"""The cluster's charts: utilization over time against the preemption threshold, and the RM
Scheduler page's usage bars per queue (time averages)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.axes import Axes

from fairshare.report import charts, units
from fairshare.report.charts import Chart
from fairshare.report.events import CapacityChange, Preemption
from fairshare.report.series import Floats, steps, utilization
from fairshare.report.summary import QueueSummary, RunSummary
from fairshare.report.timeline import Timeline

KILL_BINS = 200  # the kills strip: containers preempted per 1/200 of the run


def utilization_chart(run: RunSummary, timeline: Timeline, capacity: Sequence[CapacityChange],
                      preemptions: Sequence[Preemption]) -> Chart:
    """Root's usage over the capacity at each sample, memory and vcores, with the
    utilization threshold above which YARN checks for starvation (docs/semantics.md §4.1); below it,
    how many containers preemption killed, and when nodes came or went, the capacity."""
    mem, vc, cap_mb, cap_vc = utilization(timeline, capacity)
    percent = {"memory": mem * 100, "vcores": vc * 100}  # NaN (no capacity): a gap
    drawn = steps(timeline, percent)
    origin = float(timeline.times[0])
    scale = charts.TimeScale.over(origin, timeline.end_ms - origin)
    changing = len(np.unique(cap_mb)) > 1 or len(np.unique(cap_vc)) > 1
    title = "Cluster utilization"
    with charts.style():
        ratios = [3, 1, 1] if changing else [3, 1]
        fig = charts.new_figure(10.0, 3.0 + 1.1 * len(ratios))
        axes = fig.subplots(len(ratios), 1, sharex=True, height_ratios=ratios)
        top = axes[0]
        x = scale.x(drawn.edges)
        charts.step_line(top, x, drawn.values["memory"], color=charts.FAIR, linewidth=1.2,
                         label="memory")
        charts.step_line(top, x, drawn.values["vcores"], color=charts.VCORES, linewidth=1.0,
                         label="vcores")
        state = "preemption on" if run.preemption else "preemption off: never checked"
        top.axhline(run.threshold * 100, color=charts.STARVED, linestyle="--", linewidth=1.0,
                    label=f"utilization threshold {units.percent(run.threshold, 1)} ({state})")
        top.set_ylim(0, 105)
        top.set_xlim(x[0], x[-1])
        top.set_ylabel("utilization (% of capacity)")
        top.legend(loc="lower right", fontsize=8)
        _kills_panel(axes[1], preemptions, scale, x[0], x[-1])
        if changing:
            _capacity_panel(axes[2], timeline, cap_mb, cap_vc, scale)
        for i, ax in enumerate(axes):
            charts.mark_changes(ax, run.marks, scale, named=i == 0)
        scale.label(axes[-1])
        fig.suptitle(title + ": root queue usage ÷ cluster capacity", fontsize=10, x=0.01,
                     ha="left")
        return charts.render(fig, "utilization", title)


def _kills_panel(ax: Axes, preemptions: Sequence[Preemption], scale: charts.TimeScale,
                 lo: float, hi: float) -> None:
    """Containers killed by preemption per 1/KILL_BINS of the run (all queues)."""
    edges = np.linspace(lo, hi, KILL_BINS + 1)
    kills = scale.x(np.asarray([p.time_ms for p in preemptions], dtype=np.float64))
    counts, _ = np.histogram(kills, bins=edges)
    charts.step_fill(ax, edges, counts, color=charts.STARVED, alpha=0.7, linewidth=0)
    width = units.duration((hi - lo) * scale.per_unit / KILL_BINS)
    ax.set_ylabel(f"preempted\nper {width}", fontsize=8)
    ax.set_ylim(0, max(1, int(counts.max(initial=0))) * 1.15)
    ax.set_title(f"containers killed by preemption: {len(kills):,} in all", loc="left",
                 fontsize=8)


def _capacity_panel(ax: Axes, timeline: Timeline, cap_mb: Floats, cap_vc: Floats,
                    scale: charts.TimeScale) -> None:
    drawn = steps(timeline, {"mb": cap_mb, "vcores": cap_vc})
    per_mb, mb_unit = units.memory_axis(float(np.max(cap_mb, initial=0.0)))
    x = scale.x(drawn.edges)
    charts.step_line(ax, x, drawn.values["mb"] / per_mb, color=charts.FAIR, linewidth=1.2)
    ax.set_ylabel(f"capacity ({mb_unit})")
    ax.set_ylim(bottom=0)
    cores = ax.twinx()
    charts.step_line(cores, x, drawn.values["vcores"], color=charts.VCORES, linewidth=1.0,
                     linestyle="--")
    cores.set_ylabel("vcores (dashed)")
    cores.set_ylim(bottom=0)
    cores.grid(False)


def usage_bars_chart(run: RunSummary, queues: Sequence[QueueSummary], *,
                     whole_tree: bool = True) -> Chart:
    """One bar per queue, as on the RM's Scheduler page: usage, green up to the instantaneous
    fair share and orange beyond it, against the steady (dashed outline) and instantaneous
    (filled outline) fair share — as a percentage of the cluster, here the time-averaged
    capacity (root's time-averaged steady fair share). Every value is a time average from
    summary.json."""
    root = run.queue("root")
    whole = {"memory": root.steady.memory_mb or 0.0, "vcores": root.steady.vcores or 0.0}
    title = "Queue usage against fair share (time averages)"
    height = 1.2 + 0.32 * len(queues)
    with charts.style():
        fig = charts.new_figure(10.0, height)
        left, right = fig.subplots(1, 2, sharey=True)
        unshared = {q.name for q in queues if not run.has_vcore_share(q)}
        for ax, resource in ((left, "memory"), (right, "vcores")):
            _bars(ax, queues, resource, whole[resource],
                  unshared if resource == "vcores" else set())
        # a whole tree reads as a tree; a choice of leaves from a big one by full name
        names = [_indented(q.name) if whole_tree else q.name.removeprefix("root.")
                 for q in queues]
        left.set_yticks(range(len(queues)), names)
        left.invert_yaxis()
        labelled = dict(zip(*reversed(left.get_legend_handles_labels()), strict=True))
        for handle, label in zip(*right.get_legend_handles_labels(), strict=True):
            labelled.setdefault(label, handle)  # "over" may show in one panel only
        fig.legend(labelled.values(), labelled.keys(), loc="outside lower center", ncols=4,
                   fontsize=8)
        fig.suptitle(title + " — % of the time-averaged cluster", fontsize=10, x=0.01,
                     ha="left")
        return charts.render(fig, "usage-bars", title)


def _bars(ax: Axes, queues: Sequence[QueueSummary], resource: str, whole: float,
          unshared: set[str]) -> None:
    """``unshared``: queues with no share of this resource (vcores under a ``fair`` parent):
    their usage drawn grey, neither within nor over a share."""
    def pct(value: float | None) -> float:
        return 0.0 if not whole or value is None else 100.0 * value / whole

    for y, q in enumerate(queues):
        steady, fair, used = (pct(_of(q.steady, resource)), pct(_of(q.fair, resource)),
                              pct(_of(q.usage, resource)))
        if q.name in unshared:
            for patch in ax.barh(y, used, height=0.45, color=charts.STEADY, alpha=0.55,
                                 label=NO_SHARE):
                patch.set_gid(f"no-share-{q.name}")
            ax.text(used, y, f" {_pct(used)} (no vcore share)",
                    va="center", fontsize=7)
            continue
        ax.barh(y, steady, height=0.8, fill=False, edgecolor=charts.STEADY, linestyle="--",
                linewidth=1.0, label="steady fair share" if y == 0 else None)
        ax.barh(y, fair, height=0.8, color=charts.FAIR, alpha=0.12, edgecolor=charts.FAIR,
                linewidth=1.0, label="instantaneous fair share" if y == 0 else None)
        ax.barh(y, min(used, fair), height=0.45, color=charts.USAGE,
                label="used" if y == 0 else None)
        if used > fair:
            ax.barh(y, used - fair, left=fair, height=0.45, color=charts.OVER,
                    label="used over instantaneous fair share")
        ax.text(max(used, fair, steady), y, f" {_pct(used)}", va="center", fontsize=7)
    # the widest bar sets the scale: a leaf of a 1,000-queue tree is 0.1 % of the cluster
    widest = max((pct(_of(r, resource)) for q in queues for r in (q.steady, q.fair, q.usage)),
                 default=0.0)
    ax.set_xlim(0, max(widest, 1e-9) * 1.2)
    ax.set_xlabel(f"{resource} (% of the cluster)")
    ax.grid(axis="y", visible=False)


NO_SHARE = "used, no share of it (fair policy: memory only)"


def _pct(value: float) -> str:
    """A percentage with the digits its size needs: ``42%``, ``4.2%``, ``0.42%``."""
    if value == 0:
        return "0%"
    return f"{value:.0f}%" if value >= 10 else f"{value:.1f}%" if value >= 1 else \
        f"{value:.2f}%"


def _of(r: object, resource: str) -> float | None:
    value = getattr(r, "memory_mb" if resource == "memory" else "vcores")
    return None if value is None else float(value)


def _indented(name: str) -> str:
    """A queue's last name, indented by its depth (no-break spaces: SVG text would collapse
    ordinary ones)."""
    return "\u00a0\u00a0" * (name.count(".") - 1) + name.rsplit(".", 1)[-1] if "." in name \
        else name

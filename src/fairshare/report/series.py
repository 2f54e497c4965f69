"""What the charts draw, computed from the samples: time averages per pixel-sized bucket,
starvation bands, the cluster's utilization, and when a queue got its share back.

A sample stands for the interval up to the next one (docs/outputs.md, "Samples"), so every
series here is a step function of simulated time, and averages weigh each sample by how long it
stood — the way ``summary.json`` computes its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from fairshare.report.events import CapacityChange, Preemption
from fairshare.report.timeline import Timeline, Values

MAX_POINTS = 600  # per series: finer than a chart's width in pixels needs
Floats = npt.NDArray[np.float64]
Numbers = npt.NDArray[Any]  # integer samples or derived floats


@dataclass(frozen=True)
class Steps:
    """A step function for a chart: ``values[i]`` holds from ``edges[i]`` to
    ``edges[i + 1]`` (``len(edges) == len(values) + 1``)."""

    edges: Floats
    values: Mapping[str, Floats]


def steps(timeline: Timeline, columns: Mapping[str, Numbers],
          max_points: int = MAX_POINTS) -> Steps:
    """``columns`` as steps: the samples themselves when there are at most ``max_points``,
    else the time average over each of ``max_points`` equal buckets of the run (areas, and so
    the summary's averages, are kept; a short spike is flattened into its bucket)."""
    edges = np.append(timeline.times, max(timeline.end_ms, int(timeline.times[-1]) + 1))
    edges = edges.astype(np.float64)
    if len(timeline.times) <= max_points:
        return Steps(edges, {k: v.astype(np.float64) for k, v in columns.items()})
    buckets = np.linspace(edges[0], edges[-1], max_points + 1)
    return Steps(buckets, {k: _bucket_means(edges, v, buckets) for k, v in columns.items()})


def _bucket_means(edges: Floats, values: Numbers, buckets: Floats) -> Floats:
    """The time average of a step function over each bucket. NaN marks samples where a value
    is undefined (utilization with no capacity): they are left out of their bucket's
    average, and a bucket with nothing else is NaN — drawn as a gap, not as 0."""
    defined = ~np.isnan(values) if values.dtype.kind == "f" else None
    if defined is None or defined.all():
        return _integrals(edges, values, buckets) / np.diff(buckets)
    known = _integrals(edges, defined.astype(np.float64), buckets)
    total = _integrals(edges, np.where(defined, values, 0.0), buckets)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(known > 0, total / known, np.nan)


def _integrals(edges: Floats, values: Numbers, buckets: Floats) -> Floats:
    """∫ of the step function over each bucket."""
    integral = np.concatenate(([0.0], np.cumsum(values * np.diff(edges))))
    return np.diff(_integral_at(edges, values, integral, buckets))


def _integral_at(edges: Floats, values: Numbers, integral: Floats, t: Floats) -> Floats:
    """∫ from edges[0] to each t of the step function."""
    i = np.clip(np.searchsorted(edges, t, side="right") - 1, 0, len(values) - 1)
    return np.asarray(integral[i] + values[i] * (t - edges[i]), dtype=np.float64)


def bands(timeline: Timeline, flags: npt.NDArray[np.bool_]) -> list[tuple[float, float]]:
    """The intervals (start, end in ms) where ``flags`` holds, samples merged: a starvation
    band is drawn however short, even when the series around it is bucketed."""
    edges = np.append(timeline.times, max(timeline.end_ms, int(timeline.times[-1]) + 1))
    change = np.diff(np.concatenate(([0], flags.astype(np.int8), [0])))
    starts, ends = np.flatnonzero(change == 1), np.flatnonzero(change == -1)
    return [(float(edges[s]), float(edges[e])) for s, e in zip(starts, ends, strict=True)]


def drawn_bands(timeline: Timeline, flags: npt.NDArray[np.bool_],
                max_points: int = MAX_POINTS) -> list[tuple[float, float]]:
    """:func:`bands` as a chart draws them: with more than ``max_points`` samples, each of the
    ``max_points`` buckets of :func:`steps` is shaded if any of its samples is flagged — a
    short band stays visible (a bucket wide), and a day of bursts is not thousands of
    rectangles."""
    if len(timeline.times) <= max_points:
        return bands(timeline, flags)
    edges = np.append(timeline.times, max(timeline.end_ms, int(timeline.times[-1]) + 1))
    edges = edges.astype(np.float64)
    buckets = np.linspace(edges[0], edges[-1], max_points + 1)
    flagged = _bucket_means(edges, flags.astype(np.float64), buckets) > 0
    change = np.diff(np.concatenate(([0], flagged.astype(np.int8), [0])))
    starts, ends = np.flatnonzero(change == 1), np.flatnonzero(change == -1)
    return [(float(buckets[s]), float(buckets[e])) for s, e in zip(starts, ends, strict=True)]


def starving(series: Mapping[str, Values]) -> npt.NDArray[np.bool_]:
    """Samples where the queue had starvation YARN recognised and had not met (memory or
    vcores)."""
    return np.asarray((series["starving_mb"] > 0) | (series["starving_vcores"] > 0))


@dataclass(frozen=True, slots=True)
class Episode:
    """Containers preempted for a queue, and when it got its share back.

    ``restored_ms`` is the first sample, at or after the episode's first kill, where the
    queue's usage reached its instantaneous fair share in memory or in vcores (a resource it
    has a share of: under the memory-only ``fair`` policy the vcore share is 0), or it had no
    pending demand left; every kill up to then belongs to the episode. None: not by the end.
    """

    first_kill_ms: int
    last_kill_ms: int
    kills: int
    restored_ms: int | None
    how: str  # "at its fair share", "no pending demand", "not restored by the end"


def episodes(timeline: Timeline, series: Mapping[str, Values],
             kills_for: Sequence[int]) -> list[Episode]:
    """The queue's episodes, from the kill times of the containers preempted for it."""
    at_share = np.zeros(len(timeline.times), dtype=bool)
    for unit in ("mb", "vcores"):
        share = series[f"fair_share_{unit}"]
        at_share |= (share > 0) & (series[f"usage_{unit}"] >= share)
    satisfied = (series["pending_mb"] == 0) & (series["pending_vcores"] == 0)
    done = np.flatnonzero(at_share | satisfied)
    kills = np.sort(np.asarray(kills_for, dtype=np.int64))
    found: list[Episode] = []
    i = 0
    while i < len(kills):
        first = np.searchsorted(timeline.times, kills[i])  # a sample sees the kills due then
        k = int(np.searchsorted(done, first))
        if k == len(done):
            found.append(Episode(int(kills[i]), int(kills[-1]), len(kills) - i, None,
                                 "not restored by the end"))
            break
        restored = int(timeline.times[done[k]])
        j = int(np.searchsorted(kills, restored, side="right"))
        how = "at its fair share" if at_share[done[k]] else "no pending demand"
        found.append(Episode(int(kills[i]), int(kills[j - 1]), j - i, restored, how))
        i = j
    return found


def utilization(timeline: Timeline, capacity: Sequence[CapacityChange]
                ) -> tuple[Floats, Floats, Floats, Floats]:
    """Per sample: root's usage ÷ the capacity in effect then (memory, vcores; NaN with no
    capacity), and that capacity. A sample is taken after everything due at its millisecond,
    node events included."""
    times = timeline.times
    change_times = np.asarray([c.time_ms for c in capacity], dtype=np.int64)
    cap_mb = np.asarray([0, *(c.memory_mb for c in capacity)], dtype=np.float64)
    cap_vc = np.asarray([0, *(c.vcores for c in capacity)], dtype=np.float64)
    i = np.searchsorted(change_times, times, side="right")  # changes at or before each sample
    root = timeline.series["root"]
    with np.errstate(divide="ignore", invalid="ignore"):
        mem = np.where(cap_mb[i] > 0, root["usage_mb"] / cap_mb[i], np.nan)
        vc = np.where(cap_vc[i] > 0, root["usage_vcores"] / cap_vc[i], np.nan)
    return mem, vc, cap_mb[i], cap_vc[i]


KillIndex = Mapping[str, Sequence[int]]


def kills_by_queue(preemptions: Sequence[Preemption]) -> tuple[KillIndex, KillIndex]:
    """Kill times by the victim's queue ("preempted from") and by the beneficiary's
    ("preempted for")."""
    victims: dict[str, list[int]] = {}
    beneficiaries: dict[str, list[int]] = {}
    for p in preemptions:
        victims.setdefault(p.victim_queue, []).append(p.time_ms)
        if p.beneficiary_queue is not None:
            beneficiaries.setdefault(p.beneficiary_queue, []).append(p.time_ms)
    return victims, beneficiaries


def kill_times(index: KillIndex, queue: str) -> list[int]:
    """The kill times of ``queue`` and the queues below it (a parent counts its subtree, as
    the summary does), in time order."""
    prefix = queue + "."
    found = [t for q, times in index.items() if q == queue or q.startswith(prefix)
             for t in times]
    return sorted(found)

"""One row per sweep variant, from its ``summary.json`` (docs/outputs.md), and the sweep's
``sweep.csv`` / ``sweep.parquet``.

A row holds the variant's overrides, the cluster's figures and, for each *focus* queue, the
numbers an admin tunes preemption by: how long its apps waited (AM, first task, turnaround:
percentiles over the apps placed in it or below it), how long it was short of its fair-share
threshold and starved, containers preempted from and for it, and the work its apps lost.
Times are in ms, as in ``summary.json``; container time thrown away in container-hours.
"""

from __future__ import annotations

import csv
import io
import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from fairshare.sim.record.summary_model import Summary

__all__ = ["SWEEP_CSV", "SWEEP_PARQUET", "focus_queues", "queue_columns", "sweep_row",
           "write_rows"]

SWEEP_CSV, SWEEP_PARQUET = "sweep.csv", "sweep.parquet"
MS_PER_HOUR = 3_600_000

# per focus queue: column suffix → the Percentiles fields read from the queue's summary entry
_WAITS = (("am-wait", ("p50", "p95", "max")), ("first-task-wait", ("p50", "p95")),
          ("turnaround", ("p50", "p95")))


def queue_columns(queue: str) -> list[str]:
    """The columns of one focus queue, in order."""
    waits = [f"{queue}:{wait}-{stat}-ms" for wait, stats in _WAITS for stat in stats]
    return [*waits, f"{queue}:short-of-threshold-ms", f"{queue}:starved-ms",
            f"{queue}:preempted-from", f"{queue}:preempted-for", f"{queue}:lost-work-hours"]


def focus_queues(summaries: Iterable[Summary | None]) -> list[str]:
    """The default focus: every leaf queue that had apps in some variant, in the order the
    summaries list them (the tree's depth-first order)."""
    found: dict[str, None] = {}
    for summary in summaries:
        if summary is None:
            continue
        names = list(summary.queues)
        for name in names:
            leaf = not any(other.startswith(name + ".") for other in names)
            if leaf and summary.queues[name].turnaround_ms.apps:
                found[name] = None
    return list(found)


def sweep_row(name: str, overrides: Sequence[tuple[str, str]], summary: Summary | None,
              error: str | None, focus: Sequence[str]) -> dict[str, Any]:
    """One variant's row: ``overrides`` as (``scope:key``, value) pairs; a failed variant
    (``summary`` None) has its ``error`` and no figures."""
    row: dict[str, Any] = {"variant": name, "status": "ok" if summary is not None else "failed",
                           "error": error}
    row.update(overrides)
    use = summary.cluster.utilization if summary is not None else None
    counts = summary.counts if summary is not None else None
    row["utilization-memory"] = use.memory_mb if use else None
    row["utilization-vcores"] = use.vcores if use else None
    row["containers-preempted"] = counts.containers_preempted if counts else None
    row["preempted-container-hours"] = (_hours(counts.preempted_container_ms)
                                        if counts else None)
    row["lost-work-hours"] = _hours(counts.lost_work_ms) if counts else None
    for queue in focus:
        row.update(_queue_figures(queue, summary))
    return row


def _hours(ms: int) -> float:
    return round(ms / MS_PER_HOUR, 4)


def _queue_figures(queue: str, summary: Summary | None) -> dict[str, Any]:
    columns = queue_columns(queue)
    entry = summary.queues.get(queue) if summary is not None else None
    if summary is None or entry is None:
        return dict.fromkeys(columns)
    waits = entry.waits()
    values: list[Any] = [getattr(waits[f"{wait}-ms"], stat) for wait, stats in _WAITS
                         for stat in stats]
    lost = sum(app.lost_work_ms for app in summary.apps.values()
               if app.queue is not None and (app.queue == queue
                                             or app.queue.startswith(queue + ".")))
    values += [entry.time_short_of_fair_share_threshold_ms, entry.time_starved_ms,
               entry.containers_preempted_from, entry.containers_preempted_for,
               _hours(lost)]
    return dict(zip(columns, values, strict=True))


def write_rows(outdir: Path, rows: Sequence[Mapping[str, Any]]) -> list[Path]:
    """``sweep.csv`` and ``sweep.parquet``, each written beside its name and renamed into
    place, so that a reader never sees half of one."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=columns, lineterminator="\n",
                            quoting=csv.QUOTE_MINIMAL)
    writer.writeheader()
    writer.writerows({key: "" if row.get(key) is None else row.get(key) for key in columns}
                     for row in rows)
    csv_path, parquet_path = outdir / SWEEP_CSV, outdir / SWEEP_PARQUET
    _replace(csv_path, lambda tmp: tmp.write_text(text.getvalue(), encoding="utf-8"))
    table = pa.Table.from_pylist([{key: row.get(key) for key in columns} for row in rows])
    _replace(parquet_path, lambda tmp: pq.write_table(table, tmp))
    return [csv_path, parquet_path]


def _replace(path: Path, write: Any) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        write(tmp)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)

"""Writing a run's outputs (scenario-format.md "Outputs", docs/outputs.md).

``events.jsonl`` holds one compact JSON object per line, in event order, keys in a fixed order,
so the same scenario and seed give the same bytes. A simulation streams its events to it as the
loop hands them over (:class:`EventWriter`), after the records of the scripted steps, and its
timeline to ``timeline.csv`` row by row (:class:`TimelineWriter`, which also fills
``timeline.parquet`` one row group at a time): neither is ever held in memory whole.
``snapshots.json`` and ``summary.json`` are written once, at the end.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, TextIO

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fairshare.core.events import Event, event_record
from fairshare.resources.vector import ResourceTypes
from fairshare.sim.recorder import TIMELINE_COLUMNS, VALUES, Matrix

EVENTS, SNAPSHOTS = "events.jsonl", "snapshots.json"
TIMELINE_CSV, TIMELINE_PARQUET, SUMMARY = "timeline.csv", "timeline.parquet", "summary.json"


def _json_line(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def _write_lines(f: TextIO, records: Iterable[dict[str, Any]]) -> None:
    for record in records:
        f.write(_json_line(record))
        f.write("\n")


def write_events(path: Path, records: Iterable[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as f:
        _write_lines(f, records)


def _write_json(path: Path, doc: object) -> None:
    path.write_text(json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False) + "\n",
                    encoding="utf-8")


def write_snapshots(path: Path, snapshots: list[dict[str, Any]]) -> None:
    _write_json(path, snapshots)


def write_summary(path: Path, summary: dict[str, Any]) -> None:
    """Keys in the order the summary was built (fixed), no wall clock: byte-identical reruns."""
    _write_json(path, summary)


def write_outputs(outdir: Path, records: list[dict[str, Any]],
                  snapshots: list[dict[str, Any]]) -> list[Path]:
    """The outputs of a scripted run: ``events.jsonl`` and ``snapshots.json``."""
    outdir.mkdir(parents=True, exist_ok=True)
    events, snaps = outdir / EVENTS, outdir / SNAPSHOTS
    write_events(events, records)
    write_snapshots(snaps, snapshots)
    return [events, snaps]


class EventWriter:
    """A simulation observer that appends every event to ``events.jsonl`` as it comes."""

    def __init__(self, f: TextIO, types: ResourceTypes) -> None:
        self._f = f
        self._types = types

    def write_records(self, records: Iterable[dict[str, Any]]) -> None:
        _write_lines(self._f, records)

    def on_events(self, events: Sequence[Event]) -> None:
        types = self._types
        self._f.write("".join(_json_line(event_record(e, types)) + "\n" for e in events))

    def on_snapshot(self, now_ms: int) -> None:
        pass

    def on_end(self, now_ms: int) -> None:
        self._f.flush()


_TYPES: dict[str, pa.DataType] = {"time_ms": pa.int64(), "queue": pa.string()}
TIMELINE_SCHEMA = pa.schema({name: _TYPES.get(name, pa.int64()) for name in TIMELINE_COLUMNS})


class TimelineWriter:
    """``timeline.csv`` row by row; ``timeline.parquet`` in row groups of ``group_rows`` rows
    from columnar buffers, so memory stays flat however long the run."""

    def __init__(self, outdir: Path, group_rows: int = 131_072) -> None:
        self.csv_path, self.parquet_path = outdir / TIMELINE_CSV, outdir / TIMELINE_PARQUET
        self._csv_file = self.csv_path.open("w", encoding="utf-8", newline="")
        self._csv = csv.writer(self._csv_file, lineterminator="\n")
        self._csv.writerow(TIMELINE_COLUMNS)
        self._parquet = pq.ParquetWriter(self.parquet_path, TIMELINE_SCHEMA)
        self._group_rows = group_rows
        self._times: list[Matrix] = []
        self._names: list[str] = []
        self._values: list[Matrix] = []
        self._buffered = 0
        self.rows = 0

    def __call__(self, time_ms: int, names: list[str], values: Matrix) -> None:
        self._csv.writerows([time_ms, name, *row]
                            for name, row in zip(names, values.tolist(), strict=True))
        self._times.append(np.full(len(names), time_ms, dtype=np.int64))
        self._names.extend(names)
        self._values.append(values)
        self._buffered += len(names)
        self.rows += len(names)
        if self._buffered >= self._group_rows:
            self._flush()

    def _flush(self) -> None:
        if not self._buffered:
            return
        values = np.concatenate(self._values)
        columns: list[pa.Array[Any]] = [pa.array(np.concatenate(self._times)),
                                        pa.array(self._names, pa.string())]
        columns += [pa.array(values[:, i]) for i in range(len(VALUES))]
        self._parquet.write_table(pa.Table.from_arrays(columns, schema=TIMELINE_SCHEMA))
        self._times, self._names, self._values, self._buffered = [], [], [], 0

    def close(self) -> None:
        self._flush()
        self._parquet.close()
        self._csv_file.close()


__all__ = ["EVENTS", "SNAPSHOTS", "SUMMARY", "TIMELINE_COLUMNS", "TIMELINE_CSV",
           "TIMELINE_PARQUET", "EventWriter", "TimelineWriter", "write_events",
           "write_outputs", "write_snapshots", "write_summary"]

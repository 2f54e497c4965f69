"""Writing a run's outputs (docs/scenario-format.md "Outputs", docs/outputs.md).

``events.jsonl`` holds one compact JSON object per line, in event order, keys in a fixed order,
so the same scenario and seed give the same bytes. A simulation streams its events to it as the
loop hands them over (:class:`EventWriter`), after the records of the scripted steps, and its
timeline to ``timeline.csv`` row by row (:class:`TimelineWriter`, which also fills
``timeline.parquet`` one row group at a time): neither is ever held in memory whole.
``snapshots.json`` and ``summary.json`` are written once, at the end.

Every JSON document goes through :func:`json_text`: JSON has no NaN or infinity, so a number
that is not finite (a utilization of 0/0 on a cluster with no capacity, a weight Java parsed as
NaN or as float infinity) is written as ``null`` — here, once, not per writer.

A run writes into a staging directory in or beside its target (:func:`staged_outputs`); only a run
that finishes moves its files into place, so a failed or interrupted run leaves the target as
it was.
"""

from __future__ import annotations

import contextlib
import csv
import itertools
import json
import math
import os
import shutil
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    import pyarrow as pa

import numpy as np

from fairshare.config.errors import ConfigError
from fairshare.config.files import decode_utf8, memory_guard, read_input
from fairshare.core import Event, event_record
from fairshare.resources.vector import ResourceTypes
from fairshare.sim.record.recorder import TIMELINE_COLUMNS, VALUES, Matrix
from fairshare.sim.record.summary_model import Summary, summary_json

EVENTS, SNAPSHOTS = "events.jsonl", "snapshots.json"
TIMELINE_CSV, TIMELINE_PARQUET, SUMMARY = "timeline.csv", "timeline.parquet", "summary.json"


OUTPUT_FILES = (EVENTS, SNAPSHOTS, TIMELINE_CSV, TIMELINE_PARQUET, SUMMARY)
MAX_SUMMARY_BYTES = 1 << 30  # a day of 20,000 apps and 1,000 queues writes ~20 MB


def read_summary(outdir: Path) -> Any:
    """A run's ``summary.json`` parsed, for the tools that read runs (compare, explain, the
    report); unreadable, too large, not UTF-8 or not JSON is a located :class:`ConfigError`.
    What the document must hold is each reader's business."""
    path = outdir / SUMMARY
    display = str(path)
    text = decode_utf8(read_input(path, display, MAX_SUMMARY_BYTES), display)
    try:
        with memory_guard(display):
            return json.loads(text)
    except json.JSONDecodeError as e:
        raise ConfigError(f"not JSON: {e.msg}", display, e.lineno) from None


def json_text(doc: object, indent: int | None = None) -> str:
    """``doc`` as JSON text, every number finite: NaN and infinities become ``null``.

    The common case (all finite) is one ``json.dumps``; a document that has a non-finite
    number is encoded again with those numbers replaced.
    """
    separators = (",", ":") if indent is None else None
    try:
        return json.dumps(doc, indent=indent, separators=separators, ensure_ascii=False,
                          allow_nan=False)
    except ValueError:
        return json.dumps(_finite(doc), indent=indent, separators=separators,
                          ensure_ascii=False, allow_nan=False)


def _finite(value: object) -> object:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(item) for item in value]
    return value


def _write_lines(f: TextIO, records: Iterable[dict[str, Any]]) -> None:
    for record in records:
        f.write(json_text(record))
        f.write("\n")


@contextlib.contextmanager
def staged_outputs(outdir: Path) -> Iterator[Path]:
    """A fresh directory to write a run's outputs into; they replace ``outdir``'s own when the
    block ends normally, and are deleted when it raises (``outdir`` is then left as it was).

    The staging directory is a hidden one inside ``outdir`` when it exists, else beside it (in
    its nearest existing ancestor): on the same file system either way, so that moving files
    into place is a rename. An existing ``outdir`` keeps its other files; the outputs an
    earlier run left there that this one does not write (a timeline, after a scripted run) are
    removed, so the outputs in it always belong to one run. Raises :class:`OSError` (for
    example ``NotADirectoryError``) when nothing can be staged.
    """
    target = Path(os.path.abspath(outdir))
    if target.exists() and not target.is_dir():
        raise NotADirectoryError(f"{outdir} exists and is not a directory")
    if target.is_dir():
        stage = _new_directory(target, ".fairshare")
    else:
        anchor = target.parent
        while not anchor.is_dir():  # a missing parent is made only when the run succeeded
            anchor = anchor.parent
        stage = _new_directory(anchor, f".{target.name}")
    try:
        yield stage
        _move_into_place(stage, target)
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _new_directory(parent: Path, prefix: str) -> Path:
    """A new directory named ``prefix.PID.N.partial`` (the first N free), with the mode a plain
    ``mkdir`` gives: it becomes the output directory when the target did not exist."""
    for n in itertools.count():
        path = parent / f"{prefix}.{os.getpid()}.{n}.partial"
        try:
            path.mkdir()
        except FileExistsError:
            continue
        return path
    raise AssertionError("unreachable")


def _move_into_place(stage: Path, target: Path) -> None:
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        stage.rename(target)  # the whole directory at once
        return
    for name in OUTPUT_FILES:
        if (stage / name).exists():
            os.replace(stage / name, target / name)
        else:
            with contextlib.suppress(FileNotFoundError):
                (target / name).unlink()


def write_events(path: Path, records: Iterable[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as f:
        _write_lines(f, records)


def _write_json(path: Path, doc: object) -> None:
    path.write_text(json_text(doc, indent=1) + "\n", encoding="utf-8")


def write_snapshots(path: Path, snapshots: list[dict[str, Any]]) -> None:
    _write_json(path, snapshots)


def write_summary(path: Path, summary: Summary) -> None:
    """Keys in the model's order (fixed), no wall clock: byte-identical reruns."""
    _write_json(path, summary_json(summary))


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
        self._f.write("".join(json_text(event_record(e, types)) + "\n" for e in events))

    def on_snapshot(self, now_ms: int) -> None:
        pass

    def on_end(self, now_ms: int) -> None:
        self._f.flush()


def timeline_schema() -> pa.Schema:
    """``timeline.parquet``'s columns. pyarrow is imported here, when a run writes its
    timeline: the readers of ``summary.json`` (the live pages among them) do not load it."""
    import pyarrow as pa

    types: dict[str, pa.DataType] = {"time_ms": pa.int64(), "queue": pa.string()}
    return pa.schema({name: types.get(name, pa.int64()) for name in TIMELINE_COLUMNS})


class TimelineWriter:
    """``timeline.csv`` row by row; ``timeline.parquet`` in row groups of ``group_rows`` rows
    from columnar buffers, so memory stays flat however long the run."""

    def __init__(self, outdir: Path, group_rows: int = 131_072) -> None:
        self.csv_path, self.parquet_path = outdir / TIMELINE_CSV, outdir / TIMELINE_PARQUET
        self._csv_file = self.csv_path.open("w", encoding="utf-8", newline="")
        self._csv = csv.writer(self._csv_file, lineterminator="\n")
        self._quoted = csv.writer(self._csv_file, lineterminator="\n",
                                  quoting=csv.QUOTE_NONNUMERIC)  # numbers bare, text quoted
        self._csv.writerow(TIMELINE_COLUMNS)
        import pyarrow.parquet as pq

        self._schema = timeline_schema()
        self._parquet = pq.ParquetWriter(self.parquet_path, self._schema)
        self._group_rows = group_rows
        self._times: list[Matrix] = []
        self._names: list[str] = []
        self._values: list[Matrix] = []
        self._buffered = 0
        self.rows = 0

    def __call__(self, time_ms: int, names: list[str], values: Matrix) -> None:
        rows = [[time_ms, name, *row] for name, row in zip(names, values.tolist(), strict=True)]
        if any("\r" in name for name in names):
            # the csv module quotes a field holding "\n" (our line end) but not a lone "\r",
            # which readers take for a line end: such a queue name is quoted by hand
            for row in rows:
                (self._quoted if "\r" in row[1] else self._csv).writerow(row)
        else:
            self._csv.writerows(rows)
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
        import pyarrow as pa

        values = np.concatenate(self._values)
        columns: list[pa.Array[Any]] = [pa.array(np.concatenate(self._times)),
                                        pa.array(self._names, pa.string())]
        columns += [pa.array(values[:, i]) for i in range(len(VALUES))]
        self._parquet.write_table(pa.Table.from_arrays(columns, schema=self._schema))
        self._times, self._names, self._values, self._buffered = [], [], [], 0

    def close(self) -> None:
        self._flush()
        self._parquet.close()
        self._csv_file.close()


__all__ = ["EVENTS", "OUTPUT_FILES", "SNAPSHOTS", "SUMMARY", "TIMELINE_COLUMNS", "TIMELINE_CSV",
           "TIMELINE_PARQUET", "EventWriter", "TimelineWriter", "json_text", "read_summary",
           "staged_outputs",
           "write_events", "write_outputs", "write_snapshots", "write_summary"]

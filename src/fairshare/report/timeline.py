"""The timeline (``timeline.parquet``, else ``timeline.csv``; docs/outputs.md) of a few queues.

A day of 1,000 queues sampled every 10 s is ~9 million rows; the report charts a dozen queues,
so it streams the file in batches and keeps only the rows of the queues it draws (and root,
for the cluster's utilization): memory stays proportional to what is drawn, not to the file.

Every queue's values are put on root's sample times (root is in every sample): a queue that
did not exist at some sample (created by a placement rule, removed by a reload) counts as 0
there, as the summary counts it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from fairshare.config.errors import ConfigError
from fairshare.config.files import check_input_file

PARQUET, CSV = "timeline.parquet", "timeline.csv"
ROOT = "root"
# the columns the report reads, each with its _mb and _vcores
MEASURES = ("steady_fair_share", "fair_share", "usage", "demand", "pending", "starving")
COLUMNS = tuple(f"{m}_{unit}" for m in MEASURES for unit in ("mb", "vcores"))
BATCH_ROWS = 1 << 17

Values = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Timeline:
    """Some queues' samples: ``times[i]`` stands for the interval up to ``times[i + 1]`` (the
    last one, up to ``end_ms``)."""

    source: str  # the file read
    times: Values
    end_ms: int
    series: Mapping[str, Mapping[str, Values]]  # queue → column (COLUMNS) → value per sample

    def durations(self) -> Values:
        """How long each sample stands for, in ms."""
        return np.diff(np.append(self.times, max(self.end_ms, int(self.times[-1]))))


def timeline_file(outdir: Path) -> Path:
    """``timeline.parquet`` if there is one, else ``timeline.csv``."""
    for name in (PARQUET, CSV):
        path = outdir / name
        if path.exists():
            return path
    raise ConfigError(f"no {PARQUET} or {CSV} here: only a simulation (a scenario with a "
                      "workload) writes a timeline", str(outdir))


def load_timeline(outdir: Path, queues: Sequence[str], end_ms: int,
                  samples: int) -> Timeline:
    """The samples of ``queues`` (root is always read); ``samples`` is how many the summary
    says there are, so that a timeline from another run, or a truncated one, is refused."""
    path = timeline_file(outdir)
    display = str(path)
    check_input_file(path, display)
    wanted = list(dict.fromkeys([ROOT, *queues]))
    try:
        table = pa.Table.from_batches(list(_filtered(path, wanted)))
    except (pa.ArrowException, OSError, ValueError) as e:
        raise ConfigError(f"not a readable timeline: {_first_line(e)}", display) from None
    if table.num_rows == 0:
        raise ConfigError("no rows for root: not a fairshare timeline", display)
    codes = pc.index_in(table.column("queue"), value_set=pa.array(wanted)).to_numpy()
    times = _column(table, "time_ms", display)
    order = np.argsort(codes, kind="stable")  # each queue's rows, still in time order
    bounds = np.searchsorted(codes[order], np.arange(len(wanted) + 1))
    rows = {q: order[bounds[i]:bounds[i + 1]] for i, q in enumerate(wanted)}
    grid = times[rows[ROOT]]
    if len(grid) != samples or np.any(np.diff(grid) <= 0):
        raise ConfigError(f"{len(grid):,} samples of root, in order or not, where summary.json "
                          f"counts {samples:,}: the files are not from the same run", display)
    values = {c: _column(table, c, display) for c in COLUMNS}
    series = {q: _on_grid(grid, times[r], {c: v[r] for c, v in values.items()}, q, display)
              for q, r in rows.items()}
    return Timeline(path.name, grid, end_ms, series)


def _filtered(path: Path, wanted: list[str]) -> Iterator[pa.RecordBatch]:
    columns = ["time_ms", "queue", *COLUMNS]
    value_set = pa.array(wanted)
    for batch in _batches(path, columns):
        missing = [c for c in columns if c not in batch.schema.names]
        if missing:
            raise ValueError(f"no column {missing[0]!r} (docs/outputs.md)")
        batch = batch.select(columns)
        yield batch.filter(pc.is_in(batch.column("queue"), value_set=value_set))


def _batches(path: Path, columns: list[str]) -> Iterator[pa.RecordBatch]:
    if path.name.endswith(".parquet"):
        # pre_buffer off: the reader would otherwise hold the whole file's column chunks
        # (a day at 5 s: ~220 MB more, and slower)
        parquet = pq.ParquetFile(path, pre_buffer=False)
        present = [c for c in columns if c in parquet.schema_arrow.names]
        yield from parquet.iter_batches(batch_size=BATCH_ROWS, columns=present)
        return
    types = {c: pa.int64() for c in columns if c != "queue"} | {"queue": pa.string()}
    reader = pacsv.open_csv(path, convert_options=pacsv.ConvertOptions(
        column_types=types, include_columns=columns))
    yield from reader


def _column(table: pa.Table, name: str, display: str) -> Values:
    column = table.column(name)
    if column.null_count:
        raise ConfigError(f"column {name!r} has empty values: not a fairshare timeline", display)
    try:
        return np.asarray(column.cast(pa.int64()).to_numpy(), dtype=np.int64)
    except pa.ArrowException as e:
        raise ConfigError(f"column {name!r}: {_first_line(e)}", display) from None


def _on_grid(grid: Values, times: Values, values: Mapping[str, Values], queue: str,
             display: str) -> dict[str, Values]:
    at = np.searchsorted(grid, times)
    if np.any(at >= len(grid)) or np.any(grid[np.minimum(at, len(grid) - 1)] != times):
        raise ConfigError(f"{queue} has samples at times root has none: not a fairshare "
                          "timeline", display)
    out = {}
    for name, v in values.items():
        filled = np.zeros(len(grid), dtype=np.int64)
        filled[at] = v
        out[name] = filled
    return out


def _first_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return text.splitlines()[0]

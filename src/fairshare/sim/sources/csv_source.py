"""The simplest workload source (``workload.csv``): one CSV row per task group.

A header row names the columns, in any order (``_`` may stand for ``-``)::

    app,at-ms,queue,user,am-memory-mb,am-vcores,count,memory-mb,vcores,duration-ms,priority
    etl-1,0,root.etl,alice,1024,1,40,2048,1,60000,20
    etl-1,,,,,,10,4096,2,120000,10
    adhoc,5000,adhoc,bob,,,4,1024,1,30000,

============  ========  ==========================================================
column        default   meaning
============  ========  ==========================================================
app           required  the app id; consecutive rows of one app add task groups
at-ms         0         when the app is submitted
queue         default   the requested queue (placement rules apply)
user          nobody    the submitting user
am-memory-mb  1024      the AM's size: all ``am-*`` cells empty is an unmanaged AM
am-vcores     1
am-<type>     none      another resource type of the AM (``am-yarn.io/gpu``)
count         1         tasks in the group
memory-mb     1024      each task's size
vcores        1
<type>        none      another resource type of each task (``yarn.io/gpu``)
duration-ms   required  how long each task runs once placed
priority      20        the tasks' priority (lower is more important)
============  ========  ==========================================================

The app columns (``at-ms``, ``queue``, ``user``, ``am-*``) are read from an app's first row; on
its later rows they are empty or repeat the same value. Numbers are plain decimal integers. Empty
rows and rows whose first cell starts with ``#`` are skipped. The defaults are those of the
scenario's own ``workload.apps``. Errors name the file, the row's line and the column.
:func:`dump_csv` writes apps back in this format.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from fairshare.config.files import gc_paused, memory_guard
from fairshare.resources.javalang import parse_int
from fairshare.resources.vector import INT_MAX, LONG_MAX
from fairshare.sim.parse.jsontext import read_trace_text
from fairshare.sim.parse.schema_values import (
    DEFAULT_MEMORY_MB,
    DEFAULT_QUEUE,
    DEFAULT_TASK_PRIORITY,
    DEFAULT_USER,
    DEFAULT_VCORES,
)
from fairshare.sim.parse.specs import Resources, TaskSpec, WorkloadApp
from fairshare.sim.parse.yaml_lines import show, suggest
from fairshare.sim.sources.values import RESOURCE_NAME, FileErrors

__all__ = ["COLUMNS", "MAX_ROWS", "dump_csv", "load_csv"]

COLUMNS = ("app", "at-ms", "queue", "user", "am-memory-mb", "am-vcores", "count", "memory-mb",
           "vcores", "duration-ms", "priority")
APP_COLUMNS = ("at-ms", "queue", "user")
DEFAULTS = {"at-ms": "0", "queue": DEFAULT_QUEUE, "user": DEFAULT_USER,
            "am-memory-mb": str(DEFAULT_MEMORY_MB), "am-vcores": str(DEFAULT_VCORES),
            "count": "1", "memory-mb": str(DEFAULT_MEMORY_MB), "vcores": str(DEFAULT_VCORES),
            "priority": str(DEFAULT_TASK_PRIORITY)}  # those of workload.apps (scenario_schema)
_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
# column → (lowest, highest) integer value; text columns are absent
_NON_NEGATIVE = (0, LONG_MAX)
_RANGES = {"at-ms": (0, LONG_MAX), "count": (1, INT_MAX), "duration-ms": (0, LONG_MAX),
           "priority": (-INT_MAX - 1, INT_MAX)}


MAX_ROWS = 500_000  # rows that are not empty or comments, the header included
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


class _RowError(Exception):
    pass


@dataclass
class _Columns:
    """What the header says: the position of every column, and the resource columns."""

    index: dict[str, int]
    task_types: list[str]  # custom resource types of tasks (column = type)
    am_types: list[str]  # custom resource types of AMs (column = "am-" + type)


def load_csv(path: Path, display: str | None = None) -> tuple[WorkloadApp, ...]:
    """Read a workload CSV file; ``display`` names it in errors and in ``source``."""
    name = display or str(path)
    with memory_guard(name), gc_paused():
        return parse_csv(read_trace_text(path, name), name)


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` with their ends, split as a file opened with ``newline=""`` is
    (``\\n``, ``\\r\\n``, ``\\r``), without a copy of the whole text (an ``io.StringIO``
    holds four bytes a character)."""
    return (match.group() for match in _LINE.finditer(text))


def parse_csv(text: str, display: str) -> tuple[WorkloadApp, ...]:
    """The apps of CSV ``text`` (``display`` names it); raises ``ConfigError(s)``. At most
    :data:`MAX_ROWS` rows."""
    errors = FileErrors(display)
    reader = csv.reader(_lines(text), strict=True)
    builder: _Builder | None = None
    line = 1
    rows = 0
    try:
        for row in reader:
            start, line = line, reader.line_num + 1
            if not any(cell.strip() for cell in row) or row[0].lstrip().startswith("#"):
                continue
            rows += 1
            if rows > MAX_ROWS:
                errors.add(f"more than {MAX_ROWS:,} rows (task groups)", start)
                break
            try:
                if builder is None:
                    builder = _Builder(_header(row), display)
                else:
                    builder.row(row, start)
            except _RowError as error:
                errors.add(str(error), start)
                if builder is None or errors.full:
                    break
    except csv.Error as error:
        errors.add(f"invalid CSV: {error}", reader.line_num)
    if builder is None and not errors.errors:
        errors.add("no header row: the first row names the columns (app, duration-ms, …)", 1)
    errors.raise_any()
    return () if builder is None else builder.finish()


def _header(row: list[str]) -> _Columns:
    index: dict[str, int] = {}
    task_types: list[str] = []
    am_types: list[str] = []
    for position, cell in enumerate(row):
        name = cell.strip()
        known = name.replace("_", "-")
        if known in COLUMNS:
            name = known
        elif name.startswith("am-") and RESOURCE_NAME.fullmatch(name[3:]) \
                and not suggest(name, COLUMNS, cutoff=0.75):
            am_types.append(name[3:])
        elif RESOURCE_NAME.fullmatch(name) and not suggest(name, COLUMNS, cutoff=0.75):
            task_types.append(name)
        else:
            raise _RowError(f"header: unknown column {show(name)}{suggest(known, COLUMNS)}")
        if name in index:
            raise _RowError(f"header: column {show(name)} appears twice")
        index[name] = position
    missing = [c for c in ("app", "duration-ms") if c not in index]
    if missing:
        raise _RowError(f"header: missing column {show(missing[0])}")
    return _Columns(index, task_types, am_types)


def _number(text: str, column: str) -> int:
    """A cell's integer (empty: the column's default)."""
    text = text or DEFAULTS.get(column, "" if column == "duration-ms" else "0")
    if 0 < len(text) <= 18 and text.isdigit() and text.isascii():  # the common case, quickly
        quick = int(text)
        low, high = _RANGES.get(column, _NON_NEGATIVE)
        if low <= quick <= high:
            return quick
    if not text:
        raise _RowError(f"{column}: required, got an empty cell")
    low, high = _RANGES.get(column, (0, LONG_MAX))
    value: int | None = None
    if _INTEGER.fullmatch(text):  # ASCII digits: int() of a short cell is exact and quick
        try:
            # a long cell (leading zeros) goes digit by digit, stopping early: no huge ints
            value = int(text) if len(text) <= 18 else parse_int(text, bits=64)
        except ValueError:
            value = None
    if value is None or not low <= value <= high:
        what = "a non-negative integer" if low == 0 else f"an integer from {low} to {high}"
        raise _RowError(f"{column}: must be {what}, got {show(text)}")
    return value


@dataclass
class _OpenApp:
    """The app whose rows are being read: what its first row says."""

    id: str
    line: int
    cells: dict[str, str]  # its app columns as written
    at_ms: int
    am: Resources | None
    tasks: list[TaskSpec]


class _Builder:
    """Apps built from rows; an app is open while its rows follow one another."""

    def __init__(self, columns: _Columns, display: str) -> None:
        self.columns, self.display = columns, display
        self.apps: list[WorkloadApp] = []
        self.first: dict[str, int] = {}  # app id → line of its first row
        self.sizes: dict[tuple[tuple[str, int], ...], Resources] = {}  # one dict a size
        self.names: dict[str, str] = {}  # one string for each queue and user name
        self.open: _OpenApp | None = None
        self.app_columns = [*APP_COLUMNS, "am-memory-mb", "am-vcores",
                            *(f"am-{t}" for t in columns.am_types)]
        self.am_columns = [name for name in self.app_columns if name.startswith("am-")]
        by_position = {position: name for name, position in columns.index.items()}
        self.positions = [by_position[i] for i in range(len(by_position))]  # column names

    def row(self, row: list[str], line: int) -> None:
        if len(row) > len(self.positions):
            raise _RowError(f"the row has {len(row)} cells, the header {len(self.positions)}")
        cells = dict(zip(self.positions, [cell.strip() for cell in row], strict=False))
        get = cells.get
        app = get("app", "")
        if not app:
            raise _RowError("app: required, got an empty cell")
        if self.open is not None and self.open.id == app and not any(
                get(name) for name in self.app_columns):
            self.open.tasks.append(self.task(get))  # a later row of the app, app cells empty
            return
        own = {name: get(name, "") for name in self.app_columns}
        if self.open is not None and self.open.id == app:
            self.check_same(own)
        elif app in self.first:
            raise _RowError(f"duplicate app id {show(app)} (first at line {self.first[app]}; "
                            "the rows of one app must follow one another)")
        else:
            self.close()
            self.open = _OpenApp(app, line, own, _number(own["at-ms"], "at-ms"),
                                 self.am(own), [])
            self.first[app] = line
        self.open.tasks.append(self.task(get))

    def am(self, cells: dict[str, str]) -> Resources | None:
        if not any(cells[name] for name in self.am_columns):
            return None  # unmanaged
        am = {"memory-mb": _number(cells["am-memory-mb"], "am-memory-mb"),
              "vcores": _number(cells["am-vcores"], "am-vcores")}
        for name in self.columns.am_types:
            if cells[f"am-{name}"]:
                am[name] = _number(cells[f"am-{name}"], f"am-{name}")
        return am

    def check_same(self, cells: dict[str, str]) -> None:
        assert self.open is not None
        first = self.open.cells
        for column, value in cells.items():
            if not value:
                continue
            if column in ("queue", "user") or not first[column]:
                same = value == first[column]
            else:
                same = _number(value, column) == _number(first[column], column)
            if not same:
                was = show(first[column]) if first[column] else "empty"
                raise _RowError(f"app {show(self.open.id)}: {column} is {show(value)} here but "
                                f"{was} on its first row (line {self.open.line})")

    def task(self, get: Callable[[str, str], str]) -> TaskSpec:
        size = {"memory-mb": _number(get("memory-mb", ""), "memory-mb"),
                "vcores": _number(get("vcores", ""), "vcores")}
        for name in self.columns.task_types:
            if get(name, ""):  # an empty cell: none of that type (as in YAML)
                size[name] = _number(get(name, ""), name)
        key = tuple(size.items())
        size = self.sizes.setdefault(key, size)  # one dict for every group of a size
        return TaskSpec(_number(get("count", ""), "count"), size,
                        _number(get("duration-ms", ""), "duration-ms"),
                        _number(get("priority", ""), "priority"))

    def close(self) -> None:
        app = self.open
        if app is None:
            return
        queue = app.cells["queue"] or DEFAULTS["queue"]
        user = app.cells["user"] or DEFAULTS["user"]
        self.apps.append(WorkloadApp(
            app.id, app.at_ms, self.names.setdefault(queue, queue),
            self.names.setdefault(user, user), app.am, tuple(app.tasks), app.line,
            self.display))
        self.open = None

    def finish(self) -> tuple[WorkloadApp, ...]:
        self.close()
        return tuple(self.apps)


def dump_csv(apps: Iterable[WorkloadApp]) -> str:
    """Apps as CSV text that :func:`parse_csv` reads back to the same apps (``line`` and
    ``source`` aside). Every row repeats its app's columns; an app needs at least one task."""
    apps = list(apps)
    task_types = sorted({k for a in apps for t in a.tasks for k in t.resources} - set(COLUMNS))
    am_types = sorted({k for a in apps for k in (a.am or {})} - {"memory-mb", "vcores"})
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*COLUMNS, *task_types, *(f"am-{t}" for t in am_types)])
    for app in apps:
        if not app.tasks:
            raise ValueError(f"app {app.id} has no tasks: a CSV row is a task group")
        am = app.am or {}
        am_cells = [str(am["memory-mb"]), str(am["vcores"])] if app.am is not None else ["", ""]
        for task in app.tasks:
            r = task.resources
            writer.writerow([
                app.id, app.at_ms, app.queue, app.user, *am_cells, task.count,
                r.get("memory-mb", 0), r.get("vcores", 0), task.duration_ms, task.priority,
                *(r.get(t, "") for t in task_types),
                *(am.get(t, "") for t in am_types),
            ])
    return out.getvalue()

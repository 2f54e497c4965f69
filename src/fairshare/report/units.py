"""How the report writes numbers for people: every number with its unit.

The same conventions as the terminal summary (``fairshare run``): memory in MB as YARN counts
it (GB from 100,000 MB on, so a 5,000-node cluster stays readable), vcores with one decimal
below 10, simulated time as ``3 m 20 s``. Exact values go into the page's ``data-*``
attributes beside the rounded text.

A page keeps one memory unit (:func:`memory_unit_of`): chosen once from its cluster, so that a
column never reads MB in one row and GB in the next (root of a big cluster, a small leaf).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from fairshare.resources.display import GB_FROM_MB, vcores_number
from fairshare.resources.display import duration as sim_duration
from fairshare.resources.display import memory as sim_memory
from fairshare.resources.display import percent as percent  # the same everywhere: re-exported

MS_PER_S, MS_PER_MIN, MS_PER_H = 1000, 60_000, 3_600_000
DASH = "–"  # a value that does not exist (a share that was 0 throughout, no contention)


def duration(ms: float | None) -> str:
    """``850 ms``, ``12.5 s``, ``3 m 20 s``, ``2 h 05 m``; ``0`` for none; ``–`` for None."""
    if ms is None:
        return DASH
    return "0" if ms == 0 else sim_duration(ms)  # written as everywhere else


# True while a page whose cluster has GB_FROM_MB or more is written; None: each value alone
_IN_GB: ContextVar[bool | None] = ContextVar("report_memory_in_gb", default=None)


@contextmanager
def memory_unit_of(cluster_mb: float | None) -> Iterator[None]:
    """Within it, :func:`memory` writes every value in the unit the cluster's memory is
    written in (GB from 100,000 MB on, else MB)."""
    token = _IN_GB.set(cluster_mb is not None and abs(cluster_mb) >= GB_FROM_MB)
    try:
        yield
    finally:
        _IN_GB.reset(token)


def memory_unit() -> str:
    """The unit :func:`memory` writes values below 100,000 MB in: ``GB`` or ``MB``."""
    return "GB" if _IN_GB.get() else "MB"


def memory(mb: float | None) -> str:
    """``6,144 MB``; ``81,920 GB`` from 100,000 MB on; ``–`` for None. Within
    :func:`memory_unit_of` a big cluster's page, every value in GB (``1.5 GB`` below 10 GB)."""
    if mb is None:
        return DASH
    in_gb = _IN_GB.get()
    if in_gb is None or abs(mb) >= GB_FROM_MB:
        return sim_memory(mb)
    if not in_gb:
        return f"{round(mb):,} MB"
    gb = mb / 1024
    return f"{gb:.1f}".removesuffix(".0") + " GB" if abs(gb) < 10 else f"{round(gb):,} GB"


def vcores(count: float | None) -> str:
    """``2.5 vcores``; whole vcores from 10 on; ``–`` for None."""
    return DASH if count is None else f"{vcores_number(count)} vcores"


def count(n: int, noun: str) -> str:
    """``1 container``, ``3 containers``."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def clock(ms: int, start_ms: int) -> str:
    """A moment of the run as time since its start: ``t = 1 m 50 s``."""
    return "t = " + duration(ms - start_ms) if ms != start_ms else "t = 0"


def time_axis(span_ms: int) -> tuple[float, str]:
    """How charts scale simulated time: (ms per axis unit, the unit's name), chosen so a span
    shows as a few to a few hundred units."""
    if span_ms >= 3 * MS_PER_H:
        return float(MS_PER_H), "h"
    if span_ms >= 3 * MS_PER_MIN:
        return float(MS_PER_MIN), "min"
    return float(MS_PER_S), "s"


def memory_axis(largest_mb: float) -> tuple[float, str]:
    """How charts scale memory: (MB per axis unit, unit name)."""
    if largest_mb >= 100 * 1024 * 1024:
        return 1024.0 * 1024.0, "TB"
    if largest_mb >= GB_FROM_MB:
        return 1024.0, "GB"
    return 1.0, "MB"


def recovered_phrase(n: int) -> str:
    """``n`` containers running when the simulation started (an imported cluster), when there
    were: the words the report's facts and the terminal's summary both use."""
    return f"{n:,} recovered (running at the start), " if n else ""

"""Simulated time and resources written for people, the same way by every tool: the CLI's
tables, ``fairshare explain``, the report."""

from __future__ import annotations

__all__ = ["GB_FROM_MB", "duration", "memory", "percent", "vcores_number"]

GB_FROM_MB = 100_000  # at and above this many MB, memory is written in GB


def duration(ms: float) -> str:
    """``850 ms``, ``12.5 s``, ``3 m 20 s``, ``2 h 05 m``: rounded to the last unit shown (so
    59.97 s reads ``1 m 00 s``, never ``60.0 s``)."""
    if round(ms) < 1000:
        return f"{ms:.0f} ms"
    if round(ms / 1000, 1) < 60:
        return f"{ms / 1000:.1f} s"
    seconds = round(ms / 1000)
    if seconds < 3600:
        return f"{seconds // 60} m {seconds % 60:02d} s"
    minutes = round(ms / 60_000)
    return f"{minutes // 60:,} h {minutes % 60:02d} m"


def memory(mb: float) -> str:
    """``6,144 MB``; ``81,920 GB`` from 100,000 MB on (a 5,000-node cluster stays readable)."""
    if abs(mb) < GB_FROM_MB:
        return f"{round(mb):,} MB"
    return f"{round(mb / 1024):,} GB"


def vcores_number(count: float) -> str:
    """``2.5``; whole vcores from 10 on (``40,000``)."""
    return f"{count:.1f}".removesuffix(".0") if abs(count) < 10 else f"{round(count):,}"


def percent(fraction: float | None, digits: int = 0) -> str:
    """A fraction as a percentage (``83%``); ``–`` when undefined (nothing to divide by)."""
    return "–" if fraction is None else f"{100.0 * fraction:.{digits}f}%"

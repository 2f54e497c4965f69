"""Simulated time and resources written for people, the same way by every tool: the CLI's
tables, ``fairshare explain``, the report."""

from __future__ import annotations

__all__ = ["duration"]


def duration(ms: float) -> str:
    """``850 ms``, ``12.5 s``, ``3 m 20 s``, ``2 h 05 m``."""
    if ms < 1000:
        return f"{ms:.0f} ms"
    if ms < 60_000:
        return f"{ms / 1000:.1f} s"
    seconds = int(ms // 1000)
    if seconds < 3600:
        return f"{seconds // 60} m {seconds % 60:02d} s"
    return f"{seconds // 3600:,} h {seconds // 60 % 60:02d} m"

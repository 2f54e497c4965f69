"""Reports over a simulation's output files (docs/report.md): the Preemption Tuning page of one
run (:func:`build_report`) and the trade-off page of a sweep (:func:`build_sweep_report`).

This layer reads only what a run wrote — ``summary.json``, the timeline, ``events.jsonl``,
``sweep.csv`` — never the engine, and prints nothing.

The two functions are loaded on first use: they bring matplotlib, which every ``fairshare``
command would otherwise pay for at start-up (about a second) whether it draws or not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fairshare.report.build import build_report
    from fairshare.report.sweep import build_sweep_report

__all__ = ["build_report", "build_sweep_report"]


def __getattr__(name: str) -> Any:
    if name == "build_report":
        from fairshare.report.build import build_report

        return build_report
    if name == "build_sweep_report":
        from fairshare.report.sweep import build_sweep_report

        return build_sweep_report
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

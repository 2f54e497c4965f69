"""The calibration of a forked run, when the run has one: ``calibration.json`` beside its
outputs, written by ``fairshare watch fork --calibrate`` (docs/watch.md "Calibration"), and
its section of the report — per queue, the simulated and the recorded average allocation,
AM waits and preempted containers, and the calibration's limits.

The file is checked as it is read: a field missing or of the wrong type is a
:class:`~fairshare.config.errors.ConfigError` naming the file and the field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.report import units
from fairshare.report.html_kit import esc, header_row, table

CALIBRATION = "calibration.json"


@dataclass(frozen=True, slots=True)
class CalibrationRow:
    queue: str
    simulated: tuple[float, float] | None  # memory MB, vcores: time averages
    recorded: tuple[float, float] | None
    difference_pct: tuple[float | None, float | None]
    am_wait_p50_ms: tuple[int | None, int | None]  # simulated, recorded
    am_wait_p95_ms: tuple[int | None, int | None]
    preempted: tuple[int, int]


@dataclass(frozen=True, slots=True)
class CalibrationView:
    start_ms: int
    end_ms: int
    rows: tuple[CalibrationRow, ...]
    limits: tuple[str, ...]


def load_calibration(outdir: Path) -> CalibrationView | None:
    """The run's calibration, or None when it has none."""
    path = outdir / CALIBRATION
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return _view(data)
    except (ValueError, KeyError, TypeError) as e:
        raise ConfigError(f"not a calibration written by fairshare watch fork: {e}",
                          str(path)) from None


def _pair(value: Any) -> tuple[float, float] | None:
    return None if value is None else (float(value["memory-mb"]), float(value["vcores"]))


def _view(data: dict[str, Any]) -> CalibrationView:
    rows = []
    for q in data["queues"]:
        waits = q["am-wait-ms"]
        diff = q["difference-pct"]
        rows.append(CalibrationRow(
            str(q["queue"]), _pair(q["simulated"]), _pair(q["recorded"]),
            (diff["memory-mb"], diff["vcores"]),
            (waits["simulated"]["p50-ms"], waits["recorded"]["p50-ms"]),
            (waits["simulated"]["p95-ms"], waits["recorded"]["p95-ms"]),
            (int(q["preempted-containers"]["simulated"]),
             int(q["preempted-containers"]["recorded"]))))
    return CalibrationView(int(data["start-ms"]), int(data["end-ms"]), tuple(rows),
                           tuple(str(limit) for limit in data["limits"]))


def calibration_section(c: CalibrationView) -> str:
    """The report's Calibration section: each cell simulated / recorded."""
    head = header_row([("Queue", False), ("allocation: memory", True), ("Δ", True),
                       ("allocation: vcores", True), ("Δ", True), ("AM wait p50", True),
                       ("AM wait p95", True), ("preempted containers", True)])

    def both(a: float | int | None, b: float | int | None, show: Any) -> str:
        return f'<td class="num">{show(a)} / {show(b)}</td>'

    def signed(pct: float | None) -> str:
        return f'<td class="num">{units.DASH if pct is None else f"{pct:+.1f} %"}</td>'

    rows = []
    for r in c.rows:
        sim, rec = r.simulated, r.recorded
        rows.append(
            f'<tr data-queue="{esc(r.queue)}"><td class="queue">{esc(r.queue)}</td>'
            + both(sim and sim[0], rec and rec[0], units.memory) + signed(r.difference_pct[0])
            + both(sim and sim[1], rec and rec[1], units.vcores) + signed(r.difference_pct[1])
            + both(*r.am_wait_p50_ms, units.duration) + both(*r.am_wait_p95_ms, units.duration)
            + both(*r.preempted, lambda n: f"{n:,}") + "</tr>")
    limits = "".join(f"<li>{esc(limit)}</li>" for limit in c.limits)
    return ('<section id="calibration"><h2>Calibration</h2><p>This run is a fork of a watched '
            "cluster: each cell is <em>simulated / recorded</em> over the same span — what the "
            "simulation did against what the cluster really did (docs/watch.md).</p>"
            + table(head, rows, css="calibration")
            + f"<p>Limits of the calibration:</p><ul>{limits}</ul></section>")

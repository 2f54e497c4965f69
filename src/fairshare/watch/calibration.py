"""The calibration of a fork: how far its simulation is from what the cluster really did over
the same span (docs/watch.md, "Calibration").

A fork (:mod:`fairshare.watch.fork`) starts at the checkpoint's state (t = 0) and runs the
apps that really arrived until the end of the span. Simulated with the cluster's own
configuration, per queue, it is compared with the history over ``Window(checkpoint, until)``:

* **average allocation**, memory and vcores: the run's time average of the queue's usage
  (``summary.json`` ``usage``, the same integral the recorder keeps for every queue as
  ``QueueMetrics.allocatedMB/VCores`` would), spread over the whole span — a run whose apps all
  ended early held nothing afterwards — against the history's time average of the RM's
  ``usedResources`` (:meth:`fairshare.web.history.model.QueueTally.average`), and the
  difference in % of the recorded;
* **AM wait**, p50 and p95, nearest rank (the summary's own percentiles,
  :func:`fairshare.sim.record.summary.percentiles`), over the same apps on both sides: those
  whose AM the run places (waiting for it at the checkpoint, or arriving after), managed.
  Recorded: ``launchTime`` (the AM container launched: ``RMAppAttemptImpl``'s launch) minus
  ``startedTime`` (the submission: ``RMAppImpl.startTime``) — or minus the checkpoint for an
  app that was already waiting then, as the simulation only sees it from t = 0; an app not
  launched by the end (or killed while waiting) counts with its wait so far and as *not
  reached*, as the summary counts it; an app that ran but whose ``launchTime`` the RM did not
  report is left out of both sides, and counted;
* **preempted containers** (AM and others) taken from the queue and its subtree: the run's
  ``containers-preempted-from`` against the history's
  :class:`~fairshare.web.history.model.Preemption` records (the rises of each app's
  ``numAMContainerPreempted`` + ``numNonAMContainerPreempted``).

A close match says the simulator reproduces the cluster, so the same fork with candidate
settings (``--set``) says what they would have done. Its limits:

* **task durations are unknown**: the RM reports no container's lifetime. An arrival's tasks
  last its recorded lifetime and are as many as its memory·seconds pay for (``workload
  from-apps``); the running tasks at the checkpoint get a drawn remaining time (``--remaining``);
* **the apps' own behaviour**: the AM's logic (slow start, asks in waves, a Spark executor
  pool growing and shrinking, retries after a preemption) is not replayed: each app asks for all
  its tasks at once as soon as its AM runs;
* **the nodes' failures**: nodes lost, decommissioned or added during the span are not in the
  fork, which keeps the checkpoint's nodes;
* **the sample resolution**: the recorded side is sampled at the watcher's interval (5 s by
  default); events shorter than that, and waits below it, are not seen exactly;
* an app's last state is what the history keeps (its memory·seconds to its finish, or to the
  last sample): an app still running at the end is replayed for what it did up to then, and
  one that held nothing yet (waiting for its AM at the last sample) is left out of the
  workload, as ``workload from-apps`` leaves it out — so its wait is compared on neither side.
"""

from __future__ import annotations

import io
import textwrap
from collections import defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from fairshare.config.errors import ConfigError
from fairshare.report.units import DASH, duration
from fairshare.sim.importer.build import SCENARIO
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.record.summary import percentiles
from fairshare.sim.record.summary_model import Summary
from fairshare.sim.record.summary_read import load_summary
from fairshare.sim.run.build import prepare_run
from fairshare.sim.run.scripted import run_scenario
from fairshare.watch.fork import ForkHistory, read_fork, utc
from fairshare.web.history.model import AppRecord, Window

LIMITS = (
    "task durations are unknown: an arrival's tasks last its recorded lifetime, as many as its "
    "memory·seconds pay for; running tasks at the checkpoint get a drawn remaining time",
    "the apps' own behaviour (ask patterns, AM logic, retries) is not replayed: an app asks "
    "for all its tasks once its AM runs",
    "nodes lost, decommissioned or added during the span are not in the fork",
    "the recorded side has the watcher's sample resolution: what is shorter than a poll "
    "interval is not seen exactly",
    "an app that held nothing by the last sample (still waiting for its AM) is not in the "
    "fork's workload, as workload from-apps leaves it out: its wait is compared on neither side",
)

Amounts = tuple[float, float]
Samples = dict[str, list[tuple[int, bool]]]


@dataclass(frozen=True)
class Waits:
    p50_ms: int | None
    p95_ms: int | None
    apps: int
    not_reached: int  # not launched by the end: counted with their wait so far


@dataclass(frozen=True)
class QueueCalibration:
    """One queue, simulated against recorded; None where that side has no such queue."""

    queue: str
    simulated: Amounts | None  # average allocation over the span: MB, vcores
    recorded: Amounts | None
    am_wait_simulated: Waits
    am_wait_recorded: Waits
    preempted_simulated: int
    preempted_recorded: int

    @property
    def difference_pct(self) -> tuple[float | None, float | None]:
        """(simulated − recorded) ÷ recorded × 100, memory and vcores; None where the recorded
        average is 0 (or a side is missing)."""
        if self.simulated is None or self.recorded is None:
            return None, None
        sim, rec = self.simulated, self.recorded
        return (_pct(sim[0], rec[0]), _pct(sim[1], rec[1]))


@dataclass(frozen=True)
class Calibration:
    start_ms: int  # the checkpoint: the run's t = 0
    end_ms: int
    simulated_ms: int  # how long the run lasted (shorter when its apps all ended earlier)
    recorded_ms: int  # the time the history's samples cover in the span (root's)
    queues: tuple[QueueCalibration, ...]
    launch_unknown: int = 0  # apps left out of the AM waits: the RM did not report launchTime
    limits: tuple[str, ...] = LIMITS


def simulate_fork(fork_dir: Path, run_dir: Path) -> Summary:
    """Run the fork as ``fairshare simulate FORK/scenario.yaml -o RUN`` does (its outputs in
    ``run_dir``) and return its summary."""
    prepared = prepare_run(load_scenario(fork_dir / SCENARIO))
    run_scenario(prepared, run_dir)
    return load_summary(run_dir)


def calibrate(history: ForkHistory, fork_dir: Path, run_dir: Path) -> Calibration:
    """The fork in ``fork_dir`` (its span from ``fork.json``), simulated into ``run_dir``,
    against the history (ConfigError when either is not what it should be)."""
    fork = read_fork(fork_dir)
    start, end = fork.checkpoint_ms, fork.until_ms
    if end is None:
        raise ConfigError(f"forked from the history's last state ({utc(start)}): nothing was "
                          "recorded after it to compare the run with", str(fork_dir))
    return compare(history, start, end, load_summary(run_dir), fork.started_apps)


def compare(history: ForkHistory, start_ms: int, end_ms: int, summary: Summary,
            started_apps: Collection[str]) -> Calibration:
    """The calibration of ``summary`` (a run whose t = 0 is ``start_ms``) over the span;
    ``started_apps``: the apps whose AM the run had to place (waiting at the checkpoint, and
    the arrivals), whose AM waits are compared."""
    span_ms = end_ms - start_ms
    run = summary.span
    run_ms = min(span_ms, (run.end_ms or 0) - (run.start_ms or 0))
    tallies = {t.name: t for t in history.tally(Window(start_ms, end_ms))}
    records = history.apps(Window(start_ms, end_ms))
    sim_waits, rec_waits, unknown = _am_waits(records, summary, start_ms, end_ms,
                                              set(started_apps))
    rec_preempted: dict[str, int] = defaultdict(int)
    for p in history.preemptions(start_ms, end_ms):
        if p.time_ms > start_ms:  # seen at the checkpoint: before it
            for name in _ancestry(p.queue):
                rec_preempted[name] += p.containers
    names = list(tallies) + [n for n in summary.queues if n not in tallies]
    queues = []
    for name in names:
        entry, tally = summary.queues.get(name), tallies.get(name)
        simulated = None if entry is None else (
            entry.usage.memory_mb * run_ms / span_ms, entry.usage.vcores * run_ms / span_ms)
        recorded = None
        if tally is not None:
            mb, vcores = tally.average("used_mb"), tally.average("used_vcores")
            recorded = None if mb is None or vcores is None else (mb, vcores)
        queues.append(QueueCalibration(
            name, simulated, recorded, _waits(sim_waits.get(name, ())),
            _waits(rec_waits.get(name, ())),
            entry.containers_preempted_from if entry is not None else 0,
            rec_preempted.get(name, 0)))
    root = tallies.get("root")
    return Calibration(start_ms, end_ms, run_ms, root.weight_ms if root else 0, tuple(queues),
                       unknown)


def _am_waits(records: Iterable[AppRecord], summary: Summary, start_ms: int, end_ms: int,
              started: set[str]) -> tuple[Samples, Samples, int]:
    """Per queue (and its parents), the AM waits of the apps both sides have, as (wait,
    reached); and how many apps were left out because the RM did not report their launch."""
    sim: Samples = defaultdict(list)
    rec: Samples = defaultdict(list)
    unknown = 0
    span_ms = end_ms - start_ms
    for r in records:
        entry = summary.apps.get(r.id)
        if r.id not in started or entry is None or not entry.managed:
            continue
        since = max(r.started_ms, start_ms)
        if r.launched_ms > 0:
            rec_sample = ((max(0, r.launched_ms - since), True) if r.launched_ms < end_ms
                          else (end_ms - since, False))
        elif r.memory_seconds > 0 or any(r.allocated) or r.running_containers > 0:
            unknown += 1  # it ran, but no launchTime was reported (an older RM)
            continue
        else:  # never launched: waiting still, or killed while waiting
            stop = r.finished_ms if 0 < r.finished_ms < end_ms else end_ms
            rec_sample = (max(0, stop - since), False)
        submit = entry.submit_ms or 0
        sim_sample = ((entry.am_wait_ms, True) if entry.am_wait_ms is not None
                      else (max(0, span_ms - submit), False))
        for name in _ancestry(r.queue):
            rec[name].append(rec_sample)
        for name in _ancestry(entry.queue or entry.requested_queue):
            sim[name].append(sim_sample)
    return sim, rec, unknown


def _ancestry(queue: str) -> list[str]:
    parts = queue.split(".")
    if parts[0] != "root":
        parts = ["root", *parts]
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _waits(samples: Iterable[tuple[int, bool]]) -> Waits:
    p = percentiles(samples)
    return Waits(p.p50, p.p95, p.apps, p.not_reached)


def _pct(simulated: float, recorded: float) -> float | None:
    return None if recorded == 0 else (simulated - recorded) / recorded * 100


# -- output -------------------------------------------------------------------------------------


def as_json(calibration: Calibration) -> dict[str, Any]:
    """The calibration as a JSON object (``fairshare watch fork --format json``, the page)."""
    def queue(q: QueueCalibration) -> dict[str, Any]:
        mem, vc = q.difference_pct
        return {"queue": q.queue,
                "simulated": None if q.simulated is None else _pair(q.simulated),
                "recorded": None if q.recorded is None else _pair(q.recorded),
                "difference-pct": {"memory-mb": _round(mem), "vcores": _round(vc)},
                "am-wait-ms": {"simulated": _wait_json(q.am_wait_simulated),
                               "recorded": _wait_json(q.am_wait_recorded)},
                "preempted-containers": {"simulated": q.preempted_simulated,
                                         "recorded": q.preempted_recorded}}

    return {"start-ms": calibration.start_ms, "end-ms": calibration.end_ms,
            "simulated-ms": calibration.simulated_ms, "recorded-ms": calibration.recorded_ms,
            "launch-unknown": calibration.launch_unknown,
            "queues": [queue(q) for q in calibration.queues],
            "limits": list(calibration.limits)}


def _pair(amounts: Amounts) -> dict[str, float]:
    return {"memory-mb": round(amounts[0], 3), "vcores": round(amounts[1], 3)}


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


def _wait_json(w: Waits) -> Mapping[str, int | None]:
    return {k.replace("_", "-"): v for k, v in asdict(w).items()}


def render(calibration: Calibration, width: int = 120) -> str:
    """The calibration as the terminal shows it: one row per queue, each cell simulated /
    recorded, the limits below."""
    c = calibration
    table = Table(box=box.SIMPLE_HEAD, title_justify="left",
                  title=f"Calibration: the fork simulated / the history recorded, "
                  f"{utc(c.start_ms)} to {utc(c.end_ms)} ({duration(c.end_ms - c.start_ms)})")
    for header in ("Queue", "Memory MB", "Δ", "Vcores", "Δ", "AM wait p50", "AM wait p95",
                   "Preempted"):
        table.add_column(header, justify="left" if header == "Queue" else "right")
    for q in c.queues:
        mem, vc = q.difference_pct
        table.add_row(q.queue,
                      _both(q.simulated, q.recorded, 0), _signed(mem),
                      _both(q.simulated, q.recorded, 1), _signed(vc),
                      f"{_ms(q.am_wait_simulated.p50_ms)} / {_ms(q.am_wait_recorded.p50_ms)}",
                      f"{_ms(q.am_wait_simulated.p95_ms)} / {_ms(q.am_wait_recorded.p95_ms)}",
                      f"{q.preempted_simulated:,} / {q.preempted_recorded:,}")
    text = io.StringIO()
    Console(file=text, width=width, color_system=None, force_terminal=False).print(table)
    lines = [line.rstrip() for line in text.getvalue().splitlines()]
    notes = []
    if c.simulated_ms < c.end_ms - c.start_ms:
        notes.append(f"The run ended after {duration(c.simulated_ms)}, its apps done: its "
                     "averages count nothing held after that.")
    if c.recorded_ms < c.end_ms - c.start_ms:
        notes.append(f"The history's samples cover {duration(c.recorded_ms)} of the span.")
    if c.launch_unknown:
        notes.append(f"{c.launch_unknown} app{'s' if c.launch_unknown > 1 else ''} left out of "
                     "the AM waits: the RM did not report when their AM launched (launchTime).")
    lines += [textwrap.fill(n, width) for n in notes]
    lines.append("Limits of the calibration:")
    lines += [textwrap.fill(limit, width, initial_indent="  - ", subsequent_indent="    ")
              for limit in c.limits]
    return "\n".join(lines) + "\n"


def _both(simulated: Amounts | None, recorded: Amounts | None, i: int) -> str:
    def one(a: Amounts | None) -> str:
        if a is None:
            return DASH
        return f"{a[i]:,.0f}" if i == 0 else f"{a[i]:,.2f}"

    return f"{one(simulated)} / {one(recorded)}"


def _signed(pct: float | None) -> str:
    return DASH if pct is None else f"{pct:+.0f} %"


def _ms(value: int | None) -> str:
    return duration(value)


__all__ = ["LIMITS", "Calibration", "QueueCalibration", "Waits", "as_json", "calibrate",
           "compare", "render", "simulate_fork"]

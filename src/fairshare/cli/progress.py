"""How far a simulation has got, on stderr, so that stdout can be piped or redirected.

On a terminal a live bar follows the simulated clock, with the time elapsed and an estimate of
the time left; elsewhere (a log file, CI) a plain line is printed every
:data:`LINE_EVERY_S` seconds of a run that lasts that long. Without ``run.until-ms`` the end is
not known in advance: the bar aims at the workload's minimum span (``minimum_span``: the
latest arrival plus longest task, or the work of all tasks over the cluster's capacity) and
says "at least"; once the clock passes it, the bar only counts.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from fairshare.cli import format as fmt
from fairshare.core import Event
from fairshare.sim.parse.specs import minimum_span
from fairshare.sim.parse.steps import Scenario
from fairshare.sim.run.model import SimObserver

LINE_EVERY_S = 30.0


class SimProgress:
    """A simulation observer that reports the simulated clock to ``show(done, total, clock)``,
    where ``done`` and ``total`` are simulated milliseconds since the start (``total`` None
    once an estimated end has been passed)."""

    def __init__(self, show: Callable[[int, int | None, str], None], *, until_ms: int | None,
                 span_ms: int, until_for_ms: int | None = None) -> None:
        self._show = show
        self._until, self._span = until_ms, span_ms
        self._for = until_for_ms  # --until: the end is known at the first sample
        self._start: int | None = None

    def on_events(self, events: Sequence[Event]) -> None:
        pass

    def on_snapshot(self, now_ms: int) -> None:
        if self._start is None:
            self._start = now_ms
            if self._for is not None:
                self._until = now_ms + self._for
        done = now_ms - self._start
        if self._until is not None:
            total: int | None = max(1, self._until - self._start)
            clock = f"{fmt.duration(now_ms)} of {fmt.duration(self._until)}"
        else:
            total = max(1, self._span) if done <= self._span else None
            end = self._start + self._span
            clock = (f"{fmt.duration(now_ms)} of at least {fmt.duration(end)}"
                     if total is not None else f"{fmt.duration(now_ms)}, past the minimum span")
        self._show(done, total, clock)

    def on_end(self, now_ms: int) -> None:
        self.on_snapshot(now_ms)


@contextmanager
def progress(spec: Scenario, console: Console, *, show: bool, until_for_ms: int | None = None
             ) -> Iterator[list[SimObserver]]:
    """The observers that report a simulation's progress on ``console`` (none when ``show`` is
    false or there is nothing to simulate); ``until_for_ms``: ``--until``."""
    if not show or spec.workload is None:
        yield []
        return
    capacity: dict[str, int] = {}  # the cluster section's nodes; steps may add more
    for node in spec.nodes:
        for name, amount in node.resources.items():
            capacity[name] = capacity.get(name, 0) + amount
    span = minimum_span(spec.workload, capacity).ms
    if console.is_terminal:
        with _bar(console) as report:
            yield [SimProgress(report, until_ms=spec.run.until_ms, span_ms=span,
                               until_for_ms=until_for_ms)]
    else:
        yield [SimProgress(_Lines(console), until_ms=spec.run.until_ms, span_ms=span,
                           until_for_ms=until_for_ms)]


@contextmanager
def _bar(console: Console) -> Iterator[Callable[[int, int | None, str], None]]:
    columns = (TextColumn("simulating"), BarColumn(), TextColumn("{task.fields[clock]}"),
               TimeElapsedColumn(), TextColumn("left"), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task: TaskID | None = None

        def report(done: int, total: int | None, clock: str) -> None:
            nonlocal task
            if task is None:
                task = bar.add_task("simulating", total=total, clock=clock)
            bar.update(task, completed=done, total=total, clock=clock)

        yield report


@contextmanager
def count_progress(console: Console, label: str, total: int, *, show: bool
                   ) -> Iterator[Callable[[str], None]]:
    """Progress over ``total`` items (a sweep's variants): a bar with the time left on a
    terminal, a line every :data:`LINE_EVERY_S` elsewhere. Call the result once per item done,
    with a note on it (``03-weight=2: ok``)."""
    done = 0
    if not show:
        yield lambda _note: None
        return
    if console.is_terminal:
        columns = (TextColumn(label), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                   TextColumn("{task.fields[note]}"), TimeElapsedColumn(), TextColumn("left"),
                   TimeRemainingColumn())
        with Progress(*columns, console=console, transient=True) as bar:
            task = bar.add_task(label, total=total, note="")
            yield lambda note: bar.update(task, advance=1, note=note)
        return
    lines = _Lines(console, label, unit="")

    def advance(note: str) -> None:
        nonlocal done
        done += 1
        lines(done, total, f"{done}/{total}, last {note}")

    yield advance


class _Lines:
    """Progress as a plain line on a console that is not a terminal, every LINE_EVERY_S."""

    def __init__(self, console: Console, label: str = "simulating",
                 unit: str = " simulated") -> None:
        self._console, self._label, self._unit = console, label, unit
        self._began = self._last = time.monotonic()

    def __call__(self, done: int, total: int | None, clock: str) -> None:
        now = time.monotonic()
        if now - self._last < LINE_EVERY_S:
            return
        self._last = now
        elapsed = now - self._began
        line = f"{self._label}: {clock}{self._unit}, {_wall(elapsed)} elapsed"
        if total is not None and done > 0:
            line += f", about {_wall(elapsed * (total - done) / done)} left"
        self._console.print(line, soft_wrap=True)


def _wall(seconds: float) -> str:
    whole = round(seconds)
    if whole < 3600:
        return f"{whole // 60} m {whole % 60:02d} s"
    return f"{whole // 3600} h {whole // 60 % 60:02d} m"

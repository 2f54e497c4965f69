"""A fake LiveSource for the pages' tests (and the browser test): real RM answers from
tests/importer/dumps read by the one reader into a Sample, and an in-memory history holding
hand-made records — the real store is tested on its own."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from fairshare.web.diagnosis import Finding
from fairshare.web.history.model import AppRecord, Preemption, QueueTally, Series, Window
from fairshare.web.pages.source import Explained, LatestSample, ShownSettings
from fairshare.web.sample import Sample

DUMPS = Path(__file__).resolve().parents[2] / "importer" / "dumps"


def Found(queue: str, app: str | None, cause: str, words: str,
          setting: str | None, advice: str) -> Finding:
    """A diagnosis finding, as web.diagnosis makes them (its own record)."""
    return Finding(queue, app, cause, words, setting, advice, None)


@dataclass
class FakeHistory:
    names: list[str]
    tallies: list[QueueTally] = field(default_factory=list)
    series_of: dict[str, Series] = field(default_factory=dict)
    records: list[AppRecord] = field(default_factory=list)
    taken: list[Preemption] = field(default_factory=list)
    last: int | None = None
    windows: list[Window] = field(default_factory=list)  # what tally/apps were asked for

    def last_time_ms(self) -> int | None:
        return self.last

    def queue_names(self) -> list[str]:
        return list(self.names)

    def tally(self, window: Window) -> list[QueueTally]:
        self.windows.append(window)
        return list(self.tallies)

    def series(self, queue: str, start_ms: int, end_ms: int, max_points: int = 2000) -> Series:
        s = self.series_of.get(queue) or Series(queue, 0, (), {}, {}, {}, ())
        keep = [i for i, t in enumerate(s.times_ms) if start_ms <= t <= end_ms][:max_points]
        return Series(queue, s.resolution_ms, tuple(s.times_ms[i] for i in keep),
                      {k: tuple(v[i] for i in keep) for k, v in s.averages.items()},
                      {k: tuple(v[i] for i in keep) for k, v in s.minima.items()},
                      {k: tuple(v[i] for i in keep) for k, v in s.maxima.items()},
                      tuple(s.short[i] for i in keep))

    def apps(self, window: Window, queue: str | None = None) -> list[AppRecord]:
        self.windows.append(window)
        return [a for a in self.records if queue is None or a.queue == queue]

    def app(self, app_id: str) -> AppRecord | None:
        return next((a for a in self.records if a.id == app_id), None)

    def preemptions(self, start_ms: int, end_ms: int,
                    queue: str | None = None) -> list[Preemption]:
        return [p for p in self.taken if start_ms <= p.time_ms < end_ms
                and (queue is None or p.queue == queue)]


class FakeSource:
    """A LiveSource whose latest sample the test sets (thread-safe: the browser test's server
    runs in another thread)."""

    def __init__(self, sample: Sample | None, history: FakeHistory,
                 findings: Sequence[Found] = (),
                 settings: Mapping[str, ShownSettings] | None = None,
                 explained: Mapping[str, Explained] | None = None) -> None:
        self._lock = threading.Lock()
        self._latest = LatestSample(sample, 2.5 if sample else None, None,
                                    "http://127.0.0.1:8088")
        self._history = history
        self._findings = list(findings)
        self._settings = settings
        self._explained = explained  # None: no engine behind the pages (a watcher's)
        self.explained_asked: list[str] = []

    def set_latest(self, sample: Sample | None, age_s: float | None = 0.5,
                   error: str | None = None) -> None:
        with self._lock:
            self._latest = replace(self._latest, sample=sample, age_s=age_s, error=error)

    def latest(self) -> LatestSample:
        with self._lock:
            return self._latest

    def history(self) -> FakeHistory:
        return self._history

    def diagnosis(self) -> Sequence[Found]:
        return self._findings

    def settings(self) -> Mapping[str, ShownSettings] | None:
        return self._settings

    def explain(self, app_id: str) -> Explained | None:
        self.explained_asked.append(app_id)
        if self._explained is None:
            return None
        return self._explained.get(app_id) or Explained(
            f"app {app_id}", (), f"/ws/v1/fairshare/apps/{app_id}/explain",
            error="the engine's events of this session do not mention this app")

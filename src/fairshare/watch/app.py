"""What ``fairshare watch`` serves: the live pages over the watcher's state and history, and
``/metrics`` (:mod:`fairshare.web.pages`, :mod:`fairshare.web.metrics`).

The diagnosis and the queues' effective settings are computed once per sample (and per
allocation file in force), when a page or a scrape first asks, not on every poll: at a
thousand queues and ten thousand apps a diagnosis takes a good part of a second.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence

from starlette.applications import Starlette

from fairshare.watch.service import Watcher
from fairshare.web.diagnosis import Finding, diagnose, effective_settings
from fairshare.web.history.store import History
from fairshare.web.metrics import LatestState, registry_for
from fairshare.web.pages import LatestSample, ShownSettings, create_app


class WatchSource:
    """The pages' :class:`~fairshare.web.pages.LiveSource` over a :class:`Watcher`."""

    def __init__(self, watcher: Watcher, clock: Callable[[], float] = time.time) -> None:
        self.watcher = watcher
        self._clock = clock
        self._lock = threading.Lock()
        self._for: tuple[int, int, int] | None = None  # (sample time, id(allocations), id(site))
        self._findings: list[Finding] = []
        self._settings: dict[str, ShownSettings] | None = None

    def state(self) -> LatestState:
        return self.watcher.latest()

    def latest(self) -> LatestSample:
        state = self.watcher.latest()
        return LatestSample(state.sample, state.age_s(int(self._clock() * 1000)),
                            state.stats.last_error, state.rm)

    def history(self) -> History:
        return self.watcher.history

    def _refresh(self, state: LatestState) -> None:
        if state.sample is None:
            return
        key = (state.sample.time_ms, id(state.allocations), id(state.site))
        with self._lock:
            if key == self._for:
                return
            self._findings = diagnose(state.sample, state.allocations, state.site,
                                      state.facts)
            shown = effective_settings(state.sample, state.allocations, state.site)
            self._settings = ({name: ShownSettings.of(s) for name, s in shown.items()}
                              if self.watcher.allocations is not None
                              and self.watcher.allocations.path is not None else None)
            self._for = key

    def diagnosis(self) -> Sequence[Finding]:
        self._refresh(self.watcher.latest())
        return self._findings

    def settings(self) -> Mapping[str, ShownSettings] | None:
        self._refresh(self.watcher.latest())
        return self._settings


def watch_app_for(watcher: Watcher) -> Starlette:
    source = WatchSource(watcher)
    return create_app(source, registry_for(source.state))

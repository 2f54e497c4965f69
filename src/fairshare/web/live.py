"""The live pages and ``/metrics`` over a published :class:`~fairshare.web.metrics.LatestState`
and its history — a :class:`~fairshare.web.pages.LiveSource` for any feeder of a
:class:`~fairshare.web.pipeline.SamplePipeline` (``fairshare watch``'s poller, ``fairshare
serve``'s snapshots).

The diagnosis and the queues' effective settings are computed once per sample (and per
allocation file in force), when a page or a scrape first asks, not on every step: at a
thousand queues and ten thousand apps a diagnosis takes a good part of a second.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence

from starlette.applications import Starlette

from fairshare.web.diagnosis import Finding, diagnose, effective_settings
from fairshare.web.history.store import History
from fairshare.web.metrics import LatestState, registry_for
from fairshare.web.pages import Explained, LatestSample, ShownSettings, create_app

__all__ = ["StateSource", "live_app"]


class StateSource:
    """The pages' source over ``latest`` (a pipeline's :meth:`latest`) and ``history``.
    ``now_ms``: the clock a sample's age is read on (the feeder's: the wall for a watcher,
    the server's for serve); ``shows_settings``: whether an allocation file was given (the
    pages then show each queue's settings from it; without one they would be YARN's
    defaults, not the RM's); ``explain``: the engine's account of an app, where an engine
    runs behind the pages (serve's; a watcher has none: None, and no Explain section)."""

    def __init__(self, latest: Callable[[], LatestState], history: History,
                 now_ms: Callable[[], int] = lambda: int(time.time() * 1000),
                 shows_settings: Callable[[], bool] = lambda: True,
                 explain: Callable[[str], Explained | None] = lambda app_id: None) -> None:
        self._latest = latest
        self._history = history
        self.now_ms = now_ms
        self._shows_settings = shows_settings
        self._explain = explain
        self._lock = threading.Lock()
        self._for: tuple[int, int, int] | None = None  # (sample time, id(allocations), id(site))
        self._findings: list[Finding] = []
        self._settings: dict[str, ShownSettings] | None = None

    def state(self) -> LatestState:
        return self._latest()

    def latest(self) -> LatestSample:
        state = self._latest()
        return LatestSample(state.sample, state.age_s(self.now_ms()), state.stats.last_error,
                            state.rm)

    def history(self) -> History:
        return self._history

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
                              if self._shows_settings() else None)
            self._for = key

    def diagnosis(self) -> Sequence[Finding]:
        self._refresh(self._latest())
        return self._findings

    def settings(self) -> Mapping[str, ShownSettings] | None:
        self._refresh(self._latest())
        return self._settings

    def explain(self, app_id: str) -> Explained | None:
        return self._explain(app_id)


def live_app(source: StateSource, program: str = "fairshare watch") -> Starlette:
    """The pages over ``source``, with ``/metrics`` from its state (the ages on its clock),
    named as ``program``'s."""
    return create_app(source, registry_for(source.state, lambda: source.now_ms() / 1000),
                      program=program)

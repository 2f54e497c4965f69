"""The watcher: one thread polls the RM and feeds each sample to a
:class:`~fairshare.web.pipeline.SamplePipeline` (the history, the facts, the latest state); the
pages, ``/metrics`` and ``watch status`` read that state and the history, never the RM.

So a slow or failing RM never stalls a page: a poll that fails leaves the last good sample in
place, and the pages show it with its age and the error. The allocation file is checked for
changes before each poll and reloaded when it changed; a broken file keeps the last good one,
as YARN's ``AllocationFileLoaderService`` does, and its error is shown until it is fixed.
Polls run at a fixed rate (every ``interval_s`` from the first); one that overruns delays the
next rather than queueing several.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from fairshare.watch.allocations import AllocationWatch, Failed, Reloaded
from fairshare.watch.client import RMClient
from fairshare.watch.poll import PollError, PollResult, poll
from fairshare.web.history.store import History
from fairshare.web.metrics import LatestState
from fairshare.web.pipeline import PRUNE_EVERY_S, SamplePipeline

__all__ = ["APPS_INTERVAL_S", "NODES_INTERVAL_S", "PRUNE_EVERY_S", "Watcher"]

# the defaults of --apps-interval and --nodes-interval: what changes slower and costs most to
# read on a large RM (10,000 apps: most of a poll's CPU) is asked for less often
APPS_INTERVAL_S = 15.0
NODES_INTERVAL_S = 60.0


class Watcher:
    """Polls ``client`` every ``interval_s`` into ``history`` (see the module docstring)."""

    def __init__(self, client: RMClient, history: History, allocations: AllocationWatch | None,
                 interval_s: float, *, apps_interval_s: float | None = None,
                 nodes_interval_s: float | None = None,
                 clock: Callable[[], float] = time.time,
                 tell: Callable[[str], None] | None = None) -> None:
        self.client = client
        self.pipeline = SamplePipeline(history, client.urls[0], clock)
        self.allocations = allocations
        self.interval_s = interval_s
        # the apps and the nodes cost most to read at scale: asked for at these intervals
        # (None: at every poll), carried over in between (docs/watch.md "What is polled")
        self.apps_interval_s = apps_interval_s
        self.nodes_interval_s = nodes_interval_s
        self._previous: PollResult | None = None
        # told each new problem, each note, and the recovery after a problem (the terminal)
        self._tell = tell or (lambda line: None)
        self._told: set[str] = set()
        self._apps_at = self._nodes_at = -float("inf")
        self._clock = clock
        self._finished_since_ms: int | None = None  # the RM's clock, for the next apps GET
        self.config_error: str | None = None  # the allocation file's, until a good reload

    def now_ms(self) -> int:
        return int(self._clock() * 1000)

    @property
    def history(self) -> History:
        return self.pipeline.history

    def latest(self) -> LatestState:
        return self.pipeline.latest()

    def _config(self) -> dict[str, Any]:
        """The allocation file and site in force (the last good ones), for the state."""
        if self.allocations is None:
            return {}
        return {"allocations": self.allocations.config, "site": self.allocations.site}

    def poll_once(self) -> LatestState:
        """One poll: reload the allocation file if it changed, ask the RM, store the sample."""
        before = self.latest()
        notes: list[str] = []
        if self.allocations is not None:
            checked = self.allocations.check(self.now_ms())
            if isinstance(checked, Failed):
                self.config_error = checked.message
            elif isinstance(checked, Reloaded) or not checked.waiting:
                # reloaded, or the file in place is again the one in force
                self.config_error = None
        if self.config_error:
            notes.append(self.config_error)
        started = self._clock()
        previous = before.sample.cluster_id if before.sample else None
        # a checkpoint keeps every answer whole: then the apps and nodes are asked for too,
        # and between checkpoints no answer's text is kept
        checkpoint = self.pipeline.checkpoint_due(self.now_ms())
        apps = checkpoint or self._due(self._apps_at, self.apps_interval_s, started)
        nodes = checkpoint or self._due(self._nodes_at, self.nodes_interval_s, started)
        try:
            result = poll(self.client, self.now_ms, previous,
                          finished_since_ms=self._finished_since_ms, previous=self._previous,
                          apps=apps, nodes=nodes)
        except PollError as e:
            return self._failed(started, str(e), notes)
        sample = result.sample
        self._previous = replace(result, answers={})
        self._finished_since_ms = result.finished_since_ms
        if sample.apps_fresh:
            self._apps_at = started
        if sample.nodes_fresh:
            self._nodes_at = started
        if result.message:
            notes.append(result.message)
        notes.extend(result.notes)
        names = [q.name for q in sample.queues()]
        thresholds = self.allocations.thresholds(names) if self.allocations else {}
        latest = self.pipeline.accept(sample, thresholds, started_s=started,
                                      answers=result.answers if checkpoint else None,
                                      notes=notes, **self._config())
        if not latest.stats.up:  # the history database failed: that is the poll's error
            assert latest.stats.last_error is not None
            self._say([latest.stats.last_error, *notes])
            return latest
        if before.stats.last_error is not None:
            self._tell(f"the RM answers again ({sample.rm}) after: {before.stats.last_error}")
            self._told.clear()
        self._say(notes)
        pruned = self.pipeline.prune_if_due(sample.time_ms)
        if pruned is not None:
            self._say([pruned])
        return latest

    def _failed(self, started: float, error: str, notes: list[str]) -> LatestState:
        """A poll that gave no sample: the last good one stays, with this error beside it."""
        latest = self.pipeline.fail(error, started, notes, **self._config())
        self._say([error, *notes])
        return latest

    def _say(self, lines: list[str]) -> None:
        for line in lines:
            if line not in self._told:
                self._told.add(line)
                self._tell(line)

    def _due(self, last: float, every: float | None, now: float) -> bool:
        # a little early rather than a whole poll late: the poll itself takes time
        return every is None or now - last >= every - self.interval_s / 2

    def run(self, stop: threading.Event) -> None:
        """Poll until ``stop`` is set (fixed rate; an overrun delays the next poll)."""
        due = self._clock()
        while not stop.is_set():
            try:
                self.poll_once()
            except Exception as e:
                self._failed(self._clock(), f"internal error: {type(e).__name__}: {e}", [])
            due = max(due + self.interval_s, self._clock())
            stop.wait(max(0.0, due - self._clock()))


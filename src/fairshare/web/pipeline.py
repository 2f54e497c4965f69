"""What becomes of a sample, wherever it came from: stored in the history, the queues' runs of
contention and shortfall carried forward (:mod:`fairshare.web.facts`), and a new frozen
:class:`~fairshare.web.metrics.LatestState` published for the pages and ``/metrics``.

``fairshare watch`` feeds it the samples it polls from a remote RM (``watch/service.py``);
``fairshare serve`` the samples it renders from its own snapshots (``server/pages.py``). One
thread feeds a pipeline; any number read :meth:`SamplePipeline.latest`.

A sample the history database refuses (a full disk, a server gone) is published as that
sample's error, the last good sample kept — the same display as an RM that failed to answer:
the database, not the RM, but as much a reason the pages are not current.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace

from sqlalchemy.exc import SQLAlchemyError

from fairshare.config.model import AllocationConfig
from fairshare.config.yarnsite import SiteConfig
from fairshare.web.facts import advance
from fairshare.web.history.store import History
from fairshare.web.metrics import LatestState
from fairshare.web.sample import Sample

__all__ = ["PRUNE_EVERY_S", "SamplePipeline", "first_line"]

PRUNE_EVERY_S = 300.0  # retention and downsampling: often enough to bound the database


class SamplePipeline:
    """Samples into ``history`` and the latest state (see the module docstring). ``clock``
    (seconds) times each step and paces pruning; ``rm`` names the source until a sample
    does."""

    def __init__(self, history: History, rm: str,
                 clock: Callable[[], float] = time.time) -> None:
        self.history = history
        self._clock = clock
        self._latest = LatestState(None, rm=rm)
        self._lock = threading.Lock()
        self._last_prune = 0.0

    def latest(self) -> LatestState:
        with self._lock:
            return self._latest

    def _publish(self, latest: LatestState) -> None:
        with self._lock:
            self._latest = latest

    def checkpoint_due(self, time_ms: int) -> bool:
        """Whether a sample at ``time_ms`` would be kept with its answers (so the feeder
        needs them whole, and need not keep them otherwise)."""
        return self.history.checkpoint_due(time_ms)

    def accept(self, sample: Sample, thresholds: Mapping[str, float], *, started_s: float,
               allocations: AllocationConfig | None = None, site: SiteConfig | None = None,
               answers: Mapping[str, str] | None = None,
               notes: Sequence[str] = ()) -> LatestState:
        """Store ``sample`` (with ``answers`` when a checkpoint is due), advance the facts and
        publish. ``thresholds``: each queue's effective fairSharePreemptionThreshold;
        ``started_s``: when the feeder began this sample (its cost is the stats' poll time);
        ``allocations``/``site``: the configuration in force (None: YARN's defaults). A
        history failure is published as :meth:`fail` does; the result says which."""
        before = self.latest()
        try:
            self.history.add(sample, thresholds, answers)
        except (SQLAlchemyError, OSError) as e:
            shown = self.history.engine.url.render_as_string(hide_password=True)
            return self.fail(f"history database {shown}: {first_line(e)}", started_s,
                             notes, allocations=allocations, site=site)
        previous = before.sample.cluster_id if before.sample else None
        facts = advance(before.facts, previous, sample, thresholds)
        stats = replace(before.stats, polls=before.stats.polls + 1, up=True,
                        last_poll_seconds=self._clock() - started_s, last_error=None,
                        last_ok_ms=sample.time_ms)
        latest = LatestState(sample, facts, stats,
                             allocations if allocations is not None else AllocationConfig(),
                             site if site is not None else SiteConfig.default(),
                             rm=sample.rm, notes=tuple(notes))
        self._publish(latest)
        return latest

    def fail(self, error: str, started_s: float, notes: Sequence[str] = (), *,
             allocations: AllocationConfig | None = None, site: SiteConfig | None = None,
             now_ms: int | None = None) -> LatestState:
        """A step that gave no sample: the last good one stays, with ``error`` beside it
        (``now_ms``: when, by default this pipeline's clock)."""
        before = self.latest()
        stats = replace(before.stats, polls=before.stats.polls + 1,
                        errors_total=before.stats.errors_total + 1, up=False,
                        last_poll_seconds=self._clock() - started_s, last_error=error,
                        last_error_ms=int(self._clock() * 1000) if now_ms is None else now_ms)
        latest = replace(before, stats=stats, notes=tuple(notes),
                         allocations=before.allocations if allocations is None
                         else allocations,
                         site=before.site if site is None else site)
        self._publish(latest)
        return latest

    def prune_if_due(self, now_ms: int) -> str | None:
        """Apply the history's retention every :data:`PRUNE_EVERY_S`; the error, if it
        failed (the next attempt is as far away as after a success)."""
        if self._clock() - self._last_prune < PRUNE_EVERY_S:
            return None
        self._last_prune = self._clock()
        try:
            self.history.prune(now_ms)
        except (SQLAlchemyError, OSError) as e:
            return f"history database: pruning failed: {first_line(e)}"
        return None


def first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]

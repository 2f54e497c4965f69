"""What the pages read: the latest sample from the poller (in memory), the history database,
the diagnosis, the allocation file's settings and, where an engine runs behind the pages
(``fairshare serve``), the engine's own account of an app — behind one :class:`LiveSource`.

The pages never poll the RM themselves and never wait for it: ``fairshare watch`` (and the live
service of a later issue) keeps the last good sample, its age and the last poll's error, and the
pages draw what it holds, so a failing RM never blanks them (the RM's own web UI has nothing to
show then; ``RMWebAppFilter`` answers a standby's requests with a 307 instead).

The history is read through :class:`HistoryView`: exactly the methods of
the history store's ``History`` the pages call (the store's contract), so
the real store and the tests' in-memory fake both fit it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from fairshare.config.model import TIMEOUT_NEVER_MS, UNSET_TIMEOUT_MS
from fairshare.core import QueueSettings
from fairshare.web.diagnosis import Finding
from fairshare.web.history.model import AppRecord, Preemption, QueueTally, Series, Window
from fairshare.web.sample import Sample
from fairshare.workbench.explain.model import Statement


@dataclass(frozen=True, slots=True)
class LatestSample:
    """What the poller holds: the last good sample (None before the first), how old it is,
    the last poll's error (None when the last poll succeeded) and the RM it polls."""

    sample: Sample | None
    age_s: float | None  # None: no sample yet
    error: str | None
    rm_url: str


@dataclass(frozen=True, slots=True)
class ShownSettings:
    """A queue's preemption settings from the allocation file (the REST API has none of them:
    ``FairSchedulerQueueInfo`` carries no weight, timeout or threshold). Timeouts in ms, None
    where unset — YARN's ``Long.MAX_VALUE``: never preempted for (``AllocationConfiguration``
    ``getFairSharePreemptionTimeout``); the threshold is the effective one (0.5 by default)."""

    weight: float
    policy: str
    fair_share_preemption_timeout_ms: int | None
    min_share_preemption_timeout_ms: int | None
    fair_share_preemption_threshold: float

    @classmethod
    def of(cls, settings: QueueSettings) -> ShownSettings:
        """The engine's effective settings (:func:`fairshare.web.diagnosis.effective_settings`)
        as shown: a timeout that never expires is None."""
        def timeout(ms: int) -> int | None:
            return None if ms in (TIMEOUT_NEVER_MS, UNSET_TIMEOUT_MS) else ms

        return cls(settings.weight, str(settings.policy),
                   timeout(settings.fair_share_preemption_timeout_ms),
                   timeout(settings.min_share_preemption_timeout_ms),
                   settings.fair_share_preemption_threshold)


@dataclass(frozen=True, slots=True)
class Explained:
    """The engine's own account of an app: what ``fairshare explain --app`` says of it from
    the events the engine wrote (``fairshare serve``: its
    ``/ws/v1/fairshare/apps/{id}/explain``), exact where the diagnosis infers from REST
    answers. ``statements``' times are on the engine's clock (ms from its start, as the
    statements' own words give them); ``started_ms``: that clock's 0 in epoch ms (the page
    writes each moment too). ``url``: where the same account is served as JSON;
    ``container_url``: a container's account, ``{id}`` standing for its id (each container
    the account names links to it). ``error``: why there is no account (the events do not
    mention the app, the server is stopping), the statements then empty."""

    subject: str
    statements: tuple[Statement, ...]
    url: str
    started_ms: int | None = None
    container_url: str | None = None
    error: str | None = None


class HistoryView(Protocol):
    """The methods of the history store (``fairshare.web.history.store.History``) the pages
    use; their meaning is the store's."""

    def last_time_ms(self) -> int | None: ...
    def queue_names(self) -> list[str]: ...
    def tally(self, window: Window) -> list[QueueTally]: ...
    def series(self, queue: str, start_ms: int, end_ms: int,
               max_points: int = 2000) -> Series: ...
    def apps(self, window: Window, queue: str | None = None) -> list[AppRecord]: ...
    def app(self, app_id: str) -> AppRecord | None: ...
    def preemptions(self, start_ms: int, end_ms: int,
                    queue: str | None = None) -> list[Preemption]: ...


class LiveSource(Protocol):
    """Everything a page draws. Each call is cheap and never blocks on the RM."""

    def latest(self) -> LatestSample: ...
    def history(self) -> HistoryView: ...
    def diagnosis(self) -> Sequence[Finding]: ...
    def settings(self) -> Mapping[str, ShownSettings] | None: ...  # None: no allocation file
    # None: no engine behind the pages (a watcher), and the page has no Explain section
    def explain(self, app_id: str) -> Explained | None: ...

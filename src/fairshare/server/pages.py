"""``fairshare serve``'s pages and ``/metrics``: the same as ``fairshare watch``'s, from the
same implementation, over the server's own snapshots.

Every ``interval_ms`` of the server's clock (epoch ms, ``--speed`` times faster than the wall
for the virtual executor: :class:`~fairshare.server.view.ServerSnapshot`'s ``now_ms``),
:meth:`ServePages.step` takes the latest snapshot from the :class:`Control`, renders the five
answers a watcher asks an RM for — ``/info``, ``/scheduler``, ``/apps``, ``/nodes``,
``/metrics`` — through the REST layer's own DAOs and Jersey writer (so they are byte for byte
what a client of this server gets), reads them with the watcher's reader
(:func:`fairshare.web.answers.sample_of`) and feeds the sample to a
:class:`~fairshare.web.pipeline.SamplePipeline`: the history (Preemption Tuning, the queue
pages), the facts (how long a queue has been short), the latest state (the Scheduler page, the
diagnosis, ``/metrics``). What the pages show is thus exactly what ``fairshare watch`` pointed
at this server would show, without the HTTP in between.

Rendering, reading and the history's write happen on the caller's thread, never the engine's:
the server runs :meth:`ServePages.run` on a thread of its own (or calls
:meth:`ServePages.step` from one), and the engine thread only ever publishes snapshots.
The apps are two answers, as a watcher's two GETs: the live ones, and every ended one
the snapshot keeps (the server is its own RM: no need to ask for those ended since the
last sample only, as a watcher does).

What a watcher cannot have, serve's pages have too: an app's page carries the engine's own
account of it (:meth:`ServePages.explain`: the document ``/ws/v1/fairshare/apps/{id}/explain``
answers, asked when the page is drawn), beside the diagnosis's findings inferred from the
REST answers.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette

from fairshare.config.model import AllocationConfig
from fairshare.config.yarnsite import SiteConfig
from fairshare.server.control import Control, Refused
from fairshare.server.rest import daos
from fairshare.server.rest.dao_apps import app_texts, joined_apps
from fairshare.server.rest.dao_cluster import info_answer, metrics_answer, scheduler_answer
from fairshare.server.rest.dao_nodes import joined_nodes, node_texts
from fairshare.server.view import ServerSnapshot
from fairshare.sim.record.contention import threshold_of
from fairshare.web.answers import AnswerError, SampleReader
from fairshare.web.history.store import History
from fairshare.web.live import StateSource, live_app
from fairshare.web.metrics import LatestState
from fairshare.web.pages import Explained
from fairshare.web.pipeline import SamplePipeline, first_line
from fairshare.workbench.explain.model import Statement

__all__ = ["ServePages", "answers_and_records", "answers_of", "serve_pages_app",
           "thresholds_of"]

_log = logging.getLogger(__name__)
ENDED_STATES = frozenset({"FINISHED", "FAILED", "KILLED"})  # YarnApplicationState's final ones
EXPLAIN = "/ws/v1/fairshare"  # the extensions' prefix (server/extensions.py)
CHECK_EVERY_S = 0.05  # how often run() looks for a due sample, in wall seconds


def answers_of(snap: ServerSnapshot) -> dict[str, str]:
    """The REST answers a watcher reads, by the names a watch checkpoint keeps them under,
    rendered from ``snap`` as the server's REST API renders them: the live apps as
    ``apps.json`` and the ended ones as ``finished-apps.json``, the watcher's two GETs (a
    checkpoint's ``apps.json`` is what ``watch fork`` imports: the live apps), each in the
    order ``/apps`` lists them."""
    return answers_and_records(snap)[0]


def answers_and_records(snap: ServerSnapshot) -> tuple[dict[str, str], dict[str, list[str]]]:
    """:func:`answers_of`, and the texts of the records its lists are made of (each app's,
    each node's, in order: what :class:`~fairshare.web.answers.SampleReader` reads once per
    text). ``/scheduler``, ``/info``, ``/metrics`` are the REST API's own answers of the
    snapshot (written once for its clients and the pages)."""
    ordered = daos.app_order(snap, snap.apps)
    live = [a for a in ordered if a.state not in ENDED_STATES]
    ended = [a for a in ordered if a.state in ENDED_STATES]
    answers = {"scheduler.json": scheduler_answer(snap).decode("utf-8"),
               "info.json": info_answer(snap).decode("utf-8"),
               "metrics.json": metrics_answer(snap).decode("utf-8")}
    # the big ones as the REST API writes them, from the nodes' and ended apps' kept texts
    records = {"apps.json": app_texts(snap, live), "finished-apps.json": app_texts(snap, ended),
               "nodes.json": node_texts(snap, daos.node_order(snap.nodes))}
    answers["apps.json"] = joined_apps(snap, records["apps.json"]).decode("utf-8")
    answers["finished-apps.json"] = joined_apps(snap, records["finished-apps.json"]
                                                ).decode("utf-8")
    answers["nodes.json"] = joined_nodes(snap, records["nodes.json"]).decode("utf-8")
    return answers, records


def thresholds_of(snap: ServerSnapshot) -> dict[str, float]:
    """Each queue's fairSharePreemptionThreshold as the engine applies it (the snapshot's
    effective settings), read as the contention tests read it (unset: the file default)."""
    return {name: threshold_of(s.fair_share_preemption_threshold)
            for name, s in snap.settings.items()}


class ServePages:
    """Samples of ``control``'s snapshots into ``history`` every ``interval_ms`` of the
    server's clock (see the module docstring). ``allocations_config``/``site``: the
    configuration the engine runs with (None: YARN's defaults, as the engine's without a
    file); :meth:`configure` after a reload. ``rm_url``: what the pages
    name as the ResourceManager (the server's own address). ``clock``: the wall, timing each
    step and pacing the history's pruning. ``explain``: an app's account as the explain
    endpoint answers it (the loop's ``explain_json`` for an app; None: the pages have no
    Explain section)."""

    def __init__(self, control: Control, history: History,
                 allocations_config: AllocationConfig | None, site: SiteConfig | None,
                 interval_ms: int, *, rm_url: str = "fairshare serve",
                 clock: Callable[[], float] = time.time,
                 explain: Callable[[str], Mapping[str, Any]] | None = None) -> None:
        if interval_ms <= 0:
            raise ValueError(f"the pages' sample interval must be positive, not {interval_ms} ms")
        self.control = control
        self.interval_ms = interval_ms
        self.rm_url = rm_url
        self.allocations_config = allocations_config
        self.site = site
        self._clock = clock
        self.pipeline = SamplePipeline(history, rm_url, clock)
        self._due_ms: int | None = None  # the server's clock: when the next sample is due
        self._sampled_ms: int | None = None  # the snapshot time sampled last
        self._explain = explain
        self._reader = SampleReader()  # the records of the last sample, read
        # the settings shown are the engine's own, file or not (a watcher without a file
        # hides YARN's defaults: they may not be the watched RM's)
        self.source = StateSource(self.pipeline.latest, history, self.now_ms, lambda: True,
                                  self.explain)

    @property
    def history(self) -> History:
        return self.pipeline.history

    def now_ms(self) -> int:
        """The server's clock as the latest snapshot tells it (a sample's age is read on it,
        so an accelerated server's pages say its own minutes)."""
        return self.control.snapshot().now_ms

    def _now_or_none(self) -> int | None:
        try:
            return self.now_ms()
        except Exception:  # the snapshot itself failed: the error's time is the wall's
            return None

    def latest(self) -> LatestState:
        return self.pipeline.latest()

    def explain(self, app_id: str) -> Explained | None:
        """The engine's account of ``app_id`` for its page: the explain endpoint's document
        (its statements' times are engine ms, from the server's start: the snapshot's
        ``cluster_timestamp``); what the endpoint would refuse is said instead (an app the
        session's events do not mention — one from an earlier session's history —, a server
        stopping, a damaged events file), never raised. None without an explainer."""
        if self._explain is None:
            return None
        url = f"{EXPLAIN}/apps/{quote(app_id, safe='')}/explain"
        containers = f"{EXPLAIN}/containers/{{id}}/explain"
        try:
            started = self.control.snapshot().cluster_timestamp
            account = self._explain(app_id)
            statements = tuple(Statement(s["t"], str(s["text"]), tuple(s["seq"]))
                               for s in account["statements"])
            subject = str(account["subject"])
        except Refused as e:  # the endpoint's own refusal, in its words
            said = (e.message or e.exception).removeprefix("java.lang.Exception: ")
            why = ("the engine's events of this session do not mention this app"
                   if said.endswith("not found") else f"no account from the engine: {said}")
            return Explained(f"app {app_id}", (), url, error=why)
        except Exception as e:  # a damaged events file, a timeout: said, not a 500
            _log.warning("explaining %s failed: %s", app_id, first_line(e))
            return Explained(f"app {app_id}", (), url,
                             error=f"the engine could not explain it: {first_line(e)}")
        return Explained(subject, statements, url, started, containers)

    def configure(self, allocations_config: AllocationConfig | None,
                  site: SiteConfig | None) -> None:
        """The configuration in force from the next sample on (an allocation file reloaded)."""
        self.allocations_config, self.site = allocations_config, site

    def step(self) -> LatestState | None:
        """Take a sample if one is due on the server's clock (at a fixed rate from the first:
        a late step delays the next rather than making up for it); None if none was."""
        snap = self.control.snapshot()
        if self._due_ms is not None and snap.now_ms < self._due_ms:
            return None
        self._due_ms = max((self._due_ms or snap.now_ms) + self.interval_ms,
                           snap.now_ms + self.interval_ms // 2)
        return self.sample(snap)

    def sample(self, snap: ServerSnapshot) -> LatestState | None:
        """Sample ``snap`` now, due or not; None if it is the snapshot sampled last (the
        history keeps one sample per moment)."""
        if snap.now_ms == self._sampled_ms:
            return None
        started = self._clock()
        answers, records = answers_and_records(snap)
        try:
            sample = self._reader.sample(answers, records, rm=self.rm_url,
                                         time_ms=snap.now_ms)
        except AnswerError as e:  # the REST layer wrote what a watcher could not read
            return self.pipeline.fail(f"the server's own REST answer: {e}", started,
                                      now_ms=snap.now_ms, allocations=self.allocations_config,
                                      site=self.site)
        self._sampled_ms = snap.now_ms
        checkpoint = self.pipeline.checkpoint_due(snap.now_ms)
        latest = self.pipeline.accept(sample, thresholds_of(snap), started_s=started,
                                      answers=answers if checkpoint else None,
                                      allocations=self.allocations_config, site=self.site)
        if latest.stats.up:
            pruned = self.pipeline.prune_if_due(snap.now_ms)
            if pruned is not None:  # the samples are good: logged, not shown as their error
                _log.warning(pruned)
        elif latest.stats.last_error is not None:
            _log.warning(latest.stats.last_error)
        return latest

    def run(self, stop: threading.Event, check_every_s: float = CHECK_EVERY_S) -> None:
        """:meth:`step` until ``stop`` is set, looking every ``check_every_s`` wall seconds
        (the server's thread for its pages); a step that raises is that step's error, shown
        on the pages, not the end of the pages."""
        while not stop.is_set():
            started = self._clock()
            try:
                self.step()
            except Exception as e:
                _log.exception("the pages' sample failed")
                self.pipeline.fail(f"internal error: {type(e).__name__}: {first_line(e)}",
                                   started, allocations=self.allocations_config,
                                   site=self.site, now_ms=self._now_or_none())
            stop.wait(check_every_s)

    def start(self) -> tuple[threading.Thread, threading.Event]:
        """:meth:`run` on a daemon thread of its own; set the event to stop it."""
        stop = threading.Event()
        thread = threading.Thread(target=self.run, args=(stop,), name="fairshare-pages",
                                  daemon=True)
        thread.start()
        return thread, stop


def serve_pages_app(pages: ServePages) -> Starlette:
    """The pages (``/``, ``/scheduler``, ``/queue/…``, ``/tuning``, ``/apps``, ``/app/…``,
    ``/diagnosis``, their ``/api/…``, ``/static/…``) and ``/metrics`` over ``pages``: the
    Starlette app the server mounts at ``/``, beside its REST API under ``/ws/``; every page
    names the program serving it ``fairshare serve``."""
    return live_app(pages.source, "fairshare serve")


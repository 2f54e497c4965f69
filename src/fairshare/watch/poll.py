"""One poll of a ResourceManager: its REST answers read into a
:class:`~fairshare.web.sample.Sample`, or a :class:`PollError` saying, in one located
sentence, why not.

The GETs, in order (``RMWebServices``): ``/scheduler`` (``FairSchedulerInfo``) first — a
standby redirects it to the active RM, which the client then asks first, while a standby
answers ``/info`` itself (``RMWebAppFilter.shouldRedirect``), so an RM list that names only the
standby still finds the active one; then ``/info`` (``ClusterInfo``: which RM process this is),
the apps, ``/nodes`` and ``/metrics`` (``ClusterMetricsInfo``). Every answer is read by the
reader ``fairshare import`` uses (:mod:`fairshare.sim.importer.dump`: one reader of the RM's
JSON).

**The apps are asked for in two GETs** (``RMWebServices.getApps`` filters):

* ``/apps?states=NEW,NEW_SAVING,SUBMITTED,ACCEPTED,RUNNING`` — every live app, each poll;
* ``/apps?states=FINISHED,FAILED,KILLED&finishedTimeBegin=B`` — the apps that finished since
  the previous poll. The RM keeps the last ``yarn.resourcemanager.max-completed-applications``
  finished apps (1,000 by default; sites raise it to 10,000, Hadoop 2's default) and would
  otherwise send and have us parse all of them every 5 s, to find the few that are new. ``B``
  is in the RM's clock, not the watcher's: the ``Date`` header of the previous poll's answer
  (Hadoop's ``NoCacheFilter`` sets it) less :data:`FINISH_MARGIN_MS`, because an app's
  ``finishTime`` is set when its final state is *stored* (``RMAppImpl``'s FINAL_SAVING, shown as
  its previous state) and it turns FINISHED only once the state store has written it. The
  first poll, a poll after a restart and a poll after an answer without ``Date`` ask for every
  retained finished app. A finished app seen twice is the same record (the history keeps one).

**Cost.** An answer is read with the cyclic garbage collector paused
(:func:`~fairshare.config.files.gc_paused`): its values are a tree, without cycles, and the
collector's passes over the million objects a large RM's answers make found nothing to free
and took half the reading time.

``apps.json`` in :attr:`PollResult.answers` is the live apps' answer — what an import (and a
fork from a checkpoint) reads: ``fairshare import`` places RUNNING and ACCEPTED apps only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.config.files import gc_paused
from fairshare.sim.importer.dump import DumpApp, read_apps, read_nodes, read_scheduler
from fairshare.sim.importer.jsonfile import JsonFile
from fairshare.watch.client import Answer, RMClient, RMUnavailable
from fairshare.web.sample import Sample

__all__ = ["FINISH_MARGIN_MS", "KINDS", "PollError", "PollResult", "poll"]

BASE = "/ws/v1/cluster"
LIVE_STATES = "NEW,NEW_SAVING,SUBMITTED,ACCEPTED,RUNNING"
FINISHED_STATES = "FINISHED,FAILED,KILLED"
FINISH_MARGIN_MS = 300_000  # how far back finished apps are asked for again (see above)
KINDS = ("unavailable", "not-json", "capacity-scheduler", "other-scheduler", "bad-field",
         "http-status")
_SCHEDULERS = {"capacityScheduler": ("capacity-scheduler", "the CapacityScheduler"),
               "fifoScheduler": ("other-scheduler", "the FIFO scheduler")}


class PollError(Exception):
    """Why a poll gave no sample: ``kind`` (one of :data:`KINDS`), the endpoint asked, and a
    message naming the RM's URL and, for a bad answer, the field or line."""

    def __init__(self, kind: str, endpoint: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.endpoint, self.message = kind, endpoint, message


@dataclass(frozen=True)
class PollResult:
    """A sample and the raw answers it was read from (for checkpoints). ``restarted``: the RM
    is a new process (a new ``clusterId``; ``message`` says so). ``finished_since_ms``: give
    it to the next poll. ``notes``: what the client reported (a redirect outside the list)."""

    sample: Sample
    answers: dict[str, str]
    restarted: bool = False
    message: str | None = None
    finished_since_ms: int | None = None
    elapsed_s: float = 0.0  # the GETs' time, retries included
    notes: tuple[str, ...] = field(default=())


def poll(client: RMClient, now_ms: Callable[[], int], previous_cluster_id: int | None,
         *, finished_since_ms: int | None = None, previous: PollResult | None = None,
         apps: bool = True, nodes: bool = True) -> PollResult:
    """Ask the RM for everything a sample holds; raises :class:`PollError`. With
    ``apps``/``nodes`` False (and a ``previous`` poll of the same RM process), those lists
    are carried over from it instead of asked for again."""
    answers: dict[str, Answer] = {}
    scheduler = _read(client, answers, "scheduler.json", f"{BASE}/scheduler")
    _check_scheduler(scheduler, f"{BASE}/scheduler")
    root, cluster = _fields(scheduler, read_scheduler)
    info = _read(client, answers, "info.json", f"{BASE}/info")
    cluster_id, version = _info(info)
    restarted = previous_cluster_id is not None and cluster_id != previous_cluster_id
    carried = previous if previous is not None and not restarted \
        and previous.sample.cluster_id == cluster_id else None
    if apps or carried is None:
        live = _fields(_read(client, answers, "apps.json",
                             f"{BASE}/apps?states={LIVE_STATES}"), read_apps)
        since = None if restarted or previous_cluster_id is None else finished_since_ms
        finished_path = f"{BASE}/apps?states={FINISHED_STATES}" + (
            "" if since is None else f"&finishedTimeBegin={max(since, 0)}")
        finished = _fields(_read(client, answers, "finished-apps.json", finished_path),
                           read_apps)
        app_list, apps_fresh = _merge(live, finished), True
        finished_next = _rm_time_ms(answers["finished-apps.json"])
    else:
        app_list, apps_fresh = carried.sample.apps, False
        finished_next = finished_since_ms
    if nodes or carried is None:
        node_list, skipped = _fields(_read(client, answers, "nodes.json", f"{BASE}/nodes"),
                                     read_nodes)
        nodes_fresh = True
    else:
        node_list, skipped = carried.sample.nodes, carried.sample.skipped_nodes
        nodes_fresh = False
    metrics = _metrics(_read(client, answers, "metrics.json", f"{BASE}/metrics"))
    last = answers["scheduler.json"]
    rms = list(dict.fromkeys(a.rm for a in answers.values()))
    if len(rms) > 1:  # a failover between two GETs: the answers are of two RMs
        raise PollError("unavailable", f"{BASE}/", f"the active RM changed during the poll "
                        f"({' then '.join(rms)}): its answers are not of one moment; the next "
                        "poll asks the new one")
    sample = Sample(time_ms=now_ms(), rm=last.rm, cluster_id=cluster_id, rm_version=version,
                    root=root, cluster=cluster, nodes=node_list, apps=app_list,
                    skipped_nodes=skipped, metrics=metrics, apps_fresh=apps_fresh,
                    nodes_fresh=nodes_fresh)
    message = None
    if restarted:
        message = (f"the RM restarted (clusterId {previous_cluster_id} → {cluster_id}): its "
                   "counters began again")
        if len(client.urls) > 1:
            message += " (or the other RM of the HA pair took over)"
    notes = tuple(dict.fromkeys(n for a in answers.values() for n in a.notes))
    texts = {k: a.text for k, a in answers.items()}
    if carried is not None:  # a checkpoint holds every answer: the carried ones too
        texts = {**carried.answers, **texts}
    return PollResult(sample=sample, answers=texts, restarted=restarted, message=message,
                      finished_since_ms=finished_next,
                      elapsed_s=sum(a.elapsed_s for a in answers.values()), notes=notes)


def _answer_file(text: str, display: str) -> JsonFile:
    """An RM answer's JSON. Jersey writes an answer on one line, where every value is on line
    1 and errors are located by field alone: no index of lines is built for it then."""
    one_line = text.count("\n", 0, len(text.rstrip())) == 0
    return JsonFile(text, display, lines=not one_line)


def _read(client: RMClient, answers: dict[str, Answer], name: str, path: str) -> JsonFile:
    """GET ``path`` and parse its JSON; not an answer, a bad status or not JSON: PollError."""
    try:
        answer = client.get(path)
    except RMUnavailable as exc:
        raise PollError("unavailable", path, str(exc)) from None
    answers[name] = answer
    display = answer.rm + path
    if answer.status != 200:
        raise PollError("http-status", path, f"{display}: HTTP {answer.status}: "
                        f"{_status_detail(answer.text)}")
    stripped = answer.text.lstrip()
    if not stripped:
        raise PollError("not-json", path, f"{display}: the RM answered an empty body, not JSON")
    if stripped.startswith("<"):
        what = "HTML" if stripped[:200].lower().startswith(("<!doctype html", "<html")) \
            else "XML"
        raise PollError("not-json", path, f"{display}: the RM answered {what}, not JSON (an "
                        f"error page, or a proxy's or a login page?): {_status_detail(stripped)}")
    try:
        with gc_paused():
            return _answer_file(answer.text, display)
    except ConfigError as exc:
        raise PollError("not-json", path, _located(exc, answer.text)) from None


def _fields(f: JsonFile, reader: Callable[[JsonFile], Any]) -> Any:
    """The reader's values; a field it refuses is a ``bad-field`` error at that field."""
    try:
        with gc_paused():
            return reader(f)
    except ConfigError as exc:
        raise PollError("bad-field", f.display[f.display.find(BASE):],
                        _located(exc, f.text)) from None


def _located(exc: ConfigError, text: str) -> str:
    """``URL, line N: message``; the line left out where it says nothing (a one-line answer,
    and the message has no column)."""
    one_line = text.count("\n", 0, len(text.rstrip())) == 0
    if exc.line is None or (one_line and "column" not in exc.message):
        return f"{exc.file}: {exc.message}"
    return f"{exc.file}, line {exc.line}: {exc.message}"


def _check_scheduler(f: JsonFile, endpoint: str) -> None:
    """A scheduler other than the Fair Scheduler is told as such (``SchedulerTypeInfo``'s
    ``type``: ``capacityScheduler``, ``fifoScheduler``), not as a field error."""
    info = f.value.get("scheduler") if isinstance(f.value, dict) else None
    info = info.get("schedulerInfo") if isinstance(info, dict) else None
    kind = info.get("type") if isinstance(info, dict) else None
    if not isinstance(kind, str) or kind == "fairScheduler":
        return
    code, name = _SCHEDULERS.get(kind, ("other-scheduler", f"a scheduler of type {kind!r}"))
    raise PollError(code, endpoint, f"{f.display}: scheduler.schedulerInfo.type: this RM runs "
                    f"{name} ('{kind}'), not the Fair Scheduler ('fairScheduler'): fairshare "
                    "watches Fair Scheduler RMs only")


def _info(f: JsonFile) -> tuple[int, str]:
    try:
        info = f.obj(f.value, (), "clusterInfo")
        cluster_id = f.count(info, ("clusterInfo",), "id")
        version = f.text_of(info, ("clusterInfo",), "resourceManagerVersion", required=False)
    except ConfigError as exc:
        raise PollError("bad-field", f"{BASE}/info", _located(exc, f.text)) from None
    assert cluster_id is not None
    return cluster_id, version or ""


def _metrics(f: JsonFile) -> dict[str, int | float]:
    try:
        metrics = f.obj(f.value, (), "clusterMetrics")
    except ConfigError as exc:
        raise PollError("bad-field", f"{BASE}/metrics", _located(exc, f.text)) from None
    return {k: v for k, v in metrics.items()
            if isinstance(v, int | float) and not isinstance(v, bool)}


def _merge(live: tuple[DumpApp, ...], finished: tuple[DumpApp, ...]) -> tuple[DumpApp, ...]:
    """Live apps, then finished ones; an app in both finished between the two GETs."""
    done = {a.id for a in finished}
    return (*(a for a in live if a.id not in done), *finished)


def _status_detail(text: str) -> str:
    """What an error answer says: the ``RemoteException`` message (``GenericExceptionHandler``),
    else the text (a denied kill's plain 403, an HTML page's title), shortened."""
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if isinstance(value, dict) and isinstance(value.get("RemoteException"), dict):
        remote = value["RemoteException"]
        message = str(remote.get("message") or "")
        return f"{remote.get('exception', 'RemoteException')}: {message}".strip(": ")
    lowered = text.lower()
    start, end = lowered.find("<title>"), lowered.find("</title>")
    if 0 <= start < end:
        text = text[start + 7:end]
    line = next((s.strip() for s in text.splitlines() if s.strip()), "(empty body)")
    return line if len(line) <= 300 else line[:297] + "..."


def _rm_time_ms(answer: Answer) -> int | None:
    """Where the next poll's finished apps begin, in the RM's clock (its ``Date`` header)."""
    date = answer.header("Date")
    if not date:
        return None
    try:
        seconds = parsedate_to_datetime(date).timestamp()
    except (TypeError, ValueError):
        return None
    return int(seconds) * 1000 - FINISH_MARGIN_MS

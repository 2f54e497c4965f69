"""One poll of a ResourceManager: its REST answers read into a
:class:`~fairshare.web.sample.Sample`, or a :class:`PollError` saying, in one located
sentence, why not.

The GETs, in order (``RMWebServices``): ``/scheduler`` (``FairSchedulerInfo``) first — a
standby redirects it to the active RM, which the client then asks first, while a standby
answers ``/info`` itself (``RMWebAppFilter.shouldRedirect``), so an RM list that names only the
standby still finds the active one; then ``/info`` (``ClusterInfo``: which RM process this is),
the apps, ``/nodes`` and ``/metrics`` (``ClusterMetricsInfo``). Every answer is read by the
reader ``fairshare import`` uses (:mod:`fairshare.sim.importer.dump`: one reader of the RM's
JSON), through :mod:`fairshare.web.answers` (the reader ``fairshare serve``'s pages use on
its own answers too); here is what is about asking a remote RM: the GETs, their statuses, HA
failovers, restarts and which apps to ask for.

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

``apps.json`` in :attr:`PollResult.answers` is the live apps' answer — what an import (and a
fork from a checkpoint) reads: ``fairshare import`` places RUNNING and ACCEPTED apps only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime

from fairshare.sim.importer.jsonfile import JsonFile
from fairshare.watch.client import Answer, RMClient, RMUnavailable
from fairshare.web.answers import (
    BASE,
    KINDS,
    AnswerError,
    first_line,
    merge_apps,
    parse_answer,
    read_apps_answer,
    read_info,
    read_metrics,
    read_nodes_answer,
    read_scheduler_answer,
)
from fairshare.web.sample import Sample

__all__ = ["FINISH_MARGIN_MS", "KINDS", "PollError", "PollResult", "poll"]

LIVE_STATES = "NEW,NEW_SAVING,SUBMITTED,ACCEPTED,RUNNING"
FINISHED_STATES = "FINISHED,FAILED,KILLED"
FINISH_MARGIN_MS = 300_000  # how far back finished apps are asked for again (see above)

# a poll's errors are the reader's (web/answers.py), with the poller's kinds beside them
PollError = AnswerError


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
    root, cluster = read_scheduler_answer(
        _read(client, answers, "scheduler.json", f"{BASE}/scheduler"))
    cluster_id, version = read_info(_read(client, answers, "info.json", f"{BASE}/info"))
    restarted = previous_cluster_id is not None and cluster_id != previous_cluster_id
    carried = previous if previous is not None and not restarted \
        and previous.sample.cluster_id == cluster_id else None
    if apps or carried is None:
        live = read_apps_answer(_read(client, answers, "apps.json",
                                      f"{BASE}/apps?states={LIVE_STATES}"))
        since = None if restarted or previous_cluster_id is None else finished_since_ms
        finished_path = f"{BASE}/apps?states={FINISHED_STATES}" + (
            "" if since is None else f"&finishedTimeBegin={max(since, 0)}")
        finished = read_apps_answer(_read(client, answers, "finished-apps.json",
                                          finished_path))
        app_list, apps_fresh = merge_apps(live, finished), True
        finished_next = _rm_time_ms(answers["finished-apps.json"])
    else:
        app_list, apps_fresh = carried.sample.apps, False
        finished_next = finished_since_ms
    if nodes or carried is None:
        node_list, others = read_nodes_answer(
            _read(client, answers, "nodes.json", f"{BASE}/nodes"))
        nodes_fresh = True
    else:
        node_list, others = carried.sample.nodes, carried.sample.other_nodes
        nodes_fresh = False
    metrics = read_metrics(_read(client, answers, "metrics.json", f"{BASE}/metrics"))
    last = answers["scheduler.json"]
    rms = list(dict.fromkeys(a.rm for a in answers.values()))
    if len(rms) > 1:  # a failover between two GETs: the answers are of two RMs
        raise PollError("unavailable", f"{BASE}/", f"the active RM changed during the poll "
                        f"({' then '.join(rms)}): its answers are not of one moment; the next "
                        "poll asks the new one")
    sample = Sample(time_ms=now_ms(), rm=last.rm, cluster_id=cluster_id, rm_version=version,
                    root=root, cluster=cluster, nodes=node_list, apps=app_list,
                    other_nodes=others, metrics=metrics,
                    apps_fresh=apps_fresh, nodes_fresh=nodes_fresh)
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
    return parse_answer(answer.text, display, path)


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
    return first_line(text)


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

"""An RM's REST answers read into a :class:`~fairshare.web.sample.Sample`: the one reader of
what ``fairshare watch`` fetches from a remote RM and ``fairshare serve`` renders from its own
snapshots, so both show a sample read the same way.

The answers, by name (the names a watch checkpoint keeps them under): ``scheduler.json``
(``FairSchedulerInfo``), ``info.json`` (``ClusterInfo``), ``apps.json`` (the live apps),
``finished-apps.json`` (the finished ones asked for), ``nodes.json`` and ``metrics.json``
(``ClusterMetricsInfo``). Each is read by the reader ``fairshare import`` uses
(:mod:`fairshare.sim.importer.dump`). An answer that is not what a Fair Scheduler RM serves is
an :class:`AnswerError` saying, in one located sentence, why.

**Cost.** An answer is read with the cyclic garbage collector paused
(:func:`~fairshare.config.files.gc_paused`): its values are a tree, without cycles, and the
collector's passes over the million objects a large RM's answers make found nothing to free
and took half the reading time.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.config.files import gc_paused
from fairshare.sim.importer.dump import (
    Amounts,
    DumpApp,
    DumpNode,
    DumpQueue,
    read_apps,
    read_nodes,
    read_scheduler,
)
from fairshare.sim.importer.jsonfile import JsonFile
from fairshare.sim.parse.jsontext import check_json_size
from fairshare.web.sample import Sample

__all__ = [
    "BASE",
    "KINDS",
    "AnswerError",
    "SampleReader",
    "merge_apps",
    "parse_answer",
    "read_apps_answer",
    "read_info",
    "read_metrics",
    "read_nodes_answer",
    "read_scheduler_answer",
    "sample_of",
]

BASE = "/ws/v1/cluster"
# what went wrong: the first two and the last are the poller's (no answer, an error status),
# the others a reader's
KINDS = ("unavailable", "not-json", "capacity-scheduler", "other-scheduler", "bad-field",
         "http-status")
_SCHEDULERS = {"capacityScheduler": ("capacity-scheduler", "the CapacityScheduler"),
               "fifoScheduler": ("other-scheduler", "the FIFO scheduler")}


class AnswerError(Exception):
    """Why answers gave no sample: ``kind`` (one of :data:`KINDS`), the endpoint asked, and a
    message naming the RM's URL and, for a bad answer, the field or line."""

    def __init__(self, kind: str, endpoint: str, message: str) -> None:
        super().__init__(message)
        self.kind, self.endpoint, self.message = kind, endpoint, message


def parse_answer(text: str, display: str, endpoint: str) -> JsonFile:
    """An answer's JSON (``display``: its URL, for messages); empty, HTML, XML or bad JSON is
    a ``not-json`` error."""
    stripped = text.lstrip()
    if not stripped:
        raise AnswerError("not-json", endpoint,
                          f"{display}: the RM answered an empty body, not JSON")
    if stripped.startswith("<"):
        what = "HTML" if stripped[:200].lower().startswith(("<!doctype html", "<html")) \
            else "XML"
        raise AnswerError("not-json", endpoint, f"{display}: the RM answered {what}, not JSON "
                          f"(an error page, or a proxy's or a login page?): "
                          f"{first_line(stripped)}")
    try:
        with gc_paused():
            # Jersey writes an answer on one line, where every value is on line 1 and errors
            # are located by field alone: no index of lines is built for it then
            return JsonFile(text, display, lines=not _one_line(text))
    except ConfigError as exc:
        raise AnswerError("not-json", endpoint, _located(exc, text)) from None


def read_scheduler_answer(f: JsonFile) -> tuple[DumpQueue, Amounts | None]:
    """The root queue and the cluster's resources; another scheduler is told as such."""
    _check_scheduler(f)
    root, cluster = _fields(f, read_scheduler)
    return root, cluster


def read_info(f: JsonFile) -> tuple[int, str]:
    """``clusterInfo``'s ``id`` (the RM's start time) and ``resourceManagerVersion``."""
    try:
        info = f.obj(f.value, (), "clusterInfo")
        cluster_id = f.count(info, ("clusterInfo",), "id")
        version = f.text_of(info, ("clusterInfo",), "resourceManagerVersion", required=False)
    except ConfigError as exc:
        raise AnswerError("bad-field", f"{BASE}/info", _located(exc, f.text)) from None
    assert cluster_id is not None
    return cluster_id, version or ""


def read_apps_answer(f: JsonFile) -> tuple[DumpApp, ...]:
    apps: tuple[DumpApp, ...] = _fields(f, read_apps)
    return apps


def read_nodes_answer(f: JsonFile) -> tuple[tuple[DumpNode, ...], tuple[DumpNode, ...]]:
    """The nodes the scheduler holds, and those it does not (LOST, …) as the answer
    describes them (the Nodes page lists every node)."""
    others: list[DumpNode] = []
    nodes, _skipped = _fields(f, lambda file: read_nodes(file, others))
    return nodes, tuple(others)


def read_metrics(f: JsonFile) -> dict[str, int | float]:
    """``clusterMetrics``' numbers (booleans and strings left out)."""
    try:
        metrics = f.obj(f.value, (), "clusterMetrics")
    except ConfigError as exc:
        raise AnswerError("bad-field", f"{BASE}/metrics", _located(exc, f.text)) from None
    return {k: v for k, v in metrics.items()
            if isinstance(v, int | float) and not isinstance(v, bool)}


def merge_apps(live: tuple[DumpApp, ...], finished: tuple[DumpApp, ...]) -> tuple[DumpApp, ...]:
    """Live apps, then finished ones; an app in both finished between the two GETs."""
    done = {a.id for a in finished}
    return (*(a for a in live if a.id not in done), *finished)


def sample_of(texts: Mapping[str, str], *, rm: str, time_ms: int) -> Sample:
    """A sample from a whole set of answers (every name of the module docstring;
    ``finished-apps.json`` may be left out), all of one moment of the RM at ``rm``."""
    def answer(name: str, endpoint: str) -> JsonFile:
        return parse_answer(texts[name], rm + endpoint, endpoint)

    root, cluster = read_scheduler_answer(answer("scheduler.json", f"{BASE}/scheduler"))
    cluster_id, version = read_info(answer("info.json", f"{BASE}/info"))
    apps = read_apps_answer(answer("apps.json", f"{BASE}/apps"))
    if "finished-apps.json" in texts:
        apps = merge_apps(apps, read_apps_answer(answer("finished-apps.json", f"{BASE}/apps")))
    nodes, others = read_nodes_answer(answer("nodes.json", f"{BASE}/nodes"))
    metrics = read_metrics(answer("metrics.json", f"{BASE}/metrics"))
    return Sample(time_ms=time_ms, rm=rm, cluster_id=cluster_id, rm_version=version,
                  root=root, cluster=cluster, nodes=nodes, apps=apps, other_nodes=others,
                  metrics=metrics)


class _Unsure(Exception):
    """The records do not make the answer as :class:`SampleReader` expects: read it whole."""


_HEARTBEAT = '"lastHealthUpdate":'
_NUMBER = re.compile(r"(0|[1-9][0-9]*)[,}]")  # a JSON non-negative integer, then what ends it
_WRAPPERS = {"apps.json": ('{"apps":{"app":[', "]}}"),
             "finished-apps.json": ('{"apps":{"app":[', "]}}"),
             "nodes.json": ('{"nodes":{"node":[', "]}}")}


class SampleReader:
    """:func:`sample_of`, for a reader of many samples of one RM whose answers' lists come
    with the texts of their records (``records``: by answer name, the texts whose join by
    commas is the list of ``apps.json``, ``finished-apps.json``, ``nodes.json``): a record
    read in the sample before is not read again (a node's, whose lastHealthUpdate moves
    every heartbeat, is kept by its text without that number, which is put back). The
    sample is :func:`sample_of`'s: each record is read by the same reader, alone, and what
    reading the records together adds (no record listed twice, several nodes of one host
    named by their ids) is done over them; anything else (an answer that is not its
    records' join, a record that is not one JSON value, any error) is read by
    :func:`sample_of` itself, with its errors."""

    def __init__(self) -> None:
        self._apps: dict[str, tuple[DumpApp, ...]] = {}
        self._nodes: dict[str, tuple[tuple[DumpNode, ...], tuple[DumpNode, ...], int]] = {}

    def sample(self, texts: Mapping[str, str], records: Mapping[str, Sequence[str]], *,
               rm: str, time_ms: int) -> Sample:
        try:
            with gc_paused():
                return self._sample(texts, records, rm, time_ms)
        except (_Unsure, AnswerError, ConfigError):
            return sample_of(texts, rm=rm, time_ms=time_ms)

    def _sample(self, texts: Mapping[str, str], records: Mapping[str, Sequence[str]],
                rm: str, time_ms: int) -> Sample:
        def answer(name: str, endpoint: str) -> JsonFile:
            return parse_answer(texts[name], rm + endpoint, endpoint)

        root, cluster = read_scheduler_answer(answer("scheduler.json", f"{BASE}/scheduler"))
        cluster_id, version = read_info(answer("info.json", f"{BASE}/info"))
        apps_seen: dict[str, tuple[DumpApp, ...]] = {}
        apps = self._read_apps(texts, records, "apps.json", rm, apps_seen)
        if "finished-apps.json" in texts:
            apps = merge_apps(apps, self._read_apps(texts, records, "finished-apps.json", rm,
                                                    apps_seen))
        nodes_seen: dict[str, tuple[tuple[DumpNode, ...], tuple[DumpNode, ...], int]] = {}
        nodes, others = self._read_nodes(texts, records, rm, nodes_seen)
        metrics = read_metrics(answer("metrics.json", f"{BASE}/metrics"))
        self._apps, self._nodes = apps_seen, nodes_seen  # what the next sample may find
        return Sample(time_ms=time_ms, rm=rm, cluster_id=cluster_id, rm_version=version,
                      root=root, cluster=cluster, nodes=nodes, apps=apps, other_nodes=others,
                      metrics=metrics)

    @staticmethod
    def _parts(texts: Mapping[str, str], records: Mapping[str, Sequence[str]], name: str,
               display: str) -> Sequence[str] | None:
        """The records of ``name``, if they make its text (and it is one line: every value
        is on line 1, as in each record read alone); its size checked as a whole. None: the
        answer has no records (YARN leaves an empty list out: ``{"apps":{}}``), so it is
        read whole, alone: it is small, and the other answers' records still count."""
        parts = records.get(name)
        if parts is None:
            raise _Unsure
        if not parts:
            return None
        text = texts[name]
        head, tail = _WRAPPERS[name]
        if "\n" in text or not _is_join(text, head, parts, tail):
            raise _Unsure
        check_json_size(text, display)
        return parts

    @staticmethod
    def _one(part: str) -> Any:
        """The JSON value that is the whole of ``part`` (else the answer is read whole)."""
        try:
            return json.loads(part)
        except ValueError:
            raise _Unsure from None

    def _read_apps(self, texts: Mapping[str, str], records: Mapping[str, Sequence[str]],
                   name: str, rm: str, seen: dict[str, tuple[DumpApp, ...]]
                   ) -> tuple[DumpApp, ...]:
        endpoint = f"{BASE}/apps"
        display = rm + endpoint
        head, tail = _WRAPPERS[name]
        parts = self._parts(texts, records, name, display)
        if parts is None:
            return read_apps_answer(parse_answer(texts[name], display, endpoint))
        out: list[DumpApp] = []
        for part in parts:
            read = seen.get(part) or self._apps.get(part)
            if read is None:
                self._one(part)
                read = read_apps_answer(parse_answer(f"{head}{part}{tail}", display, endpoint))
            seen[part] = read
            out.extend(read)
        if len({a.id for a in out}) != len(out):  # listed twice: sample_of's error
            raise _Unsure
        return tuple(out)

    def _read_nodes(self, texts: Mapping[str, str], records: Mapping[str, Sequence[str]],
                    rm: str, seen: dict[str, tuple[tuple[DumpNode, ...], tuple[DumpNode, ...],
                                                   int]]
                    ) -> tuple[tuple[DumpNode, ...], tuple[DumpNode, ...]]:
        endpoint = f"{BASE}/nodes"
        display = rm + endpoint
        head, tail = _WRAPPERS["nodes.json"]
        held: list[DumpNode] = []
        others: list[DumpNode] = []
        parts = self._parts(texts, records, "nodes.json", display)
        if parts is None:
            return read_nodes_answer(parse_answer(texts["nodes.json"], display, endpoint))
        for part in parts:
            key, beat = _without_heartbeat(part)
            read = (seen.get(key) or self._nodes.get(key)) if key is not None else None
            if read is None:
                value = self._one(part)
                nodes, more = read_nodes_answer(parse_answer(f"{head}{part}{tail}", display,
                                                             endpoint))
                # the one literal "lastHealthUpdate" key is the node's own (no escaped key
                # may spell it), its number the one cut: else the record is not kept
                if key is not None and ("\\" in part or not isinstance(value, dict)
                                        or type(value.get("lastHealthUpdate")) is not int
                                        or value["lastHealthUpdate"] != beat):
                    key = None
                read = (nodes, more, beat)
            elif read[2] != beat:  # the same record but for its heartbeat, which is put back
                read = (tuple(_with_beat(n, beat) for n in read[0]),
                        tuple(_with_beat(n, beat) for n in read[1]), beat)
            if key is not None:
                seen[key] = read
            held.extend(read[0])
            others.extend(read[1])
        if len({n.id for n in held}) != len(held):  # listed twice: sample_of's error
            raise _Unsure
        hosts = Counter(n.name for n in held)  # read_nodes: several on one host, by their ids
        return (tuple(replace(n, name=n.id) if hosts[n.name] > 1 else n for n in held),
                tuple(others))


def _is_join(text: str, head: str, parts: Sequence[str], tail: str) -> bool:
    """``text == head + ",".join(parts) + tail``, compared part by part in place rather
    than by making the megabytes of the join again."""
    if len(text) != len(head) + sum(map(len, parts)) + len(parts) - 1 + len(tail):
        return False
    if not (text.startswith(head) and text.endswith(tail)):
        return False
    at = len(head)
    for part in parts:
        if not text.startswith(part, at):
            return False
        at += len(part)
        if at < len(text) - len(tail):
            if text[at] != ",":
                return False
            at += 1
    return at == len(text) - len(tail)


def _with_beat(node: DumpNode, beat: int) -> DumpNode:
    """``replace(node, last_health_update_ms=beat)``: every node of a sample has a new
    heartbeat, and ``dataclasses.replace`` looks at all the fields of each (2.9 against
    0.44 µs: at 5,000 nodes a quarter of the pages' reading of a ``fairshare serve``
    sample); a DumpNode has no ``__post_init__`` to run."""
    copy = object.__new__(DumpNode)
    fields = copy.__dict__
    fields.update(node.__dict__)
    fields["last_health_update_ms"] = beat
    return copy


def _without_heartbeat(part: str) -> tuple[str | None, int]:
    """A node's text without the number of its one ``lastHealthUpdate``, and the number
    (None: the text has not exactly one, or not a plain number there)."""
    start = part.find(_HEARTBEAT)
    if start < 0 or part.find(_HEARTBEAT, start + 1) >= 0:
        return None, 0
    at = start + len(_HEARTBEAT)
    number = _NUMBER.match(part, at)
    if number is None:
        return None, 0
    end = number.end(1)
    return part[:at] + part[end:], int(number.group(1))


def first_line(text: str) -> str:
    """What an error body says in one line: an HTML page's title, else its first line,
    shortened."""
    lowered = text.lower()
    start, end = lowered.find("<title>"), lowered.find("</title>")
    if 0 <= start < end:
        text = text[start + 7:end]
    line = next((s.strip() for s in text.splitlines() if s.strip()), "(empty body)")
    return line if len(line) <= 300 else line[:297] + "..."


def _one_line(text: str) -> bool:
    return text.count("\n", 0, len(text.rstrip())) == 0


def _fields(f: JsonFile, reader: Callable[[JsonFile], Any]) -> Any:
    """The reader's values; a field it refuses is a ``bad-field`` error at that field."""
    try:
        with gc_paused():
            return reader(f)
    except ConfigError as exc:
        raise AnswerError("bad-field", f.display[f.display.find(BASE):],
                          _located(exc, f.text)) from None


def _located(exc: ConfigError, text: str) -> str:
    """``URL, line N: message``; the line left out where it says nothing (a one-line answer,
    and the message has no column)."""
    if exc.line is None or (_one_line(text) and "column" not in exc.message):
        return f"{exc.file}: {exc.message}"
    return f"{exc.file}, line {exc.line}: {exc.message}"


def _check_scheduler(f: JsonFile) -> None:
    """A scheduler other than the Fair Scheduler is told as such (``SchedulerTypeInfo``'s
    ``type``: ``capacityScheduler``, ``fifoScheduler``), not as a field error."""
    info = f.value.get("scheduler") if isinstance(f.value, dict) else None
    info = info.get("schedulerInfo") if isinstance(info, dict) else None
    kind = info.get("type") if isinstance(info, dict) else None
    if not isinstance(kind, str) or kind == "fairScheduler":
        return
    code, name = _SCHEDULERS.get(kind, ("other-scheduler", f"a scheduler of type {kind!r}"))
    raise AnswerError(code, f"{BASE}/scheduler", f"{f.display}: scheduler.schedulerInfo.type: "
                      f"this RM runs {name} ('{kind}'), not the Fair Scheduler "
                      "('fairScheduler'): fairshare watches Fair Scheduler RMs only")

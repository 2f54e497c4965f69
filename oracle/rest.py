"""The REST comparison: YARN's REST answers at each snapshot, fairshare's against Hadoop's.

At each snapshot step the driver builds the ResourceManager's own DAOs from the real scheduler
and writes them as Jersey does (``oracle/driver``, ``Rest``); fairshare renders the same
snapshot through its REST layer (:mod:`fairshare.server.rest`) from a
:class:`~fairshare.server.view.ServerSnapshot` of its engine. Each side writes ``rest.jsonl``:
one line per snapshot and endpoint, ``{"snapshot": i, "endpoint": name, "body": …}``, the
body verbatim as the REST layer wrote it.

The two bodies are compared field by field, in order: the same keys in the same order
(repeated ``entry`` keys kept: parsed with ``object_pairs_hook``), the same JSON types, the
same values, except the fields of :data:`IGNORED` and :data:`HOST_ONLY`, each with its reason
(docs/fidelity.md, "The REST comparison"), and the lists of :data:`KEYED`, whose order is a
hash order the oracle's ids cannot reproduce.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oracle.output_files import OracleOutputError

REST_ENV = "FAIRSHARE_ORACLE_REST"  # "1": compare the REST answers; "0": oracle --no-rest

REST = "rest.jsonl"
# the driver's ResourceManager started at this epoch ms (AppModel.CLUSTER_TIMESTAMP): the
# cluster timestamp in every application id, and what fairshare's ServerSnapshot is given
CLUSTER_TIMESTAMP = 1_700_000_000_000
# the endpoints compared, under /ws/v1/cluster, in the order each snapshot writes them
ENDPOINTS = ("scheduler", "metrics", "nodes", "apps")

_CLOCK = "a time on the RM's clock: the driver's RM has a stand-in lifecycle (RMAppImpl's " \
         "state machine does not run), and fairshare's is the server's"
_SECONDS = "resource × container lifetime: RMContainerImpl times containers by the wall " \
           "clock even in the driver, which writes these as 0 ({} for the maps)"

# (endpoint, field name) → why the field can only differ; it is not compared wherever it
# occurs in that endpoint's document
IGNORED: dict[tuple[str, str], str] = {
    ("nodes", "lastHealthUpdate"): "a timestamp of the NodeManager's last heartbeat: the RM's "
                                   "wall clock in YARN, the server's clock in fairshare",
    ("apps", "startedTime"): _CLOCK,
    ("apps", "launchTime"): _CLOCK,
    ("apps", "finishedTime"): _CLOCK,
    ("apps", "elapsedTime"): _CLOCK,
    ("apps", "trackingUrl"): "a URL on the RM's web proxy (its host name and port)",
    ("apps", "amRPCAddress"): "the AM's host and RPC port, which it gives when it registers: "
                              "the driver has no AM process",
    ("apps", "diagnostics"): "YARN's own words (free text, as in the event comparison)",
    ("apps", "memorySeconds"): _SECONDS,
    ("apps", "vcoreSeconds"): _SECONDS,
    ("apps", "resourceSecondsMap"): _SECONDS,
    ("apps", "preemptedMemorySeconds"): _SECONDS,
    ("apps", "preemptedVcoreSeconds"): _SECONDS,
    ("apps", "preemptedResourceSecondsMap"): _SECONDS,
}
# (endpoint, field name) → why only the host part of a host:port value is compared
HOST_ONLY: dict[tuple[str, str], str] = {
    ("nodes", "id"): "the NodeManager's port: a scenario names hosts only, and the driver "
                     "picks each node's port so that YARN's node map iterates in "
                     "registration order (docs/fidelity.md, the hash-order table)",
    ("apps", "masterNodeId"): "the AM's node id: its NodeManager's port, as for nodes",
}
# (endpoint, list field) → the field of each item that names it: such a list is compared as
# a set of items by that name (a hash order of ids that differ between the two runs)
KEYED: dict[tuple[str, str], str] = {
    # ClientRMService.getApplications walks RMContext.getRMApps(), a ConcurrentHashMap by
    # ApplicationId: the oracle's apps are named by the scenario in fairshare's run
    ("apps", "app"): "id",
}


# -- reading and writing ------------------------------------------------------------------------

class Pairs(list[tuple[str, Any]]):
    """A JSON object: its (key, value) pairs in order, repeated keys kept."""


def parse(text: str) -> Any:
    """A JSON document with every object as its :class:`Pairs`."""
    return json.loads(text, object_pairs_hook=Pairs)


@dataclass(frozen=True)
class Document:
    snapshot: int
    endpoint: str
    body: Any  # parsed (:func:`parse`); None when ``error`` says why there is none
    error: str | None = None
    ids: Mapping[str, str] | None = None  # the driver's: YARN's application id → app name


def read_rest(path: Path) -> list[Document]:
    """``rest.jsonl``; malformed content is an :class:`OracleOutputError` naming file:line."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise OracleOutputError(f"{path}: cannot read: {e}") from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = dict(parse(line))
        except (json.JSONDecodeError, TypeError, ValueError) as e:
            raise OracleOutputError(f"{path}:{number}: not a JSON object: {e}") from None
        snapshot, endpoint = record.get("snapshot"), record.get("endpoint")
        if not isinstance(snapshot, int) or not isinstance(endpoint, str):
            raise OracleOutputError(f"{path}:{number}: a REST line needs 'snapshot' (an "
                                    "integer) and 'endpoint' (a name)")
        error, ids = record.get("error"), record.get("ids")
        out.append(Document(snapshot, endpoint, record.get("body"),
                            error if isinstance(error, str) else None,
                            {str(k): str(v) for k, v in ids} if isinstance(ids, Pairs)
                            else None))
    return out


def rest_line(snapshot: int, endpoint: str, body: bytes | None, error: str | None = None
              ) -> str:
    """One line of ``rest.jsonl``, the body written in as it is."""
    head = f'{{"snapshot":{snapshot},"endpoint":{json.dumps(endpoint)}'
    if body is None:
        return head + f',"error":{json.dumps(error or "no body")}}}'
    return head + ',"body":' + body.decode("utf-8") + "}"


# -- fairshare's side ---------------------------------------------------------------------------

# (engine, the run's records so far) → per endpoint, (endpoint, body or None, error)
Renderer = Callable[[Any, Sequence[Mapping[str, Any]]],
                    list[tuple[str, bytes | None, str | None]]]


def lost_nodes(records: Sequence[Mapping[str, Any]], types: Any) -> tuple[Any, ...]:
    """The RM's records of the nodes the run lost and that have not registered again, from
    its events (``node-added``, ``-resized``, ``-removed``): ``rm_records_of`` knows the
    engine's nodes only, where the RM keeps a lost node as LOST (``RMContext``'s inactive
    nodes, listed by ``/nodes`` and counted by ``/metrics``)."""
    from fairshare.server.view import RMNodeView

    seen: dict[str, tuple[str, dict[str, int], int]] = {}  # rack, capacity, registration
    lost: dict[str, int] = {}
    registrations = 0
    for r in records:
        node = r.get("node")
        if not isinstance(node, str):
            continue
        if r["type"] == "node-added":
            seen[node] = (str(r.get("rack")), dict(r.get("capacity") or {}), registrations)
            registrations += 1
            lost.pop(node, None)
        elif r["type"] == "node-resized" and node in seen:
            seen[node] = (seen[node][0], dict(r.get("capacity") or {}), seen[node][2])
        elif r["type"] == "node-removed":
            lost[node] = int(r["t"])
    # in registration order: RMContext's inactive nodes are a ConcurrentHashMap by NodeId,
    # whose order the driver's ports make the registration order (Driver.addNode)
    known = sorted((n for n in lost if n in seen), key=lambda n: seen[n][2])
    return tuple(RMNodeView(name, name.rsplit(":", 1)[0], f"{name}:8042", seen[name][0], "LOST",
                            CLUSTER_TIMESTAMP + lost[name], types.of(seen[name][1]))
                 for name in known)


def fairshare_renderer() -> Renderer | None:
    """What renders an engine's REST answers, or None: not asked for (``--no-rest``: the
    workers see :data:`REST_ENV` other than "1"), or fairshare has no REST layer."""
    if os.environ.get(REST_ENV) != "1":
        return None
    try:
        from fairshare.server.rest import daos  # type: ignore[import-not-found,unused-ignore]
        from fairshare.server.rest.jersey import (  # type: ignore[import-not-found,unused-ignore]
            to_json,
        )
        from fairshare.server.snapshots import rm_records_of, server_snapshot
    except ImportError:
        return None

    def render(engine: Any, records: Sequence[Mapping[str, Any]] = ()
               ) -> list[tuple[str, bytes | None, str | None]]:
        now = CLUSTER_TIMESTAMP + engine.now
        apps, nodes = rm_records_of(engine.snapshot(), CLUSTER_TIMESTAMP)
        s = server_snapshot(engine, CLUSTER_TIMESTAMP, now, apps,
                            nodes + lost_nodes(records, engine.types))
        builders: dict[str, Callable[[], Any]] = {
            "scheduler": lambda: daos.scheduler(s),
            "metrics": lambda: daos.cluster_metrics(s),
            "nodes": lambda: daos.nodes(s, s.nodes),
            # the apps the scheduler took: the RM's record of a refused submission (whether
            # there is one, and what it says) is RMAppManager's, a stand-in in the driver
            "apps": lambda: daos.apps(s, [a for a in s.apps if a.state != "FAILED"]),
        }
        out: list[tuple[str, bytes | None, str | None]] = []
        for endpoint in ENDPOINTS:
            try:
                out.append((endpoint, to_json(builders[endpoint]()), None))
            except Exception as e:  # a renderer's failure is a difference, shown as such
                out.append((endpoint, None, f"{type(e).__name__}: {e}"))
        return out

    return render


# -- comparing ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class RestDifference:
    snapshot: int
    endpoint: str
    path: str  # where in the document, e.g. scheduler.schedulerInfo.rootQueue.maxApps
    fairshare: Any  # the value on each side, plain JSON ("(absent)" where missing)
    hadoop: Any
    what: str  # "value", "type", "keys", "length", "missing", "error"


_ABSENT = "(absent)"


def compare_documents(fs: Sequence[Document], hadoop: Sequence[Document], snapshot: int
                      ) -> tuple[RestDifference | None, int]:
    """The first difference between the two sides' documents of snapshot ``snapshot``, and
    how many documents were compared identical before it."""
    mine = {d.endpoint: d for d in fs if d.snapshot == snapshot}
    theirs = {d.endpoint: d for d in hadoop if d.snapshot == snapshot}
    compared = 0
    for endpoint in [*theirs, *(e for e in mine if e not in theirs)]:
        left, right = mine.get(endpoint), theirs.get(endpoint)
        if left is None or right is None or left.error or right.error:
            what = "error" if (left and left.error) or (right and right.error) else "missing"
            return RestDifference(snapshot, endpoint, endpoint,
                                  _side(left), _side(right), what), compared
        theirs_body = right.body if right.ids is None else _renamed(right.body, right.ids)
        found = _compare(left.body, theirs_body, endpoint, endpoint)
        if found is not None:
            return RestDifference(snapshot, endpoint, *found), compared
        compared += 1
    return None, compared


def _renamed(value: Any, ids: Mapping[str, str]) -> Any:
    """Hadoop's document with YARN's ids as the scenario's names: application_<ts>_<n> as the
    app's name, and in container and attempt ids (container_<ts>_<n>_… as container_<name>_…),
    the forms fairshare's engine gives the oracle's apps."""
    if isinstance(value, Pairs):
        return Pairs((k, _renamed(v, ids)) for k, v in value)
    if isinstance(value, list):
        return [_renamed(v, ids) for v in value]
    if isinstance(value, str) and "_" in value:
        for yarn, name in ids.items():
            tail = yarn[len("application_"):]
            value = (value.replace(yarn, name).replace(f"container_{tail}_", f"container_{name}_")
                     .replace(f"appattempt_{tail}_", f"appattempt_{name}_"))
    return value


def _side(d: Document | None) -> Any:
    if d is None:
        return _ABSENT
    return f"(no document: {d.error})" if d.error else plain(d.body)


_Found = tuple[str, Any, Any, str]


def _compare(fs: Any, hadoop: Any, endpoint: str, path: str) -> _Found | None:
    """A boolean is not a number, an integer not a float (``1`` is not ``1.0``)."""
    if type(fs) is not type(hadoop):
        return (path, plain(fs), plain(hadoop), "type")
    if isinstance(hadoop, Pairs):
        return _compare_object(fs, hadoop, endpoint, path)
    if isinstance(hadoop, list):
        return _compare_array(fs, hadoop, endpoint, path)
    return None if fs == hadoop else (path, fs, hadoop, "value")


def _compare_object(fs: Pairs, hadoop: Pairs, endpoint: str, path: str) -> _Found | None:
    def kept(pairs: Pairs) -> list[tuple[str, Any]]:
        return [(k, v) for k, v in pairs if (endpoint, k) not in IGNORED]
    left, right = kept(fs), kept(hadoop)
    mine, theirs = [k for k, _ in left], [k for k, _ in right]
    if mine != theirs:  # from the first key where they part
        at = next((i for i, (a, b) in enumerate(zip(mine, theirs, strict=False))
                   if a != b),
                  min(len(mine), len(theirs)))
        where = f" (keys, after {mine[at - 1]!r})" if at else " (keys)"
        return (path + where, mine[at:at + 4] or "(none)", theirs[at:at + 4] or "(none)",
                "keys")
    for (key, a), (_, b) in zip(left, right, strict=True):
        here = f"{path}.{key}"
        if (endpoint, key) in HOST_ONLY and isinstance(a, str) and isinstance(b, str):
            a, b = a.rsplit(":", 1)[0] if ":" in a else a, b.rsplit(":", 1)[0]
        found = _compare(a, b, endpoint, here)
        if found is not None:
            return found
    return None


def _compare_array(fs: list[Any], hadoop: list[Any], endpoint: str, path: str
                   ) -> _Found | None:
    if len(fs) != len(hadoop):
        return (path + " (length)", len(fs), len(hadoop), "length")
    name = path.rsplit(".", 1)[-1]
    by = KEYED.get((endpoint, name))
    if by is not None:
        fs, hadoop = sorted(fs, key=_named(by)), sorted(hadoop, key=_named(by))
    for i, (a, b) in enumerate(zip(fs, hadoop, strict=True)):
        label = _label(b)
        found = _compare(a, b, endpoint, f"{path}[{i}]" + (f"({label})" if label else ""))
        if found is not None:
            return found
    return None


def _named(by: str) -> Callable[[Any], str]:
    return lambda item: str(dict(item).get(by, "")) if isinstance(item, Pairs) else ""


def _label(item: Any) -> str | None:
    """An item's name in a path: a queue's queueName, a node's or app's id."""
    if isinstance(item, Pairs):
        fields = dict(item)
        for name in ("queueName", "id", "name"):
            if isinstance(fields.get(name), str):
                return str(fields[name])
    return None


def plain(value: Any) -> Any:
    """A parsed value back as plain JSON (repeated keys become a list of [key, value])."""
    if isinstance(value, Pairs):
        keys = [k for k, _ in value]
        if len(set(keys)) < len(keys):
            return [[k, plain(v)] for k, v in value]
        return {k: plain(v) for k, v in value}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def show(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "…"


def ignored_fields() -> Mapping[str, str]:
    """Every field the comparison leaves out or compares in part, with its reason."""
    out = {f"{e}: {k}": why for (e, k), why in IGNORED.items()}
    out.update({f"{e}: {k} (host part)": why for (e, k), why in HOST_ONLY.items()})
    return out

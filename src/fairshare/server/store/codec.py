"""The state store's records as JSON documents, and back.

* A submission (:class:`~fairshare.server.submission.Submission`, YARN's
  ``ApplicationSubmissionContext``) is written field by field from its dataclass, resources
  by type name, and read back by the fields' types; a field a newer server added and an
  older record lacks takes its default.
* An app's RM record (:class:`~fairshare.server.rm.RMApp`: state, queue, attempts,
  resource-seconds — ``ApplicationStateData`` and its ``ApplicationAttemptStateData``) is
  written with its times in epoch ms, since the engine's own ms count from each start's
  cluster timestamp; read back, they are made relative to the new one (so they may be
  negative: before this start).

Resources are written by type name (``{"memory-mb": 1024, "vcores": 1}``); a type the site no
longer defines is dropped on reading, as YARN reads a resource of an unknown type.
"""

from __future__ import annotations

import dataclasses
import types as pytypes
import typing
from collections.abc import Mapping
from typing import Any

from fairshare.resources.vector import Resource, ResourceTypes
from fairshare.server.rm import RMApp, RMAttempt
from fairshare.server.submission import Submission

Record = dict[str, Any]


def resource_of(data: Mapping[str, int], types: ResourceTypes) -> Resource:
    return types.of({k: int(v) for k, v in data.items() if k in types.names})


# -- a submission, by its fields' types -------------------------------------------------------

def submission_json(submission: Submission, types: ResourceTypes) -> Record:
    out = _encode(submission, types)
    assert isinstance(out, dict)
    return out


def submission_of(data: Mapping[str, Any], types: ResourceTypes) -> Submission:
    value = _decode(Submission, data, types)
    assert isinstance(value, Submission)
    return value


def _encode(value: object, types: ResourceTypes) -> Any:
    if isinstance(value, Resource):
        return types.as_dict(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _encode(getattr(value, f.name), types)
                for f in dataclasses.fields(value)}
    if isinstance(value, tuple | list):
        return [_encode(v, types) for v in value]
    return value


def _decode(hint: Any, value: Any, types: ResourceTypes) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Resource:
        return resource_of(value, types)
    if origin in (typing.Union, pytypes.UnionType):
        if value is None and type(None) in args:
            return None
        return _decode(next(a for a in args if a is not type(None)), value, types)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_decode(args[0], v, types) for v in value)
        return tuple(_decode(a, v, types) for a, v in zip(args, value, strict=True))
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        hints = typing.get_type_hints(hint)
        fields = {f.name: _decode(hints[f.name], value[f.name], types)
                  for f in dataclasses.fields(hint) if f.name in value}
        return hint(**fields)
    return value


# -- an app's RM record ------------------------------------------------------------------------

def app_json(app_id: str, app: RMApp, cluster_timestamp: int, types: ResourceTypes) -> Record:
    """``app`` as the store keeps it (times in epoch ms; "not yet" as YARN's REST API
    writes it: -1 for the launch, 0 for the finish)."""
    ts = cluster_timestamp

    def at(ms: int | None, unset: int) -> int:
        return unset if ms is None else ts + ms

    return {
        "id": app_id, "submission": submission_json(app.submission, types),
        "queue": app.queue, "submitted_ms": ts + app.submitted_ms, "state": app.state,
        "rm_state": app.rm_state, "final_status": app.final_status,
        "diagnostics": app.diagnostics, "launched_ms": at(app.launched_ms, -1),
        "finished_ms": at(app.finished_ms, 0),
        "attempts": [{"number": a.number, "start_ms": ts + a.start_ms, "state": a.state,
                      "finish_ms": at(a.finish_ms, 0), "container": a.container,
                      "node": a.node} for a in app.attempts],
        "used_ms": dict(zip(types.names, app.used_ms, strict=True)),
        "preempted_ms": dict(zip(types.names, app.preempted_ms, strict=True)),
        "kill_diagnostics": app.kill_diagnostics, "exit_failures": app.exit_failures,
    }


def app_of(record: Mapping[str, Any], cluster_timestamp: int, types: ResourceTypes) -> RMApp:
    """The RM record of a stored app, its times relative to ``cluster_timestamp``."""
    ts = cluster_timestamp

    def at(ms: int, unset: int) -> int | None:
        return None if ms == unset else ms - ts

    def by_type(data: Mapping[str, int]) -> list[int]:
        return [int(data.get(name, 0)) for name in types.names]

    return RMApp(
        submission_of(record["submission"], types), record["queue"],
        record["submitted_ms"] - ts, state=record["state"], rm_state=record["rm_state"],
        final_status=record["final_status"], diagnostics=record["diagnostics"],
        launched_ms=at(record["launched_ms"], -1), finished_ms=at(record["finished_ms"], 0),
        attempts=[RMAttempt(a["number"], a["start_ms"] - ts, a["state"],
                            at(a["finish_ms"], 0), a["container"], a["node"])
                  for a in record["attempts"]],
        used_ms=by_type(record["used_ms"]), preempted_ms=by_type(record["preempted_ms"]),
        kill_diagnostics=record["kill_diagnostics"], exit_failures=record["exit_failures"])

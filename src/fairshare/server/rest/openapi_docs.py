"""What the OpenAPI document says of each route's responses and request bodies (the routes
write their bytes themselves, so FastAPI cannot infer them)."""

from __future__ import annotations

from typing import Any

from fairshare.server.rest.jersey import JSON_TYPE, XML_TYPE
from fairshare.server.rest.submit import AM_CONTAINER_SPEC

_DOC = {"type": "object", "description": "the DAO in Jersey's natural JSON notation"}
_XML = {"type": "string", "description": "the DAO as JAXB writes it"}
_REMOTE = {"type": "object", "properties": {"RemoteException": {
    "type": "object", "properties": {"exception": {"type": "string"},
                                     "message": {"type": "string"},
                                     "javaClassName": {"type": "string"}}}}}

_MEANING = {
    200: "the document (JSON by default, XML for Accept: application/xml)",
    202: "accepted: empty for a submission (Location: the app), the app's RMAppState for a "
         "kill still in progress (Location: this URL)",
    400: "BadRequestException / IllegalArgumentException: a malformed id, parameter or body",
    403: "the caller may not kill or move the app, or (yarn.acl.enable true) the target "
         "queue does not exist (a plain-text message)",
    404: "NotFoundException: no such app or node",
    406: "the request accepts neither JSON nor XML (empty)",
    503: "UndeclaredThrowableException: the Fair Scheduler does not change priorities, or "
         "refused a move (no such leaf queue, a limit it would break); "
         "WebApplicationException: the body is neither application/json nor application/xml",
}


def responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of a route answering ``codes`` (and 406, as every route may)."""
    out: dict[int | str, dict[str, Any]] = {}
    for code in (*codes, 406):
        entry: dict[str, Any] = {"description": _MEANING[code]}
        if code in (200, 202):
            entry["content"] = {JSON_TYPE: {"schema": _DOC}, XML_TYPE: {"schema": _XML}}
        elif code in (400, 404, 503):
            entry["content"] = {JSON_TYPE: {"schema": _REMOTE}, XML_TYPE: {"schema": _XML}}
        elif code == 403:
            entry["content"] = {JSON_TYPE: {"schema": {"type": "string"}}}
        out[code] = entry
    return out


_OWN_MEANING = {
    200: "the answer (JSON)",
    204: "done (empty)",
    400: "BadRequestException (or the AM protocol's YARN exception): a malformed parameter "
         "or body, the field named",
    401: "AuthorizationException: no Authorization: Bearer token of a live attempt",
    403: "ForbiddenException: with yarn.acl.enable, only yarn.admin.acl may manage nodes",
    404: "NotFoundException: no such app, container or node",
    413: "WebApplicationException: the body is larger than the server reads (docs/serve.md)",
}


def own_responses(*codes: int, stream: bool = False) -> dict[int | str, dict[str, Any]]:
    """The ``responses`` of one of fairshare's own routes (the extensions, the AM protocol):
    JSON always (they do not negotiate), errors as a ``RemoteException``."""
    out: dict[int | str, dict[str, Any]] = {}
    for code in codes:
        entry: dict[str, Any] = {"description": _OWN_MEANING[code]}
        if code == 200:
            entry["content"] = ({"text/event-stream": {"schema": {"type": "string"}}}
                                if stream else {JSON_TYPE: {"schema": _DOC}})
        elif code != 204:
            entry["content"] = {JSON_TYPE: {"schema": _REMOTE}}
        out[code] = entry
    return out


def _body(root: str, example: dict[str, Any], description: str) -> dict[str, Any]:
    return {"required": True, "description": description, "content": {
        "application/json": {"schema": {"type": "object"}, "example": example},
        "application/xml": {"schema": {"type": "string",
                                       "description": f"the same under <{root}>"}}}}


BODIES: dict[str, dict[str, Any]] = {
    "submission": _body("application-submission-context", {
        "application-id": "application_1796153631387_0002", "application-name": "etl",
        "queue": "root.a", "priority": 0, "resource": {"memory": 1024, "vCores": 1},
        AM_CONTAINER_SPEC: {"commands": {"command": "sleep 100"}},
        "application-type": "YARN", "application-tags": {"tag": ["nightly"]},
        "fairshare": {"tasks": [{"count": 4, "memory-mb": 1024, "vcores": 1,
                                 "duration-ms": 60000, "priority": 20}]}},
        "YARN's ApplicationSubmissionContextInfo, plus fairshare's optional \"fairshare\" "
        "object (or application-tags fairshare.tasks=4x1024m/1@60s): docs/rest.md"),
    "appstate": _body("appstate", {"state": "KILLED", "diagnostics": "no longer needed"},
                      "AppState: only KILLED may be asked for"),
    "appqueue": _body("appqueue", {"queue": "root.b"}, "AppQueue: the target leaf queue"),
    "applicationpriority": _body("applicationpriority", {"priority": 5},
                                 "AppPriority: the target priority"),
}

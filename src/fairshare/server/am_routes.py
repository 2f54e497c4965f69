"""The AM protocol over REST: ``am_router(hub)``, mounted by the server under
``/ws/v1/fairshare/am`` (docs/am-protocol.md gives the bodies).

``POST /register``, ``POST /allocate``, ``POST /containers/{container_id}/start`` and
``POST /unregister``, each with ``Authorization: Bearer <the attempt's token>`` (the AM's
``FAIRSHARE_AM_TOKEN``). The bodies are JSON in YARN's names (``ApplicationMasterProtocol``'s
records: ``RegisterApplicationMasterRequest``, ``AllocateRequest``/``AllocateResponse``,
``FinishApplicationMasterRequest``); resources as the REST API writes them (``memory``,
``vCores``, other types by name). A refusal is YARN's exception as a ``RemoteException`` body;
a body that does not parse is a 400 naming the field.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from fairshare.core import ANY, ContainerRequest
from fairshare.resources.vector import LONG_MAX, Resource, ResourceTypes
from fairshare.server.am import AMHub
from fairshare.server.am_state import AllocateResult, Attempt
from fairshare.server.control import Refused, bad_request
from fairshare.server.rest.body import check_json_text
from fairshare.server.rest.openapi_docs import own_responses

PREFIX = "/ws/v1/fairshare/am"
FINAL_STATUSES = ("SUCCEEDED", "FAILED", "KILLED", "UNDEFINED")  # FinalApplicationStatus
T = TypeVar("T")
# what the OpenAPI document says of each route (the bodies are docs/am-protocol.md's)
RESPONSES = own_responses(200, 400, 401, 404)
BODY = {"requestBody": {"required": False, "content": {"application/json": {"schema": {
    "type": "object", "description": "the request record in YARN's names "
    "(docs/am-protocol.md)"}}}}}


def am_router(hub: AMHub) -> APIRouter:
    """The AM protocol's routes (mount with ``app.include_router(am_router(hub),
    prefix=PREFIX)``)."""
    router = APIRouter()

    @router.post("/register", responses=RESPONSES, openapi_extra=BODY)
    async def register(request: Request) -> JSONResponse:
        async def act(attempt: Attempt, body: Mapping[str, Any]) -> object:
            host = _text(body, "host", "")
            port = _int(body, "rpcPort", -1)
            url = _text(body, "trackingUrl", "")
            answer = await run_in_threadpool(hub.register, attempt, host, port, url)
            return {"applicationId": attempt.app, "appAttemptId": attempt.attempt_id,
                    "maximumResourceCapability": resource_json(hub.maximum_allocation,
                                                               hub.types), **answer}
        return await _handle(hub, request, act)

    @router.post("/allocate", responses=RESPONSES, openapi_extra=BODY)
    async def allocate(request: Request) -> JSONResponse:
        async def act(attempt: Attempt, body: Mapping[str, Any]) -> object:
            asks = [parse_ask(a, hub.types, i) for i, a in enumerate(_list(body, "asks"))]
            releases = [_id(r, f"releases[{i}]") for i, r in enumerate(_list(body, "releases"))]
            progress = body.get("progress", 0.0)
            if not isinstance(progress, int | float) or isinstance(progress, bool):
                raise bad_request("progress must be a number between 0 and 1")
            result = await run_in_threadpool(hub.allocate, attempt, asks, releases,
                                             float(progress))
            return allocate_json(result, hub.types)
        return await _handle(hub, request, act)

    @router.post("/containers/{container_id}/start", responses=RESPONSES, openapi_extra=BODY)
    async def start(container_id: str, request: Request) -> JSONResponse:
        async def act(attempt: Attempt, body: Mapping[str, Any]) -> object:
            command = body.get("command")
            if not isinstance(command, str) or not command.strip():
                raise bad_request("command must be a non-empty string")
            env = body.get("environment", {})
            if not isinstance(env, dict) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
                raise bad_request("environment must be an object of strings")
            await run_in_threadpool(hub.start_container, attempt, container_id, command, env)
            return {"containerId": container_id, "state": "RUNNING"}
        return await _handle(hub, request, act)

    @router.post("/unregister", responses=RESPONSES, openapi_extra=BODY)
    async def unregister(request: Request) -> JSONResponse:
        async def act(attempt: Attempt, body: Mapping[str, Any]) -> object:
            final = body.get("finalApplicationStatus", "UNDEFINED")
            if final not in FINAL_STATUSES:
                raise bad_request(f"finalApplicationStatus must be one of "
                                  f"{', '.join(FINAL_STATUSES)}")
            diagnostics = _text(body, "diagnostics", "")
            url = _text(body, "trackingUrl", "")
            await run_in_threadpool(hub.unregister, attempt, str(final), diagnostics, url)
            return {"isUnregistered": True}
        return await _handle(hub, request, act)

    return router


Action = Callable[[Attempt, Mapping[str, Any]], Any]


async def _handle(hub: AMHub, request: Request, act: Action) -> JSONResponse:
    try:
        attempt = hub.attempt_of(_bearer(request))
        raw = await request.body()
        try:
            body = json.loads(raw) if raw.strip() else {}
        except (ValueError, RecursionError) as e:  # (not UTF-8, not JSON, nested too deep)
            raise bad_request(f"the body is not JSON: {e}") from None
        if not isinstance(body, dict):
            raise bad_request("the body must be a JSON object")
        check_json_text(body)  # no lone surrogate, no NUL into the engine (docs/serve.md)
        return JSONResponse(await act(attempt, body))
    except Refused as e:
        return refusal(e)


def refusal(e: Refused) -> JSONResponse:
    """``GenericExceptionHandler``'s body for a refused request."""
    return JSONResponse({"RemoteException": {"exception": e.exception, "message": e.message,
                                             "javaClassName": e.java_class}},
                        status_code=e.status)


def _bearer(request: Request) -> str:
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Refused(401, "AuthorizationException",
                      "org.apache.hadoop.security.authorize.AuthorizationException",
                      "the AM protocol needs 'Authorization: Bearer <FAIRSHARE_AM_TOKEN>'")
    return token.strip()


# -- bodies ------------------------------------------------------------------------------------

def parse_ask(value: object, types: ResourceTypes, index: int) -> ContainerRequest:
    """One ask: ``count`` containers of ``resource`` at ``priority``, at a ``node`` (its id,
    host:port) or a ``rack``, or anywhere (``AMRMClient.ContainerRequest``)."""
    where = f"asks[{index}]"
    if not isinstance(value, dict):
        raise bad_request(f"{where} must be an object")
    count = _int(value, "count", None, where)
    if count < 1:
        raise bad_request(f"{where}.count must be at least 1")
    priority = _int(value, "priority", 1, where)
    if priority < 0:
        raise bad_request(f"{where}.priority must not be negative")
    node, rack = value.get("node"), value.get("rack")
    if node is not None and rack is not None:
        raise bad_request(f"{where}: give a node or a rack, not both")
    locality = node if node is not None else rack if rack is not None else ANY
    if not isinstance(locality, str) or not locality:
        raise bad_request(f"{where}: node and rack must be non-empty strings")
    relax = value.get("relaxLocality", True)
    if not isinstance(relax, bool):
        raise bad_request(f"{where}.relaxLocality must be true or false")
    resource = parse_resource(value.get("resource"), types, f"{where}.resource")
    return ContainerRequest(count, resource, priority, locality, relax)


def parse_resource(value: object, types: ResourceTypes, where: str) -> Resource:
    if not isinstance(value, dict):
        raise bad_request(f"{where} must be an object with memory and vCores")
    named: dict[str, int] = {}
    for key, amount in value.items():
        name = {"memory": "memory-mb", "vCores": "vcores"}.get(key, key)
        if name not in types.names:
            raise bad_request(f"{where}: unknown resource type {key!r}")
        # a ResourceInformation's value is a Java long
        if not isinstance(amount, int) or isinstance(amount, bool) or not 0 <= amount <= LONG_MAX:
            raise bad_request(f"{where}.{key} must be a non-negative integer (a Java long)")
        named[name] = amount
    if "memory-mb" not in named or "vcores" not in named:
        raise bad_request(f"{where} needs memory and vCores")
    return types.of(named)


def resource_json(resource: Resource, types: ResourceTypes) -> dict[str, int]:
    out = {"memory": resource.memory, "vCores": resource.vcores}
    out.update({name: v for name, v in zip(types.names[2:], resource.values[2:], strict=True)})
    return out


def allocate_json(result: AllocateResult, types: ResourceTypes) -> dict[str, object]:
    """``AllocateResponse`` in JSON: ``preempt`` only when some container is to be preempted
    (a ``PreemptionMessage`` with a ``StrictPreemptionContract``, FairScheduler's)."""
    out: dict[str, object] = {
        "responseId": result.response_id,
        "allocatedContainers": [
            {"id": c.id, "nodeId": c.node, "nodeHttpAddress": c.node_http_address,
             "resource": resource_json(c.resource, types), "priority": c.priority}
            for c in result.allocated],
        "completedContainersStatuses": [
            {"containerId": s.id, "state": "COMPLETE", "exitStatus": s.exit_status,
             "diagnostics": s.diagnostics} for s in result.completed],
    }
    if result.to_preempt:
        out["preempt"] = {"strictContract": {"containers": [{"id": c}
                                                            for c in result.to_preempt]}}
    return out


def _list(body: Mapping[str, Any], key: str) -> list[object]:
    value = body.get(key, [])
    if not isinstance(value, list):
        raise bad_request(f"{key} must be a list")
    return value


def _id(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.startswith("container_"):
        raise bad_request(f"{where} must be a container id (container_…)")
    return value


def _text(body: Mapping[str, Any], key: str, default: str) -> str:
    value = body.get(key, default)
    if not isinstance(value, str):
        raise bad_request(f"{key} must be a string")
    return value


def _int(body: Mapping[str, Any], key: str, default: int | None, where: str = "") -> int:
    value = body.get(key, default)
    name = f"{where}.{key}" if where else key
    if value is None:
        raise bad_request(f"{name} is required")
    # ResourceRequest's numContainers, Priority's priority, the RPC port: Java ints
    if not isinstance(value, int) or isinstance(value, bool) \
            or not -(2 ** 31) <= value < 2 ** 31:
        raise bad_request(f"{name} must be an integer (a Java int)")
    return value

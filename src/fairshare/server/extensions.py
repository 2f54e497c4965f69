"""fairshare's own endpoints, beside YARN's, under ``/ws/v1/fairshare``: the event stream
(server-sent events), the engine's snapshot, and node management for the virtual executor.

They answer errors the way YARN's endpoints do (a ``RemoteException`` body, YARN's status
codes), so one client error handler serves both. Node management administers the cluster: with
``yarn.acl.enable`` it needs ``yarn.admin.acl``, as YARN's own node resource update does
(``RMWebServices.updateNodeResource``: 403 ``Only admins can carry out this operation.``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Annotated, Any

from fastapi import APIRouter, Body, Header, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from fairshare.resources.vector import LONG_MAX, Resource, ResourceTypes
from fairshare.server.authorize import Authorizer
from fairshare.server.control import Refused, bad_request
from fairshare.server.loop import EngineLoop, NodeSpec
from fairshare.server.rest.body import check_json_text, escaped
from fairshare.server.rest.negotiate import refusal
from fairshare.server.rest.openapi_docs import own_responses
from fairshare.server.view import engine_container_id

PREFIX = "/ws/v1/fairshare"
WAIT_S = 2.0  # how long one wait for new events lasts: shutdown is noticed this fast
KEEP_ALIVE_S = 15.0  # a comment line this often on a quiet stream, so proxies keep it open


def extensions_router(loop: EngineLoop, authorizer: Authorizer | None = None,
                      caller: Callable[[Request], str] | None = None) -> APIRouter:
    """The extensions over ``loop``; node management asks ``authorizer`` whether ``caller``
    (the REST API's authenticated user of a request) administers the cluster."""
    router = APIRouter(prefix=PREFIX, tags=["fairshare"])
    types = loop.engine.types

    def not_admin(request: Request) -> Response | None:
        """The refusal for a caller who may not administer the cluster, else None."""
        if authorizer is None or caller is None:
            return None
        try:
            authorizer.check_admin(caller(request))
        except Refused as refused:
            return refusal(request, refused)
        return None

    @router.get("/events", summary="The engine's events as server-sent events",
                response_class=StreamingResponse,
                responses=own_responses(200, 400, stream=True))
    async def events(
        since: Annotated[int | None, Query(
            description="Events after this seq (default: Last-Event-ID, else the oldest kept)",
            ge=0)] = None,
        limit: Annotated[int | None, Query(
            description="End the stream after this many events", ge=1)] = None,
        last_event_id: Annotated[str | None, Header()] = None,
    ) -> StreamingResponse:
        start = since if since is not None else _last_id(last_event_id)
        return StreamingResponse(_stream(loop, start, limit), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    @router.get("/snapshot", summary="The engine's state, as a scenario's snapshot step "
                "records it (docs/scenario-format.md)", responses=own_responses(200))
    def snapshot() -> JSONResponse:
        return JSONResponse(loop.scenario_snapshot())

    @router.get("/loop", summary="The engine loop's counters: its clock, the heartbeats "
                "applied, how late it took what was due")
    def loop_counters() -> JSONResponse:
        return JSONResponse({"clock-ms": loop.clock.engine_ms(), "engine-ms": loop.engine.now,
                             "heartbeats": loop.heartbeats, "lag-ms": loop.lag_ms,
                             "max-lag-ms": loop.max_lag_ms})

    @router.get("/apps/{app_id}/explain", summary="Why an app waited, ran, was preempted: "
                "fairshare explain on the session's outputs", responses=own_responses(200, 404))
    def explain_app(app_id: str) -> JSONResponse:
        return JSONResponse(loop.explain_json(app_id, "app"))

    @router.get("/containers/{container_id}/explain",
                summary="Why a container was placed where it was, or preempted",
                responses=own_responses(200, 404))
    def explain_container(container_id: str) -> JSONResponse:
        return JSONResponse(loop.explain_json(engine_container_id(container_id), "container"))

    @router.post("/nodes", summary="A NodeManager joins (virtual executor)", status_code=200,
                 responses=own_responses(200, 400, 403))
    def add_node(request: Request, body: Annotated[dict[str, Any], Body(examples=[{
            "id": "node9:45454", "rack": "/default-rack",
            "resource": {"memory-mb": 8192, "vcores": 8}}])]) -> Response:
        if (denied := not_admin(request)) is not None:
            return denied
        node_id = body.get("id")
        rack = body.get("rack", "/default-rack")
        if not isinstance(node_id, str) or not node_id or not isinstance(rack, str):
            raise bad_request("a node is {\"id\": \"host:port\", \"resource\": {...}, "
                              "\"rack\": \"/rack\"}")
        # text the events, the session's files and the answers could not write is refused
        # here: past this point it would stop the engine thread (docs/serve.md, "Bad input")
        check_json_text(body)
        if not rack.startswith("/"):
            raise bad_request(f"rack {rack!r}: a rack starts with '/'")
        loop.add_node(NodeSpec(node_id, _resource(body.get("resource"), types), rack))
        return JSONResponse({"node": node_id})

    @router.delete("/nodes/{node_id}", summary="A NodeManager is lost (virtual executor)",
                   status_code=204, responses=own_responses(204, 400, 403, 404))
    def remove_node(request: Request, node_id: str) -> Response:
        if (denied := not_admin(request)) is not None:
            return denied
        loop.remove_node(node_id)
        return Response(status_code=204)

    @router.put("/nodes/{node_id}/resource", summary="A NodeManager's total changes",
                responses=own_responses(200, 400, 403, 404))
    def resize_node(request: Request, node_id: str,
                    body: Annotated[dict[str, Any], Body()]) -> Response:
        if (denied := not_admin(request)) is not None:
            return denied
        check_json_text(body)
        capacity = _resource(body.get("resource"), types)
        loop.resize_node(node_id, capacity)
        return JSONResponse({"node": node_id})

    @router.post("/nodes/{node_id}/decommission",
                 summary="Graceful decommission, with an optional timeout (ms)",
                 responses=own_responses(200, 400, 403, 404))
    def decommission(request: Request, node_id: str,
                     body: Annotated[dict[str, Any] | None, Body()] = None) -> Response:
        if (denied := not_admin(request)) is not None:
            return denied
        timeout = (body or {}).get("timeout-ms")
        if timeout is not None and (not isinstance(timeout, int) or isinstance(timeout, bool)
                                    or not 0 <= timeout <= LONG_MAX):
            raise bad_request("timeout-ms: expected a whole number of milliseconds, or null")
        loop.decommission_node(node_id, timeout)
        return JSONResponse({"node": node_id})

    return router


def _last_id(header: str | None) -> int:
    # isdigit alone takes "²", which int() does not
    return int(header) if header is not None and header.isascii() and header.isdigit() else 0


async def _stream(loop: EngineLoop, seq: int, limit: int | None) -> AsyncIterator[str]:
    sent, quiet = 0, 0.0
    while True:
        batch = await run_in_threadpool(loop.events_since, seq, WAIT_S)
        if not batch:
            quiet += WAIT_S
            if quiet >= KEEP_ALIVE_S:
                quiet = 0.0
                yield ": keep-alive\n\n"
            continue
        quiet = 0.0
        for event in batch:
            yield f"id: {event.seq}\nevent: {event.type}\ndata: {event.data}\n\n"
            seq, sent = event.seq, sent + 1
            if limit is not None and sent >= limit:
                return


def _resource(value: object, types: ResourceTypes) -> Resource:
    """``{"memory-mb": 8192, "vcores": 8, …}`` in the cluster's resource types."""
    if not isinstance(value, Mapping) or not value:
        raise bad_request("resource: expected {\"memory-mb\": MB, \"vcores\": N, ...}")
    amounts: dict[str, int] = {}
    for name, amount in value.items():
        if name not in types.names:
            raise bad_request(f"resource: unknown resource type {escaped(repr(name))}; this "
                              f"cluster has {', '.join(types.names)}")
        # a ResourceInformation's value is a Java long
        if not isinstance(amount, int) or isinstance(amount, bool) \
                or not 0 <= amount <= LONG_MAX:
            raise bad_request(f"resource.{name}: expected a whole number from 0 to {LONG_MAX}")
        amounts[name] = amount
    return types.of(amounts)

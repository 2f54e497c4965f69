"""The FastAPI app serving YARN's REST API v1 under ``/ws/v1/cluster`` (docs/rest.md).

Every route reads the latest :class:`~fairshare.server.view.ServerSnapshot` or asks the
:class:`~fairshare.server.control.Control` for a change, and answers as ``RMWebServices``
does: the document of its DAO (``daos``) in the format the request accepts, YARN's status
codes, ``GenericExceptionHandler``'s ``RemoteException`` for a refusal; who may do what is
the :class:`~fairshare.server.authorize.Authorizer`'s to say, asked where the RM asks. Routes
run in the threadpool (the control's calls block until the engine thread applied them); nothing a
request sends can make a route fail with a 500 — an unexpected error is answered as the RM's
catch-all, a 503.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from fastapi import APIRouter, Depends, FastAPI, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.types import ASGIApp, Receive, Scope, Send

from fairshare.server.auth import Authenticate, Authenticator, PseudoAuth, caller_of
from fairshare.server.authorize import Authorizer
from fairshare.server.control import Control, Refused, bad_request, not_found
from fairshare.server.rest import daos
from fairshare.server.rest.body import (
    Fields,
    checked_text,
    escaped,
    integer,
    parse_body,
    text,
)
from fairshare.server.rest.dao_apps import ENDED, apps_answer, selected
from fairshare.server.rest.dao_cluster import (
    info_answer,
    max_container_allocation,
    metrics_answer,
    scheduler_answer,
)
from fairshare.server.rest.dao_nodes import nodes_answer
from fairshare.server.rest.ids import canonical_app_id, canonical_node_id
from fairshare.server.rest.limits import BodyLimit
from fairshare.server.rest.negotiate import (
    JerseyResponse,
    XmlResponse,
    answer_of,
    hadoop_headers,
    refusal,
    render,
    wants_xml,
)
from fairshare.server.rest.openapi_docs import BODIES, own_responses, responses
from fairshare.server.rest.query import apps_query, node_states, parse_deselects
from fairshare.server.rest.submit import (
    check_am_resource,
    jersey_refusal,
    media_type,
    parse_submission,
    unsupported_media_type,
)
from fairshare.server.view import RM_VERSION, RMAppView, ServerSnapshot

BASE = "/ws/v1/cluster"
log = logging.getLogger(__name__)


async def _user_name(user_name: str | None = Query(
        None, alias="user.name", description="the caller (simple authentication); "
        "without it, the cookie it set, else the static user dr.who")) -> str | None:
    return user_name


class _TrailingSlash:
    """Jersey matches ``/apps/`` as ``/apps``: strip the slash before routing — under
    ``/ws/`` only (the web services): the pages' router adds a slash where a page wants one
    (``/queue/`` is the queue page of no name), and stripping it there looped, 307 after 307."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] == "http" and path.startswith("/ws/") and path.endswith("/"):
            scope = dict(scope, path=path.rstrip("/") or "/")
        await self.app(scope, receive, send)


class _Routes:
    """The handlers, over one control and one authorizer (None: no checks, everyone may do
    everything, as YARN with ``yarn.acl.enable`` false); the caller is the one the
    authentication middleware named (``caller_of``)."""

    def __init__(self, control: Control, authorizer: Authorizer | None = None) -> None:
        self.control = control
        self.authz = authorizer

    def can_view(self, caller: str) -> Callable[[RMAppView], bool] | None:
        """Whether ``caller`` sees an app's full report (``RMWebServices.hasAccess``)."""
        authz = self.authz
        if authz is None:
            return None
        return lambda app: authz.can_view(caller, app)

    # -- the frame every answer goes through ---------------------------------------------

    def answer(self, request: Request, build: Callable[[str], Response]) -> Response:
        try:
            response = build(caller_of(request).user)
        except Refused as refused:
            response = refusal(request, refused)
        except Exception:  # a fault of ours: never a traceback, the RM's catch-all instead
            log.exception("REST request %s %s failed", request.method, request.url.path)
            response = refusal(request, _catch_all())
        response.headers.update(hadoop_headers())
        return response

    async def answer_body(self, request: Request, build: Callable[[str, bytes], Response]
                          ) -> Response:
        body = await request.body()
        return await run_in_threadpool(self.answer, request, lambda caller: build(caller, body))

    def snapshot(self) -> ServerSnapshot:
        return self.control.snapshot()

    @staticmethod
    def find_app(s: ServerSnapshot, raw: str) -> RMAppView:
        """``getRMAppForAppId``: 400 for an id YARN cannot read, 404 for an unknown one."""
        found = s.app(canonical_app_id(raw))
        if found is None:
            raise not_found(f"app with id: {raw} not found")
        return found

    @staticmethod
    def address(request: Request) -> str:
        return request.headers.get("host") or f"{request.url.hostname}:{request.url.port}"

    @staticmethod
    def url(request: Request) -> str:
        """``HttpServletRequest.getRequestURL``: no query string."""
        return f"{request.url.scheme}://{request.url.netloc}{request.url.path}"

    @staticmethod
    def put_body(request: Request, body: bytes, root: str) -> Fields:
        kind = media_type(request.headers.get("content-type", ""))
        if kind is None:
            raise unsupported_media_type()
        return parse_body(body, kind, root)


def create_rest_app(control: Control, *, authorizer: Authorizer | None = None,
                    auth: Authenticator | None = None, own_auth: tuple[str, ...] = ()
                    ) -> FastAPI:
    """The REST API over ``control``: ``/ws/v1/cluster/…`` and the OpenAPI document at
    ``/openapi.json``; every request of the app (and of what is added to it) authenticated by
    ``auth`` (simple authentication by default), but those under ``own_auth``'s paths;
    ``authorizer`` decides who may do what."""
    app = FastAPI(title="fairshare serve — YARN ResourceManager REST API v1",
                  version=RM_VERSION, redirect_slashes=False,
                  description="Hadoop 3.4's RM REST API as fairshare serves it (docs/rest.md).")
    routes = _Routes(control, authorizer)
    router = APIRouter(prefix=BASE, dependencies=[Depends(_user_name)])
    _cluster_routes(router, routes)
    _app_routes(router, routes)
    _write_routes(router, routes)
    _unmatched_routes(router, routes)
    app.include_router(router)
    _errors(app, router)
    app.add_middleware(_TrailingSlash)
    app.add_middleware(Authenticate, authenticator=auth or PseudoAuth(), own_auth=own_auth)
    app.add_middleware(BodyLimit)  # outermost: no route reads a body past the limit
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    return app


def _get(router: APIRouter, path: str, summary: str, *errors: int,
         name: str | None = None) -> Callable[[Any], Any]:
    return router.get(path, summary=summary, response_class=JerseyResponse,
                      responses=responses(200, *errors), name=name)


# A handler is ``async def`` (run on the event loop) where its answer is made from a snapshot
# in well under a millisecond (one app, one node, the memo's /scheduler, /metrics, /info, an
# id): a hop to a worker thread and back is two hand-overs of the GIL, which cost more than the
# answer and are the first to wait under load (bench/serve_load.py; so is the router's
# dependency). The lists of every app and node (tens of ms for a new snapshot) and the writes
# (they wait for the engine thread) stay plain ``def``, on worker threads: they never stop
# the loop.
def _cluster_routes(router: APIRouter, r: _Routes) -> None:
    for path in ("", "/info"):
        @_get(router, path, "ClusterInfo: the RM's id, state and versions",
              name=f"cluster_info{path.replace('/', '_')}")
        async def info(request: Request) -> Response:
            return r.answer(request, lambda _: answer_of(
                request, lambda xml: info_answer(r.snapshot(), xml)))

    @_get(router, "/metrics", "ClusterMetricsInfo: the root queue's metrics and node counts")
    async def metrics(request: Request) -> Response:
        return r.answer(request, lambda _: answer_of(
            request, lambda xml: metrics_answer(r.snapshot(), xml)))

    @_get(router, "/scheduler", "SchedulerTypeInfo: the fairScheduler queue tree")
    async def scheduler(request: Request) -> Response:
        return r.answer(request, lambda _: answer_of(
            request, lambda xml: scheduler_answer(r.snapshot(), xml)))

    @_get(router, "/scheduler/activities", "ActivitiesInfo: 'Not Capacity Scheduler'")
    async def activities(request: Request) -> Response:
        return r.answer(request, lambda _: render(request, daos.activities_not_capacity()))

    @_get(router, "/nodes", "NodesInfo: the nodes in the given states (all by default)", 400)
    def nodes(request: Request, states: str | None = Query(
            None, description="comma-separated NodeStates (RUNNING, LOST, …)")) -> Response:
        def build(_: str) -> Response:
            s = r.snapshot()
            wanted = node_states(states)
            # once per snapshot, JSON from the nodes' kept texts
            return answer_of(request, lambda xml: nodes_answer(s, wanted, xml=xml))
        return r.answer(request, build)

    @_get(router, "/nodes/{node_id}", "NodeInfo: one node", 400, 404)
    async def node(request: Request, node_id: str) -> Response:
        def build(_: str) -> Response:
            s = r.snapshot()
            found = s.node(canonical_node_id(node_id))
            if found is None:
                raise not_found(f"nodeId, {node_id}, is not found")
            return render(request, daos.node(s, found))
        return r.answer(request, build)


def _app_routes(router: APIRouter, r: _Routes) -> None:
    @router.get("/apps/new-application", include_in_schema=False)
    async def new_application_get(request: Request) -> Response:
        # Jersey prefers the literal path over /apps/{appid}: its 405, answered by the RM as
        # every Jersey refusal (_unmatched_routes)
        def build(_: str) -> Response:
            raise jersey_refusal()
        return r.answer(request, build)

    @_get(router, "/apps", "AppsInfo: the apps that pass every filter", 400)
    def list_apps(
        request: Request,
        state: str | None = Query(None, description="deprecated: one state"),
        states: list[str] | None = Query(None, description="YarnApplicationStates, "
                                         "comma-separated"),
        final_status: str | None = Query(None, alias="finalStatus"),
        user: str | None = Query(None), queue: str | None = Query(None),
        limit: str | None = Query(None, description="at most this many (> 0)"),
        started_begin: str | None = Query(None, alias="startedTimeBegin"),
        started_end: str | None = Query(None, alias="startedTimeEnd"),
        finished_begin: str | None = Query(None, alias="finishedTimeBegin"),
        finished_end: str | None = Query(None, alias="finishedTimeEnd"),
        application_types: list[str] | None = Query(None, alias="applicationTypes"),
        application_tags: list[str] | None = Query(None, alias="applicationTags"),
        name: str | None = Query(None),
        deselects: list[str] | None = Query(None, alias="deSelects", description=(
            "resourceRequests, timeouts, appNodeLabelExpression, amNodeLabelExpression, "
            "resourceInfo")),
    ) -> Response:
        def build(caller: str) -> Response:
            query = apps_query(
                state=state, states=states or [], final_status=final_status, user=user,
                queue=queue, limit=limit, started_begin=started_begin, started_end=started_end,
                finished_begin=finished_begin, finished_end=finished_end,
                application_types=application_types or [],
                application_tags=application_tags or [], name=name,
                deselects=deselects or [])
            s = r.snapshot()
            chosen = selected(s, query, query.select)
            address, access = r.address(request), r.can_view(caller)
            # once per snapshot, query, format, Host and view of the apps; JSON from the
            # ended apps' kept texts
            return answer_of(request, lambda xml: apps_answer(
                s, query, chosen, caller=caller, deselects=query.deselects,
                rm_address=address, access=access, xml=xml))
        return r.answer(request, build)

    @_get(router, "/apps/{app_id}", "AppInfo: one app", 400, 404)
    async def one_app(request: Request, app_id: str, deselects: list[str] | None = Query(
            None, alias="deSelects")) -> Response:
        def build(caller: str) -> Response:
            chosen = parse_deselects(deselects or [])
            s = r.snapshot()
            return render(request, daos.app(s, r.find_app(s, app_id), caller=caller,
                                            deselects=chosen, rm_address=r.address(request),
                                            access=r.can_view(caller)))
        return r.answer(request, build)

    @_get(router, "/apps/{app_id}/appattempts", "AppAttemptsInfo: the app's attempts",
          400, 404)
    async def attempts(request: Request, app_id: str) -> Response:
        def build(caller: str) -> Response:
            s = r.snapshot()
            return render(request, daos.app_attempts(s, r.find_app(s, app_id), caller=caller,
                                                     access=r.can_view(caller)))
        return r.answer(request, build)

    def read(path: str, summary: str, doc: Callable[[RMAppView], Any]) -> None:
        @_get(router, path, summary, 400, 404, name=f"app_{path.rsplit('/', 1)[-1]}")
        async def handler(request: Request, app_id: str) -> Response:
            return r.answer(request, lambda _: render(
                request, doc(r.find_app(r.snapshot(), app_id))))

    read("/apps/{app_id}/state", "AppState: the app's RMAppState",
         lambda a: daos.app_state(a.rm_state))
    read("/apps/{app_id}/queue", "AppQueue: the app's queue", lambda a: daos.app_queue(a.queue))
    read("/apps/{app_id}/priority", "AppPriority: the app's priority",
         lambda a: daos.app_priority(a.priority))


def _write_routes(router: APIRouter, r: _Routes) -> None:
    @router.post("/apps/new-application", summary="NewApplication: an id to submit with",
                 response_class=JerseyResponse, responses=responses(200))
    async def new_application(request: Request) -> Response:
        def build(_: str) -> Response:
            app_id, most = r.control.new_application()
            return render(request, daos.new_application(app_id, most, r.snapshot().types))
        return r.answer(request, build)

    @router.post("/apps", summary="Submit: 202, empty, Location: …/apps/{id}",
                 status_code=202, responses=responses(202, 400, 503),
                 openapi_extra={"requestBody": BODIES["submission"]})
    async def submit(request: Request) -> Response:
        def build(caller: str, body: bytes) -> Response:
            checked_text(caller, "user.name")  # stored with the app, written in every answer
            s = r.snapshot()
            sub = parse_submission(body, request.headers.get("content-type", ""), caller,
                                   s.types)
            # YARN checks the AM's resource against the placed queue's maximum; the engine
            # places the app after this, so the named queue's (FSQueue names: root.-prefixed)
            queue = (sub.queue if sub.queue == "root" or sub.queue.startswith("root.")
                     else f"root.{sub.queue}")
            check_am_resource(sub, max_container_allocation(s, queue), s.types)
            if r.authz is not None:
                r.authz.check_submit(sub, known=s.app(sub.application_id) is not None)
            r.control.submit(sub)
            if r.authz is not None:
                r.authz.remember(sub)
            # no entity, but Jersey still names the type it negotiated (a Hadoop 3.4 RM
            # answers application/json;charset=utf-8 with Content-Length 0)
            kind = XmlResponse if wants_xml(request) else JerseyResponse
            return kind(b"", status_code=202,
                        headers={"Location": f"{r.url(request)}/{sub.application_id}"})
        return await r.answer_body(request, build)

    @router.put("/apps/{app_id}/state", summary="Kill: 202 FINAL_SAVING, then 200 KILLED",
                response_class=JerseyResponse, responses=responses(200, 202, 400, 403, 404, 503),
                openapi_extra={"requestBody": BODIES["appstate"]})
    async def kill(request: Request, app_id: str) -> Response:
        def build(caller: str, body: bytes) -> Response:
            f = r.put_body(request, body, "appstate")
            target, diagnostics = text(f, "state"), text(f, "diagnostics")
            a = r.find_app(r.snapshot(), app_id)
            if target == a.rm_state:
                return render(request, daos.app_state(a.rm_state))
            if target != "KILLED":
                raise _only_killed()
            if r.authz is not None:  # ClientRMService.forceKillApplication
                r.authz.check_kill(caller, a)
            result = r.control.kill(a.id, caller, diagnostics)
            if result.done:
                # RMWebServices.killApp answers the state the app is in: an app that had
                # ended before the kill keeps its own (a Hadoop 3.4 RM: 200 FINISHED)
                ended = result.rm_state if result.rm_state in ENDED else "KILLED"
                return render(request, daos.app_state(ended))
            return render(request, daos.app_state(result.rm_state), 202,
                          {"Location": r.url(request)})
        return await r.answer_body(request, build)

    @router.put("/apps/{app_id}/queue", summary="Move: 200 with the queue, 503 if refused",
                response_class=JerseyResponse, responses=responses(200, 400, 403, 404, 503),
                openapi_extra={"requestBody": BODIES["appqueue"]})
    async def move(request: Request, app_id: str) -> Response:
        def build(caller: str, body: bytes) -> Response:
            f = r.put_body(request, body, "appqueue")
            target = text(f, "queue")
            a = r.find_app(r.snapshot(), app_id)
            if target is None:
                raise _missing("queue")
            if target == a.queue:
                return render(request, daos.app_queue(a.queue))
            if r.authz is not None:  # ClientRMService.moveApplicationAcrossQueues
                r.authz.check_move(caller, a, target)
            return render(request, daos.app_queue(r.control.move(a.id, target, caller)))
        return await r.answer_body(request, build)

    @router.put("/apps/{app_id}/priority", summary="Priority: 503 under the Fair Scheduler",
                response_class=JerseyResponse, responses=responses(200, 400, 403, 404, 503),
                openapi_extra={"requestBody": BODIES["applicationpriority"]})
    async def priority(request: Request, app_id: str) -> Response:
        def build(caller: str, body: bytes) -> Response:
            f = r.put_body(request, body, "applicationpriority")
            # AppPriority's priority is an int: a body without one is priority 0 (a Hadoop
            # 3.4 RM answers {} with 200 {"priority":0} for an app of priority 0)
            target = integer(f, "priority") or 0
            a = r.find_app(r.snapshot(), app_id)
            if target == a.priority:
                return render(request, daos.app_priority(target))
            if r.authz is not None:  # ClientRMService.updateApplicationPriority, first
                r.authz.check_priority(caller, a)
            if a.rm_state in ENDED:
                # ClientRMService.updateApplicationPriority skips an app in a final state
                # and answers its priority as it is
                return render(request, daos.app_priority(a.priority))
            # FairScheduler.updateApplicationPriority throws; doAs wraps it, and
            # GenericExceptionHandler answers the wrapper, which has no message (captured)
            raise Refused(503, "UndeclaredThrowableException",
                          "java.lang.reflect.UndeclaredThrowableException", None)
        return await r.answer_body(request, build)


ANY_METHOD = ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
UNMATCHED = "unmatched"  # the catch-all routes' name, left out of what a path allows


def _unmatched_routes(router: APIRouter, r: _Routes) -> None:
    """Last under the prefix: a path of the API asked with a method it has not is Jersey's
    405, which the RM's GenericExceptionHandler answers as a 503 WebApplicationException (a
    Hadoop 3.4 RM); any other path there is Jersey's 404, empty. Without these the server's
    pages, mounted after the API, would answer them."""
    for path in ("", "/{rest:path}"):
        @router.api_route(path, methods=ANY_METHOD, include_in_schema=False, name=UNMATCHED)
        def unmatched(request: Request) -> Response:
            def build(_: str) -> Response:
                if _resource_at(router, request.url.path):
                    raise jersey_refusal()
                return Response(status_code=404)
            return r.answer(request, build)


def _catch_all() -> Refused:
    return Refused(503, "WebApplicationException", "javax.ws.rs.WebApplicationException",
                   "fairshare could not answer this request (see the server log)")


def _only_killed() -> Refused:
    """``updateAppState``: the only change of state a client may ask for."""
    return bad_request("Only 'KILLED' is allowed as a target state.")


def _missing(name: str) -> Refused:
    return bad_request(f"{name}: missing")


def _resource_at(router: APIRouter, path: str) -> bool:
    """Some route of the API (the catch-alls aside) is at ``path``, for some method."""
    return any(isinstance(route, APIRoute) and route.name != UNMATCHED
               and route.path_regex.match(path) for route in router.routes)


def _allowed(router: APIRouter, path: str) -> list[str]:
    """What Jersey's 405 lists in ``Allow``: every method of the resource at ``path``."""
    methods: set[str] = set()
    for route in router.routes:
        if isinstance(route, APIRoute) and route.name != UNMATCHED \
                and route.path_regex.match(path):
            methods |= route.methods or set()
    if "GET" in methods:
        methods.add("HEAD")
    return sorted(methods | {"OPTIONS"})


def _errors(app: FastAPI, router: APIRouter) -> None:
    """Jersey's own answers for what matches no resource: 404 and 405, empty; and for the
    routes of the same app that are not YARN's (fairshare's extensions): a refusal as the
    ``RemoteException`` it carries, what FastAPI refuses as a 400, a fault as the catch-all
    503."""
    @app.exception_handler(Refused)
    async def refused(request: Request, exc: Refused) -> Response:
        # a route of fairshare's own (extensions, under the same app) refusing as YARN does
        response = refusal(request, exc)
        response.headers.update(hadoop_headers())
        return response

    @app.exception_handler(Exception)
    async def failed(request: Request, exc: Exception) -> Response:
        # any route's fault: the RM's catch-all (as _Routes.answer), never a bare 500
        log.error("request %s %s failed", request.method, request.url.path, exc_info=exc)
        response = refusal(request, _catch_all())
        response.headers.update(hadoop_headers())
        return response

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        # fairshare's own routes (extensions) type their parameters and bodies: what FastAPI
        # refuses is YARN's 400 naming the part, never FastAPI's 422
        first = exc.errors()[0] if exc.errors() else {}
        where = "" if first.get("type") == "json_invalid" else ".".join(
            str(part) for part in first.get("loc", ()) if part != "body")
        message = f"{where or 'the body'}: {first.get('msg', 'invalid')}"
        response = refusal(request, bad_request(escaped(message)))
        response.headers.update(hadoop_headers())
        return response

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        headers = hadoop_headers()
        if exc.status_code == 400:  # FastAPI could not read a body (not UTF-8): YARN's 400
            response = refusal(request, bad_request(f"the body: {exc.detail}"))
            response.headers.update(headers)
            return response
        if exc.status_code == 405:
            headers["Allow"] = ",".join(_allowed(router, request.url.path))
        return Response(status_code=exc.status_code, headers=headers)


def _openapi(app: FastAPI) -> dict[str, Any]:
    """FastAPI's document without the 422 it adds to every route with parameters: no
    route answers 422 (YARN's routes read every parameter as text and check it as YARN
    does; fairshare's own answer what FastAPI refuses as a 400, ``_errors``); every route
    with a body may answer 413 (the body limit)."""
    if app.openapi_schema is None:
        schema = get_openapi(title=app.title, version=app.version,
                             description=app.description, routes=app.routes)
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                operation.get("responses", {}).pop("422", None)
                if "requestBody" in operation:  # rest/limits.py: past the limit, 413
                    operation["responses"].setdefault("413", own_responses(413)[413])
        components: Mapping[str, Any] = schema.get("components", {}).get("schemas", {})
        for name in ("HTTPValidationError", "ValidationError"):
            if isinstance(components, dict):
                components.pop(name, None)
        app.openapi_schema = schema
    return app.openapi_schema

"""The live pages as one Starlette app: :func:`create_app` over a :class:`LiveSource`.

``fairshare watch`` serves it at ``--listen``; ``fairshare serve`` mounts the same app beside
its REST API, named as its own (``program``). Every page is server-rendered HTML with a small
script of its own; every page's data is also JSON under ``/api/…``; the chart library (uPlot,
MIT, vendored with its licence) and the style sheet come from the package at ``/static/…``, so
no page asks anything of any other host.

Bad input is answered, never raised: a query parameter the page cannot use is a 400 naming
the parameter, an unknown queue or app a 404 saying what was looked for (HTML for a page, JSON
``{"error": …, "parameter": …}`` for ``/api/…``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from importlib.resources import files
from typing import Any

from prometheus_client import CollectorRegistry
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from fairshare.web.metrics import exposition
from fairshare.web.pages import views_apps, views_history, views_live, views_nodes
from fairshare.web.pages.errors import NotFound
from fairshare.web.pages.layout import PROGRAM, message
from fairshare.web.pages.params import BadParameter
from fairshare.web.pages.source import LiveSource

# a view: (the source, the request) → HTML text, or the JSON value of an /api/ answer
View = Callable[[LiveSource, Request], Any]


def _html(view: View) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        named = PROGRAM.set(request.app.state.program)  # (the worker thread gets a copy)
        try:
            # in a worker thread: a long history query never holds up the other requests
            return HTMLResponse(await run_in_threadpool(view, request.app.state.source,
                                                        request))
        except BadParameter as e:
            return HTMLResponse(message("Bad query", str(e)), status_code=400)
        except NotFound as e:
            return HTMLResponse(message("Not found", str(e)), status_code=404)
        finally:
            PROGRAM.reset(named)
    return endpoint


class _Json(JSONResponse):
    def render(self, content: Any) -> bytes:
        # NaN never reaches a browser's JSON.parse: averages over nothing are null already
        return json.dumps(content, ensure_ascii=False, allow_nan=False,
                          separators=(",", ":")).encode("utf-8")


def _api(view: View) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        try:
            return _Json(await run_in_threadpool(view, request.app.state.source, request),
                         headers={"Cache-Control": "no-store"})
        except BadParameter as e:
            return _Json({"error": str(e), "parameter": e.parameter}, status_code=400)
        except NotFound as e:
            return _Json({"error": str(e)}, status_code=404)
    return endpoint


def create_app(source: LiveSource, metrics: CollectorRegistry | None = None, *,
               program: str = "fairshare watch") -> Starlette:
    """The pages and their JSON over ``source`` (see the module docstring for the routes),
    and ``/metrics`` in Prometheus's text format when a registry is given
    (:func:`fairshare.web.metrics.registry_for`); ``program``: the name every page's title
    and header give the program serving them."""
    static = StaticFiles(directory=str(files("fairshare.web").joinpath("static")))
    routes = [
        Route("/", _html(views_live.scheduler_page)),
        Route("/scheduler", _html(views_live.scheduler_page)),
        Route("/scheduler/live", _html(views_live.live_fragment)),
        Route("/api/scheduler", _api(views_live.scheduler_json)),
        Route("/queue/{name:path}", _html(views_history.queue_page)),
        Route("/api/queue/{name:path}", _api(views_history.queue_json)),
        Route("/tuning", _html(views_history.tuning_page)),
        Route("/api/tuning", _api(views_history.tuning_json)),
        Route("/apps", _html(views_apps.apps_page)),
        Route("/api/apps", _api(views_apps.apps_json)),
        Route("/app/{app_id:path}", _html(views_apps.app_page)),
        Route("/api/app/{app_id:path}", _api(views_apps.app_json)),
        Route("/nodes", _html(views_nodes.nodes_page)),
        Route("/nodes/live", _html(views_nodes.nodes_fragment)),
        Route("/api/nodes", _api(views_nodes.nodes_json)),
        Route("/node/{node_id:path}", _html(views_nodes.node_page)),
        Route("/api/node/{node_id:path}", _api(views_nodes.node_json)),
        Route("/diagnosis", _html(views_apps.diagnosis_page)),
        Route("/api/diagnosis", _api(views_apps.diagnosis_json)),
        Mount("/static", app=static, name="static"),
    ]
    if metrics is not None:
        async def scrape(request: Request) -> Response:
            body, kind = await run_in_threadpool(exposition, metrics)
            return Response(body, media_type=kind)
        routes.append(Route("/metrics", scrape))
    app = Starlette(routes=routes)
    app.state.source = source
    app.state.program = program
    return app

"""The server's one ASGI app: YARN's REST API (``rest/``), fairshare's extensions
(``extensions.py``), the AM protocol (``am_routes.py``), and the pages and ``/metrics`` that
``watch`` shows too (``pages.py``, mounted last: it answers every other path)."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from fairshare.server.am_routes import PREFIX as AM_PREFIX
from fairshare.server.authorize import Authorizer, UserGroups
from fairshare.server.extensions import extensions_router
from fairshare.server.loop import EngineLoop
from fairshare.server.rest.app import create_rest_app


def create_server_app(loop: EngineLoop, *, am_router: Any = None, pages: Any = None
                      ) -> FastAPI:
    authorizer = Authorizer(loop.engine, loop.engine.site)
    for submission in loop.submissions():  # a restart's apps keep their app ACLs
        authorizer.remember(submission)
    app = create_rest_app(loop, authorizer)
    authenticator = app.state.authenticator  # one user per request for both APIs
    groups_of = getattr(authenticator, "groups_of", None)  # an authenticator that knows them
    if groups_of is not None and isinstance(loop.engine.groups, UserGroups):
        loop.engine.groups.first = groups_of
    app.include_router(extensions_router(loop, authorizer,
                                         lambda request: authenticator.caller(request)[0]))
    if am_router is not None:
        app.include_router(am_router, prefix=AM_PREFIX)  # docs/am-protocol.md's paths
    if pages is not None:
        app.mount("/", pages)
    return app

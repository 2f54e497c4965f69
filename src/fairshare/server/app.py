"""The server's one ASGI app: YARN's REST API (``rest/``), fairshare's extensions
(``extensions.py``), the AM protocol (``am_routes.py``), and the pages and ``/metrics`` that
``watch`` shows too (``pages.py``, mounted last: it answers every other path), every request
authenticated by one authenticator (``auth.py``) but the AM protocol's, which has its own
tokens."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI

from fairshare.server.am_routes import PREFIX as AM_PREFIX
from fairshare.server.auth import Authenticator, PseudoAuth, caller_of
from fairshare.server.authorize import Authorizer, UserGroups
from fairshare.server.extensions import extensions_router
from fairshare.server.loop import EngineLoop
from fairshare.server.rest.app import create_rest_app


def create_server_app(loop: EngineLoop, *, am_router: Any = None, pages: Any = None,
                      auth: Authenticator | None = None) -> FastAPI:
    authorizer = Authorizer(loop.engine, loop.engine.site)
    for submission in loop.submissions():  # a restart's apps keep their app ACLs
        authorizer.remember(submission)
    loop.forgetting.append(authorizer.forget)
    auth = auth or PseudoAuth()
    if isinstance(loop.engine.groups, UserGroups):  # the users file's groups, when it has
        loop.engine.groups.first = auth.groups_of
    app = create_rest_app(loop, authorizer=authorizer, auth=auth, own_auth=(AM_PREFIX,))
    app.include_router(extensions_router(loop, authorizer,
                                         lambda request: caller_of(request).user))
    if am_router is not None:
        app.include_router(am_router, prefix=AM_PREFIX)  # docs/am-protocol.md's paths
    if pages is not None:
        app.mount("/", pages)
    return app

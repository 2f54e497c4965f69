"""The server's limit on a request body (docs/serve.md, "Bad input"): an ASGI middleware that
reads the body as it streams in and answers 413 once it passes :data:`MAX_BODY_BYTES`, before
any route sees it.

Hadoop's RM has no such limit of its own (Jetty buffers what a Jersey resource reads); a
server that reads each body whole into memory needs one. The limit is counted on the bytes
received, not on ``Content-Length`` alone (a chunked body has none, and a client may lie): a
declared length above it is refused at once, without reading, and any body is refused as soon
as what arrived passes it. The answer is a ``RemoteException`` in the format the request
accepts, as every refusal of the REST API (``GenericExceptionHandler``'s shape).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fairshare.server.control import Refused
from fairshare.server.rest.negotiate import hadoop_headers, refusal

# 4 MiB: a submission is a few kB (the tokens' configuration it may carry is capped by YARN
# at 12,800 bytes, yarn.resourcemanager.delegation-token.max-conf-size); an AM's allocate call
# with thousands of asks is some hundred kB
MAX_BODY_BYTES = 4 * 1024 * 1024


def too_large(limit: int) -> Refused:
    return Refused(413, "WebApplicationException", "javax.ws.rs.WebApplicationException",
                   f"the request body is larger than {limit} bytes, the most fairshare serve "
                   "reads (docs/serve.md)")


class BodyLimit:
    """Reads each HTTP request's body (at most ``limit`` bytes) before calling ``app``, then
    hands it on as one message; a body past ``limit`` is answered 413 and ``app`` is not
    called. Messages after the body (``http.disconnect``) pass through, so a streaming route
    still sees its client leave."""

    def __init__(self, app: ASGIApp, limit: int = MAX_BODY_BYTES) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = _content_length(scope)
        if declared is not None and declared > self.limit:
            await self._refuse(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client left before sending it all
                await self.app(scope, _replay([message], receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        whole: Message = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([whole], receive), send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope)
        response = refusal(request, too_large(self.limit))
        response.headers.update(hadoop_headers())
        # the rest of the body is not read: the connection is closed after the answer
        response.headers["Connection"] = "close"
        await response(scope, receive, send)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server (h11) refuses a malformed one before we see it
    return None


def _replay(messages: list[Message], receive: Receive) -> Receive:
    pending = list(messages)

    async def replayed() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replayed

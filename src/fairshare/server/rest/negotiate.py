"""What a response looks like on the wire: Jersey's choice between JSON and XML, the headers
Hadoop's ``HttpServer2`` adds to every answer, the error bodies of ``GenericExceptionHandler``,
and the cookie of simple authentication."""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Mapping
from email.utils import formatdate

from starlette.requests import HTTPConnection, Request
from starlette.responses import Response

from fairshare.server.control import Refused
from fairshare.server.rest import daos
from fairshare.server.rest.jersey import JSON_TYPE, XML_TYPE, Obj, to_json, to_xml

STATIC_USER = "dr.who"  # hadoop.http.staticuser.user: the caller without user.name
COOKIE = "hadoop.auth"
TOKEN_VALIDITY_S = 36000  # hadoop.http.authentication.token.validity


class JerseyResponse(Response):
    """A body made by :mod:`~fairshare.server.rest.jersey`, sent as it is."""

    media_type = JSON_TYPE


class XmlResponse(Response):
    media_type = XML_TYPE


def _quality(accept: str, kind: str) -> float:
    """The quality ``accept`` gives ``kind`` (``type/subtype``): its most specific range."""
    best, best_rank = 0.0, -1
    main = kind.split("/")[0]
    for part in accept.split(","):
        pieces = [p.strip() for p in part.split(";")]
        media = pieces[0].lower()
        q = 1.0
        for param in pieces[1:]:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = min(max(float(value), 0.0), 1.0)
                except ValueError:
                    q = 0.0
        rank = 2 if media == kind else 1 if media == f"{main}/*" else 0 if media == "*/*" else -1
        if rank > best_rank:
            best, best_rank = q, rank
    return best if best_rank >= 0 else 0.0


def wants_xml(request: Request) -> bool | None:
    """Jersey's pick among ``@Produces({json, xml})``: the higher quality, JSON on a tie
    (it is listed first), JSON without an ``Accept``; None when neither is acceptable (406)."""
    accept = request.headers.get("accept", "")
    if not accept.strip():
        return False
    json_q, xml_q = _quality(accept, "application/json"), _quality(accept, "application/xml")
    if json_q == 0 and xml_q == 0:
        return None
    return xml_q > json_q


def hadoop_headers() -> dict[str, str]:
    """``HttpServer2``'s headers on every answer (``NoCacheFilter`` and the security
    headers of ``hadoop.http.header.*``)."""
    now = formatdate(usegmt=True)
    return {"Cache-Control": "no-cache", "Expires": now, "Pragma": "no-cache",
            "X-Content-Type-Options": "nosniff", "X-FRAME-OPTIONS": "SAMEORIGIN",
            "X-XSS-Protection": "1; mode=block"}


def render(request: Request, doc: Obj, status: int = 200,
           headers: Mapping[str, str] | None = None) -> Response:
    """``doc`` in the format the request asks for; 406 (empty) when it accepts neither."""
    xml = wants_xml(request)
    if xml is None:
        return Response(status_code=406, headers=dict(headers or {}))
    if xml:
        return XmlResponse(to_xml(doc), status_code=status, headers=dict(headers or {}))
    return JerseyResponse(to_json(doc), status_code=status, headers=dict(headers or {}))


def answer_of(request: Request, write: Callable[[bool], bytes]) -> Response:
    """The answer ``write(xml)`` writes in the format the request asks for, as
    :func:`render` sends a document; 406 (empty) when it accepts neither."""
    xml = wants_xml(request)
    if xml is None:
        return Response(status_code=406, headers={})
    return XmlResponse(write(True)) if xml else JerseyResponse(write(False))


def refusal(request: Request, refused: Refused) -> Response:
    """``GenericExceptionHandler``'s answer (the ``RemoteException`` in the format asked
    for), or a plain message: a String entity, which Jersey writes under the negotiated
    type (a denied kill or move)."""
    if refused.plain:
        body = (refused.message or "").encode("utf-8")
        xml = wants_xml(request)
        kind = XML_TYPE if xml else JSON_TYPE
        return Response(body, status_code=refused.status,
                        headers={"Content-Type": kind} if body else None)
    return render(request, daos.remote_exception(refused), refused.status)


class SimpleAuth:
    """Hadoop's pseudo authentication (``PseudoAuthenticationHandler``): ``?user.name=X``
    names the caller and answers with a signed ``hadoop.auth`` cookie, which names it on
    later requests; without either the caller is the static user ``dr.who``."""

    def __init__(self, secret: bytes | None = None) -> None:
        self.secret = secret or secrets.token_bytes(32)

    def _sign(self, payload: str) -> str:
        digest = hmac.new(self.secret, payload.encode("utf-8"), hashlib.sha256).digest()
        return base64.b64encode(digest).decode("ascii")

    def cookie_for(self, user: str) -> str:
        expires = int(time.time() * 1000) + TOKEN_VALIDITY_S * 1000
        payload = f"u={user}&p={user}&t=simple-dt&e={expires}"
        return f'{COOKIE}="{payload}&s={self._sign(payload)}"; Path=/; HttpOnly'

    def caller(self, request: HTTPConnection) -> tuple[str, str | None]:
        """The caller, and the ``Set-Cookie`` to answer with (a new ``user.name``)."""
        named = request.query_params.get("user.name")
        if named:
            return named, self.cookie_for(named)
        token = request.cookies.get(COOKIE, "").strip('"')
        payload, _, signature = token.rpartition("&s=")
        fields = dict(p.partition("=")[::2] for p in payload.split("&"))
        if payload and hmac.compare_digest(signature, self._sign(payload)):
            try:
                alive = int(fields.get("e", "0")) > time.time() * 1000
            except ValueError:
                alive = False
            if alive and fields.get("u"):
                return fields["u"], None
        return STATIC_USER, None

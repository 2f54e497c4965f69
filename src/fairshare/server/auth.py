"""Who is asking: the one authenticator every route of ``fairshare serve`` names its caller
with (``--auth pseudo|basic|token``, ``--users FILE``; docs/serve.md "Security:
authentication and TLS").

:class:`Authenticate` is an ASGI middleware around the whole app — YARN's REST API, fairshare's
extensions, the pages and ``/metrics`` — as Hadoop's ``AuthenticationFilter`` is around every
context of the RM's ``HttpServer2``. It asks the :class:`Authenticator` for the caller of each
request and keeps it in the request's scope (:func:`caller_of`), or answers 401 with the
scheme's ``WWW-Authenticate`` challenge itself. The AM protocol (``/ws/v1/fairshare/am``) is
left to its own per-attempt bearer tokens (:mod:`fairshare.server.am`).

* :class:`PseudoAuth` (``pseudo``, the default): Hadoop's ``PseudoAuthenticationHandler`` as
  :class:`~fairshare.server.rest.negotiate.SimpleAuth` implements it — ``?user.name=``, the
  signed ``hadoop.auth`` cookie, else ``dr.who``. It authenticates no one; a users file only
  gives the users' groups.
* :class:`BasicAuth` (``basic``): HTTP Basic (RFC 7617) against the users file's argon2
  hashes.
* :class:`TokenAuth` (``token``): ``Authorization: Bearer <token>`` (RFC 6750) against the
  users file's sha-256 digests of tokens, each with an optional expiry.

Every authenticator answers :meth:`Authenticator.groups_of`: the user's groups as the users
file lists them, None when it does not say (YARN's group mapping is then the one to ask). The
users file is read again when it changes (looked at once a second at most); a broken edit keeps
the last good one, as the allocation file's reload does. No secret is ever logged: a failed
authentication is a warning naming the user (or "an unknown token"), the reason, the request's
method and path, and the client's address.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import hashlib
import hmac
import logging
import os
import re
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import argon2
from argon2.exceptions import InvalidHashError, VerificationError
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from fairshare.config.errors import ConfigError
from fairshare.server.control import Refused
from fairshare.server.rest import daos
from fairshare.server.rest.negotiate import SimpleAuth, hadoop_headers, render, wants_xml
from fairshare.server.users import Users, read_users, token_digest

__all__ = ["SCHEMES", "Authenticate", "Authenticator", "BasicAuth", "Caller", "PseudoAuth",
           "TokenAuth", "Unauthenticated", "UsersSource", "authenticator_for", "authenticator_of",
           "caller_of"]

log = logging.getLogger("fairshare.serve.auth")

SCHEMES = ("pseudo", "basic", "token")
REALM = "fairshare"
CALLER = "fairshare.caller"  # the scope's key for the request's Caller
AUTHENTICATOR = "fairshare.authenticator"  # and for the authenticator that named it
CHECK_EVERY_S = 1.0  # how often the users file is looked at for a change
VERIFIED_FOR_S = 60.0  # how long a verified Basic credential is believed without argon2
VERIFIED_MAX = 1024  # credentials remembered at most (the oldest forgotten first)
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]")
# the 401's message: the same whatever was wrong (the log says what), so that it does not tell
# which users exist
BASIC_REQUIRED = ("Authentication required: HTTP Basic with the name and password of a user "
                  "of this server (missing, malformed or wrong)")
TOKEN_REQUIRED = ("Authentication required: a bearer token of this server (missing, "
                  "malformed, unknown or expired)")


@dataclass(frozen=True)
class Caller:
    """The request's caller: ``user``, the groups the users file gives it (None: it does not
    say), and for pseudo authentication the ``Set-Cookie`` to answer with."""

    user: str
    groups: tuple[str, ...] | None = None
    cookie: str | None = None


class Unauthenticated(Exception):
    """A request without acceptable credentials: ``reason`` for the log (no secret in it),
    ``user`` when the credentials named one, ``error`` for a bearer challenge (RFC 6750, section 3:
    ``invalid_token`` when a token was given)."""

    def __init__(self, reason: str, user: str | None = None, error: str | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.user = user
        self.error = error


class Authenticator(Protocol):
    scheme: str
    costly: bool  # authenticating may take long (argon2): run it off the event loop

    def authenticate(self, request: HTTPConnection) -> Caller:
        """The caller of ``request`` (an HTTP request or a WebSocket's opening);
        :class:`Unauthenticated` when it must not be served."""

    def groups_of(self, user: str) -> tuple[str, ...] | None:
        """``user``'s groups as the users file lists them; None when it does not say."""

    def challenge(self, failure: Unauthenticated) -> str:
        """The ``WWW-Authenticate`` of the 401 answered for ``failure``."""


class UsersSource:
    """The users file, read at once (a :class:`ConfigError` if it is bad) and again whenever it
    changes; a broken edit is logged and the last good one kept."""

    def __init__(self, path: Path, *, check_every_s: float = CHECK_EVERY_S) -> None:
        self.path = path
        self.check_every_s = check_every_s
        self._key = self._stat()
        self._users = read_users(path)
        self._checked = time.monotonic()
        self._lock = threading.Lock()

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return st.st_mtime_ns, st.st_size, st.st_ino

    def current(self) -> Users:
        if time.monotonic() - self._checked < self.check_every_s:
            return self._users
        with self._lock:
            self._checked = time.monotonic()
            key = self._stat()
            if key is None and self._key is not None:
                self._key = None
                log.warning("users file %s cannot be read any more: the last good one is "
                            "kept", self.path)
            if key is not None and key != self._key:
                self._key = key
                try:
                    self._users = read_users(self.path)
                except ConfigError as e:
                    log.warning("users file not reloaded, the last good one is kept: %s",
                                _shown(str(e)))
                else:
                    log.info("users file reloaded: %s", self.path)
        return self._users


class _UsersGroups:
    """``groups_of`` from an optional users file."""

    users: UsersSource | None

    def groups_of(self, user: str) -> tuple[str, ...] | None:
        if self.users is None:
            return None
        entry = self.users.current().get(user)
        return None if entry is None else entry.groups


class PseudoAuth(_UsersGroups):
    """Hadoop's simple authentication, unchanged: whoever asks is who ``?user.name=`` says."""

    scheme = "pseudo"
    costly = False

    def __init__(self, users: UsersSource | None = None, simple: SimpleAuth | None = None
                 ) -> None:
        self.users = users
        self.simple = simple or SimpleAuth()

    def authenticate(self, request: HTTPConnection) -> Caller:
        user, cookie = self.simple.caller(request)
        return Caller(user, self.groups_of(user), cookie)

    def challenge(self, failure: Unauthenticated) -> str:  # pragma: no cover - never fails
        return "PseudoAuth"


class BasicAuth(_UsersGroups):
    """HTTP Basic against the users file's argon2 hashes. A verified credential is believed
    for :data:`VERIFIED_FOR_S` without argon2 again (argon2 costs tens of milliseconds and 64
    MiB on purpose: a client's every request would pay it), remembered only as an HMAC under a
    key of this process; an unknown user costs an argon2 verification too, so the time taken
    does not tell which users exist."""

    scheme = "basic"
    costly = True

    def __init__(self, users: UsersSource) -> None:
        self.users = users
        self._source = users
        self._hasher = argon2.PasswordHasher()
        self._key = secrets.token_bytes(32)
        self._verified: OrderedDict[bytes, tuple[float, str]] = OrderedDict()
        self._lock = threading.Lock()
        self._dummy: str | None = None

    def authenticate(self, request: HTTPConnection) -> Caller:
        user, password = _basic_credentials(request.headers.get("authorization"))
        entry = self._source.current().get(user)
        if entry is None or entry.password is None:
            self._waste_time(password)
            raise Unauthenticated("unknown user" if entry is None else "the user has no "
                                  "password", user)
        mark = hmac.new(self._key, user.encode("utf-8") + b"\0" + password, hashlib.sha256
                        ).digest()
        with self._lock:
            seen = self._verified.get(mark)
        if seen is None or seen[1] != entry.password or seen[0] < time.monotonic():
            try:
                self._hasher.verify(entry.password, password)
            except (VerificationError, InvalidHashError):
                raise Unauthenticated("wrong password", user) from None
            with self._lock:
                self._verified[mark] = (time.monotonic() + VERIFIED_FOR_S, entry.password)
                self._verified.move_to_end(mark)
                while len(self._verified) > VERIFIED_MAX:
                    self._verified.popitem(last=False)
        return Caller(user, entry.groups)

    def _waste_time(self, password: bytes) -> None:
        if self._dummy is None:
            self._dummy = self._hasher.hash(secrets.token_bytes(16))
        with contextlib.suppress(VerificationError, InvalidHashError):
            self._hasher.verify(self._dummy, password)

    def challenge(self, failure: Unauthenticated) -> str:
        return f'Basic realm="{REALM}", charset="UTF-8"'


class TokenAuth(_UsersGroups):
    """``Authorization: Bearer <token>`` against the users file's token digests."""

    scheme = "token"
    costly = False

    def __init__(self, users: UsersSource, now: Callable[[], datetime] | None = None) -> None:
        self.users = users
        self._source = users
        self._now = now or (lambda: datetime.now(UTC))
        self._index: tuple[Users, dict[str, tuple[str, datetime | None]]] | None = None

    def _tokens(self) -> dict[str, tuple[str, datetime | None]]:
        users = self._source.current()
        if self._index is None or self._index[0] is not users:
            index = {t.digest: (u.name, t.expires) for u in users.users.values()
                     for t in u.tokens}
            self._index = (users, index)
        return self._index[1]

    def authenticate(self, request: HTTPConnection) -> Caller:
        header = request.headers.get("authorization")
        if header is None:
            raise Unauthenticated("no credentials")
        scheme, _, token = header.strip().partition(" ")
        token = token.strip()
        if scheme.lower() != "bearer" or not token:
            raise Unauthenticated("not a bearer token", error="invalid_request")
        # a header is read as latin-1: its own bytes, whatever they are
        found = self._tokens().get(token_digest(token.encode("latin-1")))
        if found is None:
            raise Unauthenticated("unknown token", error="invalid_token")
        user, expires = found
        if expires is not None and self._now() >= expires:
            raise Unauthenticated(f"token expired at {expires.isoformat()}", user,
                                  error="invalid_token")
        return Caller(user, self.groups_of(user))

    def challenge(self, failure: Unauthenticated) -> str:
        if failure.error is None:
            return f'Bearer realm="{REALM}"'
        return f'Bearer realm="{REALM}", error="{failure.error}"'


def _basic_credentials(header: str | None) -> tuple[str, bytes]:
    """RFC 7617: ``Basic base64(user-id ":" password)``, both UTF-8. The password stays bytes
    (argon2 hashes bytes)."""
    if header is None:
        raise Unauthenticated("no credentials")
    scheme, _, encoded = header.strip().partition(" ")
    if scheme.lower() != "basic" or not encoded.strip():
        raise Unauthenticated("not HTTP Basic credentials")
    try:
        raw = base64.b64decode(encoded.strip().encode("latin-1"), validate=True)
    except (binascii.Error, ValueError):
        raise Unauthenticated("malformed Basic credentials (not base64)") from None
    user_bytes, colon, password = raw.partition(b":")
    if not colon:
        raise Unauthenticated("malformed Basic credentials (no colon)")
    try:
        user = user_bytes.decode("utf-8")
    except UnicodeDecodeError:
        raise Unauthenticated("malformed Basic credentials (the user is not UTF-8)") from None
    return user, password


def authenticator_for(scheme: str, users: Path | None) -> Authenticator:
    """The authenticator of ``--auth scheme`` over ``--users``; a :class:`ConfigError` naming
    the option or the file's line."""
    if scheme not in SCHEMES:
        raise ConfigError(f"expected one of {', '.join(SCHEMES)}, got {scheme!r}", "--auth")
    if scheme != "pseudo" and users is None:
        raise ConfigError(f"{scheme} authentication checks callers against a users file: "
                          "give --users FILE (made with fairshare serve-users)", "--users")
    source = None if users is None else UsersSource(users)
    if scheme == "pseudo":
        return PseudoAuth(source)
    assert source is not None
    return BasicAuth(source) if scheme == "basic" else TokenAuth(source)


# -- the middleware ----------------------------------------------------------------------------

def caller_of(request: HTTPConnection) -> Caller:
    """The caller :class:`Authenticate` named for ``request``."""
    caller = request.scope.get(CALLER)
    if not isinstance(caller, Caller):
        raise LookupError("no caller: the request did not pass through Authenticate")
    return caller


def authenticator_of(request: HTTPConnection) -> Authenticator:
    """The authenticator that named ``request``'s caller (its ``groups_of`` for other users)."""
    auth = request.scope.get(AUTHENTICATOR)
    if auth is None:
        raise LookupError("no authenticator: the request did not pass through Authenticate")
    return auth  # type: ignore[no-any-return]


class Authenticate:
    """Names every request's caller (``scope[CALLER]``) or answers 401; paths under one of
    ``own_auth`` (the AM protocol) are passed through unauthenticated, to their own check."""

    def __init__(self, app: ASGIApp, authenticator: Authenticator,
                 own_auth: tuple[str, ...] = ()) -> None:
        self.app = app
        self.authenticator = authenticator
        self.own_auth = own_auth

    def _exempt(self, path: str) -> bool:
        for prefix in self.own_auth:
            if path == prefix or path.startswith(prefix + "/"):
                # no dot segments: a path that only starts like the AM protocol's and is
                # routed elsewhere (the pages answer every other path) gets no pass
                parts = path[len(prefix) + 1:].split("/")
                if parts[-1] == "":  # a trailing slash (Jersey's /apps/ is /apps)
                    parts.pop()
                return all(part not in ("", ".", "..") for part in parts)
        return False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self._exempt(scope.get("path", "")):
            await self.app(scope, receive, send)  # lifespan; the AM protocol's own check
            return
        request = HTTPConnection(scope)
        auth = self.authenticator
        try:
            if auth.costly:
                caller = await run_in_threadpool(auth.authenticate, request)
            else:
                caller = auth.authenticate(request)
        except Unauthenticated as failure:
            _log_failure(request, auth.scheme, failure)
            if scope["type"] == "websocket":  # 1008: policy violation (RFC 6455, 7.4.1)
                await send({"type": "websocket.close", "code": 1008})
                return
            await unauthorized(Request(scope), auth.challenge(failure))(scope, receive, send)
            return
        scope[CALLER] = caller
        scope[AUTHENTICATOR] = auth
        if caller.cookie is None or not all(" " <= c <= "~" for c in caller.cookie):
            # (a user.name a header cannot carry — beyond printable ASCII: a control
            # character would split the header — names the caller of this request only)
            await self.app(scope, receive, send)
            return
        cookie = caller.cookie.encode("ascii")

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = [*message.get("headers", []), (b"set-cookie", cookie)]
            await send(message)

        await self.app(scope, receive, send_with_cookie)


def unauthorized(request: Request, challenge: str) -> Response:
    """The 401: for YARN's and fairshare's web services a ``RemoteException`` (JSON, or XML
    when asked for), as ``GenericExceptionHandler`` writes every refusal; for the pages and
    ``/metrics`` plain text. Either with the scheme's challenge and Hadoop's headers."""
    message = BASIC_REQUIRED if challenge.startswith("Basic") else TOKEN_REQUIRED
    headers = {**hadoop_headers(), "WWW-Authenticate": challenge}
    if request.scope.get("path", "").startswith("/ws/"):
        refused = Refused(401, "AuthenticationException",
                          "org.apache.hadoop.security.authentication.client."
                          "AuthenticationException", message)
        if wants_xml(request) is None:  # a 401 is answered whatever the Accept says
            request = _accepting_json(request)
        return render(request, daos.remote_exception(refused), 401, headers)
    return Response(f"401 Unauthorized: {message}\n", status_code=401, headers=headers,
                    media_type="text/plain; charset=utf-8")


def _accepting_json(request: Request) -> Request:
    scope: MutableMapping[str, Any] = dict(request.scope)
    scope["headers"] = [(k, v) for k, v in request.scope["headers"] if k != b"accept"]
    return Request(scope)


def _log_failure(request: HTTPConnection, scheme: str, failure: Unauthenticated) -> None:
    who = f"user {failure.user!r}" if failure.user is not None else "no user"
    client = request.client.host if request.client else "?"
    log.warning("%s authentication failed for %s: %s (%s %s from %s)", scheme, who,
                failure.reason, request.scope.get("method", "WebSocket"),
                _shown(request.scope.get("path", "")), client)


def _shown(text: str) -> str:
    """``text`` with control characters escaped: one log line, whatever a caller sent."""
    return _CONTROLS.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


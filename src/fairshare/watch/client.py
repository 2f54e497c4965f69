"""GETs to a ResourceManager's REST API, across the RMs of an HA pair, over one keep-alive
``httpx.Client``.

What a standby RM answers is Hadoop's ``RMWebAppFilter.doFilter``: in Hadoop 3 a **307** with
``Location:`` the active RM's URL (body "This is standby RM. The redirect url is: …"), or a 307
without ``Location`` and "Can not find any active RM" while no RM is active; Hadoop 2 answered
**200** with the text "This is standby RM. Redirecting to the current active RM: URL" and a
``Refresh: 3; url=URL`` header. ``/ws/v1/cluster/info`` is never redirected
(``RMWebAppFilter.shouldRedirect``): a standby answers it itself, with ``"haState":"STANDBY"``,
which is also taken as "standby" here — else the standby's own ``clusterInfo.id`` would read as
a restart. An RM that redirects is a standby; the RM that answers is remembered as the active
one and asked first next time (``ConfiguredRMFailoverProxyProvider`` does the
same for RPC: the active first, then round the list).

Connection errors, timeouts and 5xx answers are retried on the same RM with exponential
back-off, then the next RM is tried; when none answers, :class:`RMUnavailable` names each RM and
its last error. A 4xx answer is an answer (the poller reports it). The clock and the sleep are
injected: no decision here reads the wall clock.
"""

from __future__ import annotations

import importlib
import re
import ssl
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urljoin, urlsplit, urlunsplit

import httpx

from fairshare.config.errors import ConfigError

__all__ = ["Answer", "RMClient", "RMUnavailable", "base_url"]

KERBEROS_HINT = "pip install 'fairshare[kerberos]'"
_STANDBY_TEXT = re.compile(r"\s*This is standby RM\b|\s*There is no active RM right now")
_URL_IN_TEXT = re.compile(r"https?://[^\s\"'<>]+")
_REFRESH_URL = re.compile(r"url\s*=\s*(\S+)", re.IGNORECASE)
_STANDBY_INFO = re.compile(r'"haState"\s*:\s*"STANDBY"')
_REDIRECTS = (301, 302, 303, 307, 308)


class RMUnavailable(Exception):
    """No RM of the list answered; ``errors`` maps each RM tried to its last error."""

    def __init__(self, path: str, errors: dict[str, str]) -> None:
        self.path, self.errors = path, dict(errors)
        listed = "; ".join(f"{rm}: {error}" for rm, error in errors.items())
        super().__init__(f"no ResourceManager answered GET {path}: {listed}")


@dataclass(frozen=True, slots=True)
class Answer:
    """One answer: the URL that gave it (after redirects), its status and text, the time the
    whole GET took (retries and redirects included); ``rm`` is that URL's base and ``notes``
    what the caller should report (a redirect to an RM outside the list)."""

    url: str
    status: int
    text: str
    elapsed_s: float
    rm: str = ""
    headers: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)


@dataclass(frozen=True, slots=True)
class _Standby:
    target: str | None  # the active RM's URL it points to, if it gives one
    why: str


def base_url(url: str) -> str:
    """``scheme://host:port`` of ``url`` (the port made explicit: 8088 for http)."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{parts.hostname}:{port}"


def _check_url(url: str) -> str:
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"not an RM web address: {url!r} (give http://HOST:8088 or "
                          "https://HOST:8090)", "RM_URL")
    try:
        parts.port  # noqa: B018 (raises on a bad port)
    except ValueError as exc:
        raise ConfigError(f"not an RM web address: {url!r}: {exc}", "RM_URL") from None
    return url.strip().rstrip("/")


class RMClient:
    """GETs to the RMs ``urls`` (one RM, or the RMs of an HA cluster in any order)."""

    def __init__(self, urls: Sequence[str], *, timeout_s: float = 10, retries: int = 3,
                 backoff_s: float = 0.5, ca_bundle: str | None = None, verify: bool = True,
                 user: str | None = None, spnego: bool = False,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep,
                 transport: httpx.BaseTransport | None = None) -> None:
        if not urls:
            raise ConfigError("no ResourceManager URL given", "RM_URL")
        self.urls = [_check_url(u) for u in urls]
        self._bases = {base_url(u): u for u in self.urls}
        self.timeout_s, self.retries, self.backoff_s = timeout_s, retries, backoff_s
        self.user = user
        self._clock, self._sleep = clock, sleep
        self.active: str | None = None  # the base URL of the RM that answered last
        self._http = httpx.Client(
            timeout=timeout_s, follow_redirects=False, auth=_spnego() if spnego else None,
            verify=_verify(ca_bundle, verify), headers={"Accept": "application/json"},
            transport=transport)

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> RMClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def get(self, path: str) -> Answer:
        """GET ``path`` (``/ws/v1/cluster/…``, with its query) from the active RM, following
        standbys' redirects; raises :class:`RMUnavailable` when no RM answers."""
        start = self._clock()
        errors: dict[str, str] = {}
        notes: list[str] = []
        order = self._order()
        todo: list[tuple[str, str]] = [(rm, self._url(rm + path)) for rm in order]
        tried: set[str] = set()
        while todo:
            rm, url = todo.pop(0)
            base = base_url(url)
            if base in tried:
                continue
            tried.add(base)
            result = self._attempts(url)
            if isinstance(result, str):
                errors[rm] = result
                continue
            if isinstance(result, _Standby):
                errors[rm] = result.why
                if result.target is not None:
                    target = base_url(result.target)
                    if target in tried:
                        errors[rm] += " (a redirect loop: that RM was asked already)"
                        continue
                    shown = self._bases.get(target, target)
                    if target not in self._bases:
                        notes.append(f"{rm} redirected to {shown}, which is not in the RM "
                                     "list: followed (add it to the list)")
                    todo.insert(0, (shown, self._url(result.target)))
                continue
            self.active = base
            return Answer(url=str(result.url), status=result.status_code, text=result.text,
                          elapsed_s=self._clock() - start, rm=rm,
                          headers=tuple(result.headers.items()), notes=tuple(notes))
        raise RMUnavailable(path, errors)

    def _order(self) -> list[str]:
        """The active RM first (it may be one a standby redirected to, outside the list)."""
        if self.active is None:
            return list(self.urls)
        first = self._bases.get(self.active, self.active)
        return [first, *(u for u in self.urls if u != first)]

    def _url(self, url: str) -> str:
        """``url`` with ``user.name`` (simple auth: ``PseudoAuthenticationHandler``) when a user
        is given and the URL has none (a standby's Location keeps the query it was sent)."""
        if self.user is None:
            return url
        parts = urlsplit(url)
        if "user.name=" in parts.query:
            return url
        query = f"{parts.query}&" if parts.query else ""
        return urlunsplit(parts._replace(query=f"{query}user.name={quote(self.user, safe='')}"))

    def _attempts(self, url: str) -> httpx.Response | _Standby | str:
        """One RM: its answer, a standby's pointer, or its last error after the retries."""
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                self._sleep(self.backoff_s * 2 ** (attempt - 1))
            try:
                response = self._http.get(url)
            except httpx.TransportError as exc:
                last, retry = _describe(exc, self.timeout_s)
                if not retry:
                    return last
                continue
            standby = _standby(url, response)
            if standby is not None:
                return standby
            if response.status_code < 500:
                return response
            last = f"HTTP {response.status_code}: {_first_line(response.text)}"
        tries = self.retries + 1
        return f"{last} ({tries} attempt{'s' if tries > 1 else ''})"


def _standby(url: str, response: httpx.Response) -> _Standby | None:
    """Whether ``response`` comes from a standby RM (see the module's docstring)."""
    status = response.status_code
    if status in _REDIRECTS:
        location = response.headers.get("Location")
        if location:
            return _Standby(urljoin(url, location), f"standby (HTTP {status} to {location})")
        return _Standby(None, f"standby, no active RM known (HTTP {status}: "
                              f"{_first_line(response.text)})")
    if status != 200:
        return None
    text = response.text
    if _STANDBY_TEXT.match(text):
        refresh = _REFRESH_URL.search(response.headers.get("Refresh", ""))
        found = refresh.group(1) if refresh else None
        if found is None:
            match = _URL_IN_TEXT.search(text)
            found = match.group() if match else None
        why = f"standby ({_first_line(text)})"
        return _Standby(urljoin(url, found) if found else None, why)
    if _STANDBY_INFO.search(text[:2000]):
        return _Standby(None, "standby (its /ws/v1/cluster/info says haState STANDBY)")
    return None


def _describe(exc: httpx.TransportError, timeout_s: float) -> tuple[str, bool]:
    """A transport error in words, and whether trying again may help."""
    text = str(exc) or type(exc).__name__
    if "CERTIFICATE_VERIFY_FAILED" in text:
        return (f"TLS: the RM's certificate is not trusted ({text}): give its CA as the CA "
                "bundle"), False
    if isinstance(exc, httpx.UnsupportedProtocol):
        return text, False
    if isinstance(exc, httpx.TimeoutException):
        return f"no answer within {timeout_s:g} s ({type(exc).__name__})", True
    if isinstance(exc, httpx.ConnectError):
        return f"cannot connect ({text})", True
    if isinstance(exc, httpx.RemoteProtocolError):
        return f"the answer broke off ({text})", True
    return f"{type(exc).__name__}: {text}", True


def _first_line(text: str) -> str:
    line = next((s.strip() for s in text.splitlines() if s.strip()), "(empty body)")
    return line if len(line) <= 200 else line[:197] + "..."


def _verify(ca_bundle: str | None, verify: bool) -> ssl.SSLContext | bool:
    if not verify:
        return False
    try:
        return ssl.create_default_context(cafile=ca_bundle)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"cannot read the CA bundle: {exc}", ca_bundle) from None


def _spnego() -> Any:
    """SPNEGO (Kerberos) to the RM's web services, as ``KerberosAuthenticationHandler`` wants;
    httpx-gssapi is an optional dependency."""
    try:
        module = importlib.import_module("httpx_gssapi")
    except ImportError:
        raise ConfigError("SPNEGO (Kerberos) needs the httpx-gssapi package: "
                          f"{KERBEROS_HINT}", "--spnego") from None
    return module.HTTPSPNEGOAuth()

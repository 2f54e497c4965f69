"""What ``fairshare watch``'s options say, read with errors that name the option: durations
(``5s``, ``500ms``, ``2m``, ``1h``, ``7d``), moments (ISO 8601, ``now``, ``-2h``), the listen
address (loopback unless asked otherwise) and the RM list (``URL[,URL…]``, HA pairs)."""

from __future__ import annotations

from urllib.parse import urlsplit

from fairshare.config.errors import ConfigError
from fairshare.web import moments
from fairshare.web.history.model import Retention
from fairshare.web.history.retention import check


def duration_ms(text: str, option: str) -> int:
    """``5s`` → 5000 (:func:`fairshare.web.moments.duration_ms`), or an error naming
    ``option``."""
    try:
        return moments.duration_ms(text)
    except ValueError as e:
        raise ConfigError(str(e), option) from None


def moment_ms(text: str, option: str, now_ms: int) -> int:
    """A moment (:func:`fairshare.web.moments.moment_ms`, UTC unless it names a zone), or an
    error naming ``option``."""
    try:
        return moments.moment_ms(text, now_ms)
    except ValueError as e:
        raise ConfigError(str(e), option) from None


def listen_address(text: str, option: str = "--listen") -> tuple[str, int]:
    """``HOST:PORT`` (``:PORT`` is 127.0.0.1); port 0 picks a free one."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535:
        raise ConfigError(f"expected HOST:PORT such as 127.0.0.1:8089, got {text!r}",
                          option)
    return (host.strip("[]") or "127.0.0.1"), int(port)


def rm_urls(text: str, option: str = "RM_URL") -> list[str]:
    """``http://rm1:8088,http://rm2:8088`` → the URLs without a trailing slash; a URL without
    a scheme is http (as the RM's default web address)."""
    urls = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "://" not in part:
            part = f"http://{part}"
        split = urlsplit(part)
        if split.scheme not in ("http", "https") or not split.hostname:
            raise ConfigError(f"expected http://HOST:PORT or https://HOST:PORT, "
                              f"got {part!r}", option)
        urls.append(part.rstrip("/"))
    if not urls:
        raise ConfigError("no ResourceManager URL given", option)
    return urls


def retention(text: str, option: str = "--retention") -> Retention:
    """``raw=2d,1m=7d,1h=400d,1d=1096d``: how long raw samples and each bucket width are
    kept (widths finest first, each a multiple of the one before; docs/watch.md
    "Retention")."""
    raw_ms: int | None = None
    tiers: list[tuple[int, int]] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        key, sep, kept = part.partition("=")
        if not sep:
            raise ConfigError(f"expected WIDTH=KEPT pairs such as raw=2d,1m=7d,1h=400d, got "
                              f"{part!r}", option)
        kept_ms = duration_ms(kept, option)
        if key.strip() == "raw":
            raw_ms = kept_ms
        else:
            tiers.append((duration_ms(key, option), kept_ms))
    if raw_ms is None:
        raise ConfigError("name how long raw samples are kept (raw=2d)", option)
    chosen = Retention(raw_ms, tuple(tiers))
    try:
        check(chosen)
    except ValueError as e:
        raise ConfigError(str(e), option) from None
    return chosen

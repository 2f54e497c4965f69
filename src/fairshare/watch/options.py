"""What ``fairshare watch``'s options say, read with errors that name the option: durations
(``5s``, ``500ms``, ``2m``, ``1h``, ``7d``), moments (ISO 8601, ``now``, ``-2h``), the listen
address (loopback unless asked otherwise) and the RM list (``URL[,URL…]``, HA pairs)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from urllib.parse import urlsplit

from fairshare.config.errors import ConfigError

_UNITS_MS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")


def duration_ms(text: str, option: str) -> int:
    """``5s`` → 5000; a bare number is seconds. Zero and negative durations are refused."""
    match = _DURATION.match(text)
    if not match:
        raise ConfigError(f"expected a duration such as 5s, 500ms, 2m, 1h or 7d, "
                          f"got {text!r}", option)
    ms = round(float(match.group(1)) * _UNITS_MS[match.group(2) or "s"])
    if ms <= 0:
        raise ConfigError(f"must be more than 0, got {text!r}", option)
    return ms


def moment_ms(text: str, option: str, now_ms: int) -> int:
    """An ISO 8601 time (a time without a zone is UTC), ``now``, or ``-DURATION`` before now."""
    stripped = text.strip()
    if stripped == "now":
        return now_ms
    if stripped.startswith("-"):
        return now_ms - duration_ms(stripped[1:], option)
    try:
        moment = datetime.fromisoformat(stripped)
    except ValueError:
        raise ConfigError(f"expected an ISO 8601 time (2026-12-01T10:00, "
                          f"2026-12-01 10:00+01:00), 'now' or -DURATION (-2h), got {text!r}",
                          option) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return int(moment.timestamp() * 1000)


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

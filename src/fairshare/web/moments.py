"""Moments and durations as people write them, read the same way by the pages' ``from``/``to``,
``watch fork --at``/``--until`` and ``watch``'s options: one reader.

A moment is Unix milliseconds, ``now``, ``now-1d2h`` (or ``-1d2h``: before now; d, h, m, s,
ms), or an ISO 8601 date or date-time (``2026-12-01``, ``2026-12-01T10:00``,
``2026-12-01 10:00+01:00``, ``…Z``), in ``zone`` when it names no offset. A duration is a
number with a unit (``5s``, ``500ms``, ``2m``, ``1h``, ``7d``), a bare number being seconds.
Each refuses with a ``ValueError`` saying what it expected; callers name the parameter or
option.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, tzinfo

_UNITS_MS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$")
_PARTS = re.compile(r"(\d+(?:\.\d+)?)(ms|s|m|h|d)")
MOMENT_FORMS = ("an ISO 8601 time (2026-12-01T10:00), Unix milliseconds, now, or a time "
                "before now (now-1d2h, -2h)")


def duration_ms(text: str) -> int:
    """``5s`` → 5000 (a bare number: seconds); more than zero."""
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"expected a duration such as 5s, 500ms, 2m, 1h or 7d, got {text!r}")
    ms = round(float(match.group(1)) * _UNITS_MS[match.group(2) or "s"])
    if ms <= 0:
        raise ValueError(f"must be more than 0, got {text!r}")
    return ms


def _before_now(rest: str) -> int | None:
    parts = _PARTS.findall(rest)
    if not parts or "".join(n + u for n, u in parts) != rest:
        return None
    return round(sum(float(n) * _UNITS_MS[u] for n, u in parts))


def moment_ms(text: str, now_ms: int, zone: tzinfo = UTC) -> int:
    """The moment ``text`` names (see the module docstring)."""
    value = text.strip()
    if value.lstrip("-").isdigit() and not value.startswith("-"):
        return int(value)
    if value == "now":
        return now_ms
    for prefix in ("now-", "-"):
        if value.startswith(prefix):
            back = _before_now(value[len(prefix):].replace(" ", ""))
            if back is not None:
                return now_ms - back
    try:
        moment = datetime.fromisoformat(value.removesuffix(" UTC").replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"expected {MOMENT_FORMS}, got {text!r}") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=zone)
    return round(moment.timestamp() * 1000)

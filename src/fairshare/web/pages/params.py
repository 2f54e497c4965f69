"""The pages' query parameters: a time window with Cloudera's filters (``from``, ``to``,
``days``, ``hours``, ``tz``), read once here so that every page says the same thing about a bad
one — a 400 naming the parameter, never a traceback.

Cloudera Manager's ``yarnUtilization`` takes ``from``/``to`` (ISO 8601), ``daysOfWeek``
(1 = Monday … 7 = Sunday) and ``startHourOfDay``/``endHourOfDay`` (inclusive,
``ServicesResourceV18``); here ``days`` is a list of those numbers or of day names, with ranges
(``mon-fri``, ``1-5``), and ``hours`` a list of hours or inclusive ranges (``9-17``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from fairshare.web.history.model import Window
from fairshare.web.moments import moment_ms

DAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
HOUR_MS = 3_600_000


class BadParameter(ValueError):
    """A query parameter the page cannot use: the parameter's name and why."""

    def __init__(self, parameter: str, why: str) -> None:
        super().__init__(f"query parameter {parameter!r}: {why}")
        self.parameter = parameter
        self.why = why


def timezone(query: Mapping[str, str]) -> ZoneInfo:
    name = query.get("tz") or "UTC"
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as e:
        raise BadParameter("tz", f"{name!r} is not an IANA time zone (e.g. Europe/Paris)") from e


def instant(query: Mapping[str, str], name: str, zone: ZoneInfo, now_ms: int) -> int | None:
    """``from``/``to``: a moment (:func:`fairshare.web.moments.moment_ms`: Unix ms, an ISO
    8601 date or date-time — without an offset it is in ``tz`` —, ``now``, ``now-2h``); None
    when absent."""
    text = (query.get(name) or "").strip()
    if not text:
        return None
    try:
        return moment_ms(text, now_ms, zone)
    except ValueError as e:
        raise BadParameter(name, str(e)) from None


def _numbers(name: str, text: str, low: int, high: int,
             names: tuple[str, ...] = ()) -> frozenset[int]:
    def one(part: str) -> int:
        word = part.strip().lower()[:3]
        if names and word in names:
            return names.index(word) + low
        if not part.strip().isdigit() or not low <= int(part) <= high:
            words = f", or a day name ({', '.join(names)})" if names else ""
            raise BadParameter(name, f"{part.strip()!r} is not a number from {low} to "
                                     f"{high}{words}")
        return int(part)

    found: set[int] = set()
    for item in text.split(","):
        if not item.strip():
            continue
        first, sep, last = item.partition("-")
        a, b = one(first), one(last) if sep else one(first)
        if b < a:
            raise BadParameter(name, f"the range {item.strip()!r} runs backwards")
        found.update(range(a, b + 1))
    if not found:
        raise BadParameter(name, "empty (leave it out to keep all)")
    return frozenset(found)


def weekdays(query: Mapping[str, str]) -> frozenset[int] | None:
    """``days``: Cloudera's numbers (1 = Monday … 7 = Sunday) or names, as Window's 0–6."""
    text = query.get("days")
    if not text:
        return None
    return frozenset(d - 1 for d in _numbers("days", text, 1, 7, DAY_NAMES))


def hours(query: Mapping[str, str]) -> frozenset[int] | None:
    text = query.get("hours")
    return None if not text else _numbers("hours", text, 0, 23)


def window(query: Mapping[str, str], end_default_ms: int, span_default_ms: int) -> Window:
    """The window a page shows: ``to`` (default: the newest sample) back to ``from`` (default:
    ``span_default_ms`` before it), with the day and hour filters."""
    zone = timezone(query)
    end = instant(query, "to", zone, end_default_ms)
    start = instant(query, "from", zone, end_default_ms)
    end = end if end is not None else end_default_ms
    start = start if start is not None else end - span_default_ms
    if end <= start:
        raise BadParameter("to" if "to" in query else "from",
                           "the window ends before it starts")
    return Window(start, end, weekdays(query), hours(query), zone.key)


def describe(w: Window) -> str:
    """The window in words, for the page's heading."""
    zone = ZoneInfo(w.timezone)
    def at(ms: int) -> str:
        return datetime.fromtimestamp(ms / 1000, zone).strftime("%Y-%m-%d %H:%M:%S")
    text = f"{at(w.start_ms)} to {at(w.end_ms)} ({w.timezone})"
    if w.weekdays is not None:
        text += "; days " + ", ".join(DAY_NAMES[d] for d in sorted(w.weekdays))
    if w.hours is not None:
        text += "; hours " + ", ".join(str(h) for h in sorted(w.hours))
    return text


def local_input(ms: int, zone_name: str) -> str:
    """A moment as a ``datetime-local`` form value in the window's zone."""
    return datetime.fromtimestamp(ms / 1000, ZoneInfo(zone_name)).strftime("%Y-%m-%dT%H:%M:%S")

"""What YARN accepts in an allocation file without a word, but that is almost surely a mistake.

Two kinds of warning, each located by the caller at the element's line:

* values that parse but break scheduling — a NaN or infinite weight, a NaN threshold, a negative
  ``maxRunningApps``, a negative timeout or one that wraps when YARN multiplies it by 1000;
* elements YARN ignores — unknown children of ``<queue>`` (silently) and unknown top-level
  elements (only logged) — with the likely intended name when one is close.

Weight 0 and ``maxRunningApps`` 0 are deliberate techniques (a queue with only its min share, a
closed queue) and get no warning.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable, Iterable

from fairshare.resources.javalang import parse_int, shorten, wrap_long

__all__ = ["did_you_mean", "value_warning"]

_NO_WAITING = "so there is no waiting: a queue below its share counts as starved at once (spec §4)"


def value_warning(tag: str, text: str, value: object) -> str | None:
    """Why the value ``text`` of element ``tag`` (parsed as ``value``) breaks scheduling, as
    ``<tag> "text" …``; None when it is fine or ``tag`` has no such check."""
    check = _CHECKS.get(tag)
    problem = check(text, value) if check is not None else None
    return None if problem is None else f'<{tag}> "{shorten(text)}" {problem}'


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """``"; did you mean <x>?"`` for the known element closest to ``name``, else ``""``.

    Case is ignored, and so is a namespace prefix (``p:weight`` suggests ``weight``).
    """
    by_lower = {k.lower(): k for k in known}
    local = name.rpartition(":")[2].lower()
    close = difflib.get_close_matches(local, list(by_lower), n=1, cutoff=0.75)
    return f"; did you mean <{by_lower[close[0]]}>?" if close else ""


def _weight(text: str, value: object) -> str | None:
    if not isinstance(value, float) or math.isfinite(value):
        return None
    if math.isnan(value):
        return (
            "gives weight NaN, which YARN accepts: the queue's fair share is then 0 at every step, "
            "so whenever its siblings cannot absorb the whole share (e.g. it is an only child) "
            "the doubling loop of the fair-share computation never ends and YARN's update "
            "thread hangs (spec §2.3)"
        )
    if value > 0:
        return (
            "gives weight +Infinity, which YARN accepts: the queue takes its parent's whole "
            "share up to its maxResources (unbounded by default), leaving its siblings only "
            "their min shares (spec §2.3)"
        )
    return "gives weight -Infinity, which YARN treats like 0: the queue gets only its min share"


def _threshold(text: str, value: object) -> str | None:
    if isinstance(value, float) and math.isnan(value):
        return (
            "is NaN, which YARN accepts: threshold × fair share is then 0, so no application is "
            "ever fair-share starved and fair-share preemption never happens (spec §4.2)"
        )
    return None


def _max_apps(text: str, value: object) -> str | None:
    if isinstance(value, int) and value < 0:
        return (
            "is negative: an application may run only while fewer than this many run, so none "
            "ever can (spec §3.9)"
        )
    return None


def _timeout(text: str, value: object) -> str | None:
    seconds = parse_int(text, bits=64)  # already parsed once, so it is a valid long
    ms = wrap_long(seconds * 1000)
    if ms != seconds * 1000:
        consequence = _NO_WAITING if ms < 0 else "not the timeout that was written"
        return f"seconds × 1000 overflows a Java long and wraps to {ms} ms, {consequence}"
    if seconds < 0:
        return f"is negative, {_NO_WAITING}"
    return None


_CHECKS: dict[str, Callable[[str, object], str | None]] = {
    "weight": _weight,
    "fairSharePreemptionThreshold": _threshold,
    "defaultFairSharePreemptionThreshold": _threshold,
    "maxRunningApps": _max_apps,
    "queueMaxAppsDefault": _max_apps,
    "userMaxAppsDefault": _max_apps,
    "minSharePreemptionTimeout": _timeout,
    "fairSharePreemptionTimeout": _timeout,
    "defaultMinSharePreemptionTimeout": _timeout,
    "defaultFairSharePreemptionTimeout": _timeout,
}

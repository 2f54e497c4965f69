"""``--until DURATION`` (``simulate``, ``run``): how long to simulate, read the way fairshare
writes durations.

A number alone is milliseconds, as the scenario's ``-ms`` keys are (``600000``); with units,
``ms``, ``s``, ``m`` (or ``min``), ``h`` and ``d``, joined or spaced and in any mix of them:
``90s``, ``12.5 s``, ``30m``, ``1h30m``, ``3 m 20 s`` and ``2 h 05 m`` (what the terminal and the
report print). A bad value is a usage error (exit 2) that says what is accepted.
"""

from __future__ import annotations

import re

import typer

from fairshare.core import MAX_TIME_MS

MS_PER = {"ms": 1, "s": 1000, "m": 60_000, "min": 60_000, "h": 3_600_000, "d": 86_400_000}
_PART = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|min|s|m|h|d)")  # longest unit names first
_FORMS = "a duration such as 30m, 1h30m, 90s, '2 h 05 m', or milliseconds (600000)"


def parse_until(text: str) -> int:
    """Milliseconds from ``text``; :class:`typer.BadParameter` when it is not a duration."""
    value = text.strip().lower()
    if value.isdigit():
        return _bounded(int(value), text)
    total, at = 0.0, 0
    for match in _PART.finditer(value):
        if value[at:match.start()].strip():
            break  # something that is not a number with its unit before this part
        total += float(match[1]) * MS_PER[match[2]]
        at = match.end()
    else:
        if at and not value[at:].strip():
            return _bounded(round(total), text)
    raise typer.BadParameter(f"{text!r} is not {_FORMS}")


def _bounded(ms: int, text: str) -> int:
    if ms > MAX_TIME_MS:
        raise typer.BadParameter(f"{text!r} is past the clock's limit (2^53 - 1 ms)")
    return ms

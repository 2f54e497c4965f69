"""What the views share: the query as a mapping, the window a history page shows by default,
moments written in the page's time zone, and data embedded for a page's script."""

from __future__ import annotations

import json
import time
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from starlette.requests import Request

from fairshare.report.units import DASH
from fairshare.web.pages.source import LiveSource


def query(request: Request) -> dict[str, str]:
    """The query, a repeated key's values joined by commas (the days checkboxes send
    ``days=1&days=2``, read as ``days=1,2``)."""
    params = request.query_params
    return {key: ",".join(params.getlist(key)) for key in params}


def newest_ms(source: LiveSource) -> int:
    """Where a window ends unless ``to`` says otherwise: the newest stored sample, else the
    latest in memory, else now (a history still empty)."""
    last = source.history().last_time_ms()
    if last is not None:
        return last
    latest = source.latest().sample
    return latest.time_ms if latest is not None else round(time.time() * 1000)


def cluster_mb(source: LiveSource) -> float | None:
    """The cluster's memory in the latest sample: what chooses the page's one memory unit
    (:func:`fairshare.report.units.memory_unit_of`); None before the first sample."""
    latest = source.latest().sample
    if latest is None or latest.cluster is None:
        return None
    return float(latest.cluster[0])


def when(ms: int | None, zone: str = "UTC") -> str:
    """A moment as ``2026-12-02 07:30:15``, in ``zone``; ``–`` for None or 0 (not reached)."""
    if not ms:
        return DASH
    return datetime.fromtimestamp(ms / 1000, ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M:%S")


def json_script(element_id: str, data: Any) -> str:
    """Data for the page's script, in the page: ``<`` escaped so no text in it (a queue named
    ``</script>``) can end the element."""
    text = json.dumps(data, ensure_ascii=False, allow_nan=False).replace("<", "\\u003c")
    return f'<script type="application/json" id="{element_id}">{text}</script>'

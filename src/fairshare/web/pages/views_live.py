"""The Scheduler page (``/``, ``/scheduler``), its live part (``/scheduler/live``) and its
data (``/api/scheduler``). The page's script polls ``/api/scheduler?only=status`` every few seconds,
updates the sample's age and the last error, and swaps in ``/scheduler/live`` when a new sample
has landed — never a full reload, and never a blank page while the RM fails."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from fairshare.web.pages.layout import page, status
from fairshare.web.pages.params import BadParameter
from fairshare.web.pages.scheduler_data import scheduler_data, status_data
from fairshare.web.pages.scheduler_page import live_part
from fairshare.web.pages.source import LiveSource

POLL_MS = 3000


def scheduler_json(source: LiveSource, request: Request) -> dict[str, Any]:
    """The whole sample; with ``?only=status`` just which sample and how old (what the page's
    script polls: a 10,000-app sample is megabytes, its status a few bytes)."""
    only = request.query_params.get("only")
    if only == "status":
        return status_data(source.latest())
    if only is not None:
        raise BadParameter("only", f"{only!r}: the one choice is 'status'")
    return scheduler_data(source.latest(), source.settings())


def live_fragment(source: LiveSource, request: Request) -> str:
    latest = source.latest()
    return live_part(scheduler_data(latest, source.settings()), latest)


def scheduler_page(source: LiveSource, request: Request) -> str:
    latest = source.latest()
    data = scheduler_data(latest, source.settings())
    return page("Scheduler", [
        status(latest), f'<div id="scheduler" data-poll-ms="{POLL_MS}">',
        live_part(data, latest), "</div>"], scripts=("scheduler.js",))

"""The Scheduler page (``/``, ``/scheduler``), its live part (``/scheduler/live``) and its
data (``/api/scheduler``). The page's script polls ``/api/scheduler`` every few seconds,
updates the sample's age and the last error, and swaps in ``/scheduler/live`` when a new sample
has landed — never a full reload, and never a blank page while the RM fails."""

from __future__ import annotations

from typing import Any

from starlette.requests import Request

from fairshare.web.pages.layout import page, status
from fairshare.web.pages.scheduler_data import scheduler_data
from fairshare.web.pages.scheduler_page import live_part
from fairshare.web.pages.source import LiveSource

POLL_MS = 3000


def scheduler_json(source: LiveSource, request: Request) -> dict[str, Any]:
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

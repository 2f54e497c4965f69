"""The live pages of a watched ResourceManager (docs/watch.md "Pages"): Scheduler, Queue,
Preemption Tuning, Applications by queue, an app, Nodes, a node, Diagnosis — and their JSON
under /api/."""

from __future__ import annotations

from fairshare.web.pages.app import create_app
from fairshare.web.pages.source import (
    Explained,
    HistoryView,
    LatestSample,
    LiveSource,
    ShownSettings,
)

__all__ = ["Explained", "HistoryView", "LatestSample", "LiveSource", "ShownSettings",
           "create_app"]

"""What ``fairshare watch`` serves: the live pages over the watcher's state and history, and
``/metrics`` — :mod:`fairshare.web.live` over the watcher's pipeline (``fairshare serve``
serves the same over its own).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from starlette.applications import Starlette

from fairshare.watch.service import Watcher
from fairshare.web.live import StateSource, live_app

__all__ = ["WatchSource", "watch_app_for"]


class WatchSource(StateSource):
    """The pages' :class:`~fairshare.web.pages.LiveSource` over a :class:`Watcher`: its
    settings shown when it watches an allocation file."""

    def __init__(self, watcher: Watcher, clock: Callable[[], float] = time.time) -> None:
        super().__init__(watcher.latest, watcher.history, lambda: int(clock() * 1000),
                         lambda: watcher.allocations is not None
                         and watcher.allocations.path is not None)
        self.watcher = watcher


def watch_app_for(watcher: Watcher) -> Starlette:
    return live_app(WatchSource(watcher))

"""Admission by ``maxRunningApps`` and ``userMaxApps`` (docs/semantics.md §3.9,
``MaxRunningAppsEnforcer``).

An app is *runnable* when its user and every queue from its leaf to the root are below their
limits; otherwise it waits in its leaf's non-runnable list and its user's waiting list, still
contributing demand but getting no share and no containers. When a runnable app leaves, the
waiting apps that may now run are promoted in start-time order, at most one per list gathered.
"""

from __future__ import annotations

from fairshare.core.hub.scheduler import ROOT, Scheduler
from fairshare.core.model.events import AppRunnable
from fairshare.core.model.reasons import Because, NotRunnable
from fairshare.core.model.records import App
from fairshare.core.rules.yarn_order import merged_by_start_time

INT_MAX = 2**31 - 1


def user_max_apps(s: Scheduler, user: str) -> int:
    config = s.allocations
    return config.user_max_apps.get(user, config.user_max_apps_default)


def why_not_runnable(s: Scheduler, app: App, queue: str | None = None
                     ) -> Because[NotRunnable] | None:
    """``canAppBeRunnable``: None if it may run, else which limit stops it (user first)."""
    limit = user_max_apps(s, app.user)
    if s.state.user_runnable.get(app.user, 0) >= limit:
        return Because(NotRunnable.USER_MAX_APPS, user=app.user, limit=limit)
    for name in s.ancestry(queue or app.queue):
        cap = s.settings(name).max_running_apps
        if s.state.queues[name].num_runnable >= cap:
            return Because(NotRunnable.MAX_RUNNING_APPS, queue=name, limit=cap)
    return None


def _gather(s: Scheduler, queue: str, lists: list[list[App]]) -> None:
    """``gatherPossiblyRunnableAppLists``: non-runnable lists below queues with slack."""
    if s.state.queues[queue].num_runnable >= s.settings(queue).max_running_apps:
        return
    node = s.tree[queue]
    if node.is_leaf:
        lists.append(list(s.state.queues[queue].non_runnable_apps))
        return
    for child in node.children:
        _gather(s, child, lists)


def promote_after_removal(s: Scheduler, app: App, leaf: str, cause: int | None) -> int:
    """``updateRunnabilityOnAppRemoval`` after a runnable ``app`` left ``leaf``."""
    highest = None
    for name in s.ancestry(leaf):
        if s.state.queues[name].num_runnable == s.settings(name).max_running_apps - 1:
            highest = name
    lists: list[list[App]] = []
    if highest is not None:
        _gather(s, highest, lists)
    if s.state.user_runnable.get(app.user, 0) == user_max_apps(s, app.user) - 1:
        lists.append(list(s.state.user_waiting.get(app.user, [])))
    return _promote(s, lists, len(lists), cause)


def promote_on_reload(s: Scheduler, cause: int | None) -> int:
    """``updateRunnabilityOnReload``: every queue with slack, no cap on promotions."""
    lists: list[list[App]] = []
    _gather(s, ROOT, lists)
    return _promote(s, lists, INT_MAX, cause)


def _promote(s: Scheduler, lists: list[list[App]], limit: int, cause: int | None) -> int:
    """``updateAppsRunnability``: promote in start-time order, skipping repeats."""
    promoted: list[App] = []
    previous = None
    for app in merged_by_start_time(lists, lambda a: a.start_time):
        if app is previous:
            continue
        if not app.runnable and not app.stopped and why_not_runnable(s, app) is None:
            s.write.promote(app)
            promoted.append(app)
            s.emit(AppRunnable, cause, app=app.id, queue=app.queue, promoted=True)
            if len(promoted) >= limit:
                break
        previous = app
    return len(promoted)


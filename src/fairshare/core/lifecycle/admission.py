"""Admission by ``maxRunningApps`` and ``userMaxApps`` (docs/semantics.md §3.9,
``MaxRunningAppsEnforcer``).

An app is *runnable* when its user and every queue from its leaf to the root are below their
limits; otherwise it waits in its leaf's non-runnable list and its user's waiting list, still
contributing demand but getting no share and no containers. When a runnable app leaves, the
waiting apps that may now run are promoted in start-time order, at most one per list gathered.
"""

from __future__ import annotations

from fairshare.core.model.events import AppRunnable
from fairshare.core.model.records import App
from fairshare.core.model.scheduler import ROOT, Scheduler
from fairshare.core.model.yarn_order import merged_by_start_time
from fairshare.resources.vector import subtract

INT_MAX = 2**31 - 1


def user_max_apps(s: Scheduler, user: str) -> int:
    config = s.allocations
    return config.user_max_apps.get(user, config.user_max_apps_default)


def why_not_runnable(s: Scheduler, app: App, queue: str | None = None) -> str | None:
    """``canAppBeRunnable``: None if it may run, else which limit stops it (user first)."""
    limit = user_max_apps(s, app.user)
    if s.state.user_runnable.get(app.user, 0) >= limit:
        return f"user {app.user} already has {limit} running app(s) (userMaxApps)"
    for name in s.ancestry(queue or app.queue):
        cap = s.settings(name).max_running_apps
        if s.state.queues[name].num_runnable >= cap:
            return f"queue {name} already has {cap} running app(s) (maxRunningApps)"
    return None


def track_runnable(s: Scheduler, app: App) -> None:
    """``trackRunnableApp`` + ``addApp(runnable=true)``."""
    app.runnable = True
    s.state.queues[app.queue].runnable_apps.append(app)
    s.touch_app(app)
    s.state.user_runnable[app.user] = s.state.user_runnable.get(app.user, 0) + 1
    for name in s.ancestry(app.queue):
        s.state.queues[name].num_runnable += 1


def track_non_runnable(s: Scheduler, app: App) -> None:
    """``trackNonRunnableApp`` + ``addApp(runnable=false)``."""
    app.runnable = False
    s.state.queues[app.queue].non_runnable_apps.append(app)
    s.state.user_waiting.setdefault(app.user, []).append(app)


def untrack(s: Scheduler, app: App) -> bool:
    """Take ``app`` out of its leaf and the counts; True if it was runnable (``removeApp``).

    A runnable app with a running AM also leaves the leaf's AM usage (``FSLeafQueue.removeApp``).
    """
    leaf = s.state.queues[app.queue]
    if app.runnable and app in leaf.runnable_apps:
        leaf.runnable_apps.remove(app)
        s.touch_app(app)
        if app.am_running and app.am_resource is not None:
            leaf.am_resource_usage = subtract(leaf.am_resource_usage, app.am_resource)
            s.touch_am_usage(app.queue)  # a move changes app.queue before the index looks
        s.state.user_runnable[app.user] -= 1
        for name in s.ancestry(app.queue):
            s.state.queues[name].num_runnable -= 1
        app.runnable = False
        return True
    if app in leaf.non_runnable_apps:
        leaf.non_runnable_apps.remove(app)
    waiting = s.state.user_waiting.get(app.user, [])
    if app in waiting:
        waiting.remove(app)
    return False


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
            _make_runnable(s, app)
            promoted.append(app)
            s.emit(AppRunnable, cause, app=app.id, queue=app.queue, promoted=True)
            if len(promoted) >= limit:
                break
        previous = app
    return len(promoted)


def _make_runnable(s: Scheduler, app: App) -> None:
    leaf = s.state.queues[app.queue]
    leaf.non_runnable_apps.remove(app)
    s.state.user_waiting[app.user].remove(app)
    track_runnable(s, app)

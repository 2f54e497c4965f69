"""Where the running apps' containers are, rebuilt from a dump (docs/import.md, "Guessed").

``/ws/v1/cluster/apps`` gives each running app's total allocation, its number of running
containers and the host of its AM; ``/ws/v1/cluster/nodes`` gives each node's used resources.
Neither lists the containers, so they are rebuilt, deterministically:

* sizes: when the app still asks for tasks, its running tasks are taken to be of the size it
  asks for most and the AM holds the rest (if that leaves the AM something); otherwise the
  allocation is split evenly, the remainder going to the AM. The sizes add up to the app's
  ``allocatedMB`` / ``allocatedVCores`` exactly, so every queue's usage is the dump's;
* places: the AM on its host (``amHostHttpAddress``); each task on a node whose used resources
  not yet explained by the containers placed there (and ``numContainers`` not yet placed) hold
  it, the one whose unexplained containers are on average nearest its size; else on the node
  with the most unexplained memory among those it fits on.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from fairshare.config.errors import ConfigError
from fairshare.sim.importer.dump import APPS, Amounts, DumpApp, DumpNode, PendingAsk

AM_PRIORITY = 0  # the RM asks for the AM container at priority 0
DEFAULT_AM: Amounts = (1024, 1)  # YARN's minimum allocation, when nothing tells the AM's size


@dataclass(frozen=True)
class Placed:
    node: str
    size: Amounts
    am: bool
    container: str | None = None


@dataclass(frozen=True)
class AppPlan:
    """One app of the dump as the scenario starts it."""

    app: DumpApp
    am: Amounts | None  # None: unmanaged
    running: tuple[Placed, ...]
    pending: tuple[PendingAsk, ...]  # task asks (the AM's ask of a waiting app excluded)


def plan_apps(apps: tuple[DumpApp, ...], nodes: tuple[DumpNode, ...], folder: str
              ) -> list[AppPlan]:
    """Running apps (start-time order) with their containers placed, then the apps waiting
    for their AM. Finished apps are history (``workload from-apps``), not state. Every AM is
    placed before any task: their hosts are known, and what they take is then not free."""
    room = {n.name: n.capacity for n in nodes}
    unexplained = {n.name: (*n.used, -1 if n.containers is None else n.containers)
                   for n in nodes}
    hosts = {n.name: n.name for n in nodes} | {n.http.rsplit(":", 1)[0]: n.name for n in nodes
                                               if n.http}
    live = sorted((a for a in apps if a.state in ("RUNNING", "ACCEPTED")),
                  key=lambda a: (a.state != "RUNNING", a.started_ms, a.id))
    running = [a for a in live if a.state == "RUNNING" and any(a.allocated)]
    sizes = {a.id: _sizes(a) for a in running}
    placed: dict[str, list[Placed]] = {}
    for app in running:
        am = not app.unmanaged
        placed[app.id] = [_place(app, sizes[app.id][0], am, room, unexplained, hosts, folder)]
    for app in running:
        placed[app.id] += [_place(app, size, False, room, unexplained, hosts, folder)
                           for size in sizes[app.id][1:]]
    plans = []
    for app in live:
        asks = app.asks or ()
        if app.id in placed:
            plans.append(AppPlan(app, None if app.unmanaged else sizes[app.id][0],
                                 tuple(placed[app.id]),
                                 tuple(a for a in asks if a.priority != AM_PRIORITY)))
            continue
        am_ask = next((a for a in asks if a.priority == AM_PRIORITY), None)
        am_size = None if app.unmanaged else am_ask.size if am_ask else DEFAULT_AM
        plans.append(AppPlan(app, am_size, (), tuple(a for a in asks if a is not am_ask)))
    return plans


def _sizes(app: DumpApp) -> list[Amounts]:
    """The running containers' sizes, the AM's first; they add up to the allocation."""
    n = max(app.running_containers, 1)
    memory, vcores = app.allocated
    tasks = Counter(a.size for a in (app.asks or ()) if a.priority != AM_PRIORITY)
    if tasks and n > 1 and not app.unmanaged:
        size = tasks.most_common(1)[0][0]
        rest = (memory - (n - 1) * size[0], vcores - (n - 1) * size[1])
        if rest[0] > 0 and rest[1] >= 0:
            return [rest, *[size] * (n - 1)]
    base = (memory // n, vcores // n)
    first = (base[0] + memory % n, base[1] + vcores % n)
    return [first, *[base] * (n - 1)]


Unexplained = tuple[int, int, int]  # memory-mb, vcores, containers (-1: not known)


def _place(app: DumpApp, size: Amounts, am: bool, room: dict[str, Amounts],
           unexplained: dict[str, Unexplained], hosts: dict[str, str], folder: str) -> Placed:
    fits = [name for name, free in room.items() if free[0] >= size[0] and free[1] >= size[1]]
    if not fits:
        raise ConfigError(f"app {app.id}: a container of {size[0]:,} MB and {size[1]} vcores "
                          "fits on no node next to the containers already placed: the dump's "
                          "nodes do not hold what its apps say they hold (were the files saved "
                          "at the same time?)", f"{folder}/{APPS}", app.line)
    home = hosts.get(app.am_host or "") if am else None
    if home not in fits:
        home = min(fits, key=lambda name: _misfit(unexplained[name], size))
    room[home] = (room[home][0] - size[0], room[home][1] - size[1])
    memory, vcores, count = unexplained[home]
    unexplained[home] = (memory - size[0], vcores - size[1], count - 1 if count > 0 else count)
    return Placed(home, size, am, app.am_container if am else None)


def _misfit(left: Unexplained, size: Amounts) -> tuple[bool, int, int]:
    """Lower is a better node for a container of ``size`` (ties: the first node)."""
    memory, vcores, count = left
    holds = memory >= size[0] and vcores >= size[1] and count != 0
    average = memory // count if count > 0 else size[0]
    return not holds, abs(average - size[0]) if holds else 0, -memory

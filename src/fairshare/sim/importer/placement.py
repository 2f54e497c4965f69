"""Where the running apps' containers are, rebuilt from a dump (docs/import.md, "Guessed").

``/ws/v1/cluster/apps`` gives each running app's total allocation, its number of running
containers and the host of its AM; ``/ws/v1/cluster/nodes`` gives each node's used resources.
Neither lists the containers, so they are rebuilt, deterministically:

* sizes: when the app still asks for tasks, its running tasks are taken to be of the size it
  asks for most and the AM holds the rest (if that leaves the AM something); otherwise the
  allocation is split evenly, the remainder going to the AM. The sizes add up to the app's
  ``allocatedMB`` / ``allocatedVCores`` exactly, so every queue's usage is the dump's;
* places: the AM on its host (``amHostHttpAddress``); then the tasks, largest first, each on a
  node whose used resources not yet explained by the containers placed there (and
  ``numContainers`` not yet placed) hold it, trying first the node whose unexplained
  containers are on average nearest its size, and going back on earlier choices when a task
  finds no such node (a bounded search): on a dump taken at one moment this finds a placement
  that explains every node's usage. When the search gives up, each task goes where it fits
  best, on any node with room.

The apps whose containers the RM listed (``containers/``, :mod:`.containers`) are not rebuilt:
their containers are where the list says, and the others are rebuilt around them.
"""

from __future__ import annotations

import heapq
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass

from fairshare.config.errors import ConfigError
from fairshare.sim.importer.dump import APPS, Amounts, DumpApp, DumpNode, PendingAsk

SEARCH_STEPS_PER_TASK = 4  # the placement search's budget, plus a constant
SEARCH_STEPS = 2_000
SEARCH_WIDTH = 6  # nodes tried for one task
AM_PRIORITY = 0  # the RM asks for the AM container at priority 0
DEFAULT_AM: Amounts = (1024, 1)  # YARN's minimum allocation, when nothing tells the AM's size


@dataclass(frozen=True)
class Placed:
    node: str
    size: Amounts
    am: bool
    container: str | None = None
    priority: int | None = None  # None: not known (a rebuilt task)


@dataclass(frozen=True)
class AppPlan:
    """One app of the dump as the scenario starts it."""

    app: DumpApp
    am: Amounts | None  # None: unmanaged
    running: tuple[Placed, ...]
    pending: tuple[PendingAsk, ...]  # task asks (the AM's ask of a waiting app excluded)
    exact: bool = False  # its containers are as the RM listed them (containers/), not rebuilt


Room = dict[str, Amounts]
Unexplained = tuple[int, int, int]  # memory-mb, vcores, containers (-1: not known)


def plan_apps(apps: tuple[DumpApp, ...], nodes: tuple[DumpNode, ...], folder: str,
              listed: Mapping[str, tuple[Placed, ...]] | None = None) -> list[AppPlan]:
    """Running apps (start-time order) with their containers placed, then the apps waiting
    for their AM. Finished apps are history (``workload from-apps``), not state. The
    containers of ``listed`` apps (the RM's own list, AM first) are where they are; the others
    are rebuilt around them, every AM before any task: their hosts are known, and what they
    take is then not free."""
    listed = listed or {}
    room = {n.name: n.capacity for n in nodes}
    unexplained = {n.name: (*n.used, -1 if n.containers is None else n.containers)
                   for n in nodes}
    live = sorted((a for a in apps if a.state in ("RUNNING", "ACCEPTED")),
                  key=lambda a: (a.state != "RUNNING", a.started_ms, a.id))
    for app in live:
        for c in listed.get(app.id, ()):
            _account(c.node, c.size, room, unexplained)
    rebuilt = [a for a in live if a.state == "RUNNING" and a.id not in listed
               and any(a.allocated)]
    sizes = {a.id: _sizes(a) for a in rebuilt}
    placed = _rebuild(rebuilt, sizes, nodes, room, unexplained, folder)
    plans = []
    for app in live:
        asks = app.asks or ()
        tasks = tuple(a for a in asks if a.priority != AM_PRIORITY)
        if app.id in listed and app.state == "RUNNING":
            running = listed[app.id]
            am = running[0].size if running[0].am else None
            plans.append(AppPlan(app, am, running, tasks, exact=True))
        elif app.id in placed:
            plans.append(AppPlan(app, None if app.unmanaged else sizes[app.id][0],
                                 tuple(placed[app.id]), tasks))
        else:
            am_ask = next((a for a in asks if a.priority == AM_PRIORITY), None)
            am_size = None if app.unmanaged else am_ask.size if am_ask else DEFAULT_AM
            plans.append(AppPlan(app, am_size, (), tuple(a for a in asks if a is not am_ask)))
    return plans


def _rebuild(running: list[DumpApp], sizes: dict[str, list[Amounts]],
             nodes: tuple[DumpNode, ...], room: Room, unexplained: dict[str, Unexplained],
             folder: str) -> dict[str, list[Placed]]:
    """The containers of ``running`` (sizes from :func:`_sizes`, the AM's first) placed: the
    AMs on their hosts, then the tasks by the bounded search, else where they fit best."""
    hosts = {n.name: n.name for n in nodes} | {n.http.rsplit(":", 1)[0]: n.name for n in nodes
                                               if n.http}
    placed: dict[str, list[Placed]] = {}
    for app in running:
        am = not app.unmanaged
        placed[app.id] = [_place(app, sizes[app.id][0], am, room, unexplained, hosts, folder)]
    tasks = sorted(((app, size) for app in running for size in sizes[app.id][1:]),
                   key=lambda task: (-task[1][0], -task[1][1]))  # largest first
    exact = _exact([size for _, size in tasks], unexplained)
    for i, (app, size) in enumerate(tasks):
        if exact is None:
            placed[app.id].append(_place(app, size, False, room, unexplained, hosts, folder))
        else:
            room[exact[i]] = (room[exact[i]][0] - size[0], room[exact[i]][1] - size[1])
            placed[app.id].append(Placed(exact[i], size, False))
    return placed


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
    _account(home, size, room, unexplained)
    return Placed(home, size, am, app.am_container if am else None)


def _account(node: str, size: Amounts, room: Room, unexplained: dict[str, Unexplained]
             ) -> None:
    """A container of ``size`` is on ``node``: less room, and less of its usage unexplained."""
    room[node] = (room[node][0] - size[0], room[node][1] - size[1])
    memory, vcores, count = unexplained[node]
    unexplained[node] = (memory - size[0], vcores - size[1], count - 1 if count > 0 else count)


def _misfit(left: Unexplained, size: Amounts) -> tuple[bool, int, int]:
    """Lower is a better node for a container of ``size`` (ties: the first node)."""
    memory, vcores, count = left
    holds = memory >= size[0] and vcores >= size[1] and count != 0
    average = memory // count if count > 0 else size[0]
    return not holds, abs(average - size[0]) if holds else 0, -memory


def _exact(sizes: list[Amounts], unexplained: dict[str, Unexplained]) -> list[str] | None:
    """A node for each of ``sizes`` within the nodes' unexplained usage (depth-first, best
    node first, nodes left in the same state tried once), or None when the budget runs out."""
    left = {name: list(values) for name, values in unexplained.items()}
    chosen: list[str] = []
    options = [_candidates(left, sizes[0])] if sizes else []
    budget = SEARCH_STEPS + SEARCH_STEPS_PER_TASK * len(sizes)
    while options:
        if not options[-1]:  # nothing left at this depth: undo the choice before it
            options.pop()
            if chosen:
                _take(left, chosen.pop(), sizes[len(chosen)], -1)
            continue
        budget -= 1
        if budget < 0:
            return None
        node = options[-1].pop(0)
        _take(left, node, sizes[len(chosen)], 1)
        chosen.append(node)
        if len(chosen) == len(sizes):
            return chosen
        options.append(_candidates(left, sizes[len(chosen)]))
    return [] if not sizes else None


def _candidates(left: dict[str, list[int]], size: Amounts) -> list[str]:
    """The few best nodes to try for ``size`` (one per distinct state): a search that needs
    more than these is not worth its time on a large cluster."""
    found: dict[tuple[int, ...], str] = {}
    for name, entry in left.items():
        if entry[0] >= size[0] and entry[1] >= size[1] and entry[2] != 0:
            found.setdefault(tuple(entry), name)
    best = heapq.nsmallest(SEARCH_WIDTH, found.items(),
                           key=lambda item: _misfit((item[0][0], item[0][1], item[0][2]), size))
    return [name for _, name in best]


def _take(left: dict[str, list[int]], node: str, size: Amounts, sign: int) -> None:
    entry = left[node]
    entry[0] -= sign * size[0]
    entry[1] -= sign * size[1]
    if entry[2] >= 0:  # -1: numContainers not known
        entry[2] -= sign

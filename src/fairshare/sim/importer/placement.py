"""Where the running apps' containers are, rebuilt from a dump (docs/import.md, "Containers
rebuilt").

``/ws/v1/cluster/apps`` gives each running app's total allocation, its number of running
containers and the host of its AM; ``/ws/v1/cluster/nodes`` gives each node's used resources
and container count. Neither lists the containers, so they are rebuilt, deterministically:
sizes YARN could have granted (:mod:`.limits`, :mod:`.sizes`), then a bounded search for a
layout that explains every node exactly (:mod:`.search`), else the closest placement, with a
note saying which nodes and apps are off and by how much (:mod:`.approximate`). The apps whose
containers the RM listed (``containers/``, :mod:`.containers`) are not rebuilt: their
containers are where the list says, and the others are rebuilt around them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from fairshare.sim.importer.approximate import node_differences, place_closely, signed
from fairshare.sim.importer.dump import Amounts, Dump, DumpApp, DumpNode, DumpQueue, PendingAsk
from fairshare.sim.importer.flexible import FlexApp, flexible_layout
from fairshare.sim.importer.limits import Limits, app_cap, check_totals
from fairshare.sim.importer.search import SearchApp, exact_layout, sums_agree
from fairshare.sim.importer.sizes import Sizes, size_candidates

AM_PRIORITY = 0  # the RM asks for the AM container at priority 0
DEFAULT_AM: Amounts = (1024, 1)  # YARN's minimum allocation, when nothing tells the AM's size
SHOWN = 5  # nodes and apps named in a note


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


@dataclass
class Placement:
    plans: list[AppPlan]
    notes: list[str] = field(default_factory=list)
    exact: bool = True  # every node explained by the containers placed on it


def holds_containers(app: DumpApp) -> bool:
    """Running, or accepted with its AM container allocated (not registered yet)."""
    return app.state in ("RUNNING", "ACCEPTED") and any(app.allocated)


def place_apps(dump: Dump, folder: str, listed: Mapping[str, tuple[Placed, ...]],
               limits: Limits) -> Placement:
    """Running apps (start-time order) with their containers placed, then the apps waiting
    for their AM. Finished apps are history (``workload from-apps``), not state.
    ConfigError: the dump contradicts itself (:mod:`.limits`)."""
    nodes = dump.nodes
    live = sorted((a for a in dump.apps if a.state in ("RUNNING", "ACCEPTED")),
                  key=lambda a: (not holds_containers(a), a.started_ms, a.id))
    left = [[*n.used, -1 if n.containers is None else n.containers] for n in nodes]
    room = [[n.capacity[0], n.capacity[1]] for n in nodes]
    index = {n.name: j for j, n in enumerate(nodes)}
    for app in live:
        for c in listed.get(app.id, ()):
            for entry in (left[index[c.node]], room[index[c.node]]):
                entry[0] -= c.size[0]
                entry[1] -= c.size[1]
            left[index[c.node]][2] -= 1 if left[index[c.node]][2] > 0 else 0
    check_totals([a for a in live if holds_containers(a)], dump, folder)
    rebuilt = [a for a in live if holds_containers(a) and a.id not in listed]
    result = Placement([])
    am_used = {q.name: q.am_used for q in _leaves(dump.root) if q.am_used is not None}
    candidates, flexible = _candidates(rebuilt, live, listed, limits, am_used, folder,
                                       result.notes)
    targets = _am_targets(live, listed, am_used)
    placed = _rebuild(rebuilt, candidates, flexible, targets, nodes, left, room, result)
    for app in live:
        result.plans.append(_plan(app, listed.get(app.id), placed.get(app.id)))
    if not result.exact:
        result.notes += _approximate_notes(result.plans, nodes)
    return result


def _leaves(queue: DumpQueue) -> list[DumpQueue]:
    if not queue.children:
        return [queue]
    return [q for child in queue.children for q in _leaves(child)]


def _candidates(rebuilt: list[DumpApp], live: list[DumpApp],
                listed: Mapping[str, tuple[Placed, ...]], limits: Limits,
                am_used: Mapping[str, Amounts], folder: str, notes: list[str]
                ) -> tuple[list[list[Sizes]], list[FlexApp]]:
    """Each app's size candidates, and its bounds for the second search."""
    hints = _am_hints(rebuilt, _am_targets(live, listed, am_used))
    found: list[list[Sizes]] = []
    flexible: list[FlexApp] = []
    for app in rebuilt:
        count = max(app.running_containers, 1)
        cap, cap_notes = app_cap(app, count, limits, folder)
        notes += cap_notes
        found.append(size_candidates(app, count, cap, hints.get(app.id), limits.minimum,
                                     limits.increment_mb))
        least = (min(limits.minimum[0], app.allocated[0] // count),
                 min(limits.minimum[1], app.allocated[1] // count))
        flexible.append(FlexApp(count, app.allocated, cap, least, None))
    return found, flexible


def _am_targets(live: list[DumpApp], listed: Mapping[str, tuple[Placed, ...]],
                am_used: Mapping[str, Amounts]) -> dict[str, Amounts]:
    """What each queue's ``amUsedResources`` leaves for the AMs of its rebuilt apps."""
    targets = {}
    for queue, used in am_used.items():
        known = [c.size for a in live if a.queue == queue for c in listed.get(a.id, ())[:1]
                 if c.am]
        targets[queue] = (used[0] - sum(s[0] for s in known), used[1] - sum(s[1] for s in known))
    return targets


def _am_hints(rebuilt: list[DumpApp], targets: Mapping[str, Amounts]) -> dict[str, Amounts]:
    """An AM's likeliest size from its queue's AM usage: the queue's rebuilt AMs sharing it
    evenly (exact when the app is the queue's only one)."""
    hints: dict[str, Amounts] = {}
    for queue, rest in targets.items():
        mine = [a for a in rebuilt if a.queue == queue and not a.unmanaged]
        if not mine or rest[0] <= 0 or rest[0] % len(mine) or rest[1] % len(mine):
            continue
        for app in mine:
            hints[app.id] = (rest[0] // len(mine), rest[1] // len(mine))
    return hints


def _rebuild(rebuilt: list[DumpApp], candidates: list[list[Sizes]],
             flexible: list[FlexApp], am_targets: Mapping[str, Amounts],
             nodes: tuple[DumpNode, ...], left: list[list[int]],
             room: list[list[int]], result: Placement) -> dict[str, list[Placed]]:
    """The first search, else the second, else the closest placement."""
    hosts = {n.name: j for j, n in enumerate(nodes)} | {
        n.http.rsplit(":", 1)[0]: j for j, n in enumerate(nodes) if n.http}
    homes = [None if a.unmanaged else hosts.get(a.am_host or "") for a in rebuilt]
    groups, totals = _am_groups(rebuilt, am_targets)
    layout = exact_layout([SearchApp(c, h, g) for c, h, g in zip(candidates, homes, groups,
                                                                  strict=True)],
                          left, am_totals=totals)
    placed: dict[str, list[Placed]] = {}
    if layout is not None:
        for i, app in enumerate(rebuilt):
            sizes = candidates[i][layout.candidate[i]]
            placed[app.id] = [_container(app, nodes[j].name, size, p == 0)
                              for p, (j, size) in enumerate(zip(layout.nodes[i], sizes,
                                                                strict=True))]
        return placed
    fitted = flexible_layout([replace(f, home=h) for f, h in zip(flexible, homes, strict=True)],
                             left) if sums_agree(candidates, left) else None
    if fitted is not None:
        for i, app in enumerate(rebuilt):
            placed[app.id] = [_container(app, nodes[j].name, size, p == 0)
                              for p, (j, size) in enumerate(fitted[i])]
        return placed
    result.exact = False
    first = [c[0] for c in candidates]
    closely = place_closely(first, homes, room, left)
    for i, app in enumerate(rebuilt):
        placed[app.id] = [_container(app, nodes[j].name, size, p == 0)
                          for p, (j, size) in enumerate(closely.placed[i])]
    for i, lost in closely.cuts:
        result.notes.append(
            f"app {rebuilt[i].id}: {lost[0]:,} MB and {lost[1]} vcores of its containers fit "
            "on no node next to the others (the nodes are fuller than the apps say): left "
            "out, so its queue holds that much less")
    return placed


def _am_groups(rebuilt: list[DumpApp], am_targets: Mapping[str, Amounts]
               ) -> tuple[list[int | None], list[Amounts]]:
    """Each managed app's queue as a group whose AMs add up to what the queue's
    ``amUsedResources`` leaves for its rebuilt apps."""
    queues = sorted({a.queue for a in rebuilt if not a.unmanaged and a.queue in am_targets})
    number = {q: g for g, q in enumerate(queues)}
    return ([None if a.unmanaged else number.get(a.queue) for a in rebuilt],
            [am_targets[q] for q in queues])


def _container(app: DumpApp, node: str, size: Amounts, first: bool) -> Placed:
    am = first and not app.unmanaged
    return Placed(node, size, am, app.am_container if am else None)


def _plan(app: DumpApp, listed: tuple[Placed, ...] | None,
          placed: list[Placed] | None) -> AppPlan:
    """Pending work: while an app's AM runs, every outstanding ask is its tasks', priority 0
    included (Spark asks for executors at priority 0); only before it runs is the priority-0
    ask the AM's."""
    asks = app.asks or ()
    if listed is not None and app.state == "RUNNING":
        return AppPlan(app, listed[0].size if listed[0].am else None, listed, asks, exact=True)
    if placed is not None:
        am = None if app.unmanaged or not placed else placed[0].size
        return AppPlan(app, am, tuple(placed), asks)
    am_ask = next((a for a in asks if a.priority == AM_PRIORITY), None)
    am_size = None if app.unmanaged else am_ask.size if am_ask else DEFAULT_AM
    return AppPlan(app, am_size, (), tuple(a for a in asks if a is not am_ask))


def _approximate_notes(plans: Sequence[AppPlan], nodes: tuple[DumpNode, ...]) -> list[str]:
    """Which nodes hold other than nodes.json says, by how much, and the rebuilt apps on them."""
    by_node: dict[str, list[Amounts]] = {}
    for plan in plans:
        for c in plan.running:
            by_node.setdefault(c.node, []).append(c.size)
    off = node_differences(nodes, by_node)
    if not off:
        return []
    shown = "; ".join(f"{name} {signed(m, 'MB')}, {signed(v, 'vcores')}, "
                      f"{signed(c, 'containers')}" for name, m, v, c in off[:SHOWN])
    more = f"; and {len(off) - SHOWN} more" if len(off) > SHOWN else ""
    names = {name for name, *_ in off}
    apps = [p.app.id for p in plans if not p.exact and any(c.node in names for c in p.running)]
    which = ", ".join(apps[:SHOWN]) + (f" and {len(apps) - SHOWN} more" if len(apps) > SHOWN
                                       else "")
    return [f"placement approximate: no layout of the rebuilt containers explains every node "
            f"(the files disagree, or the search gave up); {len(off)} of {len(nodes)} nodes "
            f"hold other than nodes.json says (placed minus dumped): {shown}{more}; rebuilt "
            f"apps with containers on them: {which or 'none'}; the queues' usage is the "
            "apps' either way"]

"""Consistency checks over a running engine: what must hold after every step.

Each check is a pure function that reads an :class:`~fairshare.core.engine.Engine` (or its
:class:`~fairshare.core.hub.scheduler.Scheduler`) and returns human-readable violations; an empty
list means the check passed. Nothing here changes the state, so a test can run them at any point
between two engine calls (``tests/core/test_engine_properties.py`` runs them after every step of
random command sequences). They are tests' instruments, not the engine's: a run never calls
them.

* :func:`node_over_allocation` — no node holds more than its capacity (docs/semantics.md §0.3,
  §3.6.2). A node that :meth:`~fairshare.core.engine.Engine.resize_node` shrank below what it holds
  is legitimately over-allocated until containers end (YARN keeps them), so callers pass such
  nodes as ``exempt``; :class:`~fairshare.core.ledger.NodeLedger` checks the exact property
  from the event stream instead: *no allocation ever* took a node past its capacity.
* :func:`usage_conservation` — node, app, queue and cluster totals equal the sums of the live
  containers they hold (§0.3, §3.6.2 ``allocate``, §5.7).
* :func:`queue_counts` — runnable/non-runnable lists and counters agree (§3.9).
* :func:`running_app_limits` — ``maxRunningApps`` / ``userMaxApps`` are respected (§3.9).
* :func:`reservation_consistency` — node and app reservations mirror each other (§3.3, §3.6.5).
* :func:`preemption_marks` — victims marked on nodes and owners agree; earmarks add up (§5.6).

What the event stream alone must satisfy is :mod:`tests.oracles.ledger`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable

from fairshare.core.engine import Engine
from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.records import App, ClusterState, Node
from fairshare.resources.vector import Resource, fits_in, sum_resources

__all__ = [
    "check_all",
    "node_over_allocation",
    "preemption_marks",
    "queue_counts",
    "reservation_consistency",
    "running_app_limits",
    "usage_conservation",
]


def scheduler_of(target: Engine | Scheduler) -> Scheduler:
    return target if isinstance(target, Scheduler) else target.s


def _total(items: Iterable[Resource], like: Resource) -> Resource:
    return sum_resources(list(items), like)


def differs(what: str, actual: Resource, expected: Resource) -> list[str]:
    return [] if actual == expected else [f"{what} is {actual!r}, expected {expected!r}"]


# -- nodes (§0.3, §3.6.2) -----------------------------------------------------------------------


def node_over_allocation(target: Engine | Scheduler, exempt: Collection[str] = ()) -> list[str]:
    """Nodes whose allocation does not fit in their capacity (all components, §0.2 ``fitsIn``).

    ``exempt``: nodes a resize shrank below their allocation (running containers stay, so the
    node is over-allocated without any allocation having been wrong).
    """
    return [
        f"node {n.name}: allocated {n.allocated!r} exceeds capacity {n.capacity!r}"
        for n in scheduler_of(target).state.nodes.values()
        if n.name not in exempt and not fits_in(n.allocated, n.capacity)
    ]


# -- usage (§0.3, §3.6.2, §5.7) -----------------------------------------------------------------


def usage_conservation(target: Engine | Scheduler) -> list[str]:
    """Every total equals the sum of the live containers it covers.

    Per node: ``allocated`` = Σ its containers. Per app: ``usage`` = Σ its live containers (none
    once stopped). Per queue: ``usage`` = Σ usage of the apps in its subtree. Cluster:
    ``allocated`` = Σ node allocations = Σ app usage = root usage; ``capacity`` = Σ nodes.
    Containers must be known to both their node and their app.
    """
    s = scheduler_of(target)
    state = s.state
    out = _container_links(state)
    for node in state.nodes.values():
        total = _total((c.resource for c in node.containers.values()), s.none)
        out += differs(f"node {node.name} allocated", node.allocated, total)
    for app in state.apps.values():
        total = _total((c.resource for c in app.containers.values()), s.none)
        out += differs(f"app {app.id} usage", app.usage, total)
    out += _queue_usage(s)
    out += _cluster_totals(state)
    return out


def _container_links(state: ClusterState) -> list[str]:
    out: list[str] = []
    for node in state.nodes.values():
        for cid, c in node.containers.items():
            owner = state.apps.get(c.app_id)
            if c.node != node.name or owner is None or owner.containers.get(cid) is not c:
                out.append(f"container {cid} on node {node.name} is not held by its app")
    for app in state.apps.values():
        if app.stopped and app.containers:
            out.append(f"app {app.id} is {app.state} but holds {len(app.containers)} containers")
        for cid, c in app.containers.items():
            holder = state.nodes.get(c.node)
            if holder is None or holder.containers.get(cid) is not c:
                out.append(f"container {cid} of app {app.id} is not on node {c.node}")
    return out


def _queue_usage(s: Scheduler) -> list[str]:
    out: list[str] = []
    placed = [a for a in s.state.apps.values() if a.queue]
    for name, runtime in s.state.queues.items():
        inside = [a.usage for a in placed if _inside(a, name)]
        out += differs(f"queue {name} usage", runtime.usage, _total(inside, s.none))
    return out


def _cluster_totals(state: ClusterState) -> list[str]:
    none = state.none
    nodes = list(state.nodes.values())
    out = differs("cluster allocated", state.allocated,
                   _total((n.allocated for n in nodes), none))
    out += differs("cluster allocated vs apps", state.allocated,
                    _total((a.usage for a in state.apps.values()), none))
    out += differs("cluster capacity", state.capacity, _total((n.capacity for n in nodes), none))
    root = state.queues.get("root")
    if root is not None:
        out += differs("root queue usage", root.usage, state.allocated)
    return out


# -- admission (§3.9) ---------------------------------------------------------------------------


def queue_counts(target: Engine | Scheduler) -> list[str]:
    """Runnable bookkeeping agrees with itself (§3.9 ``MaxRunningAppsEnforcer``).

    Each live, placed app is in exactly one of its leaf's two lists, matching ``app.runnable``;
    stopped apps are in none. A queue's ``num_runnable`` counts the runnable apps of its
    subtree; per-user runnable counts match the runnable apps; waiting lists hold exactly the
    non-runnable apps.
    """
    s = scheduler_of(target)
    out: list[str] = []
    for app in s.state.apps.values():
        out += _app_listing(s, app)
    for name, runtime in s.state.queues.items():
        runnable = [a for a in s.state.apps.values() if a.runnable and _inside(a, name)]
        if runtime.num_runnable != len(runnable):
            out.append(f"queue {name} num_runnable is {runtime.num_runnable}, "
                       f"but {len(runnable)} runnable apps are in its subtree")
    out += _user_counts(s)
    return out


def _inside(app: App, queue: str) -> bool:
    return app.queue == queue or app.queue.startswith(queue + ".")


def _app_listing(s: Scheduler, app: App) -> list[str]:
    places = [f"{name} ({kind})" for name, q in s.state.queues.items()
              for kind, listed in (("runnable", q.runnable_apps),
                                   ("non-runnable", q.non_runnable_apps)) if app in listed]
    if app.stopped or not app.queue:
        return [f"app {app.id} ({app.state}) is still listed in {p}" for p in places]
    kind = "runnable" if app.runnable else "non-runnable"
    if places != [f"{app.queue} ({kind})"]:
        return [f"app {app.id} ({kind}, queue {app.queue}) is listed in {places}"]
    return []


def _user_counts(s: Scheduler) -> list[str]:
    out: list[str] = []
    live = s.state.live_apps()
    users = {a.user for a in live} | set(s.state.user_runnable) | set(s.state.user_waiting)
    for user in sorted(users):
        runnable = sum(1 for a in live if a.user == user and a.runnable)
        if s.state.user_runnable.get(user, 0) != runnable:
            out.append(f"user {user} runnable count is {s.state.user_runnable.get(user, 0)}, "
                       f"but {runnable} of their apps are runnable")
        waiting = {a.id for a in live if a.user == user and not a.runnable and a.queue}
        listed = {a.id for a in s.state.user_waiting.get(user, [])}
        if waiting != listed:
            out.append(f"user {user} waiting list is {sorted(listed)}, expected {sorted(waiting)}")
    return out


def running_app_limits(target: Engine | Scheduler) -> list[str]:
    """No queue runs more than ``maxRunningApps`` and no user more than ``userMaxApps``.

    Holds as long as no reload lowered a limit: YARN never demotes running apps (§3.9).
    """
    s = scheduler_of(target)
    out: list[str] = []
    for name, runtime in s.state.queues.items():
        cap = s.settings(name).max_running_apps
        if runtime.num_runnable > cap:
            out.append(f"queue {name} runs {runtime.num_runnable} apps, maxRunningApps is {cap}")
    config = s.allocations
    for user, count in s.state.user_runnable.items():
        cap = config.user_max_apps.get(user, config.user_max_apps_default)
        if count > cap:
            out.append(f"user {user} runs {count} apps, userMaxApps is {cap}")
    return out


# -- reservations (§3.3, §3.6.5) ----------------------------------------------------------------


def reservation_consistency(target: Engine | Scheduler) -> list[str]:
    """A node's reservation is its app's reservation on that node, and vice versa.

    Stopped apps hold none. Reserved totals: each queue's ``reserved`` (and count) = Σ of the
    reservations of apps in its subtree; the cluster's = Σ over nodes.
    """
    s = scheduler_of(target)
    state = s.state
    out: list[str] = []
    for node in state.nodes.values():
        out += _node_reservation(state, node)
    for app in state.apps.values():
        for where, r in app.reservations.items():
            holder = state.nodes.get(where)
            if holder is None or holder.reservation is not r:
                out.append(f"app {app.id} holds a reservation on {where} the node does not know")
    reserved = [n.reservation for n in state.nodes.values() if n.reservation is not None]
    out += differs("cluster reserved", state.reserved,
                    _total((r.resource for r in reserved), s.none))
    for name, runtime in state.queues.items():
        mine = [r for r in reserved if _inside(state.apps[r.app_id], name)]
        out += differs(f"queue {name} reserved", runtime.reserved,
                        _total((r.resource for r in mine), s.none))
        if runtime.reserved_containers != len(mine):
            out.append(f"queue {name} reserved_containers is {runtime.reserved_containers}, "
                       f"expected {len(mine)}")
    return out


def _node_reservation(state: ClusterState, node: Node) -> list[str]:
    r = node.reservation
    if r is None:
        return []
    app = state.apps.get(r.app_id)
    if r.node != node.name or app is None or app.reservations.get(node.name) is not r:
        return [f"node {node.name} reservation by {r.app_id} is not held by that app"]
    if app.stopped:
        return [f"node {node.name} is reserved by {app.id}, which is {app.state}"]
    return []


# -- preemption marks (§5.6) --------------------------------------------------------------------


def preemption_marks(target: Engine | Scheduler) -> list[str]:
    """Marked victims are live containers, known to node and owner alike; earmarks add up.

    Per node: the marked set = the owners' ``containersToBePreempted`` on that node, and
    ``earmarked_total`` = Σ of its per-app earmarks. Per app: ``resourcesToBePreempted`` =
    Σ of its marked containers, each of which it still holds.
    """
    s = scheduler_of(target)
    state = s.state
    out: list[str] = []
    for app in state.apps.values():
        out += _owner_marks(s, app)
    for node in state.nodes.values():
        owners = {cid for a in state.apps.values() for cid, c in a.to_be_preempted.items()
                  if c.node == node.name}
        if set(node.marked_for_preemption) != owners:
            out.append(f"node {node.name} marks {sorted(node.marked_for_preemption)}, owners "
                       f"mark {sorted(owners)}")
        out += differs(f"node {node.name} earmarked total", node.earmarked_total,
                        _total(node.earmarks.values(), s.none))
    return out


def _owner_marks(s: Scheduler, app: App) -> list[str]:
    out = [f"app {app.id} marks container {cid}, which it no longer holds"
           for cid in app.to_be_preempted if cid not in app.containers]
    out += differs(f"app {app.id} resources to be preempted", app.resources_to_be_preempted,
                    _total((c.resource for c in app.to_be_preempted.values()), s.none))
    return out


# -- everything ---------------------------------------------------------------------------------


def check_all(target: Engine | Scheduler, exempt_nodes: Collection[str] = ()) -> list[str]:
    """Every state check of this module (``running_app_limits`` included)."""
    return [
        *node_over_allocation(target, exempt_nodes),
        *usage_conservation(target),
        *queue_counts(target),
        *running_app_limits(target),
        *reservation_consistency(target),
        *preemption_marks(target),
    ]

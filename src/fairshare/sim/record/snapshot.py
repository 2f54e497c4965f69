"""The full state of an engine as the scenario contract's *snapshot* (docs/scenario-format.md).

A snapshot is plain JSON-ready data with kebab-case keys; ``expect`` steps assert on it and
``snapshot`` steps record it in ``snapshots.json``. Queue entries also carry ``metrics``: the
queue's YARN metrics under YARN's names (docs/semantics.md §6.1).
"""

from __future__ import annotations

from typing import Any

from fairshare.core import App, AppState, Engine, Node
from fairshare.resources.vector import Resource, float32_decimal, is_none


def snapshot(engine: Engine, label: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if label is not None:
        out["label"] = label
    out["time-ms"] = engine.now
    out["cluster"] = cluster_entry(engine)
    out["queues"] = {q.name: queue_entry(engine, q.name) for q in engine.tree}
    out["apps"] = {a.id: app_entry(engine, a) for a in engine.state.apps.values()}
    out["nodes"] = {n: node_entry(engine, n) for n in engine.state.nodes}
    return out


def _r(engine: Engine, r: Resource) -> dict[str, int]:
    return engine.types.as_dict(r)


def _earmarked_by_app(engine: Engine, node: Node) -> dict[str, dict[str, int]]:
    """Earmarks per app: an ended attempt's entry (kept until the node's next heartbeat) and
    its successor's are added up."""
    by_app: dict[str, Resource] = {}
    for (app_id, _), amount in node.earmarks.items():
        held = by_app.get(app_id)
        by_app[app_id] = amount if held is None else held + amount
    return {app_id: _r(engine, amount) for app_id, amount in by_app.items()}


def cluster_entry(engine: Engine) -> dict[str, Any]:
    state = engine.state
    apps = [a for a in state.apps.values() if a.state is not AppState.REJECTED]
    utilization = engine.utilization()
    return {
        "capacity": _r(engine, state.capacity),
        "allocated": _r(engine, state.allocated),
        "reserved": _r(engine, state.reserved),
        "utilization": utilization if utilization == utilization else 0.0,  # NaN: empty
        "apps-submitted": len(apps),
        "apps-running": sum(1 for a in apps if a.state is AppState.RUNNING),
        "apps-pending": sum(1 for a in apps if a.state is AppState.ACCEPTED),
        "apps-completed": sum(1 for a in apps if a.state is AppState.FINISHED),
        "apps-killed": sum(1 for a in apps if a.state is AppState.KILLED),
        "apps-rejected": sum(1 for a in state.apps.values() if a.state is AppState.REJECTED),
        "containers-allocated": sum(len(n.containers) for n in state.nodes.values()),
        "nodes": len(state.nodes),
    }


def queue_entry(engine: Engine, name: str) -> dict[str, Any]:
    node, runtime, settings = engine.tree[name], engine.state.queues[name], engine.settings(name)
    runnable, waiting = engine.apps_below(name)
    active = [a for a in runnable if a.containers or a.am_running or not is_none(a.usage)]
    return {
        "type": "leaf" if node.is_leaf else "parent",
        "policy": str(settings.policy),
        "weight": float32_decimal(settings.weight),
        "preemptable": settings.preemptable,
        "dynamic": node.dynamic,
        "steady-fair-share": _r(engine, engine.steady_fair_share(name)),
        "fair-share": _r(engine, runtime.fair_share),
        "min-share": _r(engine, settings.min_share),
        "max-share": _r(engine, engine.max_share(name)),
        "usage": _r(engine, runtime.usage),
        "demand": _r(engine, runtime.demand),
        "reserved": _r(engine, runtime.reserved),
        "am-usage": _r(engine, runtime.am_resource_usage),
        "max-am-share": _r(engine, runtime.max_am_share_metric),
        "max-am-share-fraction": float32_decimal(settings.max_am_share),
        "num-active-apps": len(active),
        "num-pending-apps": len(runnable) - len(active) + len(waiting),
        "num-runnable-apps": len(runnable),
        "num-non-runnable-apps": len(waiting),
        "containers-preempted": runtime.containers_preempted,
        "min-share-starved-since-ms": runtime.min_share_starved_since,
        "metrics": engine.queue_metrics(name),
    }


def app_entry(engine: Engine, app: App) -> dict[str, Any]:
    return {
        "queue": app.queue or None,
        "user": app.user,
        "state": str(app.state),
        "runnable": app.runnable,
        "am-running": app.am_running,
        "attempt": app.attempt,
        "start-time-ms": app.start_time,
        "usage": _r(engine, app.usage),
        "demand": _r(engine, app.demand),
        "fair-share": _r(engine, app.fair_share),
        "live-containers": len(app.containers),
        "reserved-containers": len(app.reservations),
        "fairshare-starvation": _r(engine, app.fairshare_starvation),
        "minshare-starvation": _r(engine, app.minshare_starvation),
        "starved": not is_none(app.starvation),
        "below-fair-share": (not app.stopped and bool(app.queue)
                             and engine.is_starved_for_fair_share(app)),
        "to-be-preempted": _r(engine, app.resources_to_be_preempted),
        "to-be-preempted-containers": len(app.to_be_preempted),
        "preempted-containers": app.preempted_containers,
        "preempted-am-containers": app.preempted_am_containers,
        "preempted-resource": _r(engine, app.preempted_resource),
        "rejection-reason": app.rejection_reason,
    }


def node_entry(engine: Engine, name: str) -> dict[str, Any]:
    node = engine.state.nodes[name]
    return {
        "rack": node.rack,
        "capacity": _r(engine, node.capacity),
        "allocated": _r(engine, node.allocated),
        "unallocated": _r(engine, node.unallocated),
        "containers": len(node.containers),
        "am-containers": sum(1 for c in node.containers.values() if c.is_am),
        "reserved-by": node.reservation.app_id if node.reservation else None,
        "earmarked": _earmarked_by_app(engine, node),
        "marked-for-preemption": len(node.marked_for_preemption),
    }

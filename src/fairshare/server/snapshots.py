"""Building a :class:`~fairshare.server.view.ServerSnapshot` from an engine.

The engine loop calls :func:`server_snapshot` on its own thread after each batch of commands,
with the RM's records of apps and nodes; the differential oracle calls it on an engine that a
``fairshare run`` drove, without an RM around it, and :func:`rm_records_of` stands in for the
RM from what the engine knows (an app RUNNING once it had a container, as ``RMAppImpl`` once
its AM registered, an unmanaged one at once; nodes RUNNING).
"""

from __future__ import annotations

from fairshare.core import AppSnapshot, AppState, Engine, EngineSnapshot
from fairshare.server.view import (
    AttemptView,
    RMAppView,
    RMNodeView,
    ServerSnapshot,
    node_http_address,
)

_YARN_STATES = {
    AppState.ACCEPTED: ("ACCEPTED", "ACCEPTED", "UNDEFINED"),
    AppState.RUNNING: ("RUNNING", "RUNNING", "UNDEFINED"),
    AppState.FINISHED: ("FINISHED", "FINISHED", "SUCCEEDED"),
    AppState.KILLED: ("KILLED", "KILLED", "KILLED"),
    AppState.REJECTED: ("FAILED", "FAILED", "FAILED"),
}


def server_snapshot(engine: Engine, cluster_timestamp: int, now_ms: int,
                    apps: tuple[RMAppView, ...], nodes: tuple[RMNodeView, ...],
                    snap: EngineSnapshot | None = None, heartbeat_ms: int = 0
                    ) -> ServerSnapshot:
    """The engine's frozen snapshot (``snap``, if the caller has just taken it: a snapshot
    of thousands of nodes is not cheap) with every queue's settings and metrics beside it;
    ``heartbeat_ms``: the epoch ms of the last heartbeat round (the active nodes' views that
    name no time of their own heartbeat then)."""
    if snap is None:
        snap = engine.snapshot()
    names = [q.name for q in snap.queues]
    settings = {name: engine.settings(name) for name in names}
    metrics = {name: engine.queue_metrics(name) for name in names}
    site = engine.site
    return ServerSnapshot(cluster_timestamp, now_ms, snap, engine.types,
                          site.minimum_allocation, site.maximum_allocation, settings, metrics,
                          apps, nodes, heartbeat_ms=heartbeat_ms)


def rm_records_of(snap: EngineSnapshot, cluster_timestamp: int
                  ) -> tuple[tuple[RMAppView, ...], tuple[RMNodeView, ...]]:
    """RM records for an engine without an RM (the oracle's runs): every app as the RM would
    hold it had it been submitted to the scheduler as is, every node RUNNING."""
    apps = tuple(_app(a, snap, cluster_timestamp) for a in snap.apps)
    nodes = tuple(RMNodeView(n.name, n.name.rsplit(":", 1)[0], node_http_address(n.name), n.rack,
                             "DECOMMISSIONING" if n.decommissioning else "RUNNING",
                             cluster_timestamp + snap.time, n.capacity)
                  for n in snap.nodes)
    return apps, nodes


def _app(a: AppSnapshot, snap: EngineSnapshot, ts: int) -> RMAppView:
    # an unmanaged AM runs from the start: its client launches it and registers it at once
    # (RMAppAttemptImpl goes to LAUNCHED without an AM container)
    engine_state = AppState.RUNNING if a.unmanaged and a.state is AppState.ACCEPTED \
        else a.state
    state, rm_state, final = _YARN_STATES[engine_state]
    am = next((c for c in snap.containers if c.app == a.id and c.am), None)
    node = a.master_node
    attempt = AttemptView(a.attempt, ts + a.start_time,
                          0 if a.finish_time is None else ts + a.finish_time,
                          state if state in ("RUNNING", "FINISHED", "KILLED", "FAILED")
                          else "SCHEDULED",
                          a.master_container, node,
                          None if node is None else node_http_address(node))
    ended = a.state in (AppState.FINISHED, AppState.KILLED, AppState.REJECTED)
    return RMAppView(
        a.id, a.id, a.user, a.queue, state, rm_state, final, 1.0 if ended else 0.0,
        a.rejection_reason or "", "YARN", (), 0, a.unmanaged, ts + a.start_time,
        -1 if am is None else ts + am.allocated_at,
        0 if a.finish_time is None else ts + a.finish_time,
        # a rejected app never had an attempt (RMAppImpl makes one once the scheduler took it)
        () if a.state is AppState.REJECTED else (attempt,),
        () if a.state is AppState.REJECTED else tuple((t, 0) for t in ("memory-mb", "vcores")),
        (),
        a.preempted_am_containers, a.preempted_containers - a.preempted_am_containers,
        a.preempted_resource)

"""``Engine.snapshot()``: a frozen picture a caller keeps while the engine moves on (issue 31).

Expected values are the engine's own queries and records at the moment of the snapshot, and
YARN's definitions where the snapshot computes something (docs/semantics.md: pending demand, the
ANY asks, §2.2; the AM limit, ``computeMaxAMResource``, §3.6.4, with maxAMShare 0.5 on an empty
queue whose fair share is half the cluster)."""

from __future__ import annotations

import copy
import dataclasses
import math

import pytest

from fairshare.core import AppState, Engine, EngineSnapshot
from tests.core.engine_builders import GB, ask, make_engine, r

QUEUES = "<queue name='a'><maxAMShare>0.5</maxAMShare></queue><queue name='b'/>"


def busy_engine() -> Engine:
    engine = make_engine(QUEUES, nodes=(("n1", 8 * GB, 8), ("n2", 8 * GB, 8)))
    engine.submit("app1", "a", "alice", r(GB), [ask(3, 2 * GB)])
    engine.submit("app2", "b", "bob", r(GB), [ask(20, 2 * GB)])
    engine.update()
    engine.heartbeat_all()
    engine.heartbeat_all()
    engine.update()
    return engine


def test_an_old_snapshot_does_not_move_with_the_engine() -> None:
    engine = busy_engine()
    snap = engine.snapshot()
    kept = copy.deepcopy(snap)
    engine.advance(1000)
    engine.add_node("n3", r(8 * GB, 8))
    engine.heartbeat_all()
    engine.complete_container("app2", snap.app("app2").containers[-1])
    engine.kill("app1")
    engine.update()
    later = engine.snapshot()
    assert snap == kept
    assert later != snap  # the engine did move
    assert later.app("app1").state is AppState.KILLED
    assert snap.app("app1").state is AppState.RUNNING
    assert len(later.nodes) == 3 and len(snap.nodes) == 2


def test_a_snapshot_is_frozen() -> None:
    snap = busy_engine().snapshot()
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.time = 5  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        snap.queues[0].usage = snap.capacity  # type: ignore[misc]
    assert isinstance(snap.queues, tuple) and isinstance(snap.app("app1").containers, tuple)


def test_snapshot_values_are_the_engines() -> None:
    engine = busy_engine()
    snap: EngineSnapshot = engine.snapshot()
    state = engine.state
    assert (snap.time, snap.events_emitted) == (engine.now, engine.events_emitted)
    assert (snap.capacity, snap.allocated) == (state.capacity, state.allocated)
    assert [q.name for q in snap.queues] == [n.name for n in engine.tree.depth_first()]
    for q in snap.queues:
        runtime, settings = state.queues[q.name], engine.settings(q.name)
        assert q.steady_fair_share == engine.steady_fair_share(q.name)
        assert (q.fair_share, q.demand, q.usage) == (runtime.fair_share, runtime.demand,
                                                     runtime.usage)
        assert (q.min_share, q.max_share) == (settings.min_share, engine.max_share(q.name))
        runnable, waiting = engine.apps_below(q.name)
        assert q.running_apps == tuple(a.id for a in runnable)
        assert q.pending_apps == tuple(a.id for a in waiting)
        metrics = engine.queue_metrics(q.name)
        assert (q.am_usage.memory, q.am_usage.vcores) == (metrics["AMResourceUsageMB"],
                                                          metrics["AMResourceUsageVCores"])
    assert [a.id for a in snap.apps] == list(state.apps)
    for a in snap.apps:
        app = engine.app(a.id)
        assert (a.state, a.queue, a.user, a.usage, a.demand) == (
            app.state, app.queue, app.user, app.usage, app.demand)
        assert a.containers == tuple(app.containers)
    app2 = engine.app("app2")  # pending: what its ANY asks still want (§2.2)
    left = sum(t["*"].count for t in app2.asks.values() if "*" in t)
    assert snap.app("app2").pending.memory == left * 2 * GB > 0
    for n in snap.nodes:
        node = engine.node(n.name)
        assert (n.capacity, n.allocated, n.rack) == (node.capacity, node.allocated, node.rack)
        held = node.reservation
        assert (n.reservation is None) == (held is None)
        if held is not None and n.reservation is not None:
            assert (n.reservation.app, n.reservation.resource) == (held.app_id, held.resource)
        assert n.containers == tuple(node.containers)
    running = [(c.app_id, c.id) for a in state.apps.values() for c in a.containers.values()]
    assert [(c.app, c.id) for c in snap.containers] == running
    for app_id, container_id in running:
        c, live = snap.container(app_id, container_id), engine.app(app_id).containers[container_id]
        assert (c.node, c.resource, c.am, c.priority) == (live.node, live.resource, live.is_am,
                                                          live.key[0])


def test_the_am_limit_is_yarns() -> None:
    """root.a and root.b share 16 GB evenly once both are active (the fair policy shares
    memory only): a's fair share is 8 GB, 0 vcores. maxAMShare 0.5 gives 4 GB; the zero vcores
    are replaced by min(root available, max share) first (YARN-5077) and halved, rounded up;
    -1 disables the limit."""
    engine = busy_engine()
    a = engine.snapshot().queue("root.a")
    assert a.fair_share == r(8 * GB, 0)
    free = min(engine.state.root_available.vcores, a.max_share.vcores)
    assert a.am_limit == r(4 * GB, math.ceil(free / 2))
    off = make_engine("<queue name='a'><maxAMShare>-1</maxAMShare></queue>")
    assert off.snapshot().queue("root.a").am_limit is None
    assert off.snapshot().queue("root").am_limit is None  # parents have none


def test_taking_a_snapshot_writes_nothing() -> None:
    engine = busy_engine()
    version, events = engine.s.changes.version, engine.events_emitted
    first = engine.snapshot()
    assert engine.snapshot() == first
    assert (engine.s.changes.version, engine.events_emitted) == (version, events)


def test_unknown_names_are_refused() -> None:
    snap = busy_engine().snapshot()
    with pytest.raises(KeyError):
        snap.queue("root.nope")
    with pytest.raises(KeyError):
        snap.node("n9")

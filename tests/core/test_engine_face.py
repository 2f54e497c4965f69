"""The engine's face (issue 31): commands change state, queries write nothing; steady shares
follow the commands; errors come by kind.

Steady fair shares are YARN's ``FairScheduler.addNode``/``removeNode``/``reinitialize`` work:
recomputed by every command that changes the cluster or the queue tree, so a query only reads
them (compared here with :func:`compute_steady_fair_shares` on the same tree and cluster)."""

from __future__ import annotations

from typing import Any

import pytest

from fairshare.config.allocation import parse_allocations_text
from fairshare.core import (
    AppStopped,
    ClockError,
    DuplicateApp,
    DuplicateNode,
    Engine,
    EngineError,
    UnknownApp,
    UnknownContainer,
    UnknownNode,
    compute_steady_fair_shares,
)
from fairshare.core.model.event_records import event_record
from tests.core.engine_builders import GB, allocations_xml, ask, make_engine, r

QUEUES = "<queue name='a'><weight>3</weight></queue><queue name='b'/>"
NODES = [("n1", r(8 * GB, 8), "/r1"), ("n2", r(4 * GB, 4), "/r1"), ("n3", r(8 * GB, 2), "/r2")]


def stored_steady(engine: Engine) -> dict[str, Any]:
    """The steady shares as the state holds them, read without any query."""
    return {name: q.steady_fair_share for name, q in engine.state.queues.items()}


def expected_steady(engine: Engine) -> dict[str, Any]:
    return dict(compute_steady_fair_shares(engine.tree, engine.state.capacity))


def test_commands_keep_steady_shares_current() -> None:
    engine = make_engine(QUEUES, nodes=())
    assert stored_steady(engine) == expected_steady(engine)  # an empty cluster: all zero
    steps = [
        lambda: engine.add_node("n1", r(8 * GB, 8)),
        lambda: engine.add_nodes(NODES[1:]),
        lambda: engine.resize_node("n2", r(2 * GB, 2)),
        lambda: engine.submit("app1", "root.c.d", "alice", r(GB)),  # a dynamic queue
        lambda: engine.decommission_node("n3", 0),  # shrinks to its use: nothing
        lambda: engine.advance(1),  # the timeout: it leaves
        lambda: engine.remove_node("n1"),
        lambda: engine.reload(parse_allocations_text(
            allocations_xml("<queue name='e'/>"), "new.xml", engine.types), "new.xml"),
    ]
    seen = []
    for step in steps:
        step()
        assert stored_steady(engine) == expected_steady(engine)
        seen.append(engine.state.capacity)
    assert "root.c.d" in engine.state.queues and "root.e" in engine.state.queues
    assert len(set(seen)) > 3  # the cluster did change under the shares


def test_add_nodes_is_add_node_one_by_one() -> None:
    one, batch = make_engine(QUEUES, nodes=()), make_engine(QUEUES, nodes=())
    for name, capacity, rack in NODES:
        one.add_node(name, capacity, rack)
    nodes = batch.add_nodes(iter(NODES))
    assert [n.name for n in nodes] == ["n1", "n2", "n3"]
    assert [event_record(e, one.types) for e in one.events] == \
        [event_record(e, batch.types) for e in batch.events]
    assert stored_steady(one) == stored_steady(batch) == expected_steady(batch)


def test_a_refused_node_in_a_batch_keeps_those_before() -> None:
    engine = make_engine(QUEUES, nodes=())
    with pytest.raises(DuplicateNode, match=r"^node n1 is already registered$"):
        engine.add_nodes([*NODES[:2], ("n1", r(GB), "/r1"), NODES[2]])
    assert list(engine.state.nodes) == ["n1", "n2"]
    assert stored_steady(engine) == expected_steady(engine)


def test_queries_write_nothing() -> None:
    engine = make_engine(QUEUES)
    engine.submit("app1", "a", "alice", r(GB), [ask(4, GB)])
    engine.update()
    engine.heartbeat("n1")
    engine.request("app1", [ask(2, 2 * GB)])  # the walk's index now has changes to catch up
    before = (engine.s.changes.version, engine.events_emitted, stored_steady(engine),
              engine.snapshot(), engine._steps.order_index._changes.apps.copy())
    for queue in engine.state.queues:
        engine.steady_fair_share(queue)
        engine.queue_metrics(queue)
        engine.apps_below(queue)
        engine.max_share_above(queue)
    engine.next_timer()
    engine.utilization()
    engine.is_starved_for_fair_share(engine.app("app1"))
    engine.snapshot()
    after = (engine.s.changes.version, engine.events_emitted, stored_steady(engine),
             engine.snapshot(), engine._steps.order_index._changes.apps.copy())
    assert after == before
    assert before[4]  # the index had something to catch up, and still has


def test_errors_come_by_kind_with_their_messages() -> None:
    engine = make_engine(QUEUES)
    engine.submit("app1", "a", "alice", r(GB))
    cases: list[tuple[Any, type[EngineError], str]] = [
        (lambda: engine.app("nope"), UnknownApp, "unknown application nope"),
        (lambda: engine.node("n9"), UnknownNode, "unknown node n9"),
        (lambda: engine.add_node("n1", r(GB)), DuplicateNode, "node n1 is already registered"),
        (lambda: engine.submit("app1", "a"), DuplicateApp, "application app1 already exists"),
        (lambda: engine.complete_container("app1", "c9"), UnknownContainer,
         "application app1 has no running container c9"),
        (lambda: engine.advance_to(-1), ClockError, "time cannot go back from 0 to -1 ms"),
    ]
    for call, kind, message in cases:
        with pytest.raises(kind) as caught:
            call()
        assert str(caught.value) == message
        assert isinstance(caught.value, EngineError) and isinstance(caught.value, ValueError)
    engine.kill("app1")
    with pytest.raises(AppStopped, match=r"^application app1 has already ended"):
        engine.finish("app1")

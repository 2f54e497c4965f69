"""Graceful decommission (YARN-914, YARN-3223): numbers worked out by hand from YARN's rules.

Two 8 GB / 8-vcore nodes; containers of 2 GB / 1 vcore. A decommissioning node's total becomes
what its containers use, so the cluster is 8 GB + what is left on the decommissioning node.
"""

from __future__ import annotations

import pytest

from fairshare.core.engine import Engine, EngineError
from tests.core.engine_builders import GB, ask, make_engine, r, records

# root's only children (Hadoop 3.4 creates no root.default at start): weights 1:1 give root.a
# half the cluster
TWO_QUEUES = "<queue name='a'/><queue name='b'/>"
NODES = (("n1", 8 * GB, 8), ("n2", 8 * GB, 8))


def two_on_n1() -> Engine:
    """app1 (unmanaged) runs two 2 GB containers on n1 (one per heartbeat)."""
    engine = make_engine(TWO_QUEUES, nodes=NODES)
    engine.submit("app1", "a", "u", None, [ask(2, 2 * GB)])
    engine.update()
    engine.heartbeat("n1")
    engine.heartbeat("n1")
    assert engine.node("n1").allocated == r(4 * GB, 2)
    return engine


def test_the_total_becomes_the_used_resource_and_steady_shares_follow() -> None:
    engine = two_on_n1()
    assert engine.steady_fair_share("root.a").memory == 8 * GB  # half of 16 GB
    engine.decommission_node("n1", None)
    assert engine.node("n1").capacity == r(4 * GB, 2)
    assert engine.state.capacity == r(12 * GB, 10)
    assert engine.steady_fair_share("root.a").memory == 6 * GB  # half of 12 GB
    started = records(engine, "node-decommissioning")
    assert started == [{"t": 0, "type": "node-decommissioning", "seq": started[0]["seq"],
                        "node": "n1", "deadline": None, "running-containers": 2}]
    resized = records(engine, "node-resized")[-1]
    assert (resized["cause"], resized["capacity"]) == (started[0]["seq"],
                                                       {"memory-mb": 4 * GB, "vcores": 2})


def test_no_new_container_is_placed_and_the_node_leaves_when_drained() -> None:
    engine = two_on_n1()
    engine.decommission_node("n1", None)
    engine.submit("app2", "b", "u", None, [ask(1, GB)])
    engine.update()
    engine.heartbeat("n1")
    assert records(engine, "container-allocated")[-1]["app"] == "app1"  # nothing for app2
    engine.heartbeat("n2")
    assert records(engine, "container-allocated")[-1]["node"] == "n2"
    first, second = list(engine.app("app1").containers)
    engine.complete_container("app1", first)
    assert engine.node("n1").capacity == r(4 * GB, 2)  # until its next heartbeat
    engine.heartbeat("n1")
    assert engine.node("n1").capacity == r(2 * GB, 1)
    assert engine.state.capacity == r(10 * GB, 9)
    engine.complete_container("app1", second)
    engine.heartbeat("n1")  # empty, but app1, which ran there, still runs: it stays
    assert engine.node("n1").capacity == r(0, 0)
    assert records(engine, "node-decommissioned") == []
    engine.finish("app1")
    engine.heartbeat("n1")
    gone = records(engine, "node-decommissioned")
    assert [(g["node"], g["reason"]) for g in gone] == [("n1", "drained")]
    removed = records(engine, "node-removed")[-1]
    assert (removed["node"], removed["lost-containers"], removed["cause"]) == (
        "n1", 0, gone[0]["seq"])
    assert list(engine.state.nodes) == ["n2"]
    assert engine.state.capacity == r(8 * GB, 8)


def test_at_its_timeout_the_node_leaves_and_its_containers_are_lost() -> None:
    engine = two_on_n1()
    engine.advance(1000)
    engine.decommission_node("n1", 5000)
    assert engine.next_timer() == 6000
    engine.advance(4999)
    assert "n1" in engine.state.nodes
    engine.advance(10)
    gone = records(engine, "node-decommissioned")
    assert [(g["t"], g["reason"]) for g in gone] == [(6000, "timeout")]
    lost = records(engine, "container-completed")
    assert [(c["t"], c["status"]) for c in lost] == [(6000, "lost"), (6000, "lost")]
    assert engine.now == 6009
    assert engine.next_timer() is None
    assert engine.state.capacity == r(8 * GB, 8)


def test_asked_again_the_new_timeout_counts_from_then() -> None:
    engine = two_on_n1()
    engine.decommission_node("n1", 5000)
    engine.advance(3000)
    engine.decommission_node("n1", 10_000)
    assert engine.next_timer() == 13_000
    engine.advance(9000)  # the first deadline, 5000, has no effect any more
    assert "n1" in engine.state.nodes
    engine.advance(1000)
    assert [g["t"] for g in records(engine, "node-decommissioned")] == [13_000]


def test_a_node_that_never_ran_anything_leaves_at_its_next_heartbeat() -> None:
    engine = make_engine(TWO_QUEUES, nodes=NODES)
    engine.decommission_node("n2", 0)  # a zero timeout: at once, as -g 0
    assert engine.state.capacity == r(8 * GB, 8)  # total 0 already
    engine.advance(0)
    assert list(engine.state.nodes) == ["n1"]
    assert records(engine, "node-decommissioned")[0]["reason"] == "timeout"


def test_heartbeat_all_runs_past_a_node_that_leaves() -> None:
    engine = make_engine(TWO_QUEUES, nodes=NODES)
    engine.decommission_node("n1", None)
    engine.submit("app1", "a", "u", None, [ask(1, GB)])
    engine.update()
    engine.heartbeat_all()
    assert list(engine.state.nodes) == ["n2"]
    assert records(engine, "container-allocated")[0]["node"] == "n2"


def test_an_unknown_node_is_refused() -> None:
    engine = make_engine(TWO_QUEUES, nodes=NODES)
    with pytest.raises(EngineError, match="unknown node n9"):
        engine.decommission_node("n9", None)

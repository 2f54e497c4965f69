"""A new attempt (the AM released, lost or preempted) is a new FSAppAttempt: its demand is 0
until the next update pass computes it, so no heartbeat serves it before then."""

from __future__ import annotations

import pytest

from tests.core.engine_builders import GB, ask, make_engine, r, records


@pytest.mark.parametrize("reference_update", [False, True])
def test_the_new_attempt_waits_for_the_next_update(reference_update: bool) -> None:
    engine = make_engine('<queue name="a"/>', reference_update=reference_update)
    engine.submit("x", "root.a", "u", am=r(GB, 1), requests=[ask(2, GB)])
    engine.update()
    engine.heartbeat("n1")  # one container per heartbeat: the AM
    assert engine.app("x").demand.memory == 3 * GB
    engine.release("x", which="am")  # attempt 2 asks for its AM and the two tasks again
    assert engine.app("x").attempt == 2 and engine.app("x").demand.memory == 0
    allocated = len(records(engine, "container-allocated"))
    engine.heartbeat("n1")
    assert len(records(engine, "container-allocated")) == allocated  # nothing yet
    engine.update()
    assert engine.app("x").demand.memory == 3 * GB
    assert engine.s.state.queues["root.a"].demand.memory == 3 * GB  # the leaf sum is exact
    engine.heartbeat("n1")
    [am] = records(engine, "container-allocated")[allocated:]
    assert am["am"] and am["container"] == "container_x_02_000001"


@pytest.mark.parametrize("reference_update", [False, True])
def test_a_new_attempt_starts_with_no_fair_share(reference_update: bool) -> None:
    """FSAppAttempt.fairShare starts at (0, 0) and FifoPolicy.computeShares sets only the
    earliest app's: a restarted app that is no longer the earliest holds nothing, although
    the app held the whole leaf before its restart."""
    engine = make_engine('<queue name="a"><schedulingPolicy>fifo</schedulingPolicy></queue>',
                         reference_update=reference_update)
    engine.submit("x", "root.a", "u", am=r(GB, 1), requests=[ask(2, GB)])
    engine.update()
    engine.heartbeat("n1")  # x's AM
    engine.advance(1000)
    engine.submit("y", "root.a", "u", am=r(GB, 1), requests=[ask(2, GB)])
    engine.update()
    assert engine.app("x").fair_share.memory == 8 * GB  # the earliest takes the whole leaf
    assert engine.app("y").fair_share.memory == 0
    engine.advance(1000)
    engine.release("x", which="am")  # attempt 2 starts now, after y
    engine.update()
    assert engine.app("y").fair_share.memory == 8 * GB
    assert engine.app("x").fair_share.memory == 0

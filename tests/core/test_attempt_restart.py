"""A new attempt (the AM released, lost or preempted) is a new FSAppAttempt: its demand is 0
until the next update pass computes it, so no heartbeat serves it before then."""

from __future__ import annotations

import pytest

from tests.core.engine_builders import GB, ask, make_engine, r, records


@pytest.mark.parametrize("fast_update", [True, False])
def test_the_new_attempt_waits_for_the_next_update(fast_update: bool) -> None:
    engine = make_engine('<queue name="a"/>', fast_update=fast_update)
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

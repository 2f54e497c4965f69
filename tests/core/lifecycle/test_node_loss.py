"""A lost node (FairScheduler.removeNode): every container on it ends as lost first; only then
does the ResourceManager fail the attempts whose AM was there, ending their other containers."""

from __future__ import annotations

from tests.core.engine_builders import GB, ask, make_engine, r, records


def test_the_am_and_its_neighbours_are_lost_then_the_attempt_restarts() -> None:
    site = {"yarn.scheduler.fair.assignmultiple": True,
            "yarn.scheduler.fair.dynamic.max.assign": False}
    engine = make_engine('<queue name="a"/>', site=site,
                         nodes=[("n1", 4 * GB, 4), ("n2", 4 * GB, 4)])
    engine.submit("x", "root.a", "u", am=r(GB, 1), requests=[ask(4, GB)])
    engine.update()
    engine.heartbeat("n1")  # the AM and three tasks fill n1
    engine.heartbeat("n2")  # the fourth task goes to n2
    assert len(engine.node("n1").containers) == 4 and len(engine.node("n2").containers) == 1
    engine.remove_node("n1")
    done = records(engine, "container-completed")
    # n1's four containers end lost — the AM's neighbours too, not "attempt-failed" —
    # then the new attempt ends the old attempt's task on n2
    assert sorted((c["node"], c["status"]) for c in done) == [
        ("n1", "lost"), ("n1", "lost"), ("n1", "lost"), ("n1", "lost"), ("n2", "attempt-failed")]
    assert [c["node"] for c in done][-1] == "n2"
    [restarted] = records(engine, "app-attempt-restarted")
    assert restarted["app"] == "x" and engine.app("x").attempt == 2

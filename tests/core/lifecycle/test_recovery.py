"""Work-preserving recovery (``Engine.recover_container``): containers that ran before an RM
restart are accounted for where they run, as ``AbstractYarnScheduler.recoverContainersOnNode``
and ``FSAppAttempt.recoverContainer`` do, without being scheduled."""

from __future__ import annotations

import pytest

from fairshare.core.engine import Engine, EngineError
from fairshare.core.model.event_records import event_record
from tests.core.engine_builders import GB, ask, make_engine, r, records

PREEMPTION = {
    "yarn.scheduler.fair.preemption": "true",
    "yarn.scheduler.fair.preemption.cluster-utilization-threshold": "0",
    "yarn.scheduler.fair.waitTimeBeforeKill": "1000",
}
QUEUES = ("<queue name='a'/><queue name='b'>"
          "<fairSharePreemptionTimeout>1</fairSharePreemptionTimeout>"
          "<fairSharePreemptionThreshold>1.0</fairSharePreemptionThreshold></queue>")


def recovered(engine: Engine) -> None:
    """app1 in root.a ran before the restart: its 1 GB AM on n1, two 2 GB tasks on n1 and n2;
    it still wants three more 2 GB containers."""
    engine.submit("app1", "a", "alice", r(GB), [ask(3, 2 * GB)], recovering=True)
    engine.recover_container("app1", "n1", r(GB), am=True, container_id="c_am")
    engine.recover_container("app1", "n1", r(2 * GB), priority=1, container_id="c_1")
    engine.recover_container("app1", "n2", r(2 * GB), priority=1, container_id="c_2")


def two_nodes(**kwargs: object) -> Engine:
    return make_engine(QUEUES, nodes=(("n1", 4 * GB, 4), ("n2", 4 * GB, 4)), **kwargs)  # type: ignore[arg-type]


def test_recovered_containers_are_accounted_where_they_run() -> None:
    engine = two_nodes()
    recovered(engine)
    app = engine.app("app1")
    assert (app.usage.memory, app.usage.vcores) == (5 * GB, 3)
    assert app.am_running and app.am_resource == r(GB)
    assert sorted(app.containers) == ["c_1", "c_2", "c_am"]
    assert app.containers["c_am"].is_am and not app.containers["c_1"].is_am
    assert engine.node("n1").allocated == r(3 * GB, 2)
    assert engine.node("n2").allocated == r(2 * GB, 1)
    for queue in ("root.a", "root"):
        assert engine.s.state.queues[queue].usage == r(5 * GB, 3)
    assert engine.s.state.queues["root.a"].am_resource_usage == r(GB)
    assert engine.state.allocated == r(5 * GB, 3)
    assert engine.queue_metrics("root.a")["AggregateContainersAllocated"] == 3
    assert engine.queue_metrics("root.a")["AMResourceUsageMB"] == GB


def test_a_recovering_attempt_asks_for_no_am_only_for_what_it_still_needs() -> None:
    engine = two_nodes()
    recovered(engine)
    asked = records(engine, "containers-requested")
    assert [(a["priority"], a["count"]) for a in asked] == [(1, 3)]
    assert [(e["container"], e["node"], e["am"], e["priority"])
            for e in records(engine, "container-recovered")] == [
        ("c_am", "n1", True, 0), ("c_1", "n1", False, 1), ("c_2", "n2", False, 1)]
    assert not records(engine, "container-allocated")
    # the free space (1 GB on n1, 2 GB on n2) then goes to the outstanding asks as usual
    engine.update()
    engine.heartbeat_all()
    placed = records(engine, "container-allocated")
    assert [(e["node"], e["am"]) for e in placed] == [("n2", False)]


def test_the_first_recovered_container_counts_as_the_am_for_the_am_share() -> None:
    # FSAppAttempt.recoverContainer: "the first container we recover is always the AM"
    engine = two_nodes()
    engine.submit("app1", "a", "alice", r(GB), recovering=True)
    engine.recover_container("app1", "n1", r(2 * GB), priority=1)
    engine.recover_container("app1", "n2", r(GB), am=True)
    app = engine.app("app1")
    assert app.am_resource == r(2 * GB)
    assert engine.s.state.queues["root.a"].am_resource_usage == r(2 * GB)
    assert [c.is_am for c in app.containers.values()] == [False, True]


def test_an_unmanaged_app_has_no_am_usage() -> None:
    engine = two_nodes()
    engine.submit("app1", "a", "alice", None, recovering=True)
    engine.recover_container("app1", "n1", r(2 * GB), priority=1)
    assert not engine.app("app1").am_running
    assert engine.s.state.queues["root.a"].am_resource_usage == r(0, 0)


def test_recovered_tasks_can_be_preempted_and_the_am_is_spared() -> None:
    engine = two_nodes(site=PREEMPTION)
    engine.submit("full", "a", "alice", r(GB), recovering=True)
    engine.recover_container("full", "n1", r(GB), am=True)
    for node, n in (("n1", 3), ("n2", 4)):
        for _ in range(n):
            engine.recover_container("full", node, r(GB), priority=1)
    engine.submit("late", "b", "bob", None, [ask(2, GB)])
    engine.update()
    engine.advance(1000)  # fairSharePreemptionTimeout is in seconds
    engine.update()
    warned = records(engine, "preemption-warned")
    assert len(warned) == 2 and all(w["app"] == "full" for w in warned)
    assert all(not engine.app("full").containers[w["container"]].is_am for w in warned)


@pytest.mark.parametrize("problem", ["stopped", "too big", "duplicate"])
def test_impossible_recoveries_are_refused(problem: str) -> None:
    engine = two_nodes()
    engine.submit("app1", "a", "alice", r(GB), recovering=True)
    engine.recover_container("app1", "n1", r(GB), am=True, container_id="c1")
    with pytest.raises(EngineError) as e:
        if problem == "stopped":
            engine.kill("app1")
            engine.recover_container("app1", "n1", r(GB))
        elif problem == "too big":
            engine.recover_container("app1", "n1", r(4 * GB))
        else:
            engine.recover_container("app1", "n2", r(GB), container_id="c1")
    assert {"stopped": "killed", "too big": "does not fit",
            "duplicate": "already running"}[problem] in str(e.value)


def test_the_fast_paths_decide_as_the_references_after_a_recovery() -> None:
    def run(fast: bool) -> list[dict[str, object]]:
        engine = two_nodes(site=PREEMPTION, reference_walk=not fast, reference_update=not fast,
                           reference_preemption=not fast)
        recovered(engine)
        engine.submit("app2", "b", "bob", r(GB), [ask(4, GB)])
        for _ in range(6):
            engine.update()
            engine.heartbeat_all()
            engine.advance(500)
        engine.release("app1", 1, "oldest")  # a task ends; its space is offered again
        engine.update()
        engine.heartbeat_all()
        return [event_record(e, engine.types) for e in engine.events]

    fast, reference = run(True), run(False)
    assert fast == reference
    assert any(e["type"] == "container-allocated" and e["app"] == "app2" for e in fast)


def test_a_recovering_app_skips_the_acl_check() -> None:
    # FairScheduler.addApplication: "Skip ACL check for recovering applications: they have
    # been accepted before the restart"
    body = ('<queue name="root"><aclSubmitApps> </aclSubmitApps>'
            '<aclAdministerApps> </aclAdministerApps>'
            '<queue name="a"><aclSubmitApps>alice</aclSubmitApps></queue></queue>')
    engine = make_engine(body, site={"yarn.acl.enable": True})
    engine.submit("new", "root.a", "bob", requests=[ask(1)])
    engine.submit("old", "root.a", "bob", requests=[ask(1)], recovering=True)
    assert [e["app"] for e in records(engine, "app-rejected")] == ["new"]
    assert engine.app("old").queue == "root.a"

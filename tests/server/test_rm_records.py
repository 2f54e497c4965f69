"""The RM's records at scale: ended apps forgotten past ``yarn.resourcemanager.max-completed-
applications`` as ``RMAppManager.checkAppNumCompletedLimit`` forgets them (the oldest
completed first, running apps never), and the views a snapshot holds kept from one snapshot
to the next only while what they show is unchanged: each snapshot's views equal views
frozen afresh from the same records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from fairshare.server.app import create_server_app
from fairshare.server.loop import EngineLoop, NodeSpec
from fairshare.server.rm import RMRecords
from fairshare.server.view import RMAppView, RMNodeView
from fairshare.sim.sources.workload import TaskGroup
from tests.server.loopkit import TS, mb, running_loop, settle, submission

APPS = "/ws/v1/cluster/apps"


def _app_id(n: int) -> str:
    return f"application_{TS}_{n:04d}"


def test_past_max_completed_applications_the_oldest_completed_apps_are_forgotten(
        tmp_path: Path) -> None:
    settings = {"yarn.resourcemanager.max-completed-applications": "2"}
    with running_loop(tmp_path, nodes=2, journal=False, settings=settings) as (loop, clock):
        # apps 1-4 end in the order 4, 2, 3, 1 (their tasks' durations; every container is
        # placed within the first seconds), app 5 runs on
        durations = {1: 30_000, 2: 10_000, 3: 20_000, 4: 2000, 5: 120_000}
        for n, duration in durations.items():
            app_id, _ = loop.new_application()
            assert app_id == _app_id(n)
            loop.submit(submission(app_id, "a", tasks=(TaskGroup(1, mb(512), duration),)))
        settle(loop, clock, 17_000)  # 4 then 2 ended: two completed, none forgotten
        assert len(loop.snapshot().apps) == 5
        assert loop.snapshot().app(_app_id(2)).state == "FINISHED"  # type: ignore[union-attr]
        settle(loop, clock, 27_000)  # 3 ended: 4 is forgotten
        kept = {a.id for a in loop.snapshot().apps}
        assert kept == {_app_id(1), _app_id(2), _app_id(3), _app_id(5)}
        settle(loop, clock, 40_000)  # 1 ended: 2 is forgotten; 5 still runs
        snap = loop.snapshot()
        assert [a.id for a in snap.apps] == [_app_id(1), _app_id(3), _app_id(5)]
        assert snap.app(_app_id(5)).state == "RUNNING"
        with TestClient(create_server_app(loop)) as http:
            listed = http.get(APPS).json()["apps"]["app"]
            assert sorted(a["id"] for a in listed) == [_app_id(1), _app_id(3), _app_id(5)]
            gone = http.get(f"{APPS}/{_app_id(2)}")
            assert gone.status_code == 404
            assert gone.json()["RemoteException"]["message"] == (
                f"java.lang.Exception: app with id: {_app_id(2)} not found")
            # what the RM forgot cannot be killed either (RMWebServices: app not found)
            kill = http.put(f"{APPS}/{_app_id(4)}/state", json={"state": "KILLED"})
            assert kill.status_code == 404


def test_max_completed_applications_zero_forgets_every_app_as_it_ends(tmp_path: Path) -> None:
    settings = {"yarn.resourcemanager.max-completed-applications": "0"}
    with running_loop(tmp_path, nodes=1, journal=False, settings=settings) as (loop, clock):
        app_id, _ = loop.new_application()
        loop.submit(submission(app_id, "a", tasks=(TaskGroup(1, mb(512), 2000),)))
        settle(loop, clock, 2_000)
        assert loop.snapshot().app(app_id) is not None
        settle(loop, clock, 6_000)
        assert loop.snapshot().app(app_id) is None
        assert loop.records.apps == {}


def _afresh(loop: EngineLoop) -> tuple[tuple[RMAppView, ...], tuple[RMNodeView, ...]]:
    """The views of the loop's records frozen by records that keep nothing (on the engine
    thread, at the engine's time, with the engine's preemption counts)."""
    def freeze() -> tuple[tuple[RMAppView, ...], tuple[RMNodeView, ...]]:
        records, engine = loop.records, loop.engine
        fresh = RMRecords(records.cluster_timestamp, records.types)
        fresh.apps, fresh.nodes = records.apps, records.nodes
        preempted = {a.id: (a.preempted_am_containers, a.preempted_containers,
                            a.preempted_resource if a.preempted_containers else None)
                     for a in engine.snapshot().apps}
        return fresh.freeze(engine.now, preempted)
    return loop._call(freeze)


def _same_as_afresh(loop: EngineLoop) -> None:
    loop.sync()
    snap = loop.snapshot()
    apps, nodes = _afresh(loop)
    assert snap.apps == apps
    assert snap.nodes == nodes


def test_the_views_kept_between_snapshots_equal_views_frozen_afresh(tmp_path: Path) -> None:
    with running_loop(tmp_path, nodes=3, journal=False) as (loop, clock):
        ids = []
        for n, duration in enumerate((1500, 3000, 30_000)):
            app_id, _ = loop.new_application()
            ids.append(app_id)
            loop.submit(submission(app_id, "ab"[n % 2],
                                   tasks=(TaskGroup(2, mb(1024), duration),)))
        for ms in (500, 1000, 2000, 3500, 5000, 6000):  # apps run, end; heartbeats move
            settle(loop, clock, ms)
            _same_as_afresh(loop)
        ended = loop.snapshot().app(ids[0])
        assert ended is not None and ended.state == "FINISHED"
        # an ended app written again (the diagnostics of an AM's late report): its view too
        loop._call(lambda: setattr(loop.records.apps[ids[0]], "diagnostics", "late"))
        loop.kill(ids[2], "alice", "enough")
        settle(loop, clock, 6500)
        _same_as_afresh(loop)
        assert loop.snapshot().app(ids[0]).diagnostics == "late"  # type: ignore[union-attr]
        killed = loop.snapshot().app(ids[2])
        assert killed is not None and killed.state == "KILLED"
        # nodes written within one heartbeat interval (the heartbeat alone renews them all):
        # resized, then decommissioned and lost
        loop.resize_node("node1:45454", mb(4096, 4))
        settle(loop, clock, 6700)
        _same_as_afresh(loop)
        loop.decommission_node("node2:45454", None)
        loop.remove_node("node3:45454")
        settle(loop, clock, 6900)
        _same_as_afresh(loop)
        states = {n.id: (n.state, n.capacity) for n in loop.snapshot().nodes}
        assert states["node1:45454"] == ("RUNNING", mb(4096, 4))
        assert states["node3:45454"][0] == "LOST"


def test_a_view_is_the_same_object_while_its_record_is_unchanged(tmp_path: Path) -> None:
    """What the REST layer's kept texts rely on (rest/dao_nodes.py, rest/dao_apps.py)."""
    with running_loop(tmp_path, nodes=2, journal=False) as (loop, clock):
        app_id, _ = loop.new_application()
        loop.submit(submission(app_id, "a", tasks=(TaskGroup(1, mb(512), 1000),)))
        settle(loop, clock, 4000)
        first = loop.snapshot()
        ended = first.app(app_id)
        assert ended is not None and ended.state == "FINISHED"
        loop.sync()  # another snapshot within the same heartbeat interval
        second = loop.snapshot()
        assert second.app(app_id) is ended
        assert all(a is b for a, b in zip(first.nodes, second.nodes, strict=True))
        # the next heartbeat round: the nodes heartbeat together, at the snapshot's time for
        # it, their views name no time of their own and are the same objects
        settle(loop, clock, 5000)
        third = loop.snapshot()
        assert third.app(app_id) is ended
        assert all(a is b for a, b in zip(first.nodes, third.nodes, strict=True))
        assert third.heartbeat_ms == TS + 5000
        assert {third.last_heartbeat(n) for n in third.nodes} == {TS + 5000}
        # a node that registers between two rounds names its own time until the next one
        settle(loop, clock, 5300)
        loop.add_node(NodeSpec("node9:45454", mb(4096, 4)))  # registered at 5300 ms
        settle(loop, clock, 5400)
        joined = loop.snapshot()
        assert joined.last_heartbeat(joined.node("node9:45454")) == TS + 5300  # type: ignore[arg-type]
        lost_at = joined.heartbeat_ms
        loop.remove_node("node1:45454")  # lost: its last heartbeat is kept from then on
        settle(loop, clock, 6000)
        later = loop.snapshot()
        assert later.last_heartbeat(later.node("node9:45454")) == TS + 6000  # type: ignore[arg-type]
        assert later.last_heartbeat(later.node("node1:45454")) == lost_at  # type: ignore[arg-type]
        assert later.node("node2:45454") is first.node("node2:45454")


def test_the_texts_of_apps_the_rm_forgot_are_dropped(tmp_path: Path, monkeypatch: Any) -> None:
    """Once the kept texts doubled since their last pruning, those of apps no longer listed
    go (here with no slack: ``KeptTexts.SLACK`` 0, one app kept by the RM)."""
    from fairshare.server.rest import dao_apps
    monkeypatch.setattr(dao_apps.KeptTexts, "SLACK", 0)
    monkeypatch.setattr(dao_apps, "_texts", dao_apps.KeptTexts())
    settings = {"yarn.resourcemanager.max-completed-applications": "1"}
    with running_loop(tmp_path, nodes=2, journal=False, settings=settings) as (loop, clock):
        for n in range(1, 7):  # app n ends about 2n s after the first seconds
            app_id, _ = loop.new_application()
            loop.submit(submission(app_id, "a", tasks=(TaskGroup(1, mb(512), 2000 * n),)))
        with TestClient(create_server_app(loop)) as http:
            seen = set()
            for ms in range(5000, 23_000, 2000):  # each app read once it ended, then forgotten
                settle(loop, clock, ms)
                http.get(APPS)
                seen |= {key[0] for key in dao_apps._texts.items}
            listed = http.get(APPS).json()["apps"]["app"]
            http.get(APPS)
            assert [a["id"] for a in listed] == [_app_id(6)]
            assert seen == {_app_id(n) for n in range(1, 7)}  # each one's text was kept
            assert {key[0] for key in dao_apps._texts.items} == {_app_id(6)}


def test_kept_texts_stay_within_twice_what_the_listed_apps_need() -> None:
    """An RM listing its last 10 ended apps while 1,000 end one after the other: each
    request prunes (when due) and then keeps a text for every listed app. Past a pruning
    the texts are at most those wanted (10); they are pruned again once they pass twice that
    and 64, so a request ends with at most 2 × 10 + 64 plus its own new ones, where a cache
    kept without pruning would hold all 1,000; and not pruned on every request either."""
    from fairshare.server.rest.dao_apps import KeptTexts
    kept: KeptTexts[str] = KeptTexts()
    most = 0
    for last in range(1, 1001):
        listed = {f"app_{n}" for n in range(max(1, last - 9), last + 1)}
        items = kept.pruned(listed.__contains__)
        for app_id in sorted(listed):
            items.setdefault((app_id, True, frozenset(), "rm"), f"text of {app_id}")
        assert listed <= {key[0] for key in kept.items}  # no listed app lost its text
        most = max(most, len(kept.items))
    assert 64 < most <= 2 * 10 + 64 + 10


def test_new_application_ids_come_from_any_thread_without_the_engine(tmp_path: Path) -> None:
    """``ClientRMService.getNewApplication``: an id from an atomic counter, taken while the
    engine thread is busy (here: held by a job), each id once, numbered in order."""
    import threading
    import time
    from concurrent.futures import ThreadPoolExecutor

    with running_loop(tmp_path, nodes=1, journal=False) as (loop, _clock):
        held, release = threading.Event(), threading.Event()

        def hold() -> None:
            held.set()
            release.wait(60)

        busy = threading.Thread(target=lambda: loop._call(hold))
        busy.start()
        assert held.wait(10)
        try:
            started = time.monotonic()
            with ThreadPoolExecutor(8) as pool:
                ids = list(pool.map(lambda _: loop.new_application()[0], range(400)))
            assert time.monotonic() - started < 10  # not waiting for the held engine thread
            assert not release.is_set()
        finally:
            release.set()
            busy.join(10)
        assert sorted(ids) == [_app_id(n) for n in range(1, 401)]

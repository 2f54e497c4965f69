"""``Engine.heartbeat_tick``: one heartbeat interval as a generator (issue 31).

Every node registered at the tick's start heartbeats once, in registration order, and its name
is yielded after its heartbeat, so the caller answers before the next node's. Skipping quiet
heartbeats (core/heartbeat/quiet.py) yields fewer names, never different events
(tests/sim/test_event_driven.py compares whole runs)."""

from __future__ import annotations

from fairshare.core.model.event_records import event_record
from tests.core.engine_builders import GB, ask, make_engine, r

NODES = tuple((f"n{i}", 8 * GB, 8) for i in range(6))


def test_the_plain_tick_is_every_node_in_order() -> None:
    ticked, plain = make_engine(nodes=NODES), make_engine(nodes=NODES)
    for engine in (ticked, plain):
        engine.submit("app1", "default", "u", r(GB), [ask(9, 2 * GB)])
        engine.update()
    names = []
    for name in ticked.heartbeat_tick(skip_quiet=False):
        names.append(name)
        assert ticked.events_emitted >= len(names)  # the heartbeat ran before the yield
    plain.heartbeat_all()
    assert names == [n for n, _, _ in NODES]
    assert [event_record(e, ticked.types) for e in ticked.events] == \
        [event_record(e, plain.types) for e in plain.events]
    assert ticked.heartbeats_run == ticked.heartbeats_skipped == 0  # nothing was skipped


def test_an_idle_cluster_skips_and_a_heartbeat_outside_the_ticks_resets() -> None:
    engine = make_engine(nodes=NODES)
    assert list(engine.heartbeat_tick()) == [n for n, _, _ in NODES]  # nothing known yet
    assert list(engine.heartbeat_tick()) == []  # nothing could act anywhere
    assert (engine.heartbeats_run, engine.heartbeats_skipped) == (6, 6)
    engine.heartbeat("n3")  # not through a tick: the tracker cannot know what it left
    assert list(engine.heartbeat_tick()) == [n for n, _, _ in NODES]
    engine.submit("app1", "default", "u", r(GB))  # its AM fits on the first node
    engine.update()
    assert list(engine.heartbeat_tick()) == ["n0"]
    assert engine.app("app1").am_running


def test_the_callers_answers_count_as_in_the_plain_tick() -> None:
    """The AM asks for its tasks as soon as the heartbeat that placed it is yielded (the app
    model's answer), and a task ends on every tick; both ticks see each answer at the same
    point, so the runs are the same event for event (the skipping one running no more
    heartbeats: here the cluster is busy, so few are quiet)."""
    streams, ran = [], []
    for skip in (False, True):
        engine = make_engine(nodes=NODES[:4])
        engine.submit("app1", "default", "u", r(GB))
        engine.update()
        asked, names = False, []
        for _ in range(6):
            for name in engine.heartbeat_tick(skip):
                names.append(name)
                if engine.app("app1").am_running and not asked:
                    asked = True
                    engine.request("app1", [ask(20, 2 * GB)])
            tasks = [c for c in engine.app("app1").containers.values() if not c.is_am]
            if tasks:
                engine.complete_container("app1", tasks[0].id)
            engine.update()
        streams.append([event_record(e, engine.types) for e in engine.events])
        ran.append(names)
    assert streams[0] == streams[1]
    assert len(ran[0]) == 6 * 4 >= len(ran[1])
    assert any(s["type"] == "container-allocated" and not s["am"] for s in streams[1])


def test_a_tick_left_half_way_forgets_nothing_due() -> None:
    """A caller that stops mid-tick (its answer raised, say) leaves nodes due this tick
    unvisited: n2 and n4 are due (an app's containers there ended) on an idle cluster; the
    tick is left after n2, and the next one still runs n4 (it learns every node afresh)."""
    engine = make_engine(nodes=NODES)
    engine.submit("app1", "default", "u", r(GB), recovering=True)
    engine.recover_container("app1", "n2", r(GB), am=True)
    engine.recover_container("app1", "n4", r(GB), priority=1)
    list(engine.heartbeat_tick())
    assert list(engine.heartbeat_tick()) == []  # nothing can act, nothing named a node
    engine.kill("app1")
    tick = engine.heartbeat_tick()
    assert next(tick) == "n2"
    tick.close()
    assert "n4" in list(engine.heartbeat_tick())

"""Forgetting an ended app (``Engine.forget``, docs/semantics.md §3.9): the RM drops its record
past ``max-completed-applications``, and the engine lets go of the app once nothing refers to
it. Forgetting decides nothing: the events are those of an engine that forgets nothing."""

from __future__ import annotations

import pytest

from fairshare.core import AppNotEnded, Engine, UnknownApp
from tests.core.engine_builders import GB, PREEMPTION_ON, ask, make_engine, r, records

# two equal queues on one 8 GB node, fair-share starvation after 1 s, the default 15 s
# between a warning and its kill
QUEUES = ("<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>"
          "<queue name='a'/><queue name='b'/>")


def _engine() -> Engine:
    return make_engine(QUEUES, site=PREEMPTION_ON)


def _fill_then_starve(e: Engine, *, preempt: bool = True) -> None:
    """app1 takes the whole node in a; app2 arrives in b and is starved once 1 s has passed
    (``now - lastTimeAtFairShare >= timeout``, FSLeafQueue): with ``preempt``, its round
    then warns app1's victims, to be killed 15 s later."""
    e.submit("app1", "root.a", "ann", None, [ask(8)])
    e.update()
    for _ in range(8):  # one container per heartbeat (assignmultiple off)
        e.heartbeat_all()
    e.submit("app2", "root.b", "bob", None, [ask(4)])
    e.advance(1000)
    e.update(preempt=preempt)


def test_an_ended_app_is_gone_and_its_number_is_not_given_again() -> None:
    e = _engine()
    e.submit("app1", "root.a", "ann", None, [ask(1)])
    e.submit("app2", "root.b", "bob", None, [ask(1)])
    e.finish("app1")
    assert e.forget("app1") is True
    with pytest.raises(UnknownApp, match="app1"):
        e.app("app1")
    assert [a.id for a in e.snapshot().apps] == ["app2"]
    e.submit("app3", "root.a", "cy", None, [ask(1)])
    # YARN numbers applications in submission order (application_<ts>_0003 is the third),
    # forgotten ones counted: the hash orders of §5.4 read that number
    assert e.s.app_number("app3") == 3


def test_only_an_ended_app_can_be_forgotten() -> None:
    e = make_engine("<queue name='a'><maxRunningApps>1</maxRunningApps></queue>"
                    "<queue name='z'><maxResources>0 mb, 0 vcores</maxResources></queue>")
    e.submit("run", "root.a", "ann", None, [ask(1)])
    e.submit("wait", "root.a", "ann", None, [ask(1)])  # held back by maxRunningApps
    e.submit("bad", "root.z", "ann", r(GB), [])  # rejected (§3.10): ended on arrival
    assert records(e, "app-rejected")[0]["app"] == "bad"
    for app_id in ("run", "wait"):
        with pytest.raises(AppNotEnded, match=f"application {app_id} is"):
            e.forget(app_id)
        assert e.app(app_id).id == app_id
    with pytest.raises(UnknownApp):
        e.forget("app_9")
    assert e.app("bad").stopped and e.forget("bad") is True


def test_apps_a_kill_timer_names_are_kept_until_it_fired_and_the_earmark_went() -> None:
    e, twin = _engine(), _engine()
    for engine in (e, twin):
        _fill_then_starve(engine)
        assert [r["kill-at-ms"] for r in records(engine, "preemption-warned")] == [16_000] * 2
        engine.kill("app2")  # the beneficiary ends before its victims are killed
        engine.finish("app1")  # so does the victims' owner
    assert e.forget("app1") is False and e.forget("app2") is False  # the timer names both
    assert {a.id for a in e.snapshot().apps} == {"app1", "app2"}
    for engine in (e, twin):
        engine.advance(15_000)  # the timer fires: its victims already ended with app1
    assert records(e, "container-preempted") == []
    assert e.forget("app1") is True
    assert e.forget("app2") is False  # n1 is still earmarked for app2's attempt
    for engine in (e, twin):
        engine.heartbeat_all()  # n1's heartbeat drops the earmark of an attempt that ended
    assert e.forget("app2") is True
    assert e.snapshot().apps == ()
    assert records(e) == records(twin)


def test_an_app_in_the_starved_queue_is_kept_until_a_round_took_it() -> None:
    e = _engine()
    _fill_then_starve(e, preempt=False)  # the update pass queued app2, no round ran
    e.kill("app2")
    assert e.forget("app2") is False
    e.preempt()  # the round takes app2 off the queue (ended: nothing planned for it)
    assert records(e, "preemption-warned") == []
    assert e.forget("app2") is True

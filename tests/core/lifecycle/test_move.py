"""Moving an app (FairScheduler.moveApplication): the checks below the lowest common ancestor,
and executeMove's canAppBeRunnable, asked while the app still counts where it runs."""

from __future__ import annotations

from tests.core.engine_builders import ask, make_engine, records

TWO = '<queue name="a"/><queue name="b"/>'


def test_a_move_where_root_is_at_its_running_apps_limit_is_refused() -> None:
    # queueMaxAppsDefault 1 gives root (and every queue) maxRunningApps 1. x runs in root.a,
    # so root is at its limit; verifyMoveDoesNotViolateConstraints checks only root.b (0 of 1)
    # and passes, but executeMove asks canAppBeRunnable(root.b, x) with x still counted at
    # root: 1 >= 1, not runnable, and a runnable app may not become non-runnable by a move.
    engine = make_engine(f"<queueMaxAppsDefault>1</queueMaxAppsDefault>{TWO}")
    engine.submit("x", "root.a", "u", requests=[ask(1)])
    assert not engine.move("x", "root.b")
    [rejected] = records(engine, "move-rejected")
    assert rejected["reason"].startswith(
        "Should have already verified that app x would be runnable in new queue")
    assert engine.app("x").queue == "root.a" and engine.app("x").runnable


def test_a_move_of_a_user_at_its_limit_is_refused_too() -> None:
    engine = make_engine(f"<userMaxAppsDefault>1</userMaxAppsDefault>{TWO}")
    engine.submit("x", "root.a", "u", requests=[ask(1)])
    assert not engine.move("x", "root.b")
    assert "userMaxApps" in records(engine, "move-rejected")[0]["reason"]


def test_with_room_at_root_the_move_happens_and_the_app_stays_runnable() -> None:
    engine = make_engine(f"<queueMaxAppsDefault>2</queueMaxAppsDefault>{TWO}")
    engine.submit("x", "root.a", "u", requests=[ask(1)])
    assert engine.move("x", "root.b")
    assert engine.app("x").queue == "root.b" and engine.app("x").runnable
    assert [r["type"] for r in records(engine)][-2:] == ["app-moved", "app-runnable"]


def test_a_waiting_app_moves_and_is_admitted_where_there_is_room() -> None:
    # y waits behind root.a's maxRunningApps 1; root.b has room, so the move makes it runnable
    engine = make_engine('<queue name="a"><maxRunningApps>1</maxRunningApps></queue>'
                         '<queue name="b"/>')
    engine.submit("x", "root.a", "u", requests=[ask(1)])
    engine.submit("y", "root.a", "u", requests=[ask(1)])
    assert not engine.app("y").runnable
    assert engine.move("y", "root.b")
    assert engine.app("y").runnable


def test_moving_a_rejected_or_ended_app_is_refused_as_not_found() -> None:
    # FairScheduler.moveApplication finds no SchedulerApplication for it
    engine = make_engine('<queue name="a"/><queue name="b"/><queuePlacementPolicy>'
                         '<rule name="specified" create="false"/><rule name="reject"/>'
                         '</queuePlacementPolicy>')
    engine.submit("r", "root.nowhere", "u", requests=[ask(1)])
    engine.submit("x", "root.a", "u", requests=[ask(1)])
    engine.finish("x")
    assert not engine.move("r", "root.b") and not engine.move("x", "root.b")
    assert [m["reason"] for m in records(engine, "move-rejected")] == [
        "App to be moved r not found.", "App to be moved x not found."]

"""The engine loop: requests and the clock applied in order on one thread, snapshots for the
readers, and a journal that `fairshare run` replays to the same events."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from fairshare.server.control import Refused
from fairshare.server.executors.base import Launch
from fairshare.server.loop import EngineLoop
from fairshare.server.submission import DistributedShell
from fairshare.sim.sources.workload import TaskGroup
from tests.server.loopkit import TS, HandClock, mb, running_loop, settle, submission


def test_an_app_runs_its_tasks_for_their_durations_on_the_clock(tmp_path: Path) -> None:
    with running_loop(tmp_path) as (loop, clock):
        app_id, biggest = loop.new_application()
        assert app_id == f"application_{TS}_0001"
        assert biggest == mb(8192, 4)  # yarn.scheduler.maximum-allocation-* defaults
        loop.submit(submission(app_id, "a", tasks=(TaskGroup(2, mb(2048), 5_000),)))
        s = loop.snapshot()
        assert s.app(app_id) is not None and s.app(app_id).state == "ACCEPTED"
        settle(loop, clock, 1_000)  # heartbeat 1: the AM; the tasks are asked for at once
        assert loop.snapshot().app(app_id).state == "RUNNING"
        settle(loop, clock, 2_000)  # heartbeat 2: both tasks (2 nodes, no assignmultiple)
        placed = [c for c in loop.snapshot().engine.containers if c.app == app_id]
        assert len(placed) == 3
        settle(loop, clock, 6_999)
        assert loop.snapshot().app(app_id).state == "RUNNING"
        settle(loop, clock, 7_000)  # the tasks placed at 2 s end at 7 s; the app finishes
        view = loop.snapshot().app(app_id)
        assert (view.state, view.final_status) == ("FINISHED", "SUCCEEDED")
        assert view.finished_ms == TS + 7_000 and view.launched_ms == TS + 1_000
        # memory-seconds: the AM 1024 MB × 6 s (1 s → 7 s) + 2 × 2048 MB × 5 s
        assert dict(view.resource_seconds)["memory-mb"] == 1024 * 6 + 2 * 2048 * 5


def test_kill_answers_final_saving_then_the_app_is_killed_and_a_repeat_is_done(
        tmp_path: Path) -> None:
    with running_loop(tmp_path) as (loop, clock):
        app_id, _ = loop.new_application()
        loop.submit(submission(app_id, "a"))  # no tasks: an AM that runs until killed
        settle(loop, clock, 3_000)
        assert loop.snapshot().app(app_id).state == "RUNNING"
        first = loop.kill(app_id, "alice", "by test")
        assert (first.rm_state, first.done) == ("FINAL_SAVING", False)
        view = loop.snapshot().app(app_id)
        assert (view.state, view.final_status) == ("KILLED", "KILLED")
        assert view.diagnostics == (f"Application {app_id} was killed by user alice with "
                                    "diagnostic message: by test")
        again = loop.kill(app_id, "alice", None)
        assert (again.rm_state, again.done) == ("KILLED", True)
        with pytest.raises(Refused) as unknown:
            loop.kill(f"application_{TS}_0099", "alice", None)
        assert unknown.value.status == 404


@pytest.mark.parametrize(("settings", "nowhere"), [
    # Hadoop 3.4's RM with yarn.acl.enable false (its default; rm_tests/test_serve_shape.py):
    # FairScheduler.moveApplication's YarnException, wrapped by doAs, is a 503 without message
    # (with ACLs on, ClientRMService's access check on the target fails first, before the
    # loop is asked: server/authorize.py, tests/server/test_authorize.py)
    ({}, (503, False, "UndeclaredThrowableException", None)),
])
def test_a_move_to_a_queue_that_does_not_exist_is_refused_as_yarn_refuses_it(
        tmp_path: Path, settings: dict[str, str],
        nowhere: tuple[int, bool, str, str | None]) -> None:
    with running_loop(tmp_path, settings=settings) as (loop, clock):
        app_id, _ = loop.new_application()
        loop.submit(submission(app_id, "a"))
        settle(loop, clock, 1_000)
        assert loop.move(app_id, "root.b", "alice") == "root.b"
        assert loop.snapshot().app(app_id).queue == "root.b"
        with pytest.raises(Refused) as refused:
            loop.move(app_id, "root.nope", "alice")
        status, plain, exception, message = nowhere
        got = refused.value
        assert (got.status, got.plain, got.exception) == (status, plain, exception)
        assert got.message == (message.format(app=app_id) if message else None)
        with pytest.raises(Refused) as parent:  # root exists under ACLs: the scheduler's 503
            loop.move(app_id, "root", "alice")
        assert parent.value.status == 503
        loop.kill(app_id, "alice", None)
        settle(loop, clock, 2_000)
        with pytest.raises(Refused) as ended:  # RMWebServices.updateAppQueue: plain 400
            loop.move(app_id, "root.a", "alice")
        assert (ended.value.status, ended.value.plain, ended.value.message) == (
            400, True, "App in KILLED state cannot be moved.")


def test_a_starved_queue_gets_its_share_back_by_preemption(tmp_path: Path) -> None:
    # a fills both nodes; b arrives with equal weight and a 2 s fair-share timeout, threshold 1:
    # b is starved below its fair share, and a's containers are preempted for it
    with running_loop(tmp_path) as (loop, clock):
        first, _ = loop.new_application()
        loop.submit(submission(first, "a", tasks=(TaskGroup(14, mb(1024), 600_000),)))
        settle(loop, clock, 20_000)
        used_a = loop.snapshot().engine.queue("root.a").usage
        assert used_a.memory == 16_384 - 1024  # the AM and 14 tasks: all but 1 GB
        second, _ = loop.new_application()
        loop.submit(submission(second, "b", user="bob",
                               tasks=(TaskGroup(8, mb(1024), 600_000),)))
        settle(loop, clock, 40_000)
        s = loop.snapshot()
        assert s.engine.queue("root.b").usage.memory >= s.engine.queue("root.b").fair_share.memory
        assert s.app(first).preempted_non_am_containers > 0


def _a_starved_second(loop: EngineLoop, clock: HandClock) -> tuple[str, str]:
    """The first app fills the cluster in root.a; 5 s later the second, in root.b, asks for
    6 containers: starved, it gets them by preemption."""
    first, _ = loop.new_application()
    loop.submit(submission(first, "a", tasks=(TaskGroup(14, mb(1024), 9_000),)))
    settle(loop, clock, 5_000)
    second, _ = loop.new_application()
    loop.submit(submission(second, "b", user="bob", tasks=(TaskGroup(6, mb(1024), 4_000),)))
    return first, second


def test_the_journal_replays_through_fairshare_run_to_the_same_events(tmp_path: Path) -> None:
    with running_loop(tmp_path) as (loop, clock):
        first, _ = _a_starved_second(loop, clock)
        settle(loop, clock, 12_000)
        loop.move(first, "root.b", "alice")
        settle(loop, clock, 30_000)
        served = [e.record for e in loop.events_since(0, 0)]
    out = tmp_path / "replay"
    run = subprocess.run([sys.executable, "-m", "fairshare", "run", str(tmp_path / "session.yaml"),
                          "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    replayed = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    replayed = [r for r in replayed if "seq" in r]
    kinds = {r["type"] for r in served}
    assert {"container-preempted", "app-moved", "app-finished"} <= kinds  # a real session
    assert replayed == served


class RecordingExecutor:
    """An executor whose containers are processes (kind ``local``) that never start: the
    launches and stops are recorded, and a test says when a process exits."""

    kind = "local"

    def __init__(self) -> None:
        self.launches: list[Launch] = []
        self.stops: list[str] = []

    def start(self, host: object) -> None:
        pass

    def nodes(self) -> None:
        return None

    def launch(self, launch: Launch) -> None:
        self.launches.append(launch)

    def stop(self, app: str, container: str, grace_ms: int) -> None:
        self.stops.append(container)

    def close(self) -> None:
        pass


def test_the_distributed_shell_fails_with_its_ams_diagnostics(tmp_path: Path) -> None:
    """YARN's DistributedShell ApplicationMaster unregisters FAILED with ``Diagnostics.,
    total=…, completed=…, allocated=…, failed=…`` when a container exited non-zero; a container
    the RM took back is asked for again and leaves the allocated count (its ABORTED case)."""
    ex = RecordingExecutor()
    with running_loop(tmp_path, nodes=1, executor=ex) as (loop, clock):
        first, _ = loop.new_application()
        shell = DistributedShell(7, "work", mb(1024))
        loop.submit(submission(first, "a", distributed_shell=shell))
        settle(loop, clock, 9_000)  # the AM at 1 s, then a task a heartbeat: the node is full
        assert len(ex.launches) == 7 and not any(launch.am for launch in ex.launches)
        assert ex.launches[0].command == "work"
        second, _ = loop.new_application()
        loop.submit(submission(second, "b", user="bob",
                               distributed_shell=DistributedShell(1, "more", mb(1024))))
        # b's AM (1024) then its container (1024): two rounds, one container of a's each
        settle(loop, clock, 40_000)
        assert len(ex.stops) == 2
        assert loop.snapshot().app(first).preempted_non_am_containers == 2
        assert loop.shells[first].num_allocated == 5
        running = [la for la in ex.launches if la.app == first and la.container not in ex.stops]
        for n, launch in enumerate(running):
            loop.container_exited(first, launch.container, 3 if n == 0 else 0, "")
        settle(loop, clock, 45_000)  # the two asked for again are placed, and run
        again = [la for la in ex.launches if la.app == first][7:]
        assert len(again) == 2
        for launch in again:
            loop.container_exited(first, launch.container, 0, "")
        b_task = next(la for la in ex.launches if la.app == second)
        loop.container_exited(second, b_task.container, 0, "")
        settle(loop, clock, 46_000)
        done = loop.snapshot().app(first)
        assert (done.state, done.final_status, done.diagnostics) == (
            "FINISHED", "FAILED", "Diagnostics., total=7, completed=7, allocated=7, failed=1")
        ok = loop.snapshot().app(second)
        assert (ok.state, ok.final_status, ok.diagnostics) == ("FINISHED", "SUCCEEDED", "")


def test_the_ended_apps_the_rm_forgets_leave_the_engine_and_the_app_model_too(
        tmp_path: Path) -> None:
    """yarn.resourcemanager.max-completed-applications 1: the RM keeps the last app to end,
    and so do the engine and the app model (FairScheduler.removeApplication let go of the
    others when they ended); the journal, which now forgets them too, replays to the same
    events as the session."""
    settings = {"yarn.resourcemanager.max-completed-applications": "1"}
    with running_loop(tmp_path, settings=settings) as (loop, clock):
        first, second = _a_starved_second(loop, clock)
        settle(loop, clock, 30_000)
        third, _ = loop.new_application()
        loop.submit(submission(third, "a", tasks=(TaskGroup(1, mb(1024), 1_000),)))
        settle(loop, clock, 40_000)
        kept = loop._call(lambda: (sorted(loop.engine.state.apps), sorted(loop.sim.apps)))
        assert kept == ([third], [third])
        assert [a.id for a in loop.snapshot().apps] == [third]
        served = [e.record for e in loop.events_since(0, 0)]
    ended = [r["app"] for r in served if r["type"] == "app-finished"]
    assert sorted(ended) == sorted([first, second, third])  # all three ran to their end
    assert "container-preempted" in {r["type"] for r in served}  # second was starved
    commands = (tmp_path / "session.yaml").read_text()
    assert f'"kind": "forget", "app": "{first}"' in commands
    out = tmp_path / "replay"
    run = subprocess.run([sys.executable, "-m", "fairshare", "run", str(tmp_path / "session.yaml"),
                          "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    replayed = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    assert [r for r in replayed if "seq" in r] == served

"""The fixed-interval event loop and its app model, on timelines worked out by hand.

Defaults: heartbeats every 1000 ms (first at 1000), update pass every 500 ms (first at 500), one
container per heartbeat unless assignmultiple is on.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.config.errors import ConfigError, all_errors
from fairshare.sim.parse.scenario import parse_scenario_text
from fairshare.sim.run.loop import Simulation
from fairshare.sim.sources.workload import AppSpec, TaskGroup
from tests.core.engine_builders import GB, PREEMPTION_ON, make_engine, r, records


def times(engine: Any, kind: str, **match: Any) -> list[int]:
    return [rec["t"] for rec in records(engine, kind)
            if all(rec.get(k) == v for k, v in match.items())]


def two_queue_engine(queues: str) -> Any:
    """One 2 GB / 2 vcore node; fair-share starvation after 1 s below a threshold of 1.0;
    assignmultiple; victims killed at once (waitTimeBeforeKill 0)."""
    body = ("<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>"
            "<defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>"
            + queues)
    site = {**PREEMPTION_ON, "yarn.scheduler.fair.assignmultiple": "true",
            "yarn.scheduler.fair.waitTimeBeforeKill": "0"}
    return make_engine(body, site=site, nodes=[("n1", 2 * GB, 2)])


def test_managed_app_am_first_then_tasks_then_finish() -> None:
    """t=0 submit; 500 update (demand); 1000 heartbeat: the AM; its tasks are asked at once;
    2000 and 3000: one task each (one container per heartbeat); each runs 10 s: completions
    at 12000 and 13000, and the app finishes with its last task."""
    engine = make_engine(nodes=[("n1", 4 * GB, 4)])
    app = AppSpec("a1", 0, "root.default", "u", r(GB, 1), (TaskGroup(2, r(GB, 1), 10_000),))
    sim = Simulation(engine, [app])
    sim.run(20_000)
    assert times(engine, "container-allocated", am=True) == [1000]
    assert times(engine, "container-allocated", am=False) == [2000, 3000]
    assert times(engine, "container-completed", am=False) == [12000, 13000]
    assert times(engine, "app-finished") == [13000]
    progress = sim.apps["a1"]
    assert (progress.submitted_ms, progress.started_ms, progress.finished_ms) == (0, 1000, 13000)
    assert (progress.tasks_done, progress.lost_work_ms) == (2, 0)


def test_unmanaged_app_asks_for_tasks_at_submission() -> None:
    """With assignmultiple, both tasks go on the first heartbeat (1000) and end at 6000."""
    engine = make_engine(nodes=[("n1", 4 * GB, 4)],
                         site={"yarn.scheduler.fair.assignmultiple": "true"})
    app = AppSpec("u1", 0, "root.default", "u", None, (TaskGroup(2, r(GB, 1), 5000),))
    Simulation(engine, [app]).run(10_000)
    assert times(engine, "container-allocated") == [1000, 1000]
    assert times(engine, "app-finished") == [6000]


def test_a_preempted_task_is_asked_again_and_its_run_time_is_lost() -> None:
    """One 2 GB / 2 vcore node, queues a and b with equal weights. a1 (unmanaged) fills it with
    two 1 GB tasks of 100 s at t=1000 (assignmultiple). b1 arrives at 1200 with one 1 GB task
    of 5 s: its fair share is 1 GB (half of 2 GB), the threshold 1.0 and timeout 1 s make it
    fair-share starved once it has waited 1 s past the update at 1500 — at the update of 2500.
    A victim of a1 is warned then (newest first: container _000002) and killed at once
    (waitTimeBeforeKill 0): a1 loses 1500 ms of work and asks for that task again. The freed
    space goes to b1 at the heartbeat of 3000; b1's task completes at 8000, before that
    millisecond's heartbeats (the loop's order), which give the node back to a1's re-asked task
    at 8000."""
    engine = two_queue_engine("<queue name='a'/><queue name='b'/>")
    apps = [AppSpec("a1", 0, "root.a", "u", None, (TaskGroup(2, r(GB, 1), 100_000),)),
            AppSpec("b1", 1200, "root.b", "u", None, (TaskGroup(1, r(GB, 1), 5000),))]
    sim = Simulation(engine, apps)
    sim.run(12_000)
    assert times(engine, "container-preempted") == [2500]
    [preempted] = records(engine, "container-preempted")
    assert (preempted["app"], preempted["beneficiary-app"]) == ("a1", "b1")
    assert times(engine, "container-allocated", app="b1") == [3000]
    assert times(engine, "app-finished") == [8000]
    assert times(engine, "container-allocated", app="a1") == [1000, 1000, 8000]
    a1 = sim.apps["a1"]
    assert (a1.preempted_containers, a1.lost_work_ms) == (1, 1500)


# -- a workload in a scenario file ---------------------------------------------------------------

WORKLOAD = """\
version: 1
cluster:
  nodes: [{name: n1, memory-mb: 4096, vcores: 4}]
workload:
  apps:
    - {id: a1, queue: root.default, user: u, am: {memory-mb: 1024, vcores: 1},
       tasks: [{count: 2, memory-mb: 1024, vcores: 1, duration-ms: 10000}]}
run: {until-ms: 20000}
"""


def test_fairshare_run_simulates_a_workload(tmp_path: Path) -> None:
    """The managed app of the first test, now from a scenario file: it finishes at 13000."""
    path = tmp_path / "s.yaml"
    path.write_text(WORKLOAD)
    done = CliRunner().invoke(app, ["run", str(path), "-o", str(tmp_path / "out")])
    assert done.exit_code == 0, done.output
    lines = (tmp_path / "out" / "events.jsonl").read_text().splitlines()
    finished = [json.loads(x) for x in lines if '"app-finished"' in x]
    assert [(e["t"], e["app"]) for e in finished] == [(13000, "a1")]


@pytest.mark.parametrize(("change", "message"), [
    ("duration-ms: 10000}", "s.yaml:7: workload.apps[0].tasks[0]: missing required key "
                            "'duration-ms'"),
    ("count: 2,", "s.yaml:7: workload.apps[0].tasks[0].count: must be a positive integer, got 0"),
])
def test_workload_mistakes_are_located(change: str, message: str) -> None:
    text = WORKLOAD.replace(change, "}" if change.startswith("duration") else "count: 0,")
    with pytest.raises(ConfigError) as info:
        parse_scenario_text(text, "s.yaml", Path("."))
    assert message in [str(e) for e in all_errors(info.value)]


def test_an_empty_sls_trace_adds_no_apps(tmp_path: Path) -> None:
    """Trace sources are read (tests/sim/test_sources_*.py); an empty job array adds nothing."""
    (tmp_path / "jobs.json").write_text("[]")
    text = WORKLOAD.replace("workload:\n", "workload:\n  sls: jobs.json\n")
    scenario = parse_scenario_text(text, "s.yaml", tmp_path)
    assert [a.id for a in scenario.workload or ()] == ["a1"]


def test_a_workload_app_with_the_id_of_a_step_app_is_a_located_error(tmp_path: Path) -> None:
    text = WORKLOAD.replace("workload:", "steps:\n  - submit: {app: a1, user: u}\nworkload:")
    path = tmp_path / "s.yaml"
    path.write_text(text)
    done = CliRunner().invoke(app, ["run", str(path)])
    assert done.exit_code == 2
    assert "s.yaml:8: app a1 was already submitted by a step" in done.output  # its entry


def test_the_workload_starts_where_the_steps_left_the_clock(tmp_path: Path) -> None:
    """docs/scenario-format.md: steps first, then the workload runs from the time the steps left the
    clock at. After ``advance 5000`` every time of the first test moves by 5000 ms: the app
    arrives at 5000 (at-ms 0), its AM runs at 6000, its tasks at 7000 and 8000, and it
    finishes at 18000."""
    text = WORKLOAD.replace("workload:", "steps:\n  - advance: {ms: 5000}\nworkload:").replace(
        "until-ms: 20000", "until-ms: 25000")
    path = tmp_path / "s.yaml"
    path.write_text(text)
    done = CliRunner().invoke(app, ["run", str(path), "-o", str(tmp_path / "out")])
    assert done.exit_code == 0, done.output
    events = [json.loads(x) for x in (tmp_path / "out" / "events.jsonl").read_text().splitlines()]
    assert [e["t"] for e in events if e["type"] == "app-submitted"] == [5000]
    assert [e["t"] for e in events if e["type"] == "container-allocated"] == [6000, 7000, 8000]
    assert [e["t"] for e in events if e["type"] == "app-finished"] == [18000]


class _Recorder:
    """Logs what the loop tells an observer."""

    def __init__(self) -> None:
        self.log: list[tuple[str, int]] = []
        self.events: list[Any] = []

    def on_events(self, events: Any) -> None:
        self.events.extend(events)
        self.log.append(("events", len(events)))

    def on_snapshot(self, now_ms: int) -> None:
        self.log.append(("snapshot", now_ms))

    def on_end(self, now_ms: int) -> None:
        self.log.append(("end", now_ms))


def test_observers_get_every_event_once_in_order_then_the_snapshot_ticks() -> None:
    """The managed app of the first test, snapshots every 5 s from 0 to 20 s: each tick comes
    after the events up to it; the loop's list is emptied; the events are the ones the engine
    emitted (compared against an identical run without observers)."""
    def run(observers: list[_Recorder]) -> list[Any]:
        engine = make_engine(nodes=[("n1", 4 * GB, 4)])
        app = AppSpec("a1", 0, "root.default", "u", r(GB, 1), (TaskGroup(2, r(GB, 1), 10_000),))
        before = len(engine.events)  # node-added: not the simulation's
        Simulation(engine, [app], observers=observers, snapshot_every_ms=5000).run(20_000)
        return engine.events[before:]

    recorder = _Recorder()
    leftover = run([recorder])
    assert leftover == []
    everything = run([])
    assert [(e.time, e.type) for e in recorder.events] == [(e.time, e.type) for e in everything]
    ticks = [t for kind, t in recorder.log if kind == "snapshot"]
    assert ticks == [0, 5000, 10000, 15000, 20000]
    assert recorder.log[-1] == ("end", 20000)
    delivered_before = 0
    for kind, value in recorder.log:  # every event is delivered before the tick past its time
        if kind == "events":
            delivered_before += value
        elif kind == "snapshot":
            assert all(e.time <= value for e in recorder.events[:delivered_before])
            assert all(e.time > value for e in recorder.events[delivered_before:])


def test_without_an_end_time_the_run_stops_when_the_last_app_finishes() -> None:
    """The managed app of the first test finishes at 13000: the run ends there (after the
    update and heartbeats due in that millisecond), not later."""
    engine = make_engine(nodes=[("n1", 4 * GB, 4)])
    app = AppSpec("a1", 0, "root.default", "u", r(GB, 1), (TaskGroup(2, r(GB, 1), 10_000),))
    sim = Simulation(engine, [app])
    sim.run()
    assert engine.now == 13_000
    assert sim.apps["a1"].finished_ms == 13_000
    assert not sim.stalled


def test_a_run_that_can_never_finish_stops_after_an_idle_hour() -> None:
    """A 6 GB task never fits the 4 GB node: the AM is placed at 1000 (the last progress),
    then nothing happens. No arrival is left and no task runs, so the run stops at the first
    millisecond an hour later that has something due: 3,601,000 (an update and a heartbeat)."""
    engine = make_engine(nodes=[("n1", 4 * GB, 4)])
    app = AppSpec("a1", 0, "root.default", "u", r(GB, 1), (TaskGroup(1, r(6 * GB, 1), 1000),))
    sim = Simulation(engine, [app])
    sim.run()
    assert sim.stalled
    assert engine.now == 3_601_000
    assert sim.apps["a1"].finished_ms is None


def test_a_preempted_am_restarts_the_attempt_and_its_task_runs_again() -> None:
    """One 2 GB node. a1 (queue a, weight 0: fair share 0) runs its 1 GB AM from 1000 and its
    1 GB task from 2000. b1 (queue b, unmanaged) arrives at 2200 wanting 2 GB; first seen by the
    update of 2500, it is starved 1 s later, at 3500: to free 2 GB on the node both of a1's
    containers are victims, the AM last, killed at once (waitTimeBeforeKill 0). The attempt
    restarts; its new attempt asks again for the AM and the task (1500 ms of lost work). b1 runs
    from 4000 to 9000 on the earmarked space; then a1's AM and task start together at 9000
    (assignmultiple) and the task completes at 109000."""
    engine = two_queue_engine("<queue name='a'><weight>0</weight></queue><queue name='b'/>")
    apps = [AppSpec("a1", 0, "root.a", "u", r(GB, 1), (TaskGroup(1, r(GB, 1), 100_000),)),
            AppSpec("b1", 2200, "root.b", "u", None, (TaskGroup(1, r(2 * GB, 1), 5000),))]
    sim = Simulation(engine, apps)
    sim.run()
    preempted = records(engine, "container-preempted")
    assert [(p["t"], p["app"], p["am"]) for p in preempted] == [
        (3500, "a1", False), (3500, "a1", True)]
    assert times(engine, "app-attempt-restarted") == [3500]
    assert times(engine, "container-allocated", app="b1") == [4000]
    assert times(engine, "container-allocated", app="a1", am=True) == [1000, 9000]
    assert times(engine, "container-allocated", app="a1", am=False) == [2000, 9000]
    assert times(engine, "app-finished") == [9000, 109_000]
    a1 = sim.apps["a1"]
    assert (a1.started_ms, a1.preempted_containers, a1.lost_work_ms) == (1000, 2, 1500)
    assert a1.tasks_done == 1


def test_task_groups_of_one_size_and_priority_keep_their_own_durations() -> None:
    """Two groups of 1 GB at priority 20 are one request to YARN, yet a 1 s and a 5 s task.
    One container per heartbeat, in the order asked: the 1 s task at 1000 (ends 2000), the 5 s
    task at 2000 (ends 7000), when the app finishes. (Found by the minimum-span property test:
    every container of the merged request used to run the first group's duration.)"""
    engine = make_engine(nodes=[("n1", 4 * GB, 4)])
    app = AppSpec("u1", 0, "root.default", "u", None,
                  (TaskGroup(1, r(GB, 1), 1000), TaskGroup(1, r(GB, 1), 5000)))
    Simulation(engine, [app]).run()
    assert times(engine, "container-allocated") == [1000, 2000]
    assert times(engine, "container-completed") == [2000, 7000]
    assert times(engine, "app-finished") == [7000]


def test_a_task_killed_with_its_attempt_runs_its_own_duration_again() -> None:
    """As the preempted-AM case above, but a1 has two groups of one size and priority: a 0.5 s
    task (placed at 2000, done at 2500) and a 100 s one (placed at 3000). b1 arrives at 3200,
    is first seen by the update of 3500 and starved at 4500: a1's 100 s task and AM are killed,
    the new attempt asks for the AM and that task again. b1 runs 5000–10000; then a1's AM and
    task start together at 10000, and the task is the 100 s one: it ends at 110000."""
    engine = two_queue_engine("<queue name='a'><weight>0</weight></queue><queue name='b'/>")
    apps = [AppSpec("a1", 0, "root.a", "u", r(GB, 1),
                    (TaskGroup(1, r(GB, 1), 500), TaskGroup(1, r(GB, 1), 100_000))),
            AppSpec("b1", 3200, "root.b", "u", None, (TaskGroup(1, r(2 * GB, 1), 5000),))]
    sim = Simulation(engine, apps)
    sim.run()
    assert times(engine, "app-attempt-restarted") == [4500]
    assert times(engine, "container-allocated", app="a1", am=False) == [2000, 3000, 10_000]
    assert times(engine, "app-finished") == [10_000, 110_000]
    a1 = sim.apps["a1"]
    assert (a1.tasks_done, a1.lost_work_ms) == (2, 1500)


def test_without_until_ms_a_scenario_runs_until_its_apps_are_done(tmp_path: Path) -> None:
    """The same scenario without ``run``: the run ends when a1 finishes, at 13000."""
    path = tmp_path / "s.yaml"
    path.write_text(WORKLOAD.replace("run: {until-ms: 20000}\n", ""))
    done = CliRunner().invoke(app, ["run", str(path), "-o", str(tmp_path / "out")])
    assert done.exit_code == 0, done.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert summary["span"]["end-ms"] == 13000


def test_apps_without_tasks_finish_once_their_am_ran() -> None:
    """A managed app with no tasks finishes when its AM is placed (1000); an unmanaged one
    with none finishes on arrival (500)."""
    engine = make_engine(nodes=[("n1", 4 * GB, 4)])
    apps = [AppSpec("m", 0, "root.default", "u", r(GB, 1), ()),
            AppSpec("u", 500, "root.default", "u", None, ())]
    sim = Simulation(engine, apps)
    sim.run()
    assert [(rec["t"], rec["app"]) for rec in records(engine, "app-finished")] == [
        (500, "u"), (1000, "m")]
    assert engine.now == 1000


def test_an_engine_refusal_during_the_simulation_points_at_that_app(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing the parser lets through should be refused; if the engine does refuse an app
    model call anyway, the error names the app and its workload line (here the second app's
    completion is made to fail)."""
    from fairshare.core.engine import Engine, EngineError
    from fairshare.sim.run.scripted import run_scenario

    original = Engine.complete_container

    def refuse_b(self: Engine, app_id: str, container_id: str) -> None:
        if app_id == "b1":
            raise EngineError("no such thing")
        original(self, app_id, container_id)

    monkeypatch.setattr(Engine, "complete_container", refuse_b)
    text = WORKLOAD.replace("run:", "    - {id: b1, queue: root.default, user: u,\n"
                                    "       tasks: [{count: 1, duration-ms: 1000}]}\nrun:")
    scenario = parse_scenario_text(text, "s.yaml", tmp_path)
    with pytest.raises(ConfigError) as info:
        run_scenario(scenario)
    assert str(info.value) == "s.yaml:8: workload app b1: no such thing"


def test_a_run_puts_the_garbage_collector_aside_and_restores_it_even_on_error() -> None:
    """During a run the objects alive at its start are frozen and collections are rarer; after
    it (also when the run fails) the caller's thresholds are back and nothing stays frozen."""
    engine = make_engine(nodes=[("n1", 4 * GB, 4)])
    seen: list[tuple[tuple[int, int, int], int]] = []

    class Watch:
        def on_events(self, events: object) -> None:
            seen.append((gc.get_threshold(), gc.get_freeze_count()))

        def on_snapshot(self, now_ms: int) -> None:
            raise RuntimeError("observer failed")

        def on_end(self, now_ms: int) -> None:
            pass

    before = gc.get_threshold()
    app = AppSpec("a1", 0, "root.default", "u", r(GB, 1), (TaskGroup(1, r(GB, 1), 1000),))
    sim = Simulation(engine, [app], observers=[Watch()], snapshot_every_ms=5000)
    with pytest.raises(RuntimeError, match="observer failed"):
        sim.run(20_000)
    assert seen and seen[0][0][0] > before[0] and seen[0][1] > 0
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0

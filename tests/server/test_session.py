"""A served session's outputs: what `fairshare run` writes, readable by the tools that read runs
while the session goes on, and explain on them.

The session is driven as the engine loop drives it (src/fairshare/server/loop.py): a live
:class:`Simulation` (``run_live`` as the clock moves, requests applied between, journaled to a
``session.yaml``), on a clock moved by hand."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.yarnsite import load_site
from fairshare.core import AddNode, AddNodes, Engine, Submit
from fairshare.report.summary import load_summary as report_summary
from fairshare.server.control import Refused
from fairshare.server.journal import Journal
from fairshare.server.session import SNAPSHOT_EVERY_MS, SessionOutputs
from fairshare.server.view import yarn_container_id
from fairshare.sim.record.recorder import SimRecorder
from fairshare.sim.record.summary import build_summary
from fairshare.sim.record.summary_model import ScenarioEntry, summary_json
from fairshare.sim.record.summary_read import load_summary
from fairshare.sim.run.loop import Simulation
from fairshare.sim.sources.workload import AppSpec, TaskGroup
from tests.server.loopkit import ALLOCATIONS, SITE, mb

NODES = 2  # 8,192 MB and 8 vcores each, as loopkit's
BIG, SMALL, LONE = "application_1_0001", "application_1_0002", "application_1_0003"


@dataclass
class Session:
    sim: Simulation
    outputs: SessionOutputs
    journal: Journal

    def at(self, ms: int, request: Callable[[], object] | None = None) -> None:
        """The clock at ``ms`` (everything due by then), then ``request`` applied at it and
        the app model's answer, as the loop's ``_do`` runs a job."""
        if ms > self.sim.engine.now:
            self.sim.run_live(ms)
        if request is not None:
            request()
            self.sim.run_live(self.sim.engine.now)
        self.sim.deliver()

    def submit(self, ms: int, spec: AppSpec) -> None:
        self.at(ms, lambda: self.sim.arrive(spec))


@contextmanager
def session(tmp: Path) -> Iterator[Session]:
    site = load_site(None, SITE)
    engine = Engine(site, parse_allocations_text(ALLOCATIONS, "fair-scheduler.xml",
                                                 site.resource_types))
    journal = Journal(tmp / "session.yaml", engine.types, ALLOCATIONS, None, SITE)
    sim = Simulation(engine, (), heartbeat_interval_ms=1000, event_driven=False,
                     snapshot_every_ms=SNAPSHOT_EVERY_MS, journal=journal)
    outputs = SessionOutputs.attached(tmp / "out", sim)
    sim.apply(AddNodes(tuple(AddNode(f"node{i}:45454", mb(8192, 8))
                             for i in range(1, NODES + 1))))
    sim.deliver()
    try:
        yield Session(sim, outputs, journal)
    finally:
        journal.close()


def tasks(count: int, ms: int) -> tuple[TaskGroup, ...]:
    return (TaskGroup(count, mb(1024), ms),)


def preempting_session(s: Session) -> None:
    """BIG fills the cluster in root.a; SMALL arrives in root.b (equal weight, 2 s fair-share
    timeout, threshold 1): starved, and BIG's containers are preempted for it. Arrivals fall
    between the update passes (every 500 ms) so that the order of a request and the loop's
    own items at one millisecond does not arise."""
    s.submit(250, AppSpec(BIG, 0, "a", "alice", mb(1024), tasks(14, 60_000)))
    s.at(20_000)
    s.submit(20_250, AppSpec(SMALL, 0, "b", "bob", mb(1024), tasks(6, 10_000)))


def events_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def fairshare(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "fairshare", *args], capture_output=True,
                          text=True, timeout=120)


EQUIVALENT = """version: 1
name: serve session
site:
  "yarn.scheduler.fair.preemption": "true"
  "yarn.scheduler.fair.waitTimeBeforeKill": "1000"
  "yarn.scheduler.fair.preemption.cluster-utilization-threshold": "0.5"
allocations: |
{allocations}
cluster:
  nodes: [{{name: "node1:45454", memory-mb: 8192, vcores: 8}},
          {{name: "node2:45454", memory-mb: 8192, vcores: 8}}]
workload:
  apps:
    - {{id: {big}, at-ms: 250, queue: a, user: alice, am: {{memory-mb: 1024, vcores: 1}},
       tasks: [{{count: 14, memory-mb: 1024, vcores: 1, duration-ms: 60000}}]}}
    - {{id: {small}, at-ms: 20250, queue: b, user: bob, am: {{memory-mb: 1024, vcores: 1}},
       tasks: [{{count: 6, memory-mb: 1024, vcores: 1, duration-ms: 10000}}]}}
run: {{until-ms: 45000, snapshot-every-ms: 1000, heartbeat-interval-ms: 1000}}
"""
MID, END = 22_300, 45_000  # SMALL starved and waiting at MID (its victims warned at 22.5 s)
OUTPUTS = ("events.jsonl", "snapshots.json", "timeline.csv", "timeline.parquet",
           "summary.json")


def test_the_outputs_are_what_fairshare_run_writes_for_the_same_session(tmp_path: Path) -> None:
    with session(tmp_path) as s:
        preempting_session(s)
        s.at(MID)
        s.outputs.write_summary(MID)
        mid = (tmp_path / "out" / "summary.json").read_bytes()
        # the tools' reader takes it as it is, mid-session: a run that ended at MID
        assert load_summary(tmp_path / "out").span.end_ms == MID
        assert report_summary(tmp_path / "out").end_ms == MID
        s.at(END)
        s.outputs.close(END)
    out = tmp_path / "out"
    assert load_summary(out).span.end_ms == END
    kinds = {e["type"] for e in events_of(out / "events.jsonl")}
    assert {"container-preempted", "app-finished"} <= kinds  # a session with preemption

    # the journal replayed: a scripted run (command steps), the same events line for line; a
    # scripted run has no workload, so it samples nothing and writes no timeline or summary
    replay = tmp_path / "replay"
    run = fairshare("run", str(tmp_path / "session.yaml"), "-o", str(replay))
    assert run.returncode == 0, run.stderr
    assert (replay / "events.jsonl").read_text().splitlines() == \
        (out / "events.jsonl").read_text().splitlines()
    assert (replay / "snapshots.json").read_bytes() == (out / "snapshots.json").read_bytes()
    assert not (replay / "summary.json").exists() and not (replay / "timeline.csv").exists()

    # the same apps as a workload arriving at the same times, every heartbeat run (the
    # session's loop runs them all): every file is the same, bytes for bytes; and the summary
    # written mid-session is the one of that run stopped there
    scenario = tmp_path / "workload.yaml"
    scenario.write_text(EQUIVALENT.format(
        allocations="\n".join(f"  {line}" for line in ALLOCATIONS.strip().splitlines()),
        big=BIG, small=SMALL))
    whole, stopped = tmp_path / "whole", tmp_path / "stopped"
    for target, extra in ((whole, ()), (stopped, ("--until", str(MID)))):
        run = fairshare("run", str(scenario), "--fixed-interval", "-o", str(target), *extra)
        assert run.returncode == 0, run.stderr
    for name in OUTPUTS:
        assert (whole / name).read_bytes() == (out / name).read_bytes(), name
    assert (stopped / "summary.json").read_bytes() == mid


def test_a_summary_mid_run_is_the_one_of_a_run_stopped_there_and_the_run_goes_on() -> None:
    # independently: the same workload run twice more by the simulator alone, once stopped at
    # MID and once at END (each ending with the recorder's on_end, as fairshare run does)
    def simulation() -> tuple[Simulation, SimRecorder]:
        site = load_site(None, SITE)
        engine = Engine(site, parse_allocations_text(ALLOCATIONS, "fair-scheduler.xml",
                                                     site.resource_types))
        for i in range(1, NODES + 1):
            engine.add_node(f"node{i}:45454", mb(8192, 8))
        recorder = SimRecorder(engine, 1000)
        apps = [AppSpec(BIG, 250, "a", "alice", mb(1024), tasks(14, 60_000)),
                AppSpec(SMALL, 20_250, "b", "bob", mb(1024), tasks(6, 10_000))]
        return Simulation(engine, apps, snapshot_every_ms=1000, observers=[recorder]), recorder

    def summary(sim: Simulation, recorder: SimRecorder) -> dict[str, Any]:
        return summary_json(build_summary(sim.engine, recorder, sim.apps,
                                          ScenarioEntry("x", "", 0, ())))

    live, recorder = simulation()
    live.run_live(MID)
    at_mid = summary(live, recorder.ended(MID))
    at_mid_again = summary(live, recorder.ended(MID))
    live.run(END)
    stopped, stopped_recorder = simulation()
    stopped.run(MID)
    whole, whole_recorder = simulation()
    whole.run(END)
    assert at_mid == at_mid_again == summary(stopped, stopped_recorder)
    assert summary(live, recorder) == summary(whole, whole_recorder)
    waited = at_mid["apps"][SMALL]
    assert waited["unmet-demand-ms"] == MID - 20_250  # still waiting: counted up to MID


def test_explain_says_an_app_was_preempted_and_for_whom_as_the_events_say(
        tmp_path: Path) -> None:
    with session(tmp_path) as s:
        # an AM alone, submitted directly (not the app model's): explained from its events
        s.at(750, lambda: s.sim.apply(Submit(LONE, "a", "carol", mb(1024), ())))
        preempting_session(s)
        s.at(30_000)
        told = s.outputs.explain(BIG)
        # the events, read here on their own: BIG's containers preempted, and for whom
        events = events_of(tmp_path / "out" / "events.jsonl")
        preempted = [e for e in events if e["type"] == "container-preempted"
                     and e["app"] == BIG]
        assert preempted and all(e["t"] <= 30_000 for e in preempted)
        beneficiaries = {(e["beneficiary-app"], e["beneficiary-queue"]) for e in preempted}
        assert beneficiaries == {(SMALL, "root.b")}
        lost = [st for st in told.statements if set(st.seqs) & {e["seq"] for e in preempted}]
        assert len(lost) == 1  # one batch, killed at one millisecond
        statement = lost[0]
        assert set(statement.seqs) == {e["seq"] for e in preempted}
        assert statement.time_ms == preempted[0]["t"]
        assert "preempted" in statement.text and f"for {SMALL} (root.b)" in statement.text
        assert f"{len(preempted)} of its containers" in statement.text
        # the REST form is the Explanation's as_json, and JSON
        answer = s.outputs.explain_json(BIG)
        assert answer == told.as_json() and json.loads(json.dumps(answer)) == answer
        assert answer["subject"] == f"app {BIG}"

        # the beneficiary's chain names BIG as where its room came from
        warned = [e for e in events if e["type"] == "preemption-warned"
                  and e["beneficiary-app"] == SMALL]
        for_small = s.outputs.explain(SMALL).statements
        assert any(BIG in st.text and set(st.seqs) == {e["seq"] for e in warned}
                   for st in for_small)

        # a victim container, asked for in YARN's form (the REST API's) or the engine's
        victim = preempted[0]["container"]
        for name in (yarn_container_id(victim), victim):
            container = s.outputs.explain_json(name)
            assert container["subject"] == f"container {victim}"
            texts = " ".join(st["text"] for st in container["statements"])
            assert f"Chosen as a victim for {SMALL} (root.b)" in texts and "Killed" in texts

        # the app the app model does not know: from its events, and in the summary
        lone = s.outputs.explain(LONE)
        assert any(st.time_ms == 750 and st.text.startswith("Submitted by carol")
                   for st in lone.statements)
        assert any("Its AM container was placed" in st.text for st in lone.statements)
        entry = load_summary(tmp_path / "out").apps[LONE]
        assert (entry.queue, entry.user, entry.managed, entry.state) == (
            "root.a", "carol", True, "running")
        assert (entry.submit_ms, entry.tasks_total) == (750, 0)

        # unknown: YARN's 404, as /apps/{id} answers it
        for unknown in ("application_1_0099", "container_1_0001_01_000999"):
            with pytest.raises(Refused) as refused:
                s.outputs.explain_json(unknown)
            assert (refused.value.status, refused.value.exception) == (404, "NotFoundException")
            assert unknown in (refused.value.message or "")
        s.outputs.close(30_000)
        # at the end, from the final outputs; and fairshare explain on them says the same
        assert s.outputs.explain(BIG).as_json() == answer
    cli = fairshare("explain", str(tmp_path / "out"), "--app", BIG, "--format", "json")
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout) == answer


def test_a_summary_is_the_same_when_the_ended_apps_were_forgotten(tmp_path: Path) -> None:
    """What the engine loop does for the apps its RM forgot (max-completed-applications):
    their summary entries made, then the engine and the app model let go of them. The
    summary, mid-session and at the end, and the events are those of a session that forgot
    nothing."""
    files: dict[bool, tuple[bytes, bytes, bytes]] = {}
    for forgetting in (False, True):
        (tmp_path / str(forgetting)).mkdir()
        with session(tmp_path / str(forgetting)) as s:
            preempting_session(s)
            s.at(100_000)  # both have ended (SMALL at 34 s, BIG with its tasks run again at 98 s)
            if forgetting:
                for app_id in (BIG, SMALL):
                    s.outputs.forget(app_id)
                    assert s.sim.forget(app_id) is True
                assert list(s.sim.engine.state.apps) == [] and list(s.sim.apps) == []
            s.submit(100_250, AppSpec(LONE, 0, "a", "cy", mb(1024), tasks(2, 5_000)))
            s.at(103_000)
            s.outputs.write_summary(103_000)
            mid = (tmp_path / str(forgetting) / "out" / "summary.json").read_bytes()
            s.at(130_000)
            s.outputs.close(130_000)
        out = tmp_path / str(forgetting) / "out"
        files[forgetting] = (mid, (out / "summary.json").read_bytes(),
                             (out / "events.jsonl").read_bytes())
    assert files[True] == files[False]
    apps = json.loads(files[True][1])["apps"]
    assert list(apps) == [BIG, SMALL, LONE]
    assert apps[BIG]["preempted-containers"] > 0 and apps[SMALL]["state"] == "finished"

"""``fairshare watch fork``: a history's checkpoint (the RM answers of the fixture dump
tests/importer/dumps/basic, as the watcher keeps them) becomes a scenario that starts from that
state, with the apps the history saw start afterwards as its workload (docs/watch.md).

The history is an in-memory fake answering with exact records, as
:class:`fairshare.web.history.store.History` does. The scenario written is checked against the
dump's own JSON, read here independently of the importer; the arrivals against the rules of
``workload from-apps`` (docs/import.md), worked out by hand.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from lxml import etree

from fairshare.config.errors import ConfigError
from fairshare.sim.importer.build import import_dump
from fairshare.sim.importer.history import history_of
from fairshare.sim.importer.scenario_text import Choices
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.run.build import prepare_run
from fairshare.sim.run.scripted import run_scenario
from fairshare.watch.fork import ForkRecord, fork, read_fork, utc
from fairshare.web.history.model import AppRecord, Preemption, QueueTally, Window

DUMPS = Path(__file__).resolve().parents[1] / "importer" / "dumps"
BASIC = DUMPS / "basic"
CP = 1_700_000_400_000  # the basic dump's moment (its nodes' lastHealthUpdate)
NOW = CP + 86_400_000


def answers(folder: Path = BASIC) -> dict[str, str]:
    return {name: (folder / name).read_text() for name in
            ("scheduler.json", "nodes.json", "apps.json")}


def record(app_id: str, queue: str, started_ms: int, **kw: Any) -> AppRecord:
    """An AppRecord with what the test does not care about at its zero value."""
    base: dict[str, Any] = dict(
        id=app_id, cluster_id=1, user="erin", name=app_id, queue=queue, state="FINISHED",
        final_status="SUCCEEDED", started_ms=started_ms, launched_ms=0, finished_ms=0,
        first_seen_ms=started_ms, last_seen_ms=started_ms, first_container_ms=None,
        allocated=(0, 0), pending_containers=0, running_containers=0, am_preempted=0,
        preempted=0, preempted_resources=(0, 0), memory_seconds=0, vcore_seconds=0,
        preempted_memory_seconds=0, preempted_vcore_seconds=0, diagnostics="")
    base.update(kw)
    return AppRecord(**base)


@dataclass
class FakeHistory:
    """The History API (BRIEF.md) over exact records held in memory."""

    checkpoints: dict[int, dict[str, str]]
    records: list[AppRecord]
    last_ms: int | None
    tallies: dict[tuple[int, int], list[QueueTally]] = field(default_factory=dict)
    preempted: list[Preemption] = field(default_factory=list)
    asked: list[int] = field(default_factory=list)  # checkpoint(at) questions

    def last_time_ms(self) -> int | None:
        return self.last_ms

    def checkpoint(self, at_ms: int) -> tuple[int, dict[str, str]] | None:
        self.asked.append(at_ms)
        times = [t for t in self.checkpoints if t <= at_ms]
        return (max(times), dict(self.checkpoints[max(times)])) if times else None

    def apps(self, window: Window, queue: str | None = None) -> list[AppRecord]:
        """Apps alive in [start, end): started before its end, not finished before its start
        (the store's reading)."""
        return [a for a in self.records if a.started_ms < window.end_ms
                and not 0 < a.finished_ms < window.start_ms
                and (queue is None or a.queue == queue)]

    def tally(self, window: Window) -> list[QueueTally]:
        return self.tallies[(window.start_ms, window.end_ms)]

    def preemptions(self, start_ms: int, end_ms: int, queue: str | None = None
                    ) -> list[Preemption]:
        return [p for p in self.preempted if start_ms <= p.time_ms < end_ms
                and (queue is None or p.queue == queue)]


# The history around the checkpoint: the dump's apps as the watcher saw them, and after it
# A: submitted 30 s after, ran 60 s and finished; held 307,200 MB·s (AM 1024 MB × 60 s +
#    4 × 1024 MB × 60 s: four 1 GB tasks, the default container size of a finished app)
# B: submitted 120 s after, still running at the last sample (300 s after): 4096 MB over 2
#    containers (2048 MB each) for 180 s, 1,290,240 MB·s = 1024 × 180 + 3 × 2048 × 180
# C: submitted 40 s before the checkpoint but not in its apps.json (left out, said)
# D: submitted after the span (not an arrival of it)
APP_A = record("application_1700000000000_0101", "root.etl", CP + 30_000, user="frank",
               launched_ms=CP + 31_000, finished_ms=CP + 90_000, last_seen_ms=CP + 90_000,
               memory_seconds=307_200, vcore_seconds=300)
APP_B = record("application_1700000000000_0102", "root.analytics.adhoc", CP + 120_000,
               user="grace", state="RUNNING", final_status="UNDEFINED",
               launched_ms=CP + 125_000, last_seen_ms=CP + 300_000, allocated=(4096, 2),
               running_containers=2, memory_seconds=1_290_240, vcore_seconds=540)
APP_C = record("application_1700000000000_0100", "root.default", CP - 40_000,
               finished_ms=CP + 5_000, last_seen_ms=CP + 5_000, memory_seconds=10_240)
APP_D = record("application_1700000000000_0103", "root.default", CP + 400_000,
               last_seen_ms=CP + 400_000)


def dumped_records(folder: Path = BASIC) -> list[AppRecord]:
    """The checkpoint's apps as the history holds them (still alive at the checkpoint)."""
    apps = json.loads((folder / "apps.json").read_text())["apps"]["app"]
    return [record(a["id"], a["queue"], a["startedTime"], state=a["state"],
                   finished_ms=a["finishedTime"], last_seen_ms=CP + 300_000,
                   memory_seconds=a["memorySeconds"]) for a in apps]


def history(**kw: Any) -> FakeHistory:
    base: dict[str, Any] = dict(
        checkpoints={CP - 600_000: answers(DUMPS / "listed"), CP: answers()},
        records=[*dumped_records(), APP_A, APP_B, APP_C, APP_D], last_ms=CP + 300_000)
    base.update(kw)
    return FakeHistory(**base)


def scenario_of(folder: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((folder / "scenario.yaml").read_text())
    return loaded


def test_the_fork_starts_from_the_checkpoint_s_nodes_and_running_apps(tmp_path: Path) -> None:
    out = tmp_path / "fork"
    forked = fork(history(), CP + 60_000, out, now_ms=NOW)
    assert (forked.checkpoint_ms, forked.until_ms) == (CP, CP + 300_000)
    doc = scenario_of(out)
    # the nodes the scheduler holds, as nodes.json has them (used + available)
    nodes = json.loads((BASIC / "nodes.json").read_text())["nodes"]["node"]
    assert [(n["name"], n["memory-mb"], n["vcores"]) for n in doc["cluster"]["nodes"]] == [
        (n["nodeHostName"], n["usedMemoryMB"] + n["availMemoryMB"],
         n["usedVirtualCores"] + n["availableVirtualCores"])
        for n in nodes if n["state"] == "RUNNING"]
    # the apps alive at the checkpoint, at t = 0; the running ones holding what apps.json says
    apps = json.loads((BASIC / "apps.json").read_text())["apps"]["app"]
    alive = {a["id"]: a for a in apps if a["state"] in ("RUNNING", "ACCEPTED")}
    workload = {a["id"]: a for a in doc["workload"]["apps"]}
    assert set(workload) == set(alive)
    for app_id, app in workload.items():
        held = app.get("running", [])
        expected = alive[app_id]
        assert (app["queue"], app["user"]) == (expected["queue"], expected["user"])
        assert sum(c["memory-mb"] for c in held) == max(0, expected["allocatedMB"])
        assert sum(c["vcores"] for c in held) == max(0, expected["allocatedVCores"])
    # bounded to the span the history covers after the checkpoint
    assert doc["run"]["until-ms"] == 300_000
    assert doc["workload"]["csv"] == "arrivals.csv"
    assert read_fork(out) == ForkRecord(CP, CP + 300_000, (
        "application_1700000000000_0003", APP_A.id, APP_B.id))  # waiting at CP, arrivals
    assert {p.name for p in forked.written} == {"scenario.yaml", "fair-scheduler.xml",
                                                "arrivals.csv", "fork.json"}
    # the newest checkpoint at or before --at is 60 s older: said
    assert forked.notes[0].startswith(f"the newest recorded state at or before {utc(CP + 60_000)}")


def test_the_arrivals_are_exactly_the_apps_started_after_the_checkpoint(tmp_path: Path) -> None:
    out = tmp_path / "fork"
    forked = fork(history(), CP, out, now_ms=NOW)
    with (out / "arrivals.csv").open() as f:
        rows = [(r["app"], int(r["at-ms"]), r["queue"], r["user"], int(r["count"]),
                 int(r["memory-mb"]), int(r["vcores"]), int(r["duration-ms"]))
                for r in csv.DictReader(f)]
    assert rows == [
        # (307,200 − 1024 × 60) MB·s over 60 s of 1024 MB tasks: 4
        (APP_A.id, 30_000, "root.etl", "frank", 4, 1024, 1, 60_000),
        # 4096 MB over 2 containers; (1,290,240 − 1024 × 180) / (180 × 2048) = 3
        (APP_B.id, 120_000, "root.analytics.adhoc", "grace", 3, 2048, 1, 180_000),
    ]
    assert forked.arrivals == 2
    assert any(APP_C.id in n and "not in its apps.json" in n for n in forked.notes)
    # the simulator submits them at those times
    run_scenario(load_scenario(out / "scenario.yaml"), tmp_path / "run")
    with (tmp_path / "run" / "events.jsonl").open() as f:
        submitted = {e["app"]: e["t"] for e in map(json.loads, f)
                     if e["type"] == "app-submitted" and e["t"] > 0}
    assert submitted == {APP_A.id: 30_000, APP_B.id: 120_000}


def test_arrivals_are_what_workload_from_apps_makes_of_the_same_apps(tmp_path: Path) -> None:
    """The same two apps written as the RM's AppInfo: from-apps gives the same CSV apps,
    shifted to the checkpoint."""
    def info(a: AppRecord) -> dict[str, Any]:
        return {"id": a.id, "user": a.user, "queue": a.queue, "state": a.state,
                "startedTime": a.started_ms, "finishedTime": a.finished_ms,
                "elapsedTime": (a.finished_ms or a.last_seen_ms) - a.started_ms,
                "allocatedMB": a.allocated[0], "allocatedVCores": a.allocated[1],
                "runningContainers": a.running_containers, "memorySeconds": a.memory_seconds,
                "vcoreSeconds": a.vcore_seconds, "unmanagedApplication": False}
    history_file = tmp_path / "apps.json"
    history_file.write_text(json.dumps({"apps": {"app": [info(APP_A), info(APP_B)]}}))
    expected = history_of(history_file, start_ms=30_000)
    fork(history(), CP, tmp_path / "fork", now_ms=NOW)
    with (tmp_path / "fork" / "arrivals.csv").open() as f:
        got = [(r["app"], int(r["at-ms"]), int(r["count"]), int(r["duration-ms"]))
               for r in csv.DictReader(f)]
    assert got == [(a.id, a.at_ms, a.tasks[0].count, a.tasks[0].duration_ms)
                   for a in expected.apps]


def test_an_app_in_the_checkpoint_is_state_even_if_its_clock_says_later(tmp_path: Path) -> None:
    """application_…_0003 (ACCEPTED in apps.json, startedTime CP − 10 s) with a checkpoint
    stamped 20 s before the RM's clock: it waits for its AM at t = 0, it does not arrive."""
    early = CP - 20_000
    h = history(checkpoints={early: answers()}, records=[*dumped_records(), APP_A])
    fork(h, early, tmp_path / "fork", now_ms=NOW)
    doc = scenario_of(tmp_path / "fork")
    assert "application_1700000000000_0003" in {a["id"] for a in doc["workload"]["apps"]}
    with (tmp_path / "fork" / "arrivals.csv").open() as f:
        assert [r["app"] for r in csv.DictReader(f)] == [APP_A.id]


def test_no_arrival_writes_no_csv(tmp_path: Path) -> None:
    forked = fork(history(records=dumped_records()), CP, tmp_path / "fork", now_ms=NOW)
    assert forked.arrivals == 0 and not (tmp_path / "fork" / "arrivals.csv").exists()
    assert "csv" not in scenario_of(tmp_path / "fork")["workload"]


def test_overrides_are_written_into_the_fork(tmp_path: Path) -> None:
    out = tmp_path / "fork"
    forked = fork(history(), CP, out, now_ms=NOW,
                  overrides=["alloc:root.etl.weight=3",
                             "site:yarn.scheduler.fair.preemption=true",
                             "alloc:defaultFairSharePreemptionThreshold=0.8"])
    assert forked.overrides == ("alloc:root.etl.weight=3",
                                "site:yarn.scheduler.fair.preemption=true",
                                "alloc:defaultFairSharePreemptionThreshold=0.8")
    xml = etree.parse(str(out / "fair-scheduler.xml")).getroot()
    etl = [e for e in xml.iter("queue") if e.get("name") == "etl"]
    assert [w.text for w in etl[0].iter("weight")] == ["3"]
    assert xml.findtext("defaultFairSharePreemptionThreshold") == "0.8"
    assert scenario_of(out)["site"] == {"yarn.scheduler.fair.preemption": "true"}
    prepared = prepare_run(load_scenario(out / "scenario.yaml"))
    assert prepared.site.preemption
    weights = {q.name: q.weight for q in prepared.allocations.queues}
    assert weights["root.etl"] == 3
    assert prepared.allocations.default_fair_share_preemption_threshold == pytest.approx(0.8)
    text = (out / "scenario.yaml").read_text()
    assert "# --set alloc:root.etl.weight=3" in text
    # the self-check compared the RM's shares with the file as the RM runs it (no override):
    # the same as a plain import of the dump gives
    plain = import_dump(BASIC, tmp_path / "plain", Choices())
    assert forked.imported.check == plain.check


def keep(out: Path) -> dict[str, bytes]:
    out.mkdir(exist_ok=True)
    (out / "notes.txt").write_text("mine")
    return {p.name: p.read_bytes() for p in out.iterdir()}


@pytest.mark.parametrize(("at", "until", "overrides", "expected"), [
    (NOW + 1, None, [], "--at: 2023-11-15 22:20:00.001 UTC is in the future"),
    (CP - 600_001, None, [], "--at: the history holds no state at or before "
     f"{utc(CP - 600_001)}; the first is of {utc(CP - 600_000)}"),
    (CP, CP, [], f"--until: {utc(CP)} is not after the state the fork starts from"),
    (CP, CP + 300_001, [], "--until: 2023-11-14 22:25:00.001 UTC is after the history's last "
     "sample"),
    (CP, None, ["alloc:root.etl.wieght=3"], "--set alloc:root.etl.wieght=3: "),
    (CP, None, ["alloc:root.etl.weight=heavy"], "--set alloc:root.etl.weight=heavy"),
    (CP, None, ["site:yarn.scheduler.fair.preemptoin=true"],
     "--set site:yarn.scheduler.fair.preemptoin=true: yarn.scheduler.fair.preemptoin is not a "
     "property fairshare reads"),
    (CP, None, ["weight=3"], "--set weight=3: expected alloc:KEY=VALUE"),
])
def test_a_bad_fork_is_refused_and_writes_nothing(tmp_path: Path, at: int, until: int | None,
                                                 overrides: Sequence[str],
                                                 expected: str) -> None:
    out = tmp_path / "fork"
    before = keep(out)
    with pytest.raises(ConfigError) as e:
        fork(history(), at, out, until_ms=until, overrides=overrides, now_ms=NOW)
    assert str(e.value).startswith(expected), str(e.value)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_broken_checkpoint_is_located_at_its_answer(tmp_path: Path) -> None:
    broken = answers()
    broken["apps.json"] = broken["apps.json"].replace('"allocatedMB": 4096', '"allocatedMB": "4G"')
    out = tmp_path / "fork"
    before = keep(out)
    with pytest.raises(ConfigError) as e:
        fork(history(checkpoints={CP: broken}), CP, out, now_ms=NOW)
    line = next(i for i, text in enumerate(broken["apps.json"].splitlines(), 1) if '"4G"' in text)
    assert str(e.value) == (f"checkpoint of {utc(CP)}: apps.json:{line}: apps.app[1]."
                            "allocatedMB: must be a non-negative whole number, got '4G'")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    cs = answers()
    cs["scheduler.json"] = cs["scheduler.json"].replace('"fairScheduler"', '"capacityScheduler"')
    with pytest.raises(ConfigError) as e:
        fork(history(checkpoints={CP: cs}), CP, out, now_ms=NOW)
    assert str(e.value).startswith(f"checkpoint of {utc(CP)}: scheduler.json:4: ")
    missing = answers()
    del missing["nodes.json"]
    with pytest.raises(ConfigError) as e:
        fork(history(checkpoints={CP: missing}), CP, out, now_ms=NOW)
    assert "lacks the answer nodes.json" in str(e.value)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_an_empty_history_says_so(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as e:
        fork(history(checkpoints={}, last_ms=None), CP, tmp_path / "f", now_ms=NOW)
    assert "nor any after" in str(e.value)
    assert not (tmp_path / "f").exists()


def test_the_first_checkpoint_is_found_in_few_questions() -> None:
    h = history()
    fork_at = CP - 700_000
    with pytest.raises(ConfigError):
        fork(h, fork_at, Path("/nonexistent/never-written"), now_ms=NOW)
    assert len(h.asked) <= 45


def test_other_choices_reach_the_import(tmp_path: Path) -> None:
    fork(history(), CP, tmp_path / "fork", now_ms=NOW,
         choices=replace(Choices(), remaining_dist="fixed", remaining_ms=45_000))
    remaining = {c["remaining-ms"] for a in scenario_of(tmp_path / "fork")["workload"]["apps"]
                 for c in a.get("running", []) if "remaining-ms" in c}
    assert remaining == {45_000}
    shutil.rmtree(tmp_path / "fork")


def test_a_fork_from_the_last_state_runs_until_its_apps_end(tmp_path: Path) -> None:
    """Fork from now: the checkpoint is the last sample; nothing arrived after it."""
    h = history(last_ms=CP, records=dumped_records())
    forked = fork(h, CP + 2_000, tmp_path / "fork", now_ms=CP + 2_000)
    assert (forked.checkpoint_ms, forked.until_ms, forked.arrivals) == (CP, None, 0)
    doc = scenario_of(tmp_path / "fork")
    assert "until-ms" not in doc["run"] and "csv" not in doc["workload"]
    assert read_fork(tmp_path / "fork").until_ms is None
    # an --until given must still be after the checkpoint and recorded
    with pytest.raises(ConfigError) as e:
        fork(h, CP, tmp_path / "other", until_ms=CP + 1, now_ms=CP + 2_000)
    assert "after the history's last sample" in str(e.value)


def test_the_cluster_s_files_are_used_and_the_overrides_win(tmp_path: Path) -> None:
    site = tmp_path / "yarn-site.xml"
    site.write_text("<configuration><property><name>yarn.scheduler.fair.preemption</name>"
                    "<value>true</value></property></configuration>\n")
    allocations = tmp_path / "fair-scheduler.xml"
    allocations.write_text('<allocations><queue name="etl"><weight>2</weight></queue>'
                           "</allocations>\n")
    out = tmp_path / "fork"
    fork(history(), CP, out, now_ms=NOW, site=site, allocations=allocations,
         overrides=["site:yarn.scheduler.fair.preemption=false", "alloc:root.etl.weight=5"])
    assert (out / "yarn-site.xml").read_text() == site.read_text()  # the cluster's, as it is
    doc = scenario_of(out)
    assert doc["site-file"] == "yarn-site.xml"
    assert doc["site"] == {"yarn.scheduler.fair.preemption": "false"}
    prepared = prepare_run(load_scenario(out / "scenario.yaml"))
    assert not prepared.site.preemption
    assert {q.name: q.weight for q in prepared.allocations.queues}["root.etl"] == 5
    without = tmp_path / "plain"
    fork(history(), CP, without, now_ms=NOW, site=site, allocations=allocations)
    prepared = prepare_run(load_scenario(without / "scenario.yaml"))
    assert prepared.site.preemption
    assert {q.name: q.weight for q in prepared.allocations.queues}["root.etl"] == 2

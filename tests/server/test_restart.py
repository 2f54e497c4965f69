"""Work-preserving restart from the state store, on a hand-moved clock: what a ResourceManager
restarted on its store must give back (``TestWorkPreservingRMRestart``), checked for the
virtual executor — apps in their queues with their attempts, running containers taken over
where they ran for what they still had to run, nothing run twice, new containers in the new
epoch and only after the recovery wait, ended apps with their final states, the new epoch's
journal replayable — and a store that fails a write failing the request that made it."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.yarnsite import load_site
from fairshare.core import Engine
from fairshare.server.control import Refused
from fairshare.server.executors.virtual import VirtualExecutor
from fairshare.server.journal import Journal
from fairshare.server.loop import EngineLoop, NodeSpec
from fairshare.server.store.codec import resource_of
from fairshare.server.store.store import StateStore, StateStoreError
from fairshare.sim.sources.workload import TaskGroup
from tests.server.loopkit import ALLOCATIONS, SITE, TS, HandClock, mb, submission
from tests.server.test_loop import settle

WAIT_MS = 3000
SETTINGS = {**SITE, "yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms":
            str(WAIT_MS), "yarn.scheduler.fair.preemption": "false"}


@contextmanager
def served(tmp: Path, store_url: str, ts: int, *, nodes: int = 2, node_mb: int = 2048,
           journal: str = "session.yaml", settings: dict[str, str] | None = None,
           ) -> Iterator[tuple[EngineLoop, HandClock]]:
    """A loop on ``store_url`` as ``fairshare serve --store`` builds one: the store's nodes
    when it has them, its state recovered, its epoch taken (``settings``: yarn-site's, over
    :data:`SETTINGS`)."""
    properties = {**SETTINGS, **(settings or {})}
    site = load_site(None, properties)
    config = parse_allocations_text(ALLOCATIONS, "fair-scheduler.xml", site.resource_types)
    engine = Engine(site, config)
    store = StateStore(store_url)
    stored_nodes = store.nodes()
    state = store.start()
    specs = ([NodeSpec(r["id"], resource_of(r["capacity"], engine.types), r["rack"])
              for r in stored_nodes] if stored_nodes else
             [NodeSpec(f"node{i}:45454", mb(node_mb, 8)) for i in range(1, nodes + 1)])
    clock = HandClock()
    writer = Journal(tmp / journal, engine.types, ALLOCATIONS, None, properties)
    loop = EngineLoop(engine, VirtualExecutor(), specs, cluster_timestamp=ts, clock=clock,
                      work_dir=tmp / "work", journal=writer, store=store)
    if not state.empty:
        loop.recover(state, site.scheduling_wait_ms)
    loop.start()
    try:
        yield loop, clock
    finally:
        loop.stop()  # (the virtual executor has no process: a stop is a kill -9 here)
        writer.close()
        store.close()


def _events(loop: EngineLoop) -> list[dict[str, object]]:
    return [e.record for e in loop.events_since(0, 0)]


def test_running_containers_are_taken_over_for_what_they_had_left_and_none_runs_twice(
        tmp_path: Path) -> None:
    url = str(tmp_path / "state.db")
    # epoch 0: two 2 GB nodes; the AM (1 GB) and three of five 10 s tasks (1 GB) fit
    with served(tmp_path, url, TS) as (loop, clock):
        app_id, _ = loop.new_application()
        loop.submit(submission(app_id, "a", tasks=(TaskGroup(5, mb(1024), 10_000),)))
        settle(loop, clock, 4_000)
        before = _events(loop)
    allocated = {e["container"]: e["t"] for e in before if e["type"] == "container-allocated"}
    assert len(allocated) == 4  # the AM and three tasks run, two tasks wait
    tasks = {c: t for c, t in allocated.items() if not c.endswith("_000001")}
    # the RM is down 6 s: epoch 1 starts 10 s after epoch 0 did, the old clock was at 4 s
    ts1 = TS + 10_000
    with served(tmp_path, url, ts1, journal="session-1.yaml") as (loop, clock):
        snapshot = loop.snapshot()
        assert [(a.id, a.queue, a.state) for a in snapshot.apps] == [
            (app_id, "root.a", "RUNNING")]
        assert [a.number for a in snapshot.apps[0].attempts] == [1]
        recovered = [e for e in _events(loop) if e["type"] == "container-recovered"]
        assert sorted(e["container"] for e in recovered) == sorted(allocated)
        assert recovered[0]["am"] is True  # the first recovered is the attempt's AM
        settle(loop, clock, 30_000)
        after = _events(loop)
    # each task ends when it would have: 10 s after its start, on the wall (epoch ms)
    ended = {e["container"]: e["t"] for e in after if e["type"] == "container-completed"}
    for container, started in tasks.items():
        assert ts1 + ended[container] == TS + started + 10_000
    # the two waiting tasks, and only they, are new: in epoch 1, after the wait
    new = [e for e in after if e["type"] == "container-allocated"]
    assert len(new) == 2
    assert all(str(e["container"]).startswith(f"container_e01_{app_id}_") for e in new)
    assert all(int(str(e["t"])) > WAIT_MS for e in new)
    assert [e["state"] for e in after if e["type"] == "app-finished"] == ["finished"]


def test_ended_apps_come_back_as_they_ended_and_new_ids_do_not_collide(tmp_path: Path) -> None:
    url = str(tmp_path / "state.db")
    with served(tmp_path, url, TS) as (loop, clock):
        done, _ = loop.new_application()
        loop.submit(submission(done, "a", tasks=(TaskGroup(1, mb(512), 1_000),)))
        killed, _ = loop.new_application()
        loop.submit(submission(killed, "b", user="bob"))
        settle(loop, clock, 6_000)
        loop.kill(killed, "bob", "no longer needed")
        settle(loop, clock, 7_000)
        views = {a.id: a for a in loop.snapshot().apps}
    with served(tmp_path, url, TS + 60_000, journal="session-1.yaml") as (loop, clock):
        again = {a.id: a for a in loop.snapshot().apps}
        for app_id in (done, killed):
            old, new = views[app_id], again[app_id]
            assert (new.state, new.final_status, new.queue, new.diagnostics) == (
                old.state, old.final_status, old.queue, old.diagnostics)
            # times are the wall's, kept across the restart
            assert (new.submitted_ms, new.launched_ms, new.finished_ms) == (
                old.submitted_ms, old.launched_ms, old.finished_ms)
        assert again[killed].state == "KILLED"
        assert "no longer needed" in again[killed].diagnostics
        fresh, _ = loop.new_application()
    assert fresh == f"application_{TS + 60_000}_0001"
    assert fresh not in views


def test_the_new_epochs_journal_replays_the_recovery_through_fairshare_run(
        tmp_path: Path) -> None:
    url = str(tmp_path / "state.db")
    with served(tmp_path, url, TS) as (loop, clock):
        app_id, _ = loop.new_application()
        loop.submit(submission(app_id, "a", tasks=(TaskGroup(5, mb(1024), 8_000),)))
        settle(loop, clock, 3_000)
    with served(tmp_path, url, TS + 5_000, journal="session-1.yaml") as (loop, clock):
        settle(loop, clock, 25_000)
        live = _events(loop)
    out = tmp_path / "replay"
    run = subprocess.run([sys.executable, "-m", "fairshare", "run",
                          str(tmp_path / "session-1.yaml"), "-o", str(out)],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    replayed = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    replayed = [r for r in replayed if "seq" in r]
    assert {"container-recovered", "app-finished"} <= {str(r["type"]) for r in live}
    assert replayed == live


def test_a_write_the_store_refuses_fails_the_request_and_stops_the_engine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = str(tmp_path / "state.db")
    with served(tmp_path, url, TS) as (loop, _):
        app_id, _ = loop.new_application()
        assert loop.keeper is not None

        def refuse(batch: object) -> None:
            raise StateStoreError("the state store refused a write: disk I/O error")

        monkeypatch.setattr(loop.keeper.store, "write", refuse)
        with pytest.raises(Refused) as refused:
            loop.submit(submission(app_id, "a"))
        assert refused.value.status == 503 and "disk I/O error" in (refused.value.message or "")
        assert loop.ended.wait(5) and isinstance(loop.failure, StateStoreError)
        with pytest.raises(Refused):  # nothing more is accepted
            loop.new_application()
    # the submission was never acknowledged, and is not in the store
    with served(tmp_path, url, TS + 1_000, journal="session-1.yaml") as (loop, _):
        assert [a.id for a in loop.snapshot().apps] == []


def test_queues_apps_and_cluster_are_as_they_were_before_the_restart(tmp_path: Path) -> None:
    # TestWorkPreservingRMRestart.testSchedulerRecovery: after the restart each queue's and
    # app's usage, the AM usage and the cluster's allocation are what they were before it
    url = str(tmp_path / "state.db")
    with served(tmp_path, url, TS, nodes=2, node_mb=8192) as (loop, clock):
        for queue, user, tasks in (("a", "alice", 5), ("b", "bob", 3)):
            app_id, _ = loop.new_application()
            loop.submit(submission(app_id, queue, user=user,
                                   tasks=(TaskGroup(tasks, mb(2048), 60_000),)))
        settle(loop, clock, 5_000)
        before = loop.scenario_snapshot()
    # no time lost: the new epoch starts where the old one's clock stood
    with served(tmp_path, url, TS + 5_000, journal="session-1.yaml") as (loop, clock):
        settle(loop, clock, 1_000)  # (an update pass: fair shares recomputed)
        after = loop.scenario_snapshot()
    for name, queue in before["queues"].items():
        for key in ("usage", "am-usage", "fair-share", "steady-fair-share", "demand"):
            assert after["queues"][name][key] == queue[key], (name, key)
    for app_id, app in before["apps"].items():
        for key in ("queue", "user", "usage", "live-containers", "am-running", "state"):
            assert after["apps"][app_id][key] == app[key], (app_id, key)
    for key in ("allocated", "capacity", "containers-allocated", "apps-running"):
        assert after["cluster"][key] == before["cluster"][key], key
    assert {n: v["allocated"] for n, v in after["nodes"].items()} == {
        n: v["allocated"] for n, v in before["nodes"].items()}


def test_containers_of_ended_apps_are_not_recovered(tmp_path: Path) -> None:
    # TestWorkPreservingRMRestart.testContainersNotRecoveredForCompletedApps
    from fairshare.server.store.store import Batch

    url = str(tmp_path / "state.db")
    with served(tmp_path, url, TS) as (loop, clock):
        app_id, _ = loop.new_application()
        loop.submit(submission(app_id, "a", tasks=(TaskGroup(1, mb(1024), 1_000),)))
        settle(loop, clock, 8_000)
        assert loop.snapshot().apps[0].state == "FINISHED"
    stale = StateStore(url)  # as if a container's end had not reached the store
    stale.write(Batch(container_records={"c_stale": {
        "id": "c_stale", "app": app_id, "attempt": 1, "node": "node1:45454",
        "resource": {"memory-mb": 1024, "vcores": 1}, "am": False, "priority": 0,
        "started_ms": TS + 2_000, "group": 0, "ends_ms": TS + 99_000, "process": None}}))
    stale.close()
    with served(tmp_path, url, TS + 10_000, journal="session-1.yaml") as (loop, clock):
        assert not [e for e in _events(loop) if e["type"] == "container-recovered"]
        assert loop.scenario_snapshot()["cluster"]["containers-allocated"] == 0
    assert StateStore(url).start().containers == ()


def test_ended_apps_from_before_the_restart_are_forgotten_past_the_limit_as_the_new_ones(
        tmp_path: Path) -> None:
    """max-completed-applications 2: the two apps that ended before the restart come back to
    the RM's records only (the engine is given the running ones); when two more end, the RM
    forgets the old ones, the engine and the app model the ones they had."""
    url = str(tmp_path / "state.db")
    keep = {"yarn.resourcemanager.max-completed-applications": "2"}
    short = (TaskGroup(1, mb(512), 1_000),)
    with served(tmp_path, url, TS, settings=keep) as (loop, clock):
        old = [loop.new_application()[0] for _ in range(2)]
        for app_id in old:
            loop.submit(submission(app_id, "a", tasks=short))
        settle(loop, clock, 6_000)
        assert {a.state for a in loop.snapshot().apps} == {"FINISHED"}
    with served(tmp_path, url, TS + 60_000, settings=keep, journal="session-1.yaml") as (
            loop, clock):
        assert sorted(a.id for a in loop.snapshot().apps) == sorted(old)
        new = [loop.new_application()[0] for _ in range(3)]
        for app_id in new:
            loop.submit(submission(app_id, "a", tasks=short))
        settle(loop, clock, 12_000)
        assert loop.failure is None
        kept = sorted(a.id for a in loop.snapshot().apps)
        held = loop._call(lambda: (sorted(loop.engine.state.apps), sorted(loop.sim.apps)))
    assert len(kept) == 2 and set(kept) <= set(new)  # the last two to end
    assert held == (kept, kept)

"""The paths a loaded server takes many times a second, written for speed: they must answer
exactly what the plain paths do. ``/nodes`` from each node's kept text (the same bytes as the
generic Jersey writer, as the nodes' usage, states and heartbeats move), and ``/apps`` from
the ended apps' kept texts; the journal's lines of the clock (the same JSON as every other
command's, in the file once the next request's command is); and
the engine loop's counters that bench/serve_load.py reads (``GET /ws/v1/fairshare/loop``)."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi.testclient import TestClient

from fairshare.config.yarnsite import load_site
from fairshare.core import AdvanceTo, Heartbeat, Kill, command_to_json
from fairshare.server.app import create_server_app
from fairshare.server.journal import Journal
from fairshare.server.rest import daos
from fairshare.server.rest.jersey import to_json
from fairshare.sim.sources.workload import TaskGroup
from tests.server.loopkit import mb, running_loop, settle, submission


def _same_nodes_answer(loop: object) -> bytes:
    s = loop.snapshot()  # type: ignore[attr-defined]
    listed = daos.node_order(s.nodes)
    plain = to_json(daos.nodes(s, listed))
    assert daos.nodes_json(s, listed) == plain
    return plain


def test_nodes_json_is_the_generic_answer_as_usage_states_and_heartbeats_move(
        tmp_path: Path) -> None:
    with running_loop(tmp_path, nodes=4, journal=False) as (loop, clock):
        settle(loop, clock, 1000)
        idle = _same_nodes_answer(loop)
        # an AM and two 2 GB tasks for 5 s: containers on the nodes, their usage changes
        loop.submit(submission("application_1800000000000_0001", "root.a",
                               tasks=(TaskGroup(2, mb(2048), 5000),)))
        settle(loop, clock, 3000)
        busy = _same_nodes_answer(loop)
        assert busy != idle
        assert b'"numContainers":1' in busy  # the AM's node, then the tasks'
        loop.decommission_node("node2:45454", None)
        loop.remove_node("node3:45454")
        settle(loop, clock, 4000)
        changed = _same_nodes_answer(loop)
        answer = json.loads(changed)["nodes"]["node"]
        states = {n["id"]: n["state"] for n in answer}
        assert states["node3:45454"] == "LOST"
        assert states["node2:45454"] in ("DECOMMISSIONING", "DECOMMISSIONED")
        # every active node's last heartbeat is the interval's start on the epoch clock
        beats = {n["lastHealthUpdate"] for n in answer if n["state"] == "RUNNING"}
        assert beats == {1_800_000_000_000 + 4000}
        settle(loop, clock, 9000)  # the tasks ended: the nodes' texts are those of before
        later = _same_nodes_answer(loop)
        assert later.count(b'"numContainers":0') >= 2


def _same_apps_answer(loop: object, **kw: object) -> bytes:
    s = loop.snapshot()  # type: ignore[attr-defined]
    listed = daos.app_order(s, s.apps)
    plain = to_json(daos.apps(s, listed, **kw))  # type: ignore[arg-type]
    assert daos.apps_json(s, listed, **kw) == plain  # type: ignore[arg-type]
    return plain


def test_apps_json_is_the_generic_answer_for_running_and_ended_apps(tmp_path: Path) -> None:
    with running_loop(tmp_path, nodes=2, journal=False) as (loop, clock):
        ids = [f"application_1800000000000_000{n}" for n in (1, 2, 3)]
        for app_id, ms in zip(ids, (2000, 60_000, 60_000), strict=True):
            loop.submit(submission(app_id, "root.a", tasks=(TaskGroup(1, mb(1024), ms),)))
        settle(loop, clock, 3000)
        running = _same_apps_answer(loop, caller="alice")
        loop.kill(ids[2], "alice", None)
        settle(loop, clock, 6000)  # the first finished, the third killed, the second runs
        answer = _same_apps_answer(loop, caller="alice")
        for kw in ({"caller": "bob", "rm_address": "rm:8088"},
                   {"caller": "alice", "deselects": frozenset({"timeouts"})}):
            assert _same_apps_answer(loop, **kw) != answer
        states = {a["id"]: a["state"] for a in json.loads(answer)["apps"]["app"]}
        assert states == {ids[0]: "FINISHED", ids[1]: "RUNNING", ids[2]: "KILLED"}
        settle(loop, clock, 7000)  # the running app's elapsed time moved, the ended ones' kept
        later = _same_apps_answer(loop, caller="alice")
        assert later != answer and running != answer


def test_the_loop_counts_heartbeats_and_how_late_it_took_what_was_due(tmp_path: Path) -> None:
    with running_loop(tmp_path, nodes=2, journal=False) as (loop, clock):
        settle(loop, clock, 3000)
        # 2 nodes, one heartbeat each at 1000, 2000 and 3000 ms; the first thing due (the
        # update pass at 500 ms) was taken when the clock read 3000 (the latest reading may
        # already be the next round's, which found nothing due)
        assert loop.heartbeats == 6
        assert loop.max_lag_ms == 2500 and loop.lag_ms in (0, 2500)
        settle(loop, clock, 3000)  # nothing due since: no lag now, the worst kept
        assert loop.lag_ms == 0 and loop.max_lag_ms == 2500
        with TestClient(create_server_app(loop)) as http:
            answer = http.get("/ws/v1/fairshare/loop")
        assert answer.status_code == 200
        assert answer.json() == {"clock-ms": 3000, "engine-ms": 3000, "heartbeats": 6,
                                 "lag-ms": 0, "max-lag-ms": 2500}


def test_the_clocks_lines_are_commands_json_and_reach_the_file_with_the_next_request(
        tmp_path: Path) -> None:
    types = load_site(None).resource_types
    path = tmp_path / "session.yaml"
    journal = Journal(path, types, "<allocations/>", None)
    try:
        journal(Heartbeat("node1:45454"))
        journal(Heartbeat("node2:45454"))
        journal(Heartbeat("node1:45454"))
        journal(AdvanceTo(1000))
        journal(Kill("application_1800000000000_0001"))
        lines = path.read_text(encoding="utf-8").splitlines()
    finally:
        journal.close()
    steps = lines[lines.index("steps:") + 1:]
    expected = [command_to_json(c, types) for c in (
        Heartbeat("node1:45454"), Heartbeat("node2:45454"), Heartbeat("node1:45454"),
        AdvanceTo(1000), Kill("application_1800000000000_0001"))]
    assert [json.loads(s.removeprefix("  - command: ")) for s in steps] == expected
    assert steps[0] == '  - command: {"kind": "heartbeat", "node": "node1:45454"}'

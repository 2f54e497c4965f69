"""``fairshare explain``: the chains on the examples, every claim backed by its events."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app
from tests.cli.test_run import REJECTING

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "examples/seed-three-tenants/simulation.yaml"
runner = CliRunner()


def simulate(out: Path, scenario: Path = SEED, *settings: str) -> Path:
    args = ["simulate", str(scenario), "-q", "-o", str(out)]
    for s in settings:
        args += ["--set", s]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def explain(out: Path, *args: str) -> dict[str, Any]:
    result = runner.invoke(app, ["explain", str(out), *args, "--json"])
    assert result.exit_code == 0, result.output
    doc: dict[str, Any] = json.loads(result.output)
    return doc


def events_of(out: Path) -> dict[int, dict[str, Any]]:
    records = (json.loads(x) for x in (out / "events.jsonl").read_text().splitlines())
    return {r["seq"]: r for r in records}


@pytest.fixture(scope="module")
def seed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulate(tmp_path_factory.mktemp("seed") / "out")


def test_the_seed_apps_chain_follows_its_configuration(seed: Path) -> None:
    """adhoc arrives at 60 s; tenant3's timeout is 5 s (the file's default), threshold 0.8:
    starved at 65 s; victims warned then and killed waitTimeBeforeKill (15 s) later, at 80 s,
    when its AM gets the freed space: an AM wait of 20 s."""
    statements = explain(seed, "--app", "adhoc")["statements"]
    texts = {s["t"]: s["text"] for s in statements}
    assert texts[60_000].startswith("Submitted by carol")
    starved = next(s for s in statements if s["text"].startswith("Found fair-share starved"))
    assert starved["t"] == 65_000
    assert "fairSharePreemptionTimeout of 5.0 s" in starved["text"]
    assert "below 0.8 × that share since 1 m 00 s" in starved["text"]
    assert "timeout in <defaultFairSharePreemptionTimeout>" in starved["text"]
    warned = next(s for s in statements if "warned for it" in s["text"])
    assert warned["t"] == 65_000 and "to be killed at 1 m 20 s" in warned["text"]
    am = next(s for s in statements if s["text"].startswith("Its AM container"))
    assert am["t"] == 80_000 and "20.0 s after submission" in am["text"]
    assert "on space freed by preemption" in am["text"]
    assert [s["t"] for s in statements if s["t"] is not None] == sorted(
        s["t"] for s in statements if s["t"] is not None)


def test_every_cited_event_is_about_the_subject(seed: Path) -> None:
    events = events_of(seed)
    for statement in explain(seed, "--app", "adhoc")["statements"]:
        for seq in statement["seq"]:
            e = events[seq]
            assert e["t"] <= (statement["t"] or e["t"])
            assert "adhoc" in (e.get("app"), e.get("beneficiary-app")) or (
                e["type"] == "starvation-gate"), e


def test_a_preempted_container_says_for_whom_and_what_was_lost(seed: Path) -> None:
    events = events_of(seed)
    killed = next(e for e in events.values() if e["type"] == "container-preempted")
    placed = next(e for e in events.values() if e["type"] == "container-allocated"
                  and e["container"] == killed["container"])
    statements = explain(seed, "--container", killed["container"])["statements"]
    victim = next(s for s in statements if s["text"].startswith("Chosen as a victim"))
    assert f"for {killed['beneficiary-app']} ({killed['beneficiary-queue']})" in victim["text"]
    last = statements[-1]
    assert last["t"] == killed["t"] and last["seq"] == [killed["seq"]]
    lost = killed["t"] - placed["t"]
    assert f"{lost // 60_000} m {lost // 1000 % 60:02d} s of its work lost" in last["text"]


def test_the_queue_chain_names_whom_it_took_from(seed: Path) -> None:
    events = events_of(seed)
    took = [e for e in events.values() if e["type"] == "container-preempted"
            and e["beneficiary-queue"] == "root.tenant3"]
    by_queue = {q: sum(e["queue"] == q for e in took) for q in {e["queue"] for e in took}}
    texts = [s["text"] for s in explain(seed, "--queue", "root.tenant3")["statements"]]
    line = next(t for t in texts if t.startswith("Containers preempted for it"))
    for queue, n in by_queue.items():
        assert f"{n} from {queue}" in line


def test_without_preemption_it_says_so(tmp_path: Path) -> None:
    out = simulate(tmp_path / "off", SEED, "site:yarn.scheduler.fair.preemption=false")
    texts = [s["text"] for s in explain(out, "--app", "adhoc")["statements"]]
    assert any(t.startswith("Preemption is off") for t in texts)
    queue = [s["text"] for s in explain(out, "--queue", "root.tenant3")["statements"]]
    assert any(t.startswith("It was never starved: preemption is off") for t in queue)


def test_a_gate_that_never_opens_is_named(tmp_path: Path) -> None:
    """Utilization reaches 100 % at most; the gate needs threshold < utilization: with 1.0 it
    never opens, and nothing is ever starved."""
    out = simulate(tmp_path / "gate", SEED,
                   "site:yarn.scheduler.fair.preemption.cluster-utilization-threshold=1.0")
    queue = [s["text"] for s in explain(out, "--queue", "root.tenant3")["statements"]]
    assert "It was never starved: the utilization gate never opened (the cluster never got " \
           "busier than 100%)." in queue


def test_a_rejected_app_gives_the_reason(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(REJECTING)
    out = simulate(tmp_path / "out", scenario)
    [statement] = explain(out, "--app", "lost")["statements"]
    reason = next(e for e in events_of(out).values() if e["type"] == "app-rejected")["reason"]
    assert statement["text"] == f"Submitted to root.nope and rejected: {reason}."


def test_a_blocked_round_is_told_by_cause(tmp_path: Path) -> None:
    """tenant1 and tenant2 may not be preempted and fill the cluster: at 65 s adhoc (holding
    nothing yet) wants one container (its AM), and no node can make room but by taking theirs."""
    out = simulate(tmp_path / "np", SEED, "alloc:root.tenant1.allowPreemptionFrom=false",
                   "alloc:root.tenant2.allowPreemptionFrom=false")
    events = events_of(out)
    rounds = [e for e in events.values() if e["type"] == "no-preemption" and e["app"] == "adhoc"]
    assert (rounds[0]["t"], rounds[0]["blocked"]) == (65_000, {"non-preemptable-queue": 1})
    assert all(sum(e["blocked"].values()) == e["containers-wanted"] - e["containers-found"]
               for e in rounds)
    assert not any(e["type"] == "container-preempted" for e in events.values())
    statements = explain(out, "--app", "adhoc")["statements"]
    first = next(s for s in statements if s["seq"] == [rounds[0]["seq"]])
    assert first["text"] == ("A preemption round wanted 1 container(s) for it and found victims "
                             "for 0: 1 blocked by containers of non-preemptable queues.")


def test_bad_requests_are_exit_2(seed: Path, tmp_path: Path) -> None:
    unknown = runner.invoke(app, ["explain", str(seed), "--app", "adhok"])
    assert unknown.exit_code == 2
    assert unknown.output.strip() == ("--app adhok: no app adhok in this run; did you mean "
                                      "adhoc? The run's apps: etl, reports, adhoc.")
    both = runner.invoke(app, ["explain", str(seed), "--app", "adhoc", "--queue", "root"])
    assert both.exit_code == 2
    empty = tmp_path / "empty"
    empty.mkdir()
    missing = runner.invoke(app, ["explain", str(empty), "--app", "adhoc"])
    assert missing.exit_code == 2 and str(empty) in missing.output


def test_why_this_node_gives_the_search_rule_and_the_numbers(seed: Path) -> None:
    """At 65 s every node is full (etl and reports hold 24 GB in 2 GB containers) and adhoc's
    AM asks for 1 GB on any node: one 2 GB task container, no AM, is enough on the first node."""
    first = min((e for e in events_of(seed).values() if e["type"] == "preemption-warned"),
                key=lambda e: e["seq"])
    assert (first["t"], first["node"], first["am"]) == (65_000, "node1", False)
    statements = explain(seed, "--container", first["container"])["statements"]
    victim = next(s for s in statements if s["text"].startswith("Chosen as a victim"))
    assert ("on node1: the request could go to any node, and YARN takes the first node, in its "
            "node order, where the containers to take include no AM container. Here 1 "
            "container(s) had to be taken, the node having 0 MB, 0 vcores free.") in victim["text"]


RESERVING = """\
version: 1
allocations: |
  <allocations><queue name="a"/><queue name="b"/><queue name="c"/></allocations>
cluster:
  nodes: [{name: n1, memory-mb: 4096, vcores: 4}]
workload:
  apps:
    - {id: f, at-ms: 0, queue: root.a, user: u, am: {memory-mb: 1024, vcores: 1},
       tasks: [{count: 1, memory-mb: 1024, vcores: 1, duration-ms: 60000},
               {count: 1, memory-mb: 1024, vcores: 1, duration-ms: 120000}]}
    - {id: big, at-ms: 1000, queue: root.b, user: v, am: {memory-mb: 1024, vcores: 1},
       tasks: [{count: 1, memory-mb: 3072, vcores: 1, duration-ms: 60000}]}
    - {id: small, at-ms: 64000, queue: root.c, user: w, am: {memory-mb: 1024, vcores: 1},
       tasks: [{count: 1, memory-mb: 1024, vcores: 1, duration-ms: 1000}]}
run: {until-ms: 600000}
"""


def test_a_node_reserved_by_another_app_is_named(tmp_path: Path) -> None:
    """One 4 GB node: f's AM and first task and big's AM take 3 GB; big's 3 GB task does not
    fit the 1 GB left, so big reserves n1. Nothing else is placed there from then on (f's
    second task neither), so f never ends, big's task never fits, and small, arriving at
    64 s, never gets its AM: all because of big's reservation."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text(RESERVING)
    out = simulate(tmp_path / "out", scenario)
    [reserved] = [e for e in events_of(out).values() if e["type"] == "container-reserved"]
    assert (reserved["app"], reserved["node"]) == ("big", "n1")
    small = explain(out, "--app", "small")["statements"]
    held = next(s for s in small if s["text"].startswith("While it waited, other apps held"))
    assert held["t"] == 64_000 and held["seq"] == [reserved["seq"]]
    assert "reservations on 1 node(s) (reservations by app, most first: big 1)" in held["text"]
    assert small[-2]["text"] == ("Its AM container was never placed: it waited 8 m 56 s, to "
                                 "the end of the run.")
    big = explain(out, "--app", "big")["statements"]
    own = next(s for s in big if s["text"].startswith("It reserved n1"))
    assert own["t"] == reserved["t"] and own["seq"] == [reserved["seq"]]
    assert "3,072 MB, 1 vcores" in own["text"]
    assert own["text"].endswith("It still held it when the run ended.")
    assert not any("other apps held" in s["text"] for s in big)

"""``fairshare explain`` cites the workload's timed changes that touched its subject."""

from __future__ import annotations

from pathlib import Path

from tests.sim.test_timed import BUSY, DRAIN, events, simulate
from tests.workbench.test_explain import explain

RELOAD_AND_LOSS = """\
    - {at-ms: 5000, reload: {set: ['alloc:root.a.weight=3']}}
    - {at-ms: 8000, reload: {set: ['alloc:root.b.weight=2']}}
    - {at-ms: 10000, remove-node: {name: n2}}"""


def texts(doc: dict[str, object]) -> list[str]:
    return [s["text"] for s in doc["statements"]]  # type: ignore[attr-defined, index]


def test_an_apps_chain_names_the_reload_of_its_queue_and_the_node_lost_under_it(
        tmp_path: Path) -> None:
    out = simulate(tmp_path, RELOAD_AND_LOSS, apps=BUSY, until=20_000)
    lost = [e for e in events(out, "container-completed")
            if e["app"] == "x" and e["status"] == "lost"]
    assert lost  # x ran on n2
    doc = explain(out, "--app", "x")
    said = texts(doc)
    assert "At 5.0 s the configuration was reloaded: root.a weight 1 → 3." in said
    assert not any("root.b" in s for s in said)  # another queue's reload did not touch it
    assert (f"Node n2 was lost at 10.0 s (a timed change of the workload), killing "
            f"{len(lost)} of its containers there.") in said
    cited = next(s for s in doc["statements"] if s["text"].startswith("Node n2"))
    assert sorted(cited["seq"]) == sorted(e["seq"] for e in lost)


def test_a_queues_chain_names_its_reloads_and_every_node_change(tmp_path: Path) -> None:
    out = simulate(tmp_path, RELOAD_AND_LOSS, apps=BUSY, until=20_000)
    lost = [e for e in events(out, "container-completed")
            if e["queue"] == "root.b" and e["status"] == "lost"]
    said = texts(explain(out, "--queue", "root.b"))
    assert "At 8.0 s the configuration was reloaded: root.b weight 1 → 2." in said
    assert not any("root.a weight" in s for s in said)
    assert any(s.startswith("At 10.0 s: node n2 lost, killing 8 of its containers (the "
                            f"cluster, so the fair shares, changed; {len(lost)} of this "
                            "queue's containers were lost there).") for s in said)


def test_a_decommission_timeout_is_told_as_such(tmp_path: Path) -> None:
    out = simulate(tmp_path, "    - {at-ms: 2000, decommission-node: {name: n1, timeout-ms: "
                   "5000}}", apps=DRAIN, until=40_000)
    said = texts(explain(out, "--app", "x"))
    assert ("Node n1 left at 7.0 s, its graceful decommission (from 2.0 s) timed out, "
            "killing 1 of its containers there.") in said
    assert any(s.startswith("At 2.0 s: node n1 decommissioning (1 container running, "
                            "timeout 5.0 s)") for s in texts(explain(out, "--queue", "root.a")))


def test_a_lost_containers_chain_says_how_its_node_left(tmp_path: Path) -> None:
    out = simulate(tmp_path, RELOAD_AND_LOSS, apps=BUSY, until=20_000)
    lost = next(e for e in events(out, "container-completed") if e["status"] == "lost")
    said = texts(explain(out, "--container", lost["container"]))
    assert said[-2:] == ["Completed (lost); never preempted.",
                         "Node n2 was lost at 10.0 s (a timed change of the workload), killing "
                         "1 of its containers there."]

"""The fuzz suite's output invariants and scenario generator."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from fuzz import invariants, scengen

NODE = {"t": 0, "type": "node-added", "seq": 1, "node": "n1", "rack": "/r",
        "capacity": {"memory-mb": 4096, "vcores": 4}}


def _alloc(seq: int, cid: str, mb: int, app: str = "a", queue: str = "root.x",
           node: str = "n1") -> dict[str, Any]:
    return {"t": seq, "type": "container-allocated", "seq": seq, "app": app, "queue": queue,
            "container": cid, "node": node, "resource": {"memory-mb": mb, "vcores": 1}}


def _kinds(replay: invariants.Replay) -> list[str]:
    return [kind for kind, _ in replay.problems]


def _warned(seq: int, cid: str, usage: int, after: int, share: int, queue: str = "root.x",
            cluster_vcores: int = 1) -> dict[str, Any]:
    return {"t": seq, "type": "preemption-warned", "seq": seq, "container": cid, "app": "a",
            "queue": queue, "node": "n1", "resource": {"memory-mb": 1024, "vcores": 1},
            "victim-usage": {"memory-mb": usage, "vcores": usage // 1024},
            "victim-usage-after": {"memory-mb": after, "vcores": after // 1024},
            "victim-fair-share": {"memory-mb": share, "vcores": share // 1024}}


def test_allocations_within_capacity_pass() -> None:
    replay = invariants.Replay({})
    for event in (NODE, _alloc(2, "c1", 2048), _alloc(3, "c2", 2048)):
        replay.feed(event)
    assert replay.problems == []


def test_overflow_unknown_node_double_end_and_order() -> None:
    replay = invariants.Replay({})
    events = (NODE, _alloc(2, "c1", 2048), _alloc(3, "c2", 4096), _alloc(4, "c3", 1, node="nx"))
    for event in events:
        replay.feed(event)
    replay.feed({"t": 5, "type": "container-completed", "seq": 5, "container": "c9",
                 "node": "n1"})
    replay.feed({"t": 1, "type": "app-finished", "seq": 6})
    assert _kinds(replay) == ["capacity", "capacity", "capacity", "order"]


def test_preemption_from_a_non_preemptable_queue() -> None:
    replay = invariants.Replay({"non_preemptable": ["root.prod"]})
    for event in (NODE, _alloc(2, "c1", 1024, queue="root.prod.web"),
                  _warned(3, "c1", 1024, 0, 0, queue="root.prod.web")):
        replay.feed(event)
    assert "non-preemptable" in _kinds(replay)


def test_victims_may_not_go_below_their_fair_share() -> None:
    replay = invariants.Replay({"policies": {"root.x": "fair"}})
    for event in (NODE, _alloc(2, "c1", 1024), _alloc(3, "c2", 1024),
                  _warned(4, "c1", 2048, 1024, 2048)):
        replay.feed(event)
    assert _kinds(replay) == ["below-fair-share"]


def test_the_warning_must_tell_the_truth_about_usage() -> None:
    replay = invariants.Replay({})
    for event in (NODE, _alloc(2, "c1", 1024), _warned(3, "c1", 4096, 3072, 0)):
        replay.feed(event)
    assert _kinds(replay) == ["warned", "warned"]


def test_drf_compares_dominant_shares() -> None:
    cluster = {"memory-mb": 10000, "vcores": 10}
    # memory 50 % vs a share of 40 % memory and 60 % vcores: 0.5 < 0.6, below
    assert invariants.below_share({"memory-mb": 5000, "vcores": 1},
                                  {"memory-mb": 4000, "vcores": 6}, "drf", cluster)
    assert not invariants.below_share({"memory-mb": 5000, "vcores": 7},
                                      {"memory-mb": 4000, "vcores": 6}, "drf", cluster)
    # the fair policy looks at memory only
    assert not invariants.below_share({"memory-mb": 5000, "vcores": 0},
                                      {"memory-mb": 4000, "vcores": 6}, "fair", cluster)


def test_timeline_usage_must_match_live_containers() -> None:
    replay = invariants.Replay({})
    for event in (NODE, _alloc(2, "c1", 1024, queue="root.x.y")):
        replay.feed(event)
    header = ["time_ms", "queue", "usage_mb", "usage_vcores", "containers"]
    replay.check_sample(2, [["2", "root", "1024", "1", "1"], ["2", "root.x", "1024", "1", "1"],
                            ["2", "root.x.y", "1024", "1", "1"], ["2", "root.z", "0", "0", "0"]],
                        header)
    assert replay.problems == []
    replay.check_sample(2, [["2", "root.x", "0", "0", "0"]], header)
    assert _kinds(replay) == ["timeline"]


def test_compare_runs(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    for d, text in ((a, "1\n2\n3\n"), (b, "1\n2\n4\n")):
        d.mkdir()
        (d / "events.jsonl").write_text(text)
    findings = invariants.compare_runs(a, b, "with --fixed-interval")
    assert [f.cls for f in findings] == ["nondeterminism"]
    assert "line 3" in findings[0].message


def test_generated_scenarios_are_reproducible_and_well_formed() -> None:
    edges = set()
    for index in range(0, 10 * len(scengen.EDGES), 3):
        g = scengen.generate(5, index)
        assert g == scengen.generate(5, index)
        doc = yaml.safe_load(g.files[g.scenario])
        assert doc["version"] == 1 and doc["workload"]["apps"]
        assert isinstance(doc["run"]["until-ms"], int)
        xml = doc.get("allocations") or g.files["fair-scheduler.xml"].decode()
        non_preemptable = re.findall(r"allowPreemptionFrom>false", xml)
        assert bool(non_preemptable) == bool(g.meta["non_preemptable"])
        edges.add(g.edge)
    assert {scengen.generate(5, 10 * i + 7).edge for i in range(len(scengen.EDGES))} == set(
        scengen.EDGES)

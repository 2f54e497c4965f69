"""``fairshare watch status`` (watch/status.py): the screen fits the terminal and the JSON holds
the RM's numbers, read here independently from the fixture's JSON."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fairshare.config.model import AllocationConfig
from fairshare.config.yarnsite import SiteConfig
from fairshare.sim.importer.dump import (
    DumpQueue,
)
from fairshare.watch.status import render_status, status_json
from fairshare.web.diagnosis import Finding, diagnose
from fairshare.web.sample import Sample
from tests.web.dumps import dump_queues, sample_of

DUMPS = Path(__file__).parents[1] / "importer" / "dumps"
NOW_MS = 1_700_000_400_000


def _sample(folder: str) -> Sample:
    return sample_of(folder, NOW_MS)


def _findings(sample: Sample) -> list[Finding]:
    return diagnose(sample, AllocationConfig(), SiteConfig.default(), {})


def _deep_sample() -> Sample:
    """Long names five levels deep on a 5,000-node cluster (GB), with a long diagnosis."""
    big = (5000 * 262_144, 5000 * 64)
    queue: DumpQueue | None = None
    for depth in range(5, 0, -1):
        name = "root." + ".".join(f"analytics-team-with-a-long-name-{i}" for i in range(depth))
        queue = DumpQueue(name=name, leaf=queue is None, policy="drf", min_resources=(0, 0),
                          max_resources=big, used=(987_654_321, 123_456),
                          steady_fair=(1_234_567_890, 234_567), fair=(1_111_111_111, 222_222),
                          am_max=None, max_apps=None, preemptable=True,
                          children=() if queue is None else (queue,), line=1,
                          demand=(1_300_000_000, 300_000), pending_containers=123_456)
    assert queue is not None
    root = DumpQueue(name="root", leaf=False, policy="drf", min_resources=(0, 0),
                     max_resources=big, used=queue.used, steady_fair=big, fair=big,
                     am_max=None, max_apps=None, preemptable=True, children=(queue,), line=1)
    return Sample(NOW_MS, "http://rm.example.com:8088", 1, "3.4.1", root, big, (), ())


@pytest.mark.parametrize("folder", ["basic", "spark", "drf12", "deep"])
@pytest.mark.parametrize("width", [80, 200])
def test_the_screen_fits_the_width(folder: str, width: int) -> None:
    sample = _deep_sample() if folder == "deep" else _sample(folder)
    text = render_status(sample, _findings(sample), width=width)
    assert max(len(line) for line in text.splitlines()) <= width
    # the table alone: nothing cut (…), every queue's row with its numbers
    table = render_status(sample, [], width=width)
    assert max(len(line) for line in table.splitlines()) <= width
    assert "…" not in table
    assert "Steady" in table and "Fair" in table and "Demand" in table
    for q in sample.queues():
        assert q.name.rsplit(".", 1)[-1][:8] in table
        assert q.steady_fair is not None and f"{q.steady_fair[1]:,}" in table


def test_one_memory_unit_per_table() -> None:
    # basic: a 24,576 MB cluster, under 100,000 MB: MB; root's usage 13,312 MB and 8 vcores
    text = render_status(_sample("basic"), [], width=200)
    assert "Queues (memory in MB / vcores)" in text
    assert "13,312 / 8" in text
    # spark: 262,144 MB = 256 GB, from 100,000 MB on GB: root's 90,112 MB used is 88 GB
    spark = _sample("spark")
    assert spark.cluster == (262144, 64)
    text = render_status(spark, [], width=200)
    assert "Queues (memory in GB / vcores)" in text and "88 / " in text
    assert "Nothing is waiting" in text
    # 5,000 nodes of 256 GB at 80 columns: each cell's memory over its vcores
    deep = render_status(_deep_sample(), [], width=80)
    assert "Queues (memory in GB over vcores)" in deep
    assert "1,280,000 1,280,000" in deep  # root's steady and fair share: 1,310,720,000 MB


def test_the_diagnosis_is_on_the_screen() -> None:
    sample = _sample("basic")
    text = render_status(sample, _findings(sample), width=200)
    # app 3 asks 1,536 MB for its AM and node1 has 3,072 MB free
    assert ("root.analytics.reports: held by the wait for a node heartbeat" in text)
    assert "a node has room for 1,536 MB, 1 vcores" in text
    assert "Waiting: application_1700000000000_0003 (room-free)." in text
    assert "What would help: nothing to tune" in text


def _json_queues(folder: str) -> dict[str, dict[str, Any]]:
    return dump_queues(folder)


@pytest.mark.parametrize("folder", ["basic", "spark", "drf12"])
def test_json_numbers_are_the_rms(folder: str) -> None:
    sample = _sample(folder)
    doc = status_json(sample, _findings(sample))
    doc = json.loads(json.dumps(doc))  # what a script reads
    rest = _json_queues(folder)
    assert doc["queues"][0]["name"] == "root"
    assert sorted(q["name"] for q in doc["queues"]) == sorted(rest)
    keys = {"steady_fair_share": "steadyFairResources", "fair_share": "fairResources",
            "min_share": "minResources", "max_share": "maxResources", "used": "usedResources",
            "demand": "demandResources", "am_used": "amUsedResources",
            "am_max": "amMaxResources"}
    for q in doc["queues"]:
        r = rest[q["name"]]
        for ours, theirs in keys.items():
            if theirs in r:
                assert q[ours] == {"memory_mb": r[theirs]["memory"],
                                   "vcores": r[theirs]["vCores"]}, (q["name"], ours)
            else:
                assert q[ours] is None
        assert q["pending_containers"] == r.get("pendingContainers")
        assert q["max_apps"] == r.get("maxApps")
        assert q["running_apps"] == r.get("numActiveApps")
    root = rest["root"]["clusterResources"]
    assert doc["cluster"] == {"memory_mb": root["memory"], "vcores": root["vCores"]}
    apps = json.loads((DUMPS / folder / "apps.json").read_text())["apps"]["app"]
    assert doc["apps"] == len(apps)


def test_json_findings_per_queue() -> None:
    sample = _sample("basic")
    doc = status_json(sample, _findings(sample))
    reports = next(q for q in doc["queues"] if q["name"] == "root.analytics.reports")
    assert [f["app"] for f in reports["findings"]] == [None, "application_1700000000000_0003"]
    assert reports["findings"][1]["cause"] == "room-free"
    assert set(reports["findings"][0]) == {"queue", "app", "cause", "words", "setting",
                                           "advice", "since_ms"}

"""The seed article's three tenants, simulated: the numbers come out as the seed describes them.

examples/seed-three-tenants/simulation.yaml (what `make run` simulates). The expected values are
worked out by hand from the seed and docs/semantics.md, as the scenario's header comment explains:

* weights 1:2:1 on 24 GB / 12 vcores → with tenant3 inactive, one third and two thirds
  (8 GB / 4 vcores, 16 GB / 8 vcores); with all three active 25 / 50 / 25 % (6 GB / 3 vcores,
  12 GB / 6 vcores, 6 GB / 3 vcores). Containers are 2 GB / 1 vcore, four per node, so the fill
  is exactly 4 + 8 containers (AMs included).
* adhoc arrives at 60 s and is evaluated by the update pass of that millisecond; below 80 % of
  its share for fairSharePreemptionTimeout (5 s) it is starved at 65 s. Its only ask is then
  its 1 GB AM, so its starvation (capped by its demand) is 1 GB / 1 vcore: one victim.
* victims die waitTimeBeforeKill (15 s) later, at 80 s, a heartbeat tick: the AM takes the
  earmarked space then.
* the next check waits 15 s + 10 s = 25 s (waitTimeBeforeKill + waitTimeBeforeNextStarvation
  Check; the "4 heartbeats" FSPreemptionThread means to add are 4 × 0 in YARN, which reads the
  heartbeat interval before setting it): at 90 s adhoc (1 GB / 1 vcore used) is starved by
  0.8 × 6144 − 1024 = 3891 MB and 2 − 1 = 1 vcore; two 2 GB victims make room for its 1 GB
  tasks; killed at 105 s, when two tasks start: 3 containers, 3 vcores = 25 %.
* nobody goes below its fair share: tenant1 gives one container (8 → 6 GB), tenant2 two
  (16 → 12 GB). At 65 s both could give one; the first victim is the first task container
  YARN's walk of node1 meets (its containers in the hash order of their ids): tenant2's.
  Hadoop 3.4.2's own FairScheduler makes the same choices on this workload (`make oracle`:
  example-seed-three-tenants-simulation is identical).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app

SCENARIO = Path(__file__).parents[2] / "examples" / "seed-three-tenants" / "simulation.yaml"
GB = 1024


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    outdir = tmp_path_factory.mktemp("seed")
    result = CliRunner().invoke(app, ["run", str(SCENARIO), "-o", str(outdir)])
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in (outdir / "events.jsonl").read_text().splitlines()]
    summary = json.loads((outdir / "summary.json").read_text())
    return {"events": events, "summary": summary, "dir": outdir}


def of(events: list[dict[str, Any]], kind: str, **match: Any) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind and all(e.get(k) == v for k, v in match.items())]


def usage_at(events: list[dict[str, Any]], queue: str, t: int) -> tuple[int, int]:
    """A queue's usage after everything up to ``t``, from allocations, completions and kills
    (a preempted container is reported by container-preempted alone)."""
    memory = vcores = 0
    for e in events:
        if e["t"] > t or e.get("queue") != queue:
            continue
        sign = {"container-allocated": 1, "container-completed": -1,
                "container-preempted": -1}.get(e["type"], 0)
        memory += sign * e.get("resource", {}).get("memory-mb", 0)
        vcores += sign * e.get("resource", {}).get("vcores", 0)
    return memory, vcores


def test_tenants_one_and_two_fill_the_cluster_one_third_two_thirds(
        outputs: dict[str, Any]) -> None:
    events = outputs["events"]
    assert usage_at(events, "root.tenant1", 59_999) == (8 * GB, 4)
    assert usage_at(events, "root.tenant2", 59_999) == (16 * GB, 8)
    assert usage_at(events, "root.tenant3", 59_999) == (0, 0)


def test_tenant3_starves_five_seconds_after_it_arrives(outputs: dict[str, Any]) -> None:
    events = outputs["events"]
    [submitted] = of(events, "app-submitted", app="adhoc")
    assert submitted["t"] == 60_000
    first, second = of(events, "starvation", app="adhoc")
    assert (first["t"], first["kind"], first["since-ms"]) == (65_000, "fair-share", 60_000)
    assert first["amount"] == {"memory-mb": GB, "vcores": 1}  # capped by its demand: the AM
    assert first["fair-share"] == {"memory-mb": 6 * GB, "vcores": 3}  # 25 %
    assert second["t"] == 90_000  # 65 s + 15 s + 10 s
    assert second["amount"] == {"memory-mb": 3891, "vcores": 1}


def test_preemption_takes_one_from_tenant1_and_two_from_tenant2_and_restores_tenant3(
        outputs: dict[str, Any]) -> None:
    events = outputs["events"]
    warned = of(events, "preemption-warned", **{"beneficiary-app": "adhoc"})
    assert [w["t"] for w in warned] == [65_000, 90_000, 90_000]
    killed = of(events, "container-preempted")
    assert [k["t"] for k in killed] == [80_000, 105_000, 105_000]
    assert sorted(k["queue"] for k in killed) == ["root.tenant1", "root.tenant2",
                                                  "root.tenant2"]
    assert not any(k["am"] for k in killed)  # AM containers last
    assert [a["t"] for a in of(events, "container-allocated", app="adhoc", am=True)] == [80_000]
    assert usage_at(events, "root.tenant3", 105_000) == (3 * GB, 3)  # 25 % of the vcores
    assert usage_at(events, "root.tenant1", 105_000) == (6 * GB, 3)  # its fair share, not less
    assert usage_at(events, "root.tenant2", 105_000) == (12 * GB, 6)


def test_the_summary_tells_the_same_story(outputs: dict[str, Any]) -> None:
    summary = outputs["summary"]
    apps = {a["id"]: a for a in summary["apps"]} if isinstance(summary["apps"], list) \
        else summary["apps"]
    adhoc = apps["adhoc"]
    assert (adhoc["submit-ms"], adhoc["start-ms"], adhoc["wait-ms"]) == (60_000, 80_000, 20_000)
    assert apps["etl"]["preempted-containers"] == 1
    assert apps["reports"]["preempted-containers"] == 2
    # every task started at the 2 s tick (the asks were seen by the update at 1.5 s)
    assert apps["etl"]["lost-work-ms"] == 105_000 - 2000  # killed in the second round
    assert apps["reports"]["lost-work-ms"] == (80_000 - 2000) + (105_000 - 2000)
    queues = summary["queues"]
    assert queues["root.tenant1"]["containers-preempted-from"] == 1
    assert queues["root.tenant2"]["containers-preempted-from"] == 2
    assert queues["root.tenant3"]["containers-preempted-for"] == 3

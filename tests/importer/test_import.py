"""``fairshare import``: a hand-made dump of a Fair Scheduler cluster, in the response shapes of
Hadoop's ResourceManager REST documentation (Hadoop 3 fields), becomes a scenario that starts
from its state; broken dumps are refused at their file, field and line with nothing written.

The dump (tests/importer/dumps/basic): three 8 GB / 8 vcore nodes (a fourth is LOST), root (drf)
with default, etl and analytics.{adhoc, reports}. application_…_0001 runs in root.etl: its 1 GB
AM on node1 and four 2 GB tasks, two on node1 and two on node2, and asks for six more;
application_…_0002 runs in root.analytics.adhoc: its 2 GB AM and two 1 GB tasks on node3, and
asks for two more 1 GB; application_…_0003 waits in root.analytics.reports for its 1.5 GB AM;
application_…_0000 has finished. The nodes' used resources are what those containers add up to.
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from fairshare.config.errors import ConfigError
from fairshare.sim.importer.build import import_dump
from fairshare.sim.importer.scenario_text import Choices
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.record.summary_model import summary_json
from fairshare.sim.run.scripted import run_scenario
from fairshare.workbench.explain.queue import explain, load_run

DUMP = Path(__file__).parent / "dumps" / "basic"
APP1, APP2, APP3 = (f"application_1700000000000_000{i}" for i in (1, 2, 3))


def copy_dump(tmp_path: Path) -> Path:
    folder = tmp_path / "dump"
    shutil.copytree(DUMP, folder)
    return folder


def queues_of(scheduler: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """usedResources of every queue of a scheduler.json, read here independently."""
    found = {}
    todo = [scheduler["scheduler"]["schedulerInfo"]["rootQueue"]]
    while todo:
        q = todo.pop()
        found[q["queueName"]] = (q["usedResources"]["memory"], q["usedResources"]["vCores"])
        todo += (q.get("childQueues") or {}).get("queue", [])
    return found


def test_the_simulation_starts_with_the_dumped_queue_usage(tmp_path: Path) -> None:
    out = tmp_path / "scenario"
    result = import_dump(DUMP, out, Choices(remaining_ms=60_000, task_ms=30_000))
    assert not any("nodes hold other containers" in note for note in result.notes)
    run_scenario(load_scenario(out / "scenario.yaml"), tmp_path / "run")
    with (tmp_path / "run" / "timeline.csv").open() as f:
        at_start = {row["queue"]: (int(row["usage_mb"]), int(row["usage_vcores"]))
                    for row in csv.DictReader(f) if row["time_ms"] == "0"}
    dumped = queues_of(json.loads((DUMP / "scheduler.json").read_text()))
    assert at_start == dumped
    assert dumped["root"] == (13312, 8)  # the fixture is what the test says it is


def test_containers_are_recovered_where_they_ran_and_the_apps_run_forward(
        tmp_path: Path) -> None:
    out = tmp_path / "scenario"
    import_dump(DUMP, out, Choices(remaining_ms=60_000, task_ms=30_000))
    result = run_scenario(load_scenario(out / "scenario.yaml"), tmp_path / "run")
    records = [json.loads(line) for line in (tmp_path / "run" / "events.jsonl").open()]
    recovered = [(r["app"], r["node"], r["resource"]["memory-mb"], r["am"])
                 for r in records if r["type"] == "container-recovered"]
    n1, n2, n3 = (f"node{i}.example.com" for i in (1, 2, 3))
    assert sorted(recovered) == sorted([
        (APP1, n1, 1024, True), (APP1, n1, 2048, False), (APP1, n1, 2048, False),
        (APP1, n2, 2048, False), (APP1, n2, 2048, False),
        (APP2, n3, 2048, True), (APP2, n3, 1024, False), (APP2, n3, 1024, False)])
    am_ids = {r["container"] for r in records if r["type"] == "container-recovered" and r["am"]}
    assert am_ids == {"container_1700000000000_0001_01_000001",
                      "container_1700000000000_0002_01_000001"}
    # no AM is asked for again; the outstanding asks are: 6 × 2 GB, 2 × 1 GB, the waiting AM
    asked = sorted((r["app"], r["count"], r["asked"]["memory-mb"])
                   for r in records if r["type"] == "containers-requested")
    assert asked == [(APP1, 6, 2048), (APP2, 2, 1024), (APP3, 1, 1536)]
    assert result.summary is not None
    apps = summary_json(result.summary)["apps"]
    assert {a: apps[a]["state"] for a in apps} == {APP1: "finished", APP2: "finished",
                                                   APP3: "finished"}
    # app 2: its two pending 1 GB tasks fit at once (first heartbeat, 1 s) and run 30 s; its
    # recovered ones end at 60 s, and with them the app
    assert apps[APP2]["finish-ms"] == 60_000 and apps[APP2]["tasks-total"] == 4


def test_a_dump_without_an_allocation_file_gets_one_with_its_guesses(tmp_path: Path) -> None:
    out = tmp_path / "scenario"
    import_dump(DUMP, out, Choices())
    xml = (out / "fair-scheduler.xml").read_text()
    # weights: steady fair shares 4096 : 8192 : 12288 among root's children
    assert "<weight>2</weight>" in xml and "<weight>3</weight>" in xml
    assert "weight guessed from the steady fair share (8,192 MB)" in xml
    assert "<schedulingPolicy>drf</schedulingPolicy>" in xml
    assert "<minResources>4096 mb, 2 vcores</minResources>" in xml
    assert "<maxResources>16384 mb, 16 vcores</maxResources>" in xml  # below the cluster
    assert xml.count("<maxResources>") == 1  # the others equal the cluster: no limit
    assert "<maxRunningApps>10</maxRunningApps>" in xml
    assert "<maxRunningApps>2</maxRunningApps>" in xml
    assert "<maxAMShare>0.75</maxAMShare>" in xml  # amMaxResources 6144 over fair share 8192
    assert "maxAMShare guessed from amMaxResources" in xml
    assert xml.count("<allowPreemptionFrom>false</allowPreemptionFrom>") == 3
    text = (out / "scenario.yaml").read_text()
    assert "preemption is off" in text and "site-file" not in text


def test_given_site_and_allocations_are_used_as_they_are(tmp_path: Path) -> None:
    site = tmp_path / "yarn-site.xml"
    site.write_text("<configuration><property><name>yarn.scheduler.fair.preemption</name>"
                    "<value>true</value></property></configuration>")
    alloc = tmp_path / "mine.xml"
    alloc.write_text("<allocations><queue name='root'><schedulingPolicy>drf</schedulingPolicy>"
                     "<queue name='etl'/><queue name='analytics'><queue name='adhoc'/>"
                     "<queue name='reports'/></queue></queue></allocations>")
    out = tmp_path / "scenario"
    result = import_dump(DUMP, out, Choices(), allocations=alloc, site=site)
    assert (out / "fair-scheduler.xml").read_text() == alloc.read_text()
    assert (out / "yarn-site.xml").read_text() == site.read_text()
    text = (out / "scenario.yaml").read_text()
    assert 'site-file: "yarn-site.xml"' in text and "preemption is off" not in text
    assert not any("yarn-site" in note for note in result.notes)
    scenario = load_scenario(out / "scenario.yaml")
    assert scenario.site_file == (out / "yarn-site.xml").resolve()


def test_disagreeing_files_are_reported(tmp_path: Path) -> None:
    folder = copy_dump(tmp_path)
    scheduler = json.loads((folder / "scheduler.json").read_text())
    root = scheduler["scheduler"]["schedulerInfo"]["rootQueue"]
    root["childQueues"]["queue"][1]["usedResources"] = {"memory": 1024, "vCores": 1}
    (folder / "scheduler.json").write_text(json.dumps(scheduler))
    result = import_dump(folder, tmp_path / "out", Choices())
    assert any(n.startswith("queue root.etl: scheduler.json says 1,024 MB") for n in result.notes)


# -- broken dumps: file, field and line; nothing written --------------------------------------


def broken(tmp_path: Path, name: str, text: str) -> tuple[ConfigError, Path]:
    folder = copy_dump(tmp_path)
    (folder / name).write_text(text)
    out = tmp_path / "out"
    with pytest.raises(ConfigError) as e:
        import_dump(folder, out, Choices())
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left
    return e.value, folder


def test_a_capacity_scheduler_dump_is_named(tmp_path: Path) -> None:
    error, folder = broken(tmp_path, "scheduler.json", """{
  "scheduler": {
    "schedulerInfo": {
      "type": "capacityScheduler",
      "capacity": 100.0, "usedCapacity": 0.0, "maxCapacity": 100.0, "queueName": "root",
      "queues": {"queue": []}
    }
  }
}""")
    assert error.file == str(folder / "scheduler.json") and error.line == 4
    assert "scheduler.schedulerInfo.type: this is a CapacityScheduler dump" in error.message


def test_a_truncated_file_is_a_syntax_error_at_its_end(tmp_path: Path) -> None:
    text = (DUMP / "nodes.json").read_text()
    cut = text[: text.index('"usedMemoryMB": 4096')]
    error, folder = broken(tmp_path, "nodes.json", cut)
    assert error.file == str(folder / "nodes.json")
    assert error.line == cut.count("\n") + 1


def test_a_wrong_field_is_named_with_its_line(tmp_path: Path) -> None:
    text = (DUMP / "apps.json").read_text().replace('"allocatedMB": 9216', '"allocatedMB": "9G"')
    error, folder = broken(tmp_path, "apps.json", text)
    line = next(i for i, s in enumerate(text.splitlines(), 1) if '"allocatedMB": "9G"' in s)
    assert str(error) == (f"{folder / 'apps.json'}:{line}: apps.app[0].allocatedMB: must be a "
                          "non-negative whole number, got '9G'")


def test_a_missing_field_is_named(tmp_path: Path) -> None:
    text = (DUMP / "nodes.json").read_text().replace('"nodeHostName": "node2.example.com",', "")
    error, _ = broken(tmp_path, "nodes.json", text)
    assert error.message == "nodes.node[1]: missing field 'nodeHostName'"


def test_a_missing_file_is_named(tmp_path: Path) -> None:
    folder = copy_dump(tmp_path)
    (folder / "apps.json").unlink()
    with pytest.raises(ConfigError) as e:
        import_dump(folder, tmp_path / "out", Choices())
    assert e.value.file == str(folder / "apps.json") and "not found" in str(e.value)
    assert not (tmp_path / "out").exists()


def test_apps_holding_more_than_the_nodes_are_refused(tmp_path: Path) -> None:
    text = (DUMP / "apps.json").read_text().replace('"allocatedMB": 9216', '"allocatedMB": 92160')
    error, folder = broken(tmp_path, "apps.json", text)
    # 92,160 + app 2's 4,096 MB against three 8,192 MB nodes: a contradiction, its numbers named
    assert error.message.startswith("the running apps hold 96,256 MB in all")
    assert "more than the 24,576 MB of the 3 nodes in nodes.json" in error.message
    assert error.file == str(folder / "apps.json")


def test_a_bad_site_file_writes_nothing(tmp_path: Path) -> None:
    site = tmp_path / "site.xml"
    site.write_text("<configuration><property><name>x</name>")
    with pytest.raises(ConfigError):
        import_dump(DUMP, tmp_path / "out", Choices(), site=site)
    assert not (tmp_path / "out").exists()


def test_an_existing_output_folder_keeps_its_other_files(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    (out / "scenario.yaml").write_text("old")
    folder = copy_dump(tmp_path)
    (folder / "apps.json").write_text("{")
    with pytest.raises(ConfigError):
        import_dump(folder, out, Choices())
    assert (out / "scenario.yaml").read_text() == "old"  # a failed import changes nothing
    import_dump(DUMP, out, Choices())
    assert (out / "notes.txt").read_text() == "mine"
    assert (out / "scenario.yaml").read_text().startswith("# Imported by")


def test_the_event_driven_loop_runs_an_imported_cluster_as_the_plain_loop(
        tmp_path: Path) -> None:
    # docs/simulator.md: skipping quiet heartbeats changes no byte of the outputs; recovered
    # containers change nodes' free space without a heartbeat, which the skipping must see
    site = tmp_path / "yarn-site.xml"
    site.write_text("<configuration><property><name>yarn.scheduler.fair.preemption</name>"
                    "<value>true</value></property></configuration>")
    out = tmp_path / "scenario"
    import_dump(DUMP, out, Choices(remaining_ms=45_000, task_ms=20_000), site=site)
    outputs = []
    for driven in (True, False):
        run = tmp_path / f"run-{driven}"
        run_scenario(load_scenario(out / "scenario.yaml"), run, event_driven=driven)
        outputs.append([(run / name).read_bytes() for name in ("events.jsonl", "summary.json",
                                                                "timeline.csv")])
    assert outputs[0] == outputs[1]


def test_explain_says_an_imported_app_was_running_not_waiting(tmp_path: Path) -> None:
    out = tmp_path / "scenario"
    import_dump(DUMP, out, Choices(remaining_ms=60_000, task_ms=30_000))
    run_scenario(load_scenario(out / "scenario.yaml"), tmp_path / "run")
    texts = [s.text for s in explain(load_run(tmp_path / "run", APP1), "app", APP1).statements]
    assert any(t.startswith("It was running when the run started: 5 containers taken over "
                            "where they ran, its AM on node1.example.com") for t in texts)
    assert not any("never placed" in t for t in texts)
    am = "container_1700000000000_0001_01_000001"
    texts = [s.text for s in explain(load_run(tmp_path / "run", am), "container", am).statements]
    assert texts[0].startswith("Running on node1.example.com for " + APP1 + " (root.etl) as "
                               "its AM when the run started")

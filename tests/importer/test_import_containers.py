"""``fairshare import`` with ``containers/<app id>.json``: the RM's own list of an app's live
containers (``/ws/v1/cluster/apps/{appid}/appattempts/{appattemptid}/containers``, in the shape
of Hadoop's REST documentation, written here by hand) places that app's containers exactly;
apps without such a file are reconstructed; listings that cannot be the cluster's are refused
at their file and line with nothing written.

The dump (tests/importer/dumps/listed) is tests/importer/dumps/basic plus a listing for
application_…_0001: its 1 GB AM (000001) and a 3 GB and a 1 GB task (priority 20 and 5) on
node1, two 2 GB tasks on node2 — sizes the reconstruction would not guess (it would take four
2 GB tasks, the size the app asks for). application_…_0002 has no listing.
"""

from __future__ import annotations

import csv
import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fairshare.config.errors import ConfigError
from fairshare.sim.importer.build import import_dump
from fairshare.sim.importer.scenario_text import Choices
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.run.scripted import run_scenario

DUMP = Path(__file__).parent / "dumps" / "listed"
APP1, APP2, APP3 = (f"application_1700000000000_000{i}" for i in (1, 2, 3))
LISTING = Path("containers") / f"{APP1}.json"


def copy_dump(tmp_path: Path) -> Path:
    folder = tmp_path / "dump"
    shutil.copytree(DUMP, folder)
    return folder


def recovered(tmp_path: Path, folder: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The container-recovered events of a run of the import of ``folder``, and the timeline's
    queue usage at 0."""
    out, run = tmp_path / "scenario", tmp_path / "run"
    import_dump(folder, out, Choices(remaining_ms=60_000, task_ms=30_000))
    run_scenario(load_scenario(out / "scenario.yaml"), run)
    events = [json.loads(line) for line in (run / "events.jsonl").open()]
    with (run / "timeline.csv").open() as f:
        queues = {row["queue"]: (int(row["usage_mb"]), int(row["usage_vcores"]))
                  for row in csv.DictReader(f) if row["time_ms"] == "0"}
    return [e for e in events if e["type"] == "container-recovered"], queues


def dumped_nodes(folder: Path) -> dict[str, tuple[int, int]]:
    nodes = json.loads((folder / "nodes.json").read_text())["nodes"]["node"]
    return {n["nodeHostName"]: (n["usedMemoryMB"], n["usedVirtualCores"]) for n in nodes
            if n["state"] == "RUNNING"}


def dumped_queues(folder: Path) -> dict[str, tuple[int, int]]:
    found, todo = {}, [json.loads((folder / "scheduler.json").read_text())
                       ["scheduler"]["schedulerInfo"]["rootQueue"]]
    while todo:
        q = todo.pop()
        found[q["queueName"]] = (q["usedResources"]["memory"], q["usedResources"]["vCores"])
        todo += (q.get("childQueues") or {}).get("queue", [])
    return found


def by_node(events: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
    used: Counter[tuple[str, str]] = Counter()
    for e in events:
        used[e["node"], "mb"] += e["resource"]["memory-mb"]
        used[e["node"], "vc"] += e["resource"]["vcores"]
    return {node: (used[node, "mb"], used[node, "vc"]) for node, _ in used}


def test_listed_containers_are_recovered_as_listed_and_the_others_rebuilt(
        tmp_path: Path) -> None:
    events, queues = recovered(tmp_path, DUMP)
    listing = json.loads((DUMP / LISTING).read_text())["container"]
    expected = sorted((c["containerId"], c["assignedNodeId"].split(":")[0], c["allocatedMB"],
                       c["allocatedVCores"], c["priority"], c["containerId"].endswith("01_000001"))
                      for c in listing)
    got = sorted((e["container"], e["node"], e["resource"]["memory-mb"],
                  e["resource"]["vcores"], e["priority"], e["am"])
                 for e in events if e["app"] == APP1)
    assert got == expected
    assert sum(e["am"] for e in events if e["app"] == APP2) == 1  # rebuilt, its AM marked
    # t = 0: every node and queue holds what the dump says (summed here from its files)
    assert by_node(events) == dumped_nodes(DUMP)
    assert queues == dumped_queues(DUMP)


def test_the_summary_says_how_many_apps_were_placed_exactly(tmp_path: Path) -> None:
    result = import_dump(DUMP, tmp_path / "out", Choices())
    assert (result.exact_apps, result.rebuilt_apps) == (1, 1)
    assert not any("nodes hold other containers" in n for n in result.notes)
    text = (tmp_path / "out" / "scenario.yaml").read_text()
    assert "# Exact: the containers of 1 of the 2 running apps" in text
    assert "# Guessed for the 1 other apps: each running container's size and node" in text
    am = next(line for line in text.splitlines() if "01_000001" in line)
    assert "am: true" in am and "node1.example.com" in am


def test_the_wrapped_shape_numbers_as_text_and_ended_containers(tmp_path: Path) -> None:
    # {"containers": {"container": …}}, numbers as text (as some RM versions write them), a
    # COMPLETE container (left out) and a single container as an object
    folder = copy_dump(tmp_path)
    ids = [f"container_1700000000000_0002_01_00000{i}" for i in (1, 2, 3, 4)]
    entries = [{"containerId": i, "allocatedMB": str(mb), "allocatedVCores": "1",
                "assignedNodeId": "node3.example.com:45454", "priority": str(p),
                "containerState": state}
               for i, mb, p, state in zip(ids, (2048, 1024, 1024, 4096), (0, 10, 10, 10),
                                          ("RUNNING", "RUNNING", "RUNNING", "COMPLETE"),
                                          strict=True)]
    (folder / "containers" / f"{APP2}.json").write_text(
        json.dumps({"containers": {"container": entries}}, indent=1))
    events, queues = recovered(tmp_path, folder)
    assert sorted((e["container"], e["resource"]["memory-mb"], e["am"])
                  for e in events if e["app"] == APP2) == [
        (ids[0], 2048, True), (ids[1], 1024, False), (ids[2], 1024, False)]
    assert by_node(events) == dumped_nodes(folder) and queues == dumped_queues(folder)
    result = import_dump(folder, tmp_path / "again", Choices())
    assert (result.exact_apps, result.rebuilt_apps) == (2, 0)


def test_without_amcontainerlogs_the_am_is_the_newest_attempts_first_container(
        tmp_path: Path) -> None:
    # the AM restarted (attempt 2) and kept its running containers: the new AM is _02_000001
    folder = copy_dump(tmp_path)
    apps = json.loads((folder / "apps.json").read_text())
    apps["apps"]["app"][0].pop("amContainerLogs")
    (folder / "apps.json").write_text(json.dumps(apps))
    text = (folder / LISTING).read_text().replace("01_000001", "02_000001")
    (folder / LISTING).write_text(text)
    events, _ = recovered(tmp_path, folder)
    assert [e["container"] for e in events if e["app"] == APP1 and e["am"]] == [
        "container_1700000000000_0001_02_000001"]


def test_a_listing_that_disagrees_with_apps_json_is_a_note(tmp_path: Path) -> None:
    # dumps are not atomic: a task ended between the two calls
    folder = copy_dump(tmp_path)
    listing = json.loads((folder / LISTING).read_text())
    listing["container"] = [c for c in listing["container"] if c["allocatedMB"] != 3072]
    (folder / LISTING).write_text(json.dumps(listing))
    result = import_dump(folder, tmp_path / "out", Choices())
    assert any(n.endswith(f"{APP1} has 4 containers of 6,144 MB and 4 vcores listed, apps.json "
                          "says 5 of 9,216 MB and 5 vcores (saved at different moments?): the "
                          "listed containers are recovered") for n in result.notes)
    assert any(n.startswith("queue root.etl: scheduler.json says 9,216 MB and 5 vcores used, "
                            "its running containers hold 6,144 MB and 4 vcores")
               for n in result.notes)


# -- listings that cannot be the cluster's: file, line, field; nothing written ---------------


def refused(tmp_path: Path, name: str, text: str) -> tuple[ConfigError, Path]:
    folder = copy_dump(tmp_path)
    (folder / name).write_text(text)
    out = tmp_path / "out"
    with pytest.raises(ConfigError) as e:
        import_dump(folder, out, Choices())
    assert not out.exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    return e.value, folder / name


def line_of(text: str, needle: str) -> int:
    return next(i for i, s in enumerate(text.splitlines(), 1) if needle in s)


LISTED = (DUMP / LISTING).read_text()


@pytest.mark.parametrize(("old", "new", "needle", "message"), [
    ('"assignedNodeId": "node2.example.com:45454",\n      "priority": 20,\n      '
     '"startedTime": 1700000150000', '"assignedNodeId": "node9.example.com:45454",\n      '
     '"priority": 20,\n      "startedTime": 1700000150000', "node9",
     "container[1].assignedNodeId: node node9.example.com is not in nodes.json"),
    ('"assignedNodeId": "node2.example.com:45454",\n      "priority": 20,\n      '
     '"startedTime": 1700000150000', '"assignedNodeId": "node4.example.com:45454",\n      '
     '"priority": 20,\n      "startedTime": 1700000150000', "node4",
     "container[1].assignedNodeId: node node4.example.com is node4.example.com (LOST) in "
     "nodes.json: the scheduler does not hold it"),
    ('"allocatedMB": 3072', '"allocatedMB": 7168', '"allocatedMB": 7168',
     "node node1.example.com: the containers listed on it add up to 9,216 MB and 3 vcores "
     "with this one, more than its capacity (8,192 MB, 8 vcores in nodes.json)"),
    ('"allocatedMB": 3072', '"allocatedMB": "3G"', '"3G"',
     "container[0].allocatedMB: must be a non-negative whole number, got '3G'"),
    ('"containerId": "container_1700000000000_0001_01_000004"',
     '"containerId": "container_1700000000000_0002_01_000004"', "0002_01_000004",
     "container[0].containerId: container container_1700000000000_0002_01_000004 is not of "
     f"app {APP1} (the file's name)"),
    ('"containerId": "container_1700000000000_0001_01_000004"',
     '"containerId": "container_1700000000000_0001_01_000002"', "01_000002",
     "container container_1700000000000_0001_01_000002 is listed twice"),
])
def test_a_bad_container_is_refused_at_its_line(tmp_path: Path, old: str, new: str,
                                                 needle: str, message: str) -> None:
    assert old in LISTED
    text = LISTED.replace(old, new, 1)
    error, path = refused(tmp_path, str(LISTING), text)
    assert error.file == str(path)
    assert error.message.startswith(message)
    if "twice" in message:  # the second listing of the id, naming the first
        assert error.line == line_of(LISTED, '"containerId": "container_1700000000000_0001_01_'
                                     '000002"') - 1 and f"also in {path}:" in error.message
    elif "capacity" in message:  # the container that overflows node1: the last listed
        assert error.line == line_of(text, '"containerId": "container_1700000000000_0001_01_'
                                     '000006"') - 1
    else:
        assert error.line == line_of(text, needle)


@pytest.mark.parametrize(("name", "message"), [
    (f"containers/{APP3}.json", f"app {APP3} is ACCEPTED in apps.json"),
    ("containers/application_1700000000000_0000.json", "app application_1700000000000_0000 is "
     "FINISHED in apps.json"),
    ("containers/application_1700000000000_0009.json", "app application_1700000000000_0009 is "
     "not in apps.json"),
    ("containers/app1.json", "name a containers file after its app"),
])
def test_a_listing_of_an_app_not_running_is_refused(tmp_path: Path, name: str,
                                                     message: str) -> None:
    error, path = refused(tmp_path, name, '{"container": []}')
    assert error.file == str(path) and error.message.startswith(message)


def test_a_file_of_another_kind_is_named(tmp_path: Path) -> None:
    error, path = refused(tmp_path, str(LISTING), '{\n  "apps": {"app": []}\n}')
    assert str(error).startswith(f"{path}:1: not an answer of the RM's containers API")


def test_an_error_answer_of_the_rm_is_named(tmp_path: Path) -> None:
    error, path = refused(tmp_path, str(LISTING), json.dumps({"RemoteException": {
        "exception": "ForbiddenException", "message": "User bob is not authorized"}}, indent=1))
    assert str(error) == (f"{path}:2: RemoteException: the RM answered with an error, not the "
                          "app's containers: 'User bob is not authorized'")


def test_an_empty_listing_is_noted_and_the_app_rebuilt(tmp_path: Path) -> None:
    # the app was ending when its containers were asked for: the RM lists none
    folder = copy_dump(tmp_path)
    (folder / LISTING).write_text('{"container": null}')
    result = import_dump(folder, tmp_path / "out", Choices())
    assert (result.exact_apps, result.rebuilt_apps) == (0, 2)
    assert f"{folder / LISTING}: lists no live container of {APP1}, which apps.json says " \
        "runs: its containers are rebuilt" in result.notes

"""``fairshare import`` and ``fairshare workload from-apps`` at the command line: exit 0 with
what was written, or exit 2 with ``file:line: field: message`` and nothing written."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from fairshare.cli.main import app

runner = CliRunner()
DUMP = Path(__file__).resolve().parents[1] / "importer" / "dumps" / "basic"
DRF12 = DUMP.parent / "drf12"  # a 3.4.1-shaped dump: DRF / fair / FIFO, uneven weights
LISTED_DUMP = DUMP.parent / "listed"  # basic, with containers/ for one of its two running apps
LISTING = Path("containers") / "application_1700000000000_0001.json"


def test_import_then_simulate(tmp_path: Path) -> None:
    out = tmp_path / "imported"
    result = runner.invoke(app, ["import", str(DUMP), "-o", str(out), "--remaining-ms", "5000",
                                 "--remaining", "fixed", "--task-ms", "2000"])
    assert result.exit_code == 0, result.output
    assert "Imported 3 nodes, 2 running apps (8 containers) and 1 app waiting" in result.output
    assert ("Containers: 0 running apps placed exactly as listed in containers/, 2 apps "
            "reconstructed") in result.output
    assert "note: No yarn-site.xml given (--site)" in result.output
    assert "remaining-ms: 5000" in (out / "scenario.yaml").read_text()
    run = runner.invoke(app, ["simulate", str(out / "scenario.yaml"), "-o", str(tmp_path / "r"),
                              "-q"])
    assert run.exit_code == 0, run.output


def test_a_capacity_scheduler_dump_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    dump = tmp_path / "dump"
    shutil.copytree(DUMP, dump)
    (dump / "scheduler.json").write_text(
        '{"scheduler": {"schedulerInfo": {"type": "capacityScheduler", "queueName": "root"}}}')
    out = tmp_path / "imported"
    result = runner.invoke(app, ["import", str(dump), "-o", str(out)])
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"{dump / 'scheduler.json'}:1: scheduler.schedulerInfo.type: this is a "
        "CapacityScheduler dump, not the Fair Scheduler's ('fairScheduler'): fairshare models "
        "the Fair Scheduler only")
    assert not out.exists()


def test_a_missing_dump_folder_exits_2(tmp_path: Path) -> None:
    result = runner.invoke(app, ["import", str(tmp_path / "nope"), "-o", str(tmp_path / "o")])
    assert result.exit_code == 2 and "not a directory" in result.output
    assert "Traceback" not in result.output


def test_workload_from_apps(tmp_path: Path) -> None:
    out = tmp_path / "apps.csv"
    result = runner.invoke(app, ["workload", "from-apps", str(DUMP / "apps.json"), "-o",
                                 str(out), "--container", "2048/1"])
    assert result.exit_code == 0, result.output
    assert "Wrote 3 apps" in result.output and "left out: application_1700000000000_0003" \
        in result.output
    with out.open() as f:
        assert [row["app"][-4:] for row in csv.DictReader(f)] == ["0000", "0001", "0002"]


def test_workload_from_apps_refuses_a_bad_size(tmp_path: Path) -> None:
    out = tmp_path / "apps.csv"
    result = runner.invoke(app, ["workload", "from-apps", str(DUMP / "apps.json"), "-o",
                                 str(out), "--container", "2g"])
    assert result.exit_code == 2 and "--container: give MB/VCORES" in result.output
    assert not out.exists()


def test_the_cli_prints_the_counts_and_exits_2_on_a_bad_listing(tmp_path: Path) -> None:
    result = runner.invoke(app, ["import", str(LISTED_DUMP), "-o", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert ("Containers: 1 running app placed exactly as listed in containers/, 1 app "
            "reconstructed from apps.json and nodes.json") in result.output
    folder = tmp_path / "dump"
    shutil.copytree(LISTED_DUMP, folder)
    listed = (folder / LISTING).read_text()
    (folder / LISTING).write_text(listed.replace("node2.example.com:45454", "nodeX:1"))
    result = runner.invoke(app, ["import", str(folder), "-o", str(tmp_path / "bad")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.startswith(f"{folder / LISTING}:{_line_of(listed, 'node2')}: "
                                    "container[1].assignedNodeId: node nodeX is not in nodes.json")
    assert not (tmp_path / "bad").exists()


def test_the_terminal_shows_the_guesses_the_remaining_times_and_the_self_check(
        tmp_path: Path) -> None:
    result = runner.invoke(app, ["import", str(DRF12), "-o", str(tmp_path / "o"),
                                 "--remaining-ms", "60000", "--seed", "5"])
    assert result.exit_code == 0, result.output
    assert ("guess: root.prod: <weight>3</weight>: weight guessed from the steady fair share "
            "(221,184 MB)") in result.output
    assert "guess: root.prod.reports: <maxAMShare>0.2</maxAMShare>" in result.output
    assert ("Remaining time of running tasks: uniform between 1 and 120,000 ms (mean 60,000 "
            "ms), seed 5 (--remaining, --remaining-ms, --seed).") in result.output
    assert ("Self-check: the steady and instantaneous fair shares of all 6 queues match the "
            "RM's (within 1 MB / 1 vcore") in result.output


def test_the_self_check_prints_each_difference(tmp_path: Path) -> None:
    folder = tmp_path / "dump"
    shutil.copytree(DRF12, folder)
    doc = json.loads((folder / "scheduler.json").read_text())
    # the RM gives the inactive root.dev 512 MB: no allocation file gives that
    dev = doc["scheduler"]["schedulerInfo"]["rootQueue"]["childQueues"]["queue"][2]
    assert dev["queueName"] == "root.dev"
    dev["fairResources"]["memory"] = 512
    (folder / "scheduler.json").write_text(json.dumps(doc))
    result = runner.invoke(app, ["import", str(folder), "-o", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    assert "Self-check: 1 fair share differs from the RM's" in result.output
    assert ("  root.dev (inactive): instantaneous fair share: the RM 512 MB, 0 vcores, "
            "fairshare 0 MB, 0 vcores") in result.output


def test_bad_remaining_and_arrivals_exit_2_and_write_nothing(tmp_path: Path) -> None:
    out = tmp_path / "o"
    result = runner.invoke(app, ["import", str(DRF12), "-o", str(out), "--remaining", "normal"])
    assert result.exit_code == 2 and "--remaining: give one of uniform, exponential, fixed" \
        in result.output
    bad = tmp_path / "apps.csv"
    bad.write_text("app,at-ms,duration-ms\nx,soon,1000\n")
    result = runner.invoke(app, ["import", str(DRF12), "-o", str(out), "--arrivals", str(bad)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert result.output.startswith(f"{bad}:2: ")
    assert not out.exists()


def test_a_value_yarn_would_refuse_is_reported_in_the_dump(tmp_path: Path) -> None:
    folder = tmp_path / "dump"
    shutil.copytree(DRF12, folder)
    doc = json.loads((folder / "scheduler.json").read_text())
    dev = doc["scheduler"]["schedulerInfo"]["rootQueue"]["childQueues"]["queue"][2]
    dev["minResources"]["vCores"] = 10**12  # beyond a Java int: YARN reads vcores as an int
    text = json.dumps(doc, indent=1)
    (folder / "scheduler.json").write_text(text)
    result = runner.invoke(app, ["import", str(folder), "-o", str(tmp_path / "o")])
    assert result.exit_code == 2 and "Traceback" not in result.output
    # at the line where root.dev's object opens
    lines = text.splitlines()
    named = _line_of(text, '"queueName": "root.dev"')
    brace = " " * (len(lines[named - 1]) - len(lines[named - 1].lstrip()) - 1) + "{"
    opens = max(i for i, s in enumerate(lines[:named], 1) if s == brace)
    assert result.output.startswith(f"{folder / 'scheduler.json'}:{opens}: root.dev: "
                                    "<minResources>:")
    assert "(in the allocation file rebuilt from it)" in result.output
    assert not (tmp_path / "o").exists()


def test_import_with_a_history_as_arrivals_then_simulate(tmp_path: Path) -> None:
    out = tmp_path / "o"
    result = runner.invoke(app, ["import", str(DUMP), "-o", str(out), "--arrivals",
                                 str(DUMP / "apps.json"), "--remaining-ms", "5000"])
    assert result.exit_code == 0, result.output
    assert ("Arrivals: 3 apps from " + str(DUMP / "apps.json") + ", submitted from 0 ms to "
            "199,500 ms after the dump's moment.") in result.output
    run = runner.invoke(app, ["simulate", str(out / "scenario.yaml"), "-o", str(tmp_path / "r"),
                              "-q"])
    assert run.exit_code == 0, run.output


def test_from_apps_start_ms(tmp_path: Path) -> None:
    out = tmp_path / "apps.csv"
    result = runner.invoke(app, ["workload", "from-apps", str(DUMP / "apps.json"), "-o",
                                 str(out), "--start-ms", "60000"])
    assert result.exit_code == 0, result.output
    with out.open() as f:
        assert [row["at-ms"] for row in csv.DictReader(f)] == ["60000", "159500", "259500"]


def _line_of(text: str, needle: str) -> int:
    return next(i for i, s in enumerate(text.splitlines(), 1) if needle in s)

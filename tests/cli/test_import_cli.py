"""``fairshare import`` and ``fairshare workload from-apps`` at the command line: exit 0 with
what was written, or exit 2 with ``file:line: field: message`` and nothing written."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from typer.testing import CliRunner

from fairshare.cli.main import app

runner = CliRunner()
DUMP = Path(__file__).resolve().parents[1] / "importer" / "dumps" / "basic"
LISTED_DUMP = DUMP.parent / "listed"  # basic, with containers/ for one of its two running apps
LISTING = Path("containers") / "application_1700000000000_0001.json"


def test_import_then_simulate(tmp_path: Path) -> None:
    out = tmp_path / "imported"
    result = runner.invoke(app, ["import", str(DUMP), "-o", str(out), "--remaining-ms", "5000",
                                 "--task-ms", "2000"])
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


def _line_of(text: str, needle: str) -> int:
    return next(i for i, s in enumerate(text.splitlines(), 1) if needle in s)

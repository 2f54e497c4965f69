"""Future arrivals for an imported scenario: ``import --arrivals`` with a CSV workload or an
apps.json history, and ``workload from-apps --start-ms`` (docs/import.md, docs/workloads.md)."""

from __future__ import annotations

import json
from pathlib import Path

from fairshare.sim.importer.arrivals import read_arrivals
from fairshare.sim.importer.build import import_dump
from fairshare.sim.importer.history import history_of
from fairshare.sim.importer.scenario_text import Choices
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.run.scripted import run_scenario

DRF12 = Path(__file__).resolve().parent / "dumps" / "drf12"
BASIC = DRF12.parent / "basic"
CSV = """app,at-ms,queue,user,am-memory-mb,am-vcores,count,memory-mb,vcores,duration-ms,priority
nightly-1,30000,root.prod.etl,alice,1024,1,4,4096,2,60000,20
application_1733000000000_0001,90000,root.default,carol,,,2,2048,1,30000,
"""


def test_csv_arrivals_are_submitted_after_the_dump_s_moment(tmp_path: Path) -> None:
    arrivals = tmp_path / "apps.csv"
    arrivals.write_text(CSV)
    out = tmp_path / "out"
    result = import_dump(DRF12, out, Choices(remaining_ms=20_000), arrivals=arrivals)
    assert result.arrivals is not None and result.arrivals.apps == 2
    assert (result.arrivals.first_ms, result.arrivals.last_ms) == (30_000, 90_000)
    assert '  csv: "arrivals.csv"' in (out / "scenario.yaml").read_text()
    # the second id is a running app of the dump: a new submission under another id
    assert any("renamed with '-next'" in n and "application_1733000000000_0001 → "
               "application_1733000000000_0001-next" in n for n in result.notes)
    run_scenario(load_scenario(out / "scenario.yaml"), tmp_path / "run")
    submitted = {r["app"]: r["t"] for r in map(json.loads, (tmp_path / "run" /
                                                            "events.jsonl").open())
                 if r["type"] == "app-submitted"}
    assert submitted["nightly-1"] == 30_000
    assert submitted["application_1733000000000_0001-next"] == 90_000
    assert submitted["application_1733000000000_0001"] == 0  # the running one, recovered


def test_a_history_is_replayed_from_the_dump_s_moment(tmp_path: Path) -> None:
    # basic/apps.json: apps 0000, 0001 and 0002 ran (0000 finished), started at
    # 1,700,000,000,500, 1,700,000,100,000 and 1,700,000,200,000; 0003 waits for its AM and
    # is left out
    found = read_arrivals(BASIC / "apps.json", {"application_1700000000000_0001"})
    lines = found.csv_text.splitlines()[1:]
    assert [(row.split(",")[0].rsplit("_", 1)[1], row.split(",")[1]) for row in lines] == [
        ("0000", "0"), ("0001-next", "99500"), ("0002", "199500")]
    assert any("left out of" in n and "application_1700000000000_0003" in n
               for n in found.notes)


def test_from_apps_shifts_the_history_to_start_when_asked() -> None:
    plain = history_of(BASIC / "apps.json")
    shifted = history_of(BASIC / "apps.json", start_ms=3_600_000)
    assert [a.at_ms for a in plain.apps] == [0, 99_500, 199_500]
    assert [a.at_ms for a in shifted.apps] == [3_600_000, 3_699_500, 3_799_500]

"""The Preemption Tuning table holds the summary's numbers, and those numbers are what the
timeline says (computed here from timeline.csv by the definitions of docs/outputs.md)."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path
from typing import Any

import pytest

from tests.report.conftest import parse

RESOURCES = (("memory-mb", "data-mb", "mb"), ("vcores", "data-vcores", "vcores"))


def cells(page: Path, table: str) -> dict[str, dict[str, Any]]:
    """queue → data-key → the cell's element, for one table of the page."""
    found: dict[str, dict[str, Any]] = {}
    for row in parse(page).xpath(f"//table[@class='{table}']//tr[@data-queue]"):
        found[row.get("data-queue")] = {td.get("data-key"): td for td in row.xpath("td")
                                       if td.get("data-key")}
    return found


def number(text: str | None) -> float | None:
    return None if text in (None, "") else float(text)


def test_every_queue_has_a_row_in_tree_order(seed_report: list[Path], seed_run: Path) -> None:
    summary = json.loads((seed_run / "summary.json").read_text())
    assert list(cells(seed_report[0], "tuning")) == list(summary["queues"])


@pytest.mark.parametrize("key", ["usage", "steady-fair-share", "fair-share",
                                 "during-contention.usage",
                                 "during-contention.steady-fair-share",
                                 "during-contention.fair-share"])
def test_resource_cells_hold_the_summary_values(seed_report: list[Path], seed_run: Path,
                                                key: str) -> None:
    summary = json.loads((seed_run / "summary.json").read_text())
    table = cells(seed_report[0], "tuning")
    for queue, entry in summary["queues"].items():
        value = entry
        for part in key.split("."):
            value = value[part]
        for resource, attribute, _ in RESOURCES:
            assert number(table[queue][key].get(attribute)) == value[resource], (queue, key)


@pytest.mark.parametrize("key", ["time-short-of-fair-share-threshold-ms", "time-starved-ms"])
def test_times_and_counts_hold_the_summary_values(seed_report: list[Path], seed_run: Path,
                                                  key: str) -> None:
    summary = json.loads((seed_run / "summary.json").read_text())
    table = cells(seed_report[0], "tuning")
    for queue, entry in summary["queues"].items():
        assert int(table[queue][key].get("data-ms")) == entry[key]
        assert int(table[queue]["during-contention.ms"].get("data-ms")) == \
            entry["during-contention"]["ms"]
        for side in ("from", "for"):
            count = table[queue][f"containers-preempted-{side}"]
            assert int(count.get("data-count")) == entry[f"containers-preempted-{side}"]


def timeline_rows(run: Path) -> list[dict[str, Any]]:
    with (run / "timeline.csv").open(newline="") as f:
        return [{k: v if k == "queue" else int(v) for k, v in row.items()}
                for row in csv.DictReader(f)]


def time_averages(run: Path, queue: str, column: str, *, contention: bool) -> float:
    """The time average of ``column`` (docs/outputs.md, "Samples": a sample stands for the
    interval up to the next one, the last up to the end of the run), over every sample or
    only those in which the queue had pending asks."""
    end = json.loads((run / "summary.json").read_text())["span"]["end-ms"]
    rows = [r for r in timeline_rows(run) if r["queue"] == queue]
    weights = [b["time_ms"] - a["time_ms"] for a, b in itertools.pairwise(rows)]
    weights.append(end - rows[-1]["time_ms"])
    kept = [(w, r) for w, r in zip(weights, rows, strict=True)
            if not contention or r["pending_mb"] > 0 or r["pending_vcores"] > 0]
    return sum(w * r[column] for w, r in kept) / sum(w for w, _ in kept)


@pytest.mark.parametrize("contention", [False, True], ids=["whole run", "during contention"])
def test_tenant3s_averages_are_those_of_its_samples(seed_report: list[Path], seed_run: Path,
                                                    contention: bool) -> None:
    row = cells(seed_report[0], "tuning")["root.tenant3"]
    prefix = "during-contention." if contention else ""
    for key, column in (("usage", "usage"), ("fair-share", "fair_share"),
                        ("steady-fair-share", "steady_fair_share")):
        for _, attribute, unit in RESOURCES:
            expected = time_averages(seed_run, "root.tenant3", f"{column}_{unit}",
                                     contention=contention)
            assert number(row[prefix + key].get(attribute)) == pytest.approx(expected,
                                                                             abs=0.0005)


def test_tenant3s_whole_run_usage_by_hand(seed_report: list[Path]) -> None:
    # The timeline: 1024 MB from 80 s to 105 s (its AM: the second round, at 65 s + 25 s of
    # back-off, kills at 105 s), 3072 MB from 105 s to 285 s (its tasks, 180 s as before), over
    # a 2,402 s run: (1024 × 25 + 3072 × 180) / 2402 = 240.9 MB; 1 vcore then 3: 565 / 2402.
    cell = cells(seed_report[0], "tuning")["root.tenant3"]["usage"]
    assert number(cell.get("data-mb")) == pytest.approx((1024 * 25 + 3072 * 180) / 2402,
                                                        abs=0.05)
    assert number(cell.get("data-vcores")) == pytest.approx(565 / 2402, abs=0.0005)
    assert cell.text_content() == "241 MB0.2 vcores"  # shown: "241 MB" <br> "0.2 vcores"


def test_a_queue_never_in_contention_shows_dashes_not_zeros(seed_report: list[Path]) -> None:
    row = cells(seed_report[0], "tuning")["root.default"]  # no apps: never in contention
    assert row["during-contention.usage"].text_content() == "––"
    assert row["during-contention.usage"].get("data-mb") == ""
    assert row["time-starved-ms"].text_content() == "0"


def test_the_waits_table_holds_the_summary_percentiles(seed_report: list[Path],
                                                       seed_run: Path) -> None:
    summary = json.loads((seed_run / "summary.json").read_text())
    table = cells(seed_report[0], "waits")
    assert list(table) == ["root", "root.default", "root.tenant1", "root.tenant2",
                           "root.tenant3"]
    for queue, row in table.items():
        for wait in ("am-wait-ms", "first-task-wait-ms", "turnaround-ms"):
            for stat in ("p50", "p95"):
                shown = row[f"{wait}.{stat}"].get("data-ms")
                assert number(shown) == summary["queues"][queue][wait][stat]
    # adhoc, tenant3's one app: AM 20 s after it arrived (80 s − 60 s), as the seed tells
    assert row["am-wait-ms.p95"].text_content() == "20.0 s"
    lost = sum(a["lost-work-ms"] for a in summary["apps"].values())
    assert int(table["root"]["lost-work-ms"].get("data-ms")) == lost

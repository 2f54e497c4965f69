"""The seed's story on the page: tenant3 starves, containers are preempted for it, and it is
back at its share — the moment derived here from events.jsonl and timeline.csv alone."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from tests.report.conftest import parse


def kills_for(run: Path, queue: str) -> list[int]:
    """When containers preempted for ``queue`` were killed (container-preempted events)."""
    events = [json.loads(line) for line in (run / "events.jsonl").read_text().splitlines()]
    return sorted(e["t"] for e in events if e["type"] == "container-preempted"
                  and e["beneficiary-queue"] == queue)


def samples(run: Path, queue: str) -> list[dict[str, int]]:
    with (run / "timeline.csv").open(newline="") as f:
        return [{k: int(v) for k, v in row.items() if k != "queue"}
                for row in csv.DictReader(f) if row["queue"] == queue]


def back_at_share(run: Path, queue: str) -> tuple[int, int]:
    """(last kill for the queue, first sample at or after it where the queue's usage reached
    its instantaneous fair share in memory or vcores)."""
    last_kill = kills_for(run, queue)[-1]
    restored = next(s["time_ms"] for s in samples(run, queue) if s["time_ms"] >= last_kill and (
        0 < s["fair_share_vcores"] <= s["usage_vcores"]
        or 0 < s["fair_share_mb"] <= s["usage_mb"]))
    return last_kill, restored


def test_the_seed_preempts_for_tenant3_and_it_gets_its_share_back(seed_run: Path) -> None:
    # what the page must show, checked against the example's own account of itself
    kills = kills_for(seed_run, "root.tenant3")
    assert kills == [80000, 105000, 105000]  # simulation.yaml: one at 80 s, two at 105 s
    before = [s for s in samples(seed_run, "root.tenant3") if 60000 <= s["time_ms"] < 80000]
    assert before and all(s["usage_vcores"] < s["fair_share_vcores"] for s in before)


def test_the_page_says_when_tenant3_was_back_at_its_share(seed_report: list[Path],
                                                          seed_run: Path) -> None:
    last_kill, restored = back_at_share(seed_run, "root.tenant3")
    doc = parse(seed_report[0])
    marks = doc.xpath("//span[@class='restored'][@data-queue='root.tenant3']")
    assert len(marks) == 1
    assert int(marks[0].get("data-restored-ms")) == restored
    assert int(marks[0].get("data-last-kill-ms")) == last_kill
    seconds = restored // 1000
    assert marks[0].text_content() == f"Back at its share at t = {seconds // 60} m " \
                                      f"{seconds % 60:02d} s"


def test_the_recovery_table_has_tenant3s_episode(seed_report: list[Path],
                                                 seed_run: Path) -> None:
    kills = kills_for(seed_run, "root.tenant3")
    _, restored = back_at_share(seed_run, "root.tenant3")
    rows = parse(seed_report[0]).xpath("//table[@class='recovery']//tr[@data-queue]")
    assert [r.get("data-queue") for r in rows] == ["root.tenant3"]  # nobody else gained
    row = rows[0]
    assert int(row.get("data-first-kill-ms")) == kills[0]
    assert int(row.get("data-last-kill-ms")) == kills[-1]
    assert int(row.get("data-kills")) == len(kills)
    assert int(row.get("data-restored-ms")) == restored


def test_tenant3s_chart_marks_the_kills_and_the_recovery(seed_report: list[Path]) -> None:
    article = parse(seed_report[0]).xpath("//article[@data-queue='root.tenant3']")[0]
    text = article.xpath(".//svg")[0].xpath("string(.)")
    assert "preempted for it (3)" in text and "preempted from it (0)" in text
    assert "back at its share after preemption" in text
    assert "close-up of the first preemption for it" in text  # 2 min of a 40 min run

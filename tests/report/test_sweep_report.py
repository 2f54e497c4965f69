"""``sweep.html``: one point per variant that ran, in each panel of the trade-off chart, and
one table row per variant; written by ``fairshare sweep`` and by ``fairshare report``."""

from __future__ import annotations

import csv
from pathlib import Path

from fairshare.report import build_sweep_report
from tests.report.conftest import invoke_report, parse


def variants(sweep_dir: Path) -> list[dict[str, str]]:
    with (sweep_dir / "sweep.csv").open(newline="") as f:
        return list(csv.DictReader(f))


def points(page: Path, panel: str) -> list[str]:
    """The variant numbers of one panel's points (their SVG groups' ids)."""
    prefix = f"tradeoff-{panel}-variant-"
    return [i.removeprefix(prefix) for i in parse(page).xpath("//svg//g/@id")
            if i.startswith(prefix)]


def test_the_sweep_writes_sweep_html_with_one_point_per_variant_that_ran(
        seed_sweep: Path) -> None:
    page = seed_sweep / "sweep.html"
    assert page.is_file() and (seed_sweep / "sweep-files" / "tradeoff.png").is_file()
    rows = variants(seed_sweep)
    ran = [r["variant"].split("-", 1)[0] for r in rows if r["status"] == "ok"]
    assert len(rows) == 6 and len(ran) == 4  # "soon" is not a timeout: 2 variants failed
    assert points(page, "preempted") == ran
    assert points(page, "lost") == ran
    caption = parse(page).xpath("//figure//figcaption")[0].text_content()
    for row in rows:
        if row["status"] != "ok":
            assert row["variant"] in caption  # failed: named, not drawn


def test_each_point_is_labelled_with_its_variant(seed_sweep: Path) -> None:
    svg_text = parse(seed_sweep / "sweep.html").xpath("//figure//svg")[0].xpath("string(.)")
    # variants 1-4: timeout 5 and 60 s × preemption on and off (grid order, first slowest)
    for label in ("1 (5, true)", "2 (5, false)", "3 (60, true)", "4 (60, false)"):
        assert label in svg_text


def test_the_table_has_a_row_per_variant_with_the_focus_queues_waits(seed_sweep: Path) -> None:
    rows = variants(seed_sweep)
    doc = parse(seed_sweep / "sweep.html")
    table = doc.xpath("//table[@class='variants']//tr[@data-variant]")
    assert [tr.get("data-variant") for tr in table] == [r["variant"] for r in rows]
    # the default focus is tenant3: its p95 AM wait is the one that varies between variants
    assert "Sweep trade-off for root.tenant3" in doc.xpath("//h1")[0].text_content()
    for tr, row in zip(table, rows, strict=True):
        cell = tr.xpath("td[@data-key='am-wait-p95-ms']")[0]
        expected = row["root.tenant3:am-wait-p95-ms"]
        assert cell.get("data-ms") == expected  # whole ms, or empty for a failed variant


def test_report_on_a_sweep_directory_takes_a_focus(seed_sweep: Path, tmp_path: Path) -> None:
    code, stdout, stderr = invoke_report(str(seed_sweep), "-o", str(tmp_path / "s.html"),
                                         "--focus", "root.tenant1")
    assert code == 0, stderr
    size = (tmp_path / "s.html").stat().st_size  # a few tens of kB
    assert size < 100_000
    assert stdout == (f"Wrote {tmp_path / 's.html'} ({size / 1e3:.0f} kB) and 1 chart as PNG "
                      f"in {tmp_path / 's-files'}/\n")
    doc = parse(tmp_path / "s.html")
    assert "Sweep trade-off for root.tenant1" in doc.xpath("//h1")[0].text_content()
    assert len(points(tmp_path / "s.html", "preempted")) == 4


def test_an_unknown_focus_exits_2_naming_the_focus_queues(seed_sweep: Path,
                                                          tmp_path: Path) -> None:
    code, _, stderr = invoke_report(str(seed_sweep), "-o", str(tmp_path / "s.html"), "--focus",
                                    "root.tenant9")
    assert code == 2
    assert stderr == (f"{seed_sweep / 'sweep.csv'}: --focus root.tenant9: not a focus queue "
                      "of this sweep (it has root.tenant1, root.tenant2, root.tenant3)\n")
    assert list(tmp_path.iterdir()) == []


def test_a_csv_that_is_not_a_sweep_exits_2(tmp_path: Path) -> None:
    (tmp_path / "sweep.csv").write_text("a,b\n1,2\n")
    code, _, stderr = invoke_report(str(tmp_path))
    assert code == 2
    assert stderr.startswith(f"{tmp_path / 'sweep.csv'}: not a fairshare sweep.csv")
    assert [p.name for p in tmp_path.iterdir()] == ["sweep.csv"]


def test_the_sweep_page_is_self_contained(seed_sweep: Path, tmp_path: Path) -> None:
    page = build_sweep_report(seed_sweep, tmp_path / "sweep.html")[0]
    text = page.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text and "<script" not in text
    assert text == (seed_sweep / "sweep.html").read_text(encoding="utf-8")  # deterministic

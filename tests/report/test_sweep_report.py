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


def test_variants_that_are_the_same_run_are_noted(seed_sweep: Path) -> None:
    """Preemption off: the timeout changes nothing, so variants 2 (5 s) and 4 (60 s) are one
    run; the ones with preemption on differ (tenant3 waits longer with the longer timeout)."""
    from fairshare.report.sweep import load_sweep, same_runs
    groups = same_runs(load_sweep(seed_sweep))
    assert [[v.number for v in g] for g in groups] == [["2", "4"]]
    doc = parse(seed_sweep / "sweep.html")
    note = doc.xpath("//*[@id='same-runs']")[0].getnext().text_content()
    assert note.startswith("2, 4: the same numbers") and "fairSharePreemptionTimeout" in note
    same = {tr.get("data-variant").split("-", 1)[0]: tr.xpath(".//*[@data-key='same-as']")
            for tr in doc.xpath("//table[@class='variants']//tr[@data-variant]")}
    assert [n for n, found in same.items() if found] == ["4"]
    assert same["4"][0].text_content() == "= 2"


SWEEP_CSV = (
    "variant,status,error,alloc:root.a.weight,preempted-container-hours,lost-work-hours,"
    "root.a:am-wait-p95-ms,root.a:preempted-from,root.a:lost-work-hours,"
    "root.b:am-wait-p95-ms,root.b:preempted-from,root.b:lost-work-hours\n"
    "1-a.weight=1,ok,,1,0.5,0.5,60000,0,0.0,1000,0,0.0\n"
    "2-a.weight=2,ok,,2,1.5,1.0,20000,1,0.25,1000,3,0.75\n")


def test_the_table_says_which_queues_paid_for_a_variant(tmp_path: Path) -> None:
    from fairshare.report.sweep import load_sweep, paid_by
    (tmp_path / "sweep.csv").write_text(SWEEP_CSV)
    sweep = load_sweep(tmp_path)
    assert [paid_by(sweep, v) for v in sweep.variants] == [
        [], [("root.b", 3, 0.75), ("root.a", 1, 0.25)]]  # most containers first
    page = build_sweep_report(tmp_path, tmp_path / "sweep.html", "root.a")[0]
    cells = parse(page).xpath("//td[@data-key='paid-by']")
    assert [c.text_content() for c in cells] == ["nobody", "b: 3, 45 m 00 sa: 1, 15 m 00 s"]


def test_labels_of_crowded_points_do_not_overlap() -> None:
    """Eight points close together (as a sweep of small changes gives): every label's box
    is clear of every other label's."""
    from fairshare.report import charts
    from fairshare.report.sweep import place_labels
    with charts.style():
        fig = charts.new_figure(10.0, 4.6)
        ax = fig.subplots()
        points = [(0.10 + 0.002 * i, 1.0 + 0.01 * (i % 3), f"{i + 1} (timeout {i * 5}, on)")
                  for i in range(8)]
        ax.plot([x for x, _, _ in points], [y for _, y, _ in points], "o")
        ax.set_xlim(0, 0.2)
        ax.set_ylim(0, 2)
        labels = place_labels(ax, points)
        renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
        boxes = [label.get_window_extent(renderer) for label in labels]
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            assert not a.overlaps(b), (a, b)

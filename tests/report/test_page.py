"""The run report's page: one self-contained file, every chart drawn inline and as PNG beside
it, the same bytes for the same run."""

from __future__ import annotations

import re
import struct
from pathlib import Path

from lxml import html as lxml_html

from fairshare.report import build_report
from tests.report.conftest import parse

URL_IN_CSS = re.compile(r"url\(\s*['\"]?([^'\")]*)")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (the PNG specification (ISO/IEC 15948), §11.2.2)."""
    assert data[:8] == PNG_SIGNATURE
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_page_references_nothing_outside_itself(seed_report: list[Path]) -> None:
    page = seed_report[0]
    text = page.read_text(encoding="utf-8")
    assert "http://" not in text and "https://" not in text
    doc = parse(page)
    assert doc.xpath("//script") == []  # no script at all, inline or not
    assert doc.xpath("//link") == [] and doc.xpath("//iframe | //object | //embed") == []
    for element in doc.iter():
        for name in ("src", "href", "xlink:href", "srcset", "poster", "data"):
            value = element.get(name)
            if value is None:
                continue
            # only in-page anchors and the PNG copies beside the page (links, never loaded)
            assert value.startswith("#") or (name == "href" and value.startswith(
                "report-files/") and value.endswith(".png")), (element.tag, name, value)
    for style in [*doc.xpath("//style/text()"), *doc.xpath("//@style")]:
        assert "@import" not in style
        assert all(url.startswith("#") for url in URL_IN_CSS.findall(style)), style


def test_every_chart_is_drawn_inline_and_as_a_png_beside_the_page(
        seed_report: list[Path]) -> None:
    page, *pngs = seed_report
    doc = parse(page)
    figures = doc.xpath("//figure[@data-chart]")
    names = [f.get("data-chart") for f in figures]
    # the cluster, the bars, one per queue under root (4 in the seed), the apps
    assert names == ["utilization", "usage-bars", "queue-01-root.default",
                     "queue-02-root.tenant1", "queue-03-root.tenant2", "queue-04-root.tenant3",
                     "apps"]
    assert [p.name for p in pngs] == [f"{n}.png" for n in names]
    for figure, png in zip(figures, pngs, strict=True):
        svg = figure.xpath(".//svg")[0]
        _x, _y, width, height = map(float, svg.get("viewbox").split())
        assert width > 100 and height > 100
        assert len(svg.xpath(".//path")) > 10  # axes, lines, bars: something was drawn
        assert png.parent == page.parent / "report-files"
        png_width, png_height = png_size(png.read_bytes())
        assert png_width >= 500 and png_height >= 200
        link = figure.xpath(".//figcaption/a/@href")
        assert link == [f"report-files/{png.name}"]


def test_ids_are_unique_across_the_inline_charts(seed_report: list[Path]) -> None:
    ids = parse(seed_report[0]).xpath("//@id")
    assert len(ids) == len(set(ids))


def test_the_same_run_gives_the_same_bytes(seed_report: list[Path], tmp_path: Path) -> None:
    page, *pngs = seed_report
    again = build_report(page.parent, tmp_path / "report.html")
    assert again[0].read_bytes() == page.read_bytes()
    assert [p.read_bytes() for p in again[1:]] == [p.read_bytes() for p in pngs]


def test_a_rebuild_replaces_the_charts_of_an_earlier_one(seed_copy: Path) -> None:
    stale = seed_copy / "report-files" / "queue-99-gone.png"
    stale.parent.mkdir()
    stale.write_bytes(b"old")
    written = build_report(seed_copy, seed_copy / "report.html")
    assert not stale.exists()
    assert sorted(p.name for p in (seed_copy / "report-files").iterdir()) == sorted(
        p.name for p in written[1:])
    assert not [p for p in seed_copy.iterdir() if p.name.startswith(".")]  # no staging left


def test_the_facts_say_where_the_numbers_come_from(seed_report: list[Path]) -> None:
    facts = parse(seed_report[0]).xpath("//dl[@id='facts']")[0].text_content()
    assert "seed three tenants (simulated)" in facts
    assert "3 nodes, 24,576 MB, 12 vcores at the end" in facts  # 3 × 8 GB / 4 vcores
    assert "on; cluster utilization threshold 80.0%" in facts
    assert "summary.json, timeline.parquet, events.jsonl" in facts


def test_the_timeline_csv_serves_when_there_is_no_parquet(seed_copy: Path,
                                                           seed_report: list[Path]) -> None:
    (seed_copy / "timeline.parquet").unlink()
    page = build_report(seed_copy, seed_copy / "report.html")[0]
    assert "timeline.csv" in parse(page).xpath("//dl[@id='facts']")[0].text_content()
    # the same rows either way: every chart is drawn identically
    def drawings(path: Path) -> list[bytes]:
        return [lxml_html.tostring(svg) for svg in parse(path).xpath("//figure//svg")]
    assert drawings(page) == drawings(seed_report[0])

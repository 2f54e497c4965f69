"""The seed example's report in a real browser: it loads offline — no request but the page's
own file, no console error — and every chart is drawn.

Screenshots go to ``out/browser/``: the whole page, its top at 1280 × 900, and tenant3's
chart; with ``REPORT_SCREENSHOT=docs/report.png`` tenant3's is also saved there, for the
README.
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Browser, ConsoleMessage, Page, Request

from fairshare.report import build_report, build_sweep_report
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.run.scripted import run_scenario

ROOT = Path(__file__).resolve().parents[1]
SEED = ROOT / "examples/seed-three-tenants/simulation.yaml"
SHOTS = ROOT / "out" / "browser"




@pytest.fixture(scope="module")
def seed_page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    outdir = tmp_path_factory.mktemp("seed") / "out"
    run_scenario(load_scenario(SEED), outdir)
    return build_report(outdir, outdir / "report.html")[0]


class Visit:
    """A page opened with every request, console message and page error recorded."""

    def __init__(self, browser: Browser, path: Path) -> None:
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page: Page = browser.new_page(viewport={"width": 1280, "height": 900})
        self.page.on("request", self._request)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("requestfailed", lambda r: self.errors.append(f"failed: {r.url}"))
        self.url = path.resolve().as_uri()
        self.page.goto(self.url, wait_until="load")

    def _request(self, request: Request) -> None:
        self.requests.append(request.url)

    def _console(self, message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            self.errors.append(f"console {message.type}: {message.text}")


def not_blank(png: bytes) -> bool:
    """A drawn chart has many colours; an empty box has one or two."""
    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(maxcolors=1 << 16)
    return colours is None or len(colours) > 20


def test_the_report_loads_offline_without_errors(browser: Browser, seed_page: Path) -> None:
    visit = Visit(browser, seed_page)
    assert visit.requests == [visit.url]  # nothing but the page's own file
    assert visit.errors == []
    assert visit.page.title() == "Preemption tuning: seed three tenants (simulated)"
    visit.page.close()


def test_every_chart_is_drawn(browser: Browser, seed_page: Path) -> None:
    visit = Visit(browser, seed_page)
    charts = visit.page.locator("figure[data-chart] svg.chart")
    assert charts.count() == 7
    for i in range(charts.count()):
        chart = charts.nth(i)
        chart.scroll_into_view_if_needed()
        box = chart.bounding_box()
        assert box is not None and box["width"] > 300 and box["height"] > 100, i
        assert not_blank(chart.screenshot()), i
    visit.page.close()


def test_screenshots(browser: Browser, seed_page: Path) -> None:
    visit = Visit(browser, seed_page)
    SHOTS.mkdir(parents=True, exist_ok=True)
    top = visit.page.screenshot()
    (SHOTS / "report-top.png").write_bytes(top)
    visit.page.screenshot(path=str(SHOTS / "report.png"), full_page=True)
    tenant3 = visit.page.locator("article[data-queue='root.tenant3']")
    tenant3.screenshot(path=str(SHOTS / "report-tenant3.png"))
    assert not_blank(top)
    if target := os.environ.get("REPORT_SCREENSHOT"):
        shutil.copyfile(SHOTS / "report-tenant3.png", ROOT / target)
    visit.page.close()


def test_the_sweep_page_loads_offline_with_its_chart(browser: Browser, tmp_path: Path) -> None:
    (tmp_path / "sweep.csv").write_text(
        "variant,status,error,alloc:root.a.weight,preempted-container-hours,lost-work-hours,"
        "root.a:am-wait-p95-ms\n"
        "1-a.weight=1,ok,,1,0.5,0.4,60000\n2-a.weight=2,ok,,2,1.5,1.0,20000\n"
        "3-a.weight=x,failed,bad weight,x,,,\n")
    page = build_sweep_report(tmp_path, tmp_path / "sweep.html")[0]
    visit = Visit(browser, page)
    assert visit.requests == [visit.url] and visit.errors == []
    chart = visit.page.locator("figure[data-chart='tradeoff'] svg.chart")
    box = chart.bounding_box()
    assert box is not None and box["width"] > 300
    assert not_blank(chart.screenshot())
    assert visit.page.locator("svg g[id^='tradeoff-preempted-variant-']").count() == 2
    visit.page.close()


# A laptop's browser window: every table of the report fits in it without scrolling sideways
# (a column scrolled out of sight is a column not read: the lost-work column is the last).
NARROW = {"width": 1300, "height": 900}
OVERFLOWING = """() => [...document.querySelectorAll('div.scroll')]
    .filter(d => d.scrollWidth > d.clientWidth + 1)
    .map(d => d.querySelector('table').className + ' ' + d.scrollWidth + ' > ' + d.clientWidth)"""


def test_the_tables_fit_a_1300_px_window(browser: Browser, seed_page: Path) -> None:
    page = browser.new_page(viewport=NARROW)
    page.goto(seed_page.resolve().as_uri(), wait_until="load")
    assert page.evaluate(OVERFLOWING) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= NARROW["width"]
    lost = page.locator("table.waits th").last
    assert lost.inner_text() == "lost work"
    box = lost.bounding_box()
    assert box is not None and box["x"] + box["width"] <= NARROW["width"]
    page.close()


def test_the_sweep_table_fits_a_1300_px_window(browser: Browser, tmp_path: Path) -> None:
    """A sweep of two settings (the longest names YARN has) with three focus queues."""
    queues = ("root.tenant1", "root.tenant2", "root.tenant3")
    stats = ("am-wait-p50-ms", "am-wait-p95-ms", "am-wait-max-ms", "first-task-wait-p95-ms",
             "turnaround-p95-ms", "short-of-threshold-ms", "starved-ms", "preempted-from",
             "preempted-for", "lost-work-hours")
    head = ["variant", "status", "error", "alloc:root.tenant3.fairSharePreemptionTimeout",
            "site:yarn.scheduler.fair.preemption", "utilization-memory", "containers-preempted",
            "preempted-container-hours", "lost-work-hours",
            *(f"{q}:{s}" for q in queues for s in stats)]
    rows = [[f"{i}-x", "ok", "", str(5 * i), "true", "0.83", "3", "0.12", "0.1",
             *(["1262000", "1262000", "1262000", "1142000", "1262000", "1205000", "50000",
                "2", "3", "0.05"] * 3)] for i in range(1, 5)]
    (tmp_path / "sweep.csv").write_text("\n".join(",".join(r) for r in [head, *rows]) + "\n")
    page_path = build_sweep_report(tmp_path, tmp_path / "sweep.html")[0]
    page = browser.new_page(viewport=NARROW)
    page.goto(page_path.resolve().as_uri(), wait_until="load")
    assert page.evaluate(OVERFLOWING) == []
    page.close()

"""The watch's live pages in a real browser (Debian's chromium through Playwright), served by
uvicorn on a loopback port over the fake source of tests/web/pages (the ``basic`` dump as the
latest sample, ten minutes of hand-made history).

Every page loads with no console error and no request outside the server (every request is
intercepted: one to any other host is aborted and fails the test), the queue charts are drawn,
and the Scheduler page shows a new sample without a reload when the source gets one.

Screenshots go to ``browser_tests/screenshots/``, one per page and the queue chart.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from PIL import Image
from playwright.sync_api import Browser

from browser_tests.visit import SHOTS, Visit
from fairshare.web.pages import create_app
from tests.web.dumps import sample_of
from tests.web.pages.fakes import FakeSource
from tests.web.pages.scenario import T, source
from tests.web.serve import serving_app

ROOT = Path(__file__).resolve().parents[1]
APP = "application_1700000000000_0005"
PAGES = ["/", "/scheduler", "/queue/root.etl", "/tuning", "/tuning?days=mon-fri&hours=9-17",
         "/apps", "/apps?queue=root.etl", f"/app/{APP}", "/diagnosis"]


@pytest.fixture(scope="module")
def live() -> Iterator[tuple[str, FakeSource]]:
    """The app on 127.0.0.1, a free port, in a thread; stopped at the end."""
    fake = source()
    with serving_app(create_app(fake)) as base:
        yield base, fake




def _name(path: str) -> str:
    return (path.strip("/").replace("/", "_").replace("?", "_").replace("&", "_")
            .replace("=", "-") or "home")


def not_blank(png: bytes) -> bool:
    """A drawn chart has many colours; an empty box one or two."""
    colours = Image.open(io.BytesIO(png)).convert("RGB").getcolors(maxcolors=1 << 16)
    return colours is None or len(colours) > 20


@pytest.mark.parametrize("path", PAGES)
def test_every_page_loads_offline_without_errors(browser: Browser,
                                                 live: tuple[str, FakeSource],
                                                 path: str) -> None:
    base, _fake = live
    visit = Visit(browser, base, path)
    try:
        visit.page.wait_for_load_state("networkidle")
        SHOTS.mkdir(parents=True, exist_ok=True)
        visit.page.screenshot(path=str(SHOTS / f"{_name(path)}.png"), full_page=True)
        assert visit.outside == []
        assert visit.errors == []
    finally:
        visit.close()


def test_the_queue_charts_are_drawn_and_zoom(browser: Browser,
                                             live: tuple[str, FakeSource]) -> None:
    base, _fake = live
    visit = Visit(browser, base, "/queue/root.etl")
    try:
        page = visit.page
        page.wait_for_selector("#chart-memory canvas")
        page.wait_for_selector("#chart-vcores canvas")
        for chart in ("#chart-memory", "#chart-vcores"):
            assert not_blank(page.locator(chart).screenshot())
        page.locator("#chart-memory").screenshot(path=str(SHOTS / "queue_root.etl_memory.png"))
        box = page.locator("#chart-memory .u-over").bounding_box()
        assert box is not None
        y = box["y"] + box["height"] / 2
        with page.expect_response(lambda r: "/api/queue/root.etl?" in r.url) as answer:
            page.mouse.move(box["x"] + box["width"] * 0.25, y)
            page.mouse.down()
            page.mouse.move(box["x"] + box["width"] * 0.5, y, steps=5)
            page.mouse.up()
        assert answer.value.status == 200
        page.wait_for_function("window.location.search.includes('from=')")
        # the zoomed span: a quarter of the hour-long window, asked again and in the address
        start, end = page.evaluate("""() => {
            const q = new URLSearchParams(window.location.search);
            return [Number(q.get('from')), Number(q.get('to'))]; }""")
        assert T - 3_600_000 < start < end <= T
        assert 0.15 * 3_600_000 < end - start < 0.35 * 3_600_000
        assert visit.outside == [] and visit.errors == []
    finally:
        visit.close()


def test_the_scheduler_page_shows_a_new_sample_without_reloading(
        browser: Browser, live: tuple[str, FakeSource]) -> None:
    base, fake = live
    visit = Visit(browser, base, "/scheduler")
    try:
        page = visit.page
        page.evaluate("window.fairshareNotReloaded = true")
        assert page.locator("#live").get_attribute("data-time-ms") == str(T)
        assert page.locator('tr[data-queue="root.spark"]').count() == 0
        fake.set_latest(sample_of("spark", T + 5000), age_s=0.2,
                        error="http://127.0.0.1:8088/ws/v1/cluster/apps: read timed out")
        page.wait_for_selector('tr[data-queue="root.spark"]', timeout=15_000)
        assert page.locator("#live").get_attribute("data-time-ms") == str(T + 5000)
        assert "read timed out" in page.locator("#poll-error").inner_text()
        assert page.evaluate("window.fairshareNotReloaded") is True
        page.screenshot(path=str(SHOTS / "scheduler_after_new_sample.png"), full_page=True)
        assert visit.outside == [] and visit.errors == []
    finally:
        fake.set_latest(sample_of("basic", T), age_s=2.5)
        visit.close()

"""Script injection through ``fairshare serve``'s pages, in a real browser (Debian's chromium
through Playwright): the apps of tests/server/served.py's ``HOSTILE`` — names, types, tags,
queues and users that are markup, attribute breakers, ``javascript:`` URLs and unicode
tricks — submitted through YARN's REST API, then every page of the server loaded: no dialog
opens (every injected script would call ``alert``), no element the strings would make exists
in the DOM (no ``img``/``svg``/``i``/``b``/``style`` of theirs, no element with an ``on…``
attribute, no script of theirs), and the strings are on the pages as text. The Scheduler and
Nodes pages swap in their live part with ``innerHTML`` as new samples land: that swap is
watched too. tests/server/test_pages_hostile.py checks the same pages' HTML text.

The server is built and started in-process as ``fairshare serve`` builds it (uvicorn on
127.0.0.1, a free port), the pages sampling every 200 ms of its clock.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
from playwright.sync_api import Browser, Dialog

from browser_tests.visit import Visit
from fairshare.server.service import ServeOptions, build
from tests.server.served import ALLOCATIONS, BASE, HOSTILE, submit_hostile
from tests.web.serve import serving_served

WAIT_MS = 30_000  # the longest any wall wait may take (the machine is shared)
# the page's DOM: what the hostile strings would have made, had they been markup
INJECTED = """() => {
  const found = [];
  for (const el of document.querySelectorAll("*")) {
    for (const a of el.getAttributeNames()) {
      if (a.toLowerCase().startsWith("on")) { found.push(el.tagName + "[" + a + "]"); }
      const v = (el.getAttribute(a) || "").trim().toLowerCase();
      if ((a === "href" || a === "src" || a === "action") && v.startsWith("javascript:")) {
        found.push(el.tagName + "[" + a + "=" + v + "]");
      }
    }
  }
  for (const sel of ['img[src="x"]', "i", "b", "style"]) {
    for (const el of document.querySelectorAll(sel)) {
      const text = el.textContent || "";
      if (sel !== "style" || text.includes("*{}")) {
        if (sel !== "i" || text === "type") {
          if (sel !== "b" || text === "tag") { found.push(sel); }
        }
      }
    }
  }
  for (const s of document.querySelectorAll("script")) {
    if ((s.textContent || "").includes("alert(")
        && s.getAttribute("type") !== "application/json") {
      found.push("script: " + s.textContent.slice(0, 60));
    }
  }
  return found;
}"""
COUNT_SWAPS = """() => {
  window.fairshareSwaps = 0;
  const live = document.getElementById("scheduler") || document.getElementById("nodes-page");
  new MutationObserver(() => { window.fairshareSwaps += 1; })
    .observe(live, {childList: true, subtree: true});
}"""


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``fairshare serve`` on 127.0.0.1 with the hostile apps submitted and sampled."""
    tmp: Path = tmp_path_factory.mktemp("serve-hostile")
    (tmp / "fair-scheduler.xml").write_text(ALLOCATIONS, encoding="utf-8")
    served = build(ServeOptions(tmp / "fair-scheduler.xml", None, "2x8g/8",
                                out=tmp / "session", pages_interval_ms=200))
    with serving_served(served) as url, httpx.Client(base_url=url, timeout=10) as rest:
        submit_hostile(rest)
        yield url


def pages(base: str) -> list[str]:
    with httpx.Client(base_url=base, timeout=10) as rest:
        queues = [q["name"] for q in rest.get("/api/scheduler").json()["queues"]]
        apps = [a["id"] for a in rest.get(f"{BASE}/apps").json()["apps"]["app"]]
    return (["/", "/scheduler", "/tuning", "/apps", "/diagnosis", "/nodes", "/node/node1:45454"]
            + [f"/queue/{quote(q, safe='')}" for q in queues] + [f"/app/{a}" for a in apps])


def test_no_page_runs_or_builds_what_the_names_hold(browser: Browser, base: str) -> None:
    paths = pages(base)
    assert len(paths) >= 7 + 5 + 4
    shown = ""
    for path in paths:
        dialogs: list[str] = []
        visit = Visit(browser, base, path)

        def opened(dialog: Dialog, seen: list[str] = dialogs) -> None:
            seen.append(dialog.message)
            dialog.dismiss()

        try:
            visit.page.on("dialog", opened)
            visit.page.reload(wait_until="load")  # the handler is there from the start
            visit.page.wait_for_load_state("networkidle")
            assert visit.page.evaluate(INJECTED) == [], path
            assert dialogs == [], path
            shown += visit.page.locator("body").inner_text()
            visit.clean()
        finally:
            visit.close()
    # the strings are there, as text (the apps list, the queue pages, the app pages)
    for app in HOSTILE:
        assert app["application-name"].split(" ")[0] in shown, app["application-name"]
    assert "<svg onload=alert('user')>" in shown
    assert "root.\"><img src=x onerror=alert('queue')>" in shown


@pytest.mark.parametrize("path", ["/scheduler", "/nodes"])
def test_the_live_swap_builds_nothing_either(browser: Browser, base: str, path: str) -> None:
    """The live part, fetched and put in with innerHTML, as samples land (every 200 ms of
    the server's clock; the page polls every few seconds)."""
    dialogs: list[str] = []
    visit = Visit(browser, base, path)
    try:
        page = visit.page
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.evaluate(COUNT_SWAPS)
        page.wait_for_function("window.fairshareSwaps > 0", timeout=WAIT_MS)
        assert page.evaluate(INJECTED) == []
        assert dialogs == []
        if path == "/scheduler":
            text = page.locator("#scheduler").inner_text()
            assert "<script>alert(\"name\")</script>" in text
        visit.clean()
    finally:
        visit.close()

"""A page of the server under test, watched: every request intercepted (one to anywhere but
the server is aborted and kept), every console error and warning, page error and failed
request kept. Shared by the live pages' tests (watch's and serve's)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, ConsoleMessage, Page, Route

SHOTS = Path(__file__).resolve().parent / "screenshots"  # gitignored


class Visit:
    def __init__(self, browser: Browser, base: str, path: str) -> None:
        self.base = base
        self.outside: list[str] = []
        self.errors: list[str] = []
        self.page: Page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.page.route("**/*", self._route)
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda e: self.errors.append(f"page error: {e}"))
        self.page.on("requestfailed", lambda r: self.errors.append(f"failed: {r.url}"))
        self.go(path)

    def go(self, path: str) -> None:
        response = self.page.goto(self.base + path, wait_until="load")
        assert response is not None and response.status == 200, path

    def _route(self, route: Route) -> None:
        url = route.request.url
        if url == self.base or url.startswith(self.base + "/"):
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()

    def _console(self, message: ConsoleMessage) -> None:
        if message.type in ("error", "warning"):
            self.errors.append(f"console {message.type}: {message.text}")

    def clean(self) -> None:
        """Nothing outside the server asked for, nothing wrong said (the page still open)."""
        self.page.wait_for_load_state("networkidle")
        assert self.outside == []
        assert self.errors == []

    def shot(self, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)

    def close(self) -> None:
        self.page.close()

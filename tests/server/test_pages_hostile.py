"""Script injection through ``fairshare serve``'s pages: apps whose name, type, tags, queue
and user are markup, attribute breakers, ``javascript:`` URLs and unicode tricks, submitted
through YARN's REST API, then every page of the server read as HTML text: each hostile string
is there only escaped (the page shows it as text), never as markup.

The queues come from the placement policy (tests/server/served.py): a queue named in the
submission is created (``specified``), and an app naming no queue goes to a queue named after
its user (``user``; YARN's ``cleanName`` turns a ``.`` into ``_dot_``, so the hostile user
names hold no dot). browser_tests/test_serve_hostile.py loads the same pages in a real
browser.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from fairshare.server.service import Served
from tests.server.served import (
    BASE,
    ESCAPED,
    HOSTILE,
    MARKUP,
    served_client,
    submit_hostile,
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, TestClient]]:
    with served_client(tmp_path_factory.mktemp("hostile"), pages_interval_ms=200) as pair:
        submit_hostile(pair[1])
        yield pair


def page_paths(client: TestClient) -> list[str]:
    """Every page of the server: the fixed ones, one per queue, app and node."""
    queues = [q["name"] for q in client.get("/api/scheduler").json()["queues"]]
    apps = [a["id"] for a in client.get(f"{BASE}/apps").json()["apps"]["app"]]
    nodes = [n["id"] for n in client.get(f"{BASE}/nodes").json()["nodes"]["node"]]
    fixed = ["/", "/scheduler", "/scheduler/live", "/tuning", "/apps", "/diagnosis",
             "/nodes", "/nodes/live"]
    return (fixed + [f"/queue/{quote(q, safe='')}" for q in queues]
            + [f"/app/{a}" for a in apps] + [f"/node/{quote(n, safe='')}" for n in nodes])


def test_the_hostile_names_are_the_apps_queues_and_users(
        served: tuple[Served, TestClient]) -> None:
    """The strings reached the server as they were sent (the test tests something)."""
    client = served[1]
    apps = client.get(f"{BASE}/apps").json()["apps"]["app"]
    assert {a["name"] for a in apps} == {h["application-name"] for h in HOSTILE}
    assert {a["queue"] for a in apps} == {
        "root.b", "root.\"><img src=x onerror=alert('queue')>",
        "root.<svg onload=alert('user')>", "root.javascript:alert('u2')"}
    assert {a["user"] for a in apps} >= {"<svg onload=alert('user')>", "javascript:alert('u2')"}


def test_every_page_shows_them_escaped(served: tuple[Served, TestClient]) -> None:
    client = served[1]
    everything = ""
    paths = page_paths(client)
    assert len(paths) >= 8 + 5 + 4 + 2  # fixed, queues (root, a, b and the new ones), apps
    for path in paths:
        page = client.get(path)
        assert page.status_code == 200, path
        assert page.headers["content-type"].startswith("text/html"), path
        text = page.text
        for raw in MARKUP:
            assert raw not in text, (path, raw)
        # no URL attribute holds a javascript: URL (a link built from a name)
        assert not re.search(r"""(?:href|src|action)\s*=\s*["']?\s*javascript:""", text,
                             re.I), path
        everything += text
    for shown in ESCAPED:  # and they are shown, as text
        assert shown in everything, shown


def test_the_pages_data_for_their_scripts_cannot_end_its_element(
        served: tuple[Served, TestClient]) -> None:
    """A queue page embeds its data as JSON in a <script> element: no ``<`` in it."""
    client = served[1]
    queue = "root.\"><img src=x onerror=alert('queue')>"
    text = client.get(f"/queue/{quote(queue, safe='')}").text
    for data in re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', text, re.S):
        assert "<" not in data
    assert html.escape(queue, quote=False) in text or html.escape(queue) in text


@pytest.mark.parametrize("path", ["/api/scheduler", "/api/apps", "/api/nodes", "/api/tuning",
                                  "/api/diagnosis"])
def test_the_pages_json_is_json(served: tuple[Served, TestClient], path: str) -> None:
    """What the scripts fetch is never read as a page (nosniff and a JSON type)."""
    answer = served[1].get(path)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("application/json")


def test_a_hostile_path_is_a_page_that_escapes_it(served: tuple[Served, TestClient]) -> None:
    client = served[1]
    for path in ("/app/<script>alert(1)</script>", "/queue/root.<img src=x onerror=alert(1)>",
                 "/node/<svg onload=alert(1)>:1"):
        page = client.get(quote(path, safe="/:"))
        assert page.status_code == 404, path
        assert "<script>alert(1)" not in page.text and "<img src" not in page.text \
            and "<svg onload" not in page.text, path

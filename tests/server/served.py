"""``fairshare serve`` built and started in-process as the command builds it
(:func:`fairshare.server.service.build`, :meth:`~fairshare.server.service.Served.start`), its
whole ASGI app — YARN's REST API, the extensions, the AM protocol, the pages — called directly
by a test client (no socket), for the bad-input tests, the OpenAPI fuzzer and the pages'
injection test.

The cluster: two NodeManagers of 8 GB and 8 vcores (the virtual executor), YARN's default
maximum allocation (8,192 MB, 4 vcores: ``yarn.scheduler.maximum-allocation-*``), queue
``root.a`` with a ``maxContainerAllocation`` of 2,048 MB and 2 vcores, and a placement policy
that places an app in the queue it names, creating it (``specified``), else in a queue named
after its user (``user``), as Hadoop's ``QueuePlacementPolicy`` does.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
from fastapi.testclient import TestClient

from fairshare.server.service import Served, ServeOptions, build

BASE = "/ws/v1/cluster"
ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <queue name="a"><maxContainerAllocation>2048 mb, 2 vcores</maxContainerAllocation></queue>
  <queue name="b"/>
  <queuePlacementPolicy>
    <rule name="specified" create="true"/>
    <rule name="user" create="true"/>
  </queuePlacementPolicy>
</allocations>
"""
# the pages' injection tests' apps (tests/server/test_pages_hostile.py, and in a browser
# browser_tests/test_serve_hostile.py): an hour-long task group each, so they run and show
TASKS = {"tasks": [{"count": 2, "memory-mb": 512, "vcores": 1, "duration-ms": 3_600_000}]}
# each app's fields, and the user submitting it (no queue: the user rule places it)
HOSTILE: list[dict[str, Any]] = [
    {"application-name": '<script>alert("name")</script>', "queue": "b",
     "application-type": "<i>type</i>",
     "application-tags": {"tag": ["<b>tag</b>", '"><img src=x onerror=alert(9)>']}},
    {"application-name": "javascript:alert('js')",
     "queue": "root.\"><img src=x onerror=alert('queue')>"},
    {"application-name": "\u202egnp.exe \uff1cscript\uff1e \u200d<style>*{}</style>",
     "user": "<svg onload=alert('user')>"},
    {"application-name": "</title></textarea></script><!--",
     "user": "javascript:alert('u2')"},
]
# what must never be in a page as markup (the raw text of the strings above)
MARKUP = ['<script>alert("name")', "<i>type", "<b>tag", "<img src=x", "<svg onload",
          "<style>*{}", "</textarea></script><!--", "</title></textarea>"]
ESCAPED = ["&lt;script&gt;alert(", "&lt;svg onload=alert(", "&lt;img src=x onerror=alert("]
WAIT_S = 20.0  # the longest a test waits for the engine or the pages (the machine is shared)


@contextmanager
def served_client(tmp: Path, *, pages_interval_ms: int = 5_000
                  ) -> Iterator[tuple[Served, TestClient]]:
    (tmp / "fair-scheduler.xml").write_text(ALLOCATIONS, encoding="utf-8")
    served = build(ServeOptions(tmp / "fair-scheduler.xml", None, "2x8g/8", out=tmp / "out",
                                pages_interval_ms=pages_interval_ms))
    served.start("http://testserver")
    try:
        with TestClient(served.app, raise_server_exceptions=False) as client:
            yield served, client
    finally:
        served.stop()
    assert served.loop.failure is None


def new_app_id(client: httpx.Client) -> str:
    answer = client.post(f"{BASE}/apps/new-application")
    assert answer.status_code == 200, answer.text
    app_id: str = answer.json()["application-id"]
    return app_id


def submit(client: httpx.Client, body: dict[str, Any], user: str | None = None) -> Any:
    """POST /apps with a fresh id (unless ``body`` has one) as ``user``."""
    body = {"application-id": new_app_id(client), **body}
    params = {"user.name": user} if user is not None else None
    return client.post(f"{BASE}/apps", json=body, params=params)


def submit_hostile(client: httpx.Client) -> list[str]:
    """The :data:`HOSTILE` apps submitted (each accepted), then waited for until the pages'
    sample lists them all: their ids."""
    ids = []
    for app in HOSTILE:
        body = {k: v for k, v in app.items() if k != "user"}
        answer = submit(client, {**body, "fairshare": TASKS}, user=app.get("user"))
        assert answer.status_code == 202, answer.text
        ids.append(answer.headers["location"].rsplit("/", 1)[1])

    def sampled() -> bool:
        listed = {a["id"] for a in client.get("/api/apps").json().get("apps", [])}
        return set(ids) <= listed

    wait_until("the pages' sample of every app", sampled)
    return ids


def wait_until(what: str, done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)

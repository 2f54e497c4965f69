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


def new_app_id(client: TestClient) -> str:
    answer = client.post(f"{BASE}/apps/new-application")
    assert answer.status_code == 200, answer.text
    app_id: str = answer.json()["application-id"]
    return app_id


def submit(client: TestClient, body: dict[str, Any], user: str | None = None) -> Any:
    """POST /apps with a fresh id (unless ``body`` has one) as ``user``."""
    body = {"application-id": new_app_id(client), **body}
    params = {"user.name": user} if user is not None else None
    return client.post(f"{BASE}/apps", json=body, params=params)


def wait_until(what: str, done: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_S
    while not done():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)

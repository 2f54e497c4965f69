"""The REST tests' fixtures: a fake Control over the recorded fair-preempted cluster, and a
client of the REST app over it (one per test: writes change the control)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from fairshare.server.rest.app import create_rest_app
from tests.server.rest.fake import FakeControl
from tests.server.rest.scenes import fair_preempted


@pytest.fixture
def control() -> FakeControl:
    return fair_preempted()[0]


@pytest.fixture
def client(control: FakeControl) -> Iterator[TestClient]:
    with TestClient(create_rest_app(control)) as c:
        yield c

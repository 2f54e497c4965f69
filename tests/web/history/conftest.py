"""The history's tests run on SQLite here (a file in a temporary folder); postgres_tests/
runs the same tests on a PostgreSQL server it starts (``make test-postgres``), by giving
``history_url`` another value."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def history_url(tmp_path: Path) -> Callable[[], str]:
    """A new, empty database per call (a file path: SQLite in WAL mode)."""
    made = [0]

    def make() -> str:
        made[0] += 1
        return str(tmp_path / f"history{made[0]}.db")

    return make

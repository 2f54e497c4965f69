"""The state store's contract (tests/server/store/contract.py) on a real PostgreSQL: the same
checks the SQLite store passes, as every YARN store passes ``RMStateStoreTestBase``."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.server.store.contract import CHECKS


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_postgresql(check: Callable[[Callable[[], str]], None],
                    history_url: Callable[[], str]) -> None:
    check(history_url)  # a new, empty database per call

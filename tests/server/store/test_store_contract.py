"""The state store's contract (:mod:`tests.server.store.contract`) on SQLite, and what
opening a bad store says."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from fairshare.server.store.store import StateStore, StateStoreError
from tests.server.store.contract import CHECKS


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__)
def test_sqlite(check: Callable[[Callable[[], str]], None], tmp_path: Path) -> None:
    made = iter(range(100))
    check(lambda: str(tmp_path / f"state-{next(made)}.db"))


def test_a_sqlite_store_is_in_wal_mode(tmp_path: Path) -> None:
    import sqlite3

    StateStore(str(tmp_path / "state.db")).close()
    with sqlite3.connect(tmp_path / "state.db") as c:
        assert c.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_file_that_is_not_a_database_is_refused_at_open(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("not a database\n" * 100)
    with pytest.raises(StateStoreError, match="cannot open the state store"):
        StateStore(str(path))


def test_a_malformed_url_is_a_value_error_naming_the_state_store() -> None:
    with pytest.raises(ValueError, match="state store URL"):
        StateStore("postgresql://user@host:notaport/db")

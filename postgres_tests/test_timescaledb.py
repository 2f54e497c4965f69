"""The history's time-keyed tables are TimescaleDB hypertables where the server has the
extension (preloaded), and plain tables where it has not — and either way the history
answers the same (tests/web/history's suite runs on this server too)."""

from __future__ import annotations

from collections.abc import Callable

import psycopg

from fairshare.web.history.schema import HYPERTABLES
from fairshare.web.history.store import History
from postgres_tests.conftest import has_timescaledb
from tests.web.history.synthetic import dump_sample


def test_time_keyed_tables_are_hypertables_exactly_when_timescaledb_is_there(
        history_url: Callable[[], str]) -> None:
    url = history_url()
    history = History.open(url, poll_interval_ms=5000)
    for k in range(3):  # a few polls, so the size is measured on real chunks
        assert history.add(dump_sample("basic", 1_700_000_000_000 + 5000 * k), {})
    size = history.size_bytes()
    history.close()
    with psycopg.connect(url.replace("+psycopg", "")) as connection:
        extension = connection.execute(
            "SELECT 1 FROM pg_extension WHERE extname = 'timescaledb'").fetchone()
        made = set()
        if extension:
            made = {row[0] for row in connection.execute(
                "SELECT hypertable_name FROM timescaledb_information.hypertables")}
    if has_timescaledb():
        assert extension is not None
        assert made == set(HYPERTABLES)
    else:
        assert extension is None and made == set()
    assert size > 0

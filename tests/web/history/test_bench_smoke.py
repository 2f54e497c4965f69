"""bench_history.py at a small size (50 queues, 20 minutes of 5-s polls, 2 days of 5-min
polls), so that the benchmark keeps working; its figures at 1,000 queues are in the store's
docstring and docs/benchmarks.md."""

from __future__ import annotations

from pathlib import Path

from tests.web.history.bench_history import retention_bytes, sizes, tally_time


def test_the_benchmark_runs_and_its_tally_answers_within_a_second(tmp_path: Path) -> None:
    small = sizes(tmp_path, 50, 1 / 3)
    assert small["samples"] == 240 and 0 < small["raw_bytes"] < small["minute_bytes"]
    month = tally_time(tmp_path, 50, 2)
    assert month["queues"] == 50
    assert month["tally_s"] < 1 and month["tally_filtered_s"] < 1
    assert retention_bytes(small["raw_bytes"], {60_000: small["minute_bytes"]}, 30) > 0

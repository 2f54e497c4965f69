"""The history's size and speed at the issue's scale (issue 32, point 8): 1,000 queues polled
every 5 s. Not a test (pytest collects ``test_*`` only); run it:

    PYTHONPATH=src:. python tests/web/history/bench_history.py [--queues 1000] [--smoke]

1. *Size per unit*: a few hours of 5-s samples of :class:`~tests.web.history.synthetic.BigCluster`
   written through ``History.add_rows``; the bytes of a raw sample, of a minute bucket and of
   an hour bucket, and so the size of a full retention (what a month, or a year, of polling
   settles at: the retention bounds it).
2. *Tally over 30 days*: 31 days of the same cluster sampled every 5 minutes (so the hour
   buckets hold moving numbers as at 5 s), then the Preemption Tuning tally over the last 30
   days — unfiltered, Monday–Friday 9–17 Europe/Paris, and Monday–Friday in New York (its
   days are not UTC days, so hour buckets answer) — and one queue's series.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from sqlalchemy import text

from fairshare.web.history.model import Window
from fairshare.web.history.retention import DAY_MS, DEFAULT_RETENTION, HOUR_MS, MINUTE_MS
from fairshare.web.history.store import History
from tests.web.history.synthetic import BigCluster

T0 = 1_767_225_600_000


def sizes(folder: Path, queues: int, hours: float) -> dict[str, float]:
    cluster = BigCluster(queues)
    h = History.open(str(folder / "sizes.db"), poll_interval_ms=5_000)
    n = int(hours * 720)
    started = time.perf_counter()
    for k in range(n):
        h.add_rows(T0 + 5_000 * k, 1, cluster.names, cluster.step(), cluster.thresholds)
    per_add = (time.perf_counter() - started) / n
    with h.engine.connect() as c:
        raw = c.execute(text("SELECT avg(length(data)) FROM sample")).scalar_one()
        minute = c.execute(text("SELECT avg(length(data)) FROM bucket WHERE width_ms = :w"),
                           {"w": MINUTE_MS}).scalar_one()
        hour = c.execute(text("SELECT avg(length(data)) FROM bucket WHERE width_ms = :w"),
                         {"w": HOUR_MS}).scalar_one()
    total = h.size_bytes()
    h.close()
    return {"samples": n, "add_ms": per_add * 1000, "raw_bytes": raw, "minute_bytes": minute,
            "hour_bytes": hour or 0, "db_bytes": total}


def retention_bytes(raw: float, per_width: dict[int, float], days: float) -> float:
    """The size ``days`` of 5-s polling settles at under the default retention."""
    r = DEFAULT_RETENTION
    total = min(r.raw_ms, days * DAY_MS) / 5_000 * raw
    for width, kept in r.tiers:
        total += min(kept, days * DAY_MS) / width * per_width.get(width, 0.0)
    return total


def tally_time(folder: Path, queues: int, days: int) -> dict[str, float]:
    cluster = BigCluster(queues)
    every = 300_000
    h = History.open(str(folder / "month.db"), poll_interval_ms=every)
    n = days * DAY_MS // every
    started = time.perf_counter()
    for k in range(n):
        h.add_rows(T0 + every * k, 1, cluster.names, cluster.step(), cluster.thresholds)
    write_s = time.perf_counter() - started
    end = T0 + every * n
    window = Window(end - 30 * DAY_MS, end)
    out: dict[str, float] = {"write_s": write_s, "db_bytes": h.size_bytes()}
    with h.engine.connect() as c:
        for width, size in c.execute(text(
                "SELECT width_ms, avg(length(data)) FROM bucket GROUP BY width_ms")):
            out[f"bucket_{width // 1000}s_bytes"] = size
    for label, w in (("tally_s", window),
                     ("tally_filtered_s", Window(window.start_ms, window.end_ms,
                                                 weekdays=frozenset(range(5)),
                                                 hours=frozenset(range(9, 17)),
                                                 timezone="Europe/Paris")),
                     # days that are not UTC days: the hour buckets answer, ~520 of them
                     ("tally_weekdays_new_york_s", Window(window.start_ms, window.end_ms,
                                                          weekdays=frozenset(range(5)),
                                                          timezone="America/New_York"))):
        started = time.perf_counter()
        got = h.tally(w)
        out[label] = time.perf_counter() - started
        out["queues"] = len(got)
    started = time.perf_counter()
    h.series(cluster.names[-1], window.start_ms, window.end_ms)
    out["series_s"] = time.perf_counter() - started
    h.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--queues", type=int, default=1000)
    parser.add_argument("--hours", type=float, default=2.5)
    parser.add_argument("--days", type=int, default=31)
    parser.add_argument("--smoke", action="store_true", help="50 queues, 20 min, 2 days")
    args = parser.parse_args()
    if args.smoke:
        args.queues, args.hours, args.days = 50, 1 / 3, 2
    with tempfile.TemporaryDirectory() as folder:
        small = sizes(Path(folder), args.queues, args.hours)
        for key, value in small.items():
            print(f"sizes  {key:22} {value:,.1f}")
        month = tally_time(Path(folder), args.queues, args.days)
        for key, value in month.items():
            print(f"tally  {key:22} {value:,.3f}")
    widths = {MINUTE_MS: small["minute_bytes"], HOUR_MS: small["hour_bytes"] or
              month.get("bucket_3600s_bytes", 0.0), DAY_MS: month.get("bucket_86400s_bytes", 0.0)}
    for days in (30, 400, 1096):
        size = retention_bytes(small["raw_bytes"], widths, days)
        print(f"size after {days} days of 5-s polls: {size / 1e6:,.0f} MB")


if __name__ == "__main__":
    main()

"""Benchmark: what watching a large ResourceManager costs (issue 32, point 8).

* **Polling**: a 5,000-node, 1,021-queue (root, 20 parents × 50 leaves), 10,000-app RM
  (answers generated in Hadoop 3.4's shapes by bench/rm_answers.py and served from a process
  of its own by bench/rm_serve.py, so only the watcher is measured) polled every 5 s: the CPU
  seconds one poll takes (HTTP, parsing, the history written), as a share of the interval —
  target under 10 % of one core — and the process's peak memory, target under 300 MB.
* **History** (tests/web/history/bench_history.py's measures): the bytes of a raw sample and
  of a minute and an hour bucket of 1,021 queues, from 2.5 hours of 5-second samples, and so
  the size a month of 5-second polls settles at under the default retention (queues only: the
  apps' and nodes' rows depend on the cluster's churn, see docs/watch.md) against the size
  docs/watch.md states; and the Preemption Tuning tally over 30 days (31 days written at
  5-minute polls, so that it runs in minutes; a bucket costs the same to read either way),
  target under 1 s.

Each figure is printed beside its target and the ratio to it (JSON on the last line).

    python bench/watch.py            # full size (the month takes several minutes)
    python bench/watch.py --smoke    # tiny, for CI
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import fairshare.watch.app  # noqa: F401 — the pages' imports count in the process's memory
from fairshare.watch.client import RMClient
from fairshare.watch.service import APPS_INTERVAL_S, NODES_INTERVAL_S, Watcher
from fairshare.web.history.store import History

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))  # the history's measures live beside its tests
from fairshare.web.history.retention import DAY_MS, HOUR_MS, MINUTE_MS  # noqa: E402
from rm_answers import Cluster  # noqa: E402
from tests.web.history import bench_history  # noqa: E402

INTERVAL_S = 5.0
TARGET_CPU_SHARE, TARGET_MB, TARGET_TALLY_S = 0.10, 300.0, 1.0
STATED_MONTH_MB = 600  # docs/watch.md "Retention": a month of 1,000 queues at 5 s


def poll_cost(cluster: Cluster, polls: int, db: Path) -> dict[str, float]:
    server = subprocess.Popen(
        [sys.executable, str(HERE / "rm_serve.py"), str(cluster.parents),
         str(cluster.leaves_per_parent), str(cluster.nodes), str(cluster.apps),
         str(polls + 1)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().split()[1])
        history = History.open(str(db), poll_interval_ms=int(INTERVAL_S * 1000))
        clock = _Clock()  # the polls' schedule in simulated seconds: 5 s apart
        watcher = Watcher(RMClient([f"http://127.0.0.1:{port}"]), history, None, INTERVAL_S,
                          apps_interval_s=APPS_INTERVAL_S, nodes_interval_s=NODES_INTERVAL_S,
                          clock=clock)
        watcher.poll_once()  # the first poll also creates every app's and node's record
        cpu, wall = [], []
        for _ in range(polls):
            clock.now += INTERVAL_S
            c0, w0 = time.process_time(), time.perf_counter()
            latest = watcher.poll_once()
            cpu.append(time.process_time() - c0)
            wall.append(time.perf_counter() - w0)
            assert latest.stats.last_error is None, latest.stats.last_error
        history.close()
    finally:
        server.kill()
        server.wait()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    per_poll = sum(cpu) / len(cpu)  # over whole cycles of the apps' and nodes' intervals
    return {"polls": polls, "cpu_s_per_poll_mean": round(per_poll, 3),
            "cpu_s_per_poll_max": round(max(cpu), 3),
            "wall_s_per_poll_mean": round(sum(wall) / len(wall), 3),
            "cpu_share_of_one_core": round(per_poll / INTERVAL_S, 4), "peak_mb": round(peak_mb)}


class _Clock:
    """The watcher's clock in the benchmark: polls 5 s apart without waiting 5 s."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def history_cost(queues: int, hours: float, days: int, folder: Path) -> dict[str, float]:
    """tests/web/history/bench_history.py's two measures: the bytes of a raw sample, a
    minute and an hour bucket from ``hours`` of 5-s samples, and so the size a month (and a
    full retention) of 5-s polls settles at; then the Preemption Tuning tally over the last 30
    of ``days`` days."""
    small = bench_history.sizes(folder, queues, hours)
    month = bench_history.tally_time(folder, queues, days)
    widths = {MINUTE_MS: small["minute_bytes"],
              HOUR_MS: small["hour_bytes"] or month.get("bucket_3600s_bytes", 0.0),
              DAY_MS: month.get("bucket_86400s_bytes", 0.0)}
    return {"raw_sample_bytes": round(small["raw_bytes"]),
            "minute_bucket_bytes": round(small["minute_bytes"]),
            "hour_bucket_bytes": round(widths[HOUR_MS]),
            "add_ms": round(small["add_ms"], 2),
            "month_mb": round(bench_history.retention_bytes(small["raw_bytes"], widths, 30)
                              / 1e6),
            "bound_mb": round(bench_history.retention_bytes(small["raw_bytes"], widths, 1096)
                              / 1e6),
            "tally_30_days_s": round(month["tally_s"], 3),
            "tally_30_days_filtered_s": round(month["tally_filtered_s"], 3),
            "series_30_days_s": round(month["series_s"], 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, for CI")
    args = parser.parse_args()
    if args.smoke:
        big, polls, hours, days = Cluster(2, 5, 50, 100), 12, 1 / 3, 2
    else:
        # 24 polls: two minutes, two cycles of the nodes' interval, eight of the apps'
        big, polls, hours, days = Cluster(20, 50, 5_000, 10_000), 24, 2.5, 31
    queues = 1 + big.parents * (1 + big.leaves_per_parent)
    with tempfile.TemporaryDirectory() as tmp:
        cost = poll_cost(big, polls, Path(tmp) / "poll.db")
        month = history_cost(queues, hours, days, Path(tmp))
    result = {
        "cluster": {"nodes": big.nodes, "queues": queues, "apps": big.apps},
        "poll": cost, "history": month,
        "ratios": {"cpu_share_to_target": round(cost["cpu_share_of_one_core"]
                                                / TARGET_CPU_SHARE, 3),
                   "peak_mb_to_target": round(cost["peak_mb"] / TARGET_MB, 3),
                   "tally_s_to_target": round(month["tally_30_days_s"] / TARGET_TALLY_S, 3),
                   "month_mb_to_stated": round(month["month_mb"] / STATED_MONTH_MB, 3)},
        "smoke": args.smoke,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()

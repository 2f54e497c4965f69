"""Benchmark: what watching a large ResourceManager costs (issue 32, point 8).

* **Polling**: a 5,000-node, 1,021-queue (root, 20 parents × 50 leaves), 10,000-app RM
  (answers generated in Hadoop 3.4's shapes by bench/rm_answers.py and served from a process
  of its own by bench/rm_serve.py, so only the watcher is measured) polled every 5 s: the CPU
  seconds one poll takes (HTTP, parsing, the history written), as a share of the interval —
  target under 10 % of one core — and the process's peak memory, target under 300 MB.
* **History**: a month of 5-second samples of 1,000 queues written to the SQLite history
  (queues only: the apps and nodes of a month depend on the cluster's churn, see
  docs/watch.md) with the watcher's pruning, its size on disk against the size docs/watch.md
  states, and the Preemption Tuning tally over those 30 days, target under 1 s.

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

from fairshare.web.history.store import History

from fairshare.watch.client import RMClient
from fairshare.watch.service import APPS_INTERVAL_S, NODES_INTERVAL_S, Watcher
from fairshare.web.history.model import Window

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from rm_answers import Cluster, answers  # noqa: E402

INTERVAL_S = 5.0
TARGET_CPU_SHARE, TARGET_MB, TARGET_TALLY_S = 0.10, 300.0, 1.0
MONTH_MS = 30 * 86_400_000


def poll_cost(cluster: Cluster, polls: int, db: Path) -> dict[str, float]:
    server = subprocess.Popen(
        [sys.executable, str(HERE / "rm_serve.py"), str(cluster.parents),
         str(cluster.leaves_per_parent), str(cluster.nodes), str(cluster.apps),
         str(polls + 1)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline().split()[1])
        history = History.open(str(db))
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


def month_of_queues(cluster: Cluster, span_ms: int, db: Path) -> dict[str, float]:
    """Queue samples only, every 5 s over ``span_ms``, pruned as the watcher prunes."""
    from fairshare.sim.importer.dump import read_scheduler
    from fairshare.sim.importer.jsonfile import JsonFile
    from fairshare.web.sample import Sample

    trees = []
    for tick in range(4):
        text = answers(Cluster(cluster.parents, cluster.leaves_per_parent, 10, 0), tick)
        root, total = read_scheduler(JsonFile(text["scheduler.json"], "scheduler", lines=False))
        trees.append((root, total))
    history = History.open(str(db))
    start = 1_796_000_000_000
    step = int(INTERVAL_S * 1000)
    t0 = time.perf_counter()
    for i, at in enumerate(range(start, start + span_ms, step)):
        root, total = trees[i % 4]
        history.add(Sample(at, "bench", 1, "3.4.1", root, total, (), ()), {})
        if i % 720 == 0:  # every hour of samples, as the watcher's prune every 5 minutes
            history.prune(at)
    history.prune(start + span_ms)
    write_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    tally = history.tally(Window(start, start + span_ms))
    tally_s = time.perf_counter() - t1
    size_mb = history.size_bytes() / 2**20
    history.close()
    return {"samples": span_ms // step, "queues": len(tally), "write_s": round(write_s, 1),
            "size_mb": round(size_mb, 1), "tally_s": round(tally_s, 3)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, for CI")
    args = parser.parse_args()
    if args.smoke:
        big, polls, span = Cluster(2, 5, 50, 100), 12, 3_600_000
    else:
        # 24 polls: two minutes, two cycles of the nodes' interval, eight of the apps'
        big, polls, span = Cluster(20, 50, 5_000, 10_000), 24, MONTH_MS
    with tempfile.TemporaryDirectory() as tmp:
        cost = poll_cost(big, polls, Path(tmp) / "poll.db")
        month = month_of_queues(big, span, Path(tmp) / "month.db")
    result = {
        "cluster": {"nodes": big.nodes, "queues": 1 + big.parents * (1 + big.leaves_per_parent),
                    "apps": big.apps},
        "poll": cost, "history": month,
        "ratios": {"cpu_share_to_target": round(cost["cpu_share_of_one_core"]
                                                / TARGET_CPU_SHARE, 3),
                   "peak_mb_to_target": round(cost["peak_mb"] / TARGET_MB, 3),
                   "tally_s_to_target": round(month["tally_s"] / TARGET_TALLY_S, 3)},
        "smoke": args.smoke,
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()

"""Micro-benchmark: the CPU one REST read and one pages sample cost at a large cluster.

An engine loop (virtual executor, a hand-moved clock, in this process) with ``--nodes``
NodeManagers of 64 GB/32 vcores, ``--ended`` apps that ran and ended, and ``--running`` apps
of 1-9 containers each still running; then, over a few snapshots one heartbeat interval apart
(every node's lastHealthUpdate moves), the CPU time (``time.thread_time``: this thread's,
not the engine thread's) of rendering
``/apps``, ``/nodes``, ``/scheduler``, ``/metrics`` as the routes do — the first read of a
snapshot, and a repeat of the same snapshot (many clients) — and of a pages sample
(``answers_of`` + ``sample_of``). Figures as JSON on stdout.

    PYTHONPATH=src python bench/rest_cpu.py                    # 5,000 nodes, 2,000 + 200 apps
    PYTHONPATH=src python bench/rest_cpu.py --nodes 500 --ended 200 --running 50
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fairshare.server import pages
from fairshare.server.loop import NodeSpec
from fairshare.server.pages import answers_of
from fairshare.server.rest import dao_apps, dao_cluster, dao_nodes, daos
from fairshare.server.rest.jersey import to_json
from fairshare.server.rest.query import apps_query, node_states
from fairshare.server.view import ServerSnapshot
from fairshare.sim.sources.workload import TaskGroup
from fairshare.web import answers
from fairshare.web.answers import sample_of
from tests.server.loopkit import mb, running_loop, settle, submission

TS = 1_800_000_000_000


def submit_all(loop: Any, subs: list[Any]) -> None:
    """Submit from many threads at once: the engine thread takes them in a few batches, one
    snapshot per batch (one at a time, each would publish a snapshot of every node)."""
    with ThreadPoolExecutor(64) as pool:
        list(pool.map(loop.submit, subs))


def add_nodes(loop: Any, specs: list[Any]) -> None:
    with ThreadPoolExecutor(64) as pool:
        list(pool.map(loop.add_node, specs))


def cpu_ms(work: Callable[[], object], repeat: int) -> float:
    """The median CPU ms of ``work`` over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        t0 = time.thread_time()
        work()
        times.append((time.thread_time() - t0) * 1000)
    times.sort()
    return times[len(times) // 2]


def reads(s: ServerSnapshot) -> dict[str, Callable[[], object]]:
    """What each route does for an unfiltered JSON read of ``s`` (rest/app.py): through the
    whole-answer memo where there is one (``*_answer``), else as the routes did before it."""
    query = apps_query(state=None, states=[], final_status=None, user=None, queue=None,
                       limit=None, started_begin=None, started_end=None, finished_begin=None,
                       finished_end=None, application_types=[], application_tags=[],
                       name=None, deselects=[])
    if not hasattr(dao_cluster, "scheduler_answer"):  # before the memo
        return {
            "/apps": lambda: daos.apps_json(s, query.select(daos.app_order(s, s.apps)),
                                            caller="dr.who", rm_address="localhost:8088"),
            "/nodes": lambda: daos.nodes_json(s, daos.node_order(s.nodes)),
            "/scheduler": lambda: to_json(daos.scheduler(s)),
            "/metrics": lambda: to_json(daos.cluster_metrics(s)),
        }
    everything = node_states(None)
    return {
        "/apps": lambda: dao_apps.apps_answer(
            s, query, dao_apps.selected(s, query, query.select), caller="dr.who",
            rm_address="localhost:8088"),
        "/nodes": lambda: dao_nodes.nodes_answer(s, everything),
        "/scheduler": lambda: dao_cluster.scheduler_answer(s),
        "/metrics": lambda: dao_cluster.metrics_answer(s),
    }


def pages_sample(s: ServerSnapshot, reader: Any) -> Callable[[], object]:
    """A pages sample of ``s``: the answers rendered and read back (``ServePages.sample``)."""
    if reader is None:  # before the record memo
        return lambda: sample_of(answers_of(s), rm="x", time_ms=s.now_ms)
    return lambda: reader.sample(*pages.answers_and_records(s), rm="x", time_ms=s.now_ms)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--nodes", type=int, default=5000)
    p.add_argument("--ended", type=int, default=2000)
    p.add_argument("--running", type=int, default=200)
    p.add_argument("--snapshots", type=int, default=3)
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.time()
        with running_loop(Path(tmp), nodes=0, journal=False) as (loop, clock):
            add_nodes(loop, [NodeSpec(f"host{i:05d}.example.com:45454", mb(65536, 32))
                             for i in range(args.nodes)])
            settle(loop, clock, 1000)
            queues = ("root.a", "root.b")
            submit_all(loop, [submission(f"application_{TS}_{n:04d}", rng.choice(queues),
                                         tasks=(TaskGroup(1, mb(1024), 1000),))
                              for n in range(1, args.ended + 1)])
            settle(loop, clock, 2000)
            settle(loop, clock, 8000)
            submit_all(loop, [submission(f"application_{TS}_{n:04d}", rng.choice(queues),
                                         tasks=(TaskGroup(rng.randint(0, 8), mb(2048),
                                                          3_600_000),))
                              for n in range(args.ended + 1, args.ended + args.running + 1)])
            settle(loop, clock, 10_000)
            print(f"set up in {time.time() - t0:.1f} s", file=sys.stderr)
            figures: dict[str, list[float]] = {}
            reader = answers.SampleReader() if hasattr(answers, "SampleReader") else None
            for k in range(args.snapshots):
                settle(loop, clock, 11_000 + 1000 * k)  # a heartbeat round later
                s = loop.snapshot()
                states = [a.state for a in s.apps]
                if k == 0:
                    print(f"{len(s.nodes)} nodes, {len(s.apps)} apps, "
                          f"{states.count('RUNNING')} running", file=sys.stderr)
                for name, work in reads(s).items():
                    figures.setdefault(f"{name} first", []).append(cpu_ms(work, 1))
                    figures.setdefault(f"{name} again", []).append(cpu_ms(work, args.repeat))
                figures.setdefault("pages sample", []).append(cpu_ms(pages_sample(s, reader), 1))
    out = {name: round(sum(v[1:]) / max(1, len(v) - 1), 2) for name, v in figures.items()}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

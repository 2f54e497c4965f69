"""Benchmark: ``fairshare serve`` under load (issue 34, point 6).

A server is started as a process of its own (``fairshare serve --executor virtual`` on
127.0.0.1, a free port, a temporary ``--out``) with ``--nodes N``x64g/32: N virtual
NodeManagers, each heartbeating once per ``yarn.resourcemanager.nodemanagers.heartbeat-
interval-ms`` (1 s), applied by the engine loop. Then, for ``--minutes``, ``--clients``
concurrent REST clients (one connection each) each send a request, wait a think time
(exponential, mean ``--think-ms``) and send the next: reads of ``/ws/v1/cluster/scheduler``,
``/apps``, ``/apps/{id}``, ``/metrics`` and ``/nodes``; submissions (``new-application``, then
``POST /apps`` of an app whose tasks run for a while in the virtual executor); kills
(``PUT /apps/{id}/state``) of the client's own running apps. Measured:

* the heartbeat rate held: heartbeats applied per second of wall (``GET /ws/v1/fairshare/loop``,
  sampled every second) against N per heartbeat interval, and the engine's lag behind the
  clock (how late it took what was due);
* latency: p50/p99 of the reads (target p99 <= 50 ms) and of the submissions
  (new-application + POST, each; target p99 <= 200 ms) — the reference is the same reads,
  one at a time, against the same server idle (its NodeManagers heartbeating, no client),
  measured first in the same run;
* nothing lost: every response 2xx or the code expected (a kill of an app that ended meanwhile
  is 200), and every submission accepted is in ``/apps`` at the end — or it ended (the
  session's ``events.jsonl`` says) and the RM forgot it, as YARN's does past
  ``yarn.resourcemanager.max-completed-applications`` (1,000) ended apps, holding that many;
  a read or a kill of an app is 404 only for such an app;
* memory: the server's RSS (psutil) every second; the trend after warm-up (the first fifth of
  the run) and over the second half as MB per minute (least squares), and the last minute's
  mean against warm-up's end. At full size the RM holds more ended apps until it holds
  ``max-completed-applications`` of them (about half-way through 10 minutes), so the trend
  after warm-up counts that filling and the second half's is the steady state's;
* the load generator itself: its CPU seconds per second of wall and how late each of its
  event loops wakes (a 10 ms timer's overshoot), since a client busy reading a 9 MB ``/nodes``
  answer delays the timing of every other request of its process. ``--client-processes K``
  spreads the clients over K processes (each its own event loop) so that one answer's reading
  does not hold up the others' clocks. ``--client`` is the HTTP library the timed requests
  go through: aiohttp (the default: its parser is compiled, as a Java or a curl client's
  is) or httpx, whose pure-Python reading of a 9 MB ``/nodes`` answer, 64 KiB at a time,
  adds 15-25 ms to it on these machines (idle: 23-50 ms against aiohttp's 11-23 and curl's
  10-19) — the client's time, not the server's; both are measured in docs/benchmarks.md.

Progress goes to stderr; the figures are JSON on stdout's last line, with the ratios to the
targets and to the idle reference. The server is stopped by its pid (SIGTERM, then SIGKILL).
A lost request (an unexpected answer, an accepted app missing) exits 1, at any size; the
timings are the figures' business, not the exit code's (machines differ).

    python bench/serve_load.py                 # 5,000 NodeManagers, 100 clients, 10 minutes
    python bench/serve_load.py --smoke         # 200 NodeManagers, 10 clients, ~20 s (CI)
    python bench/serve_load.py --nodes 1000 --clients 50 --minutes 2
    python bench/serve_load.py --client-processes 2   # the clients in two processes
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import concurrent.futures
import contextlib
import json
import multiprocessing
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import psutil

CLUSTER = "/ws/v1/cluster"
LOOP = "/ws/v1/fairshare/loop"
USER = "load"
QUEUES = ("root.a", "root.b", "root.c")
ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <queue name="a"><weight>1</weight></queue>
  <queue name="b"><weight>2</weight></queue>
  <queue name="c"><weight>1</weight></queue>
</allocations>
"""
TARGET_READ_P99_MS, TARGET_SUBMIT_P99_MS = 50.0, 200.0
MAX_COMPLETED_APPS = 1000  # yarn.resourcemanager.max-completed-applications' default
SITE = """<?xml version="1.0"?>
<configuration>
  <property><name>yarn.resourcemanager.max-completed-applications</name>
    <value>{max_completed}</value></property>
</configuration>
"""
KEEPALIVE_S = 3.0
HEARTBEAT_S = 1.0  # YARN's default heartbeat interval, which the server runs with here
# what a client does next, by weight (per cent): mostly the reads of clients polling their own
# apps and of dashboards (the big lists, /apps and the 5,000 /nodes, less often), a
# submission (3 %: with 100 clients about 3 apps a second, 260,000 a day — a busy cluster), a
# kill of one of its own apps
MIX = (("scheduler", 15), ("apps", 3), ("app", 40), ("metrics", 20), ("nodes", 2),
       ("info", 16), ("submit", 3), ("kill", 1))
READS = ("scheduler", "apps", "app", "metrics", "nodes", "info")
READ_PATHS = {"scheduler": f"{CLUSTER}/scheduler", "apps": f"{CLUSTER}/apps",
              "metrics": f"{CLUSTER}/metrics", "nodes": f"{CLUSTER}/nodes",
              "info": f"{CLUSTER}/info"}


def log(message: str) -> None:
    print(f"[serve_load {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


# -- the server ----------------------------------------------------------------------------------

@dataclass
class Server:
    process: subprocess.Popen[str]
    base: str
    out: Path

    def stop(self) -> int:
        """SIGTERM by pid (the server stops gracefully), SIGKILL if it has not in 60 s."""
        if self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        return self.process.returncode


def start_server(nodes: int, tmp: Path, stacks: Path | None, store: bool = False,
                 max_completed: int = MAX_COMPLETED_APPS) -> Server:
    allocations = tmp / "fair-scheduler.xml"
    allocations.write_text(ALLOCATIONS, encoding="utf-8")
    site = tmp / "yarn-site.xml"
    site.write_text(SITE.format(max_completed=max_completed), encoding="utf-8")
    out = tmp / "session"
    command = ([sys.executable, "-m", "fairshare"] if stacks is None else
               [sys.executable, str(Path(__file__).parent / "stack_sampler.py"), str(stacks)])
    process = subprocess.Popen(
        [*command, "serve", str(allocations),
         "--nodes", f"{nodes}x64g/32", "--executor", "virtual", "--listen", "127.0.0.1:0",
         "--out", str(out), "--log-level", "warning", "--site", str(site),
         *(["--store", str(tmp / "state.db")] if store else [])],
        stdout=subprocess.PIPE, stderr=sys.stderr, text=True,
        env={**os.environ, "COLUMNS": "1000"})
    assert process.stdout is not None
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise SystemExit(f"the server exited ({process.wait(timeout=10)}) before serving")
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        if found:
            return Server(process, f"http://127.0.0.1:{found.group(1)}", out)
    process.kill()
    raise SystemExit("the server did not say where it serves within 300 s")


# -- measures ------------------------------------------------------------------------------------

def pct(values: list[float], p: float) -> float:
    """The p-th percentile, nearest rank (0 without values)."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(p / 100 * len(ordered)) - 1))]


def summary(values: list[float]) -> dict[str, float]:
    return {"n": len(values), "p50_ms": round(pct(values, 50), 2),
            "p99_ms": round(pct(values, 99), 2), "max_ms": round(max(values, default=0), 2)}


def slope_per_minute(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, value), per minute."""
    if len(points) < 2:
        return 0.0
    mt = statistics.fmean(t for t, _ in points)
    mv = statistics.fmean(v for _, v in points)
    den = sum((t - mt) ** 2 for t, _ in points)
    return 0.0 if den == 0 else 60 * sum((t - mt) * (v - mv) for t, v in points) / den


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=dict)
    unexpected: list[str] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)
    killed: int = 0
    kill_after_end: int = 0
    # apps a read or a kill found gone (404): forgotten by the RM once more than
    # yarn.resourcemanager.max-completed-applications (1,000) others had ended since
    forgotten: set[str] = field(default_factory=set)
    recent_reads: collections.deque[float] = field(
        default_factory=lambda: collections.deque(maxlen=5000))  # for the progress lines
    cpu_s: float = 0.0  # the clients' process's CPU time while they ran
    loop_lag_ms: list[float] = field(default_factory=list)  # its event loop's late wake-ups

    def add(self, kind: str, ms: float) -> None:
        self.latencies.setdefault(kind, []).append(ms)
        if kind in READS:
            self.recent_reads.append(ms)

    def merge(self, other: Tally) -> None:
        for kind, values in other.latencies.items():
            self.latencies.setdefault(kind, []).extend(values)
        self.unexpected += other.unexpected
        self.accepted += other.accepted
        self.killed += other.killed
        self.kill_after_end += other.kill_after_end
        self.forgotten |= other.forgotten
        self.cpu_s += other.cpu_s
        self.loop_lag_ms += other.loop_lag_ms


@dataclass
class Samples:
    rss_mb: list[tuple[float, float]] = field(default_factory=list)  # (s since load start, MB)
    loop: list[tuple[float, dict[str, Any]]] = field(default_factory=list)


async def sampler(server: Server, samples: Samples, stop: asyncio.Event, t0: float) -> None:
    proc = psutil.Process(server.process.pid)
    async with httpx.AsyncClient(base_url=server.base, timeout=30) as client:
        while not stop.is_set():
            now = time.monotonic() - t0
            samples.rss_mb.append((now, proc.memory_info().rss / 2**20))
            try:
                answer = await client.get(LOOP)
                samples.loop.append((now, answer.json()))
            except httpx.HTTPError:
                pass
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 1.0)


@dataclass
class Answer:
    status_code: int
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class Client:
    """One timed client's connection (one at most, kept alive ``KEEPALIVE_S``: let go of
    before the server's 5 s, uvicorn's ``timeout_keep_alive``, would close it under a
    request on its way), through the library ``--client`` names; every request with
    ``?user.name=``, its whole body read."""

    def __init__(self, library: str, base: str) -> None:
        self.library, self.base = library, base
        self._httpx: httpx.AsyncClient | None = None
        self._aiohttp: aiohttp.ClientSession | None = None

    async def __aenter__(self) -> Client:
        if self.library == "httpx":
            self._httpx = httpx.AsyncClient(
                base_url=self.base, timeout=60, params={"user.name": USER},
                limits=httpx.Limits(max_connections=1, keepalive_expiry=KEEPALIVE_S))
        else:
            self._aiohttp = aiohttp.ClientSession(
                self.base, timeout=aiohttp.ClientTimeout(total=60),
                connector=aiohttp.TCPConnector(limit=1, keepalive_timeout=KEEPALIVE_S))
        return self

    async def __aexit__(self, *_: object) -> None:
        if self._httpx is not None:
            await self._httpx.aclose()
        if self._aiohttp is not None:
            await self._aiohttp.close()

    async def request(self, method: str, path: str, json: Any = None) -> Answer:
        """The answer; a failure to get one is :class:`OSError` (or a library's own
        error, both caught by :func:`timed`)."""
        if self._httpx is not None:
            answer = await self._httpx.request(method, path, json=json)
            return Answer(answer.status_code, answer.content)
        assert self._aiohttp is not None
        async with self._aiohttp.request(method, path, json=json,
                                         params={"user.name": USER}) as response:
            return Answer(response.status, await response.read())


FAILURES = (httpx.HTTPError, aiohttp.ClientError, OSError, asyncio.TimeoutError)


async def timed(client: Client, tally: Tally, kind: str, method: str, path: str,
                expected: tuple[int, ...], json: Any = None) -> Answer | None:
    start = time.perf_counter()
    try:
        answer = await client.request(method, path, json=json)
    except FAILURES as e:
        tally.unexpected.append(f"{kind} {path}: {type(e).__name__} {e}")
        return None
    tally.add(kind, (time.perf_counter() - start) * 1000)
    if answer.status_code not in expected:
        tally.unexpected.append(f"{kind} {path}: {answer.status_code} "
                                f"{answer.body[:200].decode('utf-8', 'replace')}")
        return None
    return answer


def ended_apps(events: Path) -> set[str]:
    """The apps the session's events say ended (``app-finished``: finished or killed)."""
    ended = set()
    with events.open(encoding="utf-8") as lines:
        for line in lines:
            if '"app-finished"' in line:
                record = json.loads(line)
                if record.get("type") == "app-finished":
                    ended.add(record["app"])
    return ended


def submission(app_id: str, rng: random.Random) -> dict[str, Any]:
    # an AM, then tasks running 20-90 s: the app runs for a while, and some are killed first
    return {"application-id": app_id, "application-name": "load",
            "queue": rng.choice(QUEUES), "resource": {"memory": 1024, "vCores": 1},
            "am-container-spec": {"commands": {"command": "unused"}},
            "fairshare": {"tasks": [{"count": rng.randint(1, 8), "memory-mb": 2048,
                                     "vcores": 1, "duration-ms": rng.randint(20, 90) * 1000,
                                     "priority": 20}]}}


async def client_loop(index: int, base: str, library: str, tally: Tally, until: float,
                      think_s: float, seed: int) -> None:
    rng = random.Random(seed * 1000 + index)
    kinds = [k for k, _ in MIX]
    weights = [w for _, w in MIX]
    mine: list[str] = []  # this client's apps, newest last
    async with Client(library, base) as client:
        await asyncio.sleep(rng.uniform(0, think_s))  # not all at once
        while time.monotonic() < until:
            kind = rng.choices(kinds, weights)[0]
            if kind in ("app", "kill") and not mine:
                kind = "submit"
            if kind == "app":
                app_id = rng.choice(mine)
                answer = await timed(client, tally, "app", "GET", f"{CLUSTER}/apps/{app_id}",
                                     (200, 404))
                if answer is not None and answer.status_code == 404:
                    tally.forgotten.add(app_id)
                    mine.remove(app_id)
            elif kind in READ_PATHS:
                await timed(client, tally, kind, "GET", READ_PATHS[kind], (200,))
            elif kind == "submit":
                answer = await timed(client, tally, "new-application", "POST",
                                     f"{CLUSTER}/apps/new-application", (200,))
                if answer is not None:
                    app_id = answer.json()["application-id"]
                    if await timed(client, tally, "submit", "POST", f"{CLUSTER}/apps", (202,),
                                   json=submission(app_id, rng)) is not None:
                        tally.accepted.append(app_id)
                        mine.append(app_id)
            else:  # kill: 202 FINAL_SAVING while it runs, 200 once it has ended
                app_id = mine.pop(rng.randrange(len(mine)))
                answer = await timed(client, tally, "kill", "PUT",
                                     f"{CLUSTER}/apps/{app_id}/state", (200, 202, 404),
                                     json={"state": "KILLED"})
                if answer is not None and answer.status_code == 404:
                    tally.forgotten.add(app_id)
                elif answer is not None:
                    tally.killed += 1
                    tally.kill_after_end += answer.status_code == 200
            del mine[:-50]  # poll the recent ones
            await asyncio.sleep(rng.expovariate(1 / think_s) if think_s > 0 else 0)


async def loop_lag(tally: Tally, until: float) -> None:
    """How late this process's event loop wakes from a 10 ms sleep, while the clients run."""
    while time.monotonic() < until:
        start = time.perf_counter()
        await asyncio.sleep(0.01)
        tally.loop_lag_ms.append(max(0.0, (time.perf_counter() - start) * 1000 - 10))


async def client_share(tally: Tally, indexes: range, base: str, library: str, until: float,
                       think_s: float, seed: int) -> Tally:
    """The clients numbered ``indexes``, in this process, until ``until`` (monotonic: one
    clock for every process of the machine), counted in ``tally``."""
    cpu = time.process_time()
    await asyncio.gather(loop_lag(tally, until),
                         *(client_loop(i, base, library, tally, until, think_s, seed)
                           for i in indexes))
    tally.cpu_s += time.process_time() - cpu
    return tally


def client_process(indexes: range, base: str, library: str, until: float, think_s: float,
                   seed: int) -> Tally:
    """:func:`client_share` in a process of its own."""
    return asyncio.run(client_share(Tally(), indexes, base, library, until, think_s, seed))


def shares(clients: int, processes: int) -> list[range]:
    """The clients' numbers split over the processes as evenly as they go."""
    return [range(clients * k // processes, clients * (k + 1) // processes)
            for k in range(processes)]


async def idle_reference(server: Server, library: str, seconds: float
                         ) -> dict[str, dict[str, float]]:
    """The reads, one at a time, against the server with no client but this one."""
    tally = Tally()
    until = time.monotonic() + seconds
    async with Client(library, server.base) as client:
        # one app of its own for /apps/{id}
        new = await client.request("POST", f"{CLUSTER}/apps/new-application")
        app_id = new.json()["application-id"]
        posted = await client.request("POST", f"{CLUSTER}/apps",
                                      json=submission(app_id, random.Random(0)))
        assert posted.status_code == 202, posted.body
        paths = dict(READ_PATHS, app=f"{CLUSTER}/apps/{app_id}")
        while time.monotonic() < until:
            for kind in READS:
                await timed(client, tally, kind, "GET", paths[kind], (200,))
            await asyncio.sleep(0.05)
    assert not tally.unexpected, tally.unexpected
    return {k: summary(v) for k, v in tally.latencies.items()} | {
        "reads": summary([x for k in READS for x in tally.latencies.get(k, [])])}


async def wait_ready(server: Server) -> None:
    async with httpx.AsyncClient(base_url=server.base, timeout=10) as client:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                if (await client.get(f"{CLUSTER}/info")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.5)
    raise SystemExit("the server did not answer within 300 s")


async def progress(samples: Samples, tally: Tally, stop: asyncio.Event, t0: float,
                   every_s: float) -> None:
    while not stop.is_set():
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), every_s)
        reads = list(tally.recent_reads)  # the last 5,000, in the mix they came in
        loop = samples.loop[-1][1] if samples.loop else {}
        rss = samples.rss_mb[-1][1] if samples.rss_mb else 0
        log(f"t={time.monotonic() - t0:5.0f} s  requests={sum(map(len, tally.latencies.values()))}"
            f"  reads p99 (recent)={pct(reads, 99):.1f} ms  accepted={len(tally.accepted)}"
            f"  unexpected={len(tally.unexpected)}  heartbeats={loop.get('heartbeats')}"
            f"  lag={loop.get('lag-ms')} ms  rss={rss:.0f} MB")


def heartbeat_rates(samples: Samples, start_s: float) -> dict[str, float]:
    """Heartbeats applied per second of wall over the load, and over each 10 s window."""
    points = [(t, s["heartbeats"]) for t, s in samples.loop if t >= start_s]
    if len(points) < 2:
        return {"mean_per_s": 0.0, "min_10s_per_s": 0.0}
    mean = (points[-1][1] - points[0][1]) / (points[-1][0] - points[0][0])
    windows = []
    j = 0
    for i in range(len(points)):
        while j < len(points) and points[j][0] - points[i][0] < 10:
            j += 1
        if j < len(points):
            windows.append((points[j][1] - points[i][1]) / (points[j][0] - points[i][0]))
    return {"mean_per_s": round(mean, 1),
            "min_10s_per_s": round(min(windows, default=mean), 1)}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="serve_load_") as tmp:
        log(f"starting fairshare serve with {args.nodes} NodeManagers")
        started = time.monotonic()
        server = start_server(args.nodes, Path(tmp), args.sample_stacks, args.store,
                              args.max_completed)
        try:
            await wait_ready(server)
            log(f"serving at {server.base} after {time.monotonic() - started:.1f} s; "
                f"idle reference for {args.idle_s:g} s")
            idle = await idle_reference(server, args.client, args.idle_s)
            log(f"idle reads p99 {idle['reads']['p99_ms']} ms; load: {args.clients} clients "
                f"for {args.minutes:g} min")
            tally, samples, stop = Tally(), Samples(), asyncio.Event()
            t0 = time.monotonic()
            duration = args.minutes * 60
            background = [asyncio.create_task(sampler(server, samples, stop, t0)),
                          asyncio.create_task(progress(samples, tally, stop, t0,
                                                       10 if args.smoke else 30))]
            split = shares(args.clients, args.client_processes)
            think_s, until = args.think_ms / 1000, t0 + duration
            # the first share here (the progress lines count its requests), the others in
            # processes of their own
            with concurrent.futures.ProcessPoolExecutor(
                    max_workers=max(1, len(split) - 1),
                    mp_context=multiprocessing.get_context("spawn")) as pool:
                others = [asyncio.get_running_loop().run_in_executor(
                    pool, client_process, indexes, server.base, args.client, until, think_s,
                    args.seed) for indexes in split[1:]]
                await client_share(tally, split[0], server.base, args.client, until, think_s,
                                   args.seed)
                for other in await asyncio.gather(*others):
                    tally.merge(other)
            stop.set()
            await asyncio.gather(*background)
            log("load over; checking every accepted submission is in /apps")
            async with httpx.AsyncClient(base_url=server.base, timeout=120) as client:
                listed = (await client.get(f"{CLUSTER}/apps")).json()
                loop_end = (await client.get(LOOP)).json()
                journal_bytes = (server.out / "session.yaml").stat().st_size
            kept = (listed.get("apps") or {}).get("app") or []
            ids = {a["id"] for a in kept}
            completed = sum(a["state"] in ("FINISHED", "FAILED", "KILLED") for a in kept)
        finally:
            code = server.stop()
            log(f"server stopped (exit {code})")
        # nothing lost: an accepted app is in /apps, or it ended (the session's events say)
        # and the RM forgot it, holding as many ended apps as it keeps; an app answered 404
        # is such an app too
        ended = ended_apps(server.out / "events.jsonl")
        at_limit = completed == args.max_completed
        missing = [a for a in tally.accepted
                   if a not in ids and not (a in ended and at_limit)]
        wrongly_gone = sorted(a for a in tally.forgotten if a in ids or a not in ended)
    warm = duration / 5
    rss_after = [(t, v) for t, v in samples.rss_mb if t >= warm]
    rss_second_half = [(t, v) for t, v in samples.rss_mb if t >= duration / 2]
    last_minute = [v for t, v in samples.rss_mb if t >= duration - 60]
    lags = [float(s["lag-ms"]) for t, s in samples.loop if t >= warm]
    reads = [x for k in READS for x in tally.latencies.get(k, [])]
    subs = tally.latencies.get("submit", [])
    news = tally.latencies.get("new-application", [])
    rates = heartbeat_rates(samples, warm)
    expected_rate = args.nodes / HEARTBEAT_S
    rss_warm = rss_after[0][1] if rss_after else 0.0
    result: dict[str, Any] = {
        "nodes": args.nodes, "clients": args.clients, "minutes": args.minutes,
        "think_ms": args.think_ms,
        "requests": sum(map(len, tally.latencies.values())),
        "requests_per_s": round(sum(map(len, tally.latencies.values())) / duration, 1),
        "idle": idle,
        "load": {k: summary(v) for k, v in sorted(tally.latencies.items())}
        | {"reads": summary(reads)},
        "heartbeats": {"expected_per_s": expected_rate, **rates,
                       "lag_ms": {"p50": pct(lags, 50), "p99": pct(lags, 99),
                                  "max_sampled": max(lags, default=0.0),
                                  "max_since_start": loop_end.get("max-lag-ms")}},
        "lost": {"unexpected_responses": len(tally.unexpected),
                 "examples": tally.unexpected[:5],
                 "accepted": len(tally.accepted), "missing_from_apps": len(missing),
                 "forgotten_by_the_rm": len([a for a in tally.accepted if a not in ids]),
                 "answered_404_not_forgotten": len(wrongly_gone),
                 "killed": tally.killed, "killed_after_they_ended": tally.kill_after_end},
        "memory": {"rss_start_mb": round(samples.rss_mb[0][1], 1) if samples.rss_mb else 0,
                   "rss_after_warmup_mb": round(rss_warm, 1),
                   "rss_last_minute_mb": round(statistics.fmean(last_minute), 1)
                   if last_minute else 0,
                   "rss_max_mb": round(max(v for _, v in samples.rss_mb), 1),
                   "slope_after_warmup_mb_per_min": round(slope_per_minute(rss_after), 2),
                   "slope_second_half_mb_per_min": round(slope_per_minute(rss_second_half),
                                                         2)},
        "load_generator": {"client": args.client, "processes": args.client_processes,
                           "cpu_s_per_s": round(tally.cpu_s / duration, 2),
                           "loop_lag_ms": {"p50": round(pct(tally.loop_lag_ms, 50), 2),
                                           "p99": round(pct(tally.loop_lag_ms, 99), 2)}},
        "journal_mb": round(journal_bytes / 2**20, 1),
        "ratios": {
            "read_p99_to_target": round(pct(reads, 99) / TARGET_READ_P99_MS, 3),
            "submit_p99_to_target": round(max(pct(subs, 99), pct(news, 99))
                                          / TARGET_SUBMIT_P99_MS, 3),
            "heartbeat_rate_to_target": round(rates["min_10s_per_s"] / expected_rate, 3),
            "read_p99_to_idle": round(pct(reads, 99) / max(idle["reads"]["p99_ms"], 1e-9), 2),
        },
        "smoke": args.smoke,
        "store": args.store,
        "max_completed_apps": args.max_completed,
    }
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--smoke", action="store_true",
                        help="200 NodeManagers, 10 clients, 20 s (CI)")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--think-ms", type=float, default=1000.0,
                        help="each client's mean pause between its requests")
    parser.add_argument("--idle-s", type=float, default=20.0,
                        help="how long the idle reference reads last")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--client", choices=("aiohttp", "httpx"), default="aiohttp",
                        help="the HTTP library of the timed requests (the module docstring)")
    parser.add_argument("--client-processes", type=int, default=1, metavar="K",
                        help="spread the clients over K processes (each its own event loop)")
    parser.add_argument("--store", action="store_true",
                        help="serve with a state store (SQLite in the temporary directory)")
    parser.add_argument("--max-completed", type=int, default=MAX_COMPLETED_APPS,
                        help="the server's yarn.resourcemanager.max-completed-applications")
    parser.add_argument("--sample-stacks", type=Path, metavar="FILE",
                        help="run the server under bench/stack_sampler.py, its counts to FILE")
    args = parser.parse_args()
    if args.smoke:
        args.nodes, args.clients, args.minutes, args.idle_s = 200, 10, 1 / 3, 3.0
    if not 1 <= args.client_processes <= args.clients:
        parser.error(f"--client-processes: {args.client_processes} is not between 1 and "
                     f"the clients ({args.clients})")
    result = asyncio.run(run(args))
    print(json.dumps(result))
    lost = result["lost"]
    if (lost["unexpected_responses"] or lost["missing_from_apps"]
            or lost["answered_404_not_forgotten"]):  # a fault, at any size
        log(f"requests lost: {lost}")
        raise SystemExit(1)


if __name__ == "__main__":
    main()

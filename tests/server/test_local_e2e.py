"""``fairshare serve --executor local`` end to end: a starved queue gets its share back by the
preemption of real processes, through YARN's REST API and the AM protocol.

The server (in-process ``Served``, uvicorn on 127.0.0.1) has two NodeManagers of 4096 MB and
4 vcores, two leaves ``root.a`` and ``root.b`` of weight 1, preemption on, both leaves with a
fair-share preemption timeout of 1 s and a threshold of 1.0, ``waitTimeBeforeKill`` 500 ms and
``waitTimeBeforeNextStarvationCheck`` 500 ms. The workload is fixed (no randomness, a fixed
cluster timestamp), so every run takes the same decisions:

1. **app 1** (``root.a``, the built-in distributed-shell AM): its AM (1024 MB, bookkept, no
   process) and 7 shell containers of 1024 MB / 1 vcore fill the cluster, 8192 MB. Each
   container records its pid, process group, session and environment, and traps SIGTERM:
   the first one to get SIGTERM ignores it (it must be SIGKILLed after the grace), the others
   exit.
2. **app 2** (``root.b``) brings its own AM (``fairshare.client.AMClient``), which runs as the
   AM container's process. Worked by hand (docs/semantics.md §2.3, §4.2, §5.2, §5.5):

   * while app 2 asks only for its AM, ``root.b``'s demand is 1024 MB, so its fair share is
     1024 (a share is capped by the demand) and ``root.a``'s 7168. App 2 is starved by
     min(1.0 × 1024, 1024) − 0 = 1024 MB: **1 container** of app 1 is preempted (app 1 keeps
     7168 ≥ its share 7168), and app 2's AM runs in its place;
   * the AM registers and asks for 3 containers of 1024 MB: ``root.b``'s demand is 4096, the
     shares are 8192 / 2 = 4096 each. App 2 holds 1024 and is starved by
     min(1.0 × 4096, 4096) − 1024 = 3072 MB = **3 containers**; app 1 holds 7168, and losing
     3 leaves it 4096, at its share, so all 3 may be taken (a 4th would put it below);
   * in all **4 containers** of app 1 are preempted — what the shares say directly: app 1
     held 8192 against a share of 4096, and its containers are 1024 MB each. ``root.b`` ends
     with 4096 MB, its share, and ``root.a`` with 4096.
3. The AM starts a command in each of its 3 containers: one exits 3 (the AM sees exit status
   3), one it releases (-100, its process stopped), one runs until the app ends; it
   unregisters SUCCEEDED and exits.
4. app 1 is killed (every process it still has is stopped), then **app 3** (distributed
   shell, 2 containers, one exits 3) ends FINISHED with the final status FAILED and the
   diagnostics YARN's DistributedShell ApplicationMaster gives its unregister
   (``Diagnostics., total=2, completed=2, allocated=2, failed=1``).

Preemption sends SIGTERM to the container's process group, then SIGKILL 250 ms later, as
YARN's NodeManager does (``ContainerCleanup.signalProcess`` with a ``DelayedProcessKiller``
after ``yarn.nodemanager.sleep-delay-before-sigkill.ms``, 250 by default).
"""

from __future__ import annotations

import json
import os
import select
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import uvicorn

from fairshare.client import YarnClient
from fairshare.server.executors.local import LocalExecutor
from fairshare.server.service import Served, ServeOptions, build
from fairshare.server.view import yarn_container_id
from tests.ports import free_port

T = TypeVar("T")
SRC = str(Path(__file__).resolve().parents[2] / "src")
TS = 1_700_000_000_000  # the cluster timestamp: the same container ids on every run
APP1, APP2, APP3 = (f"application_{TS}_{n:04d}" for n in (1, 2, 3))
USER = "dr.who"  # no ?user.name=: YARN's anonymous user
GRACE_S = 0.25  # yarn.nodemanager.sleep-delay-before-sigkill.ms's default
TIMEOUT_S = 25.0  # any one wait; the whole test takes about 10 s

ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <queue name="a"><weight>1</weight>
    <fairSharePreemptionTimeout>1</fairSharePreemptionTimeout>
    <fairSharePreemptionThreshold>1.0</fairSharePreemptionThreshold></queue>
  <queue name="b"><weight>1</weight>
    <fairSharePreemptionTimeout>1</fairSharePreemptionTimeout>
    <fairSharePreemptionThreshold>1.0</fairSharePreemptionThreshold></queue>
</allocations>
"""
SITE = {
    "yarn.scheduler.fair.preemption": "true",
    "yarn.scheduler.fair.waitTimeBeforeKill": "500",
    "yarn.scheduler.fair.waitTimeBeforeNextStarvationCheck": "500",
    # the fill in a few heartbeats rather than seconds: several containers per heartbeat
    "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms": "200",
    "yarn.scheduler.fair.assignmultiple": "true",
}

# app 1's containers: what they are (pid, group, session, environment), then a loop; SIGTERM
# is written down (when), and the first container to get it (mkdir is atomic) ignores it
FILL = """d={rec}/$CONTAINER_ID; mkdir -p "$d"
trap 'echo "$EPOCHREALTIME" > "$d/term"
      if mkdir {rec}/stubborn 2>/dev/null; then echo "$CONTAINER_ID" > {rec}/stubborn/who
      else exit 143; fi' TERM
read -r -a stat < /proc/$$/stat
env > "$d/env"; echo "started $CONTAINER_ID"; echo "stderr of $CONTAINER_ID" >&2
echo "$$ ${{stat[4]}} ${{stat[5]}}" > "$d/pid.tmp" && mv "$d/pid.tmp" "$d/pid"
while :; do sleep 0.05; done
"""

# app 2's own AM: a Python program on fairshare.client, run as its AM container
AM = r'''
import json, os, sys, time
from pathlib import Path
from fairshare.client import AMClient, ContainerAsk

rec = Path(sys.argv[1])
deadline = time.monotonic() + 40

def note(name, value):
    (rec / (name + ".tmp")).write_text(json.dumps(value))
    (rec / (name + ".tmp")).rename(rec / name)

def in_time():
    if time.monotonic() > deadline:
        print("the AM gave up", flush=True)
        sys.exit(4)
    time.sleep(0.05)

env = {k: v for k, v in os.environ.items() if k != "FAIRSHARE_AM_TOKEN"}
note("am.json", {"pid": os.getpid(), "pgid": os.getpgid(0), "sid": os.getsid(0),
                 "ppid": os.getppid(), "env": env,
                 "token": bool(os.environ.get("FAIRSHARE_AM_TOKEN"))})
with AMClient.from_env() as am:
    note("registered.json", am.register(tracking_url=""))
    granted, completed = [], []
    asks = [ContainerAsk(3, memory_mb=1024, vcores=1, priority=1)]
    while len(granted) < 3:
        answer = am.allocate(asks, progress=0.1)
        asks = []
        granted += answer.allocated
        completed += answer.completed
        in_time()
    exits3, released, runs = (c.id for c in granted)
    start = 'echo "$$" > {rec}/$CONTAINER_ID.pid; env > {rec}/$CONTAINER_ID.env; '
    am.start_container(exits3, start.format(rec=rec) +
                       f"while [ ! -e {rec}/go ]; do sleep 0.05; done; exit 3")
    for c in (released, runs):
        am.start_container(c, start.format(rec=rec) + "exec sleep 60")
    print("started", exits3, released, runs, flush=True)
    note("granted.json", {"exits3": exits3, "released": released, "runs": runs})
    while not (rec / "go").exists():
        am.allocate(progress=0.5)
        in_time()
    releases = [released]
    while {exits3, released} - {s.container_id for s in completed}:
        completed += am.allocate(releases=releases, progress=0.9).completed
        releases = []
        in_time()
    note("completed.json", [[s.container_id, s.exit_status, s.diagnostics] for s in completed])
    am.unregister("SUCCEEDED", "one container exited 3, one was released")
'''


@dataclass
class Server:
    served: Served
    url: str
    yarn: YarnClient
    rec: Path
    out: Path
    pgids: set[int] = field(default_factory=set)  # every container's group, checked at the end


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    (tmp_path / "fair-scheduler.xml").write_text(ALLOCATIONS)
    (tmp_path / "yarn-site.xml").write_text("<configuration>" + "".join(
        f"<property><name>{k}</name><value>{v}</value></property>" for k, v in SITE.items())
        + "</configuration>")
    rec = tmp_path / "rec"
    rec.mkdir()
    out = tmp_path / "session"
    served = build(ServeOptions(tmp_path / "fair-scheduler.xml", tmp_path / "yarn-site.xml",
                                "2x4g/4", executor="local", out=out, cluster_timestamp=TS))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    server = Server(served, url, YarnClient(url, timeout_s=10), rec, out)
    served.start(url)
    web = uvicorn.Server(uvicorn.Config(served.app, host="127.0.0.1", port=port,
                                        log_level="warning", lifespan="off"))
    thread = threading.Thread(target=web.run, daemon=True)
    try:
        thread.start()
        wait_for(lambda: web.started, "the server to listen")
        yield server
    finally:
        server.yarn.close()
        served.stop()  # every container still running: SIGTERM, SIGKILL, reaped
        web.should_exit = True
        thread.join(timeout=10)
        # nothing is left of any container's process group, nor any process in the session
        assert {g: members(g) for g in server.pgids if members(g)} == {}
        assert working_in(out) == []


# -- helpers -------------------------------------------------------------------------------------


def wait_for(probe: Callable[[], T | None], what: str, timeout: float = TIMEOUT_S) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def members(pgid: int) -> list[int]:
    """The live (not zombie) processes of a process group, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # gone meanwhile
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.append(int(entry.name))
    return found


def working_in(directory: Path) -> list[int]:
    """The live processes whose working directory is under ``directory``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and alive(int(entry.name)) and \
                    Path(os.readlink(entry / "cwd")).is_relative_to(directory):
                found.append(int(entry.name))
        except OSError:
            continue  # gone meanwhile, or not ours to look at
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def environment(path: Path) -> dict[str, str]:
    return dict(line.split("=", 1) for line in path.read_text().splitlines() if "=" in line)


def read_json(path: Path) -> Any:
    return json.loads(path.read_text()) if path.exists() else None


def used_mb(yarn: YarnClient) -> dict[str, int]:
    queues = yarn.scheduler()["rootQueue"]["childQueues"]["queue"]
    return {q["queueName"]: q["usedResources"]["memory"] for q in queues}


def container_id(app: str, seq: int, attempt: int = 1) -> str:
    return f"container_{app[len('application_'):]}_{attempt:02d}_{seq:06d}"


def preempted_events(url: str, app: str, count: int) -> list[str]:
    """The containers of ``app`` in ``container-preempted`` events on the server's event
    stream (SSE; the events name containers as the engine does), in order, once ``count`` of
    them are seen (or the stream is quiet for 2 s)."""
    found: list[str] = []
    try:
        with httpx.stream("GET", f"{url}/ws/v1/fairshare/events", params={"since": 0},
                          timeout=2.0) as stream:
            for line in stream.iter_lines():
                if line.startswith("data:"):
                    event = json.loads(line[5:])
                    if event["type"] == "container-preempted" and event["app"] == app:
                        found.append(yarn_container_id(event["container"]))
                        if len(found) == count:
                            break
    except httpx.ReadTimeout:
        pass
    return found


class DeathWatch:
    """When each of some processes ended, seen through pidfds (never early: a pidfd is readable
    only once its process has exited)."""

    def __init__(self, pids: list[int]) -> None:
        self.ended: dict[int, float] = {}
        self._fds = {os.pidfd_open(pid): pid for pid in pids}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        waiting = dict(self._fds)
        while waiting and not self._stop.is_set():
            ready, _, _ = select.select(list(waiting), [], [], 0.1)
            now = time.time()
            for fd in ready:
                self.ended[waiting.pop(fd)] = now

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for fd in self._fds:
            os.close(fd)


# -- the test ------------------------------------------------------------------------------------


def test_a_starved_queue_gets_its_share_back_by_preempting_real_processes(
        server: Server) -> None:
    yarn, rec, out = server.yarn, server.rec, server.out
    logs = out / "containers"  # docs/serve.md "local": the NodeManager's layout

    # -- 1. app 1 fills the cluster ----------------------------------------------------------
    new = yarn.new_application()
    assert new["application-id"] == APP1
    yarn.submit({"application-id": APP1, "application-name": "fill", "queue": "a",
                 "resource": {"memory": 1024, "vCores": 1},
                 "fairshare": {"distributed-shell": {
                     "num-containers": 7, "shell-command": FILL.format(rec=rec),
                     "container-memory": 1024, "container-vcores": 1}}})
    app1 = [container_id(APP1, seq) for seq in range(2, 9)]  # 000001 is the AM
    wait_for(lambda: all((rec / c / "pid").exists() for c in app1), "app 1's 7 containers")
    procs = {}
    for c in app1:
        pid, pgid, sid = map(int, (rec / c / "pid").read_text().split())
        assert pid == pgid == sid, c  # its own session, so its own process group
        server.pgids.add(pgid)
        procs[c] = pid
        env = environment(rec / c / "env")
        work = logs / "usercache" / USER / "appcache" / APP1 / c
        assert {k: env.get(k) for k in ("CONTAINER_ID", "APPLICATION_ID", "NM_PORT",
                                        "NM_HTTP_PORT", "USER", "LOGNAME", "PWD",
                                        "LOCAL_DIRS", "LOG_DIRS", "JVM_PID")} == {
            "CONTAINER_ID": c, "APPLICATION_ID": APP1, "NM_PORT": "45454",
            "NM_HTTP_PORT": "46454", "USER": USER, "LOGNAME": USER, "PWD": str(work),
            "LOCAL_DIRS": str(work.parent), "LOG_DIRS": str(logs / APP1 / c),
            "JVM_PID": str(pid)}
        assert env["NM_HOST"] in ("node1", "node2")
        assert "FAIRSHARE_AM_TOKEN" not in env
        # stdout and stderr kept as the container's logs (docs/serve.md)
        assert (logs / APP1 / c / "stdout").read_text() == f"started {c}\n"
        assert (logs / APP1 / c / "stderr").read_text() == f"stderr of {c}\n"
    nodes = {n["id"]: (n["usedMemoryMB"], n["availMemoryMB"], n["numContainers"])
             for n in yarn.nodes()}
    assert nodes == {"node1:45454": (4096, 0, 4), "node2:45454": (4096, 0, 4)}
    assert used_mb(yarn) == {"root.a": 8192, "root.b": 0}
    deaths = DeathWatch(list(procs.values()))

    # -- 2. app 2 arrives in root.b, starves, and gets its share by preemption ---------------
    try:
        am_script = rec.parent / "am.py"
        am_script.write_text(AM)
        assert yarn.submit_app(f"exec {sys.executable} {am_script} {rec}", name="own-am",
                               queue="b", memory_mb=1024, vcores=1, max_attempts=1,
                               environment={"PYTHONPATH": SRC}) == APP2
        granted = wait_for(lambda: read_json(rec / "granted.json"), "app 2's 3 containers")
        wait_for(lambda: all((rec / f"{c}.pid").exists() for c in granted.values()),
                 "app 2's containers to start")
        assert wait_for(lambda: (used := used_mb(yarn))["root.b"] == 4096 and used,
                        "root.b at its fair share") == {"root.a": 4096, "root.b": 4096}

        # (a) as many of app 1's processes got SIGTERM as the shares say: 4
        def got_term() -> list[str]:
            return sorted(c for c in app1 if (rec / c / "term").exists())

        victims = wait_for(lambda: len(got_term()) >= 4 and got_term(), "4 SIGTERMs")
        assert len(victims) == 4, victims
        survivors = [c for c in app1 if c not in victims]
        assert all(alive(procs[c]) for c in survivors)
        # (b) ... and are gone, nothing left in their process groups
        wait_for(lambda: not any(members(procs[c]) for c in victims), "the victims to end")
        # (e) the one that ignored SIGTERM lived on for the grace, then was SIGKILLed
        stubborn = (rec / "stubborn" / "who").read_text().strip()
        assert stubborn in victims
        lived = {c: wait_for(lambda c=c: deaths.ended.get(procs[c]), f"{c}'s end")
                 - float((rec / c / "term").read_text()) for c in victims}
        # it outlived SIGTERM for the grace (less the time its trap may take to run after the
        # signal on a loaded machine), and was then SIGKILLed
        assert GRACE_S - 0.1 <= lived[stubborn] < GRACE_S + 3.0, lived
        # the others honoured SIGTERM and exited (bounded loosely: the watcher thread that
        # sees an end may itself wake late on a loaded machine)
        assert all(lived[c] < 1.0 for c in victims if c != stubborn), lived
    finally:
        deaths.close()

    # (c) the RM's view: 4 of app 1's containers preempted, the same the processes saw
    apps = {a["id"]: a for a in yarn.apps()}
    taken = {k: apps[APP1][k] for k in ("numNonAMContainerPreempted", "numAMContainerPreempted",
                                        "preemptedResourceMB", "preemptedResourceVCores")}
    assert taken == {"numNonAMContainerPreempted": 4, "numAMContainerPreempted": 0,
                     "preemptedResourceMB": 4096, "preemptedResourceVCores": 4}
    assert apps[APP2]["numNonAMContainerPreempted"] == 0
    assert sorted(preempted_events(server.url, APP1, 4)) == victims

    # (g) app 2's AM is its AM container's process, and its containers run
    am = read_json(rec / "am.json")
    am_container = container_id(APP2, 1)
    assert am["ppid"] == os.getpid()  # started by this server's executor
    assert am["pid"] == am["pgid"] == am["sid"]
    server.pgids.add(am["pgid"])
    assert am["token"] and am["env"]["CONTAINER_ID"] == am_container
    assert am["env"]["APPLICATION_ID"] == APP2
    assert am["env"]["APP_ATTEMPT_ID"] == f"appattempt_{TS}_0002_000001"
    assert read_json(rec / "registered.json")["queue"] == "root.b"
    attempts = httpx.get(f"{server.url}/ws/v1/cluster/apps/{APP2}/appattempts").json()
    assert attempts["appAttempts"]["appAttempt"][0]["containerId"] == am_container
    assert yarn.state(APP2) == "RUNNING"
    for c in granted.values():
        pid = int((rec / f"{c}.pid").read_text())
        server.pgids.add(pid)
        assert alive(pid) and os.getpgid(pid) == pid
        env = environment(rec / f"{c}.env")
        assert env["CONTAINER_ID"] == c and "FAIRSHARE_AM_TOKEN" not in env

    # -- 3. one of app 2's containers exits 3, one is released; the AM unregisters ---------
    (rec / "go").touch()
    assert yarn.wait_for(APP2, timeout_s=TIMEOUT_S) == "FINISHED"
    final = yarn.app(APP2)
    assert (final["finalStatus"], final["diagnostics"]) == (
        "SUCCEEDED", "one container exited 3, one was released")
    statuses = {c: (status, diagnostics) for c, status, diagnostics
                in read_json(rec / "completed.json")}
    assert statuses[granted["exits3"]][0] == 3  # the process's exit code
    assert statuses[granted["released"]] == (-100, "Container released by application")
    for c in granted.values():  # released: stopped; the last one: stopped with its app
        wait_for(lambda c=c: not members(int((rec / f"{c}.pid").read_text())), f"{c} to end")
    assert "started" in (logs / APP2 / am_container / "stdout").read_text()

    # -- 4. app 1 killed: every process it has is stopped; app 3 fails as DistributedShell --
    executor = server.served.loop.executor
    assert isinstance(executor, LocalExecutor)
    running = {c: executor.pid(app, c) for app, c in executor.running() if app == APP1}
    assert set(survivors) <= set(running)  # and what it got back once app 2 had finished
    assert yarn.kill(APP1) == "FINAL_SAVING"
    assert yarn.wait_for(APP1, timeout_s=TIMEOUT_S) == "KILLED"
    for c, pid in running.items():
        assert pid is not None
        server.pgids.add(pid)
        wait_for(lambda pid=pid: not members(pid), f"{c} to end")
    assert working_in(logs / "usercache" / USER / "appcache" / APP1) == []
    assert yarn.submit({"application-id": yarn.new_application()["application-id"],
                        "queue": "a", "resource": {"memory": 1024, "vCores": 1},
                        "fairshare": {"distributed-shell": {
                            "num-containers": 2, "container-memory": 1024,
                            "shell-command": f"mkdir {rec}/first-exit && exit 3; exit 0"}}}
                       ) == APP3
    assert yarn.wait_for(APP3, timeout_s=TIMEOUT_S) == "FINISHED"
    third = yarn.app(APP3)
    assert (third["finalStatus"], third["diagnostics"]) == (
        "FAILED", "Diagnostics., total=2, completed=2, allocated=2, failed=1")

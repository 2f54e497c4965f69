"""Fault injection: ``fairshare serve --executor local --store`` killed (``kill -9``) again and
again at random moments while a client submits and reads, each time started again on the same
store. After every restart: no app whose submission was acknowledged (202) is missing, no
container's process was started twice, and the engine's books balance (every node's
allocation within its capacity and adding up to the cluster's, its containers those of the
apps). At the end every app has run each of its tasks exactly once and succeeded, and no
process is left once the last server stops.

``FAIRSHARE_KILLS`` kills (3 in ``make test``; ``make test-restart`` runs 50), at moments drawn
from a seeded generator (``FAIRSHARE_KILL_SEED``), so a failing run can be repeated.
"""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import httpx

from tests.server.serve_process import ALLOCATIONS, ServeProcess, alive, site_xml, wait_until

KILLS = int(os.environ.get("FAIRSHARE_KILLS", "3"))
SEED = int(os.environ.get("FAIRSHARE_KILL_SEED", "34"))
TASKS = 2  # containers per app
ACTIVE = 6  # the client keeps at most this many apps unfinished
SITE = site_xml(300)
COMMAND = "echo $$ >> {rec}/$CONTAINER_ID; sleep {seconds}"
ENDED = ("FINISHED", "FAILED", "KILLED")


class Client:
    """Submits distributed-shell apps and reads, through every kill; keeps what the server
    acknowledged."""

    def __init__(self, server: ServeProcess, rec: Path, rng: random.Random) -> None:
        self.server, self.rec, self.rng = server, rec, rng
        self.accepted: list[str] = []
        self.ended: set[str] = set()
        self.stop = threading.Event()
        self.errors: list[str] = []
        self.thread = threading.Thread(target=self._run, name="load", daemon=True)

    def _run(self) -> None:
        http = httpx.Client(timeout=5.0)
        while not self.stop.is_set():
            try:
                self._step(http)
            except httpx.TransportError:
                time.sleep(0.05)  # the server is down: try again
            except AssertionError as e:
                self.errors.append(str(e))
                return
        http.close()

    def _step(self, http: httpx.Client) -> None:
        base = f"{self.server.url}/ws/v1/cluster"
        apps = http.get(f"{base}/apps").json()["apps"]
        listed = {a["id"]: a["state"] for a in (apps or {}).get("app", [])}
        self.ended.update(a for a, state in listed.items() if state in ENDED)
        if len([a for a in self.accepted if a not in self.ended]) >= ACTIVE:
            time.sleep(0.05)
            return
        new = http.post(f"{base}/apps/new-application")
        if new.status_code != 200:
            return
        app_id = new.json()["application-id"]
        seconds = f"{self.rng.uniform(0.2, 0.8):.2f}"
        answer = http.post(f"{base}/apps", json={
            "application-id": app_id, "application-name": "fault", "queue":
            self.rng.choice(("a", "b")), "resource": {"memory": 1024, "vCores": 1},
            "fairshare": {"distributed-shell": {
                "num-containers": TASKS, "shell-command": COMMAND.format(
                    rec=self.rec, seconds=seconds),
                "container-memory": 512, "container-vcores": 1}}})
        if answer.status_code == 202:
            self.accepted.append(app_id)
        else:
            assert answer.status_code == 503, (answer.status_code, answer.text)


def _books_balance(server: ServeProcess) -> None:
    snapshot = server.get("/ws/v1/fairshare/snapshot")
    cluster, nodes, apps = snapshot["cluster"], snapshot["nodes"], snapshot["apps"]
    for name, node in nodes.items():
        for kind in node["capacity"]:
            assert node["allocated"][kind] + node["unallocated"][kind] == \
                node["capacity"][kind], name
            assert 0 <= node["allocated"][kind] <= node["capacity"][kind], name
    for kind in cluster["allocated"]:
        assert sum(n["allocated"][kind] for n in nodes.values()) == cluster["allocated"][kind]
        assert sum(a["usage"][kind] for a in apps.values()) == cluster["allocated"][kind]
    assert sum(n["containers"] for n in nodes.values()) == sum(
        a["live-containers"] for a in apps.values()) == cluster["containers-allocated"]
    queues = snapshot["queues"]
    for kind in cluster["allocated"]:
        assert queues["root"]["usage"][kind] == cluster["allocated"][kind]
        assert sum(q["usage"][kind] for q in queues.values() if q["type"] == "leaf") == \
            cluster["allocated"][kind]
        for name, queue in queues.items():  # a leaf's usage is its apps'
            if queue["type"] == "leaf":
                assert queue["usage"][kind] == sum(
                    a["usage"][kind] for a in apps.values() if a["queue"] == name), name


def _started_once(rec: Path) -> dict[str, int]:
    """Each container's process noted its pid once per start; the pids."""
    pids = {}
    for f in rec.iterdir():
        lines = f.read_text().split()
        assert len(lines) <= 1, f"{f.name} was started {len(lines)} times"
        if lines:
            pids[f.name] = int(lines[0])
    return pids


def test_repeated_kills_under_load_lose_nothing_and_run_nothing_twice(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    rec = tmp_path / "rec"
    rec.mkdir()
    (tmp_path / "fair-scheduler.xml").write_text(ALLOCATIONS)
    (tmp_path / "yarn-site.xml").write_text(SITE)
    server = ServeProcess([str(tmp_path / "fair-scheduler.xml"),
                           "--site", str(tmp_path / "yarn-site.xml"), "--nodes", "4x4g/4",
                           "--executor", "local", "--store", str(tmp_path / "state.db"),
                           "--out", str(tmp_path / "out")], tmp_path / "serve.log")
    client = Client(server, rec, rng)
    server.start()
    client.thread.start()
    try:
        for _ in range(KILLS):
            time.sleep(rng.uniform(0.1, 1.5))
            server.kill()
            time.sleep(rng.uniform(0.0, 0.5))
            server.start()
            accepted = list(client.accepted)
            listed = {a["id"] for a in (server.get("/ws/v1/cluster/apps")["apps"] or {}).get(
                "app", [])}
            missing = [a for a in accepted if a not in listed]
            assert not missing, f"acknowledged apps lost after restart {server.starts}: {missing}"
            _books_balance(server)
            _started_once(rec)
            assert not client.errors, client.errors
        client.stop.set()
        client.thread.join(timeout=30)
        assert not client.errors, client.errors
        # every app the server has (those acknowledged, and any whose 202 a kill cut off)
        def every() -> list[dict[str, object]]:
            return list((server.get("/ws/v1/cluster/apps")["apps"] or {}).get("app", []))

        wait_until(lambda: all(a["state"] in ENDED for a in every()), "every app to end", 120)
        apps = every()
        assert set(client.accepted) <= {str(a["id"]) for a in apps}
        for info in apps:
            assert (info["state"], info["finalStatus"]) == ("FINISHED", "SUCCEEDED"), info
        ran: dict[str, int] = {}
        for container in _started_once(rec):
            app = "application_" + "_".join(container.split("_")[-4:-2])
            ran[app] = ran.get(app, 0) + 1
        # every task ran exactly once: one process per task container, none again
        assert ran == {str(a["id"]): TASKS for a in apps}
        assert server.stop() == 0
    finally:
        client.stop.set()
        server.kill()
    wait_until(lambda: not any(alive(p) for p in _started_once(rec).values()),
               "no container process to be left", 15)
    assert server.starts == KILLS + 1

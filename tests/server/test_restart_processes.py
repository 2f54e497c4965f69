"""``kill -9`` of ``fairshare serve --executor local --store``, then a start on the same
store: the containers' processes, which outlive the server (each is its own session), are
re-attached, not started again; one that ended while no server ran is reported with the exit
code its script wrote; the app ends as it would have without the restart; at the end no
process is left."""

from __future__ import annotations

import time
from pathlib import Path

from tests.server.serve_process import ALLOCATIONS, ServeProcess, alive, site_xml, wait_until

SITE = site_xml(500)
# each container notes its pid once per start (a container started twice would note two),
# then waits: the first task until told to die (it exits 5, while no server runs), the others
# until told to go (they exit 0) — the test says when, whatever the machine's speed
COMMAND = ("echo $$ >> {rec}/$CONTAINER_ID; "
           "case $CONTAINER_ID in "
           "*_000002) until [ -e {rec}/../die ]; do sleep 0.05; done; exit 5;; "
           "*) until [ -e {rec}/../go ]; do sleep 0.05; done;; esac")


def _serve(tmp: Path) -> ServeProcess:
    (tmp / "fair-scheduler.xml").write_text(ALLOCATIONS)
    (tmp / "yarn-site.xml").write_text(SITE)
    return ServeProcess([str(tmp / "fair-scheduler.xml"), "--site", str(tmp / "yarn-site.xml"),
                         "--nodes", "2x4g/4", "--executor", "local",
                         "--store", str(tmp / "state.db"), "--out", str(tmp / "out")],
                        tmp / "serve.log")


def test_processes_outlive_a_kill_and_are_taken_over_by_the_next_server(tmp_path: Path
                                                                         ) -> None:
    import httpx

    rec = tmp_path / "rec"
    rec.mkdir()
    server = _serve(tmp_path)
    server.start()
    pids: list[int] = []
    try:
        app = httpx.post(f"{server.url}/ws/v1/cluster/apps/new-application",
                         timeout=10).json()["application-id"]
        submitted = httpx.post(f"{server.url}/ws/v1/cluster/apps", timeout=10, json={
            "application-id": app, "application-name": "shell", "queue": "a",
            "resource": {"memory": 1024, "vCores": 1},
            "fairshare": {"distributed-shell": {
                "num-containers": 3, "shell-command": COMMAND.format(rec=rec),
                "container-memory": 1024, "container-vcores": 1}}})
        assert submitted.status_code == 202
        wait_until(lambda: len(list(rec.iterdir())) == 3, "the three containers to start")
        wait_until(lambda: all(f.read_text().strip() for f in rec.iterdir()), "their pids")
        pids = [int(f.read_text().split()[0]) for f in rec.iterdir()]
        server.kill()
        assert all(alive(p) for p in pids)  # the server's death did not end them
        first = next(int(f.read_text()) for f in rec.iterdir() if f.name.endswith("_000002"))
        (tmp_path / "die").touch()
        wait_until(lambda: not alive(first), "the first task to end while no server runs", 10)
        server.start()
        info = server.get(f"/ws/v1/cluster/apps/{app}")["app"]
        assert info["state"] == "RUNNING" and info["queue"] == "root.a"
        others = [p for p in pids if p != first]
        time.sleep(1.0)  # a take-over that failed would have ended them (or the app) by now
        assert all(alive(p) for p in others)  # taken over, not stopped
        assert server.get(f"/ws/v1/cluster/apps/{app}")["app"]["state"] == "RUNNING"
        (tmp_path / "go").touch()
        wait_until(lambda: server.get(f"/ws/v1/cluster/apps/{app}")["app"]["state"]
                   in ("FINISHED", "FAILED", "KILLED"), "the app to end", 30)
        info = server.get(f"/ws/v1/cluster/apps/{app}")["app"]
        # YARN's DistributedShell AM: one of its three containers failed (exit 5, seen by
        # the second server from the exit code the script wrote), none was run again
        assert (info["state"], info["finalStatus"]) == ("FINISHED", "FAILED")
        assert info["diagnostics"] == ("Diagnostics., total=3, completed=3, allocated=3, "
                                       "failed=1")
        assert sorted(len(f.read_text().split()) for f in rec.iterdir()) == [1, 1, 1]
        assert len(list(rec.iterdir())) == 3
    finally:
        server.kill()
    assert not any(alive(p) for p in pids)
    # the second server's journal starts from what it recovered
    journal = (tmp_path / "out" / "session.yaml").read_text()
    assert '"kind": "restart"' in journal and '"recovering": true' in journal
    assert (tmp_path / "out" / "epoch-00" / "session.yaml").exists()


AM = """
import os, sys
from fairshare.client import AMClient
rec = sys.argv[1]
with open(os.path.join(rec, "am"), "a") as f:
    f.write(f"{os.getpid()}\\n")
am = AMClient.from_env()
am.register()
statuses = am.run_containers(3, TASK.format(rec=rec), memory_mb=512, interval_s=0.1)
failed = [s for s in statuses if s.exit_status != 0]
am.unregister("FAILED" if failed else "SUCCEEDED", f"{len(statuses)} done")
"""
TASK = ("echo $$ >> {rec}/$CONTAINER_ID; "
        "until [ -e {rec}/../go ]; do sleep 0.05; done")


def test_an_am_of_its_own_carries_on_across_a_kill_and_resyncs(tmp_path: Path) -> None:
    # the AM process is not restarted: its token is still good (the store's key), the new
    # server knows its attempt as not registered, and the AM registers again and asks again
    # for what it was not given (AMRMClientImpl's resync); its containers are re-attached
    import sys

    import httpx

    from fairshare.client import YarnClient

    rec = tmp_path / "rec"
    rec.mkdir()
    script = tmp_path / "am.py"
    script.write_text(AM.replace("TASK", repr(TASK)))
    server = _serve(tmp_path)
    server.start()
    try:
        with YarnClient(server.url) as yarn:
            app = yarn.submit_app(f"{sys.executable} {script} {rec}", queue="b",
                                  memory_mb=1024)
        wait_until(lambda: len([f for f in rec.iterdir() if f.name != "am"]) == 3,
                   "the AM's three containers to start", 60)
        am_pid = int((rec / "am").read_text().split()[0])
        server.kill()
        assert alive(am_pid)
        server.start()
        time.sleep(1.0)
        assert alive(am_pid)  # the same AM, waiting on
        (tmp_path / "go").touch()
        wait_until(lambda: server.get(f"/ws/v1/cluster/apps/{app}")["app"]["state"]
                   in ("FINISHED", "FAILED", "KILLED"), "the app to end", 60)
        info = server.get(f"/ws/v1/cluster/apps/{app}")["app"]
        assert (info["state"], info["finalStatus"], info["diagnostics"]) == (
            "FINISHED", "SUCCEEDED", "3 done")
        assert (rec / "am").read_text().split() == [str(am_pid)]  # started once
        tasks = [f for f in rec.iterdir() if f.name != "am"]
        assert len(tasks) == 3 and all(len(f.read_text().split()) == 1 for f in tasks)
        attempts = httpx.get(f"{server.url}/ws/v1/cluster/apps/{app}/appattempts",
                             timeout=10).json()["appAttempts"]["appAttempt"]
        assert len(attempts) == 1
    finally:
        server.kill()
    wait_until(lambda: not alive(am_pid), "the AM to be gone", 15)

"""``fairshare serve``'s option and input errors: exit 2 with the option or file:line named,
nothing started, nothing written where nothing should be."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.server.service import ServeOptions, build
from tests.ports import free_port

SIGKILL_DELAY_KEY = "yarn.nodemanager.sleep-delay-before-sigkill.ms"

runner = CliRunner()
GOOD = """<?xml version="1.0"?>
<allocations>
  <queue name="a"/>
</allocations>
"""


@pytest.fixture()
def allocations(tmp_path: Path) -> Path:
    path = tmp_path / "fair-scheduler.xml"
    path.write_text(GOOD)
    return path


def serve(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["serve", *args])
    assert "Traceback" not in result.output
    return result.exit_code, result.stderr


@pytest.mark.parametrize(("options", "said"), [
    (["--executor", "kubernetes"], "--executor: expected one of virtual, local, ray"),
    (["--executor", "local", "--speed", "10"], "--speed: only the virtual executor"),
    (["--executor", "ray", "--nodes", "2x4g/4"], "--nodes: the Ray executor's NodeManagers"),
    (["--ray-address", "auto"], "--ray-address: only the Ray executor"),
    (["--speed", "0"], "--speed: expected a speed above 0"),
    (["--nodes", "4x16q/8"], "--nodes: expected COUNTxMEMORY/VCORES such as 4x16g/8"),
    (["--nodes", "0x16g/8"], "--nodes: count, memory and vcores must be positive"),
    (["--listen", "nowhere"], "--listen: expected HOST:PORT"),
    (["--log-level", "loud"], "--log-level: expected debug, info, warning or error"),
    # simple authentication trusts ?user.name=: off loopback only when meant (the last
    # --listen is the one typer keeps)
    (["--listen", "0.0.0.0:0"], "--listen: 0.0.0.0 is not a loopback address"),
    (["--listen", "[::]:0"], "--listen: :: is not a loopback address"),
])
def test_a_bad_option_is_named_and_nothing_is_written(allocations: Path, tmp_path: Path,
                                                      options: list[str], said: str) -> None:
    out = tmp_path / "session"
    code, stderr = serve(str(allocations), "--out", str(out), "--listen", "127.0.0.1:0",
                         *options)
    assert code == 2
    assert said in " ".join(stderr.split())
    assert not out.exists()


def test_a_broken_allocation_file_is_reported_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "fair-scheduler.xml"
    path.write_text('<?xml version="1.0"?>\n<allocations>\n  <queue name="a">\n'
                    "    <weight>heavy</weight>\n  </queue>\n</allocations>\n")
    code, stderr = serve(str(path), "--out", str(tmp_path / "s"), "--listen", "127.0.0.1:0")
    assert code == 2
    assert f"{path}:4:" in stderr


def test_a_missing_allocation_file_and_nodes_file_are_named(tmp_path: Path,
                                                            allocations: Path) -> None:
    code, stderr = serve(str(tmp_path / "nope.xml"), "--listen", "127.0.0.1:0")
    assert code == 2 and "nope.xml" in stderr
    nodes = tmp_path / "nodes.yaml"
    nodes.write_text("cluster:\n  nodes:\n    - {name: n1, memory-mb: lots, vcores: 8}\n")
    code, stderr = serve(str(allocations), "--nodes-file", str(nodes), "--out",
                         str(tmp_path / "s"), "--listen", "127.0.0.1:0")
    assert code == 2 and f"{nodes}:3" in stderr


@pytest.mark.parametrize(("value", "grace_ms"), [
    (None, 250), ("1000", 1000), (" 40 ", 40), ("0", 0), ("-5", 0)])
def test_the_sigkill_delay_is_the_nodemanagers_property(allocations: Path, tmp_path: Path,
                                                         value: str | None,
                                                         grace_ms: int) -> None:
    # ContainerCleanup: SIGTERM then SIGKILL after the delay; 0 or less, SIGKILL at once
    site = tmp_path / "yarn-site.xml"
    site.write_text("<configuration>" + ("" if value is None else
                    f"<property><name>{SIGKILL_DELAY_KEY}</name><value>{value}</value>"
                    "</property>") + "</configuration>")
    served = build(ServeOptions(allocations, site, "1x4g/4", out=tmp_path / "s"))
    served.journal.close()  # built, never started
    assert served.loop.grace_ms == grace_ms


def test_a_sigkill_delay_that_is_not_a_number_is_named_at_its_line(allocations: Path,
                                                                   tmp_path: Path) -> None:
    site = tmp_path / "yarn-site.xml"
    site.write_text("<configuration>\n<property>\n"
                    f"<name>{SIGKILL_DELAY_KEY}</name><value>soon</value>\n"
                    "</property>\n</configuration>\n")
    code, stderr = serve(str(allocations), "--site", str(site), "--executor", "local",
                         "--out", str(tmp_path / "s"), "--listen", "127.0.0.1:0")
    assert code == 2
    said = " ".join(stderr.split())
    # as every yarn-site number is refused (Configuration.getLong)
    assert f"{site}:2" in said and f"{SIGKILL_DELAY_KEY}='soon' is not a long" in said
    assert not (tmp_path / "s").exists()


def test_a_port_in_use_starts_nothing(allocations: Path, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        code, stderr = serve(str(allocations), "--out", str(tmp_path / "s"), "--listen",
                             f"127.0.0.1:{port}")
    assert code == 2
    assert f"--listen: cannot listen on 127.0.0.1:{port}" in stderr
    assert not (tmp_path / "s").exists()


def test_the_served_rm_takes_an_app_preempts_for_it_and_stops_on_sigterm(tmp_path: Path
                                                                         ) -> None:
    # a fills both 8 GB nodes; b (equal weight, 2 s timeout, threshold 1) is starved, so a's
    # containers are preempted until b holds its fair share, half the cluster: 8192 MB
    allocations = tmp_path / "fair-scheduler.xml"
    allocations.write_text('<?xml version="1.0"?>\n<allocations>\n  <queue name="a"/>\n'
                           '  <queue name="b"/>\n'
                           "  <defaultFairSharePreemptionTimeout>2"
                           "</defaultFairSharePreemptionTimeout>\n"
                           "  <defaultFairSharePreemptionThreshold>1.0"
                           "</defaultFairSharePreemptionThreshold>\n</allocations>\n")
    site = tmp_path / "yarn-site.xml"
    site.write_text("<configuration><property><name>yarn.scheduler.fair.preemption</name>"
                    "<value>true</value></property><property><name>yarn.scheduler.fair."
                    "waitTimeBeforeKill</name><value>1000</value></property></configuration>")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "fairshare", "serve", str(allocations), "--site", str(site),
         "--nodes", "2x8g/8", "--speed", "20", "--listen", f"127.0.0.1:{port}",
         "--out", str(tmp_path / "session")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True)
    base = f"http://127.0.0.1:{port}/ws/v1/cluster"
    try:
        with httpx.Client(timeout=10) as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    client.get(f"{base}/info")
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, server.stderr
                    time.sleep(0.2)
            for queue, count in (("a", 14), ("b", 8)):
                app_id = client.post(f"{base}/apps/new-application").json()["application-id"]
                submitted = client.post(f"{base}/apps", json={
                    "application-id": app_id, "application-name": f"job-{queue}",
                    "queue": queue, "resource": {"memory": 1024, "vCores": 1},
                    "am-container-spec": {"commands": {"command": "true"}},
                    "fairshare": {"tasks": [{"count": count, "memory-mb": 1024, "vcores": 1,
                                             "duration-ms": 3_600_000}]}})
                assert submitted.status_code == 202 and submitted.content == b""
                time.sleep(0.5)
            used: dict[str, int] = {}
            while time.monotonic() < deadline:  # 20x: 30 s of the RM's clock in 1.5 s
                root = client.get(f"{base}/scheduler").json()["scheduler"]["schedulerInfo"]
                used = {q["queueName"]: q["usedResources"]["memory"]
                        for q in root["rootQueue"]["childQueues"]["queue"]}
                if used.get("root.b", 0) >= 8192:
                    break
                time.sleep(0.2)
            assert used["root.b"] == 8192 and used["root.a"] == 8192
            apps = client.get(f"{base}/apps").json()["apps"]["app"]
            assert any(a["numNonAMContainerPreempted"] > 0 for a in apps)
            assert "queue_metrics_fair_share_mb" in client.get(
                f"http://127.0.0.1:{port}/metrics").text
    finally:
        server.send_signal(signal.SIGTERM)
        stdout, stderr = server.communicate(timeout=30)
    assert server.returncode == 0, stderr
    assert "Stopped after" in stdout
    assert re.search(r"\b2 apps submitted, 2 kept by the RM", stdout), stdout
    assert (tmp_path / "session" / "session.yaml").is_file()


@pytest.mark.parametrize(("host", "loopback"), [
    ("127.0.0.1", True), ("127.8.0.1", True), ("::1", True), ("localhost", True),
    ("0.0.0.0", False), ("::", False), ("10.0.0.5", False), ("rm.example.com", False),
])
def test_what_counts_as_loopback(host: str, loopback: bool) -> None:
    from fairshare.cli.serve import is_loopback

    assert is_loopback(host) is loopback



def test_a_store_that_cannot_be_opened_is_named_and_nothing_starts(allocations: Path,
                                                                   tmp_path: Path) -> None:
    bad = tmp_path / "notes.txt"
    bad.write_text("not a database\n" * 50)
    code, said = serve(str(allocations), "--store", str(bad), "--out", str(tmp_path / "s"),
                       "--listen", f"127.0.0.1:{free_port()}")
    assert code == 2 and "--store: cannot open the state store" in said
    code, said = serve(str(allocations), "--store", "postgresql://u@h:port/db",
                       "--out", str(tmp_path / "s"), "--listen", f"127.0.0.1:{free_port()}")
    assert code == 2 and "--store: not a database URL (state store URL" in said
    assert not (tmp_path / "s" / "session.yaml").exists()


def test_a_restart_with_other_nodes_than_the_store_holds_is_refused(allocations: Path,
                                                                    tmp_path: Path) -> None:
    store = str(tmp_path / "state.db")
    first = build(ServeOptions(allocations, None, "2x4g/4", out=tmp_path / "s", store=store))
    first.journal.close()
    first.store.close()  # type: ignore[union-attr]
    code, said = serve(str(allocations), "--nodes", "3x4g/4", "--store", store,
                       "--out", str(tmp_path / "s"), "--listen", f"127.0.0.1:{free_port()}")
    assert code == 2 and "--nodes: the state store holds this cluster's 2 nodes" in said
    again = build(ServeOptions(allocations, None, "2x4g/4", out=tmp_path / "s", store=store))
    assert [n for n in again.engine.state.nodes] == ["node1:45454", "node2:45454"]
    again.journal.close()
    again.store.close()  # type: ignore[union-attr]


def test_work_preserving_recovery_off_is_refused_with_the_site_named(allocations: Path,
                                                                     tmp_path: Path) -> None:
    site = tmp_path / "yarn-site.xml"
    site.write_text("<configuration><property><name>yarn.resourcemanager.work-preserving-"
                    "recovery.enabled</name><value>false</value></property></configuration>")
    code, said = serve(str(allocations), "--site", str(site), "--store",
                       str(tmp_path / "state.db"), "--out", str(tmp_path / "s"),
                       "--listen", f"127.0.0.1:{free_port()}")
    assert code == 2 and "work-preserving-recovery.enabled=false" in said


def test_the_server_exits_70_when_its_store_fails(allocations: Path, tmp_path: Path) -> None:
    # YARN's RM stops when its store fails: here another process holds the store's lock
    import sqlite3

    store = tmp_path / "state.db"
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "fairshare", "serve", str(allocations), "--store", str(store),
         "--out", str(tmp_path / "s"), "--listen", f"127.0.0.1:{port}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    holder = None
    try:
        url = f"http://127.0.0.1:{port}/ws/v1/cluster"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                httpx.get(f"{url}/info", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.05)
        app_id = httpx.post(f"{url}/apps/new-application").json()["application-id"]
        holder = sqlite3.connect(store, timeout=0, isolation_level=None)
        holder.execute("BEGIN EXCLUSIVE")  # no other writer until it ends
        answer = httpx.post(f"{url}/apps", json={"application-id": app_id, "queue": "a"},
                            timeout=30)
        assert answer.status_code == 503, answer.text
        assert "the state store refused a write: database is locked" in answer.text
        assert process.wait(timeout=30) == 70
        assert "the engine stopped on an error" in process.stderr.read()  # type: ignore[union-attr]
    finally:
        if holder is not None:
            holder.close()
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=30)

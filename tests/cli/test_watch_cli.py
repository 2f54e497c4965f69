"""``fairshare watch status`` and the watch commands' option errors, at the command line,
against a recorded Hadoop 3.4.2 ResourceManager (tests/watch/recorded/, served on loopback)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app
from tests.watch.fake_rm import FakeRM, serving
from tests.web.dumps import json_queues

runner = CliRunner()
RECORDED = Path(__file__).resolve().parents[1] / "watch" / "recorded"
ALLOCATIONS = Path(__file__).resolve().parents[2] / "rmharness" / "scripts" / "contention.xml"


@pytest.fixture()
def rm() -> Iterator[FakeRM]:
    with serving(FakeRM.from_folder(RECORDED / "fair-preempted")) as served:
        yield served


def test_status_json_holds_what_the_rm_served(rm: FakeRM) -> None:
    result = runner.invoke(app, ["watch", "status", rm.url, "--format", "json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    served = json.loads((RECORDED / "fair-preempted" / "scheduler.json").read_text())
    expected = json_queues(served)
    shown = {q["name"]: q for q in got["queues"]}
    assert set(shown) == set(expected)
    for name, q in expected.items():
        assert shown[name]["used"] == {"memory_mb": q["usedResources"]["memory"],
                                       "vcores": q["usedResources"]["vCores"]}, name
        assert shown[name]["pending_containers"] == q["pendingContainers"], name


def test_status_prints_every_queue_and_what_holds_the_waiting_ones(rm: FakeRM) -> None:
    result = runner.invoke(app, ["watch", "status", rm.url, "--allocations", str(ALLOCATIONS)])
    assert result.exit_code == 0, result.output
    # root.b asks for 12 containers while root.a holds the cluster (the recorded moment)
    assert "root.b: held by" in result.stdout
    for queue in ("root", "a", "b", "c", "c1"):
        assert any(line.split()[:1] == [queue] or line.split()[:1] == [f"{queue}/"]
                   for line in result.stdout.splitlines()), queue
    # no --site: preemption is off by YARN's default, and that is said
    assert "no --site" in result.stderr


def test_a_capacity_scheduler_rm_is_refused_with_its_endpoint(tmp_path: Path) -> None:
    with serving(FakeRM.from_folder(RECORDED / "capacity")) as cs:
        result = runner.invoke(app, ["watch", "status", cs.url])
    assert result.exit_code == 2
    assert "/ws/v1/cluster/scheduler" in result.stderr
    assert "CapacityScheduler" in result.stderr
    assert "Traceback" not in result.output


def test_an_rm_that_does_not_answer_is_one_line_naming_it() -> None:
    result = runner.invoke(app, ["watch", "status", "http://127.0.0.1:9", "--timeout", "1s"])
    assert result.exit_code == 2
    assert "127.0.0.1:9" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize(("args", "named"), [
    (["watch", "http://rm:8088", "--interval", "5x"], "--interval"),
    (["watch", "http://rm:8088", "--interval", "0s"], "--interval"),
    (["watch", "http://rm:8088", "--listen", "localhost"], "--listen"),
    (["watch", "ftp://rm:8088"], "RM_URL"),
    (["watch", "http://rm:8088", "--retention", "raw=2d,1h=7d,1m=1d"], "--retention"),
    (["watch", "status", "http://rm:8088", "--timeout", "soon"], "--timeout"),
    (["watch", "fork", "--at", "yesterday", "-o", "x"], "--at"),
])
def test_bad_options_name_the_option_and_exit_2(args: list[str], named: str,
                                                tmp_path: Path) -> None:
    result = runner.invoke(app, [*args, "--db", str(tmp_path / "h.db")]
                           if args[1] not in ("status",) else args)
    assert result.exit_code == 2, result.output
    assert named in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "h.db").exists()


def test_watch_serves_the_pages_and_metrics_of_what_it_polls(tmp_path: Path) -> None:
    """The command itself, as a process: it prints the address it serves, polls the (recorded)
    RM into the database, answers the pages and /metrics, and stops on SIGINT with a summary."""
    import os
    import signal
    import subprocess
    import sys
    import time

    import httpx

    with serving(FakeRM.from_folder(RECORDED / "fair-preempted")) as fake:
        proc = subprocess.Popen(
            [sys.executable, "-m", "fairshare", "watch", fake.url, "--listen", "127.0.0.1:0",
             "--interval", "0.2s", "--db", str(tmp_path / "h.db"), "--allocations",
             str(ALLOCATIONS)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")})
        try:
            assert proc.stdout is not None
            first = proc.stdout.readline()
            base = first.split(" on ", 1)[1].split("/ ", 1)[0]
            assert base.startswith("http://127.0.0.1:") and not base.endswith(":0"), first
            deadline = time.monotonic() + 30
            while True:
                body = httpx.get(f"{base}/api/scheduler", timeout=5).json()
                if body.get("queues"):
                    break
                assert time.monotonic() < deadline, body
                time.sleep(0.2)
            assert {q["name"] for q in body["queues"]} == {"root", "root.a", "root.b",
                                                          "root.c", "root.c.c1"}
            metrics = httpx.get(f"{base}/metrics", timeout=5).text
            assert 'queue_metrics_fair_share_mb{queue="root.b"' in metrics
            assert httpx.get(f"{base}/tuning", timeout=5).status_code == 200
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                out, err = proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                out, err = proc.communicate()
    assert proc.returncode == 0, (proc.returncode, err)  # a graceful stop, not a failure
    assert "Stopped after" in out, (out, err)
    assert "Traceback" not in err
    assert (tmp_path / "h.db").exists()

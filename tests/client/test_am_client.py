"""fairshare.client.AMClient as a real AM: a Python program started by the local executor as
an app's AM container, speaking the AM protocol over HTTP to the routes on uvicorn, its
containers real processes; the engine driven on a clock by a pump thread."""

from __future__ import annotations

import json
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from fairshare.client import AMClient, ClientError, ContainerAsk
from fairshare.core import (
    Advance,
    AllocationVia,
    AppState,
    ContainerAllocated,
    HeartbeatAll,
    Submit,
    Update,
)
from fairshare.server.am import AMHub
from fairshare.server.am_routes import PREFIX, am_router
from fairshare.server.executors.local import LocalExecutor
from tests.core.engine_builders import GB, ask
from tests.ports import free_port
from tests.server.am_fixtures import EngineDriverOnEngine, make_hub, submission

SRC = str(Path(__file__).resolve().parents[2] / "src")
APP = "application_1700000000000_0001"
OTHER = "application_1700000000000_0002"


class HubHost:
    """The loop's ExecutorHost for the hub's apps: exits go to the hub."""

    hub: AMHub

    def container_exited(self, app: str, container: str, exit_status: int,
                         diagnostics: str) -> None:
        self.hub.container_exited(app, container, exit_status, diagnostics)

    def container_started(self, app: str, container: str, pid: int, started: int) -> None:
        pass  # (no state store here)


@dataclass
class Server:
    url: str
    hub: AMHub
    driver: EngineDriverOnEngine
    executor: LocalExecutor


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    executor = LocalExecutor()
    host = HubHost()
    hub, driver = make_hub(tmp_path, executor, base_url=url)
    host.hub = hub
    executor.start(host)
    app = FastAPI()
    app.include_router(am_router(hub), prefix=PREFIX)
    uv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                       lifespan="off"))
    web = threading.Thread(target=uv.run, daemon=True)
    web.start()
    stop = threading.Event()

    def pump() -> None:  # the loop's clock: 50 ms of engine time per 50 ms of wall
        while not stop.wait(0.05):
            driver.command(Advance(50))
            driver.command(Update())
            driver.command(HeartbeatAll())

    clock = threading.Thread(target=pump, daemon=True)
    deadline = time.monotonic() + 20
    while not uv.started:
        assert web.is_alive() and time.monotonic() < deadline
        time.sleep(0.02)
    clock.start()
    try:
        yield Server(url, hub, driver, executor)
    finally:
        stop.set()
        clock.join(timeout=5)
        hub.close()
        executor.close()
        uv.should_exit = True
        web.join(timeout=10)


def run_am(server: Server, tmp_path: Path, program: str) -> None:
    script = tmp_path / "my_am.py"
    script.write_text(program)
    sub = submission(command=f"{sys.executable} {script}", environment=(("PYTHONPATH", SRC),))
    server.hub.expect(sub)
    server.driver.command(Submit(sub.application_id, sub.queue, sub.user, am=sub.am_resource))


def wait_ended(server: Server, app: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while server.driver.engine.app(app).state not in (AppState.FINISHED, AppState.KILLED):
        assert time.monotonic() < deadline, server.driver.engine.app(app).state
        time.sleep(0.05)


def am_log(tmp_path: Path, stream: str = "stdout") -> str:
    return (tmp_path / "logs" / APP / "container_1700000000000_0001_01_000001"
            / stream).read_text()


RUN_THREE = """
import json
from fairshare.client import AMClient
with AMClient.from_env() as am:
    registered = am.register(tracking_url="http://example/am")
    statuses = am.run_containers(3, 'echo "hello from $CONTAINER_ID"', memory_mb=1024,
                                 interval_s=0.05, timeout_s=30)
    print(json.dumps({"queue": registered["queue"],
                      "statuses": sorted([s.container_id, s.exit_status] for s in statuses)}))
    am.unregister("SUCCEEDED", "ran 3")
"""


def test_an_am_runs_three_containers_and_succeeds(server: Server, tmp_path: Path) -> None:
    run_am(server, tmp_path, RUN_THREE)
    wait_ended(server, APP)
    assert server.driver.engine.app(APP).state is AppState.FINISHED
    report = server.hub.report(APP)
    assert report is not None and report.final_status == "SUCCEEDED"
    assert report.diagnostics == "ran 3" and report.tracking_url == "http://example/am"
    said = json.loads(am_log(tmp_path).strip().splitlines()[-1])
    ids = [f"container_1700000000000_0001_01_{n:06d}" for n in (2, 3, 4)]
    assert said == {"queue": "root.a", "statuses": [[c, 0] for c in ids]}
    for c in ids:  # each container's own stdout, with YARN's CONTAINER_ID in its environment
        out = tmp_path / "logs" / APP / c / "stdout"
        assert out.read_text() == f"hello from {c}\n"
    assert server.executor.running() == []


PREEMPTED = """
import json, time
from fairshare.client import AMClient, ContainerAsk
with AMClient.from_env() as am:
    am.register()
    am.allocate([ContainerAsk(7, 1024)])
    started, warned, completed = [], set(), []
    deadline = time.monotonic() + 30
    while len(completed) < 2 and time.monotonic() < deadline:
        answer = am.allocate()
        for c in answer.allocated:
            am.start_container(c.id, "sleep 60")
            started.append(c.id)
        warned |= set(answer.to_preempt)
        completed += [[s.container_id, s.exit_status, s.diagnostics] for s in answer.completed]
        time.sleep(0.05)
    print(json.dumps({"started": started, "warned": sorted(warned),
                      "completed": sorted(completed)}))
    am.unregister("SUCCEEDED")
"""


def test_preemption_of_real_processes_reaches_the_am_and_gives_the_starved_queue_its_share(
        server: Server, tmp_path: Path) -> None:
    run_am(server, tmp_path, PREEMPTED)
    deadline = time.monotonic() + 20
    while len(server.executor.running()) < 8:  # the AM and its seven sleeps hold the node
        assert time.monotonic() < deadline, server.executor.running()
        time.sleep(0.05)
    pids = {c: server.executor.pid(APP, c) for _, c in server.executor.running()}
    # bob's app in root.b: fair share 4 GB, starved by min(0.5 x 4 GB, 4 GB) = 2 GB after 1 s
    server.driver.command(Submit(OTHER, "root.b", "bob", am=None, requests=(ask(4),)))
    wait_ended(server, APP)
    said = json.loads(am_log(tmp_path).strip().splitlines()[-1])
    assert len(said["started"]) == 7
    assert len(said["warned"]) == 2  # the strict contract named them first
    assert said["completed"] == [[c, -102, "Container preempted by scheduler"]
                                 for c in said["warned"]]
    # b got the 2 GB back: its first containers are placed in the space preemption freed
    given = [e for e in server.driver.engine.events
             if isinstance(e, ContainerAllocated) and e.app == OTHER]
    assert [(e.resource.memory, e.via) for e in given[:2]] == [(GB, AllocationVia.EARMARK)] * 2
    deadline = time.monotonic() + 5
    while server.executor.running():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    for pid in pids.values():  # every process ended: the preempted, and the rest with the app
        assert pid is not None and _gone(pid), pid


def _gone(pid: int) -> bool:
    """No such process, or a zombie (ended, waiting for its parent)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


FAILS = "import sys; sys.exit(4)"


def test_an_am_that_fails_every_attempt_fails_the_app(server: Server, tmp_path: Path) -> None:
    script = tmp_path / "fail.py"
    script.write_text(FAILS)
    sub = submission(command=f"{sys.executable} {script}", max_attempts=2)
    server.hub.expect(sub)
    server.driver.command(Submit(sub.application_id, sub.queue, sub.user, am=sub.am_resource))
    wait_ended(server, APP)
    report = server.hub.report(APP)
    assert report is not None and report.failed and report.attempts_failed == 2
    assert "exitCode: 4" in report.diagnostics


def test_from_env_needs_the_ams_variables() -> None:
    with pytest.raises(RuntimeError, match="FAIRSHARE_AM_TOKEN"):
        AMClient.from_env({"FAIRSHARE_AM_URL": "http://x"})


def test_a_refusal_is_a_client_error_with_yarns_exception(server: Server) -> None:
    with AMClient(server.url, "wrong") as am, pytest.raises(ClientError) as e:
        am.register()
    assert (e.value.status, e.value.exception) == (401, "AuthorizationException")


def test_the_client_sends_what_docs_say(tmp_path: Path) -> None:
    seen: list[tuple[str, str, object]] = []

    def answer(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.path, request.headers["authorization"],
                     json.loads(request.content)))
        return httpx.Response(200, json={"responseId": 1, "allocatedContainers": [],
                                         "completedContainersStatuses": []})

    with AMClient("http://rm:8088/", "tok", transport=httpx.MockTransport(answer)) as am:
        am.allocate([ContainerAsk(2, 2048, 2, priority=5, node="h:1")],
                    ["container_1_0001_01_000002"], 0.25)
    assert seen == [("/ws/v1/fairshare/am/allocate", "Bearer tok", {
        "asks": [{"count": 2, "priority": 5, "resource": {"memory": 2048, "vCores": 2},
                  "relaxLocality": True, "node": "h:1"}],
        "releases": ["container_1_0001_01_000002"], "progress": 0.25})]


def test_the_docs_example_am_runs(server: Server, tmp_path: Path) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "am-protocol.md").read_text()
    section = page.split("## A complete AM in Python", 1)[1]
    program = section.split("```python\n", 1)[1].split("```", 1)[0]
    run_am(server, tmp_path, program)
    wait_ended(server, APP)
    report = server.hub.report(APP)
    assert report is not None
    assert (report.final_status, report.diagnostics) == ("SUCCEEDED", "4 of 4 parts succeeded")
    assert "registered in root.a" in am_log(tmp_path)

"""The AM protocol's hub against a real engine (through an EngineDriver as the loop's) and an
executor that records: the AM's launch and token, register/allocate/start/unregister,
preemption reaching the AM, attempts failing as YARN's do; and the REST routes' refusals."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from fairshare.core import Advance as AdvanceClock
from fairshare.core import (
    AppState,
    ContainerRequest,
    Finish,
    HeartbeatAll,
    Kill,
    Release,
    Submit,
    Update,
)
from fairshare.server.am import AMHub
from fairshare.server.am_routes import PREFIX, am_router
from fairshare.server.am_state import AllocateResult, Attempt
from fairshare.server.control import Refused
from tests.core.engine_builders import GB, ask, r
from tests.server.am_fixtures import (
    NODE,
    EngineDriverOnEngine,
    RecordingExecutor,
    make_hub,
    submission,
)

APP = "application_1700000000000_0001"
OTHER = "application_1700000000000_0002"


def schedule(driver: EngineDriverOnEngine) -> None:
    """One update pass and one heartbeat of every node (what the loop does on its clock)."""
    driver.command(Update(preempt=False))
    driver.command(HeartbeatAll())


def start_am(hub: AMHub, driver: EngineDriverOnEngine, ex: RecordingExecutor,
             **kwargs: object) -> tuple[str, Attempt]:
    sub = submission(**kwargs)  # type: ignore[arg-type]
    hub.expect(sub)
    driver.command(Submit(sub.application_id, sub.queue, sub.user, am=sub.am_resource))
    schedule(driver)
    launch = ex.launches[-1]
    assert launch.am
    token = launch.environment["FAIRSHARE_AM_TOKEN"]
    return token, hub.attempt_of(token)


def eventually(check: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "never happened"
        time.sleep(0.01)


def allocate_until(hub: AMHub, attempt: Attempt, done: Callable[[AllocateResult], bool]
                   ) -> AllocateResult:
    """Allocate calls (the AM's heartbeats) until one answers what ``done`` wants."""
    deadline = time.monotonic() + 5
    while True:
        result = hub.allocate(attempt, [], [], 0.5)
        if done(result):
            return result
        assert time.monotonic() < deadline, "no such answer"
        time.sleep(0.01)


@pytest.fixture
def setup(tmp_path: Path):  # type: ignore[no-untyped-def]
    ex = RecordingExecutor()
    hub, driver = make_hub(tmp_path, ex)
    yield hub, driver, ex
    hub.close()


# -- the AM's launch -------------------------------------------------------------------------

def test_the_am_command_runs_as_the_am_container_with_its_token_and_the_servers_url(
        setup, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    hub, driver, ex = setup
    token, attempt = start_am(hub, driver, ex, environment=(("MY_VAR", "1"),))
    [launch] = ex.launches
    container = "container_1700000000000_0001_01_000001"  # ContainerId.toString, attempt 1
    assert (launch.app, launch.container, launch.node, launch.am) == (APP, container, NODE, True)
    assert launch.command == "python3 my_am.py"
    assert launch.resource == r(GB, 1)
    env = launch.environment
    assert env["FAIRSHARE_AM_URL"] == "http://127.0.0.1:1"
    assert len(token) >= 40  # secrets.token_urlsafe(32): 256 random bits
    assert env["MY_VAR"] == "1" and env["USER"] == "alice"
    assert env["MAX_APP_ATTEMPTS"] == "2"  # AMLauncher's MAX_APP_ATTEMPTS
    assert env["APP_ATTEMPT_ID"] == "appattempt_1700000000000_0001_000001"
    assert env["APP_SUBMIT_TIME_ENV"] == str(driver.epoch_ms)  # submitted at engine time 0
    # the NodeManager's layout: usercache/<user>/appcache/<app>/<container>, logs/<app>/<c>
    assert launch.work_dir == (tmp_path / "local" / "usercache" / "alice" / "appcache" / APP
                               / container)
    assert launch.log_dir == tmp_path / "logs" / APP / container
    assert attempt.attempt_id == "appattempt_1700000000000_0001_000001"
    assert hub.owns(APP) and not hub.owns(OTHER)


def test_register_allocate_and_start_containers(setup) -> None:  # type: ignore[no-untyped-def]
    hub, driver, ex = setup
    _, attempt = start_am(hub, driver, ex)
    answer = hub.register(attempt, "am-host", 4000, "http://am-host:4001/")
    assert answer["queue"] == "root.a"
    assert hub.report(APP).registered  # type: ignore[union-attr]
    first = hub.allocate(attempt, [ContainerRequest(7, r(GB, 1), 3)], [], 0.1)
    assert first.allocated == () and first.response_id == 1
    schedule(driver)  # 8 GB node: the AM's 1 GB and seven 1 GB tasks (assignmultiple)
    second = hub.allocate(attempt, [], [], 0.2)
    assert [c.id for c in second.allocated] == [
        f"container_1700000000000_0001_01_{n:06d}" for n in range(2, 9)]
    assert {(c.node, c.node_http_address, c.priority, c.resource) for c in second.allocated} \
        == {(NODE, "host1:9041", 3, r(GB, 1))}
    assert hub.allocate(attempt, [], [], 0.3).allocated == ()  # given once
    for c in second.allocated[:2]:
        hub.start_container(attempt, c.id, "echo task", {"K": "v", "FAIRSHARE_AM_TOKEN": "x"})
    tasks = ex.launches[1:]
    assert [(t.container, t.am, t.command) for t in tasks] == [
        (c.id, False, "echo task") for c in second.allocated[:2]]
    assert tasks[0].environment["K"] == "v" and tasks[0].environment["USER"] == "alice"
    assert "FAIRSHARE_AM_TOKEN" not in tasks[0].environment  # a task never gets the token
    assert hub.report(APP).progress == 0.3  # type: ignore[union-attr]


def test_preemption_reaches_the_am_as_a_contract_then_as_exit_status_minus_102(
        setup) -> None:  # type: ignore[no-untyped-def]
    hub, driver, ex = setup
    _, attempt = start_am(hub, driver, ex)
    hub.register(attempt, "", -1, "")
    hub.allocate(attempt, [ContainerRequest(7, r(GB, 1), 1)], [], 0.0)
    schedule(driver)
    granted = hub.allocate(attempt, [], [], 0.0).allocated
    for c in granted:
        hub.start_container(attempt, c.id, "sleep 100", {})
    # bob's app in root.b asks for 4 GB: its fair share is 4 GB (half of 8), so past the 1 s
    # timeout it is starved by min(0.5 x 4 GB, 4 GB) - 0 = 2 GB: two 1 GB victims
    # (docs/semantics.md §4.2)
    driver.command(Submit(OTHER, "root.b", "bob", am=None, requests=(ask(4),)))
    driver.command(AdvanceClock(1500))
    driver.command(Update())
    warned = hub.allocate(attempt, [], [], 0.0)
    assert len(warned.to_preempt) == 2
    assert set(warned.to_preempt) <= {c.id for c in granted}
    assert warned.completed == ()
    assert hub.allocate(attempt, [], [], 0.0).to_preempt == warned.to_preempt  # until gone
    driver.command(AdvanceClock(1000))  # waitTimeBeforeKill 1 s: the victims are killed
    killed = hub.allocate(attempt, [], [], 0.0)
    assert sorted((s.id, s.exit_status, s.diagnostics) for s in killed.completed) == [
        (c, -102, "Container preempted by scheduler") for c in warned.to_preempt]
    assert killed.to_preempt == ()
    assert sorted(ex.stops) == [(APP, c, 250) for c in warned.to_preempt]  # SIGTERM, SIGKILL


def test_a_task_that_exits_completes_with_its_exit_code(setup) -> None:  # type: ignore[no-untyped-def]
    hub, driver, ex = setup
    _, attempt = start_am(hub, driver, ex)
    hub.register(attempt, "", -1, "")
    hub.allocate(attempt, [ContainerRequest(2, r(GB, 1), 1)], [], 0.0)
    schedule(driver)
    a, b = hub.allocate(attempt, [], [], 0.0).allocated
    hub.start_container(attempt, a.id, "exit 3", {})
    hub.start_container(attempt, b.id, "true", {})
    hub.container_exited(APP, a.id, 3, "Exception from container-launch. Exit code: 3")
    hub.container_exited(APP, b.id, 0, "")
    done = allocate_until(hub, attempt, lambda res: len(res.completed) == 2)
    assert [(s.id, s.exit_status) for s in done.completed] == [(a.id, 3), (b.id, 0)]
    assert ex.stops == []  # they ended by themselves
    assert driver.engine.app(APP).containers.keys() == {
        "container_application_1700000000000_0001_01_000001"}  # the AM's alone


def test_a_released_container_completes_as_aborted_and_its_process_is_stopped(
        setup) -> None:  # type: ignore[no-untyped-def]
    hub, driver, ex = setup
    _, attempt = start_am(hub, driver, ex)
    hub.register(attempt, "", -1, "")
    hub.allocate(attempt, [ContainerRequest(2, r(GB, 1), 1)], [], 0.0)
    schedule(driver)
    a, b = hub.allocate(attempt, [], [], 0.0).allocated
    hub.start_container(attempt, a.id, "sleep 100", {})
    released = hub.allocate(attempt, [], [a.id, b.id], 0.0)
    # SchedulerUtils.createAbnormalContainerStatus(RELEASED_CONTAINER): ABORTED, -100
    assert [(s.id, s.exit_status, s.diagnostics) for s in released.completed] == [
        (a.id, -100, "Container released by application"),
        (b.id, -100, "Container released by application")]
    assert ex.stops == [(APP, a.id, 250)]  # only the one that was started runs a process


def test_an_am_that_exits_without_unregistering_fails_its_attempt_then_the_app(
        setup) -> None:  # type: ignore[no-untyped-def]
    hub, driver, ex = setup
    token, attempt = start_am(hub, driver, ex, max_attempts=2)
    hub.register(attempt, "", -1, "")
    hub.allocate(attempt, [ContainerRequest(2, r(GB, 1), 1)], [], 0.0)
    schedule(driver)
    tasks = hub.allocate(attempt, [], [], 0.0).allocated
    for c in tasks:
        hub.start_container(attempt, c.id, "sleep 100", {})
    am1 = ex.launches[0].container
    hub.container_exited(APP, am1, 1, "boom")
    eventually(lambda: any(isinstance(c, Release) for c in driver.commands))
    assert Release(APP, 1, "am") in driver.commands  # the engine's failed-attempt restart
    assert sorted(ex.stops) == sorted((APP, c.id, 250) for c in tasks)  # its tasks end
    with pytest.raises(Refused) as refused:
        hub.attempt_of(token)  # the token expired with its attempt
    assert refused.value.status == 401
    report = hub.report(APP)
    assert report is not None and report.attempts_failed == 1 and not report.failed
    assert "exited with  exitCode: 1" in report.diagnostics
    # attempt 2: a new AM with a new token; the engine's re-ask of the old tasks is given back
    schedule(driver)
    eventually(lambda: len(driver.engine.app(APP).containers) == 1)
    am2 = ex.launches[-1]
    assert am2.am and am2.container == "container_1700000000000_0001_02_000001"
    assert am2.environment["APP_ATTEMPT_ID"] == "appattempt_1700000000000_0001_000002"
    token2 = am2.environment["FAIRSHARE_AM_TOKEN"]
    assert token2 != token
    attempt2 = hub.attempt_of(token2)
    hub.register(attempt2, "", -1, "")
    assert hub.allocate(attempt2, [], [], 0.0).allocated == ()
    hub.container_exited(APP, am2.container, 0, "")  # exit 0 without unregister: failed too
    eventually(lambda: Kill(APP) in driver.commands)
    report = hub.report(APP)
    assert report is not None and report.failed and report.final_status == "FAILED"
    assert report.attempts_failed == 2
    assert "failed 2 times" in report.diagnostics
    assert driver.engine.app(APP).state is AppState.KILLED  # the engine has no failed state


def test_an_am_container_the_rm_takes_back_does_not_count_as_a_failed_attempt(setup) -> None:  # type: ignore[no-untyped-def]
    hub, driver, ex = setup
    token, _ = start_am(hub, driver, ex, max_attempts=1)
    driver.command(Release(APP, 1, "am"))  # the RM took the AM back (so do preemption, a lost node)
    assert ex.stops == [(APP, ex.launches[0].container, 250)]
    with pytest.raises(Refused):
        hub.attempt_of(token)
    assert hub.report(APP).attempts_failed == 0  # type: ignore[union-attr]
    schedule(driver)
    assert ex.launches[-1].container == "container_1700000000000_0001_02_000001"


def test_unregister_then_exit_finishes_the_app(setup) -> None:  # type: ignore[no-untyped-def]
    hub, driver, ex = setup
    token, attempt = start_am(hub, driver, ex)
    hub.register(attempt, "", -1, "http://am:1/")
    hub.unregister(attempt, "SUCCEEDED", "all done", "")
    report = hub.report(APP)
    assert report is not None and report.final_status == "SUCCEEDED"
    assert report.diagnostics == "all done" and report.tracking_url == "http://am:1/"
    assert not any(isinstance(c, Finish) for c in driver.commands)  # FINISHING: AM still up
    hub.container_exited(APP, ex.launches[0].container, 0, "")
    eventually(lambda: Finish(APP) in driver.commands)
    assert driver.engine.app(APP).state is AppState.FINISHED
    assert ex.stops == []
    with pytest.raises(Refused):
        hub.attempt_of(token)


def test_an_am_that_does_not_exit_after_unregistering_is_stopped(tmp_path: Path) -> None:
    ex = RecordingExecutor()
    hub, driver = make_hub(tmp_path, ex, finish_wait_ms=50)
    try:
        _, attempt = start_am(hub, driver, ex)
        hub.register(attempt, "", -1, "")
        hub.unregister(attempt, "FAILED", "gave up", "")
        eventually(lambda: Finish(APP) in driver.commands)
        assert ex.stops == [(APP, ex.launches[0].container, 250)]
        assert hub.report(APP).final_status == "FAILED"  # type: ignore[union-attr]
    finally:
        hub.close()


def test_a_killed_app_stops_every_process_and_revokes_the_token(setup) -> None:  # type: ignore[no-untyped-def]
    hub, driver, ex = setup
    token, attempt = start_am(hub, driver, ex)
    hub.register(attempt, "", -1, "")
    hub.allocate(attempt, [ContainerRequest(1, r(GB, 1), 1)], [], 0.0)
    schedule(driver)
    [task] = hub.allocate(attempt, [], [], 0.0).allocated
    hub.start_container(attempt, task.id, "sleep 100", {})
    driver.command(Kill(APP))  # PUT …/state KILLED, through the loop
    assert sorted(ex.stops) == sorted([(APP, ex.launches[0].container, 250), (APP, task.id, 250)])
    with pytest.raises(Refused):
        hub.attempt_of(token)


# -- refusals --------------------------------------------------------------------------------

def refused(call: Callable[[], object]) -> tuple[int, str]:
    with pytest.raises(Refused) as e:
        call()
    return e.value.status, e.value.exception


def test_what_yarn_refuses_an_am(setup) -> None:  # type: ignore[no-untyped-def]
    hub, driver, ex = setup
    _, attempt = start_am(hub, driver, ex)
    assert refused(lambda: hub.allocate(attempt, [], [], 0.0)) == (
        400, "ApplicationMasterNotRegisteredException")
    hub.register(attempt, "", -1, "")
    assert refused(lambda: hub.register(attempt, "", -1, "")) == (
        400, "InvalidApplicationMasterRequestException")
    too_big = ContainerRequest(1, r(64 * GB, 1), 1)  # above yarn.scheduler.maximum-allocation-mb
    assert refused(lambda: hub.allocate(attempt, [too_big], [], 0.0)) == (
        400, "InvalidResourceRequestException")
    foreign = "container_1700000000000_0002_01_000002"
    assert refused(lambda: hub.allocate(attempt, [], [foreign], 0.0)) == (
        400, "InvalidContainerReleaseException")
    unknown = "container_1700000000000_0001_01_000099"
    assert refused(lambda: hub.start_container(attempt, unknown, "true", {})) == (
        404, "InvalidContainerException")
    assert refused(lambda: hub.start_container(attempt, ex.launches[0].container, "true",
                                               {})) == (404, "InvalidContainerException")
    assert refused(lambda: hub.attempt_of("not-a-token")) == (401, "AuthorizationException")


def test_the_token_is_never_logged(setup, caplog: pytest.LogCaptureFixture) -> None:  # type: ignore[no-untyped-def]
    caplog.set_level(logging.DEBUG)
    hub, driver, ex = setup
    token, attempt = start_am(hub, driver, ex)
    hub.register(attempt, "", -1, "")
    hub.allocate(attempt, [ContainerRequest(1, r(GB, 1), 1)], [], 0.0)
    hub.container_exited(APP, ex.launches[0].container, 1, "")
    eventually(lambda: Release(APP, 1, "am") in driver.commands)
    assert caplog.records  # something was logged
    assert token not in caplog.text
    assert token not in repr(attempt) and token not in repr(ex.launches[0].environment.keys())


# -- the REST routes -------------------------------------------------------------------------

@pytest.fixture
def client(setup):  # type: ignore[no-untyped-def]
    hub, driver, ex = setup
    token, _ = start_am(hub, driver, ex)
    app = FastAPI()
    app.include_router(am_router(hub), prefix=PREFIX)
    with TestClient(app) as http:
        http.headers["Authorization"] = f"Bearer {token}"
        yield http, driver


def test_the_routes_speak_yarns_records(client) -> None:  # type: ignore[no-untyped-def]
    http, driver = client
    reg = http.post(f"{PREFIX}/register", json={"host": "h", "rpcPort": 1})
    assert reg.status_code == 200
    body = reg.json()
    assert body["queue"] == "root.a" and body["applicationId"] == APP
    assert body["appAttemptId"] == "appattempt_1700000000000_0001_000001"
    # yarn.scheduler.maximum-allocation-mb / -vcores defaults: 8192 MB, 4 vcores
    assert body["maximumResourceCapability"] == {"memory": 8192, "vCores": 4}
    ask_body = {"asks": [{"count": 1, "resource": {"memory": 1024, "vCores": 1},
                          "priority": 2}], "progress": 0.5}
    assert http.post(f"{PREFIX}/allocate", json=ask_body).json() == {
        "responseId": 1, "allocatedContainers": [], "completedContainersStatuses": []}
    schedule(driver)
    got = http.post(f"{PREFIX}/allocate", json={}).json()["allocatedContainers"]
    assert got == [{"id": "container_1700000000000_0001_01_000002", "nodeId": NODE,
                    "nodeHttpAddress": "host1:9041", "resource": {"memory": 1024, "vCores": 1},
                    "priority": 2}]
    start = http.post(f"{PREFIX}/containers/{got[0]['id']}/start", json={"command": "true"})
    assert start.status_code == 200
    assert http.post(f"{PREFIX}/unregister",
                     json={"finalApplicationStatus": "SUCCEEDED"}).json() == {
        "isUnregistered": True}


@pytest.mark.parametrize(("path", "body", "status", "needle"), [
    ("/allocate", b"{not json", 400, "not JSON"),
    ("/allocate", b"[]", 400, "JSON object"),
    ("/allocate", b"[" * 100_000, 400, "not JSON"),  # nested past Python's recursion limit
    ("/allocate", b"\xff", 400, "not JSON"),
    ("/allocate", {"asks": [{"resource": {"memory": 1, "vCores": 1}}]}, 400, "count"),
    ("/allocate", {"asks": [{"count": 0, "resource": {"memory": 1, "vCores": 1}}]}, 400,
     "at least 1"),
    ("/allocate", {"asks": [{"count": 1, "resource": {"memory": 1}}]}, 400, "vCores"),
    ("/allocate", {"asks": [{"count": 1, "resource": {"memory": 1, "vCores": 1, "gpu": 1}}]},
     400, "unknown resource type"),
    ("/allocate", {"asks": [{"count": 1, "node": "a", "rack": "/r",
                             "resource": {"memory": 1, "vCores": 1}}]}, 400, "not both"),
    ("/allocate", {"releases": ["nope"]}, 400, "container id"),
    ("/allocate", {"progress": "half"}, 400, "progress"),
    ("/unregister", {"finalApplicationStatus": "DONE"}, 400, "finalApplicationStatus"),
    ("/containers/container_1700000000000_0001_01_000002/start", {"command": ""}, 400,
     "command"),
    ("/containers/container_1700000000000_0001_01_000002/start",
     {"command": "true", "environment": {"A": 1}}, 400, "environment"),
    # text no answer or log can carry (docs/serve.md, "Bad input")
    ("/containers/container_1700000000000_0001_01_000002/start",
     b'{"command": "echo \\ud800"}', 400, "command: contains U+D800"),
    ("/containers/container_1700000000000_0001_01_000002/start",
     {"command": "true", "environment": {"A": "\x00"}}, 400,
     "environment.A: contains U+0000"),
    ("/unregister", {"diagnostics": "\x1b[2J"}, 400, "diagnostics: contains U+001B"),
    ("/allocate", {"asks": [{"count": 2 ** 31, "resource": {"memory": 1, "vCores": 1}}]}, 400,
     "count"),
    ("/allocate", {"asks": [{"count": 1, "priority": 2 ** 31,
                             "resource": {"memory": 1, "vCores": 1}}]}, 400, "priority"),
    ("/allocate", {"asks": [{"count": 1, "resource": {"memory": 2 ** 63, "vCores": 1}}]}, 400,
     "memory must be a non-negative integer"),
])
def test_bad_bodies_are_400_naming_the_field(client, path: str, body: object, status: int,
                                             needle: str) -> None:  # type: ignore[no-untyped-def]
    http, _ = client
    http.post(f"{PREFIX}/register", json={})
    if isinstance(body, bytes):
        answer = http.post(f"{PREFIX}{path}", content=body)
    else:
        answer = http.post(f"{PREFIX}{path}", json=body)
    assert answer.status_code == status
    remote = answer.json()["RemoteException"]
    assert remote["exception"] == "BadRequestException"
    assert needle in remote["message"]


def test_no_or_a_wrong_token_is_401(client) -> None:  # type: ignore[no-untyped-def]
    http, _ = client
    for headers in ({"Authorization": ""}, {"Authorization": "Bearer wrong"},
                    {"Authorization": "Basic abc"}):
        answer = http.post(f"{PREFIX}/register", json={}, headers=headers)
        assert answer.status_code == 401
        assert answer.json()["RemoteException"]["exception"] == "AuthorizationException"

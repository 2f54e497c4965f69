"""fairshare.client.YarnClient against Hadoop 3.4.2's own answers (tests/watch/recorded/) and
the requests and status codes of YARN's REST API write endpoints."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from fairshare.client import ClientError, YarnClient
from fairshare.client.yarn import AM_CONTAINER

RECORDED = Path(__file__).resolve().parents[1] / "watch" / "recorded" / "fair-preempted"
GETS = {"/ws/v1/cluster/apps": "apps", "/ws/v1/cluster/scheduler": "scheduler",
        "/ws/v1/cluster/nodes": "nodes", "/ws/v1/cluster/metrics": "metrics",
        "/ws/v1/cluster/info": "info"}


class FakeRM:
    """Answers GETs with the recorded bodies and the writes as YARN does (captured codes)."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if request.method == "GET" and path in GETS:
            return httpx.Response(200, content=(RECORDED / f"{GETS[path]}.json").read_bytes(),
                                  headers={"content-type": "application/json"})
        if path == "/ws/v1/cluster/apps/new-application":
            return httpx.Response(200, json={
                "application-id": "application_1796153631387_0002",
                "maximum-resource-capability": {"memory": 8192, "vCores": 4}})
        if path == "/ws/v1/cluster/apps" and request.method == "POST":
            return httpx.Response(202, headers={
                "Location": "http://rm/ws/v1/cluster/apps/application_1796153631387_0002"})
        if path.endswith("/state") and request.method == "PUT":
            return httpx.Response(202, json={"state": "FINAL_SAVING"})
        if path.endswith("/queue") and request.method == "PUT":
            queue = json.loads(request.content)["queue"]
            if queue == "root.nope":  # captured: 403, a plain-text body
                return httpx.Response(403, text="Unauthorized attempt to move appid "
                                      "application_1_0001 by remote user yarn")
            return httpx.Response(200, json={"queue": queue})
        return httpx.Response(404, json={"RemoteException": {
            "exception": "NotFoundException",
            "message": "java.lang.Exception: app with id: application_1_0001 not found",
            "javaClassName": "org.apache.hadoop.yarn.webapp.NotFoundException"}})


@pytest.fixture
def rm() -> FakeRM:
    return FakeRM()


def client(rm: FakeRM, user: str | None = "alice") -> YarnClient:
    return YarnClient("http://rm:8088", user, transport=httpx.MockTransport(rm))


def test_reads_a_real_rms_answers(rm: FakeRM) -> None:
    with client(rm) as yarn:
        apps = yarn.apps(states=["RUNNING", "ACCEPTED"], queue="root.b", limit=5)
        assert [(a["id"], a["user"], a["queue"]) for a in apps] == [
            ("application_1796196824096_0002", "bob", "root.b"),
            ("application_1796196824096_0001", "alice", "root.a")]
        scheduler = yarn.scheduler()
        assert scheduler["type"] == "fairScheduler"
        assert scheduler["rootQueue"]["queueName"] == "root"
        assert len(yarn.nodes()) == 4
        assert yarn.metrics()["totalMB"] == 4 * 8192  # 4 nodes of 8192 MB (the README)
        assert yarn.info()["resourceManagerVersion"] == "3.4.2"
    first = rm.requests[0]
    assert first.url.params["user.name"] == "alice"  # PseudoAuthenticationHandler
    assert first.url.params["states"] == "RUNNING,ACCEPTED"
    assert (first.url.params["queue"], first.url.params["limit"]) == ("root.b", "5")
    assert first.headers["accept"] == "application/json"


def test_submits_an_application_submission_context(rm: FakeRM) -> None:
    with client(rm) as yarn:
        app = yarn.submit_app("python3 am.py", name="bob-rest", queue="root.b.b1",
                              memory_mb=1024, vcores=1, environment={"K": "v"},
                              tags=["t1", "t2"])
    assert app == "application_1796153631387_0002"
    new, submit = rm.requests
    assert (new.method, new.url.path) == ("POST", "/ws/v1/cluster/apps/new-application")
    body = json.loads(submit.content)
    # the fields of the minimal body a Hadoop 3.4 RM accepted (as captured)
    assert body["application-id"] == app
    assert body["application-name"] == "bob-rest" and body["queue"] == "root.b.b1"
    assert body[AM_CONTAINER] == {"commands": {"command": "python3 am.py"},
                                         "environment": {"entry": [{"key": "K",
                                                                    "value": "v"}]}}
    assert body["resource"] == {"memory": 1024, "vCores": 1}
    assert body["application-tags"] == {"tag": ["t1", "t2"]}
    assert body["max-app-attempts"] == 2 and body["unmanaged-AM"] is False


def test_kill_move_and_refusals(rm: FakeRM) -> None:
    with client(rm, None) as yarn:
        assert yarn.kill("application_1_0001", "enough") == "FINAL_SAVING"
        assert yarn.move("application_1_0001", "root.b") == "root.b"
        with pytest.raises(ClientError) as moved:
            yarn.move("application_1_0001", "root.nope")
        with pytest.raises(ClientError) as missing:
            yarn.state("application_1_0001")
    kill = rm.requests[0]
    assert (kill.method, kill.url.path) == ("PUT", "/ws/v1/cluster/apps/application_1_0001/state")
    assert json.loads(kill.content) == {"state": "KILLED", "diagnostics": "enough"}
    assert "user.name" not in kill.url.params  # anonymous: dr.who
    assert moved.value.status == 403 and "Unauthorized attempt to move" in moved.value.message
    assert (missing.value.status, missing.value.exception) == (404, "NotFoundException")
    assert missing.value.message.endswith("app with id: application_1_0001 not found")

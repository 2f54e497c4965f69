"""Every route of ``/ws/v1/cluster`` over HTTP (FastAPI's TestClient, no socket): status codes,
bodies, headers and content types as a Hadoop 3.4 RM gives them (the captured answers of a real RM,
tests/watch/recorded/), good requests and bad."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from fairshare.server.rest.app import create_rest_app
from tests.server.rest.fake import TS, FakeControl
from tests.server.rest.scenes import fair_preempted
from tests.server.rest.shapes import parse

BASE = "/ws/v1/cluster"
ALICE, BOB = f"application_{TS}_0001", f"application_{TS}_0002"
JSON = "application/json;charset=utf-8"
XML = "application/xml; charset=utf-8"
REJECTING = """<?xml version="1.0"?><allocations>
  <queue name="a"/><queue name="b"/>
  <queuePlacementPolicy><rule name="specified" create="false"/><rule name="reject"/>
  </queuePlacementPolicy></allocations>"""


@pytest.fixture(scope="module")
def reader() -> Iterator[TestClient]:
    """For the tests that change nothing: one scene for all of them."""
    with TestClient(create_rest_app(fair_preempted()[0])) as c:
        yield c


def remote(response: object) -> dict[str, str]:
    body = json.loads(response.content)  # type: ignore[attr-defined]
    assert list(body) == ["RemoteException"]
    return dict(body["RemoteException"])


# --- reads ---------------------------------------------------------------------------------


def test_info_as_json_by_default_with_hadoops_headers(reader: TestClient) -> None:
    response = reader.get(f"{BASE}/info")
    assert response.status_code == 200
    assert response.headers["content-type"] == JSON
    assert response.content.startswith(b'{"clusterInfo":{"id":1796196824096,'
                                       b'"startedOn":1796196824096,"state":"STARTED"')
    for name, value in (("cache-control", "no-cache"), ("pragma", "no-cache"),
                        ("x-content-type-options", "nosniff"),
                        ("x-frame-options", "SAMEORIGIN"),
                        ("x-xss-protection", "1; mode=block")):
        assert response.headers[name] == value
    assert "expires" in response.headers
    for path in (BASE, f"{BASE}/", f"{BASE}/info/"):
        assert reader.get(path).content == response.content


def test_xml_on_request(reader: TestClient) -> None:
    response = reader.get(f"{BASE}/scheduler", headers={"Accept": "application/xml"})
    assert response.headers["content-type"] == XML
    assert response.content.startswith(
        b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><scheduler><schedulerInfo '
        b'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:type="fairScheduler">'
        b"<rootQueue><maxApps>2147483647</maxApps>")
    assert b'<queue xsi:type="fairSchedulerLeafQueueInfo">' in response.content


@pytest.mark.parametrize(("accept", "kind"), [
    ("", JSON), ("*/*", JSON), ("application/json", JSON), ("application/*", JSON),
    ("application/xml, application/json", JSON),  # a tie: JSON, listed first by @Produces
    ("application/json;q=0.5, application/xml", XML),
    # what a browser sends: XML (q 0.9) beats */* (q 0.8)
    ("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8", XML),
])
def test_content_negotiation(reader: TestClient, accept: str, kind: str) -> None:
    response = reader.get(f"{BASE}/metrics", headers={"Accept": accept})
    assert (response.status_code, response.headers["content-type"]) == (200, kind)


def test_nothing_acceptable_is_406(reader: TestClient) -> None:
    response = reader.get(f"{BASE}/metrics", headers={"Accept": "text/html"})
    assert (response.status_code, response.content) == (406, b"")


def test_scheduler_and_activities(reader: TestClient) -> None:
    body = parse(reader.get(f"{BASE}/scheduler").content)
    info = body.get("scheduler").get("schedulerInfo")
    assert [k for k, _ in info] == ["type", "rootQueue"] and info.get("type") == "fairScheduler"
    assert reader.get(f"{BASE}/scheduler/activities").content == \
        b'{"activities":{"diagnostic":"Not Capacity Scheduler"}}'


def test_apps_without_filters(reader: TestClient) -> None:
    apps = json.loads(reader.get(f"{BASE}/apps").content)["apps"]["app"]
    assert [a["id"] for a in apps] == [BOB, ALICE]  # the RM's hash order (recorded)


def ids(client: TestClient, query: str) -> list[str]:
    response = client.get(f"{BASE}/apps?{query}")
    assert response.status_code == 200, response.content
    return [a["id"] for a in json.loads(response.content)["apps"].get("app", [])]


@pytest.mark.parametrize(("query", "expected"), [
    ("states=running", [BOB, ALICE]),
    ("states=accepted,finished", []),
    ("states=ACCEPTED&states=RUNNING", [BOB, ALICE]),
    ("state=running", [BOB, ALICE]),
    ("user=alice", [ALICE]),
    ("queue=root.b", [BOB]),
    ("queue=b", []),
    ("limit=1", [BOB]),
    ("name=nobody", []),
    ("applicationTypes=yarn,mapreduce", [BOB, ALICE]),
    ("applicationTypes=MAPREDUCE", []),
    ("applicationTags=etl", []),
    (f"startedTimeBegin={TS + 1}", [BOB]),  # alice was submitted at TS
    (f"startedTimeEnd={TS}", [ALICE]),
    ("finishedTimeBegin=1", []),  # neither finished: finishedTime 0
    ("finalStatus=UNDEFINED", [BOB, ALICE]),
    ("finalStatus=SUCCEEDED", []),
    ("deSelects=resourceRequests,timeouts", [BOB, ALICE]),
    ("user.name=alice", [BOB, ALICE]),
])
def test_apps_filters(reader: TestClient, query: str, expected: list[str]) -> None:
    assert ids(reader, query) == expected


@pytest.mark.parametrize(("query", "exception", "message"), [
    ("states=bogus", "BadRequestException", "java.lang.Exception: Invalid application-state "
     "bogus specified. It should be one of [NEW, NEW_SAVING, SUBMITTED, ACCEPTED, RUNNING, "
     "FINISHED, FAILED, KILLED]"),
    ("limit=0", "BadRequestException", "java.lang.Exception: limit value must be greater "
     "then 0"),
    ("limit=ten", "NumberFormatException", 'For input string: "ten"'),
    ("startedTimeBegin=-5", "BadRequestException", "java.lang.Exception: startedTimeBegin "
     "must be greater than 0"),
    ("startedTimeBegin=10&startedTimeEnd=5", "BadRequestException", "java.lang.Exception: "
     "startedTimeEnd must be greater than startTimeBegin"),
    ("finishedTimeEnd=-1", "BadRequestException", "java.lang.Exception: finishedTimeEnd "
     "must be greater than 0"),
    ("finalStatus=succeeded", "IllegalArgumentException", "No enum constant "
     "org.apache.hadoop.yarn.api.records.FinalApplicationStatus.succeeded"),
    ("deSelects=everything", "BadRequestException", "java.lang.Exception: Invalid deSelects "
     "string everything specified. It should be one of resourceRequests, timeouts, "
     "appNodeLabelExpression, amNodeLabelExpression, resourceInfo"),
])
def test_apps_bad_queries(reader: TestClient, query: str, exception: str,
                          message: str) -> None:
    response = reader.get(f"{BASE}/apps?{query}")
    assert response.status_code == 400
    assert remote(response)["exception"] == exception
    assert remote(response)["message"] == message


def test_deselects_leave_fields_out(reader: TestClient) -> None:
    full = json.loads(reader.get(f"{BASE}/apps/{ALICE}").content)["app"]
    assert "resourceRequests" in full and "timeouts" in full
    less = json.loads(reader.get(f"{BASE}/apps/{ALICE}?deSelects=resourceRequests&"
                                 "deSelects=timeouts").content)["app"]
    assert "resourceRequests" not in less and "timeouts" not in less
    assert [k for k in full if k not in ("resourceRequests", "timeouts")] == list(less)


def test_one_app(reader: TestClient) -> None:
    response = reader.get(f"{BASE}/apps/{ALICE}")
    app = json.loads(response.content)["app"]
    assert (app["id"], app["user"], app["queue"], app["state"]) == \
        (ALICE, "alice", "root.a", "RUNNING")
    assert app["trackingUrl"] == f"http://testserver/proxy/{ALICE}/"
    # ApplicationId.fromString reads numbers: the RM finds application_<ts>_1 too
    assert reader.get(f"{BASE}/apps/application_{TS}_1").content == response.content


@pytest.mark.parametrize("suffix", ["", "/appattempts", "/state", "/queue", "/priority"])
def test_app_ids(reader: TestClient, suffix: str) -> None:
    bad = reader.get(f"{BASE}/apps/bogus{suffix}")
    assert bad.status_code == 400
    assert remote(bad) == {
        "exception": "BadRequestException",
        "message": "java.lang.IllegalArgumentException: Invalid ApplicationId prefix: bogus. "
                   "The valid ApplicationId should start with prefix application",
        "javaClassName": "org.apache.hadoop.yarn.webapp.BadRequestException"}
    assert remote(reader.get(f"{BASE}/apps/application_{TS}{suffix}"))["message"] == \
        f"java.lang.IllegalArgumentException: Invalid ApplicationId: application_{TS}"
    unknown = reader.get(f"{BASE}/apps/application_{TS}_0099{suffix}")
    assert unknown.status_code == 404
    assert remote(unknown) == {  # captured
        "exception": "NotFoundException",
        "message": f"java.lang.Exception: app with id: application_{TS}_0099 not found",
        "javaClassName": "org.apache.hadoop.yarn.webapp.NotFoundException"}


def test_attempts(reader: TestClient) -> None:
    attempts = json.loads(reader.get(f"{BASE}/apps/{ALICE}/appattempts").content)
    (attempt,) = attempts["appAttempts"]["appAttempt"]
    assert list(attempt) == ["id", "startTime", "finishedTime", "containerId",
                             "nodeHttpAddress", "nodeId", "logsLink", "blacklistedNodes",
                             "nodesBlacklistedBySystem", "appAttemptId", "exportPorts",
                             "appAttemptState"]
    assert (attempt["appAttemptId"], attempt["containerId"], attempt["exportPorts"]) == \
        (f"appattempt_{TS}_0001_000001", f"container_{TS}_0001_01_000001", "null")
    assert attempt["logsLink"] == (f"http://127.0.0.1:46454/node/containerlogs/"
                                   f"container_{TS}_0001_01_000001/alice")


def test_state_queue_priority(reader: TestClient) -> None:
    assert reader.get(f"{BASE}/apps/{ALICE}/state").content == b'{"state":"RUNNING"}'
    assert reader.get(f"{BASE}/apps/{ALICE}/queue").content == b'{"queue":"root.a"}'
    assert reader.get(f"{BASE}/apps/{ALICE}/priority").content == b'{"priority":0}'
    xml = reader.get(f"{BASE}/apps/{ALICE}/state", headers={"Accept": "application/xml"})
    assert xml.content.endswith(b"<appstate><state>RUNNING</state></appstate>")


def test_nodes(reader: TestClient) -> None:
    listed = json.loads(reader.get(f"{BASE}/nodes").content)["nodes"]["node"]
    assert [n["id"] for n in listed] == ["127.0.0.1:45455", "127.0.0.1:45454",
                                         "127.0.0.1:45457", "127.0.0.1:45456"]
    assert len(json.loads(reader.get(f"{BASE}/nodes?states=running,lost").content)
               ["nodes"]["node"]) == 4
    assert reader.get(f"{BASE}/nodes?states=lost").content == b'{"nodes":{}}'
    bad = reader.get(f"{BASE}/nodes?states=bogus")
    assert (bad.status_code, remote(bad)["exception"], remote(bad)["message"]) == (
        400, "IllegalArgumentException",
        "No enum constant org.apache.hadoop.yarn.api.records.NodeState.BOGUS")
    one = json.loads(reader.get(f"{BASE}/nodes/127.0.0.1:45454").content)["node"]
    assert (one["id"], one["nodeHTTPAddress"]) == ("127.0.0.1:45454", "127.0.0.1:46454")
    assert remote(reader.get(f"{BASE}/nodes/nohost"))["message"] == \
        "Invalid NodeId [nohost]. Expected host:port"
    assert remote(reader.get(f"{BASE}/nodes/h:x"))["message"] == "Invalid port: x"
    missing = reader.get(f"{BASE}/nodes/h:1")
    assert (missing.status_code, remote(missing)["message"]) == \
        (404, "java.lang.Exception: nodeId, h:1, is not found")


def test_what_matches_no_resource(reader: TestClient) -> None:
    for path in (f"{BASE}/bogus", "/ws/v1/other", f"{BASE}/apps/{ALICE}/bogus", "/"):
        response = reader.get(path)
        assert (response.status_code, response.content) == (404, b""), path
    # a path of the API with a method it has not: Jersey's 405, which Hadoop 3.4's RM
    # answers as a 503 WebApplicationException without a message (rm_tests/
    # test_serve_shape.py), in the format asked for
    for method, path in (("PUT", f"{BASE}/info"), ("DELETE", f"{BASE}/apps"),
                         ("POST", f"{BASE}/apps/{ALICE}/state"),
                         ("GET", f"{BASE}/apps/new-application"), ("DELETE", BASE)):
        response = reader.request(method, path)
        assert (response.status_code, response.content) == (503, (
            b'{"RemoteException":{"exception":"WebApplicationException",'
            b'"javaClassName":"javax.ws.rs.WebApplicationException"}}')), (method, path)
    xml = reader.request("PUT", f"{BASE}/info", headers={"Accept": "application/xml"})
    assert xml.content.endswith(b"<RemoteException><exception>WebApplicationException"
                                b"</exception><javaClassName>javax.ws.rs.WebApplicationException"
                                b"</javaClassName></RemoteException>")


# --- simple authentication -----------------------------------------------------------------


def test_user_name_sets_the_caller_and_a_cookie(client: TestClient,
                                                control: FakeControl) -> None:
    new = client.post(f"{BASE}/apps/new-application?user.name=carol")
    cookie = new.headers["set-cookie"]
    assert cookie.startswith('hadoop.auth="u=carol&p=carol&t=simple-dt&e=')
    assert cookie.endswith('"; Path=/; HttpOnly')
    app_id = json.loads(new.content)["application-id"]
    # the cookie names the caller of the next request (TestClient keeps it)
    client.post(f"{BASE}/apps", json={"application-id": app_id, "queue": "root.a"})
    assert control.submitted[app_id].user == "carol"
    client.cookies.clear()
    other = json.loads(client.post(f"{BASE}/apps/new-application").content)["application-id"]
    client.post(f"{BASE}/apps", json={"application-id": other, "queue": "root.a"})
    assert control.submitted[other].user == "dr.who"  # hadoop.http.staticuser.user


def test_a_forged_cookie_is_not_believed(client: TestClient, control: FakeControl) -> None:
    client.cookies.set("hadoop.auth", '"u=root&p=root&t=simple-dt&e=99999999999999&s=x"')
    app_id = json.loads(client.post(f"{BASE}/apps/new-application").content)["application-id"]
    client.post(f"{BASE}/apps", json={"application-id": app_id})
    assert control.submitted[app_id].user == "dr.who"

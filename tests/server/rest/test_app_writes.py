"""The write routes — new-application, submit, kill, move, priority — with YARN's codes
(captured from a real RM), the OpenAPI document, and requests meant to break things:
none may answer 500."""

from __future__ import annotations

import json
import random

import pytest
from fastapi.testclient import TestClient

from fairshare.server.rest.app import create_rest_app
from tests.server.rest.fake import TS, FakeControl, contention_engine
from tests.server.rest.test_app import ALICE, BASE, BOB, JSON, REJECTING, XML, remote


def new_id(client: TestClient) -> str:
    response = client.post(f"{BASE}/apps/new-application")
    assert response.status_code == 200
    return str(json.loads(response.content)["application-id"])


def test_new_application(client: TestClient) -> None:
    response = client.post(f"{BASE}/apps/new-application")
    assert (response.status_code, response.headers["content-type"]) == (200, JSON)
    body = json.loads(response.content)
    assert list(body) == ["application-id", "maximum-resource-capability"]  # root-unwrapped
    assert body["application-id"] == f"application_{TS}_0003"
    capability = body["maximum-resource-capability"]
    assert (capability["memory"], capability["vCores"]) == (8192, 4)  # yarn-default maxima
    xml = client.post(f"{BASE}/apps/new-application", headers={"Accept": "application/xml"})
    assert xml.content.split(b"?>", 1)[1].startswith(
        f"<NewApplication><application-id>application_{TS}_0004</application-id>"
        "<maximum-resource-capability><memory>8192</memory>".encode())


def test_submit_is_202_empty_with_location(client: TestClient, control: FakeControl) -> None:
    app_id = new_id(client)
    body = {"application-id": app_id, "application-name": "etl", "queue": "root.a",
            "resource": {"memory": 1024, "vCores": 1},
            "application-tags": {"tag": ["nightly", "fairshare.tasks=3x2g@30s"]}}
    response = client.post(f"{BASE}/apps", json=body)
    assert (response.status_code, response.content) == (202, b"")
    assert response.headers["location"] == f"http://testserver{BASE}/apps/{app_id}"
    # an empty entity under the negotiated type, as Hadoop 3.4's RM answers (rm_tests/
    # test_serve_shape.py compares it with the RM's own 202)
    assert response.headers["content-type"] == "application/json;charset=utf-8"
    assert response.headers["content-length"] == "0"
    asks = control.engine.app(app_id).asks
    assert sum(t["*"].count for t in asks.values()) == 4  # its AM, then its three tasks
    app = json.loads(client.get(f"{BASE}/apps/{app_id}").content)["app"]
    assert (app["name"], app["queue"], app["state"], app["applicationTags"]) == \
        ("etl", "root.a", "ACCEPTED", "nightly,fairshare.tasks=3x2g@30s")
    assert (app["trackingUI"], "trackingUrl" in app) == ("UNASSIGNED", False)


def test_submit_in_xml(client: TestClient, control: FakeControl) -> None:
    app_id = new_id(client)
    body = (f"<application-submission-context><application-id>{app_id}</application-id>"
            "<queue>root.b</queue></application-submission-context>").encode()
    response = client.post(f"{BASE}/apps", content=body,
                           headers={"Content-Type": "application/xml"})
    assert response.status_code == 202
    assert control.submitted[app_id].queue == "root.b"
    again = client.post(f"{BASE}/apps", content=body.replace(b"root.b", b"root.a").replace(
        app_id.encode(), new_id(client).encode()), headers={"Content-Type": "application/xml",
                                                            "Accept": "application/xml"})
    assert (again.status_code, again.headers["content-type"]) == (202, XML)


@pytest.mark.parametrize(("content", "content_type", "status", "exception"), [
    (b"{not json", "application/json", 400, "WebApplicationException"),
    (b'{"application-id": 7}', "application/json", 400, "BadRequestException"),
    (b'{"application-id":"application_1_1","priority":"x"}', "application/json", 400,
     "BadRequestException"),
    (b"<a/>", "application/xml", 400, "WebApplicationException"),
    # Jersey's 415, as Hadoop 3.4's RM answers it (rm_tests/test_serve_shape.py): 503
    (b"{}", "text/plain", 503, "WebApplicationException"),
    (b"{}", "", 503, "WebApplicationException"),
])
def test_submit_refusals(client: TestClient, content: bytes, content_type: str, status: int,
                         exception: str | None) -> None:
    response = client.post(f"{BASE}/apps", content=content,
                           headers={"Content-Type": content_type})
    assert response.status_code == status
    if exception is None:
        assert response.content == b""
    else:
        assert remote(response)["exception"] == exception


def test_an_id_not_handed_out_is_the_controls_400(client: TestClient) -> None:
    response = client.post(f"{BASE}/apps", json={"application-id": f"application_{TS}_0077"})
    assert response.status_code == 400
    assert "was not handed out" in remote(response)["message"]


def test_a_placement_rejection_is_accepted_and_the_app_fails() -> None:
    control = FakeControl(contention_engine(REJECTING))
    with TestClient(create_rest_app(control)) as client:
        app_id = new_id(client)
        response = client.post(f"{BASE}/apps?user.name=bob",
                               json={"application-id": app_id, "queue": "root.nope"})
        assert response.status_code == 202  # captured: the client still sees 202
        app = json.loads(client.get(f"{BASE}/apps/{app_id}").content)["app"]
        assert (app["state"], app["finalStatus"]) == ("FAILED", "FAILED")
        assert app["diagnostics"] != ""
        # killing an app that already ended answers the state it ended in (Hadoop 3.4's RM,
        # rm_tests/test_serve_shape.py: 200 {"state":"FINISHED"} for a finished app)
        kill = client.put(f"{BASE}/apps/{app_id}/state", json={"state": "KILLED"})
        assert (kill.status_code, kill.content) == (200, b'{"state":"FAILED"}')
        move = client.put(f"{BASE}/apps/{app_id}/queue", json={"queue": "root.a"})
        assert (move.status_code, move.content) == (  # plain, as the RM answers it
            400, b"App in FAILED state cannot be moved.")


def test_kill_202_final_saving_then_200_killed(client: TestClient) -> None:
    url = f"{BASE}/apps/{ALICE}/state"
    first = client.put(url, json={"state": "KILLED", "diagnostics": "by probe"})
    assert (first.status_code, first.content) == (202, b'{"state":"FINAL_SAVING"}')
    assert first.headers["location"] == f"http://testserver{url}"  # the request URL
    again = client.put(url, json={"state": "KILLED"})
    assert (again.status_code, again.content) == (200, b'{"state":"KILLED"}')
    app = json.loads(client.get(f"{BASE}/apps/{ALICE}").content)["app"]
    assert (app["state"], app["finalStatus"], app["progress"]) == ("KILLED", "KILLED", 100.0)
    assert app["allocatedMB"] == -1  # the scheduler let go of it: the dummy usage report


def test_kill_in_xml(client: TestClient) -> None:
    response = client.put(f"{BASE}/apps/{BOB}/state",
                          content=b"<appstate><state>KILLED</state></appstate>",
                          headers={"Content-Type": "application/xml",
                                   "Accept": "application/xml"})
    assert (response.status_code, response.headers["content-type"]) == (202, XML)
    assert response.content.endswith(b"<appstate><state>FINAL_SAVING</state></appstate>")


def test_other_target_states(client: TestClient) -> None:
    same = client.put(f"{BASE}/apps/{ALICE}/state", json={"state": "RUNNING"})
    assert (same.status_code, same.content) == (200, b'{"state":"RUNNING"}')  # captured
    other = client.put(f"{BASE}/apps/{ALICE}/state", json={"state": "FINISHED"})
    assert other.status_code == 400
    assert remote(other)["message"] == \
        "java.lang.Exception: Only 'KILLED' is allowed as a target state."  # captured
    assert client.put(f"{BASE}/apps/{ALICE}/state", json={}).status_code == 400
    unknown = client.put(f"{BASE}/apps/application_{TS}_0099/state", json={"state": "KILLED"})
    assert unknown.status_code == 404


def test_move(client: TestClient, control: FakeControl) -> None:
    url = f"{BASE}/apps/{ALICE}/queue"
    same = client.put(url, json={"queue": "root.a"})
    assert (same.status_code, same.content) == (200, b'{"queue":"root.a"}')
    moved = client.put(f"{url}?user.name=yarn", json={"queue": "root.c.c1"})
    assert (moved.status_code, moved.content) == (200, b'{"queue":"root.c.c1"}')
    assert control.moves == [(ALICE, "root.c.c1", "yarn")]
    client.cookies.clear()  # yarn's hadoop.auth cookie would name the next caller
    nowhere = client.put(url, json={"queue": "root.nope"})
    # Hadoop 3.4's RM, yarn.acl.enable false (rm_tests/test_serve_shape.py): 503, the
    # scheduler's YarnException wrapped by doAs, byte for byte
    assert (nowhere.status_code, nowhere.content) == (503, (
        b'{"RemoteException":{"exception":"UndeclaredThrowableException",'
        b'"javaClassName":"java.lang.reflect.UndeclaredThrowableException"}}'))
    assert client.put(url, json={}).status_code == 400


def test_priority_is_503_under_the_fair_scheduler(client: TestClient) -> None:
    url = f"{BASE}/apps/{ALICE}/priority"
    response = client.put(url, json={"priority": 5})
    assert response.status_code == 503
    assert response.content == (  # captured, byte for byte
        b'{"RemoteException":{"exception":"UndeclaredThrowableException",'
        b'"javaClassName":"java.lang.reflect.UndeclaredThrowableException"}}')
    same = client.put(url, json={"priority": 0})
    assert (same.status_code, same.content) == (200, b'{"priority":0}')
    # Hadoop 3.4's RM (rm_tests/test_serve_shape.py): a body without a priority is priority
    # 0, the app's own, so 200; an app that ended keeps its priority and answers it, 200
    none = client.put(url, json={})
    assert (none.status_code, none.content) == (200, b'{"priority":0}')
    assert client.put(url, json={"priority": "high"}).status_code == 400
    for _ in range(2):  # 202 FINAL_SAVING, then the stored KILLED
        client.put(f"{BASE}/apps/{ALICE}/state", json={"state": "KILLED"})
    ended = client.put(url, json={"priority": 5})
    assert (ended.status_code, ended.content) == (200, b'{"priority":0}')


def test_the_openapi_document_describes_every_endpoint(client: TestClient) -> None:
    spec = json.loads(client.get("/openapi.json").content)
    expected = {
        (BASE, "get"), (f"{BASE}/info", "get"), (f"{BASE}/metrics", "get"),
        (f"{BASE}/scheduler", "get"), (f"{BASE}/scheduler/activities", "get"),
        (f"{BASE}/apps", "get"), (f"{BASE}/apps", "post"),
        (f"{BASE}/apps/new-application", "post"), (f"{BASE}/apps/{{app_id}}", "get"),
        (f"{BASE}/apps/{{app_id}}/appattempts", "get"),
        (f"{BASE}/nodes", "get"), (f"{BASE}/nodes/{{node_id}}", "get"),
        *((f"{BASE}/apps/{{app_id}}/{leaf}", method) for leaf in ("state", "queue", "priority")
          for method in ("get", "put")),
    }
    found = {(path, method) for path, ops in spec["paths"].items() for method in ops}
    assert found == expected
    apps = spec["paths"][f"{BASE}/apps"]["get"]
    names = {p["name"] for p in apps["parameters"]}
    assert names >= {"states", "state", "finalStatus", "user", "queue", "limit",
                     "startedTimeBegin", "startedTimeEnd", "finishedTimeBegin",
                     "finishedTimeEnd", "applicationTypes", "applicationTags", "name",
                     "deSelects", "user.name"}
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            assert "422" not in op["responses"], (path, method)
            assert "200" in op["responses"] or "202" in op["responses"]
    submit = spec["paths"][f"{BASE}/apps"]["post"]
    assert set(submit["requestBody"]["content"]) == {"application/json", "application/xml"}
    assert set(submit["responses"]) >= {"202", "400", "503"}
    assert set(spec["paths"][f"{BASE}/apps/{{app_id}}/priority"]["put"]["responses"]) >= \
        {"503"}


# --- nothing answers 500 ----------------------------------------------------------------

NASTY_IDS = ["bogus", "application_", "application__", f"application_{TS}_", "application_-1_-1",
             f"application_{TS}_99999999999", "application_１２_1", "%00", "a" * 5000,
             f"application_{TS}_0001%2Fx", "new-application"]
NASTY_BODIES = [b"", b"{", b"[]", b"null", b"1", b'"x"', b"{}", b'{"state":null}',
                b'{"state":["KILLED","KILLED"]}', b'{"state":{"a":1}}', b'{"queue":[]}',
                b'{"priority":1e400}', b'{"priority":99999999999999999999}',
                b"\xff\xfe\x00", b"<appstate>", b'{"a":' * 5000, b"<x>" * 5000]


def test_no_request_answers_500(client: TestClient) -> None:
    rng = random.Random(33)
    seen: set[int] = set()
    for app_id in [*NASTY_IDS, ALICE, BOB]:
        for suffix in ("", "/appattempts", "/state", "/queue", "/priority"):
            response = client.get(f"{BASE}/apps/{app_id}{suffix}?deSelects=resourceRequests")
            seen.add(response.status_code)
            # GET …/new-application is Jersey's 405, which the RM answers as a 503
            jersey = (app_id, suffix) == ("new-application", "")
            assert response.status_code == 503 if jersey else response.status_code < 500, \
                (app_id, suffix)
        for leaf in ("state", "queue", "priority"):
            for body in rng.sample(NASTY_BODIES, 6):
                for kind in ("application/json", "application/xml", "text/plain"):
                    response = client.put(f"{BASE}/apps/{app_id}/{leaf}", content=body,
                                          headers={"Content-Type": kind})
                    seen.add(response.status_code)
                    assert response.status_code in (200, 202, 400, 403, 404, 503), \
                        (app_id, leaf, body[:20], kind, response.content[:200])
                    assert b"Traceback" not in response.content
    for body in NASTY_BODIES:
        for kind in ("application/json", "application/xml"):
            response = client.post(f"{BASE}/apps", content=body, headers={"Content-Type": kind})
            assert response.status_code == 400, (body[:20], response.content[:200])
    for query in ("limit=" + "9" * 400, "startedTimeBegin=1e3", "states=%00",
                  "deSelects=", "finalStatus=", "states=,,,", "limit=-0", "user.name="):
        assert client.get(f"{BASE}/apps?{query}").status_code in (200, 400), query
    for node in ("::", ":", "h:99999999999", "h:-1", "%20:1", "h:１"):
        assert client.get(f"{BASE}/nodes/{node}").status_code in (400, 404), node
    assert seen >= {200, 400, 404}

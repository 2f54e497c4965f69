"""Bad input to ``fairshare serve`` (docs/serve.md, "Bad input"): every endpoint answers a
malformed, oversized, mistyped, impossible or hostile request with YARN's status and a
``RemoteException`` body — never a 500 or a traceback — and a refused request changes
nothing (each refusal is followed by a read that shows it left no app behind).

Expected answers come from Hadoop 3.4's code: ``RMWebServices.submitApplication`` turns the
``YarnException`` of ``ClientRMService.submitApplication`` into a ``BadRequestException``
with its message (``GenericExceptionHandler`` writes the cause's ``toString``, hence
``java.lang.Exception: …``); ``RMAppManager.validateAndCreateResourceRequest`` checks the AM's
resource with ``SchedulerUtils.checkResourceRequestAgainstAvailableResource``
(``InvalidResourceRequestException``'s two message templates) against
``FairScheduler.getMaximumResourceCapability(queue)``; ``ClientRMService.checkTags`` limits the
tags; JAXB ignores an element it does not know.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from fairshare.server.rest.limits import MAX_BODY_BYTES
from fairshare.server.service import Served
from tests.server.served import BASE, new_app_id, served_client, submit

JSON = {"content-type": "application/json"}
XML = {"content-type": "application/xml"}
# YARN's defaults: yarn.scheduler.maximum-allocation-mb 8192, -vcores 4
MAX = "<memory:8192, vCores:4>"
A_MAX = "<memory:2048, vCores:2>"  # root.a's maxContainerAllocation, below the scheduler's


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, TestClient]]:
    with served_client(tmp_path_factory.mktemp("bad-input")) as pair:
        yield pair


@pytest.fixture
def client(server: tuple[Served, TestClient]) -> TestClient:
    return server[1]


def remote(answer: Any, status: int, exception: str) -> str:
    """The answer is ``status`` with a RemoteException of ``exception``: its message."""
    assert answer.status_code == status, answer.text
    body = answer.json()["RemoteException"]
    assert body["exception"] == exception, body
    message: str = body.get("message") or ""
    return message


def app_ids(client: TestClient) -> set[str]:
    apps = client.get(f"{BASE}/apps").json()["apps"]
    return {a["id"] for a in (apps or {}).get("app", [])}


def refused_leaves_nothing(client: TestClient, body: dict[str, Any] | bytes,
                           headers: dict[str, str] | None = None, **kw: Any) -> Any:
    """POST /apps refused: no app under its id, nor any new one."""
    before = app_ids(client)
    app_id = new_app_id(client)
    if isinstance(body, dict):
        answer = client.post(f"{BASE}/apps", json={"application-id": app_id, **body}, **kw)
    else:
        answer = client.post(f"{BASE}/apps", content=body.replace(b"APP", app_id.encode()),
                             headers=headers, **kw)
    assert answer.status_code >= 400, answer.text
    assert client.get(f"{BASE}/apps/{app_id}").status_code == 404
    assert app_ids(client) == before
    return answer


# -- the body limit -----------------------------------------------------------------------------

def test_a_body_past_the_limit_is_413_in_the_format_asked_for(client: TestClient) -> None:
    big = b"{" + b" " * MAX_BODY_BYTES + b"}"
    answer = refused_leaves_nothing(client, big, JSON)
    message = remote(answer, 413, "WebApplicationException")
    assert str(MAX_BODY_BYTES) in message
    as_xml = client.post(f"{BASE}/apps", content=big,
                         headers={**JSON, "accept": "application/xml"})
    assert as_xml.status_code == 413
    assert as_xml.headers["content-type"].startswith("application/xml")
    assert b"<RemoteException><exception>WebApplicationException</exception>" in as_xml.content


def test_the_limit_counts_the_bytes_not_the_declared_length(client: TestClient) -> None:
    """A chunked body has no Content-Length: what arrives is counted."""
    def chunks() -> Iterator[bytes]:
        yield b'{"application-name":"'
        for _ in range(MAX_BODY_BYTES // 65536 + 1):
            yield b"x" * 65536
        yield b'"}'

    answer = client.post(f"{BASE}/apps", content=chunks(), headers=JSON)
    assert "content-length" not in answer.request.headers
    remote(answer, 413, "WebApplicationException")


def test_a_body_at_the_limit_is_read(client: TestClient) -> None:
    """Exactly the limit is not past it: the body is parsed (and this one is no JSON)."""
    answer = client.post(f"{BASE}/apps", content=b"x" * MAX_BODY_BYTES, headers=JSON)
    assert "javax.xml.bind.UnmarshalException" in remote(answer, 400,
                                                          "WebApplicationException")


@pytest.mark.parametrize("path", ["/ws/v1/fairshare/am/allocate", "/ws/v1/fairshare/nodes",
                                  "/scheduler"])
def test_every_part_of_the_server_has_the_limit(client: TestClient, path: str) -> None:
    answer = client.post(path, content=b"[" * (MAX_BODY_BYTES + 1), headers=JSON)
    remote(answer, 413, "WebApplicationException")


# -- malformed bodies ------------------------------------------------------------------------

@pytest.mark.parametrize(("body", "headers"), [
    (b"{", JSON), (b'{"application-id": "APP", "queue": }', JSON), (b"[1, 2]", JSON),
    (b"\xff\xfe", JSON), (b"[" * 100_000, JSON),
    (b"<application-submission-context><application-id>APP</application-id>", XML),
    (b"<other><application-id>APP</application-id></other>", XML),
    (b'<!DOCTYPE x [<!ENTITY e "e">]><application-submission-context>&e;'
     b"</application-submission-context>", XML),
])
def test_a_body_that_does_not_parse_is_jaxbs_400(client: TestClient, body: bytes,
                                                  headers: dict[str, str]) -> None:
    answer = refused_leaves_nothing(client, body, headers)
    assert remote(answer, 400, "WebApplicationException").startswith(
        "javax.xml.bind.UnmarshalException")


def test_a_body_of_another_media_type_is_the_rms_503(client: TestClient) -> None:
    answer = refused_leaves_nothing(client, b'{"application-id":"APP"}',
                                    {"content-type": "text/plain"})
    remote(answer, 503, "WebApplicationException")


# -- unknown fields, wrong types ------------------------------------------------------------

def test_yarns_unknown_fields_are_ignored_as_jaxb_ignores_them(client: TestClient) -> None:
    answer = submit(client, {"queue": "b", "no-such-field": {"deep": [1, 2]},
                             "resource": {"memory": 1024, "vCores": 1, "unknown": "x"}})
    assert answer.status_code == 202, answer.text


def test_fairshares_own_object_is_strict(client: TestClient) -> None:
    answer = refused_leaves_nothing(client, {"fairshare": {"task": []}})
    assert "fairshare.task: unknown field" in remote(answer, 400, "BadRequestException")


@pytest.mark.parametrize(("body", "said"), [
    ({"priority": "high"}, 'priority: expected an integer, not "high"'),
    ({"priority": 2 ** 31}, "priority: 2147483648 is out of range"),
    ({"resource": {"memory": 1.5}}, "resource.memory: expected an integer, not the number 1.5"),
    ({"resource": 7}, "resource: expected an object, not 7"),
    ({"unmanaged-AM": "yes"}, 'unmanaged-AM: expected true or false, not "yes"'),
    ({"queue": ["a", "b"]}, "queue: given 2 times, expected once"),
    ({"application-name": {"x": 1}}, "application-name: expected a string, not an object"),
])
def test_a_mistyped_field_is_named(client: TestClient, body: dict[str, Any], said: str) -> None:
    answer = refused_leaves_nothing(client, body)
    assert remote(answer, 400, "BadRequestException") == f"java.lang.Exception: {said}"


# -- impossible resources --------------------------------------------------------------------

@pytest.mark.parametrize(("queue", "resource", "said"), [
    ("b", {"memory": -1, "vCores": 1},
     "Invalid resource request! Cannot allocate containers as requested resource is less "
     "than 0! Requested resource type=[memory-mb], Requested resource=<memory:-1, vCores:1>"),
    ("b", {"memory": 1024, "vCores": -3},
     "Invalid resource request! Cannot allocate containers as requested resource is less "
     "than 0! Requested resource type=[vcores], Requested resource=<memory:1024, vCores:-3>"),
    ("b", {"memory": 8193, "vCores": 1},
     "Invalid resource request! Cannot allocate containers as requested resource is greater "
     "than maximum allowed allocation. Requested resource type=[memory-mb], Requested "
     f"resource=<memory:8193, vCores:1>, maximum allowed allocation={MAX}, please note that "
     "maximum allowed allocation is calculated by scheduler based on maximum resource of "
     "registered NodeManagers, which might be less than configured maximum allocation="
     f"{MAX}"),
    ("root.a", {"memory": 1024, "vCores": 3},
     "Invalid resource request! Cannot allocate containers as requested resource is greater "
     "than maximum allowed allocation. Requested resource type=[vcores], Requested "
     f"resource=<memory:1024, vCores:3>, maximum allowed allocation={A_MAX}, please note that "
     "maximum allowed allocation is calculated by scheduler based on maximum resource of "
     "registered NodeManagers, which might be less than configured maximum allocation="
     f"{A_MAX}"),
])
def test_an_impossible_am_resource_is_yarns_invalid_resource_request(
        client: TestClient, queue: str, resource: dict[str, int], said: str) -> None:
    answer = refused_leaves_nothing(client, {"queue": queue, "resource": resource})
    assert remote(answer, 400, "BadRequestException") == f"java.lang.Exception: {said}"


def test_the_largest_am_is_accepted_and_an_unmanaged_am_is_not_checked(
        client: TestClient) -> None:
    assert submit(client, {"queue": "b", "resource": {"memory": 8192, "vCores": 4}}
                  ).status_code == 202
    assert submit(client, {"queue": "b", "unmanaged-AM": True,
                           "resource": {"memory": 99999, "vCores": 99}}).status_code == 202


# -- tags, types ------------------------------------------------------------------------------

@pytest.mark.parametrize(("tags", "said"), [
    ([f"t{i}" for i in range(11)], "Too many applicationTags, a maximum of only 10 are "
                                   "allowed!"),
    (["x" * 101], f"Tag {'x' * 101} is too long, maximum allowed length of a tag is 100"),
    (["caf\u00e9"], "A tag can only have ASCII characters! Invalid tag - caf\u00e9"),
    (["tab\there"], "A tag can only have ASCII characters! Invalid tag - tab\there"),
])
def test_tags_are_checked_as_client_rm_service_checks_them(client: TestClient, tags: list[str],
                                                           said: str) -> None:
    answer = refused_leaves_nothing(client, {"application-tags": {"tag": tags}})
    assert remote(answer, 400, "BadRequestException") == \
        f"java.lang.Exception: java.lang.IllegalArgumentException: {said}"


def test_ten_tags_of_100_characters_are_accepted(client: TestClient) -> None:
    tags = [f"{i}" + "y" * 99 for i in range(10)]
    answer = submit(client, {"queue": "b", "application-tags": {"tag": tags}})
    assert answer.status_code == 202, answer.text


def test_a_long_application_type_is_cut_to_20_characters(client: TestClient) -> None:
    """``ClientRMService.submitApplication``: ``APPLICATION_TYPE_LENGTH``."""
    answer = submit(client, {"queue": "b", "application-type": "ABCDEFGHIJKLMNOPQRSTUVWXYZ"})
    assert answer.status_code == 202
    app = client.get(answer.headers["location"]).json()["app"]
    assert app["applicationType"] == "ABCDEFGHIJKLMNOPQRST"


# -- hostile text ------------------------------------------------------------------------------

@pytest.mark.parametrize(("raw", "field", "code"), [
    (b'{"application-id":"APP","application-name":"a\\ud800b"}', "application-name",
     "U+D800 (half of a surrogate pair, not a character)"),
    (b'{"application-id":"APP","queue":"\\udfff"}', "queue",
     "U+DFFF (half of a surrogate pair, not a character)"),
    (b'{"application-id":"APP","application-name":"nul\\u0000"}', "application-name",
     "U+0000 (a character no XML document can carry)"),
    (b'{"application-id":"APP","am-container-spec":{"environment":{"entry":[{"key":"K",'
     b'"value":"\\u001b[31m"}]}}}', "am-container-spec.environment.entry.value",
     "U+001B (a character no XML document can carry)"),
    (b'{"application-id":"APP","x\\ud800":1}', "x\\ud800",
     "U+D800 (half of a surrogate pair, not a character)"),
])
def test_text_no_answer_can_carry_is_refused(client: TestClient, raw: bytes, field: str,
                                             code: str) -> None:
    answer = refused_leaves_nothing(client, raw, JSON)
    assert remote(answer, 400, "BadRequestException") == \
        f"java.lang.Exception: {field}: contains {code}"


def test_the_same_in_an_xml_body_is_jaxbs_400(client: TestClient) -> None:
    body = (b"<application-submission-context><application-id>APP</application-id>"
            b"<application-name>a&#0;b</application-name></application-submission-context>")
    answer = refused_leaves_nothing(client, body, XML)
    remote(answer, 400, "WebApplicationException")


def test_a_user_name_no_answer_can_carry_cannot_submit(client: TestClient) -> None:
    answer = refused_leaves_nothing(client, {"queue": "b"}, params={"user.name": "bob\x07"})
    assert remote(answer, 400, "BadRequestException") == \
        "java.lang.Exception: user.name: contains U+0007 (a character no XML document can carry)"


def test_a_user_name_no_header_can_carry_gets_no_cookie(client: TestClient) -> None:
    """A name beyond printable ASCII is the caller of its request, without the cookie."""
    answer = submit(client, {"queue": "b"}, user="j\u00fcrgen")
    assert answer.status_code == 202, answer.text
    assert "set-cookie" not in answer.headers
    app = client.get(answer.headers["location"]).json()["app"]
    assert app["user"] == "j\u00fcrgen"
    plain = client.get(f"{BASE}/apps", params={"user.name": "ann"})
    assert plain.headers["set-cookie"].startswith('hadoop.auth="u=ann&')


def test_markup_and_long_names_are_kept_as_text(client: TestClient) -> None:
    name = '<script>alert(1)</script>"\'&' + "\u202e" + "n" * 10_000
    answer = submit(client, {"queue": "b", "application-name": name})
    assert answer.status_code == 202, answer.text
    location = answer.headers["location"]
    assert client.get(location).json()["app"]["name"] == name
    xml = client.get(location, headers={"accept": "application/xml"}).text
    assert "<name>&lt;script&gt;alert(1)&lt;/script&gt;\"'&amp;\u202e" in xml


# -- ids ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(("method", "path", "status", "exception"), [
    ("GET", f"{BASE}/apps/application_1_99999", 404, "NotFoundException"),
    ("GET", f"{BASE}/apps/nonsense", 400, "BadRequestException"),
    ("GET", f"{BASE}/apps/application_1_%00/appattempts", 400, "BadRequestException"),
    ("GET", f"{BASE}/apps/application_1_2/state", 404, "NotFoundException"),
    ("GET", f"{BASE}/nodes/nohost", 400, "IllegalArgumentException"),
    ("GET", f"{BASE}/nodes/ghost:1", 404, "NotFoundException"),
    ("DELETE", "/ws/v1/fairshare/nodes/ghost:1", 404, "NotFoundException"),
    ("POST", "/ws/v1/fairshare/nodes/ghost:1/decommission", 404, "NotFoundException"),
    ("GET", "/ws/v1/fairshare/apps/application_1_1/explain", 404, "NotFoundException"),
    ("GET", "/ws/v1/fairshare/containers/container_1_0001_01_000001/explain", 404,
     "NotFoundException"),
])
def test_an_unknown_or_unreadable_id_is_yarns_4xx(client: TestClient, method: str, path: str,
                                                 status: int, exception: str) -> None:
    remote(client.request(method, path), status, exception)


def test_a_write_to_an_unknown_app_is_404(client: TestClient) -> None:
    for what, body in (("state", {"state": "KILLED"}), ("queue", {"queue": "b"}),
                       ("priority", {"priority": 1})):
        answer = client.put(f"{BASE}/apps/application_1_77/{what}", json=body)
        remote(answer, 404, "NotFoundException")


# -- fairshare's extensions and the AM protocol ---------------------------------------------

@pytest.mark.parametrize(("method", "path", "body", "said"), [
    ("POST", "/ws/v1/fairshare/nodes", b"[1]", "the body: Input should be a valid dictionary"),
    ("POST", "/ws/v1/fairshare/nodes", b"{", "the body: JSON decode error"),
    ("POST", "/ws/v1/fairshare/nodes", b'{"id":"n\\ud800:1","resource":{"memory-mb":1}}',
     "id: contains U+D800 (half of a surrogate pair, not a character)"),
    ("POST", "/ws/v1/fairshare/nodes", b'{"id":"n9:1","resource":{"memory-mb":-1}}',
     "resource.memory-mb: expected a whole number from 0 to 9223372036854775807"),
    ("POST", "/ws/v1/fairshare/nodes", b'{"id":"n9:1","resource":{"memory-mb":1e400}}',
     "resource.memory-mb: expected a whole number from 0 to 9223372036854775807"),
    ("PUT", "/ws/v1/fairshare/nodes/node1:45454/resource",
     b'{"resource":{"memory-mb":9223372036854775808}}',
     "resource.memory-mb: expected a whole number from 0 to 9223372036854775807"),
    ("POST", "/ws/v1/fairshare/nodes/node1:45454/decommission",
     b'{"timeout-ms":9223372036854775808}',
     "timeout-ms: expected a whole number of milliseconds, or null"),
])
def test_the_extensions_refuse_as_yarn_does(server: tuple[Served, TestClient], method: str,
                                            path: str, body: bytes, said: str) -> None:
    served, client = server
    nodes = client.get(f"{BASE}/nodes").json()
    answer = client.request(method, path, content=body, headers=JSON)
    assert remote(answer, 400, "BadRequestException") == f"java.lang.Exception: {said}"
    assert client.get(f"{BASE}/nodes").json() == nodes  # nothing applied
    assert served.loop.failure is None  # and the engine thread still runs


@pytest.mark.parametrize("query", ["since=-1", "since=x", "limit=0", "limit=1.5"])
def test_the_event_streams_parameters_are_checked(client: TestClient, query: str) -> None:
    remote(client.get(f"/ws/v1/fairshare/events?{query}"), 400, "BadRequestException")


def test_a_last_event_id_that_is_no_number_starts_from_the_oldest(client: TestClient) -> None:
    answer = client.get("/ws/v1/fairshare/events?limit=1",
                        headers={"last-event-id": "\u00b2".encode("latin-1")})
    assert answer.status_code == 200
    assert answer.text.startswith("id: 1\n")


@pytest.mark.parametrize("body", [b"{", b"[]", b'"x"', b'{"asks": 3}'])
def test_the_am_protocol_wants_its_token_first(client: TestClient, body: bytes) -> None:
    answer = client.post("/ws/v1/fairshare/am/allocate", content=body, headers=JSON)
    remote(answer, 401, "AuthorizationException")


def test_an_unknown_path_or_method_is_jerseys(client: TestClient) -> None:
    assert client.get(f"{BASE}/no-such-thing").status_code == 404
    remote(client.delete(f"{BASE}/apps"), 503, "WebApplicationException")


def test_nothing_above_broke_the_server(server: tuple[Served, TestClient], tmp_path: Path
                                        ) -> None:
    served, client = server
    assert client.get(f"{BASE}/info").status_code == 200
    assert served.loop.failure is None


@pytest.mark.parametrize(("path", "status"), [("/queue/", 404), ("/app/", 404),
                                              ("/node/", 404), ("/apps/", 200)])
def test_a_page_path_ending_in_a_slash_ends(client: TestClient, path: str, status: int) -> None:
    """Jersey's slash rule is the web services' only: a page's path is the pages' router's
    (``/queue/`` once redirected to itself, endlessly)."""
    answer = client.get(path)
    assert answer.status_code == status
    assert len(answer.history) <= 1

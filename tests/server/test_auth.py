"""``--auth pseudo|basic|token`` (server/auth.py) and the users file (server/users.py), over
the REST app with a fake control: who each scheme names as the caller, the 401s (body,
``WWW-Authenticate``), malformed and non-UTF-8 headers, expired tokens, groups, the file's
errors at their lines and its reload.

Expectations are computed independently: password hashes are made with argon2-cffi's own
``PasswordHasher`` (cheap parameters, so the tests stay fast — the server reads the
parameters from each hash), token digests with ``hashlib``; the caller is read from what the
control was asked to do (the submission's user), not from the authenticator.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import argon2
import httpx
import pytest
from fastapi.testclient import TestClient

from fairshare.config.errors import ConfigError
from fairshare.server.auth import (
    BasicAuth,
    PseudoAuth,
    TokenAuth,
    UsersSource,
    authenticator_for,
)
from fairshare.server.rest.app import create_rest_app
from fairshare.server.users import read_users
from tests.server.rest.fake import FakeControl
from tests.server.rest.scenes import fair_preempted

BASE = "/ws/v1/cluster"
CHEAP = argon2.PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
PASSWORDS = {"alice": "correct horse", "bob": "pässwörd"}  # bob's is not ASCII
TOKENS = {"alice": "alice-token-0123456789", "bob": "bob-token-9876543210"}
PAST = "2020-01-01T00:00:00Z"
FUTURE = "2999-01-01T00:00:00Z"


# the body docs/serve.md shows: one message whatever was wrong, which tells no one which users
# exist
DOCUMENTED_401 = next(line for line in (Path(__file__).parents[2] / "docs" / "serve.md")
                      .read_text().splitlines() if line.startswith('{"RemoteException"'))


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def users_text() -> str:
    return f"""users:
  alice:
    password: "{CHEAP.hash(PASSWORDS['alice'])}"
    groups: [analysts, etl]
    tokens:
      - sha256: {digest(TOKENS['alice'])}
        created: 2026-01-01T00:00:00Z
        expires: {FUTURE}
      - sha256: {digest('alice-old-token')}
        created: 2019-01-01T00:00:00Z
        expires: {PAST}
  bob:
    password: "{CHEAP.hash(PASSWORDS['bob'])}"
    groups: []
    tokens:
      - sha256: {digest(TOKENS['bob'])}
        created: 2026-01-01T00:00:00Z
  carol:
    groups: [ops]
  dave:
"""


@pytest.fixture
def users_file(tmp_path: Path) -> Path:
    path = tmp_path / "users.yaml"
    path.write_text(users_text(), encoding="utf-8")
    return path


def client_for(scheme: str, users: Path | None) -> tuple[TestClient, FakeControl]:
    control = fair_preempted()[0]
    return TestClient(create_rest_app(control, auth=authenticator_for(scheme, users))), control


@pytest.fixture
def basic(users_file: Path) -> Iterator[tuple[TestClient, FakeControl]]:
    client, control = client_for("basic", users_file)
    with client:
        yield client, control


@pytest.fixture
def token(users_file: Path) -> Iterator[tuple[TestClient, FakeControl]]:
    client, control = client_for("token", users_file)
    with client:
        yield client, control


def basic_header(user: str | bytes, password: str | bytes) -> str:
    raw = (user if isinstance(user, bytes) else user.encode()) + b":" + (
        password if isinstance(password, bytes) else password.encode())
    return "Basic " + base64.b64encode(raw).decode()


def submitted_as(client: TestClient, control: FakeControl, headers: dict[str, str],
                 query: str = "") -> str:
    """The user the control was asked to submit for: who the server took the caller for."""
    new = client.post(f"{BASE}/apps/new-application{query}", headers=headers)
    assert new.status_code == 200, new.text
    app_id = new.json()["application-id"]
    sent = client.post(f"{BASE}/apps{query}", headers=headers,
                       json={"application-id": app_id, "queue": "root.a"})
    assert sent.status_code == 202
    return control.submitted[app_id].user


def assert_401(response: httpx.Response, scheme: str) -> None:
    assert response.status_code == 401
    headers = response.headers
    challenge = headers["www-authenticate"]
    if scheme == "basic":
        assert challenge == 'Basic realm="fairshare", charset="UTF-8"'  # RFC 7617, section 2.1
    else:
        assert challenge.startswith('Bearer realm="fairshare"')  # RFC 6750, section 3
    assert "set-cookie" not in headers
    assert headers["x-content-type-options"] == "nosniff"  # Hadoop's headers on it too


# -- basic -------------------------------------------------------------------------------------

def test_basic_names_the_user_whose_password_it_is(basic: tuple[TestClient, FakeControl]
                                                   ) -> None:
    client, control = basic
    for user, password in PASSWORDS.items():
        assert submitted_as(client, control, {"Authorization": basic_header(user, password)}
                            ) == user
    # ?user.name= names no one once callers are authenticated
    assert submitted_as(client, control, {"Authorization": basic_header("bob", PASSWORDS[
        "bob"])}, "?user.name=alice") == "bob"


@pytest.mark.parametrize("authorization", [
    None,
    basic_header("alice", "wrong"),
    basic_header("alice", PASSWORDS["bob"]),
    basic_header("mallory", "correct horse"),  # unknown user
    basic_header("carol", ""),  # a user without a password
    "Basic",  # no credentials
    "Basic !!!not-base64!!!",
    "Basic " + base64.b64encode(b"alice-no-colon").decode(),
    basic_header(b"\xff\xfealice", "correct horse"),  # the user is not UTF-8
    f"Bearer {TOKENS['alice']}",  # the other scheme
    "Digest username=alice",
])
def test_basic_refuses_what_is_missing_wrong_or_malformed(
        basic: tuple[TestClient, FakeControl], authorization: str | None) -> None:
    client, control = basic
    before = control.numbers
    headers = {} if authorization is None else {"Authorization": authorization}
    answer = client.post(f"{BASE}/apps/new-application", headers=headers)
    assert_401(answer, "basic")
    assert answer.headers["content-type"].startswith("application/json")
    exception = answer.json()["RemoteException"]
    assert exception == json.loads(DOCUMENTED_401)["RemoteException"]  # docs/serve.md's
    assert control.numbers == before  # no id was given out for it


def test_a_header_that_is_not_even_latin1_text_is_a_401(basic: tuple[TestClient, FakeControl]
                                                        ) -> None:
    client, _ = basic
    # raw bytes on the wire: the server reads a header as latin-1, whatever it holds
    answer = client.get(f"{BASE}/info", headers={"Authorization": b"Basic \xc3\xa9\xff\x00"})
    assert_401(answer, "basic")


def test_the_401_is_xml_when_asked_and_plain_text_for_the_pages(
        basic: tuple[TestClient, FakeControl]) -> None:
    client, _ = basic
    xml = client.get(f"{BASE}/info", headers={"Accept": "application/xml"})
    assert_401(xml, "basic")
    assert b"<exception>AuthenticationException</exception>" in xml.content
    # a 401 is answered even to an Accept that takes neither JSON nor XML
    other = client.get(f"{BASE}/info", headers={"Accept": "image/png"})
    assert_401(other, "basic")
    assert other.json()["RemoteException"]["exception"] == "AuthenticationException"
    for path in ("/", "/metrics", "/openapi.json"):
        page = client.get(path)
        assert_401(page, "basic")
        if path != "/openapi.json":
            assert page.headers["content-type"].startswith("text/plain")
            assert page.text.startswith("401 Unauthorized")


def test_a_verified_password_is_not_believed_after_it_changed(
        users_file: Path, basic: tuple[TestClient, FakeControl]) -> None:
    client, _ = basic
    good = {"Authorization": basic_header("alice", PASSWORDS["alice"])}
    assert client.get(f"{BASE}/info", headers=good).status_code == 200
    text = users_file.read_text().replace(
        users_file.read_text().splitlines()[2].split('"')[1], CHEAP.hash("new password"))
    write_later(users_file, text)
    assert _eventually(lambda: client.get(f"{BASE}/info", headers=good).status_code == 401)
    assert client.get(f"{BASE}/info", headers={"Authorization": basic_header(
        "alice", "new password")}).status_code == 200


# -- token -------------------------------------------------------------------------------------

def test_token_names_the_tokens_user(token: tuple[TestClient, FakeControl]) -> None:
    client, control = token
    for user, secret in TOKENS.items():
        assert submitted_as(client, control, {"Authorization": f"Bearer {secret}"}) == user
    assert submitted_as(client, control, {"Authorization": f"bearer  {TOKENS['alice']} "},
                        "?user.name=bob") == "alice"  # the scheme's name has no case


@pytest.mark.parametrize(("authorization", "error"), [
    (None, None),
    ("Bearer alice-old-token", "invalid_token"),  # expired in 2020
    ("Bearer not-a-token", "invalid_token"),
    (f"Bearer {digest(TOKENS['alice'])}", "invalid_token"),  # the digest is no token
    ("Bearer", "invalid_request"),
    ("Bearer    ", "invalid_request"),
    (basic_header("alice", PASSWORDS["alice"]), "invalid_request"),
    ("Bearer tökén".encode(), "invalid_token"),  # UTF-8 bytes, read as latin-1
])
def test_token_refuses_missing_unknown_expired_and_malformed(
        token: tuple[TestClient, FakeControl], authorization: str | bytes | None,
        error: str | None) -> None:
    client, control = token
    before = control.numbers
    headers = {} if authorization is None else {"Authorization": authorization}
    answer = client.post(f"{BASE}/apps/new-application", headers=headers)
    assert_401(answer, "token")
    expected = 'Bearer realm="fairshare"' + ("" if error is None else f', error="{error}"')
    assert answer.headers["www-authenticate"] == expected
    assert answer.json()["RemoteException"]["exception"] == "AuthenticationException"
    assert control.numbers == before


def test_a_token_expires_at_its_moment(users_file: Path) -> None:
    now = [datetime(2998, 12, 31, 23, 59, 59, tzinfo=UTC)]
    auth = TokenAuth(UsersSource(users_file), now=lambda: now[0])
    control = fair_preempted()[0]
    with TestClient(create_rest_app(control, auth=auth)) as client:
        headers = {"Authorization": f"Bearer {TOKENS['alice']}"}
        assert client.get(f"{BASE}/info", headers=headers).status_code == 200
        now[0] += timedelta(seconds=1)  # 2999-01-01T00:00:00Z: expired
        assert client.get(f"{BASE}/info", headers=headers).status_code == 401
        # bob's token has no expiry
        assert client.get(f"{BASE}/info", headers={
            "Authorization": f"Bearer {TOKENS['bob']}"}).status_code == 200


def test_a_raw_non_utf8_bearer_token_is_a_401(token: tuple[TestClient, FakeControl]) -> None:
    client, _ = token
    answer = client.get(f"{BASE}/info", headers={"Authorization": b"Bearer \xff\xfe\xfd"})
    assert_401(answer, "token")


def test_a_token_added_while_serving_is_taken_and_a_broken_edit_keeps_the_last_good_file(
        users_file: Path, token: tuple[TestClient, FakeControl],
        caplog: pytest.LogCaptureFixture) -> None:
    client, _ = token
    added = {"Authorization": "Bearer added-later"}
    assert client.get(f"{BASE}/info", headers=added).status_code == 401
    write_later(users_file, users_text() + f"""  erin:
    tokens:
      - sha256: {digest('added-later')}
        created: 2026-01-01T00:00:00Z
""")
    assert _eventually(lambda: client.get(f"{BASE}/info", headers=added).status_code == 200)
    with caplog.at_level(logging.WARNING, "fairshare.serve.auth"):
        write_later(users_file, users_text() + "  erin: [not, a, map]\n")
        assert _eventually(lambda: client.get(f"{BASE}/info", headers=added).status_code == 200
                           and "users file not reloaded" in caplog.text)
    assert client.get(f"{BASE}/info", headers=added).status_code == 200
    assert f"{users_file}:21: users.erin: expected a map" in caplog.text  # 20 lines, then it


# -- pseudo ------------------------------------------------------------------------------------

def test_pseudo_is_simple_authentication_with_or_without_a_users_file(users_file: Path
                                                                      ) -> None:
    for users in (None, users_file):
        client, control = client_for("pseudo", users)
        with client:
            # Basic credentials mean nothing to it: ?user.name= names the caller, else dr.who
            headers = {"Authorization": basic_header("alice", PASSWORDS["alice"])}
            assert submitted_as(client, control, headers, "?user.name=mallory") == "mallory"
            client.cookies.clear()
            assert submitted_as(client, control, headers) == "dr.who"


# -- groups ------------------------------------------------------------------------------------

@pytest.mark.parametrize("scheme", ["pseudo", "basic", "token"])
def test_groups_are_the_files_and_none_where_it_does_not_say(users_file: Path,
                                                             scheme: str) -> None:
    auth = authenticator_for(scheme, users_file)
    assert auth.groups_of("alice") == ("analysts", "etl")
    assert auth.groups_of("bob") == ()  # groups: [] says "none"
    assert auth.groups_of("carol") == ("ops",)
    assert auth.groups_of("dave") is None  # listed, groups not said
    assert auth.groups_of("mallory") is None  # not listed
    assert PseudoAuth().groups_of("alice") is None  # no file at all


def test_basic_and_token_need_a_users_file(tmp_path: Path) -> None:
    for scheme in ("basic", "token"):
        with pytest.raises(ConfigError) as e:
            authenticator_for(scheme, None)
        assert str(e.value).startswith("--users: ")
    with pytest.raises(ConfigError) as e:
        authenticator_for("kerberos", None)
    assert str(e.value) == "--auth: expected one of pseudo, basic, token, got 'kerberos'"
    assert isinstance(authenticator_for("basic", _file(tmp_path, "users: {}\n")), BasicAuth)


# -- the users file's errors -------------------------------------------------------------------

def _file(folder: Path, text: str) -> Path:
    path = folder / "users.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("text", "line", "said"), [
    ("users:\n  alice:\n    password: hunter2\n", 3,
     "users.alice.password: not an argon2 hash"),
    ("users:\n  alice:\n    pasword: x\n", 3,
     "users.alice: unknown key 'pasword' (did you mean 'password'?)"),
    ("user:\n  alice: {}\n", 1, "unknown key 'user' (did you mean 'users'?)"),
    ("users:\n  alice: {}\n  alice: {}\n", 3, "duplicate key 'alice' (first at line 2)"),
    ("users:\n  alice:\n    groups: ops\n", 3, "users.alice.groups: expected a list"),
    ("users:\n  alice:\n    groups: [ok, 'not ok']\n", 3,
     "users.alice.groups[1]: 'not ok' is not a group name"),
    ("users:\n  'a:b': {}\n", 2, "'a:b' is not a user name"),
    ("users:\n  alice:\n    tokens:\n      - sha256: my-secret-token\n"
     "        created: 2026-01-01T00:00:00Z\n", 4,
     "users.alice.tokens[0].sha256: expected the sha-256 of the token"),
    ("users:\n  alice:\n    tokens:\n      - sha256: " + "a" * 64 + "\n"
     "        created: 2026-01-01T00:00:00Z\n        expires: tomorrow\n", 6,
     "users.alice.tokens[0].expires: expected an ISO 8601 time with its offset"),
    ("users:\n  alice:\n    tokens:\n      - sha256: " + "a" * 64 + "\n"
     "        created: 2026-01-01T00:00:00\n", 5,
     "users.alice.tokens[0].created: expected an ISO 8601 time with its offset"),
    ("users:\n  alice:\n    tokens:\n      - sha256: " + "a" * 64 + "\n", 4,
     "users.alice.tokens[0].created: missing"),
    ("users: [alice]\n", 1, "users: expected a map of user names"),
    ("users:\n  alice: {\n", 3, ""),  # a YAML syntax error, at its line
])
def test_a_bad_users_file_is_named_at_its_line(tmp_path: Path, text: str, line: int,
                                               said: str) -> None:
    path = _file(tmp_path, text)
    with pytest.raises(ConfigError) as e:
        read_users(path)
    message = str(e.value)
    assert message.startswith(f"{path}:{line}: "), message
    assert said in message
    # a value that may be a secret in clear is never quoted back
    assert "hunter2" not in message and "my-secret-token" not in message


def test_a_good_file_reads_back_what_it_says(users_file: Path) -> None:
    users = read_users(users_file)
    alice = users.users["alice"]
    assert alice.password is not None and CHEAP.verify(alice.password, PASSWORDS["alice"])
    assert [t.digest for t in alice.tokens] == [digest(TOKENS["alice"]),
                                                digest("alice-old-token")]
    assert alice.tokens[0].expires == datetime(2999, 1, 1, tzinfo=UTC)
    assert users.users["bob"].tokens[0].expires is None
    assert users.users["dave"].password is None and users.users["dave"].tokens == ()


# -- helpers -----------------------------------------------------------------------------------

def write_later(path: Path, text: str) -> None:
    """``text`` written to ``path`` so that its stat differs from the last one (a size or a
    modification time of its own), as an edit does."""
    before = path.stat().st_mtime_ns
    path.write_text(text, encoding="utf-8")
    if path.stat().st_mtime_ns == before:
        os.utime(path, ns=(before + 1_000_000, before + 1_000_000))


def _eventually(check: object, timeout_s: float = 10.0) -> bool:
    """``check()`` true within ``timeout_s`` (the users file is looked at once a second)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if callable(check) and check():
            return True
        time.sleep(0.1)
    return False


def test_a_failed_token_is_a_warning_that_does_not_hold_it(token: tuple[TestClient, FakeControl],
                                         caplog: pytest.LogCaptureFixture) -> None:
    client, _ = token
    with caplog.at_level(logging.DEBUG):
        client.get(f"{BASE}/info", headers={"Authorization": "Bearer not-a-token-xyz"})
        client.get(f"{BASE}/info", headers={"Authorization": f"Bearer {TOKENS['alice']}"})
    failures = [r for r in caplog.records if "authentication failed" in r.getMessage()]
    assert [r.levelno for r in failures] == [logging.WARNING]
    assert "no user: unknown token" in failures[0].getMessage()
    assert "not-a-token-xyz" not in caplog.text and TOKENS["alice"] not in caplog.text
    assert json.dumps(TOKENS["alice"])[1:-1] not in caplog.text


# -- what passes without the users' authentication ------------------------------------------

AM = "/ws/v1/fairshare/am"


@pytest.mark.parametrize(("path", "exempt"), [
    (f"{AM}/register", True), (f"{AM}/register/", True), (AM, True),
    (f"{AM}/containers/container_1_0001_01_000002/start", True),
    # paths that only start like the AM protocol's and would be routed elsewhere
    (f"{AM}/../../cluster/apps", False), (f"{AM}/..", False), (f"{AM}/./register", False),
    (f"{AM}//register", False), (f"{AM}x/register", False), ("/ws/v1/fairshare/amx", False),
    ("/ws/v1/cluster/apps", False), ("/", False),
])
def test_only_the_am_protocols_own_paths_skip_authentication(path: str, exempt: bool) -> None:
    from starlette.applications import Starlette

    from fairshare.server.auth import Authenticate

    middleware = Authenticate(Starlette(), PseudoAuth(), own_auth=(AM,))
    assert middleware._exempt(path) is exempt


def test_a_websocket_without_credentials_is_closed_as_a_policy_violation(users_file: Path
                                                                         ) -> None:
    from starlette.applications import Starlette
    from starlette.routing import WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    from fairshare.server.auth import Authenticate, caller_of

    async def hello(socket: WebSocket) -> None:
        await socket.accept()
        await socket.send_text(caller_of(socket).user)
        await socket.close()

    inner = Starlette(routes=[WebSocketRoute("/ws/echo", hello)])
    wrapped = Authenticate(inner, authenticator_for("token", users_file))
    with TestClient(wrapped) as client:
        with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect("/ws/echo"):
            pass
        assert closed.value.code == 1008
        with client.websocket_connect("/ws/echo", headers={
                "Authorization": f"Bearer {TOKENS['bob']}"}) as socket:
            assert socket.receive_text() == "bob"


def test_a_users_file_that_disappears_keeps_the_last_good_one(
        users_file: Path, caplog: pytest.LogCaptureFixture) -> None:
    source = UsersSource(users_file, check_every_s=0)
    users_file.unlink()
    with caplog.at_level(logging.WARNING, "fairshare.serve.auth"):
        assert set(source.current().users) == {"alice", "bob", "carol", "dave"}
        source.current()
    assert caplog.text.count("cannot be read any more") == 1  # said once, not per request

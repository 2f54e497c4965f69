"""``fairshare serve --auth basic|token --users FILE --tls-cert --tls-key`` and
``fairshare serve-users``: the options' errors (exit 2 naming the option or file:line, nothing
started), which addresses each scheme may serve, and two real servers (uvicorn, HTTPS with a
certificate of a CA made by trustme, on 127.0.0.1) answering authenticated and failed requests
on every kind of route, with a log that holds none of the secrets sent.

Password hashes are checked with argon2-cffi's own ``PasswordHasher.verify``, token digests
with ``hashlib``: not with the code under test.
"""

from __future__ import annotations

import base64
import hashlib
import signal
import ssl
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import argon2
import httpx
import pytest
import trustme
import typer
import yaml
from cryptography.hazmat.primitives import serialization
from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.cli.serve import AuthScheme, check_exposure
from tests.ports import free_port

runner = CliRunner()
CHEAP = argon2.PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
GOOD = '<?xml version="1.0"?>\n<allocations>\n  <queue name="a"/>\n</allocations>\n'
START_TIMEOUT_S = 60


@pytest.fixture()
def allocations(tmp_path: Path) -> Path:
    path = tmp_path / "fair-scheduler.xml"
    path.write_text(GOOD)
    return path


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A CA, a certificate for 127.0.0.1 with its key, another key, an encrypted key, junk."""
    folder = tmp_path_factory.mktemp("tls")
    ca = trustme.CA()
    cert = ca.issue_cert("127.0.0.1")
    other = ca.issue_cert("127.0.0.1")
    files = {name: folder / f"{name}.pem" for name in
             ("ca", "cert", "key", "other_key", "encrypted_key", "junk", "both")}
    ca.cert_pem.write_to_path(str(files["ca"]))
    cert.cert_chain_pems[0].write_to_path(str(files["cert"]))
    cert.private_key_pem.write_to_path(str(files["key"]))
    other.private_key_pem.write_to_path(str(files["other_key"]))
    key = serialization.load_pem_private_key(cert.private_key_pem.bytes(), None)
    files["encrypted_key"].write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(b"secret")))
    files["junk"].write_text("not a certificate\n")
    files["both"].write_bytes(cert.private_key_pem.bytes() + cert.cert_chain_pems[0].bytes())
    return files


def serve(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, ["serve", *args])
    assert "Traceback" not in result.output
    return result.exit_code, " ".join(result.stderr.split())


# -- the options' errors -----------------------------------------------------------------------

@pytest.mark.parametrize(("options", "said"), [
    (["--auth", "kerberos"], "Invalid value for '--auth'"),
    (["--auth", "basic"], "--users: basic authentication checks callers against a users file"),
    (["--auth", "token"], "--users: token authentication"),
    (["--auth", "basic", "--users", "{tmp}/nope.yaml"],
     "nope.yaml: cannot read file: No such file"),
    (["--tls-key", "{key}"], "--tls-key: give the certificate it is the key of, --tls-cert"),
    (["--tls-cert", "{tmp}/nope.pem", "--tls-key", "{key}"],
     "--tls-cert: {tmp}/nope.pem: No such file or directory"),
    (["--tls-cert", "{cert}", "--tls-key", "{tmp}"], "--tls-key: {tmp}: is a directory"),
    (["--tls-cert", "{junk}", "--tls-key", "{key}"], "--tls-cert: {junk}: not a PEM certificate"),
    (["--tls-cert", "{cert}", "--tls-key", "{junk}"], "--tls-key: {junk}: not a PEM private key"),
    (["--tls-cert", "{cert}", "--tls-key", "{other_key}"],
     "--tls-key: {other_key}: the private key does not match the certificate of --tls-cert"),
    (["--tls-cert", "{cert}", "--tls-key", "{encrypted_key}"],
     "--tls-key: the private key is encrypted"),
    (["--tls-cert", "{cert}"], "--tls-cert: {cert} holds no private key: give it as --tls-key"),
    # off loopback: pseudo trusts everyone; basic and token without TLS would send their
    # secrets in clear
    (["--listen", "0.0.0.0:0"], "--listen: 0.0.0.0 is not a loopback address, and simple "
     "authentication"),
    (["--listen", "0.0.0.0:0", "--auth", "pseudo", "--tls-cert", "{cert}", "--tls-key",
      "{key}"], "simple authentication (?user.name=, else dr.who) lets whoever"),
    (["--listen", "0.0.0.0:0", "--auth", "basic", "--users", "{users}"],
     "--listen: 0.0.0.0 is not a loopback address, and without TLS the passwords of basic "
     "authentication would cross the network in clear"),
    (["--listen", "[::]:0", "--auth", "token", "--users", "{users}"],
     "the tokens of token authentication would cross the network in clear"),
])
def test_a_bad_auth_or_tls_option_is_named_and_nothing_starts(
        allocations: Path, tmp_path: Path, tls: dict[str, Path], options: list[str],
        said: str) -> None:
    users = tmp_path / "users.yaml"
    users.write_text("users: {}\n")
    names = {**{k: str(v) for k, v in tls.items()}, "tmp": str(tmp_path), "users": str(users)}
    out = tmp_path / "session"
    code, stderr = serve(str(allocations), "--out", str(out), "--listen", "127.0.0.1:0",
                         *[o.format(**names) for o in options])
    assert code == 2
    assert said.format(**names) in stderr
    assert not out.exists()


def test_a_bad_users_file_is_exit_2_at_its_line(allocations: Path, tmp_path: Path) -> None:
    users = tmp_path / "users.yaml"
    users.write_text("users:\n  alice:\n    password: hunter2\n")
    code, stderr = serve(str(allocations), "--auth", "basic", "--users", str(users),
                         "--out", str(tmp_path / "s"), "--listen", "127.0.0.1:0")
    assert code == 2
    assert f"{users}:3: users.alice.password: not an argon2 hash" in stderr
    assert "hunter2" not in stderr  # never quoted back: it may be a password in clear
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(("host", "scheme", "tls", "insecure", "allowed", "warning"), [
    ("127.0.0.1", AuthScheme.PSEUDO, False, False, True, None),
    ("::1", AuthScheme.BASIC, False, False, True, None),  # loopback: nothing crosses a wire
    ("0.0.0.0", AuthScheme.BASIC, True, False, True, None),
    ("10.0.0.5", AuthScheme.TOKEN, True, False, True, None),
    ("0.0.0.0", AuthScheme.PSEUDO, True, False, False, None),  # TLS authenticates no one
    ("0.0.0.0", AuthScheme.PSEUDO, False, True, True, "authenticates no one"),
    ("0.0.0.0", AuthScheme.BASIC, False, True, True, "passwords of basic authentication "
     "cross the network in clear"),
    ("rm.example.com", AuthScheme.TOKEN, False, False, False, None),
])
def test_what_may_be_served_where(host: str, scheme: AuthScheme, tls: bool, insecure: bool,
                                  allowed: bool, warning: str | None) -> None:
    if not allowed:
        with pytest.raises(typer.Exit) as refused:
            check_exposure(host, scheme, tls, insecure)
        assert refused.value.exit_code == 2
        return
    said = check_exposure(host, scheme, tls, insecure)
    assert (said is None) == (warning is None)
    assert warning is None or warning in str(said)


# -- serve-users -------------------------------------------------------------------------------

def users_cli(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, ["serve-users", *args], input=stdin)
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, " ".join(result.stderr.split())


def test_serve_users_add_keeps_an_argon2_hash_of_the_password(tmp_path: Path) -> None:
    path = tmp_path / "users.yaml"
    code, stdout, _ = users_cli("add", str(path), "alice", "--groups", "etl, analysts",
                                stdin="correct horse\n")
    assert code == 0 and stdout.strip() == f"alice: password set in {path} (groups: etl, analysts)"
    assert path.stat().st_mode & 0o777 == 0o600
    assert "correct horse" not in path.read_text()
    entry = yaml.safe_load(path.read_text())["users"]["alice"]
    assert argon2.PasswordHasher().verify(entry["password"], "correct horse")
    assert entry["password"].startswith("$argon2id$")
    assert entry["groups"] == ["etl", "analysts"]
    # a new password keeps the groups when --groups is not given
    code, _, _ = users_cli("add", str(path), "alice", stdin="battery staple\n")
    entry = yaml.safe_load(path.read_text())["users"]["alice"]
    assert code == 0 and entry["groups"] == ["etl", "analysts"]
    assert argon2.PasswordHasher().verify(entry["password"], "battery staple")


def test_serve_users_token_prints_it_once_and_keeps_its_digest(tmp_path: Path) -> None:
    path = tmp_path / "users.yaml"
    code, stdout, stderr = users_cli("token", str(path), "bob", "--expires", "30d")
    assert code == 0
    token = stdout.strip()
    assert len(token) >= 43  # 256 random bits, base64url
    text = path.read_text()
    assert token not in text
    entry = yaml.safe_load(text)["users"]["bob"]["tokens"][0]
    assert entry["sha256"] == hashlib.sha256(token.encode()).hexdigest()
    created, expires = entry["created"], entry["expires"]  # PyYAML reads them as datetimes
    assert (expires - created).total_seconds() == 30 * 86400
    assert "cannot be shown again" in stderr and token not in stderr


@pytest.mark.parametrize(("args", "stdin", "said"), [
    (["token", "{f}", "bob", "--expires", "soon"], None, "--expires: expected a duration"),
    (["token", "{f}", "bob", "--expires", "0s"], None, "--expires: must be more than 0"),
    (["add", "{f}", "bob"], "\n", "the password is empty"),
    (["add", "{f}", "b:ob"], "pw\n", "USER: 'b:ob' is not a user name"),
    (["add", "{f}", "bob", "--groups", "a,b c"], "pw\n", "--groups: 'b c' is not a group name"),
    (["token", "{broken}", "bob"], None, "{broken}:2: users.alice: expected a map"),
])
def test_serve_users_errors_write_nothing(tmp_path: Path, args: list[str], stdin: str | None,
                                          said: str) -> None:
    broken = tmp_path / "broken.yaml"
    broken.write_text("users:\n  alice: 3\n")
    names = {"f": str(tmp_path / "users.yaml"), "broken": str(broken)}
    code, _, stderr = users_cli(*[a.format(**names) for a in args], stdin=stdin)
    assert code == 2
    assert said.format(**names) in stderr
    assert not (tmp_path / "users.yaml").exists()
    assert broken.read_text() == "users:\n  alice: 3\n"


# -- real servers ------------------------------------------------------------------------------

PASSWORD = "correct horse battery"
WRONG = "not-the-password-4711"
TOKEN = "the-good-token-Zq8mYc0x"
EXPIRED = "the-expired-token-Pv3nW"
UNKNOWN = "an-unknown-token-Lk2s9"
COOKIE = "u=root&p=root&t=simple-dt&e=99999999999999&s=cookie-secret-Hx7"


def _trusting(tls: dict[str, Path]) -> ssl.SSLContext:
    """A client's context that trusts the test CA only."""
    return ssl.create_default_context(cafile=str(tls["ca"]))


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _basic(user: str, password: str) -> dict[str, str]:
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


GOOD_CREDENTIALS = {"basic": _basic("alice", PASSWORD),
                    "token": {"Authorization": f"Bearer {TOKEN}"}}


@pytest.fixture(scope="module")
def servers(tls: dict[str, Path], tmp_path_factory: pytest.TempPathFactory
            ) -> Iterator[dict[str, tuple[str, subprocess.Popen[str]]]]:
    """A basic and a token server, both over TLS, started together."""
    folder = tmp_path_factory.mktemp("served")
    allocations = folder / "fair-scheduler.xml"
    allocations.write_text(GOOD)
    users = folder / "users.yaml"
    users.write_text(f"""users:
  alice:
    password: "{CHEAP.hash(PASSWORD)}"
    tokens:
      - sha256: {_digest(TOKEN)}
        created: 2026-01-01T00:00:00Z
      - sha256: {_digest(EXPIRED)}
        created: 2019-01-01T00:00:00Z
        expires: 2020-01-01T00:00:00Z
""")
    started: dict[str, tuple[str, subprocess.Popen[str]]] = {}
    try:
        for scheme in ("basic", "token"):
            port = free_port()
            started[scheme] = (f"https://127.0.0.1:{port}", subprocess.Popen(
                [sys.executable, "-m", "fairshare", "serve", str(allocations), "--nodes",
                 "1x4g/4", "--auth", scheme, "--users", str(users), "--tls-cert",
                 str(tls["cert"]), "--tls-key", str(tls["key"]), "--listen",
                 f"127.0.0.1:{port}", "--out", str(folder / scheme), "--log-level", "debug"],
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        with httpx.Client(verify=_trusting(tls), timeout=10) as client:
            for scheme, (url, process) in started.items():
                deadline = time.monotonic() + START_TIMEOUT_S
                while True:
                    assert process.poll() is None, process.communicate()
                    try:
                        client.get(f"{url}/ws/v1/cluster/info",
                                   headers=GOOD_CREDENTIALS[scheme])
                        break
                    except httpx.TransportError:
                        assert time.monotonic() < deadline, "the server did not start"
                        time.sleep(0.2)
        yield started
    finally:
        for _, process in started.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=10)


def _stop(process: subprocess.Popen[str]) -> tuple[str, str]:
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=30)
    assert process.returncode == 0, stderr
    return stdout, stderr




ROUTES = ["/ws/v1/cluster/info", "/ws/v1/cluster/apps", "/ws/v1/fairshare/snapshot",
          "/", "/scheduler", "/metrics"]


def test_two_real_servers_over_tls_authenticate_every_route_and_log_no_secret(
        servers: dict[str, tuple[str, subprocess.Popen[str]]], tls: dict[str, Path]) -> None:
    basic_url, basic_server = servers["basic"]
    token_url, token_server = servers["token"]
    good = GOOD_CREDENTIALS
    bad = {"basic": [_basic("alice", WRONG), _basic("mallory", PASSWORD), {}],
           "token": [{"Authorization": f"Bearer {EXPIRED}"},
                     {"Authorization": f"Bearer {UNKNOWN}"}, {}]}
    cookie = {"Cookie": f'hadoop.auth="{COOKIE}"'}
    with httpx.Client(verify=_trusting(tls), timeout=20) as client:
        for scheme, url in (("basic", basic_url), ("token", token_url)):
            for route in ROUTES:
                answer = client.get(url + route, headers=good[scheme] | cookie)
                assert answer.status_code == 200, (scheme, route, answer.text[:200])
                for headers in bad[scheme]:
                    refused = client.get(url + route, headers=headers | cookie)
                    assert refused.status_code == 401, (scheme, route, headers)
                    assert refused.headers["www-authenticate"].startswith(
                        "Basic " if scheme == "basic" else "Bearer ")
            assert "queue_metrics_fair_share_mb" in client.get(
                f"{url}/metrics", headers=good[scheme]).text
            # a submission is the authenticated user's, whatever ?user.name= says
            new = client.post(f"{url}/ws/v1/cluster/apps/new-application?user.name=root",
                              headers=good[scheme]).json()["application-id"]
            assert client.post(f"{url}/ws/v1/cluster/apps?user.name=root", headers=good[
                scheme], json={"application-id": new, "queue": "root.a", "am-container-spec": {
                    "commands": {"command": "true"}}}).status_code == 202
            app_doc = client.get(f"{url}/ws/v1/cluster/apps/{new}", headers=good[scheme])
            assert app_doc.json()["app"]["user"] == "alice"
            # the AM protocol keeps its own per-attempt tokens: not the users' authentication
            am = client.post(f"{url}/ws/v1/fairshare/am/register", headers=good[scheme])
            assert am.status_code == 401
            assert am.json()["RemoteException"]["exception"] == "AuthorizationException"
        # TLS for real: plain HTTP on the same port gets no answer
        with pytest.raises(httpx.HTTPError):
            httpx.get(basic_url.replace("https", "http") + "/ws/v1/cluster/info",
                      headers=good["basic"], timeout=5)
    basic_out, basic_log = _stop(basic_server)
    token_out, token_log = _stop(token_server)
    assert f"on {basic_url}/" in basic_out and f"on {token_url}/" in token_out
    log = basic_log + token_log
    secrets = [PASSWORD, WRONG, TOKEN, EXPIRED, UNKNOWN, COOKIE, "cookie-secret-Hx7",
               *(h["Authorization"].split(" ", 1)[1] for h in (*bad["basic"][:2],
                                                                good["basic"]))]
    assert [s for s in secrets if s in log] == []
    assert "INFO fairshare.serve: callers authenticated by token" in token_log  # at debug
    warned = [line for line in log.splitlines() if "authentication failed" in line]
    assert len(warned) == len(ROUTES) * 6
    assert all(" WARNING fairshare.serve.auth: " in line for line in warned)
    assert sum("basic authentication failed for user 'alice': wrong password (GET /" in line
               for line in warned) == len(ROUTES)
    assert sum("for user 'mallory': unknown user" in line for line in warned) == len(ROUTES)
    assert sum("token authentication failed for user 'alice': token expired at 2020-01-01"
               in line for line in warned) == len(ROUTES)
    assert sum("for no user: unknown token" in line for line in warned) == len(ROUTES)
    assert "callers authenticated by basic" in basic_log

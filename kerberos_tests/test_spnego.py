"""``fairshare watch --spnego`` against an RM that wants Kerberos (SPNEGO, as Hadoop's
``KerberosAuthenticationHandler`` does on a secured RM's web services): a recorded RM behind a
real GSSAPI acceptor, with a real KDC (conftest.py). With a ticket the poll gets its sample
and the server knows the caller as alice; without one the RM's 401 is a located error."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path

import gssapi
import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.watch.client import RMClient
from fairshare.watch.poll import PollError, poll
from kerberos_tests.conftest import REALM, Realm
from tests.watch.fake_rm import FakeRM, serving

RECORDED = Path(__file__).resolve().parents[1] / "tests" / "watch" / "recorded" / "fair-preempted"


class Acceptor:
    """The server's side of SPNEGO: every request's Negotiate token accepted with
    HTTP/localhost's key; who it was from, kept."""

    def __init__(self, keytab: Path) -> None:
        self.keytab = keytab
        self.callers: list[str] = []

    def __call__(self, header: str | None) -> dict[str, str] | None:
        if not header or not header.startswith("Negotiate "):
            return None
        store = {b"keytab": str(self.keytab).encode()}
        creds = gssapi.Credentials(usage="accept", store=store)
        context = gssapi.SecurityContext(creds=creds, usage="accept")
        out = context.step(base64.b64decode(header.split(" ", 1)[1]))
        if not context.complete:
            return None
        self.callers.append(str(context.initiator_name))
        return {"WWW-Authenticate": "Negotiate " + base64.b64encode(out).decode()} if out else {}


@pytest.fixture()
def secured(realm: Realm, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[FakeRM, Acceptor]]:
    for key in ("KRB5_CONFIG",):
        monkeypatch.setenv(key, realm.env[key])
    acceptor = Acceptor(realm.keytab)
    rm = FakeRM.from_folder(RECORDED, negotiate=acceptor)
    with serving(rm) as served:
        # the principal is HTTP/<the host in the URL>: the RM's address as users give it
        served.url = served.url.replace("127.0.0.1", "localhost")
        yield served, acceptor


def test_with_a_ticket_the_poll_is_alices(secured: tuple[FakeRM, Acceptor], realm: Realm,
                                          tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    rm, acceptor = secured
    cache = tmp_path / "cc"
    realm.kinit(cache)
    monkeypatch.setenv("KRB5CCNAME", f"FILE:{cache}")
    with RMClient([rm.url], spnego=True) as client:
        result = poll(client, lambda: 1, None)
    assert {q.name for q in result.sample.queues()} == {"root", "root.a", "root.b", "root.c",
                                                       "root.c.c1"}
    assert acceptor.callers and set(acceptor.callers) == {f"alice@{REALM}"}

    runner = CliRunner()
    printed = runner.invoke(app, ["watch", "status", rm.url, "--spnego", "--format", "json"])
    assert printed.exit_code == 0, printed.output
    assert '"root.b"' in printed.stdout


def test_without_a_ticket_the_rms_401_is_a_located_error(
        secured: tuple[FakeRM, Acceptor], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    rm, acceptor = secured
    monkeypatch.setenv("KRB5CCNAME", f"FILE:{tmp_path / 'none'}")  # no ticket there
    with RMClient([rm.url], spnego=True) as client, pytest.raises(PollError) as e:
        poll(client, lambda: 1, None)
    assert e.value.kind == "http-status"
    assert "/ws/v1/cluster/scheduler: HTTP 401" in str(e.value)
    assert acceptor.callers == []

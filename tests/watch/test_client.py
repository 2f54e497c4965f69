"""RMClient against fake RMs on loopback: HA redirects (Hadoop 3's 307, Hadoop 2's 200 text, a
standby's own /info), retries with back-off, timeouts, TLS, simple auth and SPNEGO's absence."""

from __future__ import annotations

import socket
import ssl
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
import trustme

from fairshare.config.errors import ConfigError
from fairshare.watch.client import RMClient, RMUnavailable, base_url
from tests.watch.fake_rm import FakeRM, serving

DUMP = Path(__file__).resolve().parents[2] / "docs" / "files" / "import" / "dump"
SCHEDULER = "/ws/v1/cluster/scheduler"
SCHEDULER_TEXT = (DUMP / "scheduler.json").read_text(encoding="utf-8")


@pytest.fixture
def rms() -> Iterator[tuple[FakeRM, FakeRM]]:
    with ExitStack() as stack:
        one = stack.enter_context(serving(FakeRM.from_folder(DUMP, cluster_id=1)))
        two = stack.enter_context(serving(FakeRM.from_folder(DUMP, cluster_id=2)))
        yield one, two


class Sleeps(list[float]):
    def __call__(self, seconds: float) -> None:
        self.append(seconds)


def client(*urls: str, **kwargs: object) -> RMClient:
    kwargs.setdefault("sleep", Sleeps())
    return RMClient(list(urls), **kwargs)  # type: ignore[arg-type]


def test_an_answer_is_the_rms_text_with_its_time_from_the_injected_clock(
        rms: tuple[FakeRM, FakeRM]) -> None:
    rm, _ = rms
    ticks = iter([100.0, 101.5])
    with client(rm.url, clock=lambda: next(ticks)) as c:
        answer = c.get(SCHEDULER)
    assert (answer.status, answer.text, answer.rm) == (200, SCHEDULER_TEXT, rm.url)
    assert answer.url == rm.url + SCHEDULER
    assert answer.elapsed_s == 1.5
    assert answer.notes == ()


def test_one_connection_is_kept_alive_across_gets(rms: tuple[FakeRM, FakeRM]) -> None:
    rm, _ = rms
    with client(rm.url) as c:
        for _ in range(3):
            c.get(SCHEDULER)
    assert len(rm.requests) == 3
    assert len(rm.peers) == 1


def test_user_name_is_appended_for_simple_auth(rms: tuple[FakeRM, FakeRM]) -> None:
    rm, _ = rms
    with client(rm.url, user="alice") as c:
        c.get(SCHEDULER)
        c.get("/ws/v1/cluster/apps?states=RUNNING")
    assert rm.requests == [f"{SCHEDULER}?user.name=alice",
                           "/ws/v1/cluster/apps?states=RUNNING&user.name=alice"]


def test_a_standby_307_is_followed_and_the_active_rm_asked_first_next_time(
        rms: tuple[FakeRM, FakeRM]) -> None:
    standby, active = rms
    standby.behaviour.mode, standby.behaviour.redirect_to = "standby", active.url
    with client(standby.url, active.url, user="bob") as c:
        first = c.get(SCHEDULER)
        second = c.get(SCHEDULER)
        assert c.active == base_url(active.url)
    assert first.rm == second.rm == active.url
    assert first.text == SCHEDULER_TEXT
    assert standby.requests == [f"{SCHEDULER}?user.name=bob"]  # asked once, not again
    assert active.requests == [f"{SCHEDULER}?user.name=bob"] * 2  # Location kept the query


def test_hadoop2s_standby_text_with_refresh_is_followed(rms: tuple[FakeRM, FakeRM]) -> None:
    standby, active = rms
    standby.behaviour.mode, standby.behaviour.redirect_to = "standby-text", active.url
    with client(standby.url, active.url) as c:
        answer = c.get(SCHEDULER)
    assert answer.rm == active.url and answer.text == SCHEDULER_TEXT


def test_a_standbys_own_cluster_info_is_not_taken(rms: tuple[FakeRM, FakeRM]) -> None:
    standby, active = rms
    standby.behaviour.mode, standby.behaviour.redirect_to = "standby", active.url
    with client(standby.url, active.url) as c:
        answer = c.get("/ws/v1/cluster/info")
    assert answer.rm == active.url
    assert '"haState":"ACTIVE"' in answer.text and '"id":2,' in answer.text


def test_the_list_is_gone_round_when_the_first_rm_is_down(rms: tuple[FakeRM, FakeRM]) -> None:
    _, rm = rms
    with client(_closed_port_url(), rm.url, retries=1) as c:
        answer = c.get(SCHEDULER)
        assert c.active == base_url(rm.url)
    assert answer.rm == rm.url


def test_no_active_rm_names_each_rm_and_its_error(rms: tuple[FakeRM, FakeRM]) -> None:
    one, two = rms
    one.behaviour.mode = two.behaviour.mode = "standby-lost"
    with client(one.url, two.url) as c, pytest.raises(RMUnavailable) as caught:
        c.get(SCHEDULER)
    message = str(caught.value)
    assert message.startswith(f"no ResourceManager answered GET {SCHEDULER}: {one.url}: ")
    assert message.count("standby, no active RM known (HTTP 307: Can not find any active RM") \
        == 2
    assert f"; {two.url}: " in message


def test_a_redirect_loop_stops(rms: tuple[FakeRM, FakeRM]) -> None:
    one, two = rms
    one.behaviour.mode, one.behaviour.redirect_to = "standby", two.url
    two.behaviour.mode, two.behaviour.redirect_to = "standby", one.url
    with client(one.url, two.url) as c, pytest.raises(RMUnavailable) as caught:
        c.get(SCHEDULER)
    assert "redirect loop" in str(caught.value)
    assert len(one.requests) == len(two.requests) == 1


def test_a_location_outside_the_list_is_followed_and_reported(
        rms: tuple[FakeRM, FakeRM]) -> None:
    standby, other = rms
    standby.behaviour.mode, standby.behaviour.redirect_to = "standby", other.url
    with client(standby.url) as c:
        answer = c.get(SCHEDULER)
        again = c.get(SCHEDULER)
    target = base_url(other.url)
    assert answer.rm == again.rm == target
    assert answer.notes == (f"{standby.url} redirected to {target}, which is not in the RM "
                            "list: followed (add it to the list)",)
    assert len(standby.requests) == 1  # the RM that answered is asked first


def test_5xx_is_retried_with_exponential_back_off(rms: tuple[FakeRM, FakeRM]) -> None:
    rm, _ = rms
    rm.behaviour.fail_first = 2
    sleeps = Sleeps()
    with client(rm.url, retries=3, backoff_s=0.5, sleep=sleeps) as c:
        answer = c.get(SCHEDULER)
    assert answer.status == 200
    assert sleeps == [0.5, 1.0]
    assert len(rm.requests) == 3


def test_5xx_past_the_retries_goes_to_the_next_rm(rms: tuple[FakeRM, FakeRM]) -> None:
    one, two = rms
    one.behaviour.fail_first = 100
    sleeps = Sleeps()
    with client(one.url, two.url, retries=3, backoff_s=0.25, sleep=sleeps) as c:
        answer = c.get(SCHEDULER)
    assert answer.rm == two.url
    assert sleeps == [0.25, 0.5, 1.0]
    assert len(one.requests) == 4


def test_all_failing_names_the_last_error_and_the_attempts(rms: tuple[FakeRM, FakeRM]) -> None:
    rm, _ = rms
    rm.behaviour.fail_first = 100
    with client(rm.url, retries=2) as c, pytest.raises(RMUnavailable) as caught:
        c.get(SCHEDULER)
    assert str(caught.value) == (
        f"no ResourceManager answered GET {SCHEDULER}: {rm.url}: HTTP 503: "
        '{"RemoteException": {"exception": "WebApplicationException", "message": '
        '"java.lang.NullPointerException", "javaClassName": '
        '"org.apache.hadoop.yarn.webapp.WebApplicationException"}} (3 attempts)')


def test_a_slow_rm_times_out_and_the_next_one_answers(rms: tuple[FakeRM, FakeRM]) -> None:
    slow, fast = rms
    slow.behaviour.mode, slow.behaviour.delay_s = "slow", 0.6
    sleeps = Sleeps()
    with client(slow.url, fast.url, timeout_s=0.2, retries=1, sleep=sleeps) as c:
        answer = c.get(SCHEDULER)
    assert answer.rm == fast.url
    assert sleeps == [0.5]
    with client(slow.url, timeout_s=0.2, retries=0) as c, pytest.raises(RMUnavailable) as caught:
        c.get(SCHEDULER)
    assert f"{slow.url}: no answer within 0.2 s (ReadTimeout) (1 attempt)" in str(caught.value)


def test_an_answer_broken_off_is_retried_then_named(rms: tuple[FakeRM, FakeRM]) -> None:
    rm, _ = rms
    rm.behaviour.mode = "cut"
    with client(rm.url, retries=1) as c, pytest.raises(RMUnavailable) as caught:
        c.get(SCHEDULER)
    assert f"{rm.url}: the answer broke off (" in str(caught.value)
    assert len(rm.requests) == 2


def test_connection_refused_is_named(rms: tuple[FakeRM, FakeRM]) -> None:
    url = _closed_port_url()
    with client(url, retries=1) as c, pytest.raises(RMUnavailable) as caught:
        c.get(SCHEDULER)
    assert f"{url}: cannot connect (" in str(caught.value)
    assert str(caught.value).endswith("(2 attempts)")


@pytest.fixture
def tls(tmp_path: Path) -> Iterator[tuple[FakeRM, str]]:
    ca = trustme.CA()
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ca.issue_cert("127.0.0.1").configure_cert(server)
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    with serving(FakeRM.from_folder(DUMP), tls=server) as rm:
        yield rm, str(bundle)


def test_tls_with_a_ca_bundle(tls: tuple[FakeRM, str]) -> None:
    rm, bundle = tls
    assert rm.url.startswith("https://127.0.0.1:")
    with client(rm.url, ca_bundle=bundle) as c:
        assert c.get(SCHEDULER).text == SCHEDULER_TEXT


def test_tls_without_the_ca_is_refused_at_once_and_verify_false_accepts(
        tls: tuple[FakeRM, str]) -> None:
    rm, _ = tls
    sleeps = Sleeps()
    with client(rm.url, sleep=sleeps) as c, pytest.raises(RMUnavailable) as caught:
        c.get(SCHEDULER)
    assert "TLS: the RM's certificate is not trusted" in str(caught.value)
    assert sleeps == []  # not retried: it would not change
    with client(rm.url, verify=False) as c:
        assert c.get(SCHEDULER).status == 200


def test_a_missing_ca_bundle_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read the CA bundle"):
        RMClient(["https://rm:8090"], ca_bundle=str(tmp_path / "nope.pem"))


def test_spnego_without_httpx_gssapi_says_what_to_install(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "httpx_gssapi", None)  # an import of it fails
    with pytest.raises(ConfigError) as caught:
        RMClient(["http://rm:8088"], spnego=True)
    assert "pip install 'fairshare[kerberos]'" in str(caught.value)


@pytest.mark.parametrize("url", ["rm:8088", "ftp://rm:8088", "http://", "http://rm:99999"])
def test_a_bad_rm_url_is_a_config_error(url: str) -> None:
    with pytest.raises(ConfigError, match="not an RM web address"):
        RMClient([url])


def _closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"

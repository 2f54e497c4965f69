"""The pages' parameters fuzzed (they are outside the OpenAPI document, which covers the REST
API): every page and its ``/api/…`` twin asked with random values of the parameters the pages
read (``tz``, ``from``, ``to``, ``days``, ``hours``, ``points``, ``sort``, ``queue``,
``only``) and random paths under ``/queue/``, ``/app/``, ``/node/``; no answer is a 5xx, and
a refusal is a page (or JSON) that says why. Smoke size by default, a fixed seed; more with
``FAIRSHARE_FUZZ_EXAMPLES`` (docs/reliability.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from fairshare.server.service import Served
from tests.server.served import served_client, submit

EXAMPLES = int(os.environ.get("FAIRSHARE_FUZZ_EXAMPLES", "6")) * 5
PAGES = ["/", "/scheduler", "/scheduler/live", "/tuning", "/apps", "/diagnosis", "/nodes",
         "/nodes/live", "/api/scheduler", "/api/tuning", "/api/apps", "/api/diagnosis",
         "/api/nodes", "/queue/root.b", "/api/queue/root.b", "/metrics"]
NAMED = ["/queue/", "/api/queue/", "/app/", "/api/app/", "/node/", "/api/node/"]
PARAMETERS = ["tz", "from", "to", "days", "hours", "points", "sort", "queue", "only"]
# text a parameter may hold: numbers and dates of every shape, and anything at all
TEXT = st.one_of(
    st.integers(min_value=-(2 ** 70), max_value=2 ** 70).map(str),
    st.sampled_from(["", "now", "2026-12-02T07:30", "2026-13-45T99:99", "1,2,3", "0-23",
                     "7-1", "Europe/Paris", "../../etc/passwd", "nan", "inf", "1e309",
                     "status", "%00", "\x00", "\ud800", "<script>alert(1)</script>"]),
    st.text(max_size=40))


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    pair: tuple[Served, TestClient]
    with served_client(tmp_path_factory.mktemp("fuzz-pages"), pages_interval_ms=200) as pair:
        served, c = pair
        assert submit(c, {"queue": "b"}).status_code == 202
        yield c
        assert served.loop.failure is None


def _query(values: dict[str, str]) -> str:
    # a lone surrogate cannot be sent as UTF-8: its bytes are what a client could send
    return "&".join(f"{k}={quote(v.encode('utf-8', 'surrogatepass'), safe='')}"
                    for k, v in values.items())


def test_no_page_parameter_makes_a_fault(client: TestClient) -> None:
    @given(path=st.sampled_from(PAGES),
           values=st.dictionaries(st.sampled_from(PARAMETERS), TEXT, max_size=4))
    @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    def run(path: str, values: dict[str, str]) -> None:
        answer = client.get(f"{path}?{_query(values)}")
        assert answer.status_code < 500, (path, values, answer.text[:300])

    run()


def test_no_name_in_a_path_makes_a_fault(client: TestClient) -> None:
    @given(prefix=st.sampled_from(NAMED), name=TEXT)
    @settings(max_examples=EXAMPLES, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    def run(prefix: str, name: str) -> None:
        answer = client.get(prefix + quote(name.encode("utf-8", "surrogatepass"), safe=""))
        assert answer.status_code < 500, (prefix, name, answer.text[:300])

    run()

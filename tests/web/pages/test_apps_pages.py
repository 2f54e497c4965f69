"""Applications by queue, one app, and the diagnosis, over the worked example of scenario.py
(the waits and lost work worked out there by hand, nearest-rank)."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from starlette.testclient import TestClient

from fairshare.web.diagnosis import Finding
from fairshare.web.pages import Explained, create_app
from fairshare.workbench.explain.model import Statement
from tests.web.pages.fakes import FakeSource
from tests.web.pages.scenario import APP_IDS, FINDINGS, source


def client(fake: FakeSource | None = None) -> TestClient:
    return TestClient(create_app(fake or source()))


def test_apps_by_queue_have_the_worked_waits_and_lost_work() -> None:
    data = client().get("/api/apps").json()
    queues = {q["queue"]: q for q in data["queues"]}
    assert list(queues) == ["root.analytics.adhoc", "root.etl"]  # tree order
    etl = queues["root.etl"]
    assert etl["apps"] == 3
    assert etl["waits"]["am-wait-ms"] == {"p50": 2000, "p95": 4000, "max": 4000, "apps": 3,
                                          "not_reached": 0}
    assert etl["waits"]["first-task-wait-ms"] == {"p50": 7000, "p95": 12000, "max": 12000,
                                                  "apps": 3, "not_reached": 1}
    assert etl["waits"]["turnaround-ms"] == {"p50": 60000, "p95": 100000, "max": 100000,
                                             "apps": 3, "not_reached": 1}
    assert etl["preempted_containers"] == 4
    assert etl["lost_gb_h"] == 1.0 and etl["lost_vcore_h"] == 0.5  # 3,686,400 MB·s; 1,800 s
    app = next(a for a in data["apps"] if a["id"] == APP_IDS[1])
    assert (app["am-wait-ms"], app["first-task-wait-ms"], app["turnaround-ms"]) == (
        4000, 12000, 100000)


def test_the_apps_page_shows_them() -> None:
    html = client().get("/apps").text
    etl = html[html.index('data-queue="root.etl"'):]
    etl = etl[:etl.index("</tr>")]
    for text in ("2.0 s", "4.0 s", "7.0 s", "12.0 s", "1 m 00 s", "1 m 40 s", "1.00 GB·h",
                 "0.50 vcore·h"):
        assert text in etl, text
    assert f'href="/app/{APP_IDS[1]}"' in html


def test_one_queues_apps() -> None:
    fake = source()
    data = client(fake).get("/api/apps?queue=root.etl").json()
    assert [q["queue"] for q in data["queues"]] == ["root.etl"]
    r = client(fake).get("/apps?queue=root.nope")
    assert r.status_code == 404 and "no queue &#x27;root.nope&#x27; in the history" in r.text
    assert client(fake).get("/api/apps?queue=root.nope").status_code == 404


def test_an_app_has_its_record_preemptions_and_findings() -> None:
    data = client().get(f"/api/app/{APP_IDS[1]}").json()
    assert data["stored"] is True and data["app"]["queue"] == "root.etl"
    assert [p["containers"] for p in data["preemptions"]] == [3, 1]
    html = client().get(f"/app/{APP_IDS[1]}").text
    assert "Preemptions (2)" in html and "The diagnosis has no finding for this app." in html
    assert '<dd data-key="preempted_memory_seconds">1.00 GB·h</dd>' in html  # 3,686,400 MB·s
    assert '<dd data-key="am-wait-ms">4.0 s</dd>' in html
    assert '<dd data-key="started_ms">2023-11-14 22:11:50</dd>' in html  # T − 490 s, UTC


def test_an_app_seen_but_not_stored_yet_is_explained() -> None:
    data = client().get(f"/api/app/{APP_IDS[2]}").json()
    assert data["stored"] is False and data["app"]["queue"] == "root.analytics.reports"
    assert [f["cause"] for f in data["findings"]] == ["max-am-share"]
    html = client().get(f"/app/{APP_IDS[2]}").text
    assert "not stored yet" in html and "maxAMShare reached" in html


@pytest.mark.parametrize("path", ["/app/application_0_9999", "/api/app/application_0_9999"])
def test_an_unknown_app_is_404_saying_which(path: str) -> None:
    r = client().get(path)
    assert r.status_code == 404
    assert "no app" in r.text and "application_0_9999" in r.text
    assert "in the history or in the latest sample" in r.text


def test_the_diagnosis_lists_the_findings_escaped() -> None:
    hostile = replace(FINDINGS[0], words='<img src=x onerror="alert(1)">',
                      queue="root.<b>etl</b>")
    fake = FakeSource(source().latest().sample, source().history(), [hostile, FINDINGS[1]])
    html = client(fake).get("/diagnosis").text
    assert "<img" not in html and "<b>etl" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;" in html
    assert "<code>maxAMShare</code>" in html
    data = client(fake).get("/api/diagnosis").json()
    assert data["findings"][0]["words"] == hostile.words
    assert data["findings"][1] == {"queue": "root.analytics.reports", "app": APP_IDS[2],
                                   "cause": "max-am-share", "words": "maxAMShare reached",
                                   "setting": "maxAMShare",
                                   "advice": "raise maxAMShare of root.analytics.reports"}


def test_no_finding_says_nothing_is_held() -> None:
    fake = FakeSource(source().latest().sample, source().history(), [])
    assert "Nothing is held." in client(fake).get("/diagnosis").text
    assert isinstance(FINDINGS[0], Finding)


# the engine's account of app 0005 as fairshare serve's explain endpoint gives it (a made-up
# session: the engine's clock starts at ENGINE_START, the statements' times are since then)
ENGINE_START = 1_700_000_000_000
VICTIM = "container_application_1700000000000_0005_01_000003"
ACCOUNT = Explained(
    f"app {APP_IDS[1]}",
    (Statement(35_500, "1 of its containers were preempted for "
               "application_1700000000000_0002 (root.b).", (30,)),
     Statement(None, f"Its containers (2): container_application_1700000000000_0005_01_000001 "
               f"(AM), {VICTIM}.", (7, 9))),
    f"/ws/v1/fairshare/apps/{APP_IDS[1]}/explain", ENGINE_START,
    "/ws/v1/fairshare/containers/{id}/explain")


def test_a_watchers_app_page_has_no_explain_section() -> None:
    fake = source()
    html = client(fake).get(f"/app/{APP_IDS[1]}").text
    assert 'id="explain"' not in html and "Explain" not in html
    assert "explanation" not in client(fake).get(f"/api/app/{APP_IDS[1]}").json()
    assert fake.explained_asked == [APP_IDS[1]] * 2  # asked, and told there is no engine


def test_an_engines_account_is_the_explain_section() -> None:
    base = source()
    fake = FakeSource(base.latest().sample, base.history(), FINDINGS,
                      explained={APP_IDS[1]: ACCOUNT})
    html = client(fake).get(f"/app/{APP_IDS[1]}").text
    section = html[html.index('<h2 id="explain">'):html.index("<h2>What holds it</h2>")]
    assert f'href="/ws/v1/fairshare/apps/{APP_IDS[1]}/explain"' in section
    first, second = re.findall(r"<tr>(.*?)</tr>", section)[1:]  # after the head
    # 35.5 s after the engine started (1,700,000,000,000 ms: 2023-11-14 22:13:20 UTC):
    # 22:13:55.5, written to the second
    assert '<td class="nowrap" data-ms="35500">35.5 s<br>' in first
    assert "2023-11-14 22:13:55" in first
    assert ('1 of its containers were preempted for <a href="/app/'
            'application_1700000000000_0002">application_1700000000000_0002</a> (root.b).'
            in first)
    assert f'<a class="container" href="/ws/v1/fairshare/containers/{VICTIM}/explain">' \
           f"{VICTIM}</a>" in second
    assert second.count('class="container"') == 2
    data = client(fake).get(f"/api/app/{APP_IDS[1]}").json()
    assert data["explanation"]["statements"][0] == {
        "t": 35_500, "text": ACCOUNT.statements[0].text, "seq": [30]}
    # an app the engine's events do not mention: said, not an error
    other = client(fake).get(f"/app/{APP_IDS[0]}").text
    assert 'id="explain-none"' in other and "do not mention this app" in other


def test_an_engines_account_is_escaped() -> None:
    hostile = Explained(f"app {APP_IDS[1]}", (Statement(1000, '<img src=x onerror="alert(1)">'
                                                        f" took {VICTIM}&", ()),),
                        f"/ws/v1/fairshare/apps/{APP_IDS[1]}/explain", ENGINE_START,
                        '/ws/{id}"><script>')
    base = source()
    fake = FakeSource(base.latest().sample, base.history(), (),
                      explained={APP_IDS[1]: hostile})
    html = client(fake).get(f"/app/{APP_IDS[1]}").text
    assert "<img" not in html and "<script>" not in html.split("</main>")[0]
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt; took" in html
    assert f'href="/ws/{VICTIM}&quot;&gt;&lt;script&gt;"' in html

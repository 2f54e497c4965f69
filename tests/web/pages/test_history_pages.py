"""The queue page and Preemption Tuning over the worked example of scenario.py: the numbers
are the ones worked out there by hand; the window's parameters reach the history as Cloudera's
filters; a bad one is a 400 naming it, an unknown queue a 404 saying so."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import UTC, datetime
from html import unescape
from urllib.parse import quote

import pytest
from starlette.testclient import TestClient

from fairshare.web.pages import create_app
from tests.web.pages.fakes import FakeSource
from tests.web.pages.scenario import CONTENTION_MS, WINDOW_MS, T, source


def client(fake: FakeSource | None = None) -> TestClient:
    return TestClient(create_app(fake or source()))


def row(html: str, queue: str, table_id: str | None = None) -> str:
    if table_id is not None:
        html = html[html.index(f'id="{table_id}"'):]
    part = html[html.index(f'data-queue="{queue}"'):]
    return part[:part.index("</tr>")]


def test_the_queue_api_serves_the_series_and_the_preemptions() -> None:
    data = client().get("/api/queue/root.etl").json()
    # the default window is the hour before the newest sample
    assert (data["start_ms"], data["end_ms"]) == (T - 3_600_000, T)
    assert data["times_ms"][0] == T - WINDOW_MS and len(data["times_ms"]) == 121
    assert data["averages"]["used_mb"][:2] == [6144.0, 6144.0]
    assert data["averages"]["max_share_mb"][-1] == 16384.0
    assert sum(data["short"]) == 24
    assert [(p["containers"], p["memory_mb"]) for p in data["preemptions"]] == [(3, 6144),
                                                                                 (1, 2048)]
    assert data["memory_unit"] == "MB"  # 24,576 MB of cluster memory


def test_the_queue_window_follows_from_and_to() -> None:
    data = client().get(f"/api/queue/root.etl?from={T - 300_000}&to={T}").json()
    assert data["times_ms"][0] == T - 300_000 and len(data["times_ms"]) == 61
    iso = client().get("/api/queue/root.etl?from=2023-11-14T23:15:00&to=2023-11-14T23:20:00"
                       "&tz=Europe/Paris").json()  # 22:15–22:20 UTC
    assert iso["start_ms"] == int(datetime(2023, 11, 14, 22, 15, tzinfo=UTC).timestamp() * 1000)
    assert iso["end_ms"] == T


def test_the_queue_page_embeds_its_data_and_charts() -> None:
    html = client().get("/queue/root.etl").text
    assert 'id="chart-memory"' in html and 'id="chart-vcores"' in html
    assert '<script src="/static/uPlot.iife.min.js">' in html
    assert '<script type="application/json" id="queue-data">' in html
    assert "Preemptions (2)" in html and "below threshold (0.5)" in html


@pytest.mark.parametrize("path", ["/queue/root.nope", "/api/queue/root.nope"])
def test_an_unknown_queue_is_404_saying_which(path: str) -> None:
    r = client().get(path)
    assert r.status_code == 404
    assert "no queue 'root.nope' in the history or in the latest sample" in unescape(r.text)


@pytest.mark.parametrize(("query", "parameter"), [
    ("from=yesterday", "from"), ("to=2023-13-01", "to"), ("days=8", "days"),
    ("days=fri-mon", "days"), ("days=funday", "days"), ("hours=24", "hours"),
    ("hours=9-x", "hours"), ("tz=Mars/Olympus", "tz"), (f"from={T}&to={T - 1}", "to"),
    ("days=,", "days")])
@pytest.mark.parametrize("page", ["/tuning", "/apps", "/queue/root.etl"])
def test_a_bad_parameter_is_400_naming_it(page: str, query: str, parameter: str) -> None:
    c = client()
    r = c.get(f"{page}?{query}")
    assert r.status_code == 400 and f"query parameter &#x27;{parameter}&#x27;" in r.text
    api = c.get(f"/api{page}?{query}")
    assert api.status_code == 400 and api.json()["parameter"] == parameter
    assert api.json()["error"].startswith(f"query parameter '{parameter}': ")


def test_the_filters_reach_the_history_as_a_window() -> None:
    fake = source()
    c = client(fake)
    assert c.get("/api/tuning?days=mon-fri&hours=9-17,20&tz=Europe/Paris").status_code == 200
    w = fake.history().windows[-1]
    assert w.weekdays == frozenset(range(5)) and w.timezone == "Europe/Paris"
    assert w.hours == frozenset([*range(9, 18), 20])
    assert (w.start_ms, w.end_ms) == (T - 86_400_000, T)  # the day before the newest sample
    c.get("/tuning?days=1&days=7&hours=")  # the form's checkboxes; an empty hours keeps all
    w = fake.history().windows[-1]
    assert w.weekdays == frozenset([0, 6]) and w.hours is None and w.timezone == "UTC"
    c.get("/api/tuning?from=2023-11-14&to=2023-11-14T12:00Z")
    w = fake.history().windows[-1]
    day = int(datetime(2023, 11, 14, tzinfo=UTC).timestamp() * 1000)
    assert (w.start_ms, w.end_ms) == (day, day + 12 * 3_600_000)


def test_the_tuning_api_has_the_worked_numbers() -> None:
    rows = {q["queue"]: q for q in client().get("/api/tuning").json()["queues"]}
    etl = rows["root.etl"]
    during = etl["during_contention"]
    assert during["usage"] == {"memory_mb": 6144, "vcores": 3}
    assert during["fair-share"] == {"memory_mb": 8192, "vcores": 8}
    assert during["steady-fair-share"] == {"memory_mb": 8192, "vcores": 8}
    assert etl["whole_window"]["usage"] == {"memory_mb": 8192, "vcores": 4}
    assert etl["usage_to_fair_share_during_contention"] == {"memory_mb": 0.75, "vcores": 0.375}
    assert etl["contention_ms"] == CONTENTION_MS and etl["covered_ms"] == WINDOW_MS
    assert etl["contention_share"] == 0.5 and etl["container_wait_ratio"] == 0.75
    assert etl["short_ms"] == 120_000 and etl["short_ratio"] == 0.2
    assert etl["containers_preempted_from"] == 4  # 3 + 1 taken from app 0005
    assert etl["time_starved_ms"] is None and etl["containers_preempted_for"] is None
    assert rows["root"]["contention_share"] == 0.0
    assert rows["root"]["during_contention"]["usage"] == {"memory_mb": None, "vcores": None}
    assert list(rows) == ["root", "root.default", "root.analytics", "root.analytics.reports",
                          "root.analytics.adhoc", "root.etl"]


def test_the_tuning_page_is_the_reports_table() -> None:
    html = client().get("/tuning").text
    etl = row(html, "root.etl")
    assert 'data-key="during-contention.usage" data-mb="6144.0" data-vcores="3.0"' in etl
    assert 'data-key="during-contention.ms" data-ms="300000">5 m 00 s' in etl
    assert 'data-key="time-short-of-fair-share-threshold-ms" data-ms="120000">2 m 00 s' in etl
    assert 'data-key="containers-preempted-from" data-count="4">4<' in etl
    assert "75% mem<br>38% vc" in etl  # 6144 ÷ 8192; 3 ÷ 8
    assert len(re.findall(r">n/a<", etl)) == 2  # starved (YARN), preempted for it
    assert "Whole window: time averages" in html and "Whole run" not in html
    assert "During contention (pending containers)" in html
    ratios = row(html, "root.etl", "wait-ratios")
    assert ">50.0%<" in ratios and ">75.0%<" in ratios and ">20.0%<" in ratios
    assert 'tr class="leaf" data-queue="root.etl"' in html
    assert 'tr class="parent" data-queue="root.analytics"' in html


def test_a_hostile_queue_name_cannot_end_the_pages_script() -> None:
    name = 'root.</script><script>alert("q")</script>'
    history = source().history()
    history.names.append(name)
    history.series_of[name] = replace(history.series_of["root.etl"], queue=name)
    fake = FakeSource(source().latest().sample, history)
    r = client(fake).get("/queue/" + quote(name, safe=""))
    assert r.status_code == 200
    assert "<script>alert" not in r.text and "</script><script>" not in r.text
    embedded = r.text[r.text.index('id="queue-data">') + len('id="queue-data">'):]
    assert json.loads(embedded[:embedded.index("</script>")])["queue"] == name
    assert client(fake).get("/api/queue/" + quote(name, safe="")).json()["queue"] == name


def test_the_queue_page_says_what_the_allocation_file_sets() -> None:
    html = client().get("/queue/root.analytics.adhoc").text
    assert ("Allocation file: weight 1; fair-share timeout 1 m 00 s, threshold 0.8; "
            "min-share timeout unset") in html
    assert "No allocation-file settings" in client().get("/queue/root.default").text

"""The Scheduler page and /api/scheduler over real RM answers (tests/importer/dumps): the
numbers served are the RM's, checked against the raw JSON; memory, vcores and any other
resource type get a bar; hostile names are escaped; a failing RM keeps the last sample."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from starlette.testclient import TestClient

from fairshare.web.pages import create_app
from tests.web.dumps import dump_text, sample_of
from tests.web.pages.fakes import FakeHistory, FakeSource
from tests.web.pages.scenario import APP_IDS, T, source


def client(fake: FakeSource | None = None) -> TestClient:
    return TestClient(create_app(fake or source()))


def raw_queues(folder: str) -> dict[str, Any]:
    """Every queue object of the dump's scheduler.json, by name (read here with json alone)."""
    found: dict[str, Any] = {}
    def walk(q: Any) -> None:
        found[q["queueName"]] = q
        for child in (q.get("childQueues") or {}).get("queue", []):
            walk(child)
    walk(json.loads(dump_text(folder, "scheduler.json"))["scheduler"]["schedulerInfo"]["rootQueue"])
    return found


PAGES = ["/", "/scheduler", "/scheduler/live", "/queue/root.etl", "/tuning", "/apps",
         "/apps?queue=root.etl", f"/app/{APP_IDS[1]}", "/diagnosis", "/nodes", "/nodes/live",
         "/node/node1.example.com:45454"]
APIS = ["/api/scheduler", "/api/queue/root.etl", "/api/tuning", "/api/apps",
        f"/api/app/{APP_IDS[1]}", "/api/diagnosis", "/api/nodes",
        "/api/node/node1.example.com:45454"]


@pytest.mark.parametrize("path", PAGES)
def test_every_page_answers_html_with_no_outside_reference(path: str) -> None:
    r = client().get(path)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", r.text)  # nothing from elsewhere


@pytest.mark.parametrize("path", APIS)
def test_every_api_answers_json(path: str) -> None:
    r = client().get(path)
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"


@pytest.mark.parametrize("folder", ["basic", "drf12", "spark"])
def test_api_scheduler_serves_the_rms_numbers(folder: str) -> None:
    data = client(FakeSource(sample_of(folder, T), FakeHistory([]))).get("/api/scheduler").json()
    raw = raw_queues(folder)
    assert data["queues"][0]["name"] == "root"
    assert {q["name"] for q in data["queues"]} == set(raw)
    fields = {"steady": "steadyFairResources", "instantaneous": "fairResources",
              "used": "usedResources", "max": "maxResources", "demand": "demandResources"}
    for q in data["queues"]:
        r = raw[q["name"]]
        for part, field in fields.items():
            expected = r.get(field)
            assert q["resources"]["memory-mb"][part] == (expected and expected["memory"])
            assert q["resources"]["vcores"][part] == (expected and expected["vCores"])
        assert q["pending_containers"] == r.get("pendingContainers")
    cluster = raw["root"]["clusterResources"]
    assert data["cluster"] == {"memory-mb": cluster["memory"], "vcores": cluster["vCores"]}
    apps = json.loads(dump_text(folder, "apps.json"))["apps"]["app"]
    assert [a["id"] for a in data["apps"]] == [a["id"] for a in apps]
    for served, a in zip(data["apps"], apps, strict=True):
        assert served["allocated"] == {"memory_mb": max(a["allocatedMB"], 0),
                                       "vcores": max(a["allocatedVCores"], 0)}


def test_pending_asks_and_over_share_follow_the_rm() -> None:
    data = client().get("/api/scheduler").json()
    etl = next(q for q in data["queues"] if q["name"] == "root.etl")
    # basic: root.etl uses 9216 MB, 5 vcores of an instantaneous share of 8192 MB, 8 vcores
    assert etl["over_instantaneous_share"] == {"memory-mb": True, "vcores": False}
    adhoc = next(q for q in data["queues"] if q["name"] == "root.analytics.adhoc")
    assert adhoc["share_counts"] == {"memory-mb": True, "vcores": False}  # parent is 'fair'
    app = next(a for a in data["apps"] if a["id"] == APP_IDS[0])
    # one ANY ask of 6 containers of 2048 MB, 1 vcore
    assert app["pending"] == {"containers": 6, "memory_mb": 12288, "vcores": 6}
    html = client().get("/scheduler").text
    row = html[html.index('data-queue="root.etl"'):]
    row = row[:row.index("</tr>")]
    assert 'class="used over" style="width:37.50%"' in row  # 9216 ÷ 24576
    assert 'class="used" style="width:20.83%"' in row  # 5 of 24 vcores


def with_gpus() -> str:
    """basic's scheduler.json with yarn.io/gpu in root's cluster (8) and root.etl's resources
    (and a demand, which basic's etl has none of)."""
    data = json.loads(dump_text("basic", "scheduler.json"))
    root = data["scheduler"]["schedulerInfo"]["rootQueue"]
    def add(obj: dict[str, Any], gpus: int) -> None:
        obj["resourceInformations"] = {"resourceInformation": [
            {"name": "memory-mb", "value": obj["memory"]},
            {"name": "vcores", "value": obj["vCores"]}, {"name": "yarn.io/gpu", "value": gpus}]}
    add(root["clusterResources"], 8)
    etl = next(q for q in root["childQueues"]["queue"] if q["queueName"] == "root.etl")
    for field, gpus in (("usedResources", 2), ("fairResources", 4), ("steadyFairResources", 4),
                        ("maxResources", 8), ("demandResources", 3)):
        add(etl.setdefault(field, {"memory": 9216, "vCores": 5}), gpus)
    return json.dumps(data)


def test_every_resource_type_gets_a_bar() -> None:
    sample = sample_of("basic", T, texts={"scheduler.json": with_gpus()})
    c = client(FakeSource(sample, FakeHistory([])))
    data = c.get("/api/scheduler").json()
    assert data["resource_types"] == ["memory-mb", "vcores", "yarn.io/gpu"]
    assert data["cluster"]["yarn.io/gpu"] == 8
    etl = next(q for q in data["queues"] if q["name"] == "root.etl")
    assert etl["resources"]["yarn.io/gpu"] == {"steady": 4, "instantaneous": 4, "used": 2,
                                               "max": 8, "demand": 3}
    html = c.get("/scheduler").text
    row = html[html.index('data-queue="root.etl"'):]
    gpu = row[row.index('data-resource="yarn.io/gpu"'):row.index("</tr>")]
    assert 'class="used" style="width:25.00%"' in gpu  # 2 of 8
    assert 'class="demand" style="left:37.50%"' in gpu  # 3 of 8
    assert "2 yarn.io/gpu of 4 yarn.io/gpu" in gpu


def test_a_big_cluster_reads_in_gb_throughout() -> None:
    # drf12: 393,216 MB of cluster memory, above 100,000 MB: every memory value in GB
    html = client(FakeSource(sample_of("drf12", T), FakeHistory([]))).get("/scheduler").text
    assert "Cluster: 384 GB, 192 vcores" in html and "Memory in GB" in html
    etl = html[html.index('data-queue="root.prod.etl"'):]
    assert "42 GB of 192 GB" in etl[:etl.index("</tr>")]  # 43,008 MB of 196,608 MB
    assert not re.search(r"\d MB", html)


HOSTILE = '<script>alert("x")</script>&'


def test_hostile_names_are_escaped() -> None:
    scheduler = dump_text("basic", "scheduler.json").replace(
        '"root.default"', json.dumps("root." + HOSTILE))
    apps = json.loads(dump_text("basic", "apps.json"))
    apps["apps"]["app"][0].update(name=HOSTILE, user=HOSTILE)
    sample = sample_of("basic", T, texts={"scheduler.json": scheduler,
                                          "apps.json": json.dumps(apps)})
    c = client(FakeSource(sample, FakeHistory([]), (), None))
    html = c.get("/scheduler").text
    assert "<script>alert" not in html
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;" in html
    assert c.get("/api/scheduler").json()["apps"][0]["user"] == HOSTILE


def test_a_failing_rm_keeps_the_last_sample_its_age_and_the_error() -> None:
    fake = source()
    fake.set_latest(fake.latest().sample, age_s=95.0,
                    error="http://rm:8088/ws/v1/cluster/scheduler: 503 Service Unavailable")
    c = client(fake)
    html = c.get("/scheduler").text
    assert 'data-queue="root.etl"' in html  # still drawn
    assert "sample 1 m 35 s old" in html
    assert "last poll failed: http://rm:8088/ws/v1/cluster/scheduler: 503" in html
    data = c.get("/api/scheduler").json()
    assert data["error"].endswith("503 Service Unavailable") and data["age_s"] == 95.0
    assert len(data["queues"]) == 6


def test_before_the_first_sample_the_page_says_so() -> None:
    fake = FakeSource(None, FakeHistory([]))
    html = client(fake).get("/scheduler").text
    assert "No sample yet" in html and "no sample yet" in html
    assert client(fake).get("/api/scheduler").json()["queues"] == []


def test_the_live_part_carries_the_samples_time() -> None:
    fake = source()
    c = client(fake)
    assert f'<div id="live" data-time-ms="{T}">' in c.get("/scheduler/live").text
    fake.set_latest(sample_of("spark", T + 5000))
    live = c.get("/scheduler/live").text
    assert f'data-time-ms="{T + 5000}"' in live and 'data-queue="root.spark"' in live
    assert c.get("/api/scheduler").json()["time_ms"] == T + 5000


def test_settings_from_the_allocation_file_are_shown() -> None:
    html = client().get("/scheduler").text
    etl = html[html.index('data-queue="root.etl"'):]
    assert "weight 2; fair-share timeout unset, threshold 0.5" in etl[:etl.index("</tr>")]


def test_static_files_come_from_the_package() -> None:
    c = client()
    for name in ("uPlot.iife.min.js", "uPlot.min.css", "uPlot.LICENSE", "pages.css",
                 "scheduler.js", "queue.js"):
        assert c.get(f"/static/{name}").status_code == 200, name
    assert "MIT License" in c.get("/static/uPlot.LICENSE").text
    assert c.get("/static/nothing.js").status_code == 404


def test_the_pages_poll_is_the_status_alone() -> None:
    c = client()
    status = c.get("/api/scheduler?only=status").json()
    assert status == {"rm": "http://127.0.0.1:8088", "age_s": 2.5,
                      "age_text": "sample 2.5 s old", "error": None, "time_ms": T,
                      "cluster_id": 1_700_000_000_000, "rm_version": "3.4.1"}
    bad = c.get("/api/scheduler?only=apps")
    assert bad.status_code == 400 and bad.json()["parameter"] == "only"


def test_a_parents_apps_are_its_leaves() -> None:
    queues = {q["name"]: q for q in client().get("/api/scheduler").json()["queues"]}
    raw = raw_queues("basic")
    leaves = [n for n, q in raw.items() if "childQueues" not in q]
    assert queues["root"]["running_apps"] == sum(raw[n].get("numActiveApps", 0) for n in leaves)
    assert queues["root"]["pending_apps"] == sum(raw[n].get("numPendingApps", 0) for n in leaves)
    assert queues["root.etl"]["running_apps"] == raw["root.etl"]["numActiveApps"]

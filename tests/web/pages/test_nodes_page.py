"""The Nodes page, one node's page and their /api/ answers over the ``basic`` dump's
``nodes.json`` (tests/importer/dumps/basic), the numbers worked out here from the raw answer:

* node1 (/rack1): 5,120 MB used + 3,072 MB available = 8,192 MB → 62.50 %; 3 + 5 = 8 vcores,
  3 used → 37.50 %; 3 containers;
* node2 (/rack1): 4,096 + 4,096 MB → 50.00 %; 2 of 8 vcores → 25.00 %; 2 containers;
* node3 (/rack2): 4,096 + 4,096 MB → 50.00 %; 3 of 8 vcores → 37.50 %; 3 containers;
* node4 (/rack2): LOST, nothing used or available; its last health update 1,699,999,000,000
  is 1,400,000 ms = 23 m 20 s before the sample (T = 1,700,000,400,000), theirs at it.
The scheduler holds node1–3: 13,312 MB used of 24,576 MB, 11,264 MB available; 8 of 24 vcores.
"""

from __future__ import annotations

import json
import re

import pytest
from starlette.testclient import TestClient

from fairshare.web.pages import create_app
from tests.web.dumps import dump_text, sample_of
from tests.web.pages.fakes import FakeHistory, FakeSource
from tests.web.pages.scenario import T, source

NODE = "node{}.example.com:45454"


def client(fake: FakeSource | None = None) -> TestClient:
    return TestClient(create_app(fake or source()))


def rows(html: str) -> dict[str, str]:
    """The Nodes table's rows by node id, each row's HTML."""
    found = re.findall(r'<tr class="node[^"]*" data-node="([^"]+)">(.*?)</tr>', html)
    return dict(found)


def test_every_node_is_listed_with_its_numbers_and_bars() -> None:
    html = client().get("/nodes").text
    listed = rows(html)
    assert list(listed) == [NODE.format(i) for i in (1, 2, 3, 4)]  # rack, then node
    one = listed[NODE.format(1)]
    assert "/rack1" in one and ">RUNNING<" in one and '<td class="num">3</td>' in one
    memory, vcores = one.split('data-resource="vcores"')
    assert 'class="used" style="width:62.50%"' in memory
    assert "5,120 MB of 8,192 MB" in memory and "3,072 MB available" in memory
    assert 'class="used" style="width:37.50%"' in vcores
    assert "3 vcores of 8 vcores" in vcores and "5 vcores available" in vcores
    assert "2023-11-14 22:20:00" in one and "at the sample" in one
    lost = listed[NODE.format(4)]
    assert ">LOST<" in lost and "/rack2" in lost
    assert "2023-11-14 21:56:40" in lost and "23 m 20 s before the sample" in lost
    assert ("4 nodes (3 RUNNING, 1 LOST). The scheduler holds 3 nodes: memory 13,312 MB "
            "used of 24,576 MB, 11,264 MB available; vcores 8 vcores used of 24 vcores, "
            "16 vcores available.") in html
    assert f'href="/node/{NODE.format(1).replace(":", "%3A")}"' in html


def test_the_api_serves_the_rms_numbers() -> None:
    raw = {n["id"]: n for n in json.loads(dump_text("basic", "nodes.json"))["nodes"]["node"]}
    data = client().get("/api/nodes").json()
    assert data["sort"] == "rack" and data["held"] == 3 and data["time_ms"] == T
    assert {n["id"] for n in data["nodes"]} == set(raw)
    for n in data["nodes"]:
        r = raw[n["id"]]
        assert n["state"] == r["state"] and n["rack"] == r["rack"]
        assert n["used"] == {"memory_mb": r["usedMemoryMB"], "vcores": r["usedVirtualCores"]}
        assert n["available"] == {"memory_mb": r["availMemoryMB"],
                                  "vcores": r["availableVirtualCores"]}
        assert n["last_health_update_ms"] == r["lastHealthUpdate"]
        assert n["held"] is (r["state"] == "RUNNING")
    assert data["totals"]["used"] == {"memory_mb": 13_312, "vcores": 8}
    assert data["totals"]["capacity"] == {"memory_mb": 24_576, "vcores": 24}


@pytest.mark.parametrize(("sort", "order"), [
    ("memory", (1, 2, 3, 4)),  # 62.5 %, 50 %, 50 % (ties by id), 0
    ("vcores", (1, 3, 2, 4)),  # 37.5 %, 37.5 %, 25 %, 0
    ("containers", (1, 3, 2, 4)),  # 3, 3, 2, 0
    ("health", (4, 1, 2, 3)),  # node4's update is the oldest
    ("state", (1, 2, 3, 4))])
def test_the_nodes_sort_as_asked(sort: str, order: tuple[int, ...]) -> None:
    data = client().get(f"/api/nodes?sort={sort}").json()
    assert [n["id"] for n in data["nodes"]] == [NODE.format(i) for i in order]
    html = client().get(f"/nodes?sort={sort}").text
    assert list(rows(html)) == [NODE.format(i) for i in order]
    assert f'data-live-url="/nodes/live?sort={sort}"' in html


def test_numbers_in_names_sort_as_numbers() -> None:
    nodes = json.loads(dump_text("basic", "nodes.json"))
    for n, name in zip(nodes["nodes"]["node"], ("node10", "node9", "node1", "node2"),
                       strict=True):
        n.update(id=f"{name}:45454", nodeHostName=name, rack="/rack1")
    fake = FakeSource(sample_of("basic", T, texts={"nodes.json": json.dumps(nodes)}),
                      FakeHistory([]))
    data = client(fake).get("/api/nodes?sort=node").json()
    assert [n["id"] for n in data["nodes"]] == ["node1:45454", "node2:45454", "node9:45454",
                                                "node10:45454"]


def test_a_bad_sort_is_a_400_naming_it() -> None:
    r = client().get("/nodes?sort=price")
    assert r.status_code == 400 and "sort" in r.text and "price" in r.text
    assert client().get("/api/nodes?sort=price").json()["parameter"] == "sort"


def test_the_navigation_and_the_scheduler_page_link_to_it() -> None:
    c = client()
    for path in ("/scheduler", "/apps", "/diagnosis", "/tuning", "/nodes"):
        assert '<a href="/nodes">Nodes</a>' in c.get(path).text, path
    html = c.get("/scheduler").text
    assert 'id="nodes-link"' in html and 'id="nodes"' in html  # its summary table stays


def test_the_live_part_is_served_alone() -> None:
    fake = source()
    c = client(fake)
    assert f'<div id="live" data-time-ms="{T}">' in c.get("/nodes/live").text
    fake.set_latest(sample_of("basic", T + 5000))
    assert f'data-time-ms="{T + 5000}"' in c.get("/nodes/live?sort=memory").text


def test_a_nodes_page_shows_it_and_the_ams_on_its_host() -> None:
    c = client()
    html = c.get(f"/node/{NODE.format(1)}").text
    facts = html[html.index('id="node-facts"'):html.index("</dl>")]
    assert '<dd data-key="rack">/rack1</dd>' in facts
    assert '<dd data-key="HTTP address">node1.example.com:8042</dd>' in facts
    assert 'style="width:62.50%"' in facts and "5,120 MB of 8,192 MB" in facts
    # application_…_0001's AM is on node1.example.com:8042 (amHostHttpAddress)
    assert 'data-app="application_1700000000000_0001"' in html
    assert "application_1700000000000_0002" not in html  # on node3
    data = c.get(f"/api/node/{NODE.format(4)}").json()
    assert data["node"]["state"] == "LOST" and data["am_apps"] == []
    r = c.get("/node/node9:1")
    assert r.status_code == 404 and "no node &#x27;node9:1&#x27;" in r.text
    assert c.get("/api/node/node9:1").status_code == 404


HOSTILE = '<script>alert("x")</script>&'


def test_hostile_names_are_escaped() -> None:
    nodes = json.loads(dump_text("basic", "nodes.json"))
    first, lost = nodes["nodes"]["node"][0], nodes["nodes"]["node"][3]
    first.update(id=HOSTILE + ":1", rack="/" + HOSTILE, healthReport=HOSTILE)
    lost.update(healthReport=HOSTILE, rack=HOSTILE)  # not held: its rack is not checked
    fake = FakeSource(sample_of("basic", T, texts={"nodes.json": json.dumps(nodes)}),
                      FakeHistory([]))
    c = client(fake)
    for path in ("/nodes", "/nodes/live", "/scheduler"):
        html = c.get(path).text
        assert "<script>alert" not in html, path
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;" in html, path
    html = c.get("/nodes").text
    assert html.count('<span class="error">&lt;script&gt;') == 2  # both health reports
    assert c.get("/api/nodes").json()["nodes"][0]["health_report"] == HOSTILE


def test_before_the_first_sample_the_page_says_so() -> None:
    fake = FakeSource(None, FakeHistory([]))
    assert "No sample yet" in client(fake).get("/nodes").text
    assert client(fake).get("/api/nodes").json()["nodes"] == []

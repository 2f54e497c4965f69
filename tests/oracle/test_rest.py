"""The REST comparison (oracle/rest.py) on real Hadoop 3.4.2 answers: the recorded bodies of
tests/watch/recorded (a real RM's, verbatim) against themselves are identical, and each planted
difference is reported at exactly its path with both values; the fields docs/fidelity.md lists
as ones that can only differ are the only ones left out."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from oracle import rest
from oracle.compare import compare
from oracle.known import KnownDifference

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "tests" / "watch" / "recorded" / "fair-churn"
BODIES = {"scheduler": "scheduler.json", "metrics": "metrics.json", "nodes": "nodes.json",
          "apps": "apps.json"}


def _body(endpoint: str) -> str:
    return (RECORDED / BODIES[endpoint]).read_text(encoding="utf-8")


def _docs(snapshot: int = 0, /, **bodies: str) -> list[rest.Document]:
    """Documents as ``rest.jsonl`` lines carry them, read back."""
    return _read([rest.rest_line(snapshot, e, b.encode()) for e, b in bodies.items()])


def _read(lines: list[str]) -> list[rest.Document]:
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / rest.REST
        path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
        return rest.read_rest(path)


def _first(fs: dict[str, str], hadoop: dict[str, str]) -> rest.RestDifference | None:
    return rest.compare_documents(_docs(**fs), _docs(**hadoop), 0)[0]


def test_repeated_entry_keys_are_kept() -> None:
    """Jersey writes a Map<String, Long> as one object with an "entry" key per entry (captured
    in apps.json); json.loads would keep only the last one."""
    apps = rest.parse(_body("apps"))
    first = dict(dict(apps)["apps"])["app"][0]
    seconds = dict(first)["resourceSecondsMap"]
    assert [k for k, _ in seconds] == ["entry", "entry"]
    assert [dict(v)["key"] for _, v in seconds] == ["memory-mb", "vcores"]
    # a difference in the first of repeated keys is found (json.loads would not see it)
    fs = '{"m":{"entry":{"key":"a","value":"1"},"entry":{"key":"b","value":"2"}}}'
    hadoop = '{"m":{"entry":{"key":"a","value":"9"},"entry":{"key":"b","value":"2"}}}'
    found = _first({"metrics": fs}, {"metrics": hadoop})
    assert found is not None and found.path == "metrics.m.entry.value"
    assert (found.fairshare, found.hadoop) == ("1", "9")


@pytest.mark.parametrize("endpoint", sorted(BODIES))
def test_a_real_answer_against_itself_is_identical(endpoint: str) -> None:
    found, compared = rest.compare_documents(_docs(**{endpoint: _body(endpoint)}),
                                             _docs(**{endpoint: _body(endpoint)}), 0)
    assert found is None and compared == 1


def test_a_planted_value_is_reported_at_its_path_with_both_values() -> None:
    # root.a's numPendingApps (fair-churn: alice's app runs in root.a)
    hadoop = _body("scheduler")
    marker = '"queueName":"root.a","schedulingPolicy":"fair","preemptable":true,"numPendingApps":0'
    assert marker in hadoop
    fs = hadoop.replace(marker, marker[:-1] + "3")
    found = _first({"scheduler": fs}, {"scheduler": hadoop})
    assert found is not None and found.what == "value"
    assert found.path.endswith("(root.a).numPendingApps")
    assert (found.fairshare, found.hadoop) == (3, 0)


def test_key_order_number_types_and_lengths_are_compared() -> None:
    assert _first({"metrics": '{"a":{"x":1,"y":2}}'},
                  {"metrics": '{"a":{"y":2,"x":1}}'}).what == "keys"  # type: ignore[union-attr]
    found = _first({"metrics": '{"a":{"x":1}}'}, {"metrics": '{"a":{"x":1.0}}'})
    assert found is not None and (found.what, found.path) == ("type", "metrics.a.x")
    found = _first({"metrics": '{"a":[1,2]}'}, {"metrics": '{"a":[1]}'})
    assert found is not None and found.what == "length"
    # an empty object and an empty array are not the same value
    assert _first({"metrics": '{"a":{}}'}, {"metrics": '{"a":[]}'}) is not None
    # a missing endpoint on one side
    assert rest.compare_documents(_docs(), _docs(metrics="{}"), 0)[0] is not None


def test_only_the_listed_fields_are_left_out() -> None:
    hadoop = _body("nodes")
    # lastHealthUpdate: a timestamp; the node id: its port (the host part is compared)
    fs = hadoop.replace('"lastHealthUpdate":1796196871196', '"lastHealthUpdate":5')
    fs = fs.replace('"id":"127.0.0.1:45455"', '"id":"127.0.0.1:1"')
    assert fs != hadoop
    assert _first({"nodes": fs}, {"nodes": hadoop}) is None
    other_host = hadoop.replace('"id":"127.0.0.1:45455"', '"id":"127.0.0.2:45455"')
    found = _first({"nodes": other_host}, {"nodes": hadoop})
    assert found is not None and found.path.endswith(".id")
    # the same field name in another endpoint is compared
    assert ("metrics", "lastHealthUpdate") not in rest.IGNORED
    assert _first({"metrics": '{"lastHealthUpdate":1}'},
                  {"metrics": '{"lastHealthUpdate":2}'}) is not None


def test_apps_are_compared_by_id_with_yarns_ids_as_the_scenarios_names() -> None:
    """ClientRMService lists apps in a hash order of their ids; the driver's ids are YARN's,
    fairshare's the scenario's names: the driver's "ids" renames them."""
    app = ('{{"id":"{id}","name":"{name}","amContainerLogs":'
           '"http://n1:8042/node/containerlogs/container_{c}_01_000001/u"}}')
    yarn = [app.format(id=f"application_1700000000000_000{i}", name=n,
                       c=f"1700000000000_000{i}") for i, n in ((1, "x"), (2, "y"))]
    named = [app.format(id=n, name=n, c=n) for n in ("y", "x")]  # the other order
    hadoop_line = rest.rest_line(0, "apps", ('{"apps":{"app":[' + ",".join(yarn) + "]}}")
                                 .encode())
    ids = '"ids":{"application_1700000000000_0001":"x","application_1700000000000_0002":"y"},'
    hadoop_line = hadoop_line.replace('"body":', ids + '"body":')
    hadoop = _read([hadoop_line])
    fs = _docs(apps='{"apps":{"app":[' + ",".join(named) + "]}}")
    assert rest.compare_documents(fs, hadoop, 0) == (None, 1)
    wrong = _docs(apps='{"apps":{"app":[' + ",".join(named).replace("containerlogs/"
                                                                     "container_x_",
                                                                     "containerlogs/"
                                                                     "container_z_") + "]}}")
    found = rest.compare_documents(wrong, hadoop, 0)[0]
    assert found is not None and found.path.endswith("(x).amContainerLogs")


def test_a_renderer_failure_is_a_difference() -> None:
    fs = _read([rest.rest_line(0, "scheduler", None, "KeyError: 'root'")])
    found = rest.compare_documents(fs, _docs(scheduler=_body("scheduler")), 0)[0]
    assert found is not None and found.what == "error"
    assert "KeyError" in str(found.fairshare)


def test_the_body_is_written_and_read_back_verbatim(tmp_path: Path) -> None:
    body = _body("apps").strip().encode()
    line = rest.rest_line(3, "apps", body)
    assert line.endswith(',"body":' + body.decode() + "}")
    path = tmp_path / rest.REST
    path.write_text(line + "\n", encoding="utf-8")
    (doc,) = rest.read_rest(path)
    assert (doc.snapshot, doc.endpoint) == (3, "apps")
    assert rest.compare_documents([doc], _docs(3, apps=body.decode()), 3) == (None, 1)


def _snapshot_run() -> dict[str, Any]:
    step = {"step": "snapshot", "line": 7, "label": "s"}
    snap = {"label": "s", "time-ms": 0, "cluster": {}, "queues": {}, "apps": {}, "nodes": {}}
    return {"steps": [step], "snaps": [snap]}


def test_the_oracle_reports_a_rest_difference_at_its_snapshot_step() -> None:
    run = _snapshot_run()
    hadoop = _docs(scheduler=_body("scheduler"), metrics=_body("metrics"))
    same = compare([], [], run["snaps"], run["snaps"], run["steps"],
                   documents=(_docs(scheduler=_body("scheduler"), metrics=_body("metrics")),
                              hadoop))
    assert same.identical and same.rest_compared == 2
    changed = _body("metrics").replace('"appsSubmitted":5', '"appsSubmitted":4')
    assert changed != _body("metrics")
    result = compare([], [], run["snaps"], run["snaps"], run["steps"],
                     documents=(_docs(scheduler=_body("scheduler"), metrics=changed), hadoop))
    assert not result.identical and result.first is not None
    first = result.first
    assert (first.what, first.step, first.line, first.section) == ("rest", 0, 7, "metrics")
    assert first.field == "metrics.clusterMetrics.appsSubmitted"
    assert (first.fairshare, first.hadoop) == (4, 5)
    assert "REST /ws/v1/cluster/metrics differs at" in result.as_text()
    # a known REST difference is matched by its kind "rest"
    known = KnownDifference("c", 0, "rest", deliberate=False, why="docs/fidelity.md")
    assert known.matches("c", first)


def test_without_documents_nothing_is_compared() -> None:
    run = _snapshot_run()
    result = compare([], [], run["snaps"], run["snaps"], run["steps"])
    assert result.identical and not result.rest and "REST" not in result.as_text()


def test_every_left_out_field_is_in_the_docs() -> None:
    fidelity = (ROOT / "docs" / "fidelity.md").read_text(encoding="utf-8")
    section = fidelity[fidelity.index("### The REST comparison"):]
    for (endpoint, name) in [*rest.IGNORED, *rest.HOST_ONLY]:
        assert f"`{name}`" in section, (endpoint, name)

"""poll() against fake RMs serving the import fixtures: the Sample's numbers are the JSON's (read
here with json.loads), and every way an RM's answer goes wrong is one located PollError."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from fairshare.watch.client import RMClient
from fairshare.watch.poll import FINISH_MARGIN_MS, PollError, PollResult, poll
from tests.watch.fake_rm import METRICS, FakeRM, serving

ROOT = Path(__file__).resolve().parents[2]
DUMPS = sorted((ROOT / "tests/importer/dumps").iterdir())
DUMP = ROOT / "tests/importer/dumps/basic"
CS_DUMP = ROOT / "docs/files/import/cs-dump"  # basic, but a CapacityScheduler's
REFUSED_DUMP = ROOT / "docs/files/import/dump"  # basic, but an app's allocatedMB is "9G"
NOW = 1_800_000_000_000


def run(rm: FakeRM, previous: int | None = None, since: int | None = None, **kwargs: Any
        ) -> PollResult:
    with RMClient([rm.url], sleep=lambda s: None, **kwargs) as client:
        return poll(client, lambda: NOW, previous, finished_since_ms=since)


def fails(rm: FakeRM, **kwargs: Any) -> PollError:
    with pytest.raises(PollError) as caught:
        run(rm, **kwargs)
    return caught.value


@pytest.fixture
def rm() -> Iterator[FakeRM]:
    with serving(FakeRM.from_folder(DUMP)) as served:
        yield served


def _queues(q: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield q
    children = q.get("childQueues", {}).get("queue", [])
    for child in children if isinstance(children, list) else [children]:
        yield from _queues(child)


def _pair(q: dict[str, Any], key: str) -> tuple[int, int] | None:
    return (q[key]["memory"], q[key]["vCores"]) if key in q else None


@pytest.mark.parametrize("folder", DUMPS, ids=lambda p: p.name)
def test_a_poll_gives_the_numbers_of_the_answers(folder: Path) -> None:
    with serving(FakeRM.from_folder(folder)) as fake:
        result = run(fake)
    scheduler = json.loads((folder / "scheduler.json").read_text())
    nodes = json.loads((folder / "nodes.json").read_text())["nodes"]["node"]
    apps = json.loads((folder / "apps.json").read_text())["apps"]["app"]
    sample = result.sample
    assert (sample.time_ms, sample.rm, sample.cluster_id) == (NOW, fake.url, fake.cluster_id)
    assert sample.rm_version == "3.4.1"
    root = scheduler["scheduler"]["schedulerInfo"]["rootQueue"]
    expected = {q["queueName"]: q for q in _queues(root)}
    got = {q.name: q for q in sample.queues()}
    assert list(got) == list(expected)  # depth-first, the RM's order
    for name, q in got.items():
        e = expected[name]
        assert q.used == _pair(e, "usedResources")
        assert q.steady_fair == _pair(e, "steadyFairResources")
        assert q.fair == _pair(e, "fairResources")
        assert q.demand == _pair(e, "demandResources")
        assert q.am_used == _pair(e, "amUsedResources")
        assert q.min_resources == _pair(e, "minResources")
        assert q.pending_containers == e.get("pendingContainers")
        assert q.active_apps == e.get("numActiveApps")
    assert sample.cluster == _pair(root, "clusterResources")
    running = [n for n in nodes if n.get("state", "RUNNING") in ("RUNNING", "NEW",
                                                                  "DECOMMISSIONING")]
    assert [(n.name, n.used) for n in sample.nodes] == [
        (n["nodeHostName"], (n["usedMemoryMB"], n["usedVirtualCores"])) for n in running]
    live = [a for a in apps if a["state"] not in ("FINISHED", "FAILED", "KILLED")]
    done = [a for a in apps if a["state"] in ("FINISHED", "FAILED", "KILLED")]
    # an app without an attempt reports -1 (RMServerUtils.DUMMY_APPLICATION_RESOURCE_USAGE_
    # REPORT): it holds nothing
    assert [(a.id, a.state, a.allocated) for a in sample.apps] == [
        (a["id"], a["state"], (max(a.get("allocatedMB", 0), 0),
                               max(a.get("allocatedVCores", 0), 0))) for a in live + done]
    assert sample.metrics == {k: v for k, v in METRICS.items() if not isinstance(v, bool)}
    assert set(result.answers) == {"info.json", "scheduler.json", "apps.json",
                                   "finished-apps.json", "nodes.json", "metrics.json"}
    assert result.answers["scheduler.json"] == (folder / "scheduler.json").read_text()
    assert [a["id"] for a in json.loads(result.answers["apps.json"])["apps"]["app"]] == [
        a["id"] for a in live]
    assert not result.restarted and result.message is None


def test_the_apps_are_asked_for_live_and_finished_since_the_last_poll(rm: FakeRM) -> None:
    first = run(rm)
    assert rm.requests[2:4] == [
        "/ws/v1/cluster/apps?states=NEW,NEW_SAVING,SUBMITTED,ACCEPTED,RUNNING",
        "/ws/v1/cluster/apps?states=FINISHED,FAILED,KILLED"]
    # the fixture's one finished app finished at 1700000060500
    assert "application_1700000000000_0000" in {a.id for a in first.sample.apps}
    later = run(rm, previous=first.sample.cluster_id, since=1700000060501)
    assert rm.requests[-3] == ("/ws/v1/cluster/apps?states=FINISHED,FAILED,KILLED"
                               "&finishedTimeBegin=1700000060501")
    assert "application_1700000000000_0000" not in {a.id for a in later.sample.apps}
    again = run(rm, previous=first.sample.cluster_id, since=1700000060500)  # inclusive
    assert "application_1700000000000_0000" in {a.id for a in again.sample.apps}


def test_the_next_bound_is_the_rms_date_less_the_margin(rm: FakeRM) -> None:
    before = int(time.time()) * 1000
    result = run(rm)
    after = int(time.time()) * 1000
    assert result.finished_since_ms is not None
    assert before - FINISH_MARGIN_MS <= result.finished_since_ms <= after - FINISH_MARGIN_MS


def test_a_restart_is_reported_and_finished_apps_are_asked_for_again(rm: FakeRM) -> None:
    first = run(rm)
    old = first.sample.cluster_id
    rm.restart()
    result = run(rm, previous=old, since=1800000000000)
    assert result.restarted
    assert result.message == (f"the RM restarted (clusterId {old} → {rm.cluster_id}): its "
                              "counters began again")
    assert rm.requests[-3] == "/ws/v1/cluster/apps?states=FINISHED,FAILED,KILLED"
    assert result.sample.cluster_id == rm.cluster_id == old + 60_000


def test_failover_takes_the_active_rms_numbers_not_the_standbys() -> None:
    with ExitStack() as stack:
        standby = stack.enter_context(serving(FakeRM.from_folder(DUMP, cluster_id=111)))
        active = stack.enter_context(serving(FakeRM.from_folder(DUMP, cluster_id=222)))
        standby.behaviour.mode, standby.behaviour.redirect_to = "standby", active.url
        with RMClient([standby.url, active.url]) as client:
            result = poll(client, lambda: NOW, 222)
    assert (result.sample.rm, result.sample.cluster_id) == (active.url, 222)
    assert not result.restarted
    # the scheduler was redirected; then the active RM was asked first, /info included
    assert standby.requests == ["/ws/v1/cluster/scheduler"]


def test_a_redirect_outside_the_list_is_a_note_of_the_poll() -> None:
    with ExitStack() as stack:
        standby = stack.enter_context(serving(FakeRM.from_folder(DUMP, cluster_id=111)))
        active = stack.enter_context(serving(FakeRM.from_folder(DUMP, cluster_id=222)))
        standby.behaviour.mode, standby.behaviour.redirect_to = "standby", active.url
        with RMClient([standby.url]) as client:
            result = poll(client, lambda: NOW, None)
    assert result.sample.cluster_id == 222
    assert result.notes == (f"{standby.url} redirected to {active.url}, which is not in the "
                            "RM list: followed (add it to the list)",)


def test_a_failover_between_two_gets_gives_no_mixed_sample() -> None:
    with ExitStack() as stack:
        one = stack.enter_context(serving(FakeRM.from_folder(DUMP, cluster_id=111)))
        two = stack.enter_context(serving(FakeRM.from_folder(DUMP, cluster_id=222)))
        b = one.behaviour
        b.mode, b.redirect_to, b.only = "standby", two.url, "/nodes"  # standby from /nodes on
        with RMClient([one.url, two.url]) as client, pytest.raises(PollError) as caught:
            poll(client, lambda: NOW, 111)
    assert caught.value.kind == "unavailable"
    assert caught.value.message == (
        f"the active RM changed during the poll ({one.url} then {two.url}): its answers are "
        "not of one moment; the next poll asks the new one")


def test_an_empty_answer_is_not_json(rm: FakeRM) -> None:
    rm.answers["nodes.json"] = ""
    error = fails(rm)
    assert (error.kind, error.endpoint) == ("not-json", "/ws/v1/cluster/nodes")
    assert error.message == f"{rm.url}/ws/v1/cluster/nodes: the RM answered an empty body, not JSON"


def test_a_capacity_scheduler_is_told_as_such() -> None:
    with serving(FakeRM.from_folder(CS_DUMP)) as fake:
        error = fails(fake)
    assert (error.kind, error.endpoint) == ("capacity-scheduler", "/ws/v1/cluster/scheduler")
    assert error.message == (
        f"{fake.url}/ws/v1/cluster/scheduler: scheduler.schedulerInfo.type: this RM runs the "
        "CapacityScheduler ('capacityScheduler'), not the Fair Scheduler ('fairScheduler'): "
        "fairshare watches Fair Scheduler RMs only")


def test_a_truncated_answer_names_the_endpoint_line_and_column(rm: FakeRM) -> None:
    rm.behaviour.mode, rm.behaviour.only = "truncated", "/scheduler"
    error = fails(rm)
    cut = (DUMP / "scheduler.json").read_bytes()
    cut = cut[: len(cut) // 2]
    with pytest.raises(json.JSONDecodeError) as stdlib:
        json.loads(cut)
    assert (error.kind, error.endpoint) == ("not-json", "/ws/v1/cluster/scheduler")
    assert error.message.startswith(f"{rm.url}/ws/v1/cluster/scheduler, line "
                                    f"{stdlib.value.lineno}: invalid JSON: ")
    assert error.message.endswith(f"(column {stdlib.value.colno})")


def test_an_html_page_is_not_json(rm: FakeRM) -> None:
    rm.behaviour.mode, rm.behaviour.only = "html", "/apps"
    error = fails(rm)
    assert error.kind == "not-json"
    assert error.endpoint == "/ws/v1/cluster/apps?states=NEW,NEW_SAVING,SUBMITTED,ACCEPTED," \
                             "RUNNING"
    assert error.message == (
        f"{rm.url}{error.endpoint}: the RM answered HTML, not JSON (an error page, or a "
        "proxy's or a login page?): Sign in")


def test_a_remote_exception_403_gives_its_message(rm: FakeRM) -> None:
    b = rm.behaviour
    b.mode, b.status, b.body = "status", 403, json.dumps({"RemoteException": {
        "exception": "ForbiddenException", "message": "User dr.who is not authorized",
        "javaClassName": "org.apache.hadoop.yarn.webapp.ForbiddenException"}})
    error = fails(rm)
    assert (error.kind, error.endpoint) == ("http-status", "/ws/v1/cluster/scheduler")
    assert error.message == (f"{rm.url}/ws/v1/cluster/scheduler: HTTP 403: "
                             "ForbiddenException: User dr.who is not authorized")


def test_a_plain_text_401_and_a_404(rm: FakeRM) -> None:
    b = rm.behaviour
    b.mode, b.status, b.content_type = "status", 401, "text/plain"
    b.body = "Authentication required\n"
    assert fails(rm).message == (f"{rm.url}/ws/v1/cluster/scheduler: HTTP 401: "
                                 "Authentication required")
    b.status, b.only, b.body = 404, "/nodes", "<html><title>Error 404 Not Found</title></html>"
    error = fails(rm)
    assert (error.kind, error.endpoint) == ("http-status", "/ws/v1/cluster/nodes")
    assert error.message == f"{rm.url}/ws/v1/cluster/nodes: HTTP 404: Error 404 Not Found"


def test_an_rm_that_never_answers_is_unavailable(rm: FakeRM) -> None:
    rm.behaviour.fail_first = 100
    error = fails(rm, retries=1)
    assert (error.kind, error.endpoint) == ("unavailable", "/ws/v1/cluster/scheduler")
    assert error.message.startswith("no ResourceManager answered GET /ws/v1/cluster/scheduler: "
                                    f"{rm.url}: HTTP 503: ")


def test_a_bad_field_is_located_at_its_line(rm: FakeRM) -> None:
    text = (DUMP / "scheduler.json").read_text()
    bad = text.replace('"usedResources": {"memory": 13312', '"usedResources": {"memory": -5', 1)
    assert bad != text
    rm.answers["scheduler.json"] = bad
    line = next(i for i, s in enumerate(bad.splitlines(), 1) if '"memory": -5' in s)
    error = fails(rm)
    assert (error.kind, error.endpoint) == ("bad-field", "/ws/v1/cluster/scheduler")
    assert error.message == (
        f"{rm.url}/ws/v1/cluster/scheduler, line {line}: scheduler.schedulerInfo.rootQueue."
        "usedResources.memory: must be a non-negative whole number, got -5")


def test_the_refused_dump_of_the_docs_is_a_bad_field() -> None:
    with serving(FakeRM.from_folder(REFUSED_DUMP)) as fake:
        error = fails(fake)
    assert error.kind == "bad-field"
    assert error.endpoint == "/ws/v1/cluster/apps?states=NEW,NEW_SAVING,SUBMITTED,ACCEPTED," \
                             "RUNNING"
    assert error.message == (f"{fake.url}{error.endpoint}: apps.app[1].allocatedMB: must be a "
                             "non-negative whole number, got '9G'")


def test_one_line_answers_as_jersey_writes_them(rm: FakeRM) -> None:
    for name in ("scheduler.json", "nodes.json", "apps.json"):
        rm.answers[name] = json.dumps(json.loads(rm.answers[name]), separators=(",", ":"))
    compact = run(rm)
    with serving(FakeRM.from_folder(DUMP)) as pretty:
        expected = run(pretty)
    assert compact.sample.root.name == "root"
    assert [q.used for q in compact.sample.queues()] == [q.used for q in expected.sample.queues()]
    assert [a.id for a in compact.sample.apps] == [a.id for a in expected.sample.apps]
    assert {q.line for q in compact.sample.queues()} == {1}
    rm.answers["nodes.json"] = rm.answers["nodes.json"].replace('"usedMemoryMB":5120',
                                                                '"usedMemoryMB":"5120"')
    error = fails(rm)
    assert error.message == (f"{rm.url}/ws/v1/cluster/nodes: nodes.node[0].usedMemoryMB: "
                             "must be a non-negative whole number, got '5120'")

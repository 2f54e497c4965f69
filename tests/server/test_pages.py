"""``fairshare serve``'s pages and ``/metrics`` over a real engine: the server's snapshots
rendered through its REST layer, read by the watcher's reader, fed to the watcher's pipeline.

The worked example: two nodes of 8 GB and 8 vcores (16,384 MB, 16 vcores), queues ``root.a``
(weight 3) and ``root.b`` (weight 1, fairSharePreemptionTimeout 5 s), preemption on at any
utilisation. At 0 s app A fills the cluster in root.a (an AM and 15 containers of 1 GB); at
5 s app B asks root.b for an AM and 8 containers. From then on both queues are active with
demands above their shares, so the instantaneous fair shares (FairSharePolicy: memory only,
split by weight among the active leaves; ``ComputeFairShares``) are 16,384 × 3/4 = 12,288 MB
for root.a and 16,384 × 1/4 = 4,096 MB for root.b (no root.default: Hadoop 3.4 creates it
when an app is placed there). B is starved from 5 s (0 used < 0.5 × 4,096), so after its
timeout and YARN's ``waitTimeBeforeKill`` the engine preempts containers of A for it. The
pages sample every 2.5 s of the server's clock: B first appears in the sample at 7.5 s.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from fairshare.config.allocation import load_allocations, parse_allocations_text
from fairshare.config.model import AllocationConfig
from fairshare.config.yarnsite import SiteConfig, load_site
from fairshare.core import ContainerPreempted, ContainerRequest, Engine
from fairshare.resources.vector import DEFAULT_TYPES, Resource, float32, is_none
from fairshare.server.control import KillResult, StreamedEvent, not_found
from fairshare.server.pages import ServePages, answers_of, serve_pages_app, thresholds_of
from fairshare.server.snapshots import rm_records_of, server_snapshot
from fairshare.server.submission import Submission
from fairshare.server.view import ServerSnapshot
from fairshare.watch.allocations import AllocationWatch
from fairshare.web.answers import sample_of
from fairshare.web.history.store import History
from fairshare.web.live import live_app

GB = 1024
TS = 1_700_000_000_000  # the cluster timestamp: the server started then (epoch ms)
A, B = f"application_{TS}_0001", f"application_{TS}_0002"
INTERVAL_MS = 2_500
SITE = {"yarn.scheduler.fair.preemption": "true",
        "yarn.scheduler.fair.preemption.cluster-utilization-threshold": "0",
        "yarn.scheduler.fair.assignmultiple": "true"}
ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <queue name="a"><weight>3</weight></queue>
  <queue name="b"><weight>1</weight><fairSharePreemptionTimeout>5</fairSharePreemptionTimeout>
  </queue>
</allocations>"""
CLUSTER_MB = 2 * 8 * GB
FAIR_A_MB = CLUSTER_MB * 3 // 4  # 12,288: weights 3 and 1, both leaves active
FAIR_B_MB = CLUSTER_MB * 1 // 4  # 4,096


def r(memory: int, vcores: int = 1) -> Resource:
    return DEFAULT_TYPES.of({"memory-mb": memory, "vcores": vcores})


class EngineControl:
    """The server's :class:`~fairshare.server.control.Control` as the pages use it: the
    latest snapshot of an engine the test drives (the RM's records from the engine)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.snapshots = 0
        self._snap = self._take()

    def _take(self) -> ServerSnapshot:
        apps, nodes = rm_records_of(self.engine.snapshot(), TS)
        return server_snapshot(self.engine, TS, TS + self.engine.now, apps, nodes)

    def publish(self) -> None:
        """What the engine loop does after a batch of commands."""
        self._snap = self._take()

    def snapshot(self) -> ServerSnapshot:
        self.snapshots += 1
        return self._snap

    def new_application(self) -> tuple[str, Resource]:
        raise NotImplementedError

    def submit(self, submission: Submission) -> None:
        raise NotImplementedError

    def kill(self, app_id: str, user: str, diagnostics: str | None) -> KillResult:
        raise NotImplementedError

    def move(self, app_id: str, queue: str, user: str) -> str:
        raise NotImplementedError

    def events_since(self, seq: int, timeout_s: float) -> Sequence[StreamedEvent]:
        raise NotImplementedError


def configuration() -> tuple[SiteConfig, AllocationConfig]:
    site = load_site(None, SITE)
    return site, parse_allocations_text(ALLOCATIONS, "fair-scheduler.xml", site.resource_types)


def engine() -> Engine:
    site, allocations = configuration()
    e = Engine(site, allocations)
    for name in ("n1:8041", "n2:8041"):
        e.add_node(name, r(8 * GB, 8))
    e.submit(A, "root.a", "alice", r(GB), [ContainerRequest(15, r(GB), 1, "*", True)])
    e.update()  # the AM share follows the fair share the update pass computes
    for _ in range(10):
        e.heartbeat_all()
    return e


class Run:
    """The worked example on a server whose pages sample every 2.5 s of its clock."""

    def __init__(self, tmp: Path) -> None:
        self.engine = engine()
        self.control = EngineControl(self.engine)
        site, allocations = configuration()
        self.history = History.open(str(tmp / "serve.db"), poll_interval_ms=INTERVAL_MS)
        self.pages = ServePages(self.control, self.history, allocations, site, INTERVAL_MS,
                                rm_url="http://127.0.0.1:8088")
        self.client = TestClient(serve_pages_app(self.pages))
        self.sampled: list[int] = []  # engine ms of each sample taken
        self.pending_b: list[bool] = []  # at each sample, whether B had asks outstanding

    def start(self) -> None:
        """The first sample at 0 s; B submitted at 5 s, after that moment's sample."""
        self.control.publish()
        assert self.pages.step() is not None
        self.to(5_000)
        self.engine.submit(B, "root.b", "bob", r(GB), [ContainerRequest(8, r(GB), 1, "*", True)])

    def to(self, ms: int, *, step_ms: int = 500) -> None:
        """Drive the engine to ``ms`` as the server's loop would (update passes, heartbeats),
        publishing a snapshot after each batch and letting the pages step."""
        t = self.engine.now
        while t < ms:
            t = min(t + step_ms, ms)
            self.engine.advance_to(t)
            self.engine.update()
            self.engine.heartbeat_all()
            self.control.publish()
            if self.pages.step() is not None:
                self.sampled.append(t)
                snap = self.engine.snapshot()
                self.pending_b.append(any(a.id == B and not is_none(a.pending)
                                          for a in snap.apps))

    def close(self) -> None:
        self.client.close()
        self.history.close()


@pytest.fixture
def run(tmp_path: Path) -> Run:
    return Run(tmp_path)


def test_samples_are_taken_every_interval_of_the_servers_clock(run: Run) -> None:
    run.control.publish()
    assert run.pages.step() is not None  # the first step samples at once (engine ms 0)
    run.to(10_000)
    assert run.sampled == [2_500, 5_000, 7_500, 10_000]
    assert run.pages.step() is None  # nothing new: no sample
    assert run.history.last_time_ms() == TS + 10_000  # the server's epoch clock
    run.close()


def test_the_scheduler_page_shows_the_queues_with_memory_and_vcores_bars(run: Run) -> None:
    run.start()
    run.to(7_500)
    data = run.client.get("/api/scheduler").json()
    queues = {q["name"]: q for q in data["queues"]}
    assert set(queues) == {"root", "root.a", "root.b"}
    assert data["cluster"] == {"memory-mb": CLUSTER_MB, "vcores": 16}
    assert queues["root.a"]["resources"]["memory-mb"]["instantaneous"] == FAIR_A_MB
    assert queues["root.b"]["resources"]["memory-mb"]["instantaneous"] == FAIR_B_MB
    # A holds the whole cluster: its AM and 15 containers of 1 GB and 1 vcore each
    assert queues["root.a"]["resources"]["memory-mb"]["used"] == 16 * GB
    assert queues["root.a"]["resources"]["vcores"]["used"] == 16
    assert {a["id"] for a in data["apps"]} == {A, B}
    # the nodes: A's 16 containers of 1 GB fill both 8 GB nodes
    assert sorted((n["id"], n["used"]["memory_mb"]) for n in data["nodes"]) == [
        ("n1:8041", 8 * GB), ("n2:8041", 8 * GB)]
    html = run.client.get("/scheduler").text
    row = html[html.index('data-queue="root.a"'):]
    row = row[:row.index("</tr>")]
    # the bars: 16,384 of 16,384 MB and 16 of 16 vcores used, over its 12,288 MB share
    assert 'class="used over" style="width:100.00%"' in row
    assert row.count('class="used') == 2
    # the settings the REST API has none of: from the allocation file the engine runs
    shown = run.pages.source.settings()
    assert shown is not None
    assert (shown["root.a"].weight, shown["root.b"].weight) == (3.0, 1.0)
    assert shown["root.b"].fair_share_preemption_timeout_ms == 5_000
    assert shown["root.a"].fair_share_preemption_timeout_ms is None  # never
    assert 'data-node="n1:8041"' in html and 'data-node="n2:8041"' in html
    assert "http://127.0.0.1:8088" in html  # the RM the pages name: the server itself
    run.close()


def metrics(client: TestClient) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    r = client.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    out = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            out[s.name, tuple(sorted(s.labels.items()))] = s.value
    return out


def test_metrics_carry_hadoops_prom_names_with_the_worked_shares(run: Run) -> None:
    run.start()
    run.to(7_500)
    m = metrics(run.client)
    assert m["queue_metrics_fair_share_mb", (("queue", "root.a"),)] == FAIR_A_MB
    assert m["queue_metrics_fair_share_mb", (("queue", "root.b"),)] == FAIR_B_MB
    assert m["queue_metrics_allocated_mb", (("queue", "root.a"),)] == 16 * GB
    # B asked for its AM and 8 containers, none running yet
    assert m["queue_metrics_pending_containers", (("queue", "root.b"),)] == 9
    assert m["queue_metrics_apps_running", (("queue", "root.a"),)] == 1
    assert m["cluster_metrics_num_active_n_ms", ()] == 2
    # fairshare's own: root.b in contention since this sample (7.5 s), and short of
    # 0.5 × 4,096 MB; the sample's age is 0 on the server's clock
    assert m["fairshare_queue_seconds_in_contention", (("queue", "root.b"),)] == 0.0
    assert m["fairshare_queue_starvation_configured", (("queue", "root.b"),)] == 1.0
    assert m["fairshare_queue_fair_share_preemption_threshold", (("queue", "root.b"),)] == 0.5
    assert m["fairshare_watch_up", ()] == 1.0
    assert m["fairshare_watch_last_sample_age_seconds", ()] == 0.0
    run.to(12_500)
    m = metrics(run.client)
    assert m["fairshare_queue_seconds_in_contention", (("queue", "root.b"),)] == 5.0
    assert m["fairshare_queue_seconds_short_of_threshold", (("queue", "root.b"),)] == 5.0
    run.close()


def test_preemption_tuning_answers_over_the_servers_history(run: Run) -> None:
    run.start()
    run.to(40_000)
    preempted = [e for e in run.engine.events if isinstance(e, ContainerPreempted)]
    assert preempted, "the example preempts"
    assert {e.app for e in preempted} == {A}
    data = run.client.get(f"/api/tuning?from={TS}&to={TS + 40_000}").json()
    rows = {q["queue"]: q for q in data["queues"]}
    # 17 samples at 0, 2.5, …, 40 s; the newest counts when the next arrives: 16 intervals
    assert run.sampled[-1] == 40_000 and len(run.sampled) == 16  # (and the one at 0 s)
    assert rows["root.a"]["samples"] == 16 and rows["root.a"]["covered_ms"] == 40_000
    # root.b is in contention over each interval that starts at a sample where the engine
    # held asks of B outstanding (from its first sample, 7.5 s, on: a demand of 9 GB, and
    # preemption gives it its share of 4 GB only)
    assert rows["root.b"]["contention_ms"] == INTERVAL_MS * sum(run.pending_b[:-1])
    assert sum(run.pending_b[:-1]) == 13
    assert rows["root.a"]["contention_ms"] == 0  # A got all it asked for at 0 s
    # the whole window's fair share of root.a: 16,384 MB over [0, 7.5) s, 12,288 after
    expected = (CLUSTER_MB * 7_500 + FAIR_A_MB * 32_500) / 40_000
    assert rows["root.a"]["whole_window"]["fair-share"]["memory_mb"] == pytest.approx(expected)
    # the containers the engine preempted from A, seen through the apps' REST counters
    assert rows["root.a"]["containers_preempted_from"] == len(preempted)
    assert rows["root.b"]["containers_preempted_from"] == 0
    html = run.client.get(f"/tuning?from={TS}&to={TS + 40_000}").text
    assert 'data-queue="root.a"' in html and 'data-queue="root.b"' in html
    run.close()


def test_the_app_page_and_the_diagnosis_answer(run: Run) -> None:
    run.start()
    run.to(7_500)
    app = run.client.get(f"/api/app/{B}")
    assert app.status_code == 200 and app.json()["app"]["queue"] == "root.b"
    assert app.json()["app"]["pending_containers"] == 9
    # explained: B holds nothing of root.b's 4,096 MB share (below 0.5 × it), seen so for
    # less than root.b's 5 s timeout — what holds it is the timeout
    (finding,) = app.json()["findings"]
    assert finding["cause"] == "preemption-timeout"
    assert finding["setting"] == "fairSharePreemptionTimeout of root.b = 5.0 s (threshold 0.5)"
    page = run.client.get(f"/app/{B}")
    assert page.status_code == 200 and "fairSharePreemptionTimeout of root.b" in page.text
    assert run.client.get("/app/application_1_0099").status_code == 404
    diagnosis = run.client.get("/api/diagnosis").json()
    assert {(f["queue"], f["app"], f["cause"]) for f in diagnosis["findings"]} == {
        ("root.b", None, "preemption-timeout"), ("root.b", B, "preemption-timeout")}
    for path in ("/", "/apps", "/diagnosis", "/queue/root.b", "/tuning"):
        assert run.client.get(path).status_code == 200, path
    run.close()


def test_what_the_pages_read_is_what_the_rest_api_answers() -> None:
    e = engine()
    snap = EngineControl(e).snapshot()
    answers = answers_of(snap)
    assert set(answers) == {"scheduler.json", "info.json", "apps.json", "finished-apps.json",
                            "nodes.json", "metrics.json"}
    sample = sample_of(answers, rm="http://127.0.0.1:8088", time_ms=snap.now_ms)
    assert sample.cluster_id == TS and sample.rm_version == "3.4.2"
    assert sample.cluster == (CLUSTER_MB, 16)
    assert [a.id for a in sample.apps] == [A]
    assert sorted(n.id for n in sample.nodes) == ["n1:8041", "n2:8041"]
    # A alone: root.a's instantaneous share is the whole cluster
    assert next(q for q in sample.queues() if q.name == "root.a").fair == (CLUSTER_MB, 0)


def test_the_thresholds_are_the_watchers_for_the_same_file(tmp_path: Path) -> None:
    """serve reads each queue's threshold from the engine's effective settings, a watcher
    from the allocation file: the same numbers (every queue inherits the file's default)."""
    path = tmp_path / "fair-scheduler.xml"
    path.write_text(ALLOCATIONS.replace(
        '<queue name="a">', "<defaultFairSharePreemptionThreshold>0.8"
        '</defaultFairSharePreemptionThreshold><queue name="a">'), encoding="utf-8")
    site, _ = configuration()
    e = Engine(site, load_allocations(path, site.resource_types))
    snap = EngineControl(e).snapshot()
    served = thresholds_of(snap)
    assert served == AllocationWatch(path).thresholds(sorted(served))
    assert served == dict.fromkeys(("root", "root.a", "root.b"), float32(0.8))  # a Java float


def test_the_pages_run_on_a_thread_of_their_own(tmp_path: Path) -> None:
    run = Run(tmp_path)
    thread, stop = run.pages.start()
    try:
        deadline = time.monotonic() + 10
        while run.pages.latest().sample is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert run.pages.latest().sample is not None
        assert run.client.get("/api/scheduler").json()["cluster"]["memory-mb"] == CLUSTER_MB
    finally:
        stop.set()
        thread.join(5)
    assert not thread.is_alive()
    run.close()


class Failing(EngineControl):
    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.broken = False

    def snapshot(self) -> ServerSnapshot:
        if self.broken:
            raise KeyError("boom")
        return super().snapshot()


def test_a_failing_step_is_shown_and_the_pages_go_on(tmp_path: Path) -> None:
    run = Run(tmp_path)
    failing = Failing(run.engine)
    site, allocations = configuration()
    pages = ServePages(failing, run.history, allocations, site, INTERVAL_MS)
    pages.step()
    failing.broken = True
    stop = threading.Event()
    thread = threading.Thread(target=pages.run, args=(stop, 0.01))
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while pages.latest().stats.up and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stop.set()
        thread.join(5)
    state = pages.latest()
    assert state.stats.last_error == "internal error: KeyError: 'boom'"
    assert state.sample is not None and state.sample.time_ms == TS  # the last good one stays
    run.close()


def test_mounted_beside_the_rest_api(run: Run) -> None:
    """The server mounts the pages' app at ``/`` after its own routes under ``/ws/``."""
    async def rest(request: Request) -> Response:
        return PlainTextResponse("the REST API")

    run.control.publish()
    run.pages.step()
    outer = Starlette(routes=[Route("/ws/v1/cluster", rest),
                              Mount("/", app=serve_pages_app(run.pages))])
    with TestClient(outer) as client:
        assert client.get("/ws/v1/cluster").text == "the REST API"
        assert client.get("/scheduler").status_code == 200
        assert client.get("/static/pages.css").status_code == 200
        body = client.get("/metrics").text
        assert 'queue_metrics_fair_share_mb{queue="root.a"} 16384.0' in body
    run.close()


def test_the_pages_name_fairshare_serve_as_their_program(run: Run) -> None:
    """Every page's title and header say which program serves it: serve's say serve, in the
    pages the worker thread renders and in the error pages alike; watch's still say watch."""
    run.control.publish()
    run.pages.step()
    for path, status in (("/scheduler", 200), ("/tuning", 200), (f"/app/{A}", 200),
                         ("/app/application_1_0099", 404), ("/tuning?days=never", 400)):
        page = run.client.get(path)
        assert page.status_code == status, path
        assert "· fairshare serve</title>" in page.text, path
        assert '<li class="brand">fairshare serve</li>' in page.text, path
        assert "fairshare watch" not in page.text, path
    with TestClient(live_app(run.pages.source)) as watch:
        page = watch.get("/scheduler")
        assert "<title>Scheduler · fairshare watch</title>" in page.text
        assert "fairshare serve" not in page.text
    run.close()


def test_a_sample_interval_must_be_positive(tmp_path: Path) -> None:
    e = engine()
    history = History.open(str(tmp_path / "h.db"))
    with pytest.raises(ValueError, match="positive"):
        ServePages(EngineControl(e), history, None, None, 0)
    history.close()


def test_the_app_page_carries_the_engines_own_account(tmp_path: Path) -> None:
    """serve's app page has an Explain section: the explain endpoint's document, the times
    since the server started written as moments on its clock (TS + t); an app the session's
    events do not mention is said so (the endpoint's 404), never a 500."""
    victim = f"container_application_{TS}_0001_01_000004"
    asked: list[str] = []

    def explain(app_id: str) -> dict[str, object]:  # what /ws/v1/fairshare/apps/…/explain says
        asked.append(app_id)
        if app_id != A:
            raise not_found(f"app with id: {app_id} not found")
        return {"subject": f"app {A}", "statements": [
            {"t": 12_500, "text": f"1 of its containers were preempted for {B} (root.b).",
             "seq": [30]},
            {"t": None, "text": f"Its containers (2): container_application_{TS}_0001_01_000001"
             f" (AM), {victim}.", "seq": [7, 9]}]}

    run = Run(tmp_path)
    site, allocations = configuration()
    pages = ServePages(run.control, run.history, allocations, site, INTERVAL_MS,
                       rm_url="http://127.0.0.1:8088", explain=explain)
    run.start()
    run.to(7_500)  # B in the sample from 7.5 s on
    assert pages.sample(run.control.snapshot()) is not None
    client = TestClient(serve_pages_app(pages))
    html = client.get(f"/app/{A}").text
    section = html[html.index('<h2 id="explain">'):html.index("<h2>What holds it</h2>")]
    assert f'href="/ws/v1/fairshare/apps/{A}/explain"' in section
    # 12.5 s after TS (2023-11-14 22:13:20 UTC): 22:13:32.5, to the second
    assert "12.5 s<br><span class=\"muted\">2023-11-14 22:13:32</span>" in section
    assert f'preempted for <a href="/app/{B}">{B}</a> (root.b).' in section
    assert f'href="/ws/v1/fairshare/containers/{victim}/explain"' in section
    data = client.get(f"/api/app/{A}").json()
    assert data["explanation"]["started_ms"] == TS
    assert [s["seq"] for s in data["explanation"]["statements"]] == [[30], [7, 9]]
    other = client.get(f"/app/{B}")
    assert other.status_code == 200
    assert "the engine&#x27;s events of this session do not mention this app" in other.text
    assert asked == [A, A, B]
    # without an explainer (a watcher's pipeline): no section
    assert 'id="explain"' not in run.client.get(f"/app/{A}").text
    client.close()
    run.close()


def test_an_explainer_that_fails_is_said_on_the_page(tmp_path: Path) -> None:
    def broken(app_id: str) -> dict[str, object]:
        raise OSError("events.jsonl: disk gone")

    run = Run(tmp_path)
    site, allocations = configuration()
    pages = ServePages(run.control, run.history, allocations, site, INTERVAL_MS,
                       explain=broken)
    run.control.publish()
    pages.step()
    with TestClient(serve_pages_app(pages)) as client:
        page = client.get(f"/app/{A}")
        assert page.status_code == 200
        assert "the engine could not explain it: events.jsonl: disk gone" in page.text
    run.close()


def test_the_nodes_page_shows_both_nodes_filled(run: Run) -> None:
    """A's AM and 15 containers of 1 GB and 1 vcore fill both 8 GB, 8-vcore nodes."""
    run.control.publish()
    run.pages.step()
    data = run.client.get("/api/nodes").json()
    assert [n["id"] for n in data["nodes"]] == ["n1:8041", "n2:8041"]
    for n in data["nodes"]:
        assert n["used"] == {"memory_mb": 8 * GB, "vcores": 8}
        assert n["available"] == {"memory_mb": 0, "vcores": 0} and n["containers"] == 8
        assert n["last_health_update_ms"] is not None
    html = run.client.get("/nodes").text
    assert html.count('class="used" style="width:100.00%"') == 4  # memory and vcores, twice
    assert "8,192 MB of 8,192 MB" in html and "8 vcores of 8 vcores" in html
    run.close()

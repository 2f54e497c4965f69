"""``fairshare watch`` on Hadoop 3.4's own ResourceManager (rmharness, the contention script):
what it stores is what the RM served, its Preemption Tuning averages are an independent
computation's over the same answers, it finds the preemptions the RM made, and its pages and
``/metrics`` say the same.

The RM's numbers are timing-dependent (its update thread runs every 500 ms beside the
harness's heartbeats), so nothing here expects a fixed number of the RM's: every expectation is
computed from the answers the RM gave the watcher (recorded by a client that keeps each answer
it reads), or from the harness's own events (the containers the AMs saw preempted). The end
state the contention script reaches is worked out in rm_tests/test_harness.py: 11 of root.a's
containers preempted for root.b.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient

from fairshare.watch.allocations import AllocationWatch
from fairshare.watch.app import watch_app_for
from fairshare.watch.client import Answer, RMClient
from fairshare.watch.service import Watcher
from fairshare.web.history.model import Window
from fairshare.web.history.store import History
from rm_tests.harness import CONTENTION_XML, Harness
from rm_tests.test_harness import queues

INTERVAL_S = 0.5
SITE = """<?xml version="1.0"?>
<configuration>
  <property><name>yarn.scheduler.fair.preemption</name><value>true</value></property>
</configuration>
"""


class RecordingClient(RMClient):
    """The watcher's client, keeping every answer it read, in order."""

    def __init__(self, urls: list[str]) -> None:
        super().__init__(urls, timeout_s=10)
        self.answers: list[tuple[str, Answer]] = []

    def get(self, path: str) -> Answer:
        answer = super().get(path)
        self.answers.append((path, answer))
        return answer


@dataclass
class Watched:
    rm: Harness
    watcher: Watcher
    history: History
    polls: list[tuple[int, dict[str, Any], dict[str, Any]]]  # time, /scheduler, live /apps


def _preempted(apps: dict[str, Any]) -> int:
    listed = (apps.get("apps") or {}).get("app") or []
    return sum(a["numNonAMContainerPreempted"] + a["numAMContainerPreempted"] for a in listed)


@pytest.fixture(scope="module")
def watched(rmharness_jar: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Watched]:
    """The contention run, polled every 0.5 s until the RM has preempted the 11 containers
    and the watcher has seen them (and five polls more)."""
    tmp = tmp_path_factory.mktemp("watch")
    (tmp / "yarn-site.xml").write_text(SITE)
    rm = Harness.start("--allocations", str(CONTENTION_XML), "--script", "contention",
                       stderr_path=tmp / "rm.log")
    client = RecordingClient([rm.base_url])
    history = History.open(str(tmp / "history.db"), poll_interval_ms=int(INTERVAL_S * 1000))
    watcher = Watcher(client, history, AllocationWatch(CONTENTION_XML, tmp / "yarn-site.xml"),
                      INTERVAL_S)
    polls: list[tuple[int, dict[str, Any], dict[str, Any]]] = []
    try:
        deadline, after = time.monotonic() + 90, 5
        while after > 0:
            assert time.monotonic() < deadline, "the watcher did not see 11 preemptions in 90 s"
            start = len(client.answers)
            latest = watcher.poll_once()
            assert latest.stats.last_error is None, latest.stats.last_error
            got = {path.split("?")[0].rsplit("/", 1)[-1] + ("?" in path) * "?": json.loads(a.text)
                   for path, a in client.answers[start:]
                   if path.endswith("scheduler") or "states=NEW" in path}
            assert latest.sample is not None
            polls.append((latest.sample.time_ms, got["scheduler"], got["apps?"]))
            if _preempted(got["apps?"]) >= 11 and len(rm.of("preempted")) >= 11:
                after -= 1
            time.sleep(INTERVAL_S)
        yield Watched(rm, watcher, history, polls)
    finally:
        history.close()
        client.close()
        rm.stop()


def test_the_queue_numbers_stored_are_what_the_rm_served(watched: Watched) -> None:
    columns = {"used_mb": ("usedResources", "memory"),
               "fair_share_mb": ("fairResources", "memory"),
               "steady_fair_share_mb": ("steadyFairResources", "memory"),
               "demand_mb": ("demandResources", "memory"),
               "used_vcores": ("usedResources", "vCores")}
    first, last = watched.polls[0][0], watched.polls[-1][0]
    for name in ("root", "root.a", "root.b", "root.c.c1"):
        series = watched.history.series(name, first, last + 1, max_points=10_000)
        assert series.resolution_ms == 0  # the raw samples
        at = dict(zip(series.times_ms, range(len(series.times_ms)), strict=True))
        for time_ms, scheduler, _apps in watched.polls:
            served = queues(scheduler)[name]
            i = at[time_ms]
            for column, (field, part) in columns.items():
                assert series.averages[column][i] == served[field][part], (name, column)
            assert series.averages["pending_containers"][i] == served["pendingContainers"]


def test_the_tuning_averages_are_an_independent_computations(watched: Watched) -> None:
    """Each sample stands for the interval to the next, capped at 2 × the poll interval; in
    contention while pendingContainers > 0 (Cloudera's definition); short while used is below
    0.8 (the file's threshold) × the instantaneous fair share. The newest sample stands for
    nothing yet."""
    polls = watched.polls
    cap = 2 * int(INTERVAL_S * 1000)
    tallies = {t.name: t for t in watched.history.tally(Window(polls[0][0], polls[-1][0] + 1))}
    for name in ("root.a", "root.b"):
        weight = contention = short = 0
        sums = {"usedResources": 0, "fairResources": 0, "steadyFairResources": 0}
        for (t, scheduler, _), (t_next, _, _) in pairwise(polls):
            q, dt = queues(scheduler)[name], min(t_next - t, cap)
            weight += dt
            if q["pendingContainers"] > 0:
                contention += dt
                for field in sums:
                    sums[field] += q[field]["memory"] * dt
                used, fair = q["usedResources"], q["fairResources"]
                if (used["memory"] < 0.8 * fair["memory"]
                        or used["vCores"] < 0.8 * fair["vCores"]):
                    short += dt
        tally = tallies[name]
        assert tally.weight_ms == weight
        assert tally.contention_ms == contention > 0  # both queues had pending containers
        assert tally.short_ms == short
        for field, column in (("usedResources", "used_mb"), ("fairResources", "fair_share_mb"),
                              ("steadyFairResources", "steady_fair_share_mb")):
            assert tally.contention_average(column) == pytest.approx(sums[field] / contention)
    # root.b waited for its share: short of 0.8 × its share for a while (the preemptions
    # brought it to 11,264 of 16,384 MB, which is still below 13,107 MB)
    assert tallies["root.b"].short_ms > 0


def test_the_preemptions_the_rm_made_are_found(watched: Watched) -> None:
    seen = watched.rm.of("preempted")
    found = watched.history.preemptions(watched.polls[0][0], watched.polls[-1][0] + 1)
    assert sum(p.containers for p in found) == len(seen) == 11
    assert {p.queue for p in found} == {"root.a"}
    apps = {e["app"] for e in seen}
    assert {p.app for p in found} == apps
    # each record's time is the sample that first showed the rise
    for p in found:
        assert p.time_ms in {t for t, _, _ in watched.polls}


def test_the_pages_and_metrics_say_what_the_rm_served(watched: Watched) -> None:
    time_ms, scheduler, _apps = watched.polls[-1]
    served = queues(scheduler)
    with TestClient(watch_app_for(watched.watcher)) as client:
        data = client.get("/api/scheduler").json()
        shown = {q["name"]: q for q in data["queues"]}
        for name, q in served.items():
            assert shown[name]["resources"]["memory-mb"]["used"] == q["usedResources"]["memory"]
            assert (shown[name]["resources"]["memory-mb"]["instantaneous"]
                    == q["fairResources"]["memory"])
        for path in ("/", "/tuning", "/apps", "/diagnosis", "/queue/root.b"):
            assert client.get(path).status_code == 200, path
        tuning = client.get("/api/tuning", params={"from": watched.polls[0][0],
                                                   "to": time_ms + 1}).json()
        rows = {r["queue"]: r for r in tuning["queues"]}
        tally = {t.name: t for t in watched.history.tally(
            Window(watched.polls[0][0], time_ms + 1))}
        assert rows["root.b"]["contention_ms"] == tally["root.b"].contention_ms
        metrics = client.get("/metrics").text
    values = {(s.name, s.labels.get("queue")): s.value
              for family in text_string_to_metric_families(metrics) for s in family.samples}
    for name, q in served.items():
        assert values[("queue_metrics_fair_share_mb", name)] == q["fairResources"]["memory"]
        assert values[("queue_metrics_allocated_mb", name)] == q["usedResources"]["memory"]
    assert values[("fairshare_watch_up", None)] == 1


def test_the_pages_of_the_real_rm_in_chromium(watched: Watched) -> None:
    """Every page of the watched RM loads in Debian's chromium with no console error and no
    request outside the server; the Scheduler page draws the RM's queues; screenshots kept."""
    from playwright.sync_api import sync_playwright

    from browser_tests.conftest import ARGS, CHROMIUM
    from browser_tests.visit import SHOTS, Visit
    from tests.web.serve import serving_app

    with serving_app(watch_app_for(watched.watcher)) as base:
        app = watched.rm.of("preempted")[0]["app"]
        SHOTS.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            try:
                for path in ("/", "/queue/root.b", "/tuning", "/apps", f"/app/{app}",
                             "/diagnosis"):
                    visit = Visit(browser, base, path)
                    try:
                        visit.page.wait_for_load_state("networkidle")
                        name = path.strip("/").replace("/", "_") or "scheduler"
                        visit.page.screenshot(path=str(SHOTS / f"real-rm-{name}.png"),
                                              full_page=True)
                        assert not visit.outside, visit.outside
                        assert not visit.errors, visit.errors
                        if path == "/":  # a row per queue the RM served, in the tree
                            rows = visit.page.locator("tr[data-queue]")
                            drawn = {rows.nth(i).get_attribute("data-queue")
                                     for i in range(rows.count())}
                            assert drawn == set(queues(watched.polls[-1][1]))
                    finally:
                        visit.close()
            finally:
                browser.close()

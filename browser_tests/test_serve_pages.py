"""``fairshare serve``'s pages in a real browser (Debian's chromium through Playwright): apps
submitted through YARN's REST API, watched as they run and one of them is preempted.

The server is built and started in-process as ``fairshare serve`` builds it
(:func:`fairshare.server.service.build`, :class:`~fairshare.server.service.Served` on uvicorn,
127.0.0.1, a free port), with the virtual executor at 5x, preemption on, and two queues.

The worked example: two NodeManagers of 8 GB and 8 vcores (16,384 MB, 16 vcores); ``root.a``
(weight 3) and ``root.b`` (weight 1, fairSharePreemptionTimeout 2 s, threshold 1.0); every
container 1 GB and 1 vcore, every task an hour long (nothing ends while the test looks).

* App ``fill`` asks root.a for its AM and 20 tasks: it takes the whole cluster, 16 containers,
  5 tasks pending. root.a is the one active leaf, so its instantaneous fair share is the whole
  cluster (16,384 MB) and root.b's is 0; the steady shares split by weight over both queues:
  16,384 × 3/4 = 12,288 MB and 16,384 × 1/4 = 4,096 MB (FairSharePolicy shares memory only:
  YARN's fair shares carry 0 vcores).
* App ``starved`` then asks root.b for its AM and 8 tasks. Both leaves are active: the
  instantaneous shares become the steady ones, 12,288 and 4,096 MB. root.b holds nothing, below
  1.0 × 4,096 MB, for longer than its 2 s timeout: the engine preempts containers of ``fill``
  (tasks only: YARN's FSPreemptionThread takes the victims with the fewest AM containers) until
  root.b holds its share, 4 containers: ``starved``'s AM and 3 tasks (5 pending), ``fill`` 12
  containers (its AM and 11 tasks; the 4 preempted tasks asked again: 9 pending). Both nodes
  stay full, 8 containers each.

The app pages carry the engine's own account (their Explain section, the server's
``/ws/v1/fairshare/apps/{id}/explain``): starved's share taken from fill, fill's 4 containers
preempted for starved. The Nodes page lists both nodes full.

Every page loads with no console error or warning, no page error, no failed request and no
request outside the server. Screenshots go to ``browser_tests/screenshots/`` (serve_*.png).
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from playwright.sync_api import Browser, Page, expect
from prometheus_client.parser import text_string_to_metric_families

from browser_tests.visit import Visit
from fairshare.server.service import Served, ServeOptions, build
from tests.web.serve import serving_served

ROOT = Path(__file__).resolve().parents[1]
SPEED = 5.0  # the server's clock: 5 s of it per wall second
WAIT_MS = 30_000  # the longest any wall wait may take (the machine is shared)
GB = 1024
HOUR_MS = 3_600_000
ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <queue name="a"><weight>3</weight></queue>
  <queue name="b"><weight>1</weight>
    <fairSharePreemptionTimeout>2</fairSharePreemptionTimeout>
    <fairSharePreemptionThreshold>1.0</fairSharePreemptionThreshold>
  </queue>
</allocations>
"""
# preemption on (off by default); a victim is killed 1 s after it is marked rather than
# YARN's 15 s (FairSchedulerConfiguration's waitTimeBeforeKill), to keep the test short
SITE = """<?xml version="1.0"?>
<configuration>
  <property><name>yarn.scheduler.fair.preemption</name><value>true</value></property>
  <property><name>yarn.scheduler.fair.waitTimeBeforeKill</name><value>1000</value></property>
</configuration>
"""
CLUSTER_MB, CLUSTER_VCORES = 2 * 8 * GB, 2 * 8
SHARE_A_MB, SHARE_B_MB = CLUSTER_MB * 3 // 4, CLUSTER_MB // 4  # 12,288 and 4,096
A_CONTAINERS, B_CONTAINERS = SHARE_A_MB // GB, SHARE_B_MB // GB  # 12 and 4, of 1 GB each
A_TASKS, B_TASKS = 20, 8
PREEMPTED = 16 - A_CONTAINERS  # what fill lost: 4 tasks


@dataclass
class Cluster:
    """The server, its base URL, a REST client, and the two apps' ids once submitted."""

    served: Served
    base: str
    rest: httpx.Client
    apps: dict[str, str] = field(default_factory=dict)  # name → application id

    def submit(self, name: str, queue: str, tasks: int) -> str:
        """YARN's two calls: a new application id, then the submission (202, empty body),
        with the virtual executor's app model in fairshare's extension object."""
        new = self.rest.post("/ws/v1/cluster/apps/new-application")
        assert new.status_code == 200, new.text
        app_id: str = new.json()["application-id"]
        submitted = self.rest.post("/ws/v1/cluster/apps", json={
            "application-id": app_id, "application-name": name, "queue": queue,
            "resource": {"memory": GB, "vCores": 1},
            "am-container-spec": {"commands": {"command": "unused by the virtual executor"}},
            "fairshare": {"tasks": [{"count": tasks, "memory-mb": GB, "vcores": 1,
                                     "duration-ms": HOUR_MS}]}})
        assert submitted.status_code == 202 and submitted.content == b"", submitted.text
        self.apps[name] = app_id
        return app_id

    def queues(self) -> dict[str, dict[str, Any]]:
        """REST /scheduler's leaves by name."""
        info = self.rest.get("/ws/v1/cluster/scheduler").json()["scheduler"]["schedulerInfo"]
        return {q["queueName"]: q for q in info["rootQueue"]["childQueues"]["queue"]}

    def used_mb(self) -> dict[str, int]:
        return {name: q["usedResources"]["memory"] for name, q in self.queues().items()}

    def wait_for(self, what: str, done: Any) -> None:
        deadline = time.monotonic() + WAIT_MS / 1000
        while not done():
            assert time.monotonic() < deadline, f"timed out waiting for {what}"
            time.sleep(0.1)

    def sampled(self) -> dict[str, int]:
        """root's leaves' usage in the pages' latest sample (what every page draws)."""
        data = self.rest.get("/api/scheduler").json()
        return {q["name"]: q["resources"]["memory-mb"]["used"] for q in data["queues"]
                if q["leaf"]}

    def fill(self) -> str:
        """``fill`` submitted (once) and holding the whole cluster, on REST and the pages."""
        if "fill" not in self.apps:
            self.submit("fill", "a", A_TASKS)
        self.wait_for("fill to take the cluster",
                      lambda: self.used_mb().get("root.a") == CLUSTER_MB)
        self.wait_for("the pages' sample of a full cluster",
                      lambda: self.sampled().get("root.a") == CLUSTER_MB)
        return self.apps["fill"]

    def preempted(self) -> tuple[str, str]:
        """``starved`` submitted (once) after ``fill`` took the cluster, and holding its
        share through preemption, on REST and in the pages' latest sample."""
        if "starved" not in self.apps:
            self.fill()
            self.submit("starved", "b", B_TASKS)
        final = {"root.a": SHARE_A_MB, "root.b": SHARE_B_MB}
        self.wait_for("starved to get its share", lambda: self.used_mb() == final)
        self.wait_for("the pages' sample of it", lambda: self.sampled() == final)
        return self.apps["fill"], self.apps["starved"]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    """``fairshare serve fair-scheduler.xml --site yarn-site.xml --nodes 2x8g/8 --speed 5
    --listen 127.0.0.1:0``, in-process; stopped at the end (the engine, its containers, the
    pages' sampler, uvicorn)."""
    tmp = tmp_path_factory.mktemp("serve")
    (tmp / "fair-scheduler.xml").write_text(ALLOCATIONS, encoding="utf-8")
    (tmp / "yarn-site.xml").write_text(SITE, encoding="utf-8")
    served = build(ServeOptions(tmp / "fair-scheduler.xml", tmp / "yarn-site.xml", "2x8g/8",
                                speed=SPEED, out=tmp / "session"))
    with serving_served(served) as base, httpx.Client(base_url=base, timeout=10) as rest:
        yield Cluster(served, base, rest)




# root.a's and root.b's memory words at load and after each swap of the page's live part
WATCH_SWAPS = """() => {
  const words = q => document.querySelector(
    `#queues tr[data-queue="${q}"] .res[data-resource="memory-mb"] .btext`).textContent;
  const note = () => window.fairshareSeen.push([words("root.a"), words("root.b")]);
  window.fairshareSeen = [];
  note();
  new MutationObserver(note).observe(document.getElementById("scheduler"), {childList: true});
}"""


def _used_mb(words: str) -> int:
    """``12,288 MB of 12,288 MB``: the used part, in MB."""
    found = re.fullmatch(r"([0-9,]+) MB of [0-9,]+ MB", words)
    assert found is not None, words
    return int(found.group(1).replace(",", ""))


def row(page: Page, queue: str) -> Any:
    return page.locator(f'#queues tr[data-queue="{queue}"]')


def bar_text(page: Page, queue: str, resource: str) -> Any:
    """The words beside a queue's bar: ``used of instantaneous fair share``."""
    return row(page, queue).locator(f'.res[data-resource="{resource}"] .btext')


def width(page: Page, queue: str, resource: str, part: str) -> float:
    """A part of a queue's bar (used, steady, instantaneous), in % of the cluster."""
    style = row(page, queue).locator(
        f'.res[data-resource="{resource}"] .bar span.{part}').get_attribute("style") or ""
    found = re.search(r"width:([0-9.]+)%", style)
    assert found is not None, style
    return float(found.group(1))


def shows(cell: Any, text: str) -> None:
    """A cell's text as drawn, its line breaks (``<br>``) as newlines."""
    expect(cell).to_have_text(text, use_inner_text=True)


def facts(page: Page) -> dict[str, str]:
    """An app page's facts, by their label as shown."""
    labels = page.locator("#app-facts dt").all_inner_texts()
    values = page.locator("#app-facts dd").all_inner_texts()
    return dict(zip(labels, values, strict=True))


def not_blank(png: bytes) -> bool:
    """A drawn chart has many colours; an empty box one or two."""
    colours = Image.open(io.BytesIO(png)).convert("RGB").getcolors(maxcolors=1 << 16)
    return colours is None or len(colours) > 20


def test_the_scheduler_page_shows_the_starved_queue_get_its_share_by_preemption(
        browser: Browser, cluster: Cluster) -> None:
    cluster.fill()
    visit = Visit(browser, cluster.base, "/scheduler")
    try:
        page = visit.page
        page.evaluate("window.fairshareNotReloaded = true")
        expect(page).to_have_title("Scheduler · fairshare serve")  # the server's own pages
        expect(page.locator("#cluster")).to_contain_text("16,384 MB, 16 vcores; 2 nodes")
        # fill alone: root.a's instantaneous share is the cluster, root.b's nothing
        expect(bar_text(page, "root.a", "memory-mb")).to_have_text("16,384 MB of 16,384 MB")
        expect(bar_text(page, "root.b", "memory-mb")).to_have_text("0 MB of 0 MB")
        expect(bar_text(page, "root.a", "vcores")).to_contain_text("16 vcores of")
        assert width(page, "root.a", "memory-mb", "used") == 100.0
        assert width(page, "root.a", "vcores", "used") == 100.0
        assert width(page, "root.b", "memory-mb", "used") == 0.0
        # the steady shares are the weights' split, whoever is active
        assert width(page, "root.a", "memory-mb", "steady") == 75.0
        assert width(page, "root.b", "memory-mb", "steady") == 25.0
        expect(row(page, "root.b")).to_contain_text("fair-share timeout 2.0 s, threshold 1")
        visit.shot("serve_scheduler_full")

        page.evaluate(WATCH_SWAPS)
        starved = cluster.submit("starved", "b", B_TASKS)
        # the page swaps in new samples by itself: starved appears, then gets its share
        expect(page.locator(f'tr[data-app="{starved}"]')).to_be_visible(timeout=WAIT_MS)
        expect(bar_text(page, "root.b", "memory-mb")).to_have_text(
            "4,096 MB of 4,096 MB", timeout=WAIT_MS)
        expect(bar_text(page, "root.a", "memory-mb")).to_have_text("12,288 MB of 12,288 MB")
        expect(bar_text(page, "root.b", "vcores")).to_contain_text("4 vcores of")
        expect(bar_text(page, "root.a", "vcores")).to_contain_text("12 vcores of")
        assert page.evaluate("window.fairshareNotReloaded") is True
        # every state the page showed on the way: root.b only gains and root.a only loses
        # (the preempted space goes to the starved app, never back), from the full cluster
        # of fill to the weights' split
        seen = [tuple(_used_mb(text) for text in pair)
                for pair in page.evaluate("window.fairshareSeen")]
        assert seen[0] == (CLUSTER_MB, 0) and seen[-1] == (SHARE_A_MB, SHARE_B_MB)
        assert all(a2 <= a1 and b2 >= b1 for (a1, b1), (a2, b2) in pairwise(seen))
        for queue, share in (("root.a", 75.0), ("root.b", 25.0)):
            assert width(page, queue, "memory-mb", "used") == share
            assert width(page, queue, "memory-mb", "instantaneous") == share
            assert width(page, queue, "vcores", "used") == share  # 12 and 4 of 16 vcores
        fill = cluster.apps["fill"]
        # the apps under their queues: fill lost 4 tasks (no AM), starved lost nothing
        fill_row = page.locator(f'tr[data-app="{fill}"]')
        expect(fill_row).to_contain_text("RUNNING")
        expect(fill_row).to_contain_text(f"{PREEMPTED} containers (0 AM)")
        shows(fill_row.locator("td").nth(4), "12,288 MB\n12 vcores")
        starved_row = page.locator(f'tr[data-app="{starved}"]')
        expect(starved_row).to_contain_text("RUNNING")
        expect(starved_row).to_contain_text("0 containers (0 AM)")
        shows(starved_row.locator("td").nth(4), "4,096 MB\n4 vcores")
        # the pending containers column: 9 of fill's asks, 5 of starved's
        expect(row(page, "root.a").locator("td").nth(3)).to_have_text("9")
        expect(row(page, "root.b").locator("td").nth(3)).to_have_text("5")
        # the nodes: both full, 8 containers of 1 GB each
        nodes = page.locator("#nodes tbody tr")
        expect(nodes).to_have_count(2)
        for i in range(2):
            expect(nodes.nth(i)).to_contain_text("RUNNING")
            expect(nodes.nth(i).locator("td").nth(3)).to_have_text("8")
            shows(nodes.nth(i).locator("td").nth(4), "8,192 MB\n8 vcores")
        assert sorted(nodes.locator("td:first-child").all_inner_texts()) == ["node1", "node2"]
        visit.shot("serve_scheduler_preempted")
        visit.clean()
    finally:
        visit.close()


def test_the_app_pages_explain_the_preemption(browser: Browser, cluster: Cluster) -> None:
    fill, starved = cluster.preempted()
    visit = Visit(browser, cluster.base, f"/app/{starved}")
    try:
        page = visit.page
        shown = facts(page)
        assert (shown["name"], shown["queue"], shown["state"]) == ("starved", "root.b", "RUNNING")
        assert shown["allocated (last sample)"] == "4,096 MB, 4 vcores"
        assert shown["running containers"] == str(B_CONTAINERS)
        assert shown["pending containers"] == str(B_TASKS + 1 - B_CONTAINERS)
        assert shown["other containers preempted"] == "0"
        # what holds it now: the cluster is full and it has its share
        findings = page.locator("#findings tbody tr")
        expect(findings).to_have_count(1)
        expect(findings).to_contain_text("it uses 4,096 MB, 4 vcores against a fair share "
                                         "of 4,096 MB")
        # the engine's own account: its share was taken from fill, PREEMPTED containers of
        # it warned and killed in one round or more
        told = explained(page)
        warned = [re.search(r"^(\d+) container\(s\) warned for it — (\d+) of (\S+) "
                            r"\(root\.a\)", text) for text in told]
        rounds = [m for m in warned if m is not None]
        assert rounds and {m.group(3) for m in rounds} == {fill}
        assert sum(int(m.group(1)) for m in rounds) == PREEMPTED
        assert sum(int(m.group(2)) for m in rounds) == PREEMPTED
        killed = [re.match(r"(\d+) of them killed", text) for text in told]
        assert sum(int(m.group(1)) for m in killed if m is not None) == PREEMPTED
        expect(page.locator("#explain-statements a", has_text=fill).first).to_have_attribute(
            "href", f"/app/{fill}")
        visit.clean()
        visit.shot("serve_app_starved")

        visit.go(f"/app/{fill}")
        shown = facts(page)
        assert (shown["name"], shown["queue"], shown["state"]) == ("fill", "root.a", "RUNNING")
        assert shown["allocated (last sample)"] == "12,288 MB, 12 vcores"
        assert shown["running containers"] == str(A_CONTAINERS)
        assert shown["pending containers"] == str(A_TASKS + 1 - A_CONTAINERS)
        assert shown["AM containers preempted"] == "0"
        assert shown["other containers preempted"] == str(PREEMPTED)
        assert shown["resources preempted"] == "4,096 MB, 4 vcores"
        # the preemptions as the samples saw them: 4 containers in all, none an AM
        preemptions = page.locator("#app-preemptions tbody tr")
        counts = [int(preemptions.nth(i).locator("td").nth(1).inner_text())
                  for i in range(preemptions.count())]
        assert sum(counts) == PREEMPTED and counts and all(c > 0 for c in counts)
        ams = [preemptions.nth(i).locator("td").nth(2).inner_text()
               for i in range(preemptions.count())]
        assert set(ams) == {"0"}
        # the engine's account from the other side: its containers preempted for starved
        taken = [re.fullmatch(rf"(\d+) of its containers were preempted for {starved} "
                              r"\(root\.b\)\.", text) for text in explained(page)]
        assert sum(int(m.group(1)) for m in taken if m is not None) == PREEMPTED
        # every container it had links to that container's own explanation
        links = page.locator("#explain-statements a.container")
        expect(links).to_have_count(CLUSTER_MB // GB)  # its AM and 15 tasks, 16 in all
        target = links.first.get_attribute("href") or ""
        assert re.fullmatch(r"/ws/v1/fairshare/containers/container_\w+/explain", target)
        container = cluster.rest.get(target)
        assert container.status_code == 200
        assert container.json()["subject"].startswith("container ")
        visit.clean()
        visit.shot("serve_app_fill")

        visit.go("/apps")
        listed = page.locator("#apps tbody tr")
        expect(listed).to_have_count(2)
        expect(page.locator(f'#apps tr:has(a[href="/app/{fill}"])')).to_contain_text("root.a")
        expect(page.locator(f'#apps tr:has(a[href="/app/{starved}"])')).to_contain_text(
            "root.b")
        visit.clean()
    finally:
        visit.close()


def explained(page: Page) -> list[str]:
    """The Explain section's statements, as shown (serve's app pages alone have it)."""
    expect(page.locator("#explain")).to_be_visible()
    return page.locator("#explain-statements tbody tr td:nth-child(2)").all_inner_texts()


def test_the_nodes_page_shows_both_nodes_full(browser: Browser, cluster: Cluster) -> None:
    cluster.preempted()
    visit = Visit(browser, cluster.base, "/scheduler")
    try:
        page = visit.page
        page.get_by_role("link", name="Nodes", exact=True).first.click()
        expect(page).to_have_title("Nodes · fairshare serve")
        expect(page.locator("#nodes-summary")).to_contain_text(
            f"2 nodes (2 RUNNING). The scheduler holds 2 nodes: memory {CLUSTER_MB:,} MB used "
            f"of {CLUSTER_MB:,} MB, 0 MB available; vcores {CLUSTER_VCORES} vcores used of "
            f"{CLUSTER_VCORES} vcores")
        rows = page.locator("#nodes-list tbody tr")
        expect(rows).to_have_count(2)
        assert rows.locator("td:first-child").all_inner_texts() == ["node1:45454",
                                                                     "node2:45454"]
        for i in range(2):
            cells = rows.nth(i).locator("td")
            expect(cells.nth(1)).to_have_text("/default-rack")
            expect(cells.nth(2)).to_have_text("RUNNING")
            expect(cells.nth(3)).to_have_text("8")  # 8 containers of 1 GB fill 8 GB
            for resource, words in (("memory-mb", "8,192 MB of 8,192 MB\n0 MB available"),
                                    ("vcores", "8 vcores of 8 vcores\n0 vcores available")):
                res = rows.nth(i).locator(f'.res[data-resource="{resource}"]')
                shows(res.locator(".btext"), words)
                style = res.locator(".bar span.used").get_attribute("style") or ""
                assert "width:100.00%" in style, style
            # a heartbeat every second of the server's clock, at or before the sample
            expect(cells.nth(5)).to_contain_text(re.compile(r"before the sample|at the sample"))
        visit.shot("serve_nodes")
        visit.clean()
        rows.first.locator("a").click()
        expect(page).to_have_title("Node node1:45454 · fairshare serve")
        expect(page.locator('#node-facts dd[data-key="containers"]')).to_have_text("8")
        visit.clean()
    finally:
        visit.close()


def test_preemption_tuning_over_the_servers_history(browser: Browser, cluster: Cluster
                                                     ) -> None:
    cluster.preempted()
    visit = Visit(browser, cluster.base, "/tuning")
    try:
        page = visit.page
        tuning = page.locator("table.tuning")

        def preempted_from(queue: str) -> str:
            return tuning.locator(f'tr[data-queue="{queue}"] '
                                  '[data-key="containers-preempted-from"]').inner_text()

        # the window (the last day of the server's clock) holds the whole session
        assert preempted_from("root.a") == str(PREEMPTED)
        assert preempted_from("root.b") == "0"
        # starved waited with asks outstanding from its first sample on: in contention
        waited = tuning.locator('tr[data-queue="root.b"] [data-key="during-contention.ms"]')
        assert int(waited.get_attribute("data-ms") or 0) > 0
        # and root.b was short of 1.0 × 4,096 MB for some 15 s of the server's clock: its 2 s
        # timeout and the 1 s kill wait for its AM, then its AM alone until the app's next
        # starvation check (waitTimeBeforeNextStarvationCheck, 10 s) and another kill wait;
        # two or three of the samples, 5 s apart, fall inside, each counting its interval
        short = tuning.locator('tr[data-queue="root.b"] '
                               '[data-key="time-short-of-fair-share-threshold-ms"]')
        assert int(short.get_attribute("data-ms") or 0) >= 5_000
        steady = tuning.locator('tr[data-queue="root.b"] [data-key="steady-fair-share"]')
        assert float(steady.get_attribute("data-mb") or 0) == SHARE_B_MB
        visit.clean()
        visit.shot("serve_tuning")

        visit.go("/queue/root.b")
        page.wait_for_selector("#chart-memory canvas")
        assert not_blank(page.locator("#chart-memory").screenshot())
        visit.clean()
    finally:
        visit.close()


def test_the_diagnosis_says_what_holds_each_queue(browser: Browser, cluster: Cluster) -> None:
    fill, starved = cluster.preempted()
    visit = Visit(browser, cluster.base, "/diagnosis")
    try:
        rows = visit.page.locator("#findings tbody tr")
        by = {(r[0], r[1]): r for r in (
            rows.nth(i).locator("td").all_inner_texts() for i in range(rows.count()))}
        assert set(by) == {("root.a", ""), ("root.a", fill), ("root.b", ""),
                           ("root.b", starved)}
        # root.a has no preemption timeout: nothing would ever be preempted for it
        assert "fairSharePreemptionTimeout of root.a (unset" in by["root.a", fill][4]
        # root.b holds its share in a full cluster: preemption has done what it could
        assert "against a fair share of 4,096 MB" in by["root.b", starved][3]
        assert "cluster 100% used" in by["root.b", starved][3]
        visit.clean()
        visit.shot("serve_diagnosis")
    finally:
        visit.close()


def metrics(text: str) -> dict[tuple[str, str], float]:
    """Each sample by name and its ``queue`` label ('' without one)."""
    return {(s.name, s.labels.get("queue", "")): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_metrics_carry_hadoops_prom_names_and_agree_with_the_rest_api(cluster: Cluster
                                                                      ) -> None:
    cluster.preempted()
    scrape = cluster.rest.get("/metrics")
    assert scrape.status_code == 200 and scrape.headers["content-type"].startswith("text/plain")
    m = metrics(scrape.text)
    queues = cluster.queues()
    # Hadoop's /prom names each metric after its record and field, CamelCase split into
    # snake case (PrometheusMetricsSink.prometheusName): QueueMetrics' FairShareMB is
    # queue_metrics_fair_share_mb, AllocatedVCores queue_metrics_allocated_v_cores, and its
    # Queue tag the label queue="root.a"
    for queue, share, held in (("root.a", SHARE_A_MB, A_CONTAINERS),
                               ("root.b", SHARE_B_MB, B_CONTAINERS)):
        rest = queues[queue]
        assert m["queue_metrics_fair_share_mb", queue] == share == rest["fairResources"]["memory"]
        assert (m["queue_metrics_steady_fair_share_mb", queue] == share
                == rest["steadyFairResources"]["memory"])
        assert (m["queue_metrics_allocated_mb", queue] == held * GB
                == rest["usedResources"]["memory"])
        assert (m["queue_metrics_allocated_v_cores", queue] == held
                == rest["usedResources"]["vCores"])
        assert m["queue_metrics_allocated_containers", queue] == rest["allocatedContainers"] == held
        assert m["queue_metrics_pending_containers", queue] == rest["pendingContainers"]
        assert m["queue_metrics_apps_running", queue] == rest["numActiveApps"] == 1
    assert m["queue_metrics_pending_containers", "root.a"] == A_TASKS + 1 - A_CONTAINERS
    assert m["queue_metrics_pending_containers", "root.b"] == B_TASKS + 1 - B_CONTAINERS
    cluster_metrics = cluster.rest.get("/ws/v1/cluster/metrics").json()["clusterMetrics"]
    # ClusterMetrics' NumActiveNMs: the split keeps the acronym's letters apart
    assert m["cluster_metrics_num_active_n_ms", ""] == cluster_metrics["activeNodes"] == 2
    assert m["fairshare_watch_up", ""] == 1.0

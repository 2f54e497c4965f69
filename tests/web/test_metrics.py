"""``/metrics`` (web/metrics.py): the exposition parsed back with prometheus_client's parser
equals the RM's numbers, read here independently from the fixture's JSON."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from prometheus_client.parser import text_string_to_metric_families

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.yarnsite import load_site
from fairshare.sim.importer.dump import DumpQueue
from fairshare.web.diagnosis import QueueFacts
from fairshare.web.metrics import (
    QUEUE_GAUGES,
    LatestState,
    PollStats,
    exposition,
    registry_for,
)
from fairshare.web.sample import Sample
from tests.web.dumps import dump_queues, sample_of

DUMPS = Path(__file__).parents[1] / "importer" / "dumps"
NOW_MS = 1_700_000_400_000


def _sample(folder: str, metrics: dict[str, int] | None = None) -> Sample:
    return sample_of(folder, NOW_MS, cluster_id=1, apps=False, metrics=metrics)


def _scrape(state: LatestState, now_s: float = NOW_MS / 1000 + 2.5
            ) -> tuple[str, dict[tuple[str, tuple[tuple[str, str], ...]], float]]:
    text, content_type = exposition(registry_for(lambda: state, clock=lambda: now_s))
    assert content_type.startswith("text/plain")
    decoded = text.decode()
    values = {(s.name, tuple(sorted(s.labels.items()))): s.value
              for family in text_string_to_metric_families(decoded) for s in family.samples}
    return decoded, values


def _json_queues(folder: str) -> dict[str, dict[str, Any]]:
    return dump_queues(folder)


def _hadoop_name(record: str, metric: str) -> str:
    """PrometheusMetricsSink.prometheusName, by its rule: split before an upper-case letter
    that follows a lower-case one or a digit, and before one that starts a capitalised word."""
    base = record + metric[0].upper() + metric[1:]
    words = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z0-9]+|[A-Z]+", base)
    return "_".join(words).lower()


def test_names_are_hadoops_prom_names() -> None:
    # the @Metric fields of FSQueueMetrics and QueueMetrics (Hadoop 3.4), snake-cased as /prom
    fields = ["fairShareMB", "fairShareVCores", "steadyFairShareMB", "steadyFairShareVCores",
              "minShareMB", "minShareVCores", "maxShareMB", "maxShareVCores", "allocatedMB",
              "allocatedVCores", "allocatedContainers", "pendingContainers", "reservedMB",
              "reservedVCores", "reservedContainers", "amResourceUsageMB",
              "amResourceUsageVCores", "maxAMShareMB", "maxAMShareVCores", "appsRunning",
              "appsPending"]
    expected = {_hadoop_name("QueueMetrics", f) for f in fields}
    assert _hadoop_name("QueueMetrics", "steadyFairShareVCores") == \
        "queue_metrics_steady_fair_share_v_cores"
    assert _hadoop_name("ClusterMetrics", "NumActiveNMs") == "cluster_metrics_num_active_n_ms"
    ours = {name for name, *_ in QUEUE_GAUGES if name.startswith("queue_metrics_")}
    assert ours == expected


def test_every_queue_number_equals_the_rms() -> None:
    _, values = _scrape(LatestState(_sample("spark"), stats=PollStats(0.25, 3, True)))
    queues = _json_queues("spark")
    resources = {"fair_share": "fairResources", "steady_fair_share": "steadyFairResources",
                 "min_share": "minResources", "max_share": "maxResources",
                 "allocated": "usedResources", "reserved": "reservedResources",
                 "am_resource_usage": "amUsedResources", "max_am_share": "amMaxResources"}
    checked = 0
    for name, q in queues.items():
        label = (("queue", name),)
        for metric, key in resources.items():
            if key in q:
                assert values[(f"queue_metrics_{metric}_mb", label)] == q[key]["memory"]
                assert values[(f"queue_metrics_{metric}_v_cores", label)] == q[key]["vCores"]
                checked += 2
        if "demandResources" in q:
            assert values[("fairshare_queue_demand_mb", label)] == q["demandResources"]["memory"]
            assert values[("fairshare_queue_demand_vcores", label)] == \
                q["demandResources"]["vCores"]
        for metric, key in (("pending_containers", "pendingContainers"),
                            ("allocated_containers", "allocatedContainers"),
                            ("max_apps", "maxApps")):
            if key in q:
                assert values[(f"queue_metrics_{metric}", label)] == q[key]
                checked += 1
    assert checked > 50
    # apps: a leaf's numActiveApps / numPendingApps, a parent the sum of its leaves'
    leaves = {n: q for n, q in queues.items() if "childQueues" not in q}
    assert values[("queue_metrics_apps_running", (("queue", "root"),))] == sum(
        q.get("numActiveApps", 0) for q in leaves.values())
    assert values[("queue_metrics_apps_pending", (("queue", "root"),))] == sum(
        q.get("numPendingApps", 0) for q in leaves.values())
    # the watcher's health
    assert values[("fairshare_watch_up", ())] == 1
    assert values[("fairshare_watch_poll_errors_total", ())] == 3
    assert values[("fairshare_watch_poll_seconds", ())] == 0.25
    assert values[("fairshare_watch_last_sample_age_seconds", ())] == 2.5


def test_help_and_type_lines() -> None:
    text, _ = _scrape(LatestState(_sample("basic")))
    assert "# HELP queue_metrics_fair_share_mb Fair share of memory in MB (REST fairResources)" \
        in text
    assert "# TYPE queue_metrics_fair_share_mb gauge" in text
    assert "# TYPE fairshare_watch_poll_errors_total counter" in text
    for name, *_ in QUEUE_GAUGES:
        assert f"# HELP {name} " in text and f"# TYPE {name} gauge" in text


def test_any_queue_name_is_a_label_value() -> None:
    odd = 'root.team-a.we"ird.q\\x'
    leaf = DumpQueue(name=odd, leaf=True, policy="fair", min_resources=(0, 0),
                     max_resources=(8192, 8), used=(1024, 1), steady_fair=(4096, 4),
                     fair=(2048, 2), am_max=None, max_apps=None, preemptable=True,
                     children=(), line=1, custom=(("usedResources", "yarn.io/gpu", 2),))
    root = DumpQueue(name="root", leaf=False, policy="fair", min_resources=(0, 0),
                     max_resources=(8192, 8), used=(1024, 1), steady_fair=(8192, 8),
                     fair=(8192, 8), am_max=None, max_apps=None, preemptable=True,
                     children=(leaf,), line=1)
    sample = Sample(NOW_MS, "http://rm", 1, "3.4.1", root, (8192, 8), (), ())
    text, values = _scrape(LatestState(sample))
    assert values[("queue_metrics_fair_share_mb", (("queue", odd),))] == 2048
    assert values[("queue_metrics_allocated_v_cores", (("queue", odd),))] == 1
    assert 'queue="root.team-a.we\\"ird.q\\\\x"' in text  # escaped as the format says
    assert values[("fairshare_queue_resource", (("field", "usedResources"), ("queue", odd),
                                                ("resource", "yarn.io/gpu")))] == 2
    # what the answer did not have (AM fields, demand) is not exported as 0
    assert ("queue_metrics_am_resource_usage_mb", (("queue", odd),)) not in values
    assert ("fairshare_queue_demand_mb", (("queue", odd),)) not in values


def test_derived_numbers() -> None:
    # root.etl short for 95 s and in contention for 120 s; a timeout set on root.etl only;
    # 13,312 of 24,576 MB (54 %) and 8 of 24 vcores used: below the 80 % threshold, gated
    sample = _sample("basic", {"activeNodes": 3, "appsSubmitted": 4, "totalMB": 24576})
    config = parse_allocations_text(
        '<allocations><queue name="root"><queue name="etl"><fairSharePreemptionTimeout>60'
        '</fairSharePreemptionTimeout></queue></queue></allocations>')
    site = load_site(overrides={"yarn.scheduler.fair.preemption": "true"})
    facts = {"root.etl": QueueFacts(NOW_MS - 95_000, NOW_MS - 120_000)}
    _, values = _scrape(LatestState(sample, facts, allocations=config, site=site))
    etl, adhoc = (("queue", "root.etl"),), (("queue", "root.analytics.adhoc"),)
    assert values[("fairshare_queue_seconds_short_of_threshold", etl)] == 95
    assert values[("fairshare_queue_seconds_in_contention", etl)] == 120
    assert values[("fairshare_queue_seconds_short_of_threshold", adhoc)] == 0
    assert values[("fairshare_queue_starvation_configured", etl)] == 1
    assert values[("fairshare_queue_starvation_configured", adhoc)] == 0
    assert values[("fairshare_queue_fair_share_preemption_threshold", etl)] == 0.5
    assert values[("fairshare_preemption_enabled", ())] == 1
    assert values[("fairshare_preemption_gated", ())] == 1
    assert abs(values[("fairshare_cluster_utilization", ())] - 13312 / 24576) < 1e-6
    assert values[("cluster_metrics_num_active_n_ms", ())] == 3
    assert values[("fairshare_cluster_apps_submitted", ())] == 4
    assert values[("fairshare_cluster_total_mb", ())] == 24576


def test_before_the_first_sample_only_the_health_is_exported() -> None:
    text, values = _scrape(LatestState(None, stats=PollStats(None, 1, False, "refused")))
    assert values == {("fairshare_watch_up", ()): 0,
                      ("fairshare_watch_poll_errors_total", ()): 1}
    assert "queue_metrics" not in text

"""``/metrics``: the latest sample in Prometheus' text format (prometheus-client), for
``fairshare watch`` and ``fairshare serve`` alike (docs/watch.md "Metrics").

Per-queue numbers carry a ``queue`` label holding the full name, at any depth and with any
characters (prometheus-client escapes the value): jmx_exporter's rules over ``q0=…,q1=…``
bean names fix a depth. A number Hadoop's own ``/prom`` endpoint exports keeps its name there
(``PrometheusMetricsSink.prometheusName``: record and metric name, CamelCase split into snake
case, so ``FairShareMB`` of record ``QueueMetrics`` is ``queue_metrics_fair_share_mb``), from
the ``@Metric`` fields of ``FSQueueMetrics`` and ``QueueMetrics``; its HELP is Hadoop's
``@Metric`` description and the REST field it is read from. What Hadoop does not export
(demand, custom resource types, the starvation state) and the watcher's own health are
``fairshare_*``. A dashboard built on ``/prom`` reads these names unchanged; the values are
REST's, which differ in one place: an unset max share is the cluster (REST clamps it), where
JMX says Long.MAX_VALUE.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from fairshare.config.model import AllocationConfig
from fairshare.config.yarnsite import SiteConfig
from fairshare.web.diagnosis import (
    QueueFacts,
    effective_settings,
    preemption_gated,
    starvation_configured,
    utilization,
)
from fairshare.web.sample import COLUMN, Sample, queue_values

# (name, Hadoop's @Metric description, the REST field, the QUEUE_COLUMNS column, the
# DumpQueue field: an answer without it exports nothing; None: counted from the leaves)
QUEUE_GAUGES: tuple[tuple[str, str, str, str, str | None], ...] = (
    ("queue_metrics_fair_share_mb", "Fair share of memory in MB", "fairResources",
     "fair_share_mb", "fair"),
    ("queue_metrics_fair_share_v_cores", "Fair share of CPU in vcores", "fairResources",
     "fair_share_vcores", "fair"),
    ("queue_metrics_steady_fair_share_mb", "Steady fair share of memory in MB",
     "steadyFairResources", "steady_fair_share_mb", "steady_fair"),
    ("queue_metrics_steady_fair_share_v_cores", "Steady fair share of CPU in vcores",
     "steadyFairResources", "steady_fair_share_vcores", "steady_fair"),
    ("queue_metrics_min_share_mb", "Minimum share of memory in MB", "minResources",
     "min_share_mb", "min_resources"),
    ("queue_metrics_min_share_v_cores", "Minimum share of CPU in vcores", "minResources",
     "min_share_vcores", "min_resources"),
    ("queue_metrics_max_share_mb", "Maximum share of memory in MB", "maxResources, at most "
     "the cluster", "max_share_mb", "max_resources"),
    ("queue_metrics_max_share_v_cores", "Maximum share of CPU in vcores", "maxResources, at "
     "most the cluster", "max_share_vcores", "max_resources"),
    ("queue_metrics_allocated_mb", "Allocated memory in MB", "usedResources", "used_mb", "used"),
    ("queue_metrics_allocated_v_cores", "Allocated CPU in virtual cores", "usedResources",
     "used_vcores", "used"),
    ("queue_metrics_allocated_containers", "# of allocated containers", "allocatedContainers",
     "allocated_containers", "allocated_containers"),
    ("queue_metrics_pending_containers", "# of pending containers", "pendingContainers",
     "pending_containers", "pending_containers"),
    ("queue_metrics_reserved_mb", "# of reserved memory in MB", "reservedResources",
     "reserved_mb", "reserved"),
    ("queue_metrics_reserved_v_cores", "Reserved CPU in virtual cores", "reservedResources",
     "reserved_vcores", "reserved"),
    ("queue_metrics_reserved_containers", "# of reserved containers", "reservedContainers",
     "reserved_containers", "reserved_containers"),
    ("queue_metrics_am_resource_usage_mb", "AM resource usage of memory in MB",
     "amUsedResources", "am_used_mb", "am_used"),
    ("queue_metrics_am_resource_usage_v_cores", "AM resource usage of CPU in vcores",
     "amUsedResources", "am_used_vcores", "am_used"),
    ("queue_metrics_max_am_share_mb", "Maximum AM share of memory in MB", "amMaxResources",
     "am_max_mb", "am_max"),
    ("queue_metrics_max_am_share_v_cores", "Maximum AM share of CPU in vcores",
     "amMaxResources", "am_max_vcores", "am_max"),
    ("queue_metrics_apps_running", "# of running apps", "numActiveApps (a parent: its "
     "leaves' sum)", "running_apps", None),
    ("queue_metrics_apps_pending", "# of pending apps", "numPendingApps (a parent: its "
     "leaves' sum)", "pending_apps", None),
    ("fairshare_queue_demand_mb", "Demand of memory in MB (not in Hadoop's metrics)",
     "demandResources", "demand_mb", "demand"),
    ("fairshare_queue_demand_vcores", "Demand of CPU in vcores (not in Hadoop's metrics)",
     "demandResources", "demand_vcores", "demand"),
)


@dataclass(frozen=True, slots=True)
class PollStats:
    """The poller's own health: the last poll's latency (s), errors since start, whether
    the last poll succeeded, and its error."""

    last_poll_seconds: float | None = None
    errors_total: int = 0
    up: bool = False
    last_error: str | None = None
    polls: int = 0
    last_ok_ms: int | None = None  # when the last good sample arrived
    last_error_ms: int | None = None


@dataclass(frozen=True, slots=True)
class LatestState:
    """What ``/metrics`` exports: the last good sample (None before the first), the
    watcher's facts per queue, its poll stats, and the configuration in force."""

    sample: Sample | None
    facts: Mapping[str, QueueFacts] = field(default_factory=dict)
    stats: PollStats = field(default_factory=PollStats)
    allocations: AllocationConfig = field(default_factory=AllocationConfig)
    site: SiteConfig = field(default_factory=SiteConfig.default)
    rm: str = ""  # the RM asked last (after HA redirects)
    notes: tuple[str, ...] = ()  # an RM restart, an allocation file that failed to reload

    def age_s(self, now_ms: int) -> float | None:
        """How old the last good sample is (s); None before the first."""
        return None if self.sample is None else max(0.0, (now_ms - self.sample.time_ms) / 1000)


class LiveCollector(Collector):
    """A custom collector: every scrape reads ``latest()`` and builds the families anew, so
    a queue that went away leaves no stale series behind."""

    def __init__(self, latest: Callable[[], LatestState],
                 clock: Callable[[], float] = time.time) -> None:
        self.latest, self.clock = latest, clock

    def collect(self) -> Iterator[Metric]:
        state = self.latest()
        yield from _health(state, self.clock())
        if state.sample is not None:
            yield from _queues(state.sample, state)
            yield from _cluster(state.sample, state.site)


def _health(state: LatestState, now_s: float) -> Iterator[Metric]:
    stats = state.stats
    up = GaugeMetricFamily("fairshare_watch_up", "1 if the last poll of the ResourceManager "
                           "succeeded")
    up.add_metric([], 1.0 if stats.up else 0.0)
    errors = CounterMetricFamily("fairshare_watch_poll_errors", "Polls that failed (the RM "
                                 "unreachable, an error status, an answer not understood)")
    errors.add_metric([], float(stats.errors_total))
    yield from (up, errors)
    if stats.last_poll_seconds is not None:
        poll = GaugeMetricFamily("fairshare_watch_poll_seconds", "How long the last poll of "
                                 "the ResourceManager took, in seconds")
        poll.add_metric([], stats.last_poll_seconds)
        yield poll
    if state.sample is not None:
        age = GaugeMetricFamily("fairshare_watch_last_sample_age_seconds", "Seconds since "
                                "the last good sample arrived")
        age.add_metric([], max(0.0, now_s - state.sample.time_ms / 1000))
        yield age


def _queues(sample: Sample, state: LatestState) -> Iterator[Metric]:
    families = {name: GaugeMetricFamily(name, f"{help_} (REST {rest})", labels=["queue"])
                for name, help_, rest, _, _ in QUEUE_GAUGES}
    max_apps = GaugeMetricFamily("queue_metrics_max_apps", "Maximum number of applications "
                                 "(REST maxApps)", labels=["queue"])
    custom = GaugeMetricFamily("fairshare_queue_resource", "A resource type beyond memory "
                               "and vcores (REST resourceInformations)",
                               labels=["queue", "field", "resource"])
    short = GaugeMetricFamily("fairshare_queue_seconds_short_of_threshold", "Seconds the "
                              "queue has been continuously below fairSharePreemptionThreshold "
                              "× its fair share (0: not now)", labels=["queue"])
    contention = GaugeMetricFamily("fairshare_queue_seconds_in_contention", "Seconds the "
                                   "queue has continuously had pending containers (0: not "
                                   "now)", labels=["queue"])
    configured = GaugeMetricFamily("fairshare_queue_starvation_configured", "1 if a "
                                   "fairSharePreemptionTimeout or minSharePreemptionTimeout "
                                   "applies to the queue (it can be starved)", labels=["queue"])
    threshold = GaugeMetricFamily("fairshare_queue_fair_share_preemption_threshold", "The "
                                  "effective fairSharePreemptionThreshold (-1: no allocation "
                                  "file, never fair-share starved)", labels=["queue"])
    settings = effective_settings(sample, state.allocations, state.site)
    for q in sample.queues():
        values = queue_values(q)
        for name, _, _, column, source in QUEUE_GAUGES:
            if source is None or getattr(q, source) is not None:
                families[name].add_metric([q.name], float(values[COLUMN[column]]))
        if q.max_apps is not None:
            max_apps.add_metric([q.name], float(q.max_apps))
        for key, resource, value in q.custom:
            custom.add_metric([q.name, key, resource], float(value))
        facts = state.facts.get(q.name, QueueFacts())
        short.add_metric([q.name], _since(sample, facts.short_since_ms))
        contention.add_metric([q.name], _since(sample, facts.contention_since_ms))
        own = settings[q.name]
        configured.add_metric([q.name], 1.0 if starvation_configured(own) else 0.0)
        threshold.add_metric([q.name], own.fair_share_preemption_threshold)
    yield from families.values()
    yield from (max_apps, custom, short, contention, configured, threshold)


def _since(sample: Sample, since_ms: int | None) -> float:
    return 0.0 if since_ms is None else max(0.0, (sample.time_ms - since_ms) / 1000)


# REST clusterMetrics fields Hadoop's ClusterMetrics record exports (NumActiveNMs, …)
_CLUSTER_NAMES = {"activeNodes": "cluster_metrics_num_active_n_ms",
                  "decommissionedNodes": "cluster_metrics_num_decommissioned_n_ms",
                  "decommissioningNodes": "cluster_metrics_num_decommissioning_n_ms",
                  "lostNodes": "cluster_metrics_num_lost_n_ms",
                  "rebootedNodes": "cluster_metrics_num_rebooted_n_ms",
                  "shutdownNodes": "cluster_metrics_num_shutdown_n_ms",
                  "unhealthyNodes": "cluster_metrics_num_unhealthy_n_ms"}


def _cluster(sample: Sample, site: SiteConfig) -> Iterator[Metric]:
    on = GaugeMetricFamily("fairshare_preemption_enabled", "1 if "
                           "yarn.scheduler.fair.preemption is true")
    on.add_metric([], 1.0 if site.preemption else 0.0)
    gated = GaugeMetricFamily("fairshare_preemption_gated", "1 if preemption is on but the "
                              "cluster is not busier than yarn.scheduler.fair.preemption."
                              "cluster-utilization-threshold: starvation is not evaluated")
    gated.add_metric([], 1.0 if preemption_gated(sample, site) else 0.0)
    yield from (on, gated)
    used = utilization(sample)
    if not math.isnan(used):
        ratio = GaugeMetricFamily("fairshare_cluster_utilization", "The larger of the "
                                  "allocated memory and vcore fractions of the cluster (the "
                                  "preemption gate's measure)")
        ratio.add_metric([], used)
        yield ratio
    for key, value in sorted(sample.metrics.items()):
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        name = _CLUSTER_NAMES.get(key) or "fairshare_cluster_" + _snake(key)
        family = GaugeMetricFamily(name, f"REST clusterMetrics.{key}")
        family.add_metric([], float(value))
        yield family


def _snake(name: str) -> str:
    """``appsSubmitted`` → ``apps_submitted``; ``totalMB`` → ``total_mb``."""
    out: list[str] = []
    for i, ch in enumerate(name):
        if ch.isupper() and i and (not name[i - 1].isupper() or
                                   (i + 1 < len(name) and name[i + 1].islower())):
            out.append("_")
        out.append(ch.lower())
    return "".join(out)


def registry_for(latest: Callable[[], LatestState],
                 clock: Callable[[], float] = time.time) -> CollectorRegistry:
    """A registry of its own holding one :class:`LiveCollector` (not the process-global
    one: two watchers in one process, or tests, do not collide)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(LiveCollector(latest, clock))
    return registry


def exposition(registry: CollectorRegistry) -> tuple[bytes, str]:
    """The text a scrape gets and its content type, for any server to answer with."""
    return generate_latest(registry), CONTENT_TYPE_LATEST


__all__ = ["QUEUE_GAUGES", "LatestState", "LiveCollector", "PollStats", "exposition",
           "registry_for"]

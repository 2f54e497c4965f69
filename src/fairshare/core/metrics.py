"""Queue metrics under YARN's own names
(docs/semantics.md §6.1: ``FSQueueMetrics`` + ``QueueMetrics``).

:func:`queue_metrics` reads the engine state and returns, per queue, what the ResourceManager
would publish over JMX for ``Hadoop:service=ResourceManager,name=QueueMetrics,q0=root,…``.
Parent queues aggregate their subtree, as YARN's parent metrics do. Gauges YARN only keeps for
the CapacityScheduler (``AggregateMemoryMBPreempted`` …) are reported as 0, as YARN reports them.
"""

from __future__ import annotations

from typing import Any

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.lifecycle.asks import pending_demand
from fairshare.core.model.records import App, AppState
from fairshare.resources.vector import INT_MAX, Resource, sum_resources

UNBOUNDED_VCORES = INT_MAX  # how an unbounded max share reads in MaxShareVCores


def apps_below(s: Scheduler, queue: str) -> tuple[list[App], list[App]]:
    """The runnable and the waiting (non-runnable) apps of every leaf in ``queue``'s subtree:
    together, its live apps (ended apps have left their leaf)."""
    leaves = [s.state.queues[n.name] for n in s.tree.depth_first(queue) if n.is_leaf]
    return ([a for leaf in leaves for a in leaf.runnable_apps],
            [a for leaf in leaves for a in leaf.non_runnable_apps])


def _mb_vcores(prefix: str, r: Resource) -> dict[str, int]:
    return {f"{prefix}MB": r.memory, f"{prefix}VCores": r.vcores_int}


def queue_metrics(s: Scheduler, queue: str, steady_fair_share: Resource) -> dict[str, Any]:
    """The metrics2 record of one queue: FS gauges first, then the inherited QueueMetrics.
    Steady shares are computed only when read (``EngineQueries.steady_fair_share``): the
    caller passes the queue's."""
    runtime, settings = s.state.queues[queue], s.settings(queue)
    runnable, waiting = apps_below(s, queue)
    live = runnable + waiting
    running = [a for a in live if a.runnable and a.state is AppState.RUNNING]
    pending = [a for a in live if not (a.runnable and a.state is AppState.RUNNING)]
    containers = sum(len(a.containers) for a in live)
    max_share = s.max_share(queue)
    metrics: dict[str, Any] = {
        **_mb_vcores("FairShare", runtime.fair_share),
        **_mb_vcores("SteadyFairShare", steady_fair_share),
        **_mb_vcores("MinShare", settings.min_share),
        "MaxShareMB": max_share.memory,
        "MaxShareVCores": max_share.vcores_int,
        "MaxApps": settings.max_running_apps,
        **_mb_vcores("MaxAMShare", runtime.max_am_share_metric),
        **_mb_vcores("AMResourceUsage", runtime.am_resource_usage),
        "SchedulingPolicy": settings.policy.yarn_name,
        "AppsSubmitted": runtime.apps_submitted,
        "AppsRunning": len(running),
        "AppsPending": len(pending),
        "AppsCompleted": runtime.apps_completed,
        "AppsKilled": runtime.apps_killed,
        "AppsFailed": 0,
        "AggregateNodeLocalContainersAllocated": runtime.node_local,
        "AggregateRackLocalContainersAllocated": runtime.rack_local,
        "AggregateOffSwitchContainersAllocated": runtime.off_switch,
        "AggregateContainersPreempted": runtime.containers_preempted,
        "AggregateMemoryMBSecondsPreempted": 0,
        "AggregateVcoreSecondsPreempted": 0,
        "AggregateMemoryMBPreempted": 0,
        "AggregateVcoresPreempted": 0,
        "ActiveUsers": len({a.user for a in running}),
        "ActiveApplications": len(running),
        **_mb_vcores("Allocated", runtime.usage),
        "AllocatedContainers": containers,
        "AggregateContainersAllocated": runtime.containers_allocated,
        "AggregateContainersReleased": runtime.containers_released,
        **_mb_vcores("Pending", sum_resources([pending_demand(a) for a in live], s.none)),
        "PendingContainers": sum(_pending_containers(a) for a in live),
        **_mb_vcores("Reserved", runtime.reserved),
        "ReservedContainers": runtime.reserved_containers,
    }
    if queue == "root":  # AvailableMB/VCores are only maintained on the root (§6.1)
        metrics.update(_mb_vcores("Available", s.root_available()))
    return metrics


def _pending_containers(app: App) -> int:
    return sum(table["*"].count for table in app.asks.values() if "*" in table)

"""``/info`` (``ClusterInfo``), ``/metrics`` (``ClusterMetricsInfo``) and ``/scheduler``
(``SchedulerTypeInfo`` around ``FairSchedulerInfo``) from a :class:`ServerSnapshot`; their
answers (``*_answer``) written once per snapshot and format (``jersey.ANSWERS``: they depend
on nothing else, and every dashboard polls them)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from fairshare.core import QueueSnapshot
from fairshare.resources.vector import Resource, componentwise_min, is_none
from fairshare.server.rest.jersey import ANSWERS, Obj, obj, written
from fairshare.server.rest.resource_info import mb_vcores, resource_info
from fairshare.server.view import RM_VERSION, ServerSnapshot

# NullRMStateStore: what an RM without yarn.resourcemanager.recovery.enabled runs with
STATE_STORE = "org.apache.hadoop.yarn.server.resourcemanager.recovery.NullRMStateStore"
BUILD = f"{RM_VERSION} from fairshare"  # the build strings name what answers, not a Hadoop build
# what ClusterInfo says without HA (EmbeddedElector absent)
NO_ELECTOR = "Could not find leader elector. Verify both HA and automatic failover are enabled."
NODE_STATES = ("NEW", "RUNNING", "UNHEALTHY", "DECOMMISSIONED", "LOST", "REBOOTED",
               "DECOMMISSIONING", "SHUTDOWN")  # org.apache.hadoop.yarn.api.records.NodeState


def info_answer(s: ServerSnapshot, xml: bool = False) -> bytes:
    return ANSWERS.get(s, ("info", xml), lambda: written(cluster_info(s), xml))


def metrics_answer(s: ServerSnapshot, xml: bool = False) -> bytes:
    return ANSWERS.get(s, ("metrics", xml), lambda: written(cluster_metrics(s), xml))


def scheduler_answer(s: ServerSnapshot, xml: bool = False) -> bytes:
    return ANSWERS.get(s, ("scheduler", xml), lambda: written(scheduler(s), xml))


def cluster_info(s: ServerSnapshot) -> Obj:
    """``ClusterInfo``: ``id`` = ``startedOn`` = the cluster timestamp, in every app id."""
    return obj(("clusterInfo", obj(
        ("id", s.cluster_timestamp),
        ("startedOn", s.cluster_timestamp),
        ("state", "STARTED"),
        ("haState", s.ha_state),
        ("rmStateStoreName", STATE_STORE),
        ("resourceManagerVersion", RM_VERSION),
        ("resourceManagerBuildVersion", BUILD),
        ("resourceManagerVersionBuiltOn", ""),
        ("hadoopVersion", RM_VERSION),
        ("hadoopBuildVersion", BUILD),
        ("hadoopVersionBuiltOn", ""),
        ("haZooKeeperConnectionState", NO_ELECTOR),
    )))


def _metric(m: Mapping[str, Any], name: str) -> int:
    value = m.get(name, 0)
    return int(value) if isinstance(value, (int, float)) else 0


def cluster_metrics(s: ServerSnapshot) -> Obj:
    """``ClusterMetricsInfo(ResourceScheduler)``: apps and containers are the root queue's
    QueueMetrics; ``totalMB`` = available + allocated (the non-CapacityScheduler branch,
    reservations not added); node counts by ``RMNodeImpl`` state (``ClusterMetrics``).
    Utilisation is what NodeManagers measure: none here, so 0 (``utilizedMB`` is 0 in
    3.4.2 whatever the nodes report — the constructor never sets it)."""
    m = s.queue_metrics.get("root", {})
    states = Counter(n.state for n in s.nodes)
    allocated_mb, available_mb = _metric(m, "AllocatedMB"), _metric(m, "AvailableMB")
    allocated_vc, available_vc = _metric(m, "AllocatedVCores"), _metric(m, "AvailableVCores")
    return obj(("clusterMetrics", obj(
        ("appsSubmitted", _metric(m, "AppsSubmitted")),
        ("appsCompleted", _metric(m, "AppsCompleted")),
        ("appsPending", _metric(m, "AppsPending")),
        ("appsRunning", _metric(m, "AppsRunning")),
        ("appsFailed", _metric(m, "AppsFailed")),
        ("appsKilled", _metric(m, "AppsKilled")),
        ("reservedMB", _metric(m, "ReservedMB")),
        ("availableMB", available_mb),
        ("allocatedMB", allocated_mb),
        ("pendingMB", _metric(m, "PendingMB")),
        ("reservedVirtualCores", _metric(m, "ReservedVCores")),
        ("availableVirtualCores", available_vc),
        ("allocatedVirtualCores", allocated_vc),
        ("pendingVirtualCores", _metric(m, "PendingVCores")),
        ("containersAllocated", _metric(m, "AllocatedContainers")),
        ("containersReserved", _metric(m, "ReservedContainers")),
        ("containersPending", _metric(m, "PendingContainers")),
        ("totalMB", available_mb + allocated_mb),
        ("utilizedMB", 0),
        ("totalVirtualCores", available_vc + allocated_vc),
        ("utilizedVirtualCores", 0),
        ("utilizedMBPercent", 0),
        ("utilizedVirtualCoresPercent", 0),
        ("rmSchedulerBusyPercent", -1),  # the RM event-processor monitor is off by default
        ("totalNodes", sum(states[state] for state in NODE_STATES)),
        ("lostNodes", states["LOST"]),
        ("unhealthyNodes", states["UNHEALTHY"]),
        ("decommissioningNodes", states["DECOMMISSIONING"]),
        ("decommissionedNodes", states["DECOMMISSIONED"]),
        ("rebootedNodes", states["REBOOTED"]),
        ("activeNodes", states["RUNNING"]),
        ("shutdownNodes", states["SHUTDOWN"]),
        ("containerAssignedPerSecond", 0),
        ("totalAllocatedContainersAcrossPartition", 0),
        ("crossPartitionMetricsAvailable", False),
        ("rmEventQueueSize", 0),
        ("schedulerEventQueueSize", 0),
    )))


def scheduler(s: ServerSnapshot) -> Obj:
    """``{"scheduler":{"schedulerInfo":{"type":"fairScheduler","rootQueue":…}}}``: only
    ``rootQueue`` is a field of ``FairSchedulerInfo`` (``TestRMWebServicesFairScheduler``
    checks it has two elements with the type)."""
    children: dict[str, list[QueueSnapshot]] = {}
    for q in s.engine.queues:
        if q.name != "root":
            children.setdefault(q.name.rpartition(".")[0], []).append(q)
    root = s.engine.queue("root")
    return obj(("scheduler", obj(
        ("schedulerInfo", obj(("rootQueue", _queue(s, root, children)),
                              xsi_type="fairScheduler")))))


def max_container_allocation(s: ServerSnapshot, queue: str) -> Resource:
    """``FairScheduler.getMaximumResourceCapability(queue)``: the scheduler's maximum
    allocation, capped per type by the queue's ``maxContainerAllocation``."""
    settings = s.settings.get(queue)
    cap = settings.max_container_allocation if settings is not None else None
    return s.max_allocation if cap is None else componentwise_min(s.max_allocation, cap)


def _queue(s: ServerSnapshot, q: QueueSnapshot, children: Mapping[str, list[QueueSnapshot]]
           ) -> Obj:
    """``FairSchedulerQueueInfo``'s 19 fields (``FairSchedulerLeafQueueInfo`` adds two)."""
    types, cluster = s.types, s.engine.capacity
    settings, m = s.settings[q.name], s.queue_metrics.get(q.name, {})

    def info(r: Resource) -> Obj:
        return resource_info(types, r)

    # an unset minResources is the one ResourceUtils built with the scheduler's allocation
    # bounds in every ResourceInformation (captured; a configured one, even 0, is not)
    minimum = (resource_info(types, q.min_share, minimum=s.min_allocation,
                             maximum=s.max_allocation)
               if is_none(q.min_share) else info(q.min_share))
    none = types.none()
    am_used = q.am_usage if q.leaf else none
    am_max = q.am_limit_metric  # FSQueueMetrics.getMaxAMShare: custom types too (parents: 0)
    reserved = mb_vcores(types, _metric(m, "ReservedMB"), _metric(m, "ReservedVCores"))
    fields: list[tuple[str, Any]] = [
        ("maxApps", settings.max_running_apps),
        ("minResources", minimum),
        ("maxResources", info(componentwise_min(q.max_share, cluster))),
        ("usedResources", info(q.usage)),
        ("amUsedResources", info(am_used)),
        ("amMaxResources", info(am_max)),
        ("demandResources", info(q.demand)),
        ("steadyFairResources", info(q.steady_fair_share)),
        ("fairResources", info(q.fair_share)),
        ("clusterResources", info(cluster)),
        ("reservedResources", info(reserved)),
        ("maxContainerAllocation", info(max_container_allocation(s, q.name))),
        ("pendingContainers", _metric(m, "PendingContainers")),
        ("allocatedContainers", _metric(m, "AllocatedContainers")),
        ("reservedContainers", _metric(m, "ReservedContainers")),
        ("queueName", q.name),
        ("schedulingPolicy", settings.policy.yarn_name),
        ("preemptable", settings.preemptable),
    ]
    if q.leaf:
        # FSLeafQueue.getNumPendingApps counts the apps over a max-running-apps limit and the
        # runnable ones whose AppSchedulingInfo is still pending (no container allocated to
        # the attempt yet); getNumActiveApps the other runnable ones: for a leaf, its
        # QueueMetrics' AppsPending and AppsRunning
        fields += [("numPendingApps", _metric(m, "AppsPending")),
                   ("numActiveApps", _metric(m, "AppsRunning"))]
        return obj(*fields, xsi_type="fairSchedulerLeafQueueInfo")
    kids = [_queue(s, c, children) for c in children.get(q.name, [])]
    fields.append(("childQueues", obj(("queue", kids)) if kids else None))
    return obj(*fields)

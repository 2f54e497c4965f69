"""The Scheduler page's numbers, as ``/api/scheduler`` serves them: per queue and per resource
type (memory, vcores, and every other type the RM reports) the steady and instantaneous fair
share, usage, max and demand; the apps with what they hold, ask for and lost; the nodes.

The numbers are the RM's own, unchanged (``FairSchedulerQueueInfo``, ``AppInfo``, ``NodeInfo``
as :mod:`fairshare.sim.importer.dump` read them). The RM's page draws memory only
(``FairSchedulerQueueInfo.getUsedMemoryFraction`` and its twins); this one draws each type.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict
from typing import Any

from fairshare.sim.importer.dump import Amounts, DumpApp, DumpNode, DumpQueue
from fairshare.web.pages.layout import age_text
from fairshare.web.pages.source import LatestSample, ShownSettings
from fairshare.web.sample import COLUMN, Sample, queue_values

MEMORY, VCORES = "memory-mb", "vcores"
# the bar's parts: (key, the DumpQueue field, the resource object of FairSchedulerQueueInfo)
PARTS = (("steady", "steady_fair", "steadyFairResources"),
         ("instantaneous", "fair", "fairResources"), ("used", "used", "usedResources"),
         ("max", "max_resources", "maxResources"), ("demand", "demand", "demandResources"))


def resource_types(sample: Sample) -> list[str]:
    """memory-mb, vcores, then the other types in the order the answer first names them."""
    found = [MEMORY, VCORES]
    for q in sample.queues():
        for _field, name, _value in q.custom:
            if name not in found:
                found.append(name)
    return found


def cluster_of(sample: Sample, types: list[str]) -> dict[str, int | None]:
    """The cluster's amount of each type: root's ``clusterResources``."""
    total: dict[str, int | None] = dict.fromkeys(types)
    if sample.cluster is not None:
        total[MEMORY], total[VCORES] = sample.cluster
    for field, name, value in sample.root.custom:
        if field == "clusterResources":
            total[name] = value
    return total


def queue_resources(q: DumpQueue, types: list[str]) -> dict[str, dict[str, int | None]]:
    """Per type, the bar's parts (None: the answer did not carry it)."""
    out: dict[str, dict[str, int | None]] = {t: {} for t in types}
    for key, attr, _field in PARTS:
        amounts: Amounts | None = getattr(q, attr)
        out[MEMORY][key] = None if amounts is None else amounts[0]
        out[VCORES][key] = None if amounts is None else amounts[1]
    custom = {(field, name): value for field, name, value in q.custom}
    for t in types[2:]:
        for key, _attr, field in PARTS:
            out[t][key] = custom.get((field, t))
    return out


def has_share_of(q: DumpQueue, parent_policy: str | None, resource: str) -> bool:
    """Whether the queue's fair shares count this type at all: its parent's policy computes
    them (``FSParentQueue.recomputeShares``); ``fair`` and ``fifo`` compute memory only and
    leave the rest 0 (docs/semantics.md §2.6.1, as ``RunSummary.has_vcore_share`` says for a
    run) — so usage of another type is over nothing. Root holds the whole cluster."""
    if resource == MEMORY or parent_policy is None:
        return True
    return parent_policy.lower() == "drf"


def over_share(parts: Mapping[str, int | None], counted: bool) -> bool:
    """YARN's orange: used above the instantaneous fair share (FairSchedulerPage's
    ``Q_OVER``), where the share counts this type."""
    used, share = parts.get("used"), parts.get("instantaneous")
    return counted and used is not None and share is not None and used > share


def queue_entries(sample: Sample, types: list[str],
                  settings: Mapping[str, ShownSettings] | None) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    policy_of = {q.name: q.policy for q in sample.queues()}
    for q in sample.queues():
        parent = q.name.rsplit(".", 1)[0] if "." in q.name else None
        parent_policy = policy_of.get(parent) if parent else None
        resources = queue_resources(q, types)
        over = {t: over_share(resources[t], has_share_of(q, parent_policy, t)) for t in types}
        counted = {t: has_share_of(q, parent_policy, t) for t in types}
        s = None if settings is None else settings.get(q.name)
        values = queue_values(q)
        entries.append({
            "name": q.name, "leaf": q.leaf, "parent": parent, "policy": q.policy,
            "resources": resources, "over_instantaneous_share": over, "share_counts": counted,
            "min": None if q.min_resources is None else list(q.min_resources),
            "pending_containers": q.pending_containers,
            "allocated_containers": q.allocated_containers,
            "reserved_containers": q.reserved_containers,
            # numActiveApps and numPendingApps; on a parent its leaves' sums (queue_values)
            "running_apps": values[COLUMN["running_apps"]],
            "pending_apps": values[COLUMN["pending_apps"]],
            "max_apps": q.max_apps, "preemptable": q.preemptable,
            "settings": None if s is None else asdict(s)})
    return entries


def pending_of(app: DumpApp) -> dict[str, int] | None:
    """The app's outstanding ANY asks (None: the answer carried no ``resourceRequests``)."""
    if app.asks is None:
        return None
    return {"containers": sum(a.count for a in app.asks),
            "memory_mb": sum(a.count * a.size[0] for a in app.asks),
            "vcores": sum(a.count * a.size[1] for a in app.asks)}


def app_entry(app: DumpApp) -> dict[str, Any]:
    return {
        "id": app.id, "user": app.user, "name": app.name, "queue": app.queue,
        "state": app.state, "final_status": app.final_status, "started_ms": app.started_ms,
        "launched_ms": app.launched_ms, "finished_ms": app.finished_ms,
        "running_containers": app.running_containers,
        "allocated": {"memory_mb": app.allocated[0], "vcores": app.allocated[1]},
        "pending": pending_of(app),
        "preempted": {"containers": app.preempted, "am_containers": app.am_preempted,
                      "memory_mb": app.preempted_resources[0],
                      "vcores": app.preempted_resources[1]}}


def node_entry(node: DumpNode, held: bool = True) -> dict[str, Any]:
    """A node as ``NodeInfo`` says it (available: capacity − used, ``availMemoryMB`` and
    ``availableVirtualCores`` when the answer had no ``totalResource``); ``held``: whether
    the scheduler holds it (RUNNING, DECOMMISSIONING, NEW)."""
    return {"id": node.id, "host": node.name, "http": node.http, "rack": node.rack,
            "state": node.state, "held": held, "containers": node.containers,
            "capacity": {"memory_mb": node.capacity[0], "vcores": node.capacity[1]},
            "used": {"memory_mb": node.used[0], "vcores": node.used[1]},
            "available": {"memory_mb": max(node.capacity[0] - node.used[0], 0),
                          "vcores": max(node.capacity[1] - node.used[1], 0)},
            "last_health_update_ms": node.last_health_update_ms or None,
            "health_report": node.health_report}


def status_data(latest: LatestSample) -> dict[str, Any]:
    """What every live answer carries about the poller: which RM, which sample, how old, the
    last error (also for the page's live status line: ``age_text``)."""
    s = latest.sample
    return {"rm": latest.rm_url, "age_s": latest.age_s,
            "age_text": age_text(latest),
            "error": latest.error, "time_ms": None if s is None else s.time_ms,
            "cluster_id": None if s is None else s.cluster_id,
            "rm_version": None if s is None else s.rm_version}


def scheduler_data(latest: LatestSample,
                   settings: Mapping[str, ShownSettings] | None) -> dict[str, Any]:
    """``/api/scheduler``: the status, and the latest sample's queues, apps and nodes."""
    data = status_data(latest)
    s = latest.sample
    if s is None:
        return {**data, "resource_types": [], "cluster": {}, "queues": [], "apps": [],
                "nodes": [], "skipped_nodes": []}
    types = resource_types(s)
    return {**data, "resource_types": types, "cluster": cluster_of(s, types),
            "queues": queue_entries(s, types, settings),
            "apps": [app_entry(a) for a in s.apps], "nodes": [node_entry(n) for n in s.nodes],
            "skipped_nodes": list(s.skipped_nodes)}

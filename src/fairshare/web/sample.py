"""One sample of a ResourceManager: what its REST API served at one moment, read once.

A sample is the four answers ``fairshare watch`` asks for on every poll
(``/ws/v1/cluster/info``, ``/scheduler``, ``/apps``, ``/nodes``; ``/metrics`` too), read by the
same reader as ``fairshare import`` (:mod:`fairshare.sim.importer.dump`: one reader of the
RM's JSON, its errors naming the endpoint, the field and the line). The history database
stores a sample as rows (:func:`queue_rows`: one per queue, the :data:`QUEUE_COLUMNS`), the
pages draw it, and ``/metrics`` exports it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field

from fairshare.sim.importer.dump import Amounts, DumpApp, DumpNode, DumpQueue

# What a queue's row holds, in the order of :func:`queue_rows`' values: the numbers of
# FairSchedulerQueueInfo (docs/watch.md "What is stored"). ``running_apps`` is numActiveApps
# and ``pending_apps`` numPendingApps (non-runnable) — on a parent, the sum of its leaves'.
QUEUE_COLUMNS = (
    "steady_fair_share_mb", "steady_fair_share_vcores",
    "fair_share_mb", "fair_share_vcores",
    "min_share_mb", "min_share_vcores",
    "max_share_mb", "max_share_vcores",
    "used_mb", "used_vcores",
    "demand_mb", "demand_vcores",
    "reserved_mb", "reserved_vcores",
    "am_used_mb", "am_used_vcores",
    "am_max_mb", "am_max_vcores",
    "pending_containers", "allocated_containers", "reserved_containers",
    "running_apps", "pending_apps",
)
COLUMN = {name: i for i, name in enumerate(QUEUE_COLUMNS)}
_ZERO: Amounts = (0, 0)


@dataclass(frozen=True, slots=True)
class Sample:
    """What one poll saw. ``time_ms`` is the watcher's clock (Unix ms) when the last answer
    arrived; ``cluster_id`` the RM's ``clusterInfo.id`` (its start time: a new value means the
    RM restarted, and every count it keeps started again)."""

    time_ms: int
    rm: str  # the base URL that answered (after HA redirects)
    cluster_id: int
    rm_version: str
    root: DumpQueue
    cluster: Amounts | None  # the root queue's clusterResources
    nodes: tuple[DumpNode, ...]
    apps: tuple[DumpApp, ...]
    other_nodes: tuple[DumpNode, ...] = ()  # nodes the scheduler does not hold (LOST, …)
    metrics: Mapping[str, int | float] = field(default_factory=dict)  # clusterMetrics
    # whether ``apps`` and ``nodes`` were asked for at this poll, or carried over from an
    # earlier one (``watch --apps-interval``/``--nodes-interval``: they cost most at scale)
    apps_fresh: bool = True
    nodes_fresh: bool = True

    @property
    def skipped_nodes(self) -> tuple[str, ...]:
        """The nodes the scheduler does not hold, as ``host (STATE)``."""
        return tuple(f"{n.name} ({n.state})" for n in self.other_nodes)

    def queues(self) -> Iterator[DumpQueue]:
        """Every queue, depth-first from root, children in the RM's order."""
        stack = [self.root]
        while stack:
            queue = stack.pop()
            yield queue
            stack.extend(reversed(queue.children))


def queue_values(q: DumpQueue) -> tuple[int, ...]:
    """A queue's :data:`QUEUE_COLUMNS`; what the answer left out counts as 0 (Hadoop 2 has no
    AM or demand fields; an unset max share is reported as the cluster)."""
    def pair(amounts: Amounts | None) -> Amounts:
        return amounts or _ZERO

    apps = _apps(q)
    return (*pair(q.steady_fair), *pair(q.fair), *pair(q.min_resources),
            *pair(q.max_resources), *q.used, *pair(q.demand), *pair(q.reserved),
            *pair(q.am_used), *pair(q.am_max), q.pending_containers or 0,
            q.allocated_containers or 0, q.reserved_containers or 0, *apps)


def _apps(q: DumpQueue) -> tuple[int, int]:
    if not q.children:
        return q.active_apps or 0, q.pending_apps or 0
    running = pending = 0
    for child in q.children:
        r, p = _apps(child)
        running, pending = running + r, pending + p
    return running, pending


def queue_rows(sample: Sample) -> tuple[list[str], list[tuple[int, ...]]]:
    """The sample's queues (depth-first) and their values."""
    names, rows = [], []
    for q in sample.queues():
        names.append(q.name)
        rows.append(queue_values(q))
    return names, rows

"""The writers of the queues' runtime records: the tree's queues, their usage, reservations,
demand, shares and ``QueueMetrics`` counters, and the root's available gauge.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Final, assert_never

from fairshare.core.hub.state.base import Records, WriterBase
from fairshare.core.model.changes import Change
from fairshare.core.model.records import QueueRuntime
from fairshare.core.model.tree import QueueTree
from fairshare.resources.vector import Resource, add


class QueueCounter(Enum):
    """The ``QueueMetrics`` counters counted by :meth:`QueueWriter.count`: those of apps and of
    preemption. A container's allocation and release, on the hottest paths, are counted by
    ``allocate`` and ``free_container`` in their own walks up the tree."""

    APPS_SUBMITTED = "AppsSubmitted"
    APPS_COMPLETED = "AppsCompleted"
    APPS_KILLED = "AppsKilled"
    CONTAINERS_PREEMPTED = "AggregateContainersPreempted"


_SUBMITTED: Final = QueueCounter.APPS_SUBMITTED
_COMPLETED: Final = QueueCounter.APPS_COMPLETED
_KILLED: Final = QueueCounter.APPS_KILLED
_PREEMPTED: Final = QueueCounter.CONTAINERS_PREEMPTED


class QueueWriter(WriterBase):
    def sync_queues(self, tree: QueueTree, now: int) -> None:  # new queues start at the clock
        queues, none = self.state.queues, self.state.none
        for node in tree:
            if node.name not in queues:
                queues[node.name] = QueueRuntime(node.name, none, last_time_at_min_share=now)
        for name in [n for n in queues if n not in tree]:
            del queues[name]
        self.log.tree()

    def add_usage(self, queue: str, amount: Resource) -> None:
        queues, log = self.state.queues, self.log
        for name in self._context.ancestry(queue):
            q = queues[name]
            q.usage = add(q.usage, amount)
            log.queue(name)

    def change_reserved(self, queue: str, delta: Resource, count: int) -> None:
        for name in self._context.ancestry(queue):
            q = self.state.queues[name]
            q.reserved = add(q.reserved, delta)
            q.reserved_containers += count
        self.state.reserved = add(self.state.reserved, delta)

    def count(self, queue: str, counter: QueueCounter) -> None:
        """One more of ``counter`` in ``queue`` and each of its ancestors (``QueueMetrics``
        counts in every parent's metrics too)."""
        queues, ancestry = self.state.queues, self._context.ancestry(queue)
        # one typed field per counter, so that the syntax check of the writes sees each; the
        # members are compared through module names (an Enum class attribute costs ~0.2 µs)
        if counter is _PREEMPTED:
            for name in ancestry:
                queues[name].containers_preempted += 1
        elif counter is _SUBMITTED:
            for name in ancestry:
                queues[name].apps_submitted += 1
        elif counter is _COMPLETED:
            for name in ancestry:
                queues[name].apps_completed += 1
        elif counter is _KILLED:
            for name in ancestry:
                queues[name].apps_killed += 1
        else:  # pragma: no cover - mypy checks that every member is handled
            assert_never(counter)

    def set_max_am_share_metric(self, leaf: str, limit: Resource) -> None:
        self.state.queues[leaf].max_am_share_metric = limit

    def set_queue_demand(self, name: str, demand: Resource) -> None:
        self.state.queues[name].demand = demand
        self.log.queue(name)

    def set_queue_fair_share(self, name: str, share: Resource, is_leaf: bool) -> None:
        self.state.queues[name].fair_share = share
        if is_leaf:
            self.log.am_limit(name)  # a leaf's AM limit reads its fair share

    def set_steady_fair_shares(self, shares: Mapping[str, Resource]) -> None:
        for name, share in shares.items():
            self.state.queues[name].steady_fair_share = share

    def update_root_queue_metrics(self) -> None:
        """``FairScheduler.updateRootQueueMetrics`` (see ``Scheduler.root_available``)."""
        available = self.state.capacity - self.state.allocated
        if available != self.state.root_available:
            self.state.root_available = available


RECORDS: Records = {
    QueueWriter.sync_queues: (Change.TREE,),
    QueueWriter.add_usage: (Change.QUEUE,),
    QueueWriter.change_reserved: (),
    QueueWriter.count: (),
    QueueWriter.set_max_am_share_metric: (),
    QueueWriter.set_queue_demand: (Change.QUEUE,),
    QueueWriter.set_queue_fair_share: (Change.AM_LIMIT,),  # a leaf's
    QueueWriter.set_steady_fair_shares: (),
    QueueWriter.update_root_queue_metrics: (),
}

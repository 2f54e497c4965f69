"""The writers of preemption: containers marked for preemption and the resources earmarked
for the starved app, the preempted counts, and the timers of the kills to come
(docs/semantics.md §5.6, §5.7; the § numbers here are its sections).
"""

from __future__ import annotations

import heapq

from fairshare.core.hub.state.base import Records
from fairshare.core.hub.state.queues import QueueCounter, QueueWriter
from fairshare.core.model.records import App, AttemptKey, Container, KillTimer, Node


class PreemptionWriter(QueueWriter):
    def mark_for_preemption(self, node: Node, owner: App, container: Container,
                            beneficiary: AttemptKey) -> None:
        """§5.6: marked on its node and app, its resource earmarked for ``beneficiary``."""
        node.marked_for_preemption[container.id] = container
        resource = container.resource
        node.earmarks[beneficiary] = node.earmarks.get(beneficiary, self.state.none) + resource
        node.earmarked_total += resource
        owner.to_be_preempted[container.id] = container
        owner.resources_to_be_preempted += resource

    def drop_earmark(self, node: Node, attempt: AttemptKey) -> None:
        node.earmarked_total -= node.earmarks.pop(attempt)

    def count_preempted(self, owner: App, container: Container) -> None:
        owner.preempted_resource += container.resource
        owner.preempted_containers += 1  # AM containers included; also counted below
        if container.is_am:
            owner.preempted_am_containers += 1
        self.count(owner.queue, QueueCounter.CONTAINERS_PREEMPTED)

    def add_kill_timer(self, due: int, seq: int, timer: KillTimer) -> None:
        heapq.heappush(self.state.kill_timers, (due, seq, timer))

    def pop_kill_timer(self) -> tuple[int, int, KillTimer]:
        return heapq.heappop(self.state.kill_timers)


RECORDS: Records = {
    PreemptionWriter.mark_for_preemption: (),
    PreemptionWriter.drop_earmark: (),
    PreemptionWriter.count_preempted: (),
    PreemptionWriter.add_kill_timer: (),
    PreemptionWriter.pop_kill_timer: (),
}

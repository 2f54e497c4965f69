"""The writers of the nodes: registration, removal, resizing (each changes the cluster's
capacity), graceful decommission and the apps that ran on a node.
"""

from __future__ import annotations

from fairshare.core.hub.state.base import Records
from fairshare.core.hub.state.queues import QueueWriter
from fairshare.core.model.changes import Change
from fairshare.core.model.records import Node
from fairshare.resources.vector import Resource, add, subtract


class NodeWriter(QueueWriter):
    def add_node(self, node: Node) -> None:
        self.state.nodes[node.name] = node
        self._cluster_is(add(self.state.capacity, node.capacity))

    def remove_node(self, node: Node) -> None:
        del self.state.nodes[node.name]
        self._cluster_is(subtract(self.state.capacity, node.capacity))

    def resize_node(self, node: Node, capacity: Resource) -> None:
        cluster = add(subtract(self.state.capacity, node.capacity), capacity)
        node.capacity = capacity
        self._cluster_is(cluster)

    def _cluster_is(self, capacity: Resource) -> None:
        self.state.capacity = capacity
        self.update_root_queue_metrics()
        self.log.cluster()

    def start_decommission(self, node: Node, deadline: int | None) -> None:
        node.decommissioning, node.decommission_deadline = True, deadline
        self.log.node(node.name)

    def start_epoch(self, epoch: int, scheduling_wait_until: int | None) -> None:
        """The ResourceManager restarted on its state store (``ResourceManager.
        serviceStart``): its epoch, and when heartbeats may allocate again."""
        self.state.rm_epoch = epoch
        self.state.scheduling_wait_until = scheduling_wait_until

    def end_scheduling_wait(self) -> None:
        self.state.scheduling_wait_until = None

    def note_app_ran(self, node: Node, app_id: str) -> None:
        """``app_id`` ran a container on ``node`` (``RMNodeImpl.runningApplications``); apps
        that ended are dropped whenever the record doubles."""
        ran = node.apps_ran
        ran[app_id] = None
        if len(ran) > node.apps_ran_limit:
            apps = self.state.apps
            for gone in [a for a in ran if a not in apps or apps[a].stopped]:
                del ran[gone]
            node.apps_ran_limit = max(16, 2 * len(ran))


RECORDS: Records = {
    NodeWriter.add_node: (Change.CLUSTER,),
    NodeWriter.remove_node: (Change.CLUSTER,),
    NodeWriter.resize_node: (Change.CLUSTER,),
    NodeWriter.start_decommission: (Change.NODE,),
    NodeWriter.start_epoch: (),
    NodeWriter.end_scheduling_wait: (),
    NodeWriter.note_app_ran: (),
}

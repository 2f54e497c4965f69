"""Graceful decommission of a node: what YARN's ``DECOMMISSIONING`` state reads and keeps.

``yarn rmadmin -refreshNodes -g TIMEOUT`` puts a node in ``DECOMMISSIONING`` (RMNodeImpl,
YARN-914). On each of the node's heartbeats the scheduler sets the node's total resource to
what its containers use (``AbstractYarnScheduler.nodeUpdate``, YARN-3223), so nothing new is
placed there and the cluster shrinks as its containers finish. The node leaves — becomes
``DECOMMISSIONED`` and is removed from the scheduler — at the first heartbeat at which no
container runs on it and every application that ran a container there has finished
(``RMNodeImpl.runningApplications``: an app's shuffle data stays served until it ends), or
when its timeout passes (``DecommissioningNodesWatcher``), its remaining containers then being
lost as with any removed node. The engine's calls are in :mod:`fairshare.core.engine`.
"""

from __future__ import annotations

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.records import Node

# yarn.resourcemanager.nodemanager-graceful-decommission-timeout-secs, YARN's default
DEFAULT_TIMEOUT_MS = 3_600_000


def drained(s: Scheduler, node: Node) -> bool:
    """Can the decommissioning ``node`` leave: no container on it, and no app that ran one
    there still running (``StatusUpdateWhenHealthyTransition``)?"""
    if node.containers:
        return False
    apps = s.state.apps
    return all(a not in apps or apps[a].stopped for a in node.apps_ran)


__all__ = ["DEFAULT_TIMEOUT_MS", "drained"]

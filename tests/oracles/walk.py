"""The tree walk that sorts every level: the reference for ``core.assignment.walk``.

``FSParentQueue.assignContainer`` sorts its children with the policy's comparator on every
call and tries them in turn; ``FSLeafQueue.assignContainer`` sorts its runnable apps with pending
demand likewise. The engine walks the sorted lists of its order index instead and passes over
what can only fail on the node; its decisions must be these
(``tests/core/heartbeat/test_order_index.py``, ``tests/core/test_engine_properties.py``).
"""

from __future__ import annotations

from fairshare.core.engine import Engine
from fairshare.core.heartbeat.assignment import Assigned, assign_to_app, pre_check
from fairshare.core.heartbeat.offers import comparator_order_apps, comparator_order_children
from fairshare.core.hub.scheduler import ROOT, Scheduler
from fairshare.core.model.records import Node


def reference_walk(s: Scheduler, node: Node) -> Assigned | None:
    """One walk from the root, sorting at every level."""
    return _assign_from_queue(s, ROOT, node)


def use_reference_walk(engine: Engine) -> Engine:
    """Give ``engine`` the reference tree walk for its heartbeats."""
    engine._steps.tree_walk = reference_walk
    return engine


def _assign_from_queue(s: Scheduler, queue: str, node: Node) -> Assigned | None:
    if not pre_check(s, queue, node):
        return None
    if s.tree[queue].is_leaf:
        for app in comparator_order_apps(s, queue):
            result = assign_to_app(s, app, node, via="heartbeat")
            if result is not None:
                return result
        return None
    for child in comparator_order_children(s, queue):
        result = _assign_from_queue(s, child, node)
        if result is not None:
            return result
    return None

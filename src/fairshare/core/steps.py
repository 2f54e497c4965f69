"""The engine's steps that keep caches, held apart from its public face.

:class:`EngineSteps` holds the steps with a reference implementation in ``tests/oracles/``: the
tree walk (and its order index), the update pass and the preemption round's planner. Each owns
its caches, which follow the state through the change log. An engine keeps them as
``Engine._steps``, a seam for reference checks only: tests and benchmarks put the reference
step there to compare decisions; nothing else reads or replaces them.

:class:`SteadyShares` keeps the steady fair shares (docs/semantics.md §2.4) up to date: the
engine's commands that change the tree or the cluster refresh them, so its queries only read.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from fairshare.core.heartbeat.order_index import OrderIndex
from fairshare.core.heartbeat.walk import IndexedWalk, TreeWalk
from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.changes import ChangeLog
from fairshare.core.preemption.round import RoundPlanner, SearchPlanner
from fairshare.core.preemption.search import SearchMemory
from fairshare.core.shares.fair_shares import compute_steady_fair_shares
from fairshare.core.update import IncrementalUpdate


@dataclass
class EngineSteps:
    """The steps an engine runs, replaceable by their references (``tests/oracles/``)."""

    order_index: OrderIndex  # the indexed walk's; the quiet-heartbeat tracker reads it too
    tree_walk: TreeWalk
    round_planner: Callable[[Scheduler], RoundPlanner]
    update_pass: IncrementalUpdate

    @classmethod
    def own(cls, log: ChangeLog) -> EngineSteps:
        """The engine's own steps, each following the state through ``log``."""
        walk = IndexedWalk(log)
        return cls(walk.order, walk,
                   functools.partial(SearchPlanner, memory=SearchMemory(log)),
                   IncrementalUpdate(log))


class SteadyShares:
    """Steady shares change with the cluster and the configuration only (docs/semantics.md
    §2.4). YARN recomputes them on every node and queue change; nothing in scheduling reads
    them. A command that may change the tree or the cluster calls :meth:`refresh`, which
    recomputes them if either changed (~4 ms for 1,000 leaves: the engine's ``add_nodes``
    registers thousands of nodes with one computation)."""

    def __init__(self, log: ChangeLog) -> None:
        self._changes = log.reader(apps=False, queues=False)

    def refresh(self, s: Scheduler) -> None:
        changes = self._changes
        if changes.tree or changes.cluster:
            s.write.set_steady_fair_shares(compute_steady_fair_shares(s.tree, s.state.capacity))
            changes.clear()

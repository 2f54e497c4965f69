"""The update pass (``FairScheduler.update()``), incrementally: demand, instantaneous fair
shares, then starvation, with work only where an input changed since the previous pass.

A pass that recomputed everything would redo each app's demand, every fair share of the tree
and every leaf's starvation. Between two passes (500 ms) a few apps change; so
:class:`IncrementalUpdate` remembers what each step last computed from which inputs and
redoes a step for a queue or an app only when those inputs may differ:

* *What changed* comes from the state's change log (:mod:`fairshare.core.model.changes`): the
  apps whose usage, asks, admission or reservations were written, and those that joined or
  left a leaf's lists, each under the leaf it was in when written. A new queue tree is
  compared queue by queue (settings, children and runtime record, by identity). A new cluster
  size changes max shares given as percentages, every cut (root's share is the cluster) and
  what ``drf`` compares; not any app's demand.
* Demand (docs/semantics.md §2.2): :mod:`fairshare.core.shares.demand` — touched apps only; a
  leaf's sum when one of its apps changed, a parent's when one of its children's demand did.
* Instantaneous shares (§2.4–§2.7): :mod:`fairshare.core.shares.incremental` — a cut whose
  inputs equal the last pass's gives the same shares and is skipped.
* Starvation (§4.3, §4.4): :mod:`fairshare.core.starvation.incremental` — only the leaves
  whose outcome may have changed run the full pass; the others only get the clock written.
  It is a query: it returns what to write, which the pass applies
  (:meth:`~fairshare.core.hub.state.StateWriter.apply_starvation`) before reporting the apps
  new in the starved-apps queue.
  Starvation is evaluated only when preemption is on and the cluster is busier than the
  utilization threshold (§4.1).

``tests/oracles/update.py`` recomputes everything on every pass, as YARN's code reads; tests
drive both in lockstep on random workloads and compare every event and every number after
each step.
"""

from __future__ import annotations

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.changes import ChangeLog, PassChanges
from fairshare.core.model.records import QueueRuntime
from fairshare.core.model.tree import QueueNode, QueueTree
from fairshare.core.shares.demand import DemandCache
from fairshare.core.shares.incremental import ShareCache
from fairshare.core.starvation.incremental import StarvationCache
from fairshare.core.starvation.report import report_starvation, starvation_gate
from fairshare.resources.vector import Resource


class IncrementalUpdate:
    """What the incremental update pass remembers between passes, and what changed since."""

    def __init__(self, log: ChangeLog) -> None:
        self._changes = log.reader(queues=False, by_leaf=True)
        self._tree: QueueTree | None = None
        self._capacity: Resource | None = None
        self._records: dict[str, tuple[QueueNode, QueueRuntime]] = {}
        self.demand = DemandCache()
        self.shares = ShareCache()
        self.starvation = StarvationCache()

    # -- the pass ------------------------------------------------------------------------------

    def update(self, s: Scheduler) -> None:
        """One ``FairScheduler.update()``. What the pass itself writes is not news to the
        next pass (it carries what it changed to its later steps): its records are dropped."""
        changes = self._pass_changes(s)
        self.demand.update(s, changes)
        self.shares.update(s, changes)
        if s.preemption_enabled:
            self.starvation.note(s, changes)
            if starvation_gate(s):
                writes, reported = self.starvation.update(s)
                s.write.apply_starvation(writes)
                for app_id in reported:
                    report_starvation(s, s.state.apps[app_id])
        self._changes.clear()

    def _pass_changes(self, s: Scheduler) -> PassChanges:
        tree = s.tree
        everything = self._capacity is None
        cluster_changed = self._capacity != s.state.capacity
        self._capacity = s.state.capacity
        apps, by_leaf = self._changes.apps, self._changes.by_leaf
        self._changes.clear()
        for app in apps.values():
            by_leaf.setdefault(app.queue, {})[app.id] = app
        queues: set[str] = set()
        tree_changed = tree is not self._tree
        if tree_changed:
            self._tree = tree
            queues = self._changed_queues(s)
        by_leaf = {q: a for q, a in by_leaf.items() if q in tree and tree[q].is_leaf}
        return PassChanges(everything, cluster_changed, apps, by_leaf, queues, tree_changed)

    def _changed_queues(self, s: Scheduler) -> set[str]:
        """Queues of the new tree that are new or whose node (settings, children) or runtime
        record is not the one the last pass saw; queues gone are forgotten."""
        changed: set[str] = set()
        records: dict[str, tuple[QueueNode, QueueRuntime]] = {}
        for node in s.tree:
            record = (node, s.state.queues[node.name])
            old = self._records.get(node.name)
            if old is None or old[0] is not record[0] or old[1] is not record[1]:
                changed.add(node.name)
            records[node.name] = record
        self._records = records
        return changed

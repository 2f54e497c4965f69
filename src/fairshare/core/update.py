"""The update pass (``FairScheduler.update()``), incrementally: demand, instantaneous fair
shares, then starvation, with work only where an input changed since the previous pass.

A pass that recomputed everything would redo each app's demand, every fair share of the tree
and every leaf's starvation. Between two passes (500 ms) a few apps change; so
:class:`IncrementalUpdate` remembers what each step last computed from which inputs and
redoes a step for a queue or an app only when those inputs may differ:

* *What changed* comes from the engine: ``Scheduler.touch_app`` (usage, asks, admission,
  attempts — the hook the tree walk's index uses) and ``Scheduler.touch_membership`` (a
  waiting app that ended or moved) name the apps, and through them their leaves. A new queue
  tree is compared queue by queue (settings, children and runtime record, by identity). A new
  cluster size changes max shares given as percentages, every cut (root's share is the
  cluster) and what ``drf`` compares; not any app's demand.
* Demand (docs/semantics.md §2.2): :mod:`fairshare.core.shares.demand` — touched apps only; a
  leaf's sum when one of its apps changed, a parent's when one of its children's demand did.
* Instantaneous shares (§2.4–§2.7): :mod:`fairshare.core.shares.incremental` — a cut whose
  inputs equal the last pass's gives the same shares and is skipped.
* Starvation (§4.3, §4.4): :mod:`fairshare.core.starvation.incremental` — only the leaves
  whose outcome may have changed run the full pass; the others only get the clock written.
  Starvation is evaluated only when preemption is on and the cluster is busier than the
  utilization threshold (§4.1).

``tests/oracles/update.py`` recomputes everything on every pass, as YARN's code reads; tests
drive both in lockstep on random workloads and compare every event and every number after
each step.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from fairshare.core.model.records import App, QueueRuntime
from fairshare.core.model.tree import QueueNode, QueueTree
from fairshare.core.shares.demand import DemandCache
from fairshare.core.shares.incremental import ShareCache
from fairshare.core.starvation.incremental import StarvationCache
from fairshare.core.starvation.report import starvation_gate
from fairshare.resources.vector import Resource

if TYPE_CHECKING:
    from fairshare.core.model.scheduler import Scheduler


@dataclass(slots=True)
class Changes:
    """What may differ from the previous pass, as the steps of one pass see it."""

    everything: bool  # the first pass: nothing is known yet
    cluster_changed: bool  # the cluster size is not the last pass's (always on the first)
    apps: dict[str, App]  # touched since the last pass
    # leaf → the touched apps that were in it when touched or are in it now: the only ones
    # whose numbers, or whose place in its lists, may have changed
    by_leaf: dict[str, dict[str, App]]
    queues: set[str]  # queues that are new or whose settings, children or record changed
    tree_changed: bool
    demand_leaves: dict[str, None] = field(default_factory=dict)  # filled by the demand step
    share_leaves: dict[str, None] = field(default_factory=dict)  # leaves whose app shares moved


class IncrementalUpdate:
    """What the incremental update pass remembers between passes, and what changed since."""

    def __init__(self) -> None:
        self._apps: dict[str, App] = {}
        self._by_leaf: dict[str, dict[str, App]] = {}
        self._in_pass = False
        self._tree: QueueTree | None = None
        self._capacity: Resource | None = None
        self._records: dict[str, tuple[QueueNode, QueueRuntime]] = {}
        self.demand = DemandCache()
        self.shares = ShareCache()
        self.starvation = StarvationCache()

    # -- hooks (Scheduler.touch_app, Scheduler.touch_membership) -------------------------------

    def touch_app(self, app: App) -> None:
        """``app`` changed: its demand, its leaf's lists or its starvation inputs may differ.

        The leaf is noted now: a move changes ``app.queue`` afterwards. Touches made by the
        pass itself are not noted: the pass carries what it changed to its later steps.
        """
        if self._in_pass:
            return
        self._apps[app.id] = app
        self._by_leaf.setdefault(app.queue, {})[app.id] = app

    # -- the pass ------------------------------------------------------------------------------

    def update(self, s: Scheduler) -> None:
        """One ``FairScheduler.update()``."""
        self._in_pass = True
        try:
            changes = self._changes(s)
            self.demand.update(s, changes)
            self.shares.update(s, changes)
            if s.preemption_enabled:
                self.starvation.note(s, changes)
                if starvation_gate(s):
                    self.starvation.update(s)
        finally:
            self._in_pass = False

    def _changes(self, s: Scheduler) -> Changes:
        tree = s.tree
        everything = self._capacity is None
        cluster_changed = self._capacity != s.state.capacity
        self._capacity = s.state.capacity
        apps, self._apps = self._apps, {}
        by_leaf, self._by_leaf = self._by_leaf, {}
        for app in apps.values():
            by_leaf.setdefault(app.queue, {})[app.id] = app
        queues: set[str] = set()
        tree_changed = tree is not self._tree
        if tree_changed:
            self._tree = tree
            queues = self._changed_queues(s)
        by_leaf = {q: a for q, a in by_leaf.items() if q in tree and tree[q].is_leaf}
        return Changes(everything, cluster_changed, apps, by_leaf, queues, tree_changed)

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

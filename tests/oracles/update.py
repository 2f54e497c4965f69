"""The update pass recomputed from scratch: the reference for ``core.update``.

``FairScheduler.update()`` as it reads: every app's and queue's demand, every instantaneous fair
share of the tree, then — when preemption is on and the cluster is busier than the utilization
threshold — every leaf's ``FSLeafQueue.updateStarvedApps``, in creation order, through the pure
functions of :mod:`tests.oracles.starvation`, whose results are written back here
through the state's writers (which record the changes the tree walk's index follows). The
engine's incremental pass must write and report exactly the same
(``tests/core/test_fast_update.py``).
"""

from __future__ import annotations

from fairshare.core.engine import Engine
from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.lifecycle.asks import pending_demand
from fairshare.core.model.records import App, StarvationWrites
from fairshare.core.shares.fair_shares import (
    AppShareInput,
    FairShares,
    compute_instantaneous_fair_shares,
)
from fairshare.core.starvation.report import report_starvation, starvation_gate
from fairshare.resources.vector import Resource, add, componentwise_min, is_none
from tests.oracles.starvation import AppStarvationView, LeafStarvationView, update_starved_apps


class ReferenceUpdate:
    """Stands where the engine keeps its ``IncrementalUpdate``; remembers only the last pass's
    queue shares (their components a policy does not write are read from them)."""

    def __init__(self) -> None:
        self.last_shares: FairShares | None = None

    def update(self, s: Scheduler) -> None:
        """One ``FairScheduler.update()``."""
        update_demand(s)
        self.update_fair_shares(s)
        if starvation_gate(s):
            for leaf in s.tree.leaves():
                update_leaf_starvation(s, leaf.name)

    def update_fair_shares(self, s: Scheduler) -> None:
        """Root gets the cluster; each level cut by its parent's policy, each leaf split among
        its runnable apps (``FSParentQueue``/``FSLeafQueue.recomputeShares``)."""
        leaves = {leaf.name: s.state.queues[leaf.name].runnable_apps for leaf in s.tree.leaves()}
        runnable = {
            name: [AppShareInput(a.id, a.start_time, s.app_weight(a)) for a in apps]
            for name, apps in leaves.items()
        }
        # an app's unwritten components are its attempt's own (FSAppAttempt.fairShare starts at 0)
        previous = FairShares(self.last_shares.queues if self.last_shares else {},
                              {a.id: a.fair_share for apps in leaves.values() for a in apps})
        shares = compute_instantaneous_fair_shares(
            s.tree, s.state.capacity, runnable, previous=previous)
        self.last_shares = shares
        for name, share in shares.queues.items():
            if s.state.queues[name].fair_share != share:
                s.write.set_queue_fair_share(name, share, s.tree[name].is_leaf)
        for app_id, share in shares.apps.items():
            app = s.state.apps[app_id]
            if share != app.fair_share:
                s.write.set_app_fair_share(app, share)


def use_reference_update(engine: Engine) -> Engine:
    """Give ``engine`` the reference update pass (before its first update)."""
    engine._steps.update_pass = ReferenceUpdate()  # type: ignore[assignment]
    return engine


def update_demand(s: Scheduler) -> None:
    """Apps (runnable or not): usage + outstanding ANY asks; queues sum, capped at their max
    share (``FSAppAttempt``/``FSLeafQueue``/``FSParentQueue.updateDemand``)."""
    for node in reversed(list(s.tree.depth_first())):
        runtime = s.state.queues[node.name]
        if node.is_leaf:
            total = s.none
            for app in [*runtime.runnable_apps, *runtime.non_runnable_apps]:
                demand = add(app.usage, pending_demand(app))
                if demand != app.demand:
                    s.write.set_app_demand(app, demand)
                total = add(total, app.demand)
        else:
            total = s.none
            for child in node.children:
                total = add(total, s.state.queues[child].demand)
            # FSParentQueue.getDemand returns memory and vcores only
            total = Resource((total.memory, total.vcores, *([0] * (len(total) - 2))))
        demand = componentwise_min(total, s.max_share(node.name))
        if demand != runtime.demand:
            s.write.set_queue_demand(node.name, demand)


def _view(s: Scheduler, app: App) -> AppStarvationView:
    return AppStarvationView(
        app.id, app.start_time, app.demand, app.usage, app.fair_share,
        app.fairshare_starvation, app.minshare_starvation, app.last_time_at_fair_share,
        app.next_starvation_check, s.app_weight(app),
    )


def update_leaf_starvation(s: Scheduler, leaf: str) -> None:
    """``FSLeafQueue.updateStarvedApps`` for one leaf; apps newly in the starved-apps queue are
    reported with their cause."""
    runtime, settings = s.state.queues[leaf], s.settings(leaf)
    apps = runtime.runnable_apps
    views = [_view(s, a) for a in apps]
    leaf_view = LeafStarvationView(
        leaf, settings.policy, settings.min_share, runtime.demand, runtime.usage,
        settings.fair_share_preemption_threshold, settings.fair_share_preemption_timeout_ms,
        settings.min_share_preemption_timeout_ms, runtime.last_time_at_min_share,
    )
    before = set(s.state.starved.heap)
    others = {a: s.state.apps[a].starvation for a in s.state.starved.heap}
    result = update_starved_apps(leaf_view, views, cluster=s.state.capacity, now=s.now,
                                 queue=s.state.starved, others=others)
    writes = StarvationWrites(starved=result.queue)
    for app, view in zip(apps, result.apps, strict=True):
        writes.fairshare[app] = (view.fairshare_starvation, view.last_time_at_fair_share)
        if app.minshare_starvation != view.minshare_starvation:
            writes.minshare[app] = view.minshare_starvation
    last = result.min_share.last_time_at_min_share
    writes.last_time_at_min_share[runtime] = last
    writes.min_share_starved[runtime] = (not is_none(result.min_share.starvation), last)
    s.write.apply_starvation(writes)
    for app_id in result.queue.heap:
        if app_id not in before:
            report_starvation(s, s.state.apps[app_id])

"""A preemption round: the starved apps taken one by one, least starved last, each planned and
its plan committed (docs/semantics.md §4.6, §5.1).

:func:`preempt_for_starved_apps` drains the starved-apps queue the way YARN's
``FSPreemptionThread`` does; a :class:`RoundPlanner` plans each app (the engine's is a
:class:`SearchPlanner`, one victim search for the whole round) and :mod:`.commit` carries each
plan out. After an app's turn its next starvation check waits the post-preemption delay.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Protocol

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.records import App
from fairshare.core.preemption.blocked import BlockedCauses
from fairshare.core.preemption.commit import commit
from fairshare.core.preemption.plan import PreemptionPlan, plan_preemption
from fairshare.core.preemption.search import SearchMemory, VictimSearch
from fairshare.core.starvation.rules import take_starved_app
from fairshare.resources.vector import Resource


def post_preemption_delay(s: Scheduler) -> int:
    """§4.6: waitTimeBeforeKill + allocation delay + waitTimeBeforeNextStarvationCheck.

    The allocation delay is meant to be 10 continuous-scheduling runs, or 4 node heartbeats.
    But ``FSPreemptionThread``'s constructor reads the heartbeat interval during
    ``FairScheduler.initScheduler``, before ``AbstractYarnScheduler.serviceInit`` has set it:
    it is 0 there, so without continuous scheduling the delay is 0 (Hadoop 3.4)."""
    site = s.site
    alloc_delay = 10 * site.continuous_scheduling_sleep_ms \
        if site.continuous_scheduling_enabled else 0
    return (site.wait_time_before_kill_ms + alloc_delay
            + site.wait_time_before_next_starvation_check_ms)


class RoundPlanner(Protocol):
    """Plans a preemption round's starved apps one by one, told of each commit."""

    def plan(self, app: App) -> PreemptionPlan: ...

    def committed(self, plan: PreemptionPlan) -> None: ...


class SearchPlanner:
    """Plans through one :class:`VictimSearch` for the whole round: only commits change the
    state meanwhile, and each is reported to it. Victims killed inside a commit
    (``waitTimeBeforeKill`` ≤ 0) free room, which its indexes do not expect: then the next plan
    gets a fresh search."""

    def __init__(self, s: Scheduler, memory: SearchMemory | None = None) -> None:
        self.s = s
        # what the engine's searches keep from round to round (None: this round's own)
        self.memory = memory if memory is not None else SearchMemory()
        self.search: VictimSearch | None = None  # built for the first plan: most rounds have none

    def ready(self) -> VictimSearch:
        """The round's search, built now if no plan has built it yet."""
        if self.search is None:
            self.search = VictimSearch(self.s, self.memory)
        return self.search

    def plan(self, app: App) -> PreemptionPlan:
        return plan_preemption(self.s, app, self.ready())

    def committed(self, plan: PreemptionPlan) -> None:
        if self.search is not None:
            self.search = after_commit(self.s, self.search, plan)


def preempt_for_starved_apps(s: Scheduler, planner: RoundPlanner) -> None:
    """Drain the starved-apps queue the way the preemption thread does (§5.1), planning with
    ``planner`` (the engine's is a :class:`SearchPlanner`)."""
    causes = BlockedCauses(s)
    starvation_of = CurrentStarvation(s.state.apps)
    while True:
        app_id, starved = take_starved_app(s.state.starved, starvation_of)
        s.write.set_starved(starved)
        if app_id is None:
            return
        app = s.state.apps[app_id]
        if not app.stopped:
            plan = planner.plan(app)
            commit(s, app, plan, causes)
            if plan.selections:
                causes.forget()  # the state the causes were found in has changed
            planner.committed(plan)
        s.write.set_next_starvation_check(app, s.now + post_preemption_delay(s))


class CurrentStarvation(Mapping[str, Resource]):
    """Each app's starvation as it is when read: a take's sift reads a few of the queue's
    apps, not all (a busy round drains hundreds, one by one)."""

    def __init__(self, apps: Mapping[str, App]) -> None:
        self.apps = apps

    def __getitem__(self, app_id: str) -> Resource:
        return self.apps[app_id].starvation

    def __iter__(self) -> Iterator[str]:
        return iter(self.apps)

    def __len__(self) -> int:
        return len(self.apps)


def after_commit(s: Scheduler, search: VictimSearch, plan: PreemptionPlan) -> VictimSearch:
    """The search to use after ``plan`` was committed: the same one told what changed, or a
    fresh one if the commit killed its victims at once."""
    if not plan.selections:
        return search
    if s.site.wait_time_before_kill_ms <= 0:
        return VictimSearch(s, search.memory)
    search.committed({sel.node for sel in plan.selections},
                     {v.app_id for sel in plan.selections for v in sel.victims})
    return search

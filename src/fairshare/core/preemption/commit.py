"""Carrying out a preemption plan: warn, earmark, then kill
(docs/semantics.md §4.6, §5.1, §5.6, §5.7).

The preemption thread of YARN takes starved apps one by one (§5.1). For each, the plan's
victims are marked on their node and owner, the node is earmarked for the starved app, every
victim is announced (``preemption-warned``, with the starvation that caused it and the victim's
usage against its fair share), and one kill timer per batch fires ``waitTimeBeforeKill`` later.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Protocol

from fairshare.core.lifecycle.apps import restart_attempt
from fairshare.core.model.events import ContainerPreempted, NoPreemption, PreemptionWarned
from fairshare.core.model.records import App, KillTimer
from fairshare.core.model.scheduler import Scheduler
from fairshare.core.model.yarn_order import victims_grouped_by_app
from fairshare.core.preemption.blocked import BLOCKED_CAUSES, ROOM_FREE, BlockedCauses
from fairshare.core.preemption.overlay import reserved_on
from fairshare.core.preemption.plan import PreemptionPlan, nodes_for, plan_preemption
from fairshare.core.preemption.search import SearchMemory, VictimSearch
from fairshare.core.preemption.victims import StarvedRequest, room_before_victims
from fairshare.core.starvation.report import starvation_kind
from fairshare.core.starvation.rules import take_starved_app
from fairshare.resources.vector import Resource, is_none


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

    def what_if(self, app: App, requests: Sequence[tuple[StarvedRequest, int]]
                ) -> PreemptionPlan:
        """The plan for ``requests`` in place of what ``app``'s starvation asks for, through the
        round's search as it stands: nothing is marked or committed."""
        return plan_preemption(self.s, app, self.ready(), requests)

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


def commit(s: Scheduler, app: App, plan: PreemptionPlan,
           causes: BlockedCauses | None = None) -> None:
    """Apply a plan: marks, earmarks, warnings, and the kill timer (§5.6); what it could not
    find is reported with its causes (``causes``: those known in this round)."""
    kill_at = s.now + s.site.wait_time_before_kill_ms
    victims: list[tuple[str, str]] = []
    warned: list[int] = []
    for selection in plan.selections:
        node = s.state.nodes[selection.node]
        # the room before this selection's earmarks, as the plan saw it
        free = room_before_victims(node.unallocated, reserved_on(node, s.none),
                                   node.earmarked_total)
        for victim in victims_grouped_by_app(selection.victims, s.app_number):
            if victim.container_id in node.marked_for_preemption:
                continue
            owner = s.state.apps[victim.app_id]
            container = owner.containers[victim.container_id]
            s.write.mark_for_preemption(node, owner, container, app.attempt_key)
            event = s.emit(
                PreemptionWarned, container=container.id, app=owner.id, queue=owner.queue,
                node=node.name, resource=container.resource, am=container.is_am,
                beneficiary_app=app.id, beneficiary_queue=app.queue,
                starvation_kind=starvation_kind(app),
                fairshare_starvation=app.fairshare_starvation,
                minshare_starvation=app.minshare_starvation,
                request=selection.request.capability,
                request_resource_name=selection.request.resource_name,
                node_victims=len(selection.victims), node_am_victims=selection.num_am,
                node_free=free,
                victim_usage=owner.usage,
                victim_fair_share=owner.fair_share,
                victim_usage_after=owner.usage - owner.resources_to_be_preempted,
                kill_at_ms=kill_at,
            )
            victims.append((owner.id, container.id))
            warned.append(event.seq)
    _report_shortfall(s, app, plan, causes or BlockedCauses(s))
    if victims:
        timer = KillTimer(tuple(victims), app.id, tuple(warned))
        if s.site.wait_time_before_kill_ms <= 0:
            kill(s, timer)
        else:
            s.write.add_kill_timer(kill_at, warned[0], timer)


def _report_shortfall(s: Scheduler, app: App, plan: PreemptionPlan,
                      causes: BlockedCauses) -> None:
    wanted, found = plan.containers_wanted, len(plan.selections)
    if found >= wanted and wanted > 0:
        return
    blocked = _blocked(s, plan, causes)
    if wanted == 0:
        reason = "starvation is smaller than any of the app's container requests"
        if is_none(plan.starvation):
            reason = "no starvation left to preempt for"
    else:
        listed = ", ".join(f"{n} {cause}" for cause, n in blocked.items())
        reason = (f"{wanted - found} of {wanted} containers found no node where preempting "
                  f"could make room ({listed})")
    s.emit(NoPreemption, app=app.id, queue=app.queue, reason=reason, starvation=plan.starvation,
           containers_wanted=wanted, containers_found=found, blocked=blocked)


def _blocked(s: Scheduler, plan: PreemptionPlan, causes: BlockedCauses) -> dict[str, int]:
    """The plan's containers without victims, by cause, in :data:`BLOCKED_CAUSES` order."""
    counts = dict.fromkeys((*BLOCKED_CAUSES, ROOM_FREE), 0)
    for request, missed in plan.unplaced:
        counts[causes.cause(request, nodes_for)] += missed
    counts[ROOM_FREE] += plan.room_free
    return {cause: n for cause, n in counts.items() if n}


def fire_due_timers(s: Scheduler, until: int) -> None:
    """Kill every batch due at or before ``until``, at its own due time, in order."""
    while s.state.kill_timers and s.state.kill_timers[0][0] <= until:
        due, _, timer = s.write.pop_kill_timer()
        s.now = max(s.now, due)
        kill(s, timer)


def kill(s: Scheduler, timer: KillTimer) -> None:
    """§5.7: complete each still-running victim as PREEMPTED (−102)."""
    beneficiary = s.state.apps[timer.beneficiary]
    for (app_id, container_id), cause in zip(timer.victims, timer.warned, strict=True):
        owner = s.state.apps[app_id]
        container = owner.containers.get(container_id)
        if container is None:
            continue  # it finished on its own in the meantime
        s.write.free_container(container)
        s.write.count_preempted(owner, container)
        event = s.emit(
            ContainerPreempted, cause, container=container.id, app=owner.id, queue=owner.queue,
            node=container.node, resource=container.resource, am=container.is_am,
            beneficiary_app=beneficiary.id, beneficiary_queue=beneficiary.queue,
        )
        if container.is_am:
            restart_attempt(s, owner, "AM container preempted", event.seq)

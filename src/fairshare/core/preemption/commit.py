"""Carrying out a preemption plan: warn, earmark, then kill
(docs/semantics.md §5.6, §5.7).

A round (:mod:`.round`) hands each starved app's plan here: its victims are marked on their
node and owner, the node is earmarked for the starved app, every victim is announced
(``preemption-warned``, with the starvation that caused it and the victim's usage against its
fair share), and one kill timer per batch fires ``waitTimeBeforeKill`` later.
"""

from __future__ import annotations

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.lifecycle.apps import restart_attempt
from fairshare.core.model.events import ContainerPreempted, NoPreemption, PreemptionWarned
from fairshare.core.model.reasons import AttemptRestart, Because, BlockedCause, NoPreemptionReason
from fairshare.core.model.records import App, KillTimer
from fairshare.core.preemption.blocked import BLOCKED_CAUSES, ROOM_FREE, BlockedCauses
from fairshare.core.preemption.overlay import reserved_on
from fairshare.core.preemption.plan import PreemptionPlan, nodes_for
from fairshare.core.preemption.victims import room_before_victims
from fairshare.core.rules.yarn_order import victims_grouped_by_app
from fairshare.core.starvation.report import starvation_kind
from fairshare.resources.vector import is_none


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
        reason = Because(NoPreemptionReason.NO_STARVATION_LEFT if is_none(plan.starvation)
                         else NoPreemptionReason.UNDER_A_CONTAINER)
    else:
        listed = ", ".join(f"{n} {cause}" for cause, n in blocked.items())
        reason = Because(NoPreemptionReason.NO_NODE, missing=wanted - found, wanted=wanted,
                         listed=listed)
    s.emit(NoPreemption, app=app.id, queue=app.queue, reason=reason, starvation=plan.starvation,
           containers_wanted=wanted, containers_found=found, blocked=blocked)


def _blocked(s: Scheduler, plan: PreemptionPlan, causes: BlockedCauses
             ) -> dict[BlockedCause, int]:
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
        s.set_clock(max(s.now, due))
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
            restart_attempt(s, owner, AttemptRestart.AM_PREEMPTED, event.seq)

"""What both update passes share about starvation: the utilization gate (docs/semantics.md §4.1) and
how an app entering the starved-apps queue is reported (§4.4)."""

from __future__ import annotations

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.events import Starvation, StarvationGate
from fairshare.core.model.reasons import StarvationKind
from fairshare.core.model.records import App
from fairshare.resources.vector import float32_decimal, is_none


def starvation_gate(s: Scheduler) -> bool:
    """§4.1: is starvation evaluated in this pass? Preemption on and the cluster busier than
    the utilization threshold; a change of the answer is reported."""
    if not s.preemption_enabled:
        return False
    utilization = s.utilization()
    threshold = s.site.preemption_cluster_utilization_threshold
    gate_open = threshold < utilization  # strict; NaN (empty cluster) keeps it closed (§4.1)
    if gate_open != s.state.starvation_gate_open:
        s.write.open_starvation_gate(gate_open)
        s.emit(StarvationGate, open=gate_open, utilization=utilization,
               threshold=float32_decimal(threshold))  # a Java float: 0.8, not 0.800000011920929
    return gate_open


def starvation_kind(app: App) -> StarvationKind:
    """Which starvations the app has (§4.2, §4.3)."""
    fair, minimum = not is_none(app.fairshare_starvation), not is_none(app.minshare_starvation)
    if fair:
        return StarvationKind.BOTH if minimum else StarvationKind.FAIR_SHARE
    return StarvationKind.MIN_SHARE if minimum else StarvationKind.NONE


def report_starvation(s: Scheduler, app: App) -> None:
    """A ``starvation`` event: the app's kinds, amounts and since when (§4.2, §4.3)."""
    leaf = s.state.queues[app.queue]
    since = app.last_time_at_fair_share
    if is_none(app.fairshare_starvation):
        since = leaf.last_time_at_min_share
    s.emit(Starvation, app=app.id, queue=app.queue, kind=starvation_kind(app),
           amount=app.starvation, fairshare_starvation=app.fairshare_starvation,
           minshare_starvation=app.minshare_starvation, since_ms=since, usage=app.usage,
           fair_share=app.fair_share, demand=app.demand)

"""The per-leaf starvation pass as it reads: the reference for ``core.starvation``.

``FSLeafQueue.updateStarvedApps`` for one leaf (docs/semantics.md §4.2–§4.4, §4.7) as pure
functions over frozen views: the new per-app starvation values and timestamps, the leaf's new
``lastTimeAtMinShare`` and the sequence of ``starvedApps.add`` calls, replayed on a frozen
starved-apps queue. The reference update pass (:mod:`tests.oracles.update`) writes its results
back; the engine's incremental step (``core.starvation.incremental``/``leaf``/``index``) must
write and report exactly the same (``tests/core/test_fast_update.py``). The arithmetic both
share — ``fair_share_deficit``, ``min_share_shortfall``, ``unmet_demand``, the starved-apps
queue's comparator and ``take`` — is the product's, in :mod:`fairshare.core.starvation.rules`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass

from fairshare.config.model import PolicyName
from fairshare.core.model.records import StarvedApps
from fairshare.core.rules.policies import SchedulableView, calculator_for, comparator_for
from fairshare.core.rules.yarn_order import heap_offer
from fairshare.core.starvation.rules import (
    StarvationOf,
    by_starvation,
    fair_share_deficit,
    min_share_shortfall,
    unmet_demand,
)
from fairshare.resources.calc import ResourceCalculator
from fairshare.resources.vector import (
    Resource,
    add,
    is_none,
    none_like,
    subtract,
    subtract_non_negative,
)

# -- §4.2 per-application fair-share starvation --------------------------------------------------


@dataclass(frozen=True, slots=True)
class FairShareStarvation:
    """What ``FSAppAttempt.fairShareStarvation()`` computes, with its timestamp write returned."""

    amount: Resource  # the app's new fairshareStarvation (none unless past the timeout)
    last_time_at_fair_share: int  # refreshed to ``now`` only when not below the threshold (§4.7)
    below_threshold: bool  # usage < min(threshold × fairShare, demand) per the policy calculator


def fair_share_starvation(
    *,
    fair_share: Resource,
    usage: Resource,
    demand: Resource,
    threshold: float,
    timeout: int,
    calc: ResourceCalculator,
    cluster: Resource,
    now: int,
    last_time_at_fair_share: int,
) -> FairShareStarvation:
    """§4.2: ``fairDemand = min(trunc(fairShare × threshold), demand)``, timed by the queue."""
    starved, shortfall = fair_share_deficit(
        fair_share=fair_share, usage=usage, demand=demand, threshold=threshold, calc=calc,
        cluster=cluster)
    last = last_time_at_fair_share if starved else now
    if not starved or now - last < timeout:
        return FairShareStarvation(none_like(usage), last, starved)
    return FairShareStarvation(shortfall, last, starved)

# -- §4.3 step (2): the leaf's min-share starvation ----------------------------------------------


@dataclass(frozen=True, slots=True)
class MinShareStarvation:
    """``FSLeafQueue.minShareStarvation()`` and the part of it fair-share starvation leaves over."""

    starvation: Resource  # the queue's min-share starvation (none until the timeout elapsed)
    uncovered: Resource  # starvation − fair-share total, clamped: what step (3) distributes
    last_time_at_min_share: int


def min_share_starvation_of_leaf(
    *,
    min_share: Resource,
    demand: Resource,
    usage: Resource,
    timeout: int,
    now: int,
    last_time_at_min_share: int,
    fair_share_total: Resource,
) -> MinShareStarvation:
    """§4.3 (2): ``subtractNonNegative(min(minShare, demand), usage)`` after the timeout."""
    starvation = min_share_shortfall(min_share, demand, usage)
    last = now if is_none(starvation) else last_time_at_min_share  # all-components test (§4.3)
    if now - last < timeout:
        starvation = none_like(starvation)
    return MinShareStarvation(
        starvation, subtract_non_negative(starvation, fair_share_total), last
    )


# -- §4.3 step (3): attributing the min-share starvation to apps ---------------------------------


@dataclass(frozen=True, slots=True)
class MinShareAttribution:
    """Per app, in comparator order: the minshareStarvation set, and whether it was enqueued."""

    amounts: tuple[Resource, ...]
    added: tuple[bool, ...]



def attribute_min_share_starvation(
    unmet_in_order: Sequence[Resource],
    pending: Resource,
    calc: ResourceCalculator,
    cluster: Resource,
) -> MinShareAttribution:
    """§4.3 (3), both quirks included.

    * An app whose unmet demand ``x`` is greater than ``pending`` (policy calculator,
      ``singleType=false``) gets ``x − pending``, not ``pending`` (YARN-6163 as shipped).
    * Every app reached while ``pending`` is not none is added to the starved queue, even when
      the amount attributed to it is none; later apps get none and are not added.
    """
    amounts: list[Resource] = []
    added: list[bool] = []
    for x in unmet_in_order:
        if is_none(pending):
            amounts.append(none_like(pending))
            added.append(False)
            continue
        if calc.compare(cluster, x, pending) > 0:
            x, pending = subtract_non_negative(x, pending), none_like(pending)  # the quirk
        else:
            pending = subtract_non_negative(pending, x)
        amounts.append(x)
        added.append(True)
    return MinShareAttribution(tuple(amounts), tuple(added))


# -- §4.3 the whole per-leaf update --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AppStarvationView:
    """One runnable app of a leaf, with its stored starvation fields (as of the last update)."""

    app_id: str
    start_time: int
    demand: Resource
    usage: Resource
    fair_share: Resource  # the app's instantaneous share inside its leaf (§2.7)
    fairshare_starvation: Resource
    minshare_starvation: Resource
    last_time_at_fair_share: int
    next_starvation_check: int = 0  # §4.6 back-off
    weight: float = 1.0  # float32; only the leaf's ordering comparator reads it

    @property
    def starvation(self) -> Resource:
        """``getStarvation()``: fair-share plus attributed min-share starvation."""
        return add(self.fairshare_starvation, self.minshare_starvation)

    def schedulable(self) -> SchedulableView:
        """How the leaf's policy comparator sees the app: min share 0, name = app id (§2.7)."""
        return SchedulableView(
            self.app_id, self.demand, self.usage, none_like(self.demand), self.weight,
            self.start_time,
        )


@dataclass(frozen=True, slots=True)
class LeafStarvationView:
    """The leaf-queue settings and totals ``updateStarvedApps`` reads."""

    name: str
    policy: PolicyName
    min_share: Resource
    demand: Resource
    usage: Resource
    fair_share_preemption_threshold: float  # float32 (§0.2)
    fair_share_preemption_timeout: int  # ms; LONG_MAX = never
    min_share_preemption_timeout: int  # ms; LONG_MAX = never
    last_time_at_min_share: int


@dataclass(frozen=True, slots=True)
class LeafStarvationUpdate:
    """The result of one leaf's starvation pass, to be applied by the engine."""

    apps: tuple[AppStarvationView, ...]  # input order; apps not evaluated are returned unchanged
    min_share: MinShareStarvation  # carries the leaf's new lastTimeAtMinShare
    fair_share_total: Resource
    enqueue: tuple[str, ...]  # app ids in ``starvedApps.add`` call order, repeats kept (§4.4)
    queue: StarvedApps  # the starved-apps queue after those adds


def apps_to_check(
    apps: Sequence[AppStarvationView], policy: PolicyName, cluster: Resource, now: int
) -> list[AppStarvationView]:
    """``fetchAppsWithDemand``: pending demand (any component ≠ 0) and past the back-off, in
    the leaf policy's comparator order (the TreeSet of §4.3)."""
    compare = comparator_for(policy, len(cluster.values))
    eligible = [
        a for a in apps
        if not is_none(subtract(a.demand, a.usage)) and now >= a.next_starvation_check
    ]
    views = {a.app_id: a.schedulable() for a in eligible}

    def cmp(a: AppStarvationView, b: AppStarvationView) -> int:
        return compare(views[a.app_id], views[b.app_id], cluster)

    return sorted(eligible, key=functools.cmp_to_key(cmp))


class _Enqueuer:
    """Replays ``starvedApps.add`` calls with the starvation values current at each call.

    Java's heap compares the values apps hold *when it sifts*, so an app added in the
    fair-share pass is placed with its old min-share starvation (§4.4).
    """

    def __init__(self, queue: StarvedApps, others: StarvationOf) -> None:
        self.queue = queue
        self.current = dict(others)
        self.calls: list[str] = []

    def set(self, app: AppStarvationView) -> None:
        self.current[app.app_id] = app.starvation

    def add(self, app: AppStarvationView) -> None:
        self.set(app)
        self.calls.append(app.app_id)
        self.queue = add_starved_app(self.queue, app.app_id, self.current)


def _fair_share_pass(
    ordered: list[AppStarvationView],
    leaf: LeafStarvationView,
    cluster: Resource,
    now: int,
    enqueuer: _Enqueuer,
) -> tuple[list[AppStarvationView], Resource]:
    """§4.3 (1): evaluate apps in order and stop at the first one not starved."""
    calc = calculator_for(leaf.policy)
    updated = list(ordered)
    total = none_like(leaf.demand)
    for i, app in enumerate(ordered):
        result = fair_share_starvation(
            fair_share=app.fair_share, usage=app.usage, demand=app.demand,
            threshold=leaf.fair_share_preemption_threshold,
            timeout=leaf.fair_share_preemption_timeout, calc=calc, cluster=cluster, now=now,
            last_time_at_fair_share=app.last_time_at_fair_share,
        )
        updated[i] = dataclasses.replace(
            app, fairshare_starvation=result.amount,
            last_time_at_fair_share=result.last_time_at_fair_share,
        )
        enqueuer.set(updated[i])
        if is_none(result.amount):
            break  # later apps keep stale values (§4.3 "early break")
        enqueuer.add(updated[i])
        total = add(total, result.amount)
    return updated, total


def update_starved_apps(
    leaf: LeafStarvationView,
    apps: Sequence[AppStarvationView],
    *,
    cluster: Resource,
    now: int,
    queue: StarvedApps | None = None,
    others: StarvationOf | None = None,
) -> LeafStarvationUpdate:
    """§4.3 ``leaf.updateStarvedApps(now)`` for the leaf's runnable ``apps``.

    ``queue`` is the starved-apps queue before this leaf's pass and ``others`` the current
    starvation of every app already in it that is not one of ``apps``.
    """
    enqueuer = _Enqueuer(queue or StarvedApps(), others or {})
    for app in apps:
        enqueuer.set(app)
    ordered, fs_total = _fair_share_pass(
        apps_to_check(apps, leaf.policy, cluster, now), leaf, cluster, now, enqueuer
    )
    min_share = min_share_starvation_of_leaf(
        min_share=leaf.min_share, demand=leaf.demand, usage=leaf.usage,
        timeout=leaf.min_share_preemption_timeout, now=now,
        last_time_at_min_share=leaf.last_time_at_min_share, fair_share_total=fs_total,
    )
    unmet = [unmet_demand(a.demand, a.usage, a.fairshare_starvation) for a in ordered]
    attribution = attribute_min_share_starvation(
        unmet, min_share.uncovered, calculator_for(leaf.policy), cluster
    )
    changed = {}
    for app, amount, added in zip(ordered, attribution.amounts, attribution.added, strict=True):
        changed[app.app_id] = dataclasses.replace(app, minshare_starvation=amount)
        enqueuer.set(changed[app.app_id])
        if added:
            enqueuer.add(changed[app.app_id])
    return LeafStarvationUpdate(
        tuple(changed.get(a.app_id, a) for a in apps), min_share, fs_total,
        tuple(enqueuer.calls), enqueuer.queue,
    )


# -- §4.4 the starved-apps queue -----------------------------------------------------------------


def add_starved_app(queue: StarvedApps, app_id: str, starvation: StarvationOf) -> StarvedApps:
    """``addStarvedApp``: a no-op for the app being processed or one already queued."""
    if app_id == queue.being_processed or app_id in queue.heap:
        return queue
    heap = list(queue.heap)
    heap_offer(heap, app_id, by_starvation(starvation))
    return StarvedApps(tuple(heap), queue.being_processed)

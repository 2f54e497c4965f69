"""One leaf's starvation pass in the incremental update (docs/semantics.md §4.3):
``updateStarvedApps`` on the leaf's kept records, with the writes and ``starvedApps.add`` calls of
the reference.

The record (:class:`LeafRecord`) keeps the leaf's apps with pending demand in order
(:class:`~fairshare.core.starvation.index.PendingApps`), per app its deficit without the clock
(keyed by the identity of its immutable fair share, usage and demand vectors), the leaf's
shortfall below its min share, and the apps holding some min-share starvation. The pass is a
query: it writes nothing, but notes what to write in a
:class:`~fairshare.core.model.records.StarvationWrites`, which the update pass applies once every
leaf has run. It reads its own notes first, so the starved-apps queue's comparisons read the
values the reference's enqueuer holds at that moment.
"""

from __future__ import annotations

from collections.abc import Container, Iterator
from dataclasses import dataclass, field

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.queue_settings import QueueSettings
from fairshare.core.model.records import App, QueueRuntime, StarvationWrites
from fairshare.core.rules.policies import SortKey, calculator_for
from fairshare.core.starvation.index import PendingApps, StarvedQueue
from fairshare.core.starvation.rules import fair_share_deficit, min_share_shortfall, unmet_demand
from fairshare.resources.vector import Resource, add, is_none, subtract_non_negative

FOREVER = float("inf")


@dataclass(slots=True, eq=False)
class Deficit:
    """§4.2 without the clock, for one app: from these exact vectors (by identity)."""

    fair_share: Resource
    usage: Resource
    demand: Resource
    below: bool  # usage below min(threshold × fair share, demand), by the policy calculator
    amount: Resource  # the app's fair-share starvation once its timeout has passed


@dataclass(slots=True, eq=False)
class LeafRecord:
    """What one leaf's pass last saw and concluded."""

    name: str
    index: int  # creation order
    settings: QueueSettings
    runtime: QueueRuntime
    pending: PendingApps
    deficits: dict[str, Deficit] = field(default_factory=dict)
    # members whose minshareStarvation is not none: the only ones a pass with nothing to
    # attribute writes (it sets every app it reaches to none)
    minshare: dict[str, App] = field(default_factory=dict)
    shortfall_of: tuple[Resource, Resource] | None = None  # the leaf's demand and usage
    shortfall: Resource | None = None
    # while steady: its writes, and when the clock changes the outcome
    steady: Steady | None = None
    valid_until: float = FOREVER


@dataclass(slots=True, eq=False)
class Steady:
    """What every pass of a steady leaf writes: the clock, into the leaf's
    ``lastTimeAtMinShare`` if it is not below its min share, and into ``lastTimeAtFairShare``
    of the app its fair-share pass stops at if that app is not below its threshold."""

    runtime: QueueRuntime | None
    app: App | None
    first: SortKey | None  # the sort key of the app the fair-share pass stops at


@dataclass(slots=True)
class Outcome:
    """What a leaf's pass did that decides whether, and how long, it is steady."""

    enqueued: bool = False  # some app was offered to the starved-apps queue
    first: App | None = None  # the app the fair-share pass stopped at
    first_below: bool = False  # … below its threshold, within its timeout
    skipped: float = FOREVER  # the earliest back-off end among the apps with min-share held
    # apps new in the starved-apps queue, in heap order once the pass ends (the reference
    # reports them in that order)
    added: list[str] = field(default_factory=list)
    unkeyed: bool = False  # the apps were sorted with the comparator (a NaN in some key)
    shortfall: Resource | None = None  # the leaf's min-share shortfall (before the timeout)
    starvation: Resource | None = None  # its min-share starvation (after the timeout)
    last_ms: int = 0  # its lastTimeAtMinShare


def leaf_pass(s: Scheduler, leaf: LeafRecord, queue: StarvedQueue,
              writes: StarvationWrites) -> Outcome:
    """``updateStarvedApps`` for one leaf, noted in ``writes`` as it goes: the queue's
    comparisons then read the values the reference's enqueuer holds at that moment."""
    now, settings, runtime = s.now, leaf.settings, leaf.runtime
    ordered = list(leaf.pending.eligible(s, runtime.runnable_apps)) \
        if not leaf.pending.keyed else None
    out = Outcome()
    total = _fair_share_pass(s, leaf, ordered, queue, out, writes)
    # (2) the leaf's min-share starvation, beyond what fair-share starvation covers
    shortfall = shortfall_of(leaf)
    last_ms = now if is_none(shortfall) else \
        writes.last_time_at_min_share.get(runtime, runtime.last_time_at_min_share)
    starvation = s.none if now - last_ms < settings.min_share_preemption_timeout_ms \
        else shortfall
    # (3) attributed to the same apps in order
    pending = subtract_non_negative(starvation, total)
    if is_none(pending):
        _clear_min_share(s, leaf, out, writes)
    else:
        _attribute(s, leaf, ordered, pending, queue, out, writes)
    writes.last_time_at_min_share[runtime] = last_ms
    writes.min_share_starved[runtime] = (not is_none(starvation), last_ms)
    out.added.sort(key=queue.pos.__getitem__)  # heap order, as the reference reports them
    out.unkeyed = ordered is not None
    out.shortfall, out.starvation, out.last_ms = shortfall, starvation, last_ms
    return out


def _eligible(s: Scheduler, leaf: LeafRecord,
              ordered: list[App] | None) -> list[App] | Iterator[App]:
    """The apps past their back-off (§4.6), in order."""
    if ordered is not None:
        return ordered
    return leaf.pending.eligible(s, leaf.runtime.runnable_apps)


def _fair_share_pass(s: Scheduler, leaf: LeafRecord, ordered: list[App] | None,
                     queue: StarvedQueue, out: Outcome, writes: StarvationWrites) -> Resource:
    """§4.3 (1): evaluate apps in order, stop at the first one not starved; the total."""
    now, none = s.now, s.none
    timeout = leaf.settings.fair_share_preemption_timeout_ms
    total = none
    for app in _eligible(s, leaf, ordered):
        d = _deficit(s, leaf, app)
        last = writes.last_time_at_fair_share(app) if d.below else now
        amount = d.amount if d.below and now - last >= timeout else none
        writes.fairshare[app] = (amount, last)
        if is_none(amount):
            out.first, out.first_below = app, d.below
            break  # later apps keep stale values (§4.3 "early break")
        out.enqueued = True
        if queue.add(app.id):
            out.added.append(app.id)
        total = add(total, amount)
    return total


def _clear_min_share(s: Scheduler, leaf: LeafRecord, out: Outcome, writes: StarvationWrites,
                     reached: Container[str] = ()) -> None:
    """§4.3 (3) once nothing is left to attribute: every app reached (past its back-off,
    not in ``reached`` yet) gets none — a write that changes something only for the apps
    holding some. Their order does not matter: nothing is enqueued any more."""
    now = s.now
    for app_id, app in list(leaf.minshare.items()):
        check = app.next_starvation_check
        if now < check:
            out.skipped = min(out.skipped, check)
            continue
        if app_id in reached:
            continue
        writes.minshare[app] = s.none
        del leaf.minshare[app_id]


def _attribute(s: Scheduler, leaf: LeafRecord, ordered: list[App] | None,
               pending: Resource, queue: StarvedQueue, out: Outcome,
               writes: StarvationWrites) -> None:
    """§4.3 (3): ``pending`` shared out over the apps in order, both quirks included;
    every app reached while some is left is enqueued, the rest get none."""
    calc, cluster, none = calculator_for(leaf.settings.policy), s.state.capacity, s.none
    reached: set[str] = set()
    for app in list(_eligible(s, leaf, ordered)):
        if is_none(pending):
            break
        amount = unmet_demand(app.demand, app.usage, writes.fairshare_starvation(app))
        if calc.compare(cluster, amount, pending) > 0:
            amount, pending = subtract_non_negative(amount, pending), none  # YARN-6163
        else:
            pending = subtract_non_negative(pending, amount)
        reached.add(app.id)
        if writes.minshare_starvation(app) != amount:
            writes.minshare[app] = amount
        if is_none(amount):
            leaf.minshare.pop(app.id, None)
        else:
            leaf.minshare[app.id] = app
        out.enqueued = True
        if queue.add(app.id):
            out.added.append(app.id)
    _clear_min_share(s, leaf, out, writes, reached)


def _deficit(s: Scheduler, leaf: LeafRecord, app: App) -> Deficit:
    d = leaf.deficits.get(app.id)
    if d is None or d.fair_share is not app.fair_share or d.usage is not app.usage \
            or d.demand is not app.demand:
        below, amount = fair_share_deficit(
            fair_share=app.fair_share, usage=app.usage, demand=app.demand,
            threshold=leaf.settings.fair_share_preemption_threshold,
            calc=calculator_for(leaf.settings.policy), cluster=s.state.capacity)
        d = Deficit(app.fair_share, app.usage, app.demand, below, amount)
        leaf.deficits[app.id] = d
    return d


def shortfall_of(leaf: LeafRecord) -> Resource:
    """§4.3 (2) before the timeout, from the leaf's demand and usage vectors (by identity)."""
    runtime, seen = leaf.runtime, leaf.shortfall_of
    if leaf.shortfall is None or seen is None or seen[0] is not runtime.demand \
            or seen[1] is not runtime.usage:
        leaf.shortfall = min_share_shortfall(leaf.settings.min_share, runtime.demand,
                                             runtime.usage)
        leaf.shortfall_of = (runtime.demand, runtime.usage)
    return leaf.shortfall


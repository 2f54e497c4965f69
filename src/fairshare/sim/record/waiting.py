"""Why each queue's apps waited: at every sample, what held each waiting app, by cause.

An app *waits* while it is held not runnable, has asks outstanding (``pending`` > 0), or had
an allocate call refused (its tasks were then never asked for). At each sample every waiting
app gets one cause (:mod:`fairshare.sim.record.causes`), the first of these that holds:

1. not runnable: the ``maxRunningApps`` of its queue or an ancestor, or its user's
   (``MaxRunningAppsEnforcer``, docs/semantics.md §3.9) — as its ``app-not-runnable`` said;
2. an allocate call refused above the maximum allocation (§3.10) or by a zero max share;
3. the queue or an ancestor at its max share for the app's smallest ask
   (``FSAppAttempt.assignContainer``'s max-share check);
4. a node with room for that ask reserved by another app (``FairScheduler.attemptScheduling``
   offers a reserved node to its reserving app alone);
5. room for it on an unreserved node: its AM refused by the leaf's AM share
   (``FSLeafQueue.canRunAppAM``, §3.6.4: the AM usage plus this AM does not fit the
   ``MaxAMShare`` gauge the last check wrote), else nothing held it (the next heartbeat, or
   the locality delay, places it);
6. preemption off; the utilization gate closed (§4.1); no preemption timeout for the queue;
7. starved, and the last round found nothing to take, by the cause its ``no-preemption``
   gave most containers for (non-preemptable, at fair share, no node fits), or because the
   starvation was smaller than any of its asks (``FSPreemptionThread`` frees whole
   containers, and threshold × share less usage can be less than one);
8. starved or in the back-off after a round: victims warned and not yet killed, or before
   ``next_starvation_check`` (§4.6);
9. below its fair share (``FSAppAttempt.isStarvedForFairShare``) and not yet starved: the
   timeout has not passed, or it is above threshold × share;
10. otherwise at or above its fair share while the cluster was full.

A sample stands for the interval to the next one, as every time in ``summary.json`` does
(docs/outputs.md): an app held for an interval adds it to its queue's waiting time, so a queue
with two apps held for a minute waited 2 app-minutes. Only what the engine's public questions
answer is read, and nothing here changes what it decides.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from fairshare.config.model import TIMEOUT_NEVER_MS, UNSET_TIMEOUT_MS
from fairshare.core import (
    ANY,
    App,
    AppFinished,
    AppNotRunnable,
    AppRejected,
    AppRunnable,
    Because,
    BlockedCause,
    ContainerReserved,
    ContainersRequested,
    ContainerUnreserved,
    Engine,
    Event,
    NoPreemption,
    NotRunnable,
    PreemptionWarned,
    RequestRefusal,
    RequestsRejected,
    Starvation,
    StarvationGate,
    pending_demand,
)
from fairshare.resources.display import duration
from fairshare.resources.vector import Resource, add, fits_in, is_none, subtract_non_negative
from fairshare.sim.record.causes import CAUSES, WaitCause

SEQS_KEPT = 10  # events cited per cause and queue
# no-preemption's blocked causes → the cause they make
_BLOCKED = {BlockedCause.NON_PREEMPTABLE_QUEUE: WaitCause.NON_PREEMPTABLE_VICTIMS,
            BlockedCause.AM_PREEMPTION_OFF: WaitCause.NON_PREEMPTABLE_VICTIMS,
            BlockedCause.VICTIMS_AT_FAIR_SHARE: WaitCause.VICTIMS_AT_FAIR_SHARE,
            BlockedCause.ALREADY_CHOSEN: WaitCause.VICTIMS_AT_FAIR_SHARE,
            BlockedCause.NO_NODE_FITS: WaitCause.NO_NODE_FITS}

_READ = frozenset({StarvationGate, ContainerReserved, ContainerUnreserved, AppFinished,
                   AppRejected, PreemptionWarned, AppNotRunnable, AppRunnable, RequestsRejected,
                   ContainersRequested, Starvation, NoPreemption})
Held = tuple[str, str, int | None]  # cause, the limit in words, the event behind it


@dataclass(slots=True)
class _AppMarks:
    """What the events told of one app, as far as its waiting goes."""

    not_runnable: tuple[Because[NotRunnable], int] | None = None  # reason, seq
    refused: tuple[Because[RequestRefusal], int] | None = None
    asked: int | None = None  # its last containers-requested
    starvation_seq: int | None = None  # its last starvation
    round: tuple[str, int] | None = None  # after that: the blocked cause or "warned", seq
    warned_until: int = 0  # kill time of its last victims


@dataclass
class WaitRecorder:
    """Observer beside :class:`~fairshare.sim.record.recorder.SimRecorder`: told the events
    and the samples, it adds up per leaf the app-time held by each cause."""

    engine: Engine
    marks: dict[str, _AppMarks] = field(default_factory=dict)
    gate: int | None = None  # the last starvation-gate event
    reserved: dict[str, tuple[str, int]] = field(default_factory=dict)  # node → app, seq
    # per leaf: (cause, limit) → app-ms, and the events behind it
    ms: dict[str, Counter[tuple[str, str]]] = field(default_factory=dict)
    seqs: dict[tuple[str, str, str], list[int]] = field(default_factory=dict)
    _held: list[tuple[str, str, str]] = field(default_factory=list)  # last sample's
    _since: int | None = None
    _rooms: list[Resource] | None = None  # this sample's unreserved free room
    _others: list[tuple[str, str, Resource, int]] | None = None  # ... and reserved nodes'
    _fits: dict[tuple[int, ...], bool] = field(default_factory=dict)  # ask → fits in one
    _fits_reserved: dict[tuple[int, ...], list[tuple[str, str, int]]] = field(
        default_factory=dict)  # ask → the reservations on nodes with room for it

    def on_events(self, events: Sequence[Event]) -> None:
        for e in events:
            if type(e) in _READ:
                self._read(e)

    def _read(self, e: Event) -> None:
        if isinstance(e, StarvationGate):
            self.gate = e.seq
        elif isinstance(e, ContainerReserved):
            self.reserved[e.node] = (e.app, e.seq)
        elif isinstance(e, ContainerUnreserved):
            self.reserved.pop(e.node, None)
        elif isinstance(e, AppFinished | AppRejected):
            self.marks.pop(e.app, None)
        elif isinstance(e, PreemptionWarned):
            m = self.marks.setdefault(e.beneficiary_app, _AppMarks())
            m.round, m.warned_until = ("warned", e.seq), e.kill_at_ms
        else:
            app: str = cast(Any, e).app
            self._app_event(e, self.marks.setdefault(app, _AppMarks()))

    @staticmethod
    def _app_event(e: Event, m: _AppMarks) -> None:
        if isinstance(e, AppNotRunnable):
            m.not_runnable = (e.reason, e.seq)
        elif isinstance(e, AppRunnable):
            m.not_runnable = None
        elif isinstance(e, RequestsRejected):
            m.refused = (e.reason, e.seq)
        elif isinstance(e, ContainersRequested):
            m.asked = e.seq
        elif isinstance(e, Starvation):
            m.starvation_seq, m.round = e.seq, None
        elif isinstance(e, NoPreemption) and e.containers_wanted == 0:
            if not is_none(e.starvation):  # what YARN may free is less than any container
                m.round = (WaitCause.STARVATION_UNDER_A_CONTAINER, e.seq)
        elif isinstance(e, NoPreemption):
            worst = max(((n, k) for k, n in e.blocked.items() if k in _BLOCKED), default=None)
            if worst is not None and worst[0] > 0:
                m.round = (_BLOCKED[worst[1]], e.seq)

    def on_snapshot(self, now_ms: int) -> None:
        self._close(now_ms)
        held: list[tuple[str, str, str]] = []
        self._rooms, self._others = None, None  # computed when first needed this sample
        self._fits, self._fits_reserved = {}, {}
        engine = self.engine
        for leaf in engine.tree.leaves():
            runtime = engine.state.queues[leaf.name]
            for app in (*runtime.runnable_apps, *runtime.non_runnable_apps):
                why = self._why(app, now_ms)
                if why is None:
                    continue
                cause, limit, seq = why
                held.append((leaf.name, cause, limit))
                kept = self.seqs.setdefault((leaf.name, cause, limit), [])
                if seq is not None and seq not in kept and len(kept) < SEQS_KEPT:
                    kept.append(seq)
        self._held = held
        self._since = now_ms

    def on_end(self, now_ms: int) -> None:
        self._close(now_ms)
        self._held = []

    def _close(self, now_ms: int) -> None:
        if self._since is None or now_ms <= self._since:
            return
        dt = now_ms - self._since
        for leaf, cause, limit in self._held:
            self.ms.setdefault(leaf, Counter())[(cause, limit)] += dt
        self._since = now_ms

    def _reserved_rooms(self) -> list[tuple[str, str, Resource, int]]:
        """Reserved nodes: the reserving app, the node, its room (unallocated), the seq."""
        nodes = self.engine.state.nodes
        return [(app, name, subtract_non_negative(nodes[name].capacity, nodes[name].allocated),
                 seq) for name, (app, seq) in self.reserved.items() if name in nodes]

    def _free_rooms(self) -> list[Resource]:
        """The distinct free room of the unreserved nodes (less earmarked space: preemption
        freed it for another app)."""
        rooms: dict[tuple[int, ...], Resource] = {}
        for node in self.engine.state.nodes.values():
            if node.reservation is None:
                room = subtract_non_negative(
                    subtract_non_negative(node.capacity, node.allocated), node.earmarked_total)
                rooms.setdefault(room.values, room)
        return list(rooms.values())

    def _room_for(self, ask: Resource) -> bool:
        known = self._fits.get(ask.values)
        if known is None:
            if self._rooms is None:
                self._rooms = self._free_rooms()
            known = self._fits[ask.values] = any(fits_in(ask, room) for room in self._rooms)
        return known

    # -- the causes, in the order of the module's docstring -----------------------------------

    def _why(self, app: App, now: int) -> Held | None:
        m = self.marks.get(app.id) or _AppMarks()
        if not app.runnable and not app.stopped:
            return _not_runnable(m)
        if m.refused is not None:
            return _refused(self.engine, app, m.refused)
        ask = _smallest_ask(app)
        if ask is None:
            return None
        if self._others is None:
            self._others = self._reserved_rooms()
        held = self._max_share(app, ask, m) or self._reserved(app, ask)
        if held is None and self._room_for(ask):
            held = self._am_share(app, m) or (
                WaitCause.ROOM_FREE, "the node heartbeat interval and locality delay", m.asked)
        return held or self._preemption(app, now, m)

    def _reserved(self, app: App, ask: Resource) -> Held | None:
        """Another app's reservation on a node with room for the ask (asked once per ask size
        and sample: many waiting apps ask for the same size)."""
        fitting = self._fits_reserved.get(ask.values)
        if fitting is None:
            fitting = self._fits_reserved[ask.values] = [
                (owner, node, seq) for owner, node, room, seq in self._others or ()
                if fits_in(ask, room)]
        for owner, node, seq in fitting:
            if owner != app.id:
                return WaitCause.RESERVED_BY_OTHERS, f"{owner}'s reservation of {node}", seq
        return None

    def _max_share(self, app: App, ask: Resource, m: _AppMarks) -> Held | None:
        engine = self.engine
        if engine.max_share_above(app.queue):
            for queue in engine.ancestry(app.queue):
                top = engine.max_share(queue)
                if not fits_in(add(engine.state.queues[queue].usage, ask), top):
                    return (WaitCause.MAX_SHARE, f"maxResources of {queue} = {_res(engine, top)}",
                            m.asked)
        return None

    def _am_share(self, app: App, m: _AppMarks) -> Held | None:
        """Its AM refused by the leaf's AM limit (the gauge the last check wrote). Asked only
        when a node has room for the AM: on a full cluster the limit's zero-filled components
        come from what is available (YARN-9323) and say nothing of the queue's AM share."""
        engine = self.engine
        runtime = engine.state.queues[app.queue]
        am, share = app.am_request, engine.settings(app.queue).max_am_share
        if am is None or app.am_running or share < 0:
            return None
        gauge = runtime.max_am_share_metric
        if is_none(gauge) or fits_in(add(runtime.am_resource_usage, am), gauge):
            return None
        return WaitCause.MAX_AM_SHARE, f"maxAMShare of {app.queue} = {share:g}", m.asked

    def _preemption(self, app: App, now: int, m: _AppMarks) -> Held:
        engine = self.engine
        site = engine.site
        if not site.preemption:
            return WaitCause.PREEMPTION_OFF, "yarn.scheduler.fair.preemption = false", m.asked
        if not engine.state.starvation_gate_open:
            threshold = site.preemption_cluster_utilization_threshold
            return (WaitCause.UTILIZATION_GATE, "yarn.scheduler.fair.preemption.cluster-"
                    f"utilization-threshold = {threshold:.6g}", self.gate)
        settings = engine.settings(app.queue)
        never = (TIMEOUT_NEVER_MS, UNSET_TIMEOUT_MS)
        if (settings.fair_share_preemption_timeout_ms in never
                and settings.min_share_preemption_timeout_ms in never):
            return (WaitCause.STARVATION_NOT_CONFIGURED,
                    f"fairSharePreemptionTimeout of {app.queue} (unset, and no "
                    "minSharePreemptionTimeout)", m.asked)
        starved = not is_none(app.starvation)
        if starved and m.round is not None and m.round[0] != "warned":
            limit = _blocked_limit(m.round[0], app.queue, settings.fair_share_preemption_threshold)
            return m.round[0], limit, m.round[1]
        if starved or m.warned_until > now or app.next_starvation_check > now:
            seq = m.round[1] if m.round is not None else m.starvation_seq
            kill = duration(site.wait_time_before_kill_ms)
            check = duration(site.wait_time_before_next_starvation_check_ms)
            return (WaitCause.PREEMPTION_ROUND, f"waitTimeBeforeKill = {kill}, "
                    f"waitTimeBeforeNextStarvationCheck = {check}", seq)
        if engine.is_starved_for_fair_share(app):
            timeout = settings.fair_share_preemption_timeout_ms
            told = "unset" if timeout in never else duration(timeout)
            return (WaitCause.PREEMPTION_TIMEOUT, f"fairSharePreemptionTimeout of {app.queue} = "
                    f"{told} (threshold {settings.fair_share_preemption_threshold:g})", m.asked)
        return WaitCause.AT_FAIR_SHARE, f"the weight of {app.queue} = {settings.weight:g}", m.asked


def _not_runnable(m: _AppMarks) -> Held:
    """The limit ``app-not-runnable`` named: its kind, and the user or queue with its limit."""
    if m.not_runnable is None:
        return WaitCause.MAX_RUNNING_APPS, "maxRunningApps", None
    reason, seq = m.not_runnable
    limit = reason.details["limit"]
    if reason.kind is NotRunnable.USER_MAX_APPS:
        return (WaitCause.USER_MAX_APPS,
                f"maxRunningApps of user {reason.details['user']} = {limit}", seq)
    return (WaitCause.MAX_RUNNING_APPS, f"maxRunningApps of {reason.details['queue']} = {limit}",
            seq)


def _refused(engine: Engine, app: App, refused: tuple[Because[RequestRefusal], int]) -> Held:
    reason, seq = refused
    if reason.kind is not RequestRefusal.ABOVE_MAXIMUM_ALLOCATION:  # a zero max share
        return WaitCause.MAX_SHARE, f"maxResources of {app.queue} (zero: {reason})", seq
    cap = engine.settings(app.queue).max_container_allocation
    if cap is not None:
        return (WaitCause.MAX_CONTAINER_ALLOCATION,
                f"maxContainerAllocation of {app.queue} = {_res(engine, cap)}", seq)
    return (WaitCause.MAX_CONTAINER_ALLOCATION, "yarn.scheduler.maximum-allocation-mb/-vcores = "
            f"{_res(engine, engine.site.maximum_allocation)}", seq)


def _blocked_limit(cause: str, queue: str, threshold: float) -> str:
    limits: dict[str, str] = {
        WaitCause.STARVATION_UNDER_A_CONTAINER: f"fairSharePreemptionThreshold of {queue} = "
                                                f"{threshold:g}",
        WaitCause.NON_PREEMPTABLE_VICTIMS: "allowPreemptionFrom of the queues holding the "
                                           "cluster",
        WaitCause.VICTIMS_AT_FAIR_SHARE: f"the weight of {queue}",
        WaitCause.NO_NODE_FITS: "the node sizes"}
    return limits.get(cause, cause)


def _smallest_ask(app: App) -> Resource | None:
    """The smallest outstanding ANY ask (by memory, then vcores), or None."""
    sizes = [table[ANY].capability for table in app.asks.values()
             if ANY in table and table[ANY].count > 0]
    if not sizes or is_none(pending_demand(app)):
        return None
    return min(sizes, key=lambda r: r.values)


def _res(engine: Engine, r: Resource) -> str:
    amounts = engine.types.as_dict(r)
    return ", ".join(f"{v:,} MB" if k == "memory-mb" else f"{v:,} {k}"
                     for k, v in amounts.items())


def waiting_entry(recorder: WaitRecorder, queue: str) -> dict[str, Any]:
    """``summary.json``'s ``waiting`` of ``queue`` (a parent: its subtree's leaves): the
    app-time its apps waited, and per cause and limit its time, share and events, largest
    first (ties in :data:`~fairshare.sim.record.causes.CAUSES` order, then by limit)."""
    order = {c.key: i for i, c in enumerate(CAUSES)}
    total: Counter[tuple[str, str]] = Counter()
    seqs: dict[tuple[str, str], list[int]] = {}
    for leaf, times in recorder.ms.items():
        if leaf == queue or leaf.startswith(queue + "."):
            total.update(times)
            for key in times:
                seqs.setdefault(key, []).extend(recorder.seqs.get((leaf, *key), ()))
    whole = sum(total.values())
    ranked = sorted(total.items(), key=lambda kv: (-kv[1], order.get(kv[0][0], 99), kv[0][1]))
    return {"app-ms": whole, "causes": [
        {"cause": cause, "limit": limit, "ms": ms, "share": round(ms / whole, 4),
         "seqs": sorted(set(seqs.get((cause, limit), ())))[:SEQS_KEPT]}
        for (cause, limit), ms in ranked]}


__all__ = ["WaitRecorder", "waiting_entry"]

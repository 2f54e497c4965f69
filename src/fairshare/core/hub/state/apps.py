"""The writers of the apps: submission, placement, moves and ends, attempts, demand and fair
share, locality, the runnable lists and the asks (docs/semantics.md §3.9, §3.6.6; the §
numbers here are its sections).
"""

from __future__ import annotations

from collections.abc import Iterable

from fairshare.core.hub.state.base import Records
from fairshare.core.hub.state.queues import QueueCounter, QueueWriter
from fairshare.core.model.changes import Change
from fairshare.core.model.records import ANY, App, AppState, Ask, SchedulerKey
from fairshare.core.rules.locality import LocalityState
from fairshare.resources.vector import Resource, subtract


class AppWriter(QueueWriter):
    def add_app(self, app: App) -> None:
        self.state.apps[app.id] = app
        self.state.apps_added += 1
        self.log.membership(app)

    def reject_app(self, app: App, reason: str | None) -> None:
        app.state, app.rejection_reason = AppState.REJECTED, reason

    def place_app(self, app: App, queue: str, am_preemption: bool, created: bool) -> None:
        app.queue, app.am_preemption, app.created_queue = queue, am_preemption, created
        self.log.membership(app)

    def move_app(self, app: App, queue: str) -> None:
        self.log.membership(app)  # the leaf it leaves
        app.queue = queue
        self.log.membership(app)  # the leaf it joins

    def end_app(self, app: App, state: AppState, now: int) -> None:
        app.state, app.finish_time = state, now
        app.asks.clear()
        app.inactive_asks.clear()
        self.count(app.queue, QueueCounter.APPS_COMPLETED if state is AppState.FINISHED
                   else QueueCounter.APPS_KILLED)
        self.log.membership(app)

    def forget_app(self, app: App) -> None:
        """An ended app leaves the state (``FairScheduler.removeApplication``): nothing
        refers to it any more (:func:`~fairshare.core.lifecycle.apps.forget`)."""
        del self.state.apps[app.id]

    def new_attempt(self, app: App, now: int, am_preemption: bool) -> None:
        """A new ``FSAppAttempt``: demand 0 until the next update pass, so unserved till then."""
        none = self.state.none
        app.attempt += 1
        app.am_preemption = am_preemption
        app.start_time = app.last_time_at_fair_share = now
        app.am_running, app.am_resource, app.next_container = False, None, 1
        app.master = None
        app.fairshare_starvation = app.minshare_starvation = app.fair_share = app.demand = none
        app.next_starvation_check = 0
        app.locality.clear()
        app.state = AppState.ACCEPTED

    def new_container_id(self, app: App) -> str:
        """YARN-like ``container_<app>_<attempt>_<seq>``, after a restart
        ``container_e<epoch>_<app>_<attempt>_<seq>`` (``ContainerId.toString``: the epoch in
        two digits at least); reservations draw from it too."""
        epoch = self.state.rm_epoch
        prefix = f"container_e{epoch:02d}_" if epoch else "container_"
        container_id = f"{prefix}{app.id}_{app.attempt:02d}_{app.next_container:06d}"
        app.next_container += 1
        return container_id

    def set_app_demand(self, app: App, demand: Resource) -> None:
        app.demand = demand
        self.log.app(app)  # the walk's order and offers read the demand

    def set_app_fair_share(self, app: App, share: Resource) -> None:
        app.fair_share = share
        self.log.app(app)  # whether it is starved (may reserve) reads its fair share

    def set_locality(self, app: App, key: SchedulerKey, locality: LocalityState) -> None:
        app.locality[key] = locality

    def track_runnable(self, app: App) -> None:
        """``trackRunnableApp`` + ``addApp(runnable=true)``."""
        state = self.state
        app.runnable = True
        state.queues[app.queue].runnable_apps.append(app)
        self.log.app(app)
        state.user_runnable[app.user] = state.user_runnable.get(app.user, 0) + 1
        for name in self._context.ancestry(app.queue):
            state.queues[name].num_runnable += 1

    def track_non_runnable(self, app: App) -> None:
        """``trackNonRunnableApp`` + ``addApp(runnable=false)``."""
        app.runnable = False
        self.state.queues[app.queue].non_runnable_apps.append(app)
        self.state.user_waiting.setdefault(app.user, []).append(app)

    def promote(self, app: App) -> None:
        self.state.queues[app.queue].non_runnable_apps.remove(app)
        self.state.user_waiting[app.user].remove(app)
        self.track_runnable(app)

    def untrack(self, app: App) -> bool:
        """``removeApp``: out of its leaf, its AM out of the leaf's AM usage, and out of the
        counts; True if it was runnable."""
        state = self.state
        leaf = state.queues[app.queue]
        if app.runnable and app in leaf.runnable_apps:
            leaf.runnable_apps.remove(app)
            self.log.app(app)
            if app.am_running and app.am_resource is not None:
                leaf.am_resource_usage = subtract(leaf.am_resource_usage, app.am_resource)
                self.log.am_limit(app.queue)  # a move changes app.queue before the index looks
            state.user_runnable[app.user] -= 1
            for name in self._context.ancestry(app.queue):
                state.queues[name].num_runnable -= 1
            app.runnable = False
            return True
        if app in leaf.non_runnable_apps:
            leaf.non_runnable_apps.remove(app)
        waiting = state.user_waiting.get(app.user, [])
        if app in waiting:
            waiting.remove(app)
        return False

    def add_asks(self, app: App, key: SchedulerKey, places: Iterable[tuple[str, bool]],
                 capability: Resource, count: int) -> None:
        """``count`` more containers of ``key`` asked at each of ``places`` (name, relax).

        A key asked for again takes back the host and rack asks it was left with when its ANY
        ask ran out (§3.6.6: YARN's placement allocator outlives the scheduler key)."""
        table = app.asks.get(key)
        if table is None:
            table = app.asks[key] = app.inactive_asks.pop(key, {})
        for name, relax in places:
            ask = table.get(name)
            if ask is None:
                table[name] = Ask(capability, count, relax)
            else:
                ask.count += count
                ask.relax_locality = relax  # the newest request's flag wins, as in YARN
        if ANY in table and next(iter(table)) != ANY:  # keep ANY first (the §5.2 order)
            app.asks[key] = {ANY: table.pop(ANY), **table}
        self.log.app(app)

    def decrement_asks(self, app: App, key: SchedulerKey, places: Iterable[str]) -> None:
        """One less at each of ``places``; an ask at 0 goes, ANY at 0 ends the key. The key's
        other asks stay, inactive, until it is asked for again (§3.6.6,
        ``LocalityAppPlacementAllocator.decrementOutstanding``). Records nothing: it is called
        only just before :meth:`allocate` for the same app, which records it."""
        table = app.asks[key]
        for name in places:
            ask = table.get(name)
            if ask is None:
                continue
            ask.count -= 1
            if ask.count <= 0:
                del table[name]
        if ANY not in table:
            del app.asks[key]
            if table:
                app.inactive_asks[key] = table


RECORDS: Records = {
    AppWriter.add_app: (Change.MEMBERSHIP,),
    AppWriter.reject_app: (),
    AppWriter.place_app: (Change.MEMBERSHIP,),
    AppWriter.move_app: (Change.MEMBERSHIP,),
    AppWriter.end_app: (Change.MEMBERSHIP,),
    AppWriter.forget_app: (),
    AppWriter.new_attempt: (),
    AppWriter.new_container_id: (),
    AppWriter.set_app_demand: (Change.APP,),
    AppWriter.set_app_fair_share: (Change.APP,),
    AppWriter.set_locality: (),
    AppWriter.track_runnable: (Change.APP,),
    AppWriter.track_non_runnable: (),
    AppWriter.promote: (Change.APP,),
    AppWriter.untrack: (Change.APP, Change.AM_LIMIT),  # a runnable app's; its AM's leaf
    AppWriter.add_asks: (Change.APP,),
    AppWriter.decrement_asks: (),
}

"""The structures the incremental starvation pass keeps (docs/semantics.md §4.3, §4.4).

:class:`PendingApps` — one leaf's runnable apps with pending demand, in the leaf policy's order
(the ``TreeSet`` of ``fetchAppsWithDemand``), kept sorted by the policy's sort key and
re-keyed only for the apps the change log recorded; a leaf where a key would hold a NaN is sorted
with the comparator on every pass instead, as the reference does.

:class:`StarvedQueue` — the starved-apps queue during one pass: Java's binary heap, as
the reference's ``add_starved_app`` (``tests/oracles/starvation.py``) replays it, on a list with
every app's position, frozen back into a :class:`~fairshare.core.model.records.StarvedApps` at
the end.
"""

from __future__ import annotations

import functools
import heapq
import math
from bisect import bisect_left, insort
from collections.abc import Iterable, Iterator, Mapping

from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.model.queue_settings import QueueSettings
from fairshare.core.model.records import App, StarvationWrites, StarvedApps
from fairshare.core.rules.policies import SortKey, comparator_for, sort_key_for
from fairshare.resources.vector import fits_in, is_none, subtract


def has_pending_demand(app: App) -> bool:
    """``fetchAppsWithDemand``'s test: ``demand − usage`` is not none (any component)."""
    return not is_none(subtract(app.demand, app.usage))


class PendingApps:
    """One leaf's runnable apps with pending demand, in comparator order; those in their
    post-preemption back-off (§4.6) are held aside until it ends."""

    def __init__(self, settings: QueueSettings) -> None:
        self.policy = settings.policy
        self.apps: dict[str, App] = {}  # the members
        self._key_of: dict[str, SortKey | None] = {}
        # keys of the keyed members past their back-off, sorted; each ends with the app id
        self._entries: list[SortKey] = []
        self._held: dict[str, SortKey] = {}  # keyed members in their back-off
        self._releases: list[tuple[int, str]] = []  # (back-off end, app id); some stale
        self._unkeyed = 0
        self.built = False

    def rebuild(self, s: Scheduler, runnable: list[App]) -> None:
        self.apps.clear()
        self._key_of.clear()
        self._entries.clear()
        self._held.clear()
        self._releases.clear()
        self._unkeyed = 0
        for app in runnable:
            self._put(s, app)
        self.built = True

    def refresh(self, s: Scheduler, runnable: list[App], touched: Mapping[str, App]) -> None:
        """Re-key the ``touched`` apps of the leaf: only a touched app's demand, usage, weight
        or start time can have changed, and every app that joined or left the leaf's runnable
        list was recorded in the change log while in it (:mod:`fairshare.core.model.changes`)."""
        members = {a.id for a in runnable} if touched else set()  # not one scan per app
        for app_id, app in touched.items():
            if app_id in self.apps:
                self._drop(app_id)
            if app_id in members:
                self._put(s, app)

    def sync(self, now: int, checked: Iterable[App]) -> None:
        """Hold the ``checked`` members whose back-off has started (the preemption round sets
        it for the apps it takes), release the held ones whose back-off has ended."""
        for app in checked:
            key = self._key_of.get(app.id)
            if key is not None and app.id not in self._held \
                    and now < app.next_starvation_check:
                del self._entries[bisect_left(self._entries, key)]
                self._hold(app.id, key, app.next_starvation_check)
        releases = self._releases
        while releases and releases[0][0] <= now:
            _, app_id = heapq.heappop(releases)
            member = self.apps.get(app_id)
            if member is not None and app_id in self._held \
                    and now >= member.next_starvation_check:
                insort(self._entries, self._held.pop(app_id))

    def next_release(self) -> float:
        """No held app's back-off ends before this (it may be earlier than needed)."""
        return self._releases[0][0] if self._releases else math.inf

    def _hold(self, app_id: str, key: SortKey, until: int) -> None:
        self._held[app_id] = key
        heapq.heappush(self._releases, (until, app_id))

    def _put(self, s: Scheduler, app: App) -> None:
        if not has_pending_demand(app):
            return
        key = sort_key_for(self.policy, len(s.types))(s.app_view(app), s.state.capacity)
        self.apps[app.id] = app
        self._key_of[app.id] = key
        if key is None:
            self._unkeyed += 1
        elif s.now < app.next_starvation_check:
            self._hold(app.id, key, app.next_starvation_check)
        else:
            insort(self._entries, key)

    def _drop(self, app_id: str) -> None:
        del self.apps[app_id]
        key = self._key_of.pop(app_id)
        if key is None:
            self._unkeyed -= 1
        elif self._held.pop(app_id, None) is None:
            del self._entries[bisect_left(self._entries, key)]

    def eligible(self, s: Scheduler, runnable: list[App]) -> Iterator[App]:
        """The members past their back-off, in the policy's comparator order. Where every key
        exists, that is the key order. Else they are sorted with the comparator, which is then
        not a total order: the reference's input (the leaf's list order) decides, so it is
        reproduced."""
        if not self._unkeyed:
            apps = self.apps
            return (apps[key[-1]] for key in self._entries)
        compare, cluster, now = comparator_for(self.policy, len(s.types)), s.state.capacity, s.now
        members = [a for a in runnable if a.id in self.apps and now >= a.next_starvation_check]

        def cmp(a: App, b: App) -> int:
            return compare(s.app_view(a), s.app_view(b), cluster)

        return iter(sorted(members, key=functools.cmp_to_key(cmp)))

    def key_of(self, app_id: str) -> SortKey | None:
        """The member's sort key; None if it is not a member (or has no key)."""
        return self._key_of.get(app_id)

    @property
    def keyed(self) -> bool:
        return not self._unkeyed


class StarvedQueue:
    """``FSStarvedApps`` during one pass, with positions (for the order events are reported)."""

    def __init__(self, queue: StarvedApps, apps: Mapping[str, App],
                 writes: StarvationWrites) -> None:
        self.heap = list(queue.heap)
        self.pos = {app_id: i for i, app_id in enumerate(self.heap)}
        self.being_processed = queue.being_processed
        # Java's heap compares the values apps hold when it sifts (§4.4): those the pass
        # has decided so far, else those in the state
        self.apps, self.writes = apps, writes
        self.changed = False

    def add(self, app_id: str) -> bool:
        """``addStarvedApp``; True if the app was not in the queue (nor being processed)."""
        if app_id == self.being_processed or app_id in self.pos:
            return False
        heap, pos, apps, starvation = self.heap, self.pos, self.apps, self.writes.starvation
        mine = starvation(apps[app_id])
        k = len(heap)
        heap.append(app_id)
        while k > 0:  # siftUpUsingComparator with the StarvationComparator (§4.4)
            parent = (k - 1) >> 1
            other = heap[parent]
            if not fits_in(mine, starvation(apps[other])):
                break
            heap[k] = other
            pos[other] = k
            k = parent
        heap[k] = app_id
        pos[app_id] = k
        self.changed = True
        return True

    def value(self) -> StarvedApps:
        return StarvedApps(tuple(self.heap), self.being_processed)

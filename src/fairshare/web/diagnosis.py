"""What holds each queue and each waiting app of a watched ResourceManager, in the words of
``fairshare explain`` (docs/watch.md "Diagnosis").

A simulation knows every decision (:mod:`fairshare.sim.record.waiting` reads the engine's
events); a real RM's REST API does not say why an app waits. Each cause is decided here from
what it does say (usage, shares, demand, AM usage and limit, app counts, node room), the
allocation file and yarn-site the admin gave, and the watcher's history of how long a queue
has been short (:class:`QueueFacts`). The causes, their order and their words are those of
:mod:`fairshare.sim.record.causes` and ``waiting.py`` (one implementation): a waiting app gets
the first that holds of

1. not runnable: its user's ``maxRunningApps``, then its queue's or an ancestor's (as
   ``MaxRunningAppsEnforcer.canAppBeRunnable`` checks);
2. the queue or an ancestor at its max share for the app's smallest ask
   (``FSAppAttempt.assignContainer``);
3. room for the ask on some node: its AM refused by the leaf's AM share
   (``FSLeafQueue.canRunAppAM``), else nothing but the next heartbeat;
4. preemption off; the utilization gate closed (``FairScheduler.shouldAttemptPreemption``,
   :func:`utilization`); no preemption timeout for the queue;
5. short of threshold × fair share (fair-share starvation): the timeout not yet passed; passed,
   with a starvation smaller than the ask, with nothing to take (every queue over its fair
   share non-preemptable, or none over it), or with preemption under way (FSPreemptionThread);
6. otherwise at its fair share while the cluster is full.

What REST does not show is not guessed: asks refused above the maximum allocation never reach
``resourceRequests``, and nodes do not say who reserved them, so those causes do not appear.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from fairshare.config.model import TIMEOUT_NEVER_MS, UNSET_TIMEOUT_MS, AllocationConfig
from fairshare.config.yarnsite import SiteConfig
from fairshare.core import QueueSettings, QueueTree, build_queue_tree
from fairshare.resources.display import duration, memory, percent, vcores_number
from fairshare.resources.vector import float32, float32_decimal
from fairshare.sim.importer.dump import Amounts, DumpApp, DumpQueue
from fairshare.sim.record.causes import BY_KEY, CAUSES, WaitCause
from fairshare.sim.record.contention import short_of_threshold, threshold_of
from fairshare.web.sample import COLUMN, Sample, queue_values

_NEVER = (TIMEOUT_NEVER_MS, UNSET_TIMEOUT_MS)
_ORDER = {c.key: i for i, c in enumerate(CAUSES)}


@dataclass(frozen=True, slots=True)
class QueueFacts:
    """What consecutive samples tell of a queue (the watcher fills it): since when (Unix ms) it
    has been continuously short of threshold × its fair share, and in contention (pending
    containers > 0); None: not now, or not known."""

    short_since_ms: int | None = None
    contention_since_ms: int | None = None


@dataclass(frozen=True, slots=True)
class Finding:
    """What holds a queue (``app`` None) or a waiting app: ``cause`` a ``WaitCause`` value,
    ``words`` the explanation with the live numbers, ``setting`` the setting (and value) that
    would change it, ``advice`` the cause's advice for it, ``since_ms`` since when, if known."""

    queue: str
    app: str | None
    cause: str
    words: str
    setting: str | None
    advice: str
    since_ms: int | None


def diagnose(sample: Sample, allocations: AllocationConfig, site: SiteConfig,
             history_facts: Mapping[str, QueueFacts]) -> list[Finding]:
    """Per leaf with something waiting (tree order): the queue's finding — the cause holding
    most of its waiting apps (ties in ``CAUSES`` order), or, with no app known, the queue's
    own — then one finding per waiting app."""
    ctx = _Context(sample, allocations, site, history_facts)
    out: list[Finding] = []
    for queue in sample.queues():
        if queue.children:
            continue
        waiting = [a for a in ctx.apps_in.get(queue.name, []) if _waiting(a)]
        apps = [ctx.finding(queue, app) for app in waiting]
        if apps:
            counts = Counter(f.cause for f in apps)
            top = min(counts, key=lambda c: (-counts[c], _ORDER.get(c, 99)))
            first = next(f for f in apps if f.cause == top)
            out.append(replace(first, app=None))
        elif (queue.pending_containers or 0) > 0 or (queue.pending_apps or 0) > 0:
            out.append(ctx.finding(queue, None))
        out.extend(apps)
    return out


def effective_settings(sample: Sample, allocations: AllocationConfig, site: SiteConfig
                       ) -> dict[str, QueueSettings]:
    """Every sampled queue's effective settings: the allocation file's, a queue it does not
    name inheriting as YARN creates it (``/metrics``, ``watch status`` and the pages share
    this)."""
    tree = _tree_for(build_queue_tree(allocations, site.resource_types), sample)
    out: dict[str, QueueSettings] = {}
    for q in sample.queues():  # a queue YARN could not create has its nearest ancestor's
        name = q.name
        while name not in tree:
            name = name.rsplit(".", 1)[0] if "." in name else "root"
        out[q.name] = tree[name].settings
    return out


def starvation_configured(settings: QueueSettings) -> bool:
    """A fair-share or min-share preemption timeout applies: the queue can ever be starved."""
    return not (settings.fair_share_preemption_timeout_ms in _NEVER
                and settings.min_share_preemption_timeout_ms in _NEVER)


def utilization(sample: Sample) -> float:
    """``FairScheduler.shouldAttemptPreemption``'s measure: the larger of the allocated
    memory and vcore fractions of the cluster, in Java float division; NaN for an empty
    cluster."""
    total = sample.cluster or sample.root.max_resources
    if not total or not any(total):
        return float("nan")
    return max(float32(u / t) for u, t in zip(sample.root.used, total, strict=True) if t > 0)


def preemption_gated(sample: Sample, site: SiteConfig) -> bool:
    """Preemption on but starvation not evaluated: the utilization threshold not below the
    utilization (NaN, an empty cluster, keeps the gate closed)."""
    return site.preemption and not site.preemption_cluster_utilization_threshold < \
        utilization(sample)


def _waiting(app: DumpApp) -> bool:
    """ACCEPTED with no AM container yet, or asks outstanding (an AM being launched is not
    waiting for the scheduler)."""
    asking = any(a.count > 0 for a in app.asks or ())
    return (app.state in ("ACCEPTED", "RUNNING") and asking) or (
        app.state == "ACCEPTED" and app.am_container is None)


def _res(amounts: Amounts) -> str:
    return f"{memory(amounts[0])}, {vcores_number(amounts[1])} vcores"


def _fits(a: Amounts, b: Amounts, plus: Amounts = (0, 0)) -> bool:
    return a[0] + plus[0] <= b[0] and a[1] + plus[1] <= b[1]


def _smallest_ask(app: DumpApp | None) -> Amounts | None:
    sizes = [a.size for a in (app.asks or ()) if a.count > 0] if app else []
    return min(sizes) if sizes else None


_Held = tuple[str, str, str | None, int | None]  # cause, detail, setting, since


class _Context:
    """One sample's numbers, settings and counts, computed once for all its findings."""

    def __init__(self, sample: Sample, allocations: AllocationConfig, site: SiteConfig,
                 facts: Mapping[str, QueueFacts]) -> None:
        self.sample, self.config, self.site, self.facts = sample, allocations, site, facts
        self.now = sample.time_ms
        self.queues = {q.name: q for q in sample.queues()}
        self.by_queue = effective_settings(sample, allocations, site)
        self.apps_in: dict[str, list[DumpApp]] = {}
        accepted: dict[str, list[DumpApp]] = {}  # under each queue, in submission order
        self.user_running: Counter[str] = Counter()
        for app in sorted(sample.apps, key=lambda a: (a.started_ms, a.id)):
            self.apps_in.setdefault(app.queue, []).append(app)
            self.user_running[app.user] += app.state == "RUNNING"
            parts = app.queue.split(".")
            for depth in range(1, len(parts) + 1) if app.state == "ACCEPTED" else ():
                accepted.setdefault(".".join(parts[:depth]), []).append(app)
        self.rooms = {(n.capacity[0] - n.used[0], n.capacity[1] - n.used[1])
                      for n in sample.nodes}
        self.held_back = self._not_runnable(accepted)
        self.used, self.gated = utilization(sample), preemption_gated(sample, site)
        self.over = [q for q in self.queues.values() if not q.children and _above_fair_share(q)]
        self.takeable = {q.name for q in self.over
                         if q.preemptable is not False and self.settings(q.name).preemptable}
        self.memo: dict[tuple[str, Amounts | None], _Held] = {}  # preemption's, by leaf and ask

    def settings(self, name: str) -> QueueSettings:
        while name not in self.by_queue:  # an app's queue the scheduler answer did not list
            name = name.rsplit(".", 1)[0]
        return self.by_queue[name]

    def _not_runnable(self, accepted: Mapping[str, list[DumpApp]]) -> dict[str, DumpQueue]:
        """ACCEPTED apps held by a queue's ``maxRunningApps`` → that queue. Runnable apps are
        at most ``maxApps``, so at least numActiveApps + numPendingApps − maxApps of its
        pending apps are not runnable: the latest submitted (``MaxRunningAppsEnforcer``
        makes apps runnable in submission order)."""
        held: dict[str, DumpQueue] = {}
        for queue in self.sample.queues():
            active, pending = _app_counts(queue)
            limit = self.max_apps(queue)
            excess = active + pending - limit
            if excess <= 0:
                continue
            under = accepted.get(queue.name, [])
            for app in under[len(under) - min(excess, len(under)):]:
                held.setdefault(app.id, queue)
        return held

    def max_apps(self, queue: DumpQueue) -> int:
        """The RM's maxApps (the queue's maxRunningApps), else the file's."""
        return queue.max_apps if queue.max_apps is not None else \
            self.settings(queue.name).max_running_apps

    def user_limit(self, user: str) -> int:
        return self.config.user_max_apps.get(user, self.config.user_max_apps_default)

    def finding(self, leaf: DumpQueue, app: DumpApp | None) -> Finding:
        """The first cause that holds, in the order of the module docstring."""
        cause, detail, setting, since = self._why(leaf, app)
        words = BY_KEY[cause]
        if since is None and app is not None and app.state == "ACCEPTED" and app.started_ms:
            since = app.started_ms
        return Finding(leaf.name, app.id if app else None, cause,
                       f"held by {words.words} — {detail}", setting,
                       words.advice.format(limit=setting or cause), since)

    def _why(self, leaf: DumpQueue, app: DumpApp | None) -> _Held:
        ask = _smallest_ask(app)
        held = (self._not_runnable_cause(leaf, app) or self._max_share(leaf, ask)
                or self._room(leaf, app, ask))
        if held is None and (leaf.name, ask) not in self.memo:
            self.memo[leaf.name, ask] = self._preemption(leaf, ask)
        return held or self.memo[leaf.name, ask]

    def _not_runnable_cause(self, leaf: DumpQueue, app: DumpApp | None) -> _Held | None:
        if app is not None and app.state != "ACCEPTED":
            return None
        if app is not None and self.user_running[app.user] >= self.user_limit(app.user):
            limit = self.user_limit(app.user)
            return (WaitCause.USER_MAX_APPS, f"user {app.user}'s maxRunningApps {limit} "
                    f"reached ({self.user_running[app.user]} running)",
                    f"maxRunningApps of user {app.user} = {limit}", None)
        queue = self.held_back.get(app.id) if app else (
            leaf if leaf.pending_apps and sum(_app_counts(leaf)) > self.max_apps(leaf) else None)
        if queue is None:
            return None
        (active, pending), limit = _app_counts(queue), self.max_apps(queue)
        return (WaitCause.MAX_RUNNING_APPS, f"maxRunningApps {limit} of {queue.name} reached "
                f"({active} running, {pending} pending)",
                f"maxRunningApps of {queue.name} = {limit}", None)

    def _max_share(self, leaf: DumpQueue, ask: Amounts | None) -> _Held | None:
        """A configured max share only: REST's maxResources writes an unset one as the cluster."""
        parts = leaf.name.split(".")  # the leaf, then its parents
        for queue in filter(None, (self.queues.get(".".join(parts[:depth]))
                                   for depth in range(len(parts), 0, -1))):
            top = queue.max_resources
            if top is None or self.settings(queue.name).max_share is None:
                continue
            if ask is None and _fits(top, queue.used):
                return (WaitCause.MAX_SHARE, f"{queue.name} uses {_res(queue.used)}, its max "
                        f"share", f"maxResources of {queue.name} = {_res(top)}", None)
            if ask is not None and not _fits(queue.used, top, ask):
                return (WaitCause.MAX_SHARE, f"{queue.name} uses {_res(queue.used)}: one more "
                        f"container of {_res(ask)} would pass its max share",
                        f"maxResources of {queue.name} = {_res(top)}", None)
        return None

    def _room(self, leaf: DumpQueue, app: DumpApp | None, ask: Amounts | None
              ) -> _Held | None:
        if ask is None or not any(_fits(ask, room) for room in self.rooms):
            return None
        share = self.settings(leaf.name).max_am_share
        am_max, am_used = leaf.am_max, leaf.am_used or (0, 0)
        if (app is not None and app.state == "ACCEPTED" and share >= 0 and am_max
                and any(am_max) and not _fits(am_used, am_max, ask)):
            return (WaitCause.MAX_AM_SHARE, f"AM usage {_res(am_used)} + this AM {_res(ask)} "
                    f"is above the AM limit {_res(am_max)}",
                    f"maxAMShare of {leaf.name} = {float32_decimal(share):g}", None)
        return (WaitCause.ROOM_FREE, f"a node has room for {_res(ask)}",
                "the node heartbeat interval and locality delay", None)

    def _preemption(self, leaf: DumpQueue, ask: Amounts | None) -> _Held:
        site, settings = self.site, self.settings(leaf.name)
        if not site.preemption:
            return (WaitCause.PREEMPTION_OFF, "yarn.scheduler.fair.preemption is false",
                    "yarn.scheduler.fair.preemption = false", None)
        threshold, used = site.preemption_cluster_utilization_threshold, self.used
        if self.gated:
            return (WaitCause.UTILIZATION_GATE, f"utilization {percent(used)} is below "
                    f"the {percent(threshold)} threshold: preemption is gated",
                    "yarn.scheduler.fair.preemption.cluster-utilization-threshold = "
                    f"{float32_decimal(threshold):g}", None)
        fair = leaf.fair or (0, 0)
        line = threshold_of(settings.fair_share_preemption_threshold)
        short = bool(short_of_threshold(np.array([leaf.used], dtype=np.int64),
                                        np.array([fair], dtype=np.int64),
                                        np.array([line]))[0])
        facts = self.facts.get(leaf.name, QueueFacts())
        since = facts.short_since_ms if short else None
        held = (f"below {float32_decimal(line):g} × its fair share "
                + (f"for {duration(self.now - since)}" if since is not None else "(since when "
                   "not known yet)"))
        timeout = settings.fair_share_preemption_timeout_ms
        if not starvation_configured(settings):
            told = held + "; " if short else "not below its fair-share threshold; "
            return (WaitCause.STARVATION_NOT_CONFIGURED, told + "fairSharePreemptionTimeout "
                    "unset, so nothing will ever be preempted for it",
                    f"fairSharePreemptionTimeout of {leaf.name} (unset, and no "
                    "minSharePreemptionTimeout)", since)
        if not short:
            return (WaitCause.AT_FAIR_SHARE, f"it uses {_res(leaf.used)} against a fair share "
                    f"of {_res(fair)}, the cluster {percent(used)} used",
                    f"the weight of {leaf.name} = {settings.weight:g}",
                    facts.contention_since_ms)
        told = "unset" if timeout in _NEVER else duration(timeout)
        setting = (f"fairSharePreemptionTimeout of {leaf.name} = {told} "
                   f"(threshold {float32_decimal(line):g})")
        if since is None or timeout in _NEVER or self.now - since < timeout:
            left = ("; fairSharePreemptionTimeout unset: only min-share starvation "
                    "(minSharePreemptionTimeout) applies" if timeout in _NEVER else
                    "" if since is None else f", {duration(timeout - (self.now - since))} "
                    f"before its fairSharePreemptionTimeout of {told} passes")
            return WaitCause.PREEMPTION_TIMEOUT, held + left, setting, since
        return self._starved(leaf, ask, held, line, since)

    def _starved(self, leaf: DumpQueue, ask: Amounts | None, held: str, line: float,
                 since: int) -> _Held:
        fair, demand = leaf.fair or (0, 0), (leaf.demand or (2**63 - 1,))[0]
        # FSAppAttempt.fairShareStarvation: min(threshold × fair share, demand) − usage;
        # getStarvedResourceRequests counts the containers that fit in it with the scheduler's
        # DefaultResourceCalculator: by memory
        room = max(0, min(int(line * fair[0]), demand) - leaf.used[0])
        if ask is not None and room < ask[0]:
            return (WaitCause.STARVATION_UNDER_A_CONTAINER, f"{held}, but threshold × fair "
                    f"share less usage ({memory(room)}) is less than a container of "
                    f"{memory(ask[0])}",
                    f"fairSharePreemptionThreshold of {leaf.name} = {line:g}", since)
        if ask is not None and self.sample.nodes and not any(
                _fits(ask, n.capacity) for n in self.sample.nodes):
            return (WaitCause.NO_NODE_FITS, f"{held}, past its timeout, but no node is big "
                    f"enough for a container of {_res(ask)}", "the node sizes", since)
        over = [q for q in self.over if q.name != leaf.name]
        if not over:
            return (WaitCause.VICTIMS_AT_FAIR_SHARE, f"{held}, and no other queue is above "
                    "its fair share", f"the weight of {leaf.name}", since)
        takeable = [q for q in over if q.name in self.takeable]
        names = _names(over)
        if not takeable:
            return (WaitCause.NON_PREEMPTABLE_VICTIMS, f"{held}; the queues above their fair "
                    f"share ({names}) have allowPreemptionFrom false",
                    f"allowPreemptionFrom of {names}", since)
        kill = duration(self.site.wait_time_before_kill_ms)
        check = duration(self.site.wait_time_before_next_starvation_check_ms)
        return (WaitCause.PREEMPTION_ROUND, f"{held}, past its timeout: containers of "
                f"{_names(takeable)} are to be preempted",
                f"waitTimeBeforeKill = {kill}, waitTimeBeforeNextStarvationCheck = {check}",
                since)


def _app_counts(queue: DumpQueue) -> tuple[int, int]:
    """numActiveApps and numPendingApps (a parent: its leaves' sums)."""
    values = queue_values(queue)
    return values[COLUMN["running_apps"]], values[COLUMN["pending_apps"]]


def _names(queues: list[DumpQueue], listed: int = 5) -> str:
    more = f" and {len(queues) - listed} more" if len(queues) > listed else ""
    return ", ".join(q.name for q in queues[:listed]) + more


def _above_fair_share(queue: DumpQueue) -> bool:
    """Usage above the instantaneous fair share: in memory, and in vcores too under DRF (the
    vcore share of a ``fair`` queue is 0)."""
    fair = queue.fair or (0, 0)
    drf = (queue.policy or "").lower() == "drf"
    return queue.used[0] > fair[0] or (drf and queue.used[1] > fair[1])


def _tree_for(tree: QueueTree, sample: Sample) -> QueueTree:
    """The allocation file's tree with the queues the RM has and the file does not name
    (created by placement rules) added as YARN creates them: inheriting their parent's
    settings."""
    for queue in sample.queues():
        if queue.name in tree or queue.name.rsplit(".", 1)[0] not in tree:
            continue
        with contextlib.suppress(ValueError):  # YARN could not create it: parent's settings
            tree = tree.with_queue(queue.name, is_leaf=not queue.children, dynamic=True)
    return tree


__all__ = ["Finding", "QueueFacts", "diagnose", "effective_settings", "preemption_gated",
           "starvation_configured", "utilization"]

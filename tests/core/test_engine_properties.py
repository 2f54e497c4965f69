"""Engine properties over random step sequences (a hypothesis state machine).

Steps: add / remove / resize / gracefully decommission a node (2–4 racks), submit an app
(managed or unmanaged; asks at ANY, a host, a rack or an unknown host, with or without
relaxLocality), ask for more, heartbeat one node or all, update (with preemption), advance the
clock, release containers, finish or kill an app, move it, forget an ended one; plus "cycle"
(heartbeat all, advance, update — a simulator's loop) and "burst" (a newcomer, then cycles) so
that runs reach starvation and preemption often. yarn-site varies: utilization threshold,
waitTimeBeforeKill, next-check delay, assignmultiple / max.assign, delay scheduling thresholds.
The allocation file has three levels, ``fair`` and ``drf`` leaves, queues that may not be
preempted from (one of them only by inheritance), ``maxRunningApps``, ``userMaxApps``,
``maxResources``, ``maxAMShare``, ``minResources``, and a queue whose AMs may not be preempted.

Checked after every step:

* no container is ever placed on a node between its ``node-decommissioning`` and its removal;
* every check of :mod:`tests.oracles.invariants` (no node over-allocated unless a resize shrank
  it, usage conservation per node / app / queue / cluster, runnable bookkeeping, limits,
  reservations, preemption marks), and a :class:`~tests.oracles.ledger.NodeLedger` rebuilt
  from the events alone: *no allocation ever* put a node over its capacity, and the ledger
  agrees with the state;
* ``Engine.snapshot()``, which keeps the copies of unchanged nodes and ended apps from one
  snapshot to the next, equals a snapshot copied afresh from the state (every field);
* our own ledger of warned-but-running victims equals the owners' ``containersToBePreempted``;
  every ``container-preempted`` was warned, for the same beneficiary, and dies at its
  ``kill-at-ms``.

Checked for every preemption round (``update``), re-deriving each decision from a snapshot of
the state taken between the update pass and the preemption pass, without the engine's victim
code (docs/semantics.md §5.3–§5.6):

* (a) no victim's leaf is non-preemptable (``allowPreemptionFrom``, inherited — both our reading
  of the XML and ``engine.tree[q].settings.preemptable``); an AM victim's attempt was created in
  a queue whose ``am.preemption`` allows it (YARN-9537: looked up when the attempt is created);
* (b) after the round, every victim app's usage minus *all* its announced victims is not below
  its app fair share by its leaf policy's calculator (``compare(...) >= 0``, singleType), and
  each victim passed §5.5 at the moment it was chosen;
* (c) selections are re-split from the warned events (a selection ends at the first victim with
  which the request fits, §5.4); each one must make room. If it contains an AM, then the
  greedy AM-free phase on that node could not have made room: the non-AM victims plus the
  node's free space do not fit the request (when the node had any non-AM candidate), and every
  other unmarked non-AM container there was not preemptable (§5.5, given the chosen ones) —
  the chosen non-AM set was maximal. This is order-independent but *not* "no AM-free subset of
  that node fits": §5.4 is greedy first-fit, so a cleverer subset may exist; such cases are
  counted (``GREEDY_MISSES``) and not failed. Other nodes are not searched (the §5.3 node
  search is order-dependent).

Rounds are re-derived only with ``waitTimeBeforeKill >= 1`` ms: with 0, victims die inside the
round and later starved apps of the same round see a state the snapshot does not hold.

Determinism: at the end of every run the recorded steps are replayed on a fresh engine and the
full event record lists must be equal, and equal to those of the same steps without the
forgets (forgetting an ended app decides nothing); a seeded walk is also replayed in fresh
interpreters with other ``PYTHONHASHSEED`` values.
``test_am_preemption_is_looked_up_for_each_new_attempt`` runs the same checks on a fixed
sequence: the regression test of the one engine bug found here.

``FAIRSHARE_PROPERTY_EXAMPLES`` (default 100) sets the number of runs; by default runs are
derandomized; set ``FAIRSHARE_PROPERTY_RANDOM=1`` for fresh random runs.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import os
import random
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

from fairshare.config.model import PolicyName
from fairshare.core.engine import Engine
from fairshare.core.model.event_records import event_record
from fairshare.core.model.events import (
    AppAttemptRestarted,
    AppSubmitted,
    ContainerAllocated,
    ContainerCompleted,
    ContainerPreempted,
    Event,
    NodeDecommissioning,
    NodeRemoved,
    PreemptionWarned,
)
from fairshare.core.preemption.blocked import BLOCKED_CAUSES, ROOM_FREE
from fairshare.core.rules.policies import calculator_for
from fairshare.core.snapshot import take_snapshot as copy_of_state
from fairshare.resources.vector import Resource, fits_in, none_like
from tests.core.engine_builders import (
    GB,
    PREEMPTION_ON,
    ask,
    first_difference,
    make_engine,
    r,
    same,
)
from tests.oracles.invariants import (
    check_all,
    node_over_allocation,
    queue_counts,
    usage_conservation,
)
from tests.oracles.ledger import NodeLedger, allocation_overflows

# -- the configuration --------------------------------------------------------------------------

LEAF_POLICY: dict[str, PolicyName] = {
    "root.default": PolicyName.FAIR,
    "root.prod.etl": PolicyName.FAIR,
    "root.prod.web": PolicyName.FAIR,
    "root.research.ml": PolicyName.DRF,
    "root.research.adhoc": PolicyName.FAIR,
    "root.batch.low": PolicyName.DRF,
    "root.batch.high": PolicyName.FAIR,
}
LEAVES = tuple(LEAF_POLICY)
NON_PREEMPTABLE = frozenset({
    "root.research", "root.research.ml", "root.research.adhoc", "root.batch.low",
})
AM_PREEMPTION_OFF = frozenset({"root.prod.web"})


@dataclass(frozen=True)
class QueueModel:
    """What we know of the configuration from reading the XML and yarn-site ourselves."""

    leaf_policy: Mapping[str, PolicyName]
    non_preemptable: frozenset[str]
    am_preemption_off: frozenset[str]


MODEL = QueueModel(LEAF_POLICY, NON_PREEMPTABLE, AM_PREEMPTION_OFF)
USERS = ("alice", "bob", "carol")
NODE_NAMES = tuple(f"n{i}" for i in range(6))
MEMORY = (512, 1024, 1536, 2048, 3072, 4096, 6144)


def allocation_body(fs_threshold: str) -> str:
    return f"""
<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>
<defaultMinSharePreemptionTimeout>1</defaultMinSharePreemptionTimeout>
<defaultFairSharePreemptionThreshold>{fs_threshold}</defaultFairSharePreemptionThreshold>
<user name="carol"><maxRunningApps>2</maxRunningApps></user>
<queue name="default"><schedulingPolicy>fair</schedulingPolicy></queue>
<queue name="prod">
  <schedulingPolicy>fair</schedulingPolicy>
  <minResources>8192 mb, 4 vcores</minResources>
  <queue name="etl"><schedulingPolicy>fair</schedulingPolicy><maxRunningApps>2</maxRunningApps>
  </queue>
  <queue name="web"><schedulingPolicy>fair</schedulingPolicy><maxAMShare>0.3</maxAMShare>
    <weight>2</weight></queue>
</queue>
<queue name="research">
  <allowPreemptionFrom>false</allowPreemptionFrom>
  <queue name="ml"><allowPreemptionFrom>true</allowPreemptionFrom>
    <maxResources>12288 mb, 12 vcores</maxResources></queue>
  <queue name="adhoc"><schedulingPolicy>fair</schedulingPolicy></queue>
</queue>
<queue name="batch">
  <maxResources>70%</maxResources>
  <queue name="low"><allowPreemptionFrom>false</allowPreemptionFrom>
    <maxRunningApps>1</maxRunningApps></queue>
  <queue name="high"><schedulingPolicy>fair</schedulingPolicy>
    <minResources>4096 mb, 2 vcores</minResources></queue>
</queue>
"""


@dataclass(frozen=True)
class Config:
    utilization_threshold: str
    kill_ms: int  # >= 1: a round's victims are never killed inside the round
    next_check_ms: int
    assign_multiple: bool
    racks: int
    fs_threshold: str
    locality_threshold: str = "-1.0"  # node and rack; negative: no delay scheduling
    max_assign: int = -1  # with assignmultiple; > 0 also turns dynamic.max.assign off

    def site(self) -> dict[str, str]:
        fair = "yarn.scheduler.fair."
        return {
            fair + "locality.threshold.node": self.locality_threshold,
            fair + "locality.threshold.rack": self.locality_threshold,
            fair + "dynamic.max.assign": str(self.max_assign <= 0).lower(),
            fair + "max.assign": str(self.max_assign),
            fair + "preemption": "true",
            fair + "preemption.cluster-utilization-threshold": self.utilization_threshold,
            fair + "waitTimeBeforeKill": str(self.kill_ms),
            fair + "waitTimeBeforeNextStarvationCheck": str(self.next_check_ms),
            fair + "assignmultiple": str(self.assign_multiple).lower(),
            **{f"{fair}am.preemption.{q}": "false" for q in AM_PREEMPTION_OFF},
        }

    def engine(self, reference: bool = False) -> Engine:
        """``reference``: the walk, update pass and victim choice of ``tests/oracles/``."""
        return make_engine(allocation_body(self.fs_threshold), site=self.site(), nodes=(),
                           reference_walk=reference, reference_update=reference,
                           reference_preemption=reference)


DEFAULT_CONFIG = Config("0", 1, 0, False, 2, "0.5")
CONFIGS = st.builds(
    Config,
    utilization_threshold=st.sampled_from(["0", "0.5"]),
    kill_ms=st.sampled_from([1, 1000, 3000]),
    next_check_ms=st.sampled_from([0, 500, 5000]),
    assign_multiple=st.booleans(),
    racks=st.integers(2, 4),
    fs_threshold=st.sampled_from(["0.5", "0.8", "1.0"]),
    locality_threshold=st.sampled_from(["-1.0", "0.5"]),
    max_assign=st.sampled_from([-1, 3]),
)

# -- steps: recorded so a run can be replayed exactly -------------------------------------------

AskSpec = tuple[int, int, int, int, str, bool]  # count, memory, vcores, priority, where, relax
Step = tuple[str, tuple[Any, ...]]


def _asks(specs: Sequence[AskSpec]) -> list[Any]:
    return [ask(n, m, v, priority=p, locality=w, relax=x) for n, m, v, p, w, x in specs]


def _submit(e: Engine, app: str, queue: str, user: str, am: int | None,
            specs: Sequence[AskSpec]) -> None:
    e.submit(app, queue, user, None if am is None else r(am, 1), _asks(specs))


RecoveredSpec = tuple[str, int, int, bool]  # node, memory, vcores, the attempt's AM


def _recover(e: Engine, app: str, queue: str, user: str, am: int | None,
             containers: Sequence[RecoveredSpec], specs: Sequence[AskSpec]) -> None:
    """An app that ran before an RM restart: re-added, then its containers recovered."""
    e.submit(app, queue, user, None if am is None else r(am, 1), _asks(specs), recovering=True)
    if e.app(app).stopped:
        return  # rejected on recovery (the placement refused it): nothing to recover
    for node, memory, vcores, is_am in containers:
        e.recover_container(app, node, r(memory, vcores), am=is_am, priority=0 if is_am else 1)


STEPS: dict[str, Callable[..., object]] = {
    "recover": _recover,
    "add_node": lambda e, n, m, v, rack: e.add_node(n, r(m, v), rack),
    "remove_node": lambda e, n: e.remove_node(n),
    "resize_node": lambda e, n, m, v: e.resize_node(n, r(m, v)),
    "decommission_node": lambda e, n, timeout: e.decommission_node(n, timeout),
    "submit": _submit,
    "request": lambda e, app, specs: e.request(app, _asks(specs)),
    "heartbeat": lambda e, n: e.heartbeat(n),
    "heartbeat_all": lambda e: e.heartbeat_all(),
    "update": lambda e: e.update(),
    "advance": lambda e, ms: e.advance(ms),
    "release": lambda e, app, n, which: e.release(app, n, which),
    "finish": lambda e, app: e.finish(app),
    "kill": lambda e, app: e.kill(app),
    "move": lambda e, app, queue: e.move(app, queue),
    "forget": lambda e, app: e.forget(app),
}


def apply_step(engine: Engine, step: Step) -> None:
    op, args = step
    STEPS[op](engine, *args)


def replay_engine(config: Config, steps: Sequence[Step], reference: bool = False) -> Engine:
    engine = config.engine(reference)
    for step in steps:
        apply_step(engine, step)
    return engine


def replay(config: Config, steps: Sequence[Step]) -> list[dict[str, Any]]:
    engine = replay_engine(config, steps)
    return [event_record(e, engine.types) for e in engine.events]


# -- independent model of §5.5 --------------------------------------------------------------------

GREEDY_MISSES: list[str] = []  # AM chosen though some AM-free subset would fit (allowed, §5.4)


@dataclass(frozen=True)
class CSnap:
    id: str
    app: str
    resource: Resource
    am: bool


@dataclass(frozen=True)
class NodeSnap:
    unallocated: Resource
    reserved: Resource
    earmarked: Resource
    containers: tuple[CSnap, ...]
    rack: str


@dataclass(frozen=True)
class OwnerSnap:
    queue: str
    usage: Resource
    fair_share: Resource
    attempt_queue: str  # the queue the current attempt was created in (from the events)
    am_preemption: bool  # am.preemption for that queue, from our own reading of yarn-site


@dataclass
class Snapshot:
    """The state a preemption round reads: taken after ``update``, before ``preempt``."""

    cluster: Resource
    nodes: dict[str, NodeSnap]
    owners: dict[str, OwnerSnap]
    marked: dict[str, tuple[str, Resource]]  # container → (app, resource), from our ledger
    tree_preemptable: dict[str, bool]
    model: QueueModel


def take_snapshot(engine: Engine, marked: dict[str, tuple[str, Resource]],
                  attempt_queue: dict[str, str], model: QueueModel) -> Snapshot:
    state = engine.state
    nodes = {
        n.name: NodeSnap(
            n.unallocated,
            n.reservation.resource if n.reservation else none_like(n.capacity),
            n.earmarked_total,
            tuple(CSnap(c.id, c.app_id, c.resource, c.is_am) for c in n.containers.values()),
            n.rack,
        )
        for n in state.nodes.values()
    }
    owners = {
        a.id: OwnerSnap(a.queue, a.usage, a.fair_share, attempt_queue.get(a.id, a.queue),
                        attempt_queue.get(a.id, a.queue) not in model.am_preemption_off)
        for a in state.apps.values() if a.queue
    }
    preemptable = {q.name: q.settings.preemptable for q in engine.tree}
    return Snapshot(state.capacity, nodes, owners, dict(marked), preemptable, model)


def _sub_nonneg(a: Resource, b: Resource) -> Resource:
    diff = [x - y for x, y in zip(a.values, b.values, strict=True)]
    return Resource((max(diff[0], 0), max(diff[1], 0), *diff[2:]))


def _sum(items: Sequence[Resource], like: Resource) -> Resource:
    total = none_like(like)
    for item in items:
        total = total + item
    return total


def at_or_above_fair_share(snap: Snapshot, app: str, taken: Resource) -> bool:
    """``usage - taken`` compared with the app fair share by its leaf's calculator (§5.5)."""
    owner = snap.owners[app]
    calc = calculator_for(snap.model.leaf_policy[owner.queue])
    return calc.compare(snap.cluster, owner.usage - taken, owner.fair_share, True) >= 0


@dataclass
class Selection:
    node: str
    beneficiary: str
    request: Resource
    potential: Resource  # free space at its start (§5.4: minus reservation and earmarks)
    taken_before: dict[str, Resource]  # app → marked before the selection
    marked_before: frozenset[str]
    victims: list[PreemptionWarned] = field(default_factory=list)

    def freed(self, am: bool | None = None) -> Resource:
        chosen = [v.resource for v in self.victims if am is None or v.am == am]
        return _sum(chosen, self.potential) + self.potential

    def taken(self, app: str, like: Resource, am: bool | None = None) -> Resource:
        own = [v.resource for v in self.victims if v.app == app and (am is None or v.am == am)]
        return self.taken_before.get(app, none_like(like)) + _sum(own, like)


class RoundChecker:
    """Re-derives one preemption round from a snapshot and its ``preemption-warned`` events."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self.marked = dict(snap.marked)
        self.earmarked = {name: n.earmarked for name, n in snap.nodes.items()}
        self.problems: list[str] = []

    def run(self, warned: Sequence[PreemptionWarned]) -> list[str]:
        current: Selection | None = None
        for event in warned:
            if current is None or not self._continues(current, event):
                if current is not None:
                    self._close(current)
                current = self._open(event)
            self._check_victim(current, event)
            current.victims.append(event)
        if current is not None:
            self._close(current)
        self._check_victim_apps(warned)
        return self.problems

    def _continues(self, sel: Selection, e: PreemptionWarned) -> bool:
        """A selection's victims are reported together, grouped by app (YARN's HashMap order),
        not in the order they were chosen: its events' count (``node-victims``) says where it
        ends, and ``_close`` checks that the set is one YARN could choose."""
        same = (sel.node, sel.beneficiary, sel.request) == (e.node, e.beneficiary_app, e.request)
        return same and len(sel.victims) < sel.victims[0].node_victims

    def _open(self, e: PreemptionWarned) -> Selection:
        node = self.snap.nodes[e.node]
        potential = _sub_nonneg(node.unallocated, node.reserved + self.earmarked[e.node])
        taken: dict[str, Resource] = {}
        for app, res in self.marked.values():
            taken[app] = taken.get(app, none_like(res)) + res
        return Selection(e.node, e.beneficiary_app, e.request, potential, taken,
                         frozenset(self.marked))

    def _preemptable(self, sel: Selection, c: CSnap, taken: Resource) -> str | None:
        """Why §5.5 refuses ``c`` with ``taken`` already gone from its owner, or None."""
        owner = self.snap.owners[c.app]
        model = self.snap.model
        if owner.queue in model.non_preemptable or not self.snap.tree_preemptable[owner.queue]:
            return f"queue {owner.queue} is not preemptable"
        if c.am and not owner.am_preemption:
            return f"AM preemption is off for {owner.attempt_queue}, where the attempt began"
        if c.id in sel.marked_before or any(v.container == c.id for v in sel.victims):
            return "already marked"
        if not at_or_above_fair_share(self.snap, c.app, taken + c.resource):
            return "owner would drop below its app fair share"
        return None

    def _check_victim(self, sel: Selection, e: PreemptionWarned) -> None:
        where = f"event {e.seq} (victim {e.container} of {e.app} on {e.node})"
        found = [c for c in self.snap.nodes[e.node].containers if c.id == e.container]
        if not found or found[0].app != e.app or found[0].am != e.am:
            self.problems.append(f"{where}: not a running container as described")
            return
        if e.queue != self.snap.owners[e.app].queue:
            self.problems.append(f"{where}: queue {e.queue} is not the owner's")
        why = self._preemptable(sel, found[0], sel.taken(e.app, e.resource))
        if why is not None:
            self.problems.append(f"{where}: chosen although {why}")
        after = self.snap.owners[e.app].usage - sel.taken(e.app, e.resource) - e.resource
        if e.victim_usage_after != after:
            self.problems.append(f"{where}: victim-usage-after {e.victim_usage_after!r}, "
                                 f"expected {after!r}")

    def _close(self, sel: Selection) -> None:
        where = f"selection on {sel.node} for {sel.beneficiary} ({sel.request!r})"
        freed = sel.freed()
        if not fits_in(sel.request, freed):
            self.problems.append(f"{where}: victims {[v.container for v in sel.victims]} "
                                 f"do not make room ({freed!r} free after)")
        # YARN tests the fit after each candidate, the first included, and stops when it fits:
        # with two victims or more, the others without the last one chosen did not make room
        # (whichever it was: the report does not keep the choosing order)
        elif len(sel.victims) > 1 and all(fits_in(sel.request, freed - v.resource)
                                          for v in sel.victims):
            self.problems.append(f"{where}: every victim of {[v.container for v in sel.victims]}"
                                 f" could be left out and the others would make room")
        if any(v.am for v in sel.victims):
            self._check_am_selection(sel, where)
        # what each event says of its selection, for explain's "why this node"
        said = {(v.node_free, v.node_victims, v.node_am_victims, v.request_resource_name)
                for v in sel.victims}
        names = ("*", self.snap.nodes[sel.node].rack, sel.node)
        if len(said) != 1 or said.pop()[:3] != (sel.potential, len(sel.victims),
                                                 sum(v.am for v in sel.victims)):
            self.problems.append(f"{where}: node-free/node-victims/node-am-victims do not "
                                 f"describe the selection")
        if any(v.request_resource_name not in names for v in sel.victims):
            self.problems.append(f"{where}: a request for elsewhere placed here")
        for v in sel.victims:
            self.marked[v.container] = (v.app, v.resource)
            self.earmarked[sel.node] = self.earmarked[sel.node] + v.resource

    def _non_am_candidates(self, sel: Selection) -> list[CSnap]:
        return [c for c in self.snap.nodes[sel.node].containers
                if not c.am and c.id not in sel.marked_before]

    def _check_am_selection(self, sel: Selection, where: str) -> None:
        for app in {v.app for v in sel.victims}:  # each app's victims in the choosing order
            flags = [v.am for v in sel.victims if v.app == app]
            if flags != sorted(flags):
                self.problems.append(f"{where}: a non-AM victim of {app} follows its AM")
        candidates = self._non_am_candidates(sel)
        if candidates and fits_in(sel.request, sel.freed(am=False)):
            self.problems.append(f"{where}: took an AM though its non-AM victims made room")
        chosen = {v.container for v in sel.victims}
        for c in candidates:
            if c.id in chosen:
                continue
            taken = sel.taken(c.app, c.resource, am=False)
            if self._preemptable(sel, c, taken) is None:
                self.problems.append(f"{where}: took an AM while non-AM {c.id} of {c.app} "
                                     "was still preemptable")
        if self._am_free_subset_fits(sel, candidates):
            GREEDY_MISSES.append(where)

    def _am_free_subset_fits(self, sel: Selection, candidates: list[CSnap]) -> bool:
        """Brute force: some set of non-AM candidates fits, each owner staying at fair share."""
        usable = [c for c in candidates if self._preemptable(sel, c, sel.taken_before.get(
            c.app, none_like(c.resource))) is None]
        if len(usable) > 12:
            return False
        for size in range(len(usable) + 1):
            for subset in itertools.combinations(usable, size):
                if self._subset_ok(sel, subset):
                    return True
        return False

    def _subset_ok(self, sel: Selection, subset: Sequence[CSnap]) -> bool:
        freed = _sum([c.resource for c in subset], sel.potential) + sel.potential
        if not fits_in(sel.request, freed):
            return False
        for app in {c.app for c in subset}:
            mine = _sum([c.resource for c in subset if c.app == app], sel.potential)
            before = sel.taken_before.get(app, none_like(mine))
            if not at_or_above_fair_share(self.snap, app, before + mine):
                return False
        return True

    def _check_victim_apps(self, warned: Sequence[PreemptionWarned]) -> None:
        """(b): after the round, usage minus everything announced is at least the fair share."""
        for app in sorted({e.app for e in warned}):
            gone = [res for a, res in self.marked.values() if a == app]
            taken = _sum(gone, self.snap.cluster)
            if not at_or_above_fair_share(self.snap, app, taken):
                owner = self.snap.owners[app]
                self.problems.append(
                    f"round leaves victim {app} at {owner.usage - taken!r}, below its fair "
                    f"share {owner.fair_share!r} ({self.snap.model.leaf_policy[owner.queue]})")


# -- watching one engine ------------------------------------------------------------------------


class Watcher:
    """Follows one engine's events and checks the state after each step (see the module doc)."""

    def __init__(self, engine: Engine, model: QueueModel) -> None:
        self.engine, self.model = engine, model
        self.seen = 0
        self.ledger = NodeLedger()
        self.warned: dict[str, tuple[str, Resource]] = {}  # running victims: c → (app, r)
        self.warned_by: dict[str, PreemptionWarned] = {}
        self.attempt_queue: dict[str, str] = {}  # app → queue its current attempt began in
        self.exempt: set[str] = set()  # nodes a resize left over-allocated
        self.decommissioning: set[str] = set()  # from their event until they are removed

    def consume_events(self) -> list[str]:
        new = self.engine.events[self.seen:]
        self.seen = len(self.engine.events)
        problems = self.ledger.feed_all(new)
        for e in new:
            problems += self._track(e)
        return problems

    def _track(self, e: Event) -> list[str]:
        if isinstance(e, NodeDecommissioning):
            self.decommissioning.add(e.node)
        elif isinstance(e, NodeRemoved):
            self.decommissioning.discard(e.node)
        elif isinstance(e, ContainerAllocated) and e.node in self.decommissioning:
            return [f"event {e.seq}: {e.container} placed on decommissioning node {e.node}"]
        if isinstance(e, AppSubmitted | AppAttemptRestarted):
            self.attempt_queue[e.app] = e.queue
        elif isinstance(e, PreemptionWarned):
            self.warned[e.container] = (e.app, e.resource)
            self.warned_by[e.container] = e
        elif isinstance(e, ContainerCompleted):
            self.warned.pop(e.container, None)
        elif isinstance(e, ContainerPreempted):
            return self._preempted(e)
        return []

    def _preempted(self, e: ContainerPreempted) -> list[str]:
        warned = self.warned_by.get(e.container)
        if self.warned.pop(e.container, None) is None or warned is None:
            return [f"event {e.seq}: {e.container} preempted without a warning"]
        if (warned.beneficiary_app, warned.kill_at_ms) != (e.beneficiary_app, e.time):
            return [f"event {e.seq}: {e.container} killed at {e.time} for {e.beneficiary_app}, "
                    f"warned for {warned.beneficiary_app} to die at {warned.kill_at_ms}"]
        return []

    def resized(self, name: str) -> None:
        node = self.engine.state.nodes[name]
        if not fits_in(node.allocated, node.capacity):
            self.exempt.add(name)

    def update(self) -> list[str]:
        """``engine.update()`` in its two halves, with a snapshot in between from which the
        preemption round is re-derived."""
        self.engine.update(preempt=False)
        problems = self.consume_events()
        snap = take_snapshot(self.engine, self.warned, self.attempt_queue, self.model)
        start = len(self.engine.events)
        self.engine.preempt()
        warned = [e for e in self.engine.events[start:] if isinstance(e, PreemptionWarned)]
        return problems + RoundChecker(snap).run(warned)

    def after_step(self) -> list[str]:
        problems = self.consume_events()
        nodes = self.engine.state.nodes
        self.exempt = {n for n in self.exempt
                       if n in nodes and not fits_in(nodes[n].allocated, nodes[n].capacity)}
        problems += check_all(self.engine, self.exempt)
        problems += self.ledger.mismatches(self.engine)
        marked = {cid for a in self.engine.state.apps.values() for cid in a.to_be_preempted}
        if marked != set(self.warned):
            problems.append(f"warned and running {sorted(self.warned)} != marked "
                            f"{sorted(marked)}")
        return problems


# -- the state machine ----------------------------------------------------------------------------


def _live(engine: Engine) -> list[str]:
    return [a.id for a in engine.state.live_apps() if a.queue]


def _ended(engine: Engine) -> list[str]:
    return [a.id for a in engine.state.apps.values() if a.stopped]


class EngineMachine(RuleBasedStateMachine):
    """Random steps against one engine; every invariant after every step."""

    def __init__(self) -> None:
        super().__init__()
        self.config: Config | None = None
        self.engine = DEFAULT_CONFIG.engine()  # replaced by setup()
        self.watch = Watcher(self.engine, MODEL)
        self.steps: list[Step] = []
        self.next_app = 1

    @initialize(config=CONFIGS, first=st.integers(4, 16), second=st.integers(4, 16),
                apps=st.integers(1, 4), data=st.data())
    def setup(self, config: Config, first: int, second: int, apps: int,
              data: st.DataObject) -> None:
        """Two nodes and a first workload (swarm testing may switch ``submit`` off)."""
        self.config = config
        self.engine = config.engine()
        self.watch = Watcher(self.engine, MODEL)
        self.do("add_node", "n0", first * GB, 8, "/rack0")
        self.do("add_node", "n1", second * GB, 8, "/rack1")
        for _ in range(apps):
            self.submit(data, data.draw(st.sampled_from(LEAVES)), data.draw(
                st.sampled_from(USERS)), data.draw(st.sampled_from([None, 1024, 2048])))

    def do(self, op: str, *args: Any) -> None:
        self.steps.append((op, args))
        apply_step(self.engine, (op, args))

    # -- nodes --------------------------------------------------------------------------------

    @precondition(lambda self: len(self.engine.state.nodes) < len(NODE_NAMES))
    @rule(data=st.data(), memory=st.integers(4, 16), vcores=st.sampled_from([4, 8, 16]))
    def add_node(self, data: st.DataObject, memory: int, vcores: int) -> None:
        assert self.config is not None
        free = [n for n in NODE_NAMES if n not in self.engine.state.nodes]
        name = data.draw(st.sampled_from(free))
        rack = data.draw(st.integers(0, self.config.racks - 1))
        self.do("add_node", name, memory * GB, vcores, f"/rack{rack}")

    @precondition(lambda self: len(self.engine.state.nodes) > 1)
    @rule(data=st.data())
    def remove_node(self, data: st.DataObject) -> None:
        self.do("remove_node", data.draw(st.sampled_from(sorted(self.engine.state.nodes))))

    @precondition(lambda self: len(self.engine.state.nodes) > 0)
    @rule(data=st.data(), memory=st.integers(2, 16), vcores=st.sampled_from([2, 4, 8]))
    def resize_node(self, data: st.DataObject, memory: int, vcores: int) -> None:
        name = data.draw(st.sampled_from(sorted(self.engine.state.nodes)))
        self.do("resize_node", name, memory * GB, vcores)
        self.watch.resized(name)

    @precondition(lambda self: len(self.engine.state.nodes) > 1)
    @rule(data=st.data(), timeout=st.sampled_from([None, 0, 1000, 16000]))
    def decommission_node(self, data: st.DataObject, timeout: int | None) -> None:
        name = data.draw(st.sampled_from(sorted(self.engine.state.nodes)))
        self.do("decommission_node", name, timeout)

    @precondition(lambda self: len(self.engine.state.nodes) > 0)
    @rule(data=st.data())
    def heartbeat(self, data: st.DataObject) -> None:
        self.do("heartbeat", data.draw(st.sampled_from(sorted(self.engine.state.nodes))))

    @rule()
    def heartbeat_all(self) -> None:
        self.do("heartbeat_all")

    # -- apps ---------------------------------------------------------------------------------

    def draw_asks(self, data: st.DataObject, most: int) -> tuple[AskSpec, ...]:
        state = self.engine.state
        places = ["*", "*", *sorted(state.nodes), *sorted({n.rack for n in
                                                          state.nodes.values()}), "ghost"]
        spec = st.tuples(st.integers(1, 8), st.sampled_from(MEMORY), st.integers(1, 3),
                         st.integers(1, 3), st.sampled_from(places), st.booleans())
        return tuple(data.draw(st.lists(spec, min_size=1, max_size=most)))

    @rule(data=st.data(), queue=st.sampled_from([*LEAVES, *LEAVES, "root.prod"]),
          user=st.sampled_from(USERS), am=st.sampled_from([None, 1024, 1024, 2048]))
    def submit(self, data: st.DataObject, queue: str, user: str, am: int | None) -> None:
        app = f"app_{self.next_app:04d}"
        self.next_app += 1
        self.do("submit", app, queue, user, am, self.draw_asks(data, 3))

    @precondition(lambda self: len(self.engine.state.nodes) > 0)
    @rule(data=st.data(), queue=st.sampled_from(LEAVES), user=st.sampled_from(USERS),
          am=st.sampled_from([None, 1024]), tasks=st.integers(0, 4))
    def recover(self, data: st.DataObject, queue: str, user: str, am: int | None,
                tasks: int) -> None:
        """An app found running: its AM first (if managed), then tasks, each on a node with
        room for it now (as nodes report only what they hold)."""
        app = f"app_{self.next_app:04d}"
        self.next_app += 1
        free = {n.name: n.unallocated for n in self.engine.state.nodes.values()}
        containers: list[RecoveredSpec] = []
        for i in range(tasks + (am is not None)):
            memory = am if am is not None and i == 0 else data.draw(st.sampled_from(MEMORY))
            fits = sorted(n for n, f in free.items() if f.memory >= memory and f.vcores >= 1)
            if not fits:
                break
            node = data.draw(st.sampled_from(fits))
            free[node] = free[node] - r(memory, 1)
            containers.append((node, memory, 1, am is not None and i == 0))
        self.do("recover", app, queue, user, am, tuple(containers), self.draw_asks(data, 2))

    @precondition(lambda self: bool(_live(self.engine)))
    @rule(data=st.data())
    def request(self, data: st.DataObject) -> None:
        app = data.draw(st.sampled_from(_live(self.engine)))
        self.do("request", app, self.draw_asks(data, 2))

    @precondition(lambda self: bool(_live(self.engine)))
    @rule(data=st.data(), count=st.integers(1, 3),
          which=st.sampled_from(["newest", "oldest", "am"]))
    def release(self, data: st.DataObject, count: int, which: str) -> None:
        self.do("release", data.draw(st.sampled_from(_live(self.engine))), count, which)

    @precondition(lambda self: bool(_live(self.engine)))
    @rule(data=st.data(), how=st.sampled_from(["finish", "kill"]))
    def end_app(self, data: st.DataObject, how: str) -> None:
        self.do(how, data.draw(st.sampled_from(_live(self.engine))))

    @precondition(lambda self: bool(_live(self.engine)))
    @rule(data=st.data(), queue=st.sampled_from([*LEAVES, "root.batch"]))
    def move(self, data: st.DataObject, queue: str) -> None:
        self.do("move", data.draw(st.sampled_from(_live(self.engine))), queue)

    @precondition(lambda self: bool(_ended(self.engine)))
    @rule(data=st.data())
    def forget(self, data: st.DataObject) -> None:
        """The RM forgets an ended app: gone from the engine, unless something still refers
        to it (then nothing changed and it stays)."""
        app = data.draw(st.sampled_from(_ended(self.engine)))
        before = len(self.engine.state.apps)
        self.steps.append(("forget", (app,)))
        forgotten = self.engine.forget(app)
        assert (app not in self.engine.state.apps) is forgotten
        assert len(self.engine.state.apps) == before - forgotten

    # -- time, update and preemption ----------------------------------------------------------

    @rule(ms=st.sampled_from([1, 250, 500, 1000, 2500, 16000]))
    def advance(self, ms: int) -> None:
        self.do("advance", ms)

    @rule()
    def update(self) -> None:
        self.checked_update()

    @rule(rounds=st.integers(1, 4), ms=st.sampled_from([500, 1000]))
    def cycle(self, rounds: int, ms: int) -> None:
        """What a simulator does: every node heartbeats, time passes, the update runs."""
        for _ in range(rounds):
            self.do("heartbeat_all")
            self.do("advance", ms)
            self.checked_update()

    @rule(data=st.data(), queue=st.sampled_from(LEAVES), am=st.sampled_from([None, 1024]),
          count=st.integers(2, 8), memory=st.sampled_from([1024, 2048]),
          rounds=st.integers(2, 6))
    def burst(self, data: st.DataObject, queue: str, am: int | None, count: int, memory: int,
              rounds: int) -> None:
        """A newcomer into a busy cluster, then time for starvation to build: preemption."""
        app = f"app_{self.next_app:04d}"
        self.next_app += 1
        self.do("submit", app, queue, data.draw(st.sampled_from(USERS)), am,
                ((count, memory, 1, 1, "*", True),))
        self.cycle(rounds, 1000)

    def checked_update(self) -> None:
        """Replayed as ``engine.update()``."""
        self.steps.append(("update", ()))
        problems = self.watch.update()
        assert not problems, "\n".join(problems)

    # -- after every step ---------------------------------------------------------------------

    @invariant()
    def state_is_consistent(self) -> None:
        problems = self.watch.after_step()
        assert not problems, "\n".join(problems)

    @invariant()
    def snapshot_is_a_fresh_copy(self) -> None:
        kept, fresh = self.engine.snapshot(), copy_of_state(self.engine.s)
        for name in ("nodes", "apps", "containers", "queues"):
            assert getattr(kept, name) == getattr(fresh, name), name
        assert kept == fresh

    def teardown(self) -> None:
        if self.config is None:
            return
        first = [event_record(e, self.engine.types) for e in self.engine.events]
        for none in (rec for rec in first if rec["type"] == "no-preemption"):
            # every container wanted was found, or is counted under one cause
            assert none["containers-wanted"] == none["containers-found"] + sum(
                none["blocked"].values()), none
            assert set(none["blocked"]) <= {*BLOCKED_CAUSES, ROOM_FREE}, none
        again = replay(self.config, self.steps)
        assert same(first, again), first_difference(first, again)
        # forgetting an ended app decides nothing (docs/semantics.md §3.9): the same run
        # without it has the same events
        kept = replay(self.config, [s for s in self.steps if s[0] != "forget"])
        assert same(first, kept), first_difference(first, kept)
        # the reference walk (sorting every level, nothing skipped), update pass (recomputing
        # everything) and victim choice (fresh views, every node scanned) decide the same
        reference = replay_engine(self.config, self.steps, reference=True)
        expected = [event_record(e, reference.types) for e in reference.events]
        assert same(first, expected), first_difference(first, expected)
        assert state_digest(self.engine) == state_digest(reference)


def state_digest(engine: Engine) -> dict[str, Any]:
    """What events do not show: every queue's metrics (the MaxAMShare gauge among them),
    each app's usage, demand, delay-scheduling state and reservations, each node's state."""
    return {
        "queues": {q.name: engine.queue_metrics(q.name) for q in engine.tree},
        "apps": {a.id: (a.usage, a.demand, dict(a.locality), sorted(a.reservations),
                        a.fair_share) for a in engine.state.apps.values()},
        "nodes": {n.name: (n.allocated, dict(n.earmarks), None if n.reservation is None else
                           (n.reservation.app_id, n.reservation.key, n.reservation.resource))
                  for n in engine.state.nodes.values()},
    }


EngineMachine.TestCase.settings = settings(
    max_examples=int(os.environ.get("FAIRSHARE_PROPERTY_EXAMPLES", "100")),
    stateful_step_count=50,
    deadline=None,
    derandomize=not os.environ.get("FAIRSHARE_PROPERTY_RANDOM"),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestEngineProperties = EngineMachine.TestCase


# -- the configuration reads as intended ----------------------------------------------------------


def test_configured_preemptability_and_policies_match_the_model() -> None:
    engine = DEFAULT_CONFIG.engine()
    for node in engine.tree:
        expected = node.name not in NON_PREEMPTABLE
        assert node.settings.preemptable == expected, node.name
        if node.is_leaf:
            assert node.settings.policy == LEAF_POLICY[node.name], node.name
    assert {n.name for n in engine.tree if n.is_leaf} == set(LEAVES)


def test_invariants_report_a_corrupted_state() -> None:
    engine = DEFAULT_CONFIG.engine()
    engine.add_node("n0", r(4 * GB, 4), "/rack0")
    engine.submit("app1", "root.default", am=r(GB, 1), requests=[ask(2, GB, 1)])
    for _ in range(3):
        engine.update()
        engine.heartbeat("n0")
    assert check_all(engine) == [] and allocation_overflows(engine.events) == []
    node, app = engine.state.nodes["n0"], engine.app("app1")
    capacity, node.capacity = node.capacity, r(GB, 4)
    assert len(node_over_allocation(engine)) == 1 and node_over_allocation(engine, {"n0"}) == []
    node.capacity = capacity
    app.usage = app.usage + r(GB, 0)
    engine.state.queues["root"].num_runnable += 1
    assert [p.split(" is ")[0] for p in usage_conservation(engine)] == [
        "app app1 usage", "queue root usage", "queue root.default usage",
        "cluster allocated vs apps"]
    assert queue_counts(engine) == [
        "queue root num_runnable is 2, but 1 runnable apps are in its subtree"]


def test_the_round_checker_splits_back_to_back_selections_by_their_own_counts() -> None:
    """Two selections for one request on one node, the first of 2 victims, the second of 3:
    hog's 11 tasks (512 MB, 1 vcore) fill n0 but for 2.5 GB and 1 vcore; s asks for two
    (512 MB, 3 vcores). The first needs 2 victims (1 + 2 vcores); the second finds the node's
    room earmarked (1.5 GB, 0 vcores) and needs 3. hog (fair share 2 GB of 8, weights 1:3)
    may lose 7. The checker once ended a selection at the *next* event's count, which read
    2 + 3 as 3 + 2 and reported both as wrong."""
    body = ("<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>"
            "<defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>"
            "<queue name='a'><schedulingPolicy>fair</schedulingPolicy></queue>"
            "<queue name='b'><schedulingPolicy>fair</schedulingPolicy><weight>3</weight></queue>")
    site = {**PREEMPTION_ON, "yarn.scheduler.minimum-allocation-mb": "512",
            "yarn.scheduler.increment-allocation-mb": "512"}
    engine = make_engine(body, site=site, nodes=[("n0", 8 * GB, 12)])
    engine.submit("hog", "root.a", "u", None, [ask(11, 512, 1)])
    engine.update()
    for _ in range(11):  # one container per heartbeat (assignmultiple is off)
        engine.heartbeat("n0")
    assert engine.app("hog").usage == r(11 * 512, 11)
    engine.submit("s", "root.b", "u", None, [ask(2, 512, 3)])
    engine.update()
    engine.advance(1500)
    model = QueueModel({"root.a": PolicyName.FAIR, "root.b": PolicyName.FAIR},
                       frozenset(), frozenset())
    watch = Watcher(engine, model)
    watch.consume_events()
    assert watch.update() == []
    warned = [e for e in engine.events if isinstance(e, PreemptionWarned)]
    assert [e.node_victims for e in warned] == [2, 2, 3, 3, 3]
    assert {(e.node, e.beneficiary_app, e.request) for e in warned} == {("n0", "s", r(512, 3))}


# -- determinism across processes ------------------------------------------------------------------


def random_steps(config: Config, seed: int, count: int) -> list[Step]:
    """A plain seeded walk over the same steps as the machine (valid for the current state)."""
    rng, engine, steps = random.Random(seed), config.engine(), []

    def do(op: str, *args: Any) -> None:
        steps.append((op, args))
        apply_step(engine, (op, args))

    do("add_node", "n0", 8 * GB, 8, "/rack0")
    do("add_node", "n1", 12 * GB, 8, "/rack1")
    for i in range(count):
        nodes, live = sorted(engine.state.nodes), _live(engine)
        where = rng.choice(["*", "*", *nodes, "/rack1"])
        asks = ((rng.randint(1, 6), rng.choice(MEMORY), 1, rng.randint(1, 2), where,
                 rng.random() < 0.7),)
        op = rng.choice(["submit", "cycle", "cycle", "cycle", "request", "release", "move",
                         "end", "node"] if live else ["submit", "cycle"])
        if op == "submit":
            do("submit", f"app_{i:04d}", rng.choice(LEAVES), rng.choice(USERS),
               rng.choice([None, 1024]), asks)
        elif op == "cycle":
            do("heartbeat_all")
            do("advance", 500)
            do("update")
        elif op == "request":
            do("request", rng.choice(live), asks)
        elif op == "release":
            do("release", rng.choice(live), rng.randint(1, 2), rng.choice(["newest", "am"]))
        elif op == "move":
            do("move", rng.choice(live), rng.choice(LEAVES))
        elif op == "end":
            do(rng.choice(["finish", "kill"]), rng.choice(live))
        else:
            free = [n for n in NODE_NAMES if n not in engine.state.nodes]
            if len(nodes) < 3:
                do("add_node", free[0], 8 * GB, 8, "/rack0")
            else:
                do("remove_node", rng.choice(nodes))
    return steps


_REPLAY = """
import json, sys
from tests.core.test_engine_properties import Config, replay
spec = json.load(sys.stdin)
json.dump(replay(Config(**spec["config"]), [(op, tuple(a)) for op, a in spec["steps"]]),
          sys.stdout)
"""


def _replay_in_process_with_hash_seed(config: Config, steps: list[Step], seed: str) -> Any:
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONHASHSEED": seed}
    spec = json.dumps({"config": dataclasses.asdict(config), "steps": steps})
    done = subprocess.run([sys.executable, "-c", _REPLAY], input=spec, capture_output=True,
                          text=True, cwd=root, env=env, check=True)
    return json.loads(done.stdout)


def test_event_stream_does_not_depend_on_the_hash_seed() -> None:
    """Same steps, fresh interpreters with different string hashing: identical events (no
    decision may follow set or hash order)."""
    config = Config("0", 1000, 500, True, 2, "0.8", "0.5", -1)
    steps = random_steps(config, seed=1, count=150)
    here = json.loads(json.dumps(replay(config, steps)))
    assert sum(rec["type"] == "preemption-warned" for rec in here) >= 5  # the walk reaches §5
    for seed in ("1", "2"):
        assert _replay_in_process_with_hash_seed(config, steps, seed) == here


# -- regression: a new attempt kept the old attempt's am.preemption (found by the machine) -------

REPRO_BODY = """
<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>
<defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>
<queue name="a"><weight>3</weight></queue>
<queue name="b"><weight>0.1</weight></queue>
<queue name="c"><allowPreemptionFrom>false</allowPreemptionFrom></queue>
"""
REPRO_MODEL = QueueModel(
    {"root.a": PolicyName.FAIR, "root.b": PolicyName.FAIR, "root.c": PolicyName.FAIR,
     "root.default": PolicyName.FAIR},
    frozenset({"root.c"}), frozenset({"root.b"}),
)


def test_am_preemption_is_looked_up_for_each_new_attempt() -> None:
    """YARN-9537: ``am.preemption.<queue>`` is read when an attempt is *created*, with the
    app's queue at that time (FSAppAttempt's constructor; ``executeMove`` re-points the app to
    its new queue). An attempt created after a move into a queue with AM preemption off must
    keep its AM. The same check as the state machine's, on a fixed sequence of steps."""
    site = {**PREEMPTION_ON, "yarn.scheduler.fair.am.preemption.root.b": "false"}
    engine = make_engine(REPRO_BODY, site=site, nodes=[("n1", 2 * GB, 2), ("n2", 2 * GB, 2)])
    watch = Watcher(engine, REPRO_MODEL)
    steps: list[Step] = [
        ("submit", ("app1", "root.a", "u", 2048, ())),  # attempt 1 is created in root.a
        ("move", ("app1", "root.b")),
        ("update", ()), ("heartbeat", ("n1",)),
        ("release", ("app1", 1, "am")),  # attempt 2 is created in root.b: AM preemption off
        ("update", ()), ("heartbeat", ("n1",)),  # its AM fills n1
        ("request", ("app1", ((1, 1024, 1, 1, "*", True),))),
        ("submit", ("app3", "root.c", "u", None, ((1, 1024, 1, 1, "*", True),))),
        ("update", ()), ("heartbeat", ("n2",)), ("update", ()), ("heartbeat", ("n2",)),
        ("submit", ("app2", "root.a", "u", None, ((1, 2048, 1, 1, "*", True),))),
        ("update", ()), ("advance", (1500,)), ("update", ()),
    ]
    problems: list[str] = []
    for step in steps:
        if step[0] == "update":
            problems += watch.update()
        else:
            apply_step(engine, step)
        problems += watch.after_step()
    assert not problems, "\n".join(problems)

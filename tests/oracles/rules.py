"""YARN's rules the engine does not run, kept with their tests against YARN's behaviour.

* :func:`sort_schedulables` — a level sorted by its policy's comparator, as YARN sorts it on
  every assignment; the engine's walk keeps lists sorted by the equivalent keys
  (``policies.sort_key_for``), its reference (:mod:`tests.oracles.walk`) sorts with the
  comparator.
* :func:`allowed_locality_by_time` — ``getAllowedLocalityLevelByTime``, delay scheduling's
  time-based variant (``locality-delay-node-ms/-rack-ms``), used only with continuous
  scheduling, which the engine does not model (docs/semantics.md §3.6.3).
* :func:`without_empty_dynamic_queues` — the allocation reload thread's clean-up of empty
  dynamic queues, every 10 s; the engine keeps them (docs/semantics.md §1.6, docs/fidelity.md).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import replace
from types import MappingProxyType

from fairshare.config.model import PolicyName
from fairshare.core.model.tree import QueueTree
from fairshare.core.rules.locality import Locality, LocalityState, first_sight, relax
from fairshare.core.rules.policies import SchedulableView, comparator_for
from fairshare.resources.vector import Resource


def sort_schedulables(
    items: Iterable[SchedulableView], policy: PolicyName, cluster: Resource
) -> list[SchedulableView]:
    """Order schedulables as the policy's comparator does (first = offered resources first)."""
    compare = comparator_for(policy, len(cluster.values))

    def cmp(a: SchedulableView, b: SchedulableView) -> int:
        return compare(a, b, cluster)

    return sorted(items, key=functools.cmp_to_key(cmp))


def allowed_locality_by_time(
    state: LocalityState, *, node_delay_ms: int, rack_delay_ms: int, now: int, start_time: int
) -> tuple[Locality, LocalityState]:
    """``getAllowedLocalityLevelByTime``: relax once ``now − lastScheduled > delay`` (strict).

    ``lastScheduled`` is set to ``now`` when the key is first seen and on each relaxation; if
    it was never set, the app attempt's ``start_time`` stands in (as in YARN).
    """
    if node_delay_ms < 0 or rack_delay_ms < 0:
        return Locality.OFF_SWITCH, state
    if state.level is None:
        return Locality.NODE_LOCAL, first_sight(state, now)
    if state.level is Locality.OFF_SWITCH:
        return Locality.OFF_SWITCH, state
    since = state.last_scheduled if state.last_scheduled is not None else start_time
    delay = node_delay_ms if state.level is Locality.NODE_LOCAL else rack_delay_ms
    if now - since > delay:
        return relax(state, state.level, now)
    return state.level, state


def without_empty_dynamic_queues(tree: QueueTree, has_apps: Callable[[str], bool]) -> QueueTree:
    """The allocation reload thread's clean-up (§1.6).

    Every dynamic leaf with no runnable, non-runnable or assigned apps (``has_apps`` false) is
    removed; then dynamic parents left without children, transitively.
    """
    removable = {
        n.name for n in tree if n.dynamic and n.is_leaf and not n.children and not has_apps(n.name)
    }
    changed = True
    while changed:
        changed = False
        for node in tree:
            if node.dynamic and not node.is_leaf and node.name not in removable and all(
                c in removable for c in node.children
            ):
                removable.add(node.name)
                changed = True
    if not removable:
        return tree
    queues = {
        name: replace(node, children=tuple(c for c in node.children if c not in removable))
        for name, node in tree.queues.items()
        if name not in removable
    }
    return replace(tree, queues=MappingProxyType(queues))

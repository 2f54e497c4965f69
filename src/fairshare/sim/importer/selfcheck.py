"""The import checks itself: the fair shares of the imported state against the dump's own.

Every queue of ``scheduler.json`` shows the steady fair share (``steadyFairResources``) and the
instantaneous one (``fairResources``) the RM computed. fairshare computes both for the imported
cluster with the scenario's allocation file — rebuilt or given — through the engine's share
computation (``shares_with_active_leaves``, the one ``fairshare shares`` uses), and every queue
whose shares differ is named with both values. A wrong rebuilt weight, a min share read wrong,
or an ``--allocations`` file that is not the one the RM runs shows at once.

What "instantaneous" means for the dump: YARN's instantaneous share counts only *active*
queues, those with a runnable app below them (``FSQueue.isActive``, docs/semantics.md §2.4).
An app that runs (has its AM container) is runnable; an app waiting for its AM is runnable
when ``maxRunningApps`` (the dump's ``maxApps``) of its queue and of each parent lets one more
app run — the user limits are not in the dump, so they are taken as unset. The leaves with
such apps are the active ones.

Tolerance: rounding only. ComputeFairShares truncates each share to a whole number and stops
its bisection after 25 steps, so a weight of a rebuilt file written to a few decimals may move
a share by a unit; anything more than ``TOLERANCE`` MB or vcores is a difference.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fairshare.config.model import AllocationConfig
from fairshare.core import build_queue_tree, get_or_create_leaf, shares_with_active_leaves
from fairshare.resources.vector import ResourceTypes
from fairshare.sim.importer.dump import Amounts, Dump, DumpApp, DumpQueue

TOLERANCE = 1  # MB and vcores: a share's truncation to a whole number
RUNNING, ACCEPTED = "RUNNING", "ACCEPTED"
SHOWN = 5  # active leaves named in the summary line


@dataclass(frozen=True)
class ShareCheck:
    compared: int  # queues whose shares were compared
    active: tuple[str, ...]  # the leaves taken as active
    differences: tuple[str, ...]  # one line per queue and share that differs
    skipped: tuple[str, ...] = ()  # queues that could not be compared, and why

    def summary(self) -> str:
        names = ", ".join(self.active[:SHOWN]) + (
            f" and {len(self.active) - SHOWN} more" if len(self.active) > SHOWN else "")
        active = (f"{len(self.active)} active leaf queue{'' if len(self.active) == 1 else 's'}"
                  f" ({names})" if self.active else "no active leaf queue")
        if not self.differences:
            return (f"Self-check: the steady and instantaneous fair shares of all {self.compared} "
                    f"queues match the RM's (within {TOLERANCE} MB / {TOLERANCE} vcore; "
                    f"{active}).")
        n = len(self.differences)
        return (f"Self-check: {n} fair share{' differs' if n == 1 else 's differ'} from the RM's "
                f"(beyond {TOLERANCE} MB / {TOLERANCE} vcore) over {self.compared} queues "
                f"({active}):")


def check_shares(dump: Dump, allocations: AllocationConfig, types: ResourceTypes) -> ShareCheck:
    """Compare the shares computed for ``dump``'s cluster under ``allocations`` with the dump's."""
    queues = _queues(dump.root)
    tree = build_queue_tree(allocations, types)
    skipped: list[str] = []
    for q in queues:
        if q.leaf and q.name not in tree:
            tree, problem = get_or_create_leaf(tree, q.name)  # a dynamic queue, as YARN made it
            if problem:
                skipped.append(f"{q.name}: {problem}")
    active = active_leaves(dump.root, dump.apps)
    cluster = types.of({"memory-mb": _cluster(dump)[0], "vcores": _cluster(dump)[1]})
    steady, instantaneous = shares_with_active_leaves(
        tree, cluster, [leaf for leaf in active if leaf in tree])
    differences: list[str] = []
    compared = 0
    for q in queues:
        if q.name not in tree:
            if not q.leaf:
                skipped.append(f"{q.name}: not a parent queue of the allocation file")
            continue
        compared += 1
        for what, theirs, ours in (
                ("steady fair share", q.steady_fair, steady[q.name].values[:2]),
                ("instantaneous fair share", q.fair, instantaneous.queues[q.name].values[:2])):
            if theirs is not None and _differs(theirs, (ours[0], ours[1])):
                state = ("" if what.startswith("steady") or not q.leaf else
                         " (active)" if q.name in active else " (inactive)")
                differences.append(f"{q.name}{state}: {what}: the RM {_show(theirs)}, "
                                   f"fairshare {_show((ours[0], ours[1]))}")
    return ShareCheck(compared, tuple(active), tuple(differences), tuple(skipped))


def active_leaves(root: DumpQueue, apps: Sequence[DumpApp]) -> tuple[str, ...]:
    """Leaves with a runnable app: a running one, or one waiting for its AM that maxApps
    lets run (apps admitted in submission order, as YARN's MaxRunningAppsEnforcer does)."""
    limits = {q.name: q.max_apps for q in _queues(root)}
    running: dict[str, int] = {}
    found: set[str] = set()
    for app in apps:
        if app.state == RUNNING:
            found.add(app.queue)
            for name in _path(app.queue):
                running[name] = running.get(name, 0) + 1
    for app in sorted((a for a in apps if a.state == ACCEPTED), key=lambda a: (a.started_ms,
                                                                               a.id)):
        path = _path(app.queue)
        if all(_room(limits.get(name), running.get(name, 0)) for name in path):
            found.add(app.queue)
            for name in path:
                running[name] = running.get(name, 0) + 1
    leaves = {q.name for q in _queues(root) if q.leaf}
    return tuple(sorted(found & leaves))


def _room(limit: int | None, running: int) -> bool:
    return limit is None or running < limit


def _path(queue: str) -> list[str]:
    parts = queue.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def _cluster(dump: Dump) -> Amounts:
    """The root's clusterResources; without it, the nodes the scheduler holds."""
    if dump.cluster is not None:
        return dump.cluster
    return (sum(n.capacity[0] for n in dump.nodes), sum(n.capacity[1] for n in dump.nodes))


def _differs(theirs: Amounts, ours: Amounts) -> bool:
    return any(abs(a - b) > TOLERANCE for a, b in zip(theirs, ours, strict=True))


def _show(amounts: Amounts) -> str:
    return f"{amounts[0]:,} MB, {amounts[1]:,} vcores"


def _queues(queue: DumpQueue) -> list[DumpQueue]:
    return [queue, *(q for child in queue.children for q in _queues(child))]


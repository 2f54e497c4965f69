"""The largest container YARN could have granted each running app, and the dumps that contradict
themselves (docs/import.md, "Containers rebuilt").

A container is never above ``getMaximumResourceCapability(queue)``: the scheduler's
``yarn.scheduler.maximum-allocation-mb`` / ``-vcores``, lowered per type by the queue's
``maxContainerAllocation`` (docs/semantics.md §1.1), nor above the largest node (a container is
on one node). The RM reports that maximum per queue in ``scheduler.json``
(``maxContainerAllocation``, Hadoop 3.1 and later); otherwise it comes from ``--site`` and the
allocation file, or YARN's defaults (8,192 MB, 4 vcores: ``YarnConfiguration``'s
``DEFAULT_RM_SCHEDULER_MAXIMUM_ALLOCATION_MB`` / ``_VCORES``). A default is only a guess about
this cluster: an app that needs more is given more, with a note, and only the numbers the dump
and the given files state can refuse it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from fairshare.config.errors import ConfigError
from fairshare.config.model import AllocationConfig
from fairshare.config.yarnsite import SiteConfig
from fairshare.sim.importer.dump import APPS, NODES, SCHEDULER, Amounts, Dump, DumpApp, DumpQueue

UNITS = ("MB", "vcores")
MOST_CONTAINERS = 200_000  # running containers rebuilt, in all: a very large cluster's
SITE_KEYS = ("yarn.scheduler.maximum-allocation-mb", "yarn.scheduler.maximum-allocation-vcores")


@dataclass(frozen=True)
class Cap:
    """The largest container of a queue, per type, and what set each bound."""

    size: Amounts
    why: tuple[str, str]
    assumed: tuple[bool, bool]  # only YARN's default says so


@dataclass(frozen=True)
class Limits:
    """What bounds the rebuilt containers."""

    caps: dict[str, Cap]  # by queue; apps of other queues get ``default``
    default: Cap
    minimum: Amounts  # yarn.scheduler.minimum-allocation-*
    increment_mb: int  # the step memory asks are rounded up to (FairScheduler's increment)
    largest: Cap | None = None  # the largest node, per type

    def of(self, queue: str) -> Cap:
        return self.caps.get(queue, self.default)


def container_limits(dump: Dump, site: SiteConfig | None,
                     allocations: AllocationConfig | None) -> Limits:
    """The caps of every queue of the dump; ``site`` and ``allocations`` as given (None: not
    given, so YARN's defaults and no queue limit)."""
    config = site or SiteConfig.default()
    site_max = (config.maximum_allocation.memory, config.maximum_allocation.vcores)
    origin = "in yarn-site.xml" if site is not None else "YARN's default, no --site given"
    base = Cap(site_max, (f"{SITE_KEYS[0]} ({origin})", f"{SITE_KEYS[1]} ({origin})"),
               (site is None, site is None))
    largest = _largest_node(dump)
    caps = {q.name: _lower(_lower(_queue_cap(q, base, site is not None), _file_cap(
        q.name, allocations)), largest) for q in _queues(dump.root)}
    return Limits(caps, _lower(base, largest),
                  (config.minimum_allocation.memory, config.minimum_allocation.vcores),
                  max(config.increment_allocation.memory, 1), largest)


def _queues(queue: DumpQueue) -> list[DumpQueue]:
    return [queue, *(q for child in queue.children for q in _queues(child))]


def _queue_cap(queue: DumpQueue, base: Cap, site_given: bool) -> Cap:
    """The RM's own figure for the queue replaces YARN's default (it includes the cluster's
    real maximum allocation); a given yarn-site.xml still bounds it."""
    if queue.max_container is None:
        return base
    why = f"maxContainerAllocation of {queue.name} in {SCHEDULER}"
    reported = Cap(queue.max_container, (why, why), (False, False))
    return _lower(reported, base) if site_given else reported


def _file_cap(queue: str, allocations: AllocationConfig | None) -> Cap | None:
    """``maxContainerAllocation`` of the queue or its nearest ancestor in the allocation file
    (inherited as ``QueueSettings`` does)."""
    if allocations is None:
        return None
    name: str | None = queue
    while name is not None:
        q = allocations.queue(name)
        if q is not None and q.max_container_allocation is not None:
            size = q.max_container_allocation
            why = f"maxContainerAllocation of {name} in the allocation file"
            return Cap((size.memory, size.vcores), (why, why), (False, False))
        name = name.rsplit(".", 1)[0] if "." in name else None
    return None


def _largest_node(dump: Dump) -> Cap | None:
    if not dump.nodes:
        return None
    memory = max(dump.nodes, key=lambda n: n.capacity[0])
    vcores = max(dump.nodes, key=lambda n: n.capacity[1])
    return Cap((memory.capacity[0], vcores.capacity[1]),
               (f"the largest node, {memory.name} in {NODES}",
                f"the largest node, {vcores.name} in {NODES}"), (False, False))


def _lower(cap: Cap, other: Cap | None) -> Cap:
    """Per type, the lower of two caps (the first on a tie: it is the more specific)."""
    if other is None:
        return cap
    pick = [0 if cap.size[i] <= other.size[i] else 1 for i in range(2)]
    pairs = [(cap, other)[p] for p in pick]
    return Cap((pairs[0].size[0], pairs[1].size[1]), (pairs[0].why[0], pairs[1].why[1]),
               (pairs[0].assumed[0], pairs[1].assumed[1]))


def app_cap(app: DumpApp, count: int, limits: Limits, folder: str) -> tuple[Amounts, list[str]]:
    """The cap of ``app``'s ``count`` containers, raised above a default YARN would not have
    kept it under (with a note); ConfigError when numbers the files state rule it out."""
    cap = limits.of(app.queue)
    size = list(cap.size)
    notes = []
    for i, unit in enumerate(UNITS):
        need = -(-app.allocated[i] // count)  # the smallest largest container
        if need > cap.size[i] and not cap.assumed[i]:
            _refuse(app, count, need, i, cap, folder)
        # YARN refuses an ask above the maximum (docs/semantics.md §1.1): what an app still
        # asks for is at most the maximum, so it shows how far a default was raised
        asked = max((a.size[i] for a in app.asks or ()), default=0)
        most = max(need, asked if cap.assumed[i] else 0)
        if most <= cap.size[i]:
            continue
        size[i] = most
        notes.append(f"app {app.id}: its {count} containers hold {app.allocated[i]:,} {unit}"
                     f"{f' and it asks for {asked:,} {unit} at once' if asked > need else ''}"
                     f", so containers of up to {most:,} {unit} are assumed, above "
                     f"{cap.why[i]} of {cap.size[i]:,} {unit} (give the cluster's "
                     "yarn-site.xml with --site)")
    largest = limits.largest
    for i in range(2):
        if largest is not None and size[i] > largest.size[i]:
            _refuse(app, count, size[i], i, largest, folder)
    return (size[0], size[1]), notes


def _refuse(app: DumpApp, count: int, need: int, i: int, cap: Cap, folder: str) -> None:
    unit = UNITS[i]
    fits = "fits on no node" if "largest node" in cap.why[i] else "is more than YARN grants"
    raise ConfigError(
        f"app {app.id}: {APPS} says its {count} running containers hold "
        f"{app.allocated[i]:,} {unit}, so one of them is a container of at least {need:,} "
        f"{unit}, which {fits}: the most is {cap.size[i]:,} {unit} ({cap.why[i]})",
        f"{folder}/{APPS}", app.line)


def check_totals(apps: Iterable[DumpApp], dump: Dump, folder: str) -> None:
    """The running apps together hold no more than all the nodes have, and each app's
    containers at least 1 MB each (ConfigError naming the numbers: no layout can exist)."""
    holding = [a for a in apps if any(a.allocated)]
    for app in holding:
        if app.running_containers > app.allocated[0]:
            raise ConfigError(
                f"app {app.id}: {APPS} says its {app.running_containers:,} running containers "
                f"hold {app.allocated[0]:,} MB in all, less than 1 MB each: the numbers "
                "contradict each other", f"{folder}/{APPS}", app.line)
    count = sum(max(a.running_containers, 1) for a in holding)
    if count > MOST_CONTAINERS:
        raise ConfigError(f"the running apps have {count:,} containers in all ({APPS}), more "
                          f"than the {MOST_CONTAINERS:,} fairshare rebuilds",
                          f"{folder}/{APPS}", max(holding, key=lambda a: (
                              a.running_containers, a.id)).line)
    held = (sum(a.allocated[0] for a in holding), sum(a.allocated[1] for a in holding))
    total = (sum(n.capacity[0] for n in dump.nodes), sum(n.capacity[1] for n in dump.nodes))
    for i, unit in enumerate(UNITS):
        if held[i] > total[i]:
            biggest = max(holding, key=lambda a: (a.allocated[i], a.id))
            raise ConfigError(
                f"the running apps hold {held[i]:,} {unit} in all ({APPS}; {biggest.id} "
                f"{biggest.allocated[i]:,} {unit}), more than the {total[i]:,} {unit} of the "
                f"{len(dump.nodes)} nodes in {NODES}: the files contradict each other",
                f"{folder}/{APPS}", biggest.line)

"""The sizes a running app's containers may have, rebuilt from its totals (docs/import.md,
"Containers rebuilt").

``/ws/v1/cluster/apps`` gives an app's ``allocatedMB`` / ``allocatedVCores`` and
``runningContainers``, not the containers. Every candidate below adds up to the totals exactly
(so every queue's usage is the dump's) and has no container above the app's cap
(:mod:`.limits`); the placement search tries them in this order, the likelier first:

1. **from the asks**: a running app asks again for what its tasks are (a MapReduce job's maps,
   Spark's executors), so its running tasks are taken to be of an asked size and the AM holds
   the rest — when the rest is a container YARN could grant;
2. **from the queue's AM usage**: the AM is what ``amUsedResources`` of its queue leaves for it
   (the app is the queue's only rebuilt one, or its AMs share the amount evenly), the tasks
   share the rest;
3. **AM and equal tasks**: tasks of one size, a whole number of memory steps
   (``yarn.scheduler.increment-allocation-mb``: FairScheduler rounds asks up to it), the AM the
   rest — every such AM, the smallest first (at most 16);
4. **even**: the totals spread over the containers, a remainder one step (or 1 MB, 1 vcore) to
   each of the first containers, never piled onto one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from fairshare.sim.importer.dump import Amounts, DumpApp, PendingAsk

Sizes = tuple[Amounts, ...]  # the AM's first (a managed app)
MOST_CANDIDATES = 16  # of AM and equal tasks, per app
AM_STEPS = 64  # AM sizes tried: up to 64 memory steps and 64 vcores above the least


def size_candidates(app: DumpApp, count: int, cap: Amounts, am_hint: Amounts | None,
                    minimum: Amounts, step_mb: int) -> list[Sizes]:
    """The candidate sizes of ``app``'s ``count`` containers, likelier first, no repeats."""
    total = app.allocated
    found: list[Sizes] = []

    def add(sizes: Sizes | None) -> None:
        if sizes is not None and sizes not in found and _valid(sizes, total, cap):
            found.append(sizes)

    managed = not app.unmanaged
    for size in _asked_sizes(app.asks or ()):
        if managed:
            rest = (total[0] - (count - 1) * size[0], total[1] - (count - 1) * size[1])
            add(((rest, *[size] * (count - 1))) if count > 1 else None)
        else:
            add(tuple([size] * count))
    if managed and am_hint is not None and count > 1:
        tasks = spread((total[0] - am_hint[0], total[1] - am_hint[1]), count - 1, step_mb)
        add(None if tasks is None else (am_hint, *tasks))
    if managed and count > 1:
        for sizes in _am_and_equal_tasks(total, count, cap, minimum, step_mb):
            add(sizes)
    add(spread(total, count, step_mb))
    add(spread(total, count, 1))
    return found


def _asked_sizes(asks: Sequence[PendingAsk]) -> list[Amounts]:
    """The sizes asked for, the most containers first (ties: the higher priority, the larger)."""
    counts: Counter[Amounts] = Counter()
    best: dict[Amounts, int] = {}
    for ask in asks:
        counts[ask.size] += ask.count
        best[ask.size] = min(best.get(ask.size, ask.priority), ask.priority)
    return sorted(counts, key=lambda s: (-counts[s], best[s], -s[0], -s[1]))


def _valid(sizes: Sizes, total: Amounts, cap: Amounts) -> bool:
    return (all(0 <= s[0] <= cap[0] and 0 <= s[1] <= cap[1] for s in sizes)
            and all(s[0] > 0 for s in sizes[:1])
            and (sum(s[0] for s in sizes), sum(s[1] for s in sizes)) == total)


def _am_and_equal_tasks(total: Amounts, count: int, cap: Amounts, minimum: Amounts,
                        step_mb: int) -> list[Sizes]:
    """Every AM that leaves tasks of one size (memory in whole steps, as FairScheduler rounds
    asks up to them), the smallest AM first: a few, as the tasks must share the rest exactly."""
    tasks = count - 1
    first_v = min(minimum[1], total[1] // count)
    vcores = [a for a in range(first_v, min(cap[1], total[1], first_v + AM_STEPS) + 1)
              if (total[1] - a) % tasks == 0 and (total[1] - a) // tasks <= cap[1]]
    memory = [a for a in range(step_mb, min(cap[0], total[0], AM_STEPS * step_mb) + 1, step_mb)
              if (total[0] - a) % (tasks * step_mb) == 0 and (total[0] - a) // tasks <= cap[0]]
    found = []
    for v in vcores:
        for m in memory:
            found.append(((m, v), *[((total[0] - m) // tasks, (total[1] - v) // tasks)] * tasks))
            if len(found) == MOST_CANDIDATES:
                return found
    return found


def spread(total: Amounts, count: int, step_mb: int) -> Sizes | None:
    """``total`` over ``count`` containers: equal shares, the remainder one step to each of the
    first ones (memory in steps of ``step_mb`` when it divides the total, else of 1 MB)."""
    if count <= 0:
        return None
    if total[0] < 0 or total[1] < 0:
        return None
    step = step_mb if total[0] % step_mb == 0 and total[0] // step_mb >= count else 1
    memory = _shares(total[0] // step, count)
    vcores = _shares(total[1], count)
    return tuple((m * step, v) for m, v in zip(memory, vcores, strict=True))


def _shares(amount: int, count: int) -> list[int]:
    base, extra = divmod(amount, count)
    return [base + 1] * extra + [base] * (count - extra)

"""The bounded search for a layout of the rebuilt containers that explains every node exactly
(docs/import.md, "Containers rebuilt").

Each node's used memory, vcores and ``numContainers`` not yet explained by listed containers
must be filled exactly by the rebuilt ones: bin packing with equality, searched depth first.
Each app contributes one of its size candidates (:mod:`.sizes`) — chosen in the search, so a
wrong first guess is undone — its AM on the host of ``amHostHttpAddress``. The AMs go first
(their nodes are known), then the tasks, each app's tasks together and the largest apps
first. Pruning: a node whose last container is placed must be full to the MB and vcore; an
app's tasks of one size go to nodes in non-decreasing order (their order does not matter);
among nodes left in the same state only the first is tried. Nodes are tried for a task in the
order of how well the task fits what they still have to explain. The search stops after a
budget of steps; deterministic (lists in the dump's order, no hashing of names).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fairshare.sim.importer.dump import Amounts
from fairshare.sim.importer.sizes import Sizes

SEARCH_STEPS = 20_000  # the search's budget, plus SEARCH_STEPS_PER_CONTAINER per container
SEARCH_STEPS_PER_CONTAINER = 20

Left = list[list[int]]  # per node: memory-mb, vcores, containers (-1: not known) to explain


@dataclass(frozen=True)
class SearchApp:
    """One rebuilt app: its size candidates (same count each) and its AM's node, if pinned."""

    candidates: Sequence[Sizes]
    home: int | None  # the node of the AM (the first container), None: free


@dataclass(frozen=True)
class Layout:
    """A found layout: per app, the candidate taken and the node of each container."""

    candidate: tuple[int, ...]
    nodes: tuple[tuple[int, ...], ...]
    steps: int


@dataclass(frozen=True)
class _Item:
    app: int
    position: int  # in the app's sizes
    chooses: bool  # the app's candidate is chosen here


def exact_layout(apps: Sequence[SearchApp], left: Left, budget: int | None = None
                 ) -> Layout | None:
    """A layout filling ``left`` exactly, or None (none exists, or the budget ran out)."""
    count = sum(len(a.candidates[0]) for a in apps)
    if not sums_agree([a.candidates for a in apps], left):
        return None
    items = _items(apps)
    steps = budget if budget is not None else SEARCH_STEPS + SEARCH_STEPS_PER_CONTAINER * count
    state = [list(e) for e in left]
    chosen = [0] * len(apps)
    where = [[-1] * len(a.candidates[0]) for a in apps]
    stack = [_options(apps, items, 0, state, chosen, where)] if items else []
    used = 0
    while stack:
        depth = len(stack) - 1
        if not stack[-1]:
            stack.pop()
            if stack:
                _undo(apps, items[depth - 1], state, chosen, where)
            continue
        used += 1
        if used > steps:
            return None
        candidate, node = stack[-1].pop(0)
        item = items[depth]
        if item.chooses:
            chosen[item.app] = candidate
        _take(state[node], apps[item.app].candidates[chosen[item.app]][item.position], 1)
        where[item.app][item.position] = node
        if depth + 1 == len(items):
            return Layout(tuple(chosen), tuple(tuple(w) for w in where), used)
        stack.append(_options(apps, items, depth + 1, state, chosen, where))
    return Layout((), (), 0) if not items else None


def sums_agree(candidates: Sequence[Sequence[Sizes]], left: Left) -> bool:
    """The apps' totals are the nodes' unexplained usage (else no layout can exist)."""
    held = [sum(s[i] for s in c[0]) for c in candidates for i in (0, 1)]
    memory, vcores = sum(held[0::2]), sum(held[1::2])
    containers = sum(len(c[0]) for c in candidates)
    known = [e[2] for e in left if e[2] >= 0]
    count_ok = (sum(known) == containers if len(known) == len(left)
                else sum(known) <= containers)
    return (memory == sum(e[0] for e in left) and vcores == sum(e[1] for e in left)
            and count_ok)


def _items(apps: Sequence[SearchApp]) -> list[_Item]:
    """Pinned AMs first, then each app's other containers, the apps with the largest
    containers first."""
    items = [_Item(i, 0, True) for i, a in enumerate(apps) if a.home is not None]
    order = sorted(range(len(apps)), key=lambda i: (-max(s[0] for s in apps[i].candidates[0]),
                                                    -sum(s[0] for s in apps[i].candidates[0]),
                                                    i))
    for i in order:
        first = 1 if apps[i].home is not None else 0
        for p in range(first, len(apps[i].candidates[0])):
            items.append(_Item(i, p, p == first and apps[i].home is None))
    return items


def _options(apps: Sequence[SearchApp], items: Sequence[_Item], depth: int, state: Left,
             chosen: list[int], where: list[list[int]]) -> list[tuple[int, int]]:
    item = items[depth]
    app = apps[item.app]
    candidates = range(len(app.candidates)) if item.chooses else (chosen[item.app],)
    found: list[tuple[int, int]] = []
    for c in candidates:
        sizes = app.candidates[c]
        size = sizes[item.position]
        if item.position == 0 and app.home is not None:
            if _fits(state[app.home], size):
                found.append((c, app.home))
            continue
        floor = 0
        previous = item.position - 1
        if (previous >= 0 and not (previous == 0 and app.home is not None)
                and sizes[previous] == size):
            floor = where[item.app][previous]  # same size as the task before: no reordering
        seen: set[tuple[int, int, int]] = set()
        nodes = []
        for j in range(floor, len(state)):
            key = (state[j][0], state[j][1], state[j][2])
            if key not in seen and _fits(state[j], size):
                seen.add(key)
                nodes.append(j)
        nodes.sort(key=lambda j: _misfit(state[j], size))
        found += [(c, j) for j in nodes]
    return found


def _fits(entry: list[int], size: Amounts) -> bool:
    """The container can be one of the node's unexplained ones; the last must fill it."""
    memory, vcores, count = entry
    if memory < size[0] or vcores < size[1] or count == 0:
        return False
    return count != 1 or (memory == size[0] and vcores == size[1])


def _misfit(entry: list[int], size: Amounts) -> tuple[int, int]:
    """Lower is better: the node's average unexplained container nearest the size."""
    memory, vcores, count = entry
    if count <= 0:
        return 1, -memory
    return 0, abs(memory // count - size[0]) + 1024 * abs(vcores // count - size[1])


def _take(entry: list[int], size: Amounts, sign: int) -> None:
    entry[0] -= sign * size[0]
    entry[1] -= sign * size[1]
    if entry[2] >= 0:
        entry[2] -= sign


def _undo(apps: Sequence[SearchApp], item: _Item, state: Left, chosen: list[int],
          where: list[list[int]]) -> None:
    node = where[item.app][item.position]
    _take(state[node], apps[item.app].candidates[chosen[item.app]][item.position], -1)
    where[item.app][item.position] = -1

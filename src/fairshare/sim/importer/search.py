"""The bounded search for a layout of the rebuilt containers that explains every node exactly
(docs/import.md, "Containers rebuilt").

Each node's used memory, vcores and ``numContainers`` not yet explained by listed containers
must be filled exactly by the rebuilt ones: bin packing with equality. A node's equations
involve only the containers' sizes, not whose they are, so the search is by node: given one
size candidate per app (:mod:`.sizes`), every AM on the host of ``amHostHttpAddress``, each
node in turn takes a number of containers of each size still to place that fills it to the MB,
vcore and container, depth first (nodes with fewer containers first; nodes in the same state
take non-increasing choices, so permutations of equal nodes are tried once; a choice is cut as
soon as the rest of the node cannot be made of the sizes left). The apps' candidates are tried
first all likeliest, then one app, then two apps, on another candidate. Then the containers of
each size are given to the apps that have them, in order. Bounded by a budget of steps;
deterministic (lists in the dump's order, no hashing of names).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations, product

from fairshare.sim.importer.dump import Amounts
from fairshare.sim.importer.sizes import Sizes

SEARCH_STEPS = 200_000  # the search's budget, over all candidate combinations
MOST_COMBINATIONS = 2_000
FITTING_STEPS = 20_000  # per queue, for the AM sizes that add up to its AM usage

Left = list[list[int]]  # per node: memory-mb, vcores, containers (-1: not known) to explain


@dataclass(frozen=True)
class SearchApp:
    """One rebuilt app: its size candidates (same count each) and its AM's node, if pinned."""

    candidates: Sequence[Sizes]
    home: int | None  # the node of the AM (the first container), None: free
    # the AMs of the apps of one group (a queue) add up to ``am_totals[group]``
    group: int | None = None


@dataclass(frozen=True)
class Layout:
    """A found layout: per app, the candidate taken and the node of each container."""

    candidate: tuple[int, ...]
    nodes: tuple[tuple[int, ...], ...]
    steps: int


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


def exact_layout(apps: Sequence[SearchApp], left: Left, budget: int | None = None,
                 am_totals: Sequence[Amounts] = ()) -> Layout | None:
    """A layout filling ``left`` exactly, or None (none exists, or the budget ran out)."""
    if not sums_agree([a.candidates for a in apps], left):
        return None
    steps = [budget if budget is not None else SEARCH_STEPS]
    for choice in _choices(apps, am_totals):
        sizes = [apps[i].candidates[c] for i, c in enumerate(choice)]
        fills = _fill_nodes(sizes, [a.home for a in apps], left, steps)
        if fills is not None:
            return Layout(choice, _assign(sizes, [a.home for a in apps], fills),
                          (budget or SEARCH_STEPS) - steps[0])
        if steps[0] <= 0:
            return None
    return None


def _choices(apps: Sequence[SearchApp], am_totals: Sequence[Amounts]
             ) -> Iterator[tuple[int, ...]]:
    """Candidate choices: each group's apps on candidates whose AMs add up to the group's AM
    usage (the likeliest first), the other apps free; first every group and app on its
    likeliest, then one, then two of them on another."""
    units: list[tuple[list[int], list[tuple[int, ...]]]] = []
    grouped: dict[int, list[int]] = {}
    for i, app in enumerate(apps):
        if app.group is None:
            units.append(([i], [(k,) for k in range(len(app.candidates))]))
        else:
            grouped.setdefault(app.group, []).append(i)
    for group, members in sorted(grouped.items()):
        fitting = _fitting(apps, members, am_totals[group])
        if fitting:
            units.append((members, fitting))
        else:  # the queue's AM usage was saved at another moment: no constraint
            units += [([i], [(k,) for k in range(len(apps[i].candidates))]) for i in members]
    for picks in _combinations([len(options) for _, options in units]):
        choice = [0] * len(apps)
        for (members, options), k in zip(units, picks, strict=True):
            for i, c in zip(members, options[k], strict=True):
                choice[i] = c
        yield tuple(choice)


def _fitting(apps: Sequence[SearchApp], members: list[int], total: Amounts
             ) -> list[tuple[int, ...]]:
    """The members' candidate tuples whose AMs add up to ``total``, fewest changes first."""
    found: list[tuple[int, ...]] = []
    picks: list[int] = []
    steps = [FITTING_STEPS]
    # the least AM the members from each one on can still take, for cutting early
    least = [[sum(min(s[0][d] for s in apps[i].candidates) for i in members[at:])
              for d in (0, 1)] for at in range(len(members) + 1)]
    most = [[sum(max(s[0][d] for s in apps[i].candidates) for i in members[at:])
             for d in (0, 1)] for at in range(len(members) + 1)]

    def go(at: int, memory: int, vcores: int) -> None:
        steps[0] -= 1
        if len(found) >= MOST_COMBINATIONS or steps[0] < 0:
            return
        if not (least[at][0] <= memory <= most[at][0] and least[at][1] <= vcores
                <= most[at][1]):
            return
        if at == len(members):
            if memory == 0 and vcores == 0:
                found.append(tuple(picks))
            return
        for k, sizes in enumerate(apps[members[at]].candidates):
            picks.append(k)
            go(at + 1, memory - sizes[0][0], vcores - sizes[0][1])
            picks.pop()

    go(0, total[0], total[1])
    return sorted(found, key=lambda t: (sum(k > 0 for k in t), sum(t), t))


def _combinations(counts: list[int]) -> Iterator[tuple[int, ...]]:
    """Every unit on its first option, then one on another, then two."""
    base = [0] * len(counts)
    yield tuple(base)
    made = 1
    choosable = [i for i, n in enumerate(counts) if n > 1]
    for width in (1, 2):
        for units in combinations(choosable, width):
            for picks in product(*(range(1, counts[i]) for i in units)):
                choice = list(base)
                for i, k in zip(units, picks, strict=True):
                    choice[i] = k
                yield tuple(choice)
                made += 1
                if made >= MOST_COMBINATIONS:
                    return


def _fill_nodes(sizes: Sequence[Sizes], homes: Sequence[int | None], left: Left,
                steps: list[int]) -> list[dict[Amounts, int]] | None:
    """Per node, how many containers of each size it takes (pinned AMs excluded)."""
    need = [list(e) for e in left]
    pool: dict[Amounts, int] = {}
    for i, app_sizes in enumerate(sizes):
        for p, size in enumerate(app_sizes):
            home = homes[i] if p == 0 else None
            if home is None:
                pool[size] = pool.get(size, 0) + 1
                continue
            entry = need[home]
            entry[0] -= size[0]
            entry[1] -= size[1]
            if entry[2] >= 0:
                entry[2] -= 1
            if min(entry) < -1 or entry[0] < 0 or entry[1] < 0:
                return None
    kinds = sorted(pool, key=lambda s: (-s[0], -s[1]))
    order = sorted(range(len(need)), key=lambda j: (need[j][2] < 0, need[j][2], j))
    fills: list[dict[Amounts, int]] = [{} for _ in need]
    counts = [pool[k] for k in kinds]
    if _node(0, order, need, kinds, counts, fills, None, steps):
        return fills
    return None


def _node(at: int, order: list[int], need: Left, kinds: list[Amounts], counts: list[int],
          fills: list[dict[Amounts, int]], previous: list[int] | None, steps: list[int]
          ) -> bool:
    if at == len(order):
        return not any(counts)
    j = order[at]
    same = at > 0 and need[order[at - 1]] == need[j]
    for take in _takes(need[j], kinds, counts, previous if same else None, steps):
        for t, n in enumerate(take):
            counts[t] -= n
        if _node(at + 1, order, need, kinds, counts, fills, take, steps):
            fills[j] = {kinds[t]: n for t, n in enumerate(take) if n}
            return True
        for t, n in enumerate(take):
            counts[t] += n
        if steps[0] <= 0:
            return False
    return False


def _takes(entry: list[int], kinds: list[Amounts], counts: list[int],
           most: list[int] | None, steps: list[int]) -> Iterator[list[int]]:
    """The ways of filling one node exactly with the sizes left (the most of the largest
    first); ``most``: not above this choice, compared as a sequence (an equal node's)."""
    take = [0] * len(kinds)
    # the smallest and largest size from each kind on, per type, for cutting early
    lo = [[min((k[d] for k in kinds[t:]), default=0) for d in (0, 1)] for t in range(len(kinds))]
    hi = [[max((k[d] for k in kinds[t:]), default=0) for d in (0, 1)] for t in range(len(kinds))]

    def go(t: int, memory: int, vcores: int, count: int, bound: bool) -> Iterator[list[int]]:
        steps[0] -= 1
        if steps[0] < 0:
            return
        if memory == 0 and vcores == 0 and count <= 0:
            if count == 0 or count < 0:
                yield list(take)
            return
        if t == len(kinds) or memory < 0 or vcores < 0:
            return
        if count > 0 and not (count * lo[t][0] <= memory <= count * hi[t][0]
                              and count * lo[t][1] <= vcores <= count * hi[t][1]):
            return
        size = kinds[t]
        top = counts[t]
        if count >= 0:
            top = min(top, count)
        if size[0]:
            top = min(top, memory // size[0])
        if size[1]:
            top = min(top, vcores // size[1])
        if bound and most is not None:
            top = min(top, most[t])
        for n in range(top, -1, -1):
            take[t] = n
            yield from go(t + 1, memory - n * size[0], vcores - n * size[1],
                          count - n if count >= 0 else -1,
                          bound and most is not None and n == most[t])
        take[t] = 0

    yield from go(0, entry[0], entry[1], entry[2], True)


def _assign(sizes: Sequence[Sizes], homes: Sequence[int | None],
            fills: list[dict[Amounts, int]]) -> tuple[tuple[int, ...], ...]:
    """The node of each app's container: pinned AMs at home, the rest by size, nodes in order."""
    slots: dict[Amounts, list[int]] = {}
    for j, fill in enumerate(fills):
        for size, n in fill.items():
            slots.setdefault(size, []).extend([j] * n)
    where = []
    for i, app_sizes in enumerate(sizes):
        nodes = []
        for p, size in enumerate(app_sizes):
            home = homes[i] if p == 0 else None
            nodes.append(home if home is not None else slots[size].pop(0))
        where.append(tuple(nodes))
    return tuple(where)

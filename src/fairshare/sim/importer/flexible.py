"""The second search: a layout that explains every node with sizes chosen to fit the nodes
(docs/import.md, "Containers rebuilt").

When no size candidate of :mod:`.sizes` packs the nodes exactly (two AMs of different sizes in
one queue, an app whose AM is larger than its tasks), the nodes themselves tell the sizes: the
search picks how many containers of each app are on each node (the AM's node at least one),
and a maximum flow per resource (memory, then vcores) decides how much of the app's total each
such group holds, between ``count × smallest`` and ``count × cap``; within a group the amount
is spread evenly (remainders spread). Apps are taken one at a time, largest first; after each,
a relaxed flow (the apps left may go anywhere, in any amount up to their caps) must still be
feasible, else the choice is undone. Bounded by a budget of flow checks; deterministic.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import pairwise

from fairshare.sim.importer.dump import Amounts
from fairshare.sim.importer.sizes import spread

FLOW_CHECKS = 4_000  # the search's budget
MOST_APPS, MOST_NODES = 200, 64  # beyond these the first search's budget is the search


@dataclass(frozen=True)
class FlexApp:
    count: int
    total: Amounts
    cap: Amounts
    least: Amounts  # the smallest container, per type
    home: int | None  # the AM's node; None: free (unmanaged, or its host not in the dump)


def flexible_layout(apps: Sequence[FlexApp], left: list[list[int]]
                    ) -> list[list[tuple[int, Amounts]]] | None:
    """Per app, (node, size) of each container, the AM's first; None: none found."""
    if len(apps) > MOST_APPS or len(left) > MOST_NODES:
        return None
    order = sorted(range(len(apps)), key=lambda i: (-apps[i].total[0], -apps[i].count, i))
    counts: list[list[int] | None] = [None] * len(apps)
    budget = [FLOW_CHECKS]
    found = _search(apps, order, 0, counts, [e[2] for e in left], left, budget)
    if found is None:
        return None
    flows = [_flow(apps, found, left, d, relaxed=False) for d in (0, 1)]
    assert flows[0] is not None and flows[1] is not None
    return [_containers(apps[i], found[i], flows[0][i], flows[1][i]) for i in range(len(apps))]


def _search(apps: Sequence[FlexApp], order: list[int], at: int,
            counts: list[list[int] | None], slots: list[int], left: list[list[int]],
            budget: list[int]) -> list[list[int]] | None:
    if at == len(order):
        if any(s > 0 for s in slots):
            return None
        done = [c for c in counts if c is not None]
        return done if all(_flow(apps, done, left, d, False) is not None for d in (0, 1)) \
            else None
    i = order[at]
    for k in _splits(apps[i], slots, left):
        budget[0] -= 1
        if budget[0] < 0:
            return None
        counts[i] = k
        if all(_flow(apps, counts, left, d, relaxed=True) is not None for d in (0, 1)):
            taken = [s - n if s >= 0 else s for s, n in zip(slots, k, strict=True)]
            found = _search(apps, order, at + 1, counts, taken, left, budget)
            if found is not None:
                return found
        counts[i] = None
    return None


def _splits(app: FlexApp, slots: list[int], left: list[list[int]]) -> Iterator[list[int]]:
    """The app's containers over the nodes (at most the node's free slots and what its
    unexplained usage can hold of the app's smallest container), larger groups first."""
    most = []
    for j, entry in enumerate(left):
        bound = app.count if slots[j] < 0 else slots[j]
        for d in (0, 1):
            if app.least[d] > 0:
                bound = min(bound, entry[d] // app.least[d])
        most.append(bound)
    k = [0] * len(left)

    def fill(j: int, rest: int) -> Iterator[list[int]]:
        if j == len(left):
            if rest == 0:
                yield list(k)
            return
        low = 1 if app.home == j else 0
        for n in range(min(most[j], rest), low - 1, -1):
            k[j] = n
            yield from fill(j + 1, rest - n)
        k[j] = 0

    yield from fill(0, app.count)


def _flow(apps: Sequence[FlexApp], counts: Sequence[list[int] | None], left: list[list[int]],
          d: int, relaxed: bool) -> list[list[int]] | None:
    """Per app and node, the amount of resource ``d`` above the groups' smallest containers
    (``relaxed``: apps without counts may go anywhere), or None when infeasible."""
    nodes = len(left)
    supply, demand = [], [left[j][d] for j in range(nodes)]
    limit: list[list[int]] = []
    for i, app in enumerate(apps):
        k = counts[i] if i < len(counts) else None
        if k is None:
            if not relaxed:
                return None
            supply.append(app.total[d])
            limit.append([app.count * app.cap[d] if left[j][2] != 0 else 0
                          for j in range(nodes)])
            continue
        supply.append(app.total[d] - sum(k) * app.least[d])
        limit.append([n * (app.cap[d] - app.least[d]) for n in k])
        for j in range(nodes):
            demand[j] -= k[j] * app.least[d]
    if min(supply, default=0) < 0 or min(demand, default=0) < 0 or sum(supply) != sum(demand):
        return None
    return _transport(supply, demand, limit)


def _transport(supply: list[int], demand: list[int], limit: list[list[int]]
               ) -> list[list[int]] | None:
    """A bipartite flow meeting every supply and demand within the per-pair limits (augmenting
    paths, shortest first), or None."""
    a, b = len(supply), len(demand)
    flow = [[0] * b for _ in range(a)]
    out, into = list(supply), list(demand)
    while True:
        # breadth-first from every app with supply left, over forward (limit) and backward
        # (flow) pairs, to a node with demand left
        parent: dict[tuple[str, int], tuple[str, int] | None] = {
            ("a", i): None for i in range(a) if out[i] > 0}
        queue = list(parent)
        end = None
        while queue and end is None:
            side, x = queue.pop(0)
            nxt = ([("b", j) for j in range(b) if flow[x][j] < limit[x][j]] if side == "a"
                   else [("a", i) for i in range(a) if flow[i][x] > 0])
            for node in nxt:
                if node not in parent:
                    parent[node] = (side, x)
                    queue.append(node)
                    if node[0] == "b" and into[node[1]] > 0:
                        end = node
                        break
        if end is None:
            return flow if not any(out) else None
        path = [end]
        while parent[path[-1]] is not None:
            step = parent[path[-1]]
            assert step is not None
            path.append(step)
        path.reverse()
        amount = min(out[path[0][1]], into[end[1]])
        for (s1, x1), (_, x2) in pairwise(path):
            amount = min(amount, limit[x1][x2] - flow[x1][x2] if s1 == "a" else flow[x2][x1])
        for (s1, x1), (_, x2) in pairwise(path):
            if s1 == "a":
                flow[x1][x2] += amount
            else:
                flow[x2][x1] -= amount
        out[path[0][1]] -= amount
        into[end[1]] -= amount


def _containers(app: FlexApp, k: list[int], memory: list[int], vcores: list[int]
                ) -> list[tuple[int, Amounts]]:
    """Each group's amount spread over its containers; the AM is the home group's first."""
    placed: list[tuple[int, Amounts]] = []
    for j, n in enumerate(k):
        if not n:
            continue
        amounts = (n * app.least[0] + memory[j], n * app.least[1] + vcores[j])
        sizes = spread(amounts, n, 1)
        assert sizes is not None
        group = [(j, size) for size in sizes]
        placed = group + placed if j == app.home else placed + group
    return placed

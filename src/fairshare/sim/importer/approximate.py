"""When no layout explains every node (the files were saved at different moments, or the
search ran out of budget): the rebuilt containers placed as closely as they can be, and what
differs said (docs/import.md, "Approximate placement").

Each container keeps its size (so the queues' usage stays the dump's) and goes where YARN could
have put it: on a node with room for it next to what is already placed. The AM goes on its host
if it has room; the tasks go largest first, each on the node whose still unexplained usage it
fits best, else on the node with most room. A container no node has room for any more (the
nodes are fuller than the apps say) is cut to what the roomiest node can take, and the cut is
reported: the queues' usage is then that much lower than the dump's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fairshare.sim.importer.dump import Amounts, DumpNode
from fairshare.sim.importer.sizes import Sizes


@dataclass(frozen=True)
class Approximated:
    """Per app, each container's node and size (cut ones smaller), and the cuts."""

    placed: tuple[tuple[tuple[int, Amounts], ...], ...]
    cuts: tuple[tuple[int, Amounts], ...]  # app index, what could not be placed


def place_closely(sizes: Sequence[Sizes], homes: Sequence[int | None], room: list[list[int]],
                  left: list[list[int]]) -> Approximated:
    """``sizes[i]`` of app ``i`` placed; ``room`` (free memory, vcores per node) and ``left``
    (unexplained memory, vcores, containers) are updated."""
    placed: list[list[tuple[int, Amounts]]] = [[] for _ in sizes]
    cuts: list[tuple[int, Amounts]] = []
    order = [(i, 0) for i, home in enumerate(homes) if home is not None and sizes[i]]
    tasks = [(i, p) for i, s in enumerate(sizes) for p in range(len(s))
             if (i, p) not in set(order)]
    order += sorted(tasks, key=lambda t: (-sizes[t[0]][t[1]][0], -sizes[t[0]][t[1]][1], t))
    for i, p in order:
        size = sizes[i][p]
        home = homes[i] if p == 0 else None
        node = home if home is not None and _room_for(room[home], size) else _best(
            room, left, size)
        if node is None:
            node, size = _cut(room, size)
            lost = (sizes[i][p][0] - size[0], sizes[i][p][1] - size[1])
            cuts.append((i, lost))
            if node is None:
                continue
        room[node][0] -= size[0]
        room[node][1] -= size[1]
        left[node][0] -= size[0]
        left[node][1] -= size[1]
        left[node][2] -= 1 if left[node][2] > 0 else 0
        placed[i].append((node, size))
    return Approximated(tuple(tuple(p) for p in placed), tuple(cuts))


def _room_for(free: list[int], size: Amounts) -> bool:
    return free[0] >= size[0] and free[1] >= size[1]


def _best(room: list[list[int]], left: list[list[int]], size: Amounts) -> int | None:
    fits = [j for j in range(len(room)) if _room_for(room[j], size)]
    if not fits:
        return None

    def badness(j: int) -> tuple[int, int, int, int]:
        memory, vcores, count = left[j]
        holds = memory >= size[0] and vcores >= size[1] and count != 0
        near = abs(memory // count - size[0]) if holds and count > 0 else 0
        return (0 if holds else 1, near, -room[j][0], j)

    return min(fits, key=badness)


def _cut(room: list[list[int]], size: Amounts) -> tuple[int | None, Amounts]:
    """The roomiest node and what of ``size`` it can take (None: no node has memory left)."""
    j = max(range(len(room)), key=lambda k: (min(room[k][0], size[0]),
                                             min(room[k][1], size[1]), -k), default=None)
    if j is None or min(room[j][0], size[0]) <= 0:
        return None, (0, 0)
    return j, (min(room[j][0], size[0]), min(room[j][1], size[1]))


def node_differences(nodes: Sequence[DumpNode], placed: dict[str, list[Amounts]]
                     ) -> list[tuple[str, int, int, int]]:
    """The nodes whose containers differ from what nodes.json says they hold: name, and the
    memory, vcores and containers placed minus the dumped."""
    out = []
    for node in nodes:
        sizes = placed.get(node.name, [])
        memory = sum(s[0] for s in sizes) - node.used[0]
        vcores = sum(s[1] for s in sizes) - node.used[1]
        count = len(sizes) - node.containers if node.containers is not None else 0
        if memory or vcores or count:
            out.append((node.name, memory, vcores, count))
    return out


def signed(amount: int, unit: str) -> str:
    word = unit if abs(amount) != 1 or unit == "MB" else unit.rstrip("s")
    return f"{amount:+,} {word}"

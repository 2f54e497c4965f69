"""Every place where YARN's order is hash order, and the deterministic order we use instead.

Keeping these choices in one module makes them easy to find, to document, and to swap for a
Java ``HashMap``/``HashSet`` emulation should fidelity checks ever need it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TypeVar

from fairshare.config.model import AllocationConfig

ROOT = "root"
ANY = "*"
K = TypeVar("K", bound=tuple[int, int])
T = TypeVar("T")


def configured_creation_order(config: AllocationConfig) -> list[tuple[str, bool]]:
    """The order configured queues are created in at load time, as ``(name, is_leaf)``.

    YARN creates every configured leaf (with its missing ancestors), then every configured
    parent (spec §1.2 step 3), iterating ``HashSet``s of names — hash order. We use document
    order within each pass: deterministic, and what an administrator reads in the file. It
    decides the order of siblings, which is the order leaves are visited in the starvation pass
    (spec §4.3) and the order a tree view shows.
    """
    leaves = [(q.name, True) for q in config.queues if not q.is_parent and q.name != ROOT]
    parents = [(q.name, False) for q in config.queues if q.is_parent and q.name != ROOT]
    return leaves + parents



def request_order(asks: Mapping[K, Mapping[str, T]]) -> list[tuple[K, str, T]]:
    """The order §5.2 walks a starved app's resource requests, as (key, place, ask) triples.

    YARN iterates a hash map of placement allocators, then a hash map of requests inside each
    (unspecified order). We take scheduler keys in priority order and, within a key, ANY
    first, then racks and hosts in the order the app first asked for them. Because ANY comes
    first, the visited tracker turns every key into its ANY request.
    """
    out: list[tuple[K, str, T]] = []
    for key in sorted(asks):
        places = asks[key]
        ordered = sorted(places, key=lambda name: name != ANY)  # stable: ANY, then as asked
        out.extend((key, name, places[name]) for name in ordered)
    return out


def containers_newest_first(containers: Mapping[str, T]) -> list[T]:
    """A node's containers as §5.4 walks them, before AMs are moved to the end.

    YARN walks a hash map, putting each non-AM container at the front. We take the newest
    allocation first, so the most recently started work — the least lost — goes first.
    ``containers`` must be in allocation order (the engine's dicts are).
    """
    return list(containers.values())[::-1]


def nodes_in_search_order(nodes: Mapping[str, T]) -> list[T]:
    """Nodes as §5.3 searches them: registration order, for ANY (YARN: the cluster node map's
    hash order) and for a rack (YARN: the order nodes joined the rack — the same here)."""
    return list(nodes.values())

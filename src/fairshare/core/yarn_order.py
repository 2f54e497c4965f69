"""Every place where YARN's order is hash order, and the deterministic order we use instead.

Keeping these choices in one module makes them easy to find, to document, and to swap for a
Java ``HashMap``/``HashSet`` emulation should fidelity checks ever need it.
"""

from __future__ import annotations

from fairshare.config.model import AllocationConfig

ROOT = "root"


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

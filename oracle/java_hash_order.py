"""The iteration order of a Java ``HashSet<String>``, for the generator to write configured
queues in the order YARN creates them.

YARN's ``QueueManager.updateAllocationConfiguration`` creates the configured leaves (with
their missing parents) by iterating a ``HashSet`` of full queue names
(``QueueProperties.Builder.configuredQueues``), so siblings end up in hash order; fairshare
creates them in document order (docs/fidelity.md). A file written in the hash order makes
both the same, so a difference that remains is not this one.

A ``HashMap`` iterates its table by bucket, each bucket in insertion order (a bucket only
turns into a tree past 8 entries in a table of 64 or more, far beyond the files generated
here); the bucket of a key is ``(h ^ (h >>> 16)) & (capacity - 1)`` with ``h`` its
``String.hashCode``, and the table doubles from 16 when its size passes 0.75 of it.
"""

from __future__ import annotations

from collections.abc import Sequence

from fairshare.core.yarn_order import hash_map_order

_MASK = 0xFFFFFFFF


def java_string_hash(text: str) -> int:
    """``String.hashCode`` as its 32 bits (unsigned): s[0]·31^(n−1) + … over UTF-16 units."""
    data = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & _MASK
    return h


def hash_set_order(names: Sequence[str]) -> list[str]:
    """The order a ``new HashSet<>()`` that was given ``names`` in this order iterates them."""
    unique = list(dict.fromkeys(names))
    hashes = [java_string_hash(name) for name in unique]
    return [unique[i] for i in hash_map_order(hashes, len(unique))]

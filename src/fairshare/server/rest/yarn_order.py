"""The order in which the RM lists apps and nodes: a ``ConcurrentHashMap``'s.

``RMContext.getRMApps()`` and ``getRMNodes()`` are ``ConcurrentHashMap``s keyed by
``ApplicationId`` and ``NodeId``; ``/apps`` (``ClientRMService.getApplications``) and
``/nodes`` (``RMServerUtils.queryRMNodes``) walk them, so the answers come in the maps' bin
order, not submission or registration order. The recorded 3.4.2 answers follow it exactly
(``tests/watch/recorded/fair-churn``: apps 4, 3, 2, 1, 5; nodes 45455, 45454, 45457, 45456).
So does an app's ``resourceRequests``: ``AppSchedulingInfo.getAllResourceRequests`` walks a
map of placement allocators by ``SchedulerRequestKey``, each a map of requests by resource
name.

What is emulated: the key's ``hashCode``, ``ConcurrentHashMap.spread``, a table of 16 bins
doubled whenever the count reaches three quarters of it (``sizeCtl``), and insertion order
within a bin. Not emulated: the order a resize may leave inside a bin (``transfer``'s
``lastRun``) — bins rarely hold two keys at these sizes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")


def _int32(value: int) -> int:
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value >= 1 << 31 else value


def string_hash(text: str) -> int:
    """``String.hashCode`` (over UTF-16 code units)."""
    h = 0
    data = text.encode("utf-16-be", "surrogatepass")
    for i in range(0, len(data), 2):
        h = _int32(31 * h + (data[i] << 8 | data[i + 1]))
    return h


def application_id_hash(cluster_timestamp: int, number: int) -> int:
    """``ApplicationId.hashCode``."""
    result = _int32(371237 * 6521 + _int32(cluster_timestamp ^ (cluster_timestamp >> 32)))
    return _int32(371237 * result + number)


def node_id_hash(host: str, port: int) -> int:
    """``NodeId.hashCode``."""
    return _int32(493217 * _int32(493217 * 8501 + string_hash(host)) + port)


def priority_hash(priority: int) -> int:
    """``Priority.hashCode``."""
    return _int32(517861 * 9511 + priority)


def scheduler_request_key_hash(priority: int, allocation_request_id: int) -> int:
    """``SchedulerRequestKey.hashCode`` of a key with no container to update."""
    folded = _int32(allocation_request_id ^ ((allocation_request_id & 0xFFFFFFFFFFFFFFFF) >> 32))
    return _int32(31 * _int32(31 * priority_hash(priority) + folded))


def _table_size(count: int) -> int:
    size = 16
    while count >= size - (size >> 2):  # sizeCtl = 0.75 n: reaching it doubles the table
        size <<= 1
    return size


def hash_map_order(items: Sequence[T], hash_of: Callable[[T], int]) -> list[T]:
    """``items`` (in insertion order) as a ``ConcurrentHashMap`` holding them iterates."""
    mask = _table_size(len(items)) - 1

    def bin_of(item: T) -> int:
        h = hash_of(item) & 0xFFFFFFFF
        return ((h ^ (h >> 16)) & 0x7FFFFFFF) & mask

    return [item for _, item in sorted(enumerate(items), key=lambda p: (bin_of(p[1]), p[0]))]

"""Every place where YARN's order is hash order: its emulation, or the deterministic order we
use instead where the hash depends on what a scenario does not give (docs/fidelity.md).

Emulated from what the scenario gives: a node's containers in the victim search (YARN's own
``HashMap`` order, from the container ids: :func:`containers_for_victim_search`), configured
queues at load time (``HashSet`` order of their names: :func:`configured_creation_order`) and
waiting apps promoted together (:func:`merged_by_start_time`). The differential oracle
(``make oracle``) holds each emulation to Hadoop's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Protocol, TypeVar

from fairshare.config.model import AllocationConfig
from fairshare.resources.vector import LONG_MAX

ROOT = "root"
ANY = "*"
K = TypeVar("K", bound=tuple[int, int])
T = TypeVar("T")


def configured_creation_order(config: AllocationConfig) -> list[tuple[str, bool]]:
    """The order configured queues are created in at load time, as ``(name, is_leaf)``.

    ``QueueManager.updateAllocationConfiguration`` creates every configured leaf (with its
    missing ancestors), then every configured parent, iterating the ``HashSet``s of full names
    that ``AllocationFileQueueParser.loadQueue`` filled: leaves as it meets them, a parent
    after its children. Creation order is the order of siblings (``FSParentQueue.childQueues``)
    and of ``QueueManager.leafQueues``, the order ``FairScheduler.update`` visits leaves for
    starvation (so which starved app the preemption thread serves first).
    """
    children: dict[str, list[str]] = {}
    for queue in config.queues:
        if queue.name != ROOT:
            children.setdefault(queue.name.rsplit(".", 1)[0], []).append(queue.name)
    parents_after_children: list[str] = []

    def post_order(name: str) -> None:
        for child in children.get(name, ()):
            post_order(child)
        parents_after_children.append(name)

    post_order(ROOT)
    parent_names = {q.name for q in config.queues if q.is_parent}
    leaves = [q.name for q in config.queues if not q.is_parent and q.name != ROOT]
    parents = [n for n in parents_after_children if n in parent_names]  # root if written
    return ([(n, True) for n in hash_set_order(leaves)]
            + [(n, False) for n in hash_set_order(parents) if n != ROOT])


def string_hash(text: str) -> int:
    """``String.hashCode``, as its 32 bits unsigned: s[0]·31^(n−1) + … over UTF-16 units."""
    data = text.encode("utf-16-be")
    h = 0
    for i in range(0, len(data), 2):
        h = (31 * h + (data[i] << 8 | data[i + 1])) & 0xFFFFFFFF
    return h


def hash_set_order(names: Sequence[str]) -> list[str]:
    """The order a ``new HashSet<String>()`` given ``names`` in this order iterates them."""
    unique = list(dict.fromkeys(names))
    hashes = [string_hash(name) for name in unique]
    return [unique[i] for i in hash_map_order(hashes, len(unique))]


def request_order(asks: Mapping[K, Mapping[str, T]]) -> list[tuple[K, str, T]]:
    """The order docs/semantics.md §5.2 walks a starved app's resource requests, as
    (key, place, ask) triples.

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


# The cluster timestamp of the ResourceManager fairshare's apps belong to: YARN names apps
# application_<cluster timestamp>_<number>, numbered from 1 in submission order, and the hash of
# a container id mixes them in (ApplicationId.hashCode). 2023-11-14 22:13:20 UTC.
CLUSTER_TIMESTAMP_MS = 1_700_000_000_000


def _int32(x: int) -> int:
    """Java ``int`` arithmetic: wrap to 32 bits, signed."""
    return (x + 2**31) % 2**32 - 2**31


def container_id_hash(app_number: int, attempt: int, sequence: int,
                      cluster_timestamp: int = CLUSTER_TIMESTAMP_MS) -> int:
    """``ContainerId.hashCode`` of container ``sequence`` of attempt ``attempt`` of app
    ``app_number``: ``ApplicationId``'s, then ``ApplicationAttemptId``'s hash mixed in."""
    app = application_id_hash(app_number, cluster_timestamp)
    attempt_hash = _int32(347671 * _int32(347671 * 5501 + app) + attempt)
    return _int32(31 * _int32(sequence ^ (sequence >> 32)) + attempt_hash)


def application_id_hash(app_number: int, cluster_timestamp: int = CLUSTER_TIMESTAMP_MS) -> int:
    """``ApplicationId.hashCode``."""
    ts = cluster_timestamp
    return _int32(371237 * _int32(371237 * 6521 + _int32(ts ^ (ts >> 32))) + app_number)


def hash_map_order(hashes: Sequence[int], peak: int) -> list[int]:
    """The positions of ``hashes`` (keys in insertion order) in a ``java.util.HashMap``'s
    iteration order, for a map that has held at most ``peak`` entries: by bucket (the hash's
    spread, ``h ^ (h >>> 16)``, masked by the table size — 16, doubled each time an insert
    takes the map past 3/4 full; it never shrinks), then in insertion order within a bucket
    (a resize splits a bucket without reordering it). Exact unless 8 keys share a bucket
    (Java then grows or treeifies that bin)."""
    capacity = 16
    while peak > capacity * 3 // 4:
        capacity *= 2
    def bucket(h: int) -> int:
        unsigned = h & 0xFFFFFFFF
        return (unsigned ^ (unsigned >> 16)) & (capacity - 1)
    return sorted(range(len(hashes)), key=lambda i: (bucket(hashes[i]), i))


class _Identified(Protocol):
    @property
    def is_am(self) -> bool: ...
    @property
    def yarn_hash(self) -> int: ...


C = TypeVar("C", bound=_Identified)


def container_hash(container_id: str, app_number: int) -> int:
    """``ContainerId.hashCode`` of a container fairshare named ``container_<app>_<attempt>_
    <sequence>``, its app numbered ``app_number``. A container id fairshare did not make (one
    recovered under its own name) hashes as sequence 0 of attempt 1."""
    return container_id_hash(app_number, *_attempt_and_sequence(container_id))


def containers_for_victim_search(containers: Mapping[str, C], peak: int) -> list[C]:
    """A node's containers in the order YARN's victim search walks them
    (``SchedulerNode.getRunningContainersWithAMsAtTheEnd``): its ``launchedContainers``
    ``HashMap`` is iterated, each task container put at the front and each AM at the end — so
    task containers in reverse hash order, then AMs in hash order.

    ``containers`` in insertion (allocation) order, each with its ``yarn_hash``
    (:func:`container_hash`); ``peak``: the most the node ever held.
    """
    ordered = containers_in_hash_order(containers, peak)
    return [c for c in reversed(ordered) if not c.is_am] + [c for c in ordered if c.is_am]


def containers_in_hash_order(containers: Mapping[str, C], peak: int) -> list[C]:
    """A node's containers as YARN iterates its ``launchedContainers`` ``HashMap``
    (``SchedulerNode.getCopiedListOfRunningContainers``: a lost node's containers end in this
    order); arguments as for :func:`containers_for_victim_search`."""
    listed = list(containers.values())
    return [listed[i] for i in hash_map_order([c.yarn_hash for c in listed], peak)]


class _Owned(Protocol):
    @property
    def app_id(self) -> str: ...


V = TypeVar("V", bound=_Owned)


def victims_grouped_by_app(victims: Sequence[V], app_number: Callable[[str], int]) -> list[V]:
    """The victims chosen on one node for one container, in the order YARN warns and kills
    them: ``FSPreemptionThread.PreemptableContainers`` keeps them in a ``HashMap`` by
    ``ApplicationId`` (apps added as first chosen), and ``getAllContainers`` lists them app by
    app in its iteration order, each app's in selection order."""
    apps = list(dict.fromkeys(v.app_id for v in victims))
    order = hash_map_order([application_id_hash(app_number(a)) for a in apps], len(apps))
    return [v for i in order for v in victims if v.app_id == apps[i]]


def _attempt_and_sequence(container_id: str) -> tuple[int, int]:
    """The attempt and ``ContainerId.getContainerId()``: the sequence, with the epoch of a
    ``container_e<epoch>_…`` id in its upper bits (``epoch << 40``)."""
    parts = container_id.rsplit("_", 2)
    if len(parts) == 3 and parts[1].isdigit() and parts[2].isdigit():
        epoch = 0
        if container_id.startswith("container_e"):
            head = container_id[len("container_e"):].split("_", 1)[0]
            epoch = int(head) if head.isdigit() else 0
        return int(parts[1]), epoch << 40 | int(parts[2])
    return 1, 0


def nodes_in_search_order(nodes: Mapping[str, T]) -> list[T]:
    """Nodes as §5.3 searches them: registration order, for ANY (YARN: the cluster node map's
    hash order, which depends on the NodeManagers' ports — a scenario has none) and for a rack
    (YARN: the order nodes joined the rack — the same here)."""
    return list(nodes.values())


def heap_offer(heap: list[T], item: T, compare: Callable[[T, T], int]) -> None:
    """``java.util.PriorityQueue.offer`` on its backing array ``heap``: ``siftUp``, which stops
    at the first parent the item does not compare below — so equal items keep the place the
    heap's history gives them, and a comparator that is not a total order is replayed
    exactly."""
    heap.append(item)
    k = len(heap) - 1
    while k > 0:
        parent = (k - 1) >> 1
        if compare(item, heap[parent]) >= 0:
            break
        heap[k] = heap[parent]
        k = parent
    heap[k] = item


def heap_poll(heap: list[T], compare: Callable[[T, T], int]) -> T:
    """``java.util.PriorityQueue.poll`` on a non-empty ``heap``: the head; the last item moves
    to the root and sifts down (``siftDown``: the right child only when strictly smaller)."""
    head, item = heap[0], heap.pop()
    n, k = len(heap), 0
    if not n:
        return head
    while k < n >> 1:
        child = 2 * k + 1
        if child + 1 < n and compare(heap[child], heap[child + 1]) > 0:
            child += 1
        if compare(item, heap[child]) <= 0:
            break
        heap[k] = heap[child]
        k = child
    heap[k] = item
    return head


def merged_by_start_time(lists: Sequence[Sequence[T]], start: Callable[[T], int]) -> Iterator[T]:
    """``MaxRunningAppsEnforcer.MultiListStartTimeIterator``: lists already in start-time order
    merged through a ``java.util.PriorityQueue`` of (list, start time of its next app). Apps
    with the same start time come in the order that heap leaves them in, which depends on the
    lists' order (the tree's order, then the user's waiting list) and the heap's history."""
    heap: list[list[int]] = []  # [start time, list index]

    def by_time(a: list[int], b: list[int]) -> int:
        return (a[0] > b[0]) - (a[0] < b[0])

    positions = [0] * len(lists)
    for i, items in enumerate(lists):
        heap_offer(heap, [start(items[0]) if items else LONG_MAX, i], by_time)
    while heap and heap[0][0] != LONG_MAX:
        entry = heap_poll(heap, by_time)
        i = entry[1]
        app = lists[i][positions[i]]
        positions[i] += 1
        entry[0] = start(lists[i][positions[i]]) if positions[i] < len(lists[i]) else LONG_MAX
        heap_offer(heap, entry, by_time)
        yield app

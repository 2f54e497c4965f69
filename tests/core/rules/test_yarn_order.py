"""YARN's hash orders, emulated (core.yarn_order). The expected values were printed by Hadoop
3.4.2's own classes in jshell (ContainerId.hashCode; a java.util.HashMap<ContainerId, …>
filled and iterated), with the cluster timestamp 1700000000000."""

from __future__ import annotations

from dataclasses import dataclass

from fairshare.config.allocation import parse_allocations_text
from fairshare.core.rules.yarn_order import (
    application_id_hash,
    configured_creation_order,
    container_hash,
    container_id_hash,
    containers_for_victim_search,
    hash_map_order,
    hash_set_order,
    merged_by_start_time,
    string_hash,
    victims_grouped_by_app,
)
from fairshare.resources.vector import DEFAULT_TYPES
from tests.core.engine_builders import make_engine


def test_container_id_hashes_are_javas() -> None:
    # ContainerId.newContainerId(ApplicationAttemptId.newInstance(
    #     ApplicationId.newInstance(1700000000000L, app), attempt), sequence).hashCode()
    assert container_id_hash(1, 1, 1) == -1302914532
    assert container_id_hash(1, 1, 7) == -1302914346
    assert container_id_hash(3, 2, 12) == -1302218848


def test_hash_map_iteration_order_is_javas() -> None:
    # put app 1 attempt 1 containers 1..9, then app 3 attempt 2 containers 1..5 (14 entries:
    # the table grew from 16 to 32 buckets), then remove app 1's container 4
    keys = [(1, 1, s) for s in range(1, 10) if s != 4] + [(3, 2, s) for s in range(1, 6)]
    names = [f"a{app}.{seq}" for app, _, seq in keys]
    order = hash_map_order([container_id_hash(*k) for k in keys], peak=14)
    assert [names[i] for i in order] == [
        "a1.6", "a1.7", "a1.8", "a1.9", "a3.5", "a3.3", "a3.4", "a3.1", "a1.1", "a3.2",
        "a1.2", "a1.3", "a1.5"]
    six = [(1, 1, s) for s in range(1, 7)]  # 16 buckets
    assert hash_map_order([container_id_hash(*k) for k in six], peak=6) == [5, 0, 1, 2, 3, 4]


@dataclass
class C:
    id: str
    is_am: bool
    yarn_hash: int


def test_the_victim_search_walks_tasks_in_reverse_hash_order_then_ams() -> None:
    # SchedulerNode.getRunningContainersWithAMsAtTheEnd: a task goes to the front, an AM to
    # the back. Hash order of app 1's containers 1..6 is 6, 1, 2, 3, 4, 5 (above); 1 is the AM.
    ids = [f"container_x_01_{s:06d}" for s in range(1, 7)]
    assert container_hash(ids[0], 1) == container_id_hash(1, 1, 1)  # parsed from the id
    containers = {i: C(i, i.endswith("1"), container_hash(i, 1)) for i in ids}
    order = containers_for_victim_search(containers, 6)
    assert [c.id[-1] for c in order] == ["5", "4", "3", "2", "6", "1"]
    # an id fairshare did not make hashes as sequence 0 of attempt 1
    assert container_hash("c-7", 3) == container_id_hash(3, 1, 0)


@dataclass
class V:
    app_id: str
    n: int


def test_victims_are_grouped_by_app_in_the_hash_order_of_their_application_ids() -> None:
    # a HashMap<ApplicationId, …> filled with apps 3, 1, 5, 2 iterates 1, 3, 2, 5; with 12, 4,
    # 9 it iterates 9, 12, 4
    assert application_id_hash(1) == 1289866025
    number = {"a": 3, "b": 1, "c": 5, "d": 2, "x": 12, "y": 4, "z": 9}.__getitem__
    victims = [V("a", 1), V("b", 2), V("a", 3), V("c", 4), V("d", 5), V("b", 6)]
    assert [(v.app_id, v.n) for v in victims_grouped_by_app(victims, number)] == [
        ("b", 2), ("b", 6), ("a", 1), ("a", 3), ("d", 5), ("c", 4)]
    three = [V("x", 1), V("y", 2), V("z", 3)]
    assert [v.app_id for v in victims_grouped_by_app(three, number)] == ["z", "x", "y"]


def test_waiting_apps_are_merged_as_javas_priority_queue_merges_them() -> None:
    # MaxRunningAppsEnforcer.MultiListStartTimeIterator over lists of start times; the
    # expected order was printed by a java.util.PriorityQueue driven the same way in jshell:
    # equal start times come in the order the heap leaves them, not list order
    lists = [[(0, 5), (0, 9)], [], [(2, 5)], [(3, 3), (3, 5)], [(4, 5)]]
    merged = list(merged_by_start_time(lists, lambda item: item[1]))
    assert merged == [(3, 3), (4, 5), (3, 5), (0, 5), (2, 5), (0, 9)]


# -- configured queues: HashSet<String> order ---------------------------------------------------


def test_string_hash_is_javas() -> None:
    assert string_hash("a") == 97
    assert string_hash("ab") == 97 * 31 + 98
    assert string_hash("hello") == 99162322  # "hello".hashCode()
    assert string_hash("polygenelubricants") == 0x80000000  # Integer.MIN_VALUE
    assert string_hash("Aa") == string_hash("BB")


def test_hash_set_order_is_javas() -> None:
    # each list added in this order to a new java.util.HashSet<String>, printed by jshell
    assert hash_set_order(["root.p.c1", "root.p.c2", "root.q"]) == [
        "root.p.c2", "root.p.c1", "root.q"]
    leaves = ["root.b.w", "root.b.z", "root.adhoc.x", "root.adhoc.y.w", "root.adhoc.y.x",
              "root.adhoc.z", "root.etl", "root.d.w", "root.d.x"]
    assert hash_set_order(leaves) == [
        "root.b.w", "root.adhoc.x", "root.adhoc.y.w", "root.adhoc.z", "root.etl", "root.d.w",
        "root.b.z", "root.d.x", "root.adhoc.y.x"]
    # 14 names: the table grew to 32 buckets
    assert hash_set_order([f"root.q{i}" for i in range(14)]) == [
        f"root.q{i}" for i in (0, 2, 1, 4, 3, 6, 5, 8, 7, 9, 10, 11, 12, 13)]
    # one bucket: insertion order
    assert hash_set_order(["BB", "Aa"]) == ["BB", "Aa"]
    assert hash_set_order(["Aa", "BB"]) == ["Aa", "BB"]


def test_configured_leaves_then_parents_in_hash_set_order() -> None:
    # QueueManager.updateAllocationConfiguration: the LEAF set, then the PARENT set
    config = parse_allocations_text(
        "<allocations><queue name='p'><queue name='c1'/><queue name='c2'/></queue>"
        "<queue name='q'/><queue name='e' type='parent'/></allocations>", "t.xml",
        DEFAULT_TYPES)
    assert configured_creation_order(config) == [
        ("root.p.c2", True), ("root.p.c1", True), ("root.q", True),
        *[(name, False) for name in hash_set_order(["root.p", "root.e"])]]


def test_leaves_are_visited_in_creation_order() -> None:
    # QueueManager.leafQueues, the order FairScheduler.update visits leaves for starvation:
    # configured leaves in HashSet order, then leaves created by placement as they come
    engine = make_engine("<queue name='b'><queue name='w'/><queue name='z'/></queue>"
                         "<queue name='adhoc'><queue name='x'/><queue name='y'>"
                         "<queue name='w'/><queue name='x'/></queue><queue name='z'/></queue>"
                         "<queue name='etl'/><queue name='d'><queue name='w'/>"
                         "<queue name='x'/></queue>")
    engine.submit("app1", "root.new", "u", requests=[])
    assert [leaf.name for leaf in engine.s.tree.leaves()] == [
        "root.b.w", "root.adhoc.x", "root.adhoc.y.w", "root.adhoc.z", "root.etl", "root.d.w",
        "root.b.z", "root.d.x", "root.adhoc.y.x", "root.new"]
    assert engine.s.tree["root.adhoc"].children == ("root.adhoc.x", "root.adhoc.y",
                                                    "root.adhoc.z")

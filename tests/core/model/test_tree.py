"""The queue tree after init: creation order, defaults, inheritance
(docs/semantics.md §1.2, §1.3.3, §1.6)."""

from __future__ import annotations

import pytest

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.model import (
    TIMEOUT_NEVER_MS,
    UNSET_THRESHOLD,
    UNSET_TIMEOUT_MS,
    AllocationConfig,
    PolicyName,
)
from fairshare.config.placement.policy import generated_policy, place_application
from fairshare.core.model.tree import build_queue_tree, get_or_create_leaf
from fairshare.resources.vector import DEFAULT_TYPES, res
from tests.core.engine_builders import allocations_xml, ask, make_engine, records
from tests.oracles.rules import without_empty_dynamic_queues


def build(xml: str):  # type: ignore[no-untyped-def]
    return build_queue_tree(parse_allocations_text(xml), DEFAULT_TYPES)


def test_only_root_exists_without_any_file() -> None:
    # Hadoop 3.4's QueueManager.initialize creates root only (3.3 also created root.default);
    # root.default appears when an app is placed there, as a dynamic leaf like any other
    tree = build_queue_tree(AllocationConfig(), DEFAULT_TYPES)
    assert list(tree.queues) == ["root"]
    tree, problem = get_or_create_leaf(tree, "default")
    assert problem is None
    assert tree["root.default"].is_leaf and tree["root.default"].dynamic
    # no file: the "unset" sentinels propagate, so fair-share starvation is impossible (§1.3.3)
    s = tree["root.default"].settings
    assert s.fair_share_preemption_threshold == UNSET_THRESHOLD
    assert s.min_share_preemption_timeout_ms == UNSET_TIMEOUT_MS


def test_creation_order_leaves_first_then_remaining_parents() -> None:
    tree = build("""<allocations>
      <queue name="p" type="parent"/>
      <queue name="a"><queue name="x"/><queue name="y"/></queue>
      <queue name="b"/>
    </allocations>""")
    assert list(tree.queues) == ["root", "root.a", "root.a.x", "root.a.y", "root.b", "root.p"]
    assert tree["root"].children == ("root.a", "root.b", "root.p")
    assert not tree["root.p"].is_leaf


def test_root_defaults_with_a_file() -> None:
    tree = build("<allocations><queue name='a'/></allocations>")
    s = tree["root.a"].settings
    assert s.min_share_preemption_timeout_ms == TIMEOUT_NEVER_MS
    assert s.fair_share_preemption_timeout_ms == TIMEOUT_NEVER_MS
    assert s.fair_share_preemption_threshold == 0.5
    assert s.preemptable and s.weight == 1.0 and s.policy is PolicyName.FAIR
    assert s.max_am_share == 0.5


def test_preemption_settings_inherit_from_the_parent() -> None:
    tree = build("""<allocations>
      <defaultFairSharePreemptionTimeout>30</defaultFairSharePreemptionTimeout>
      <queue name="p">
        <fairSharePreemptionThreshold>0.8</fairSharePreemptionThreshold>
        <minSharePreemptionTimeout>10</minSharePreemptionTimeout>
        <allowPreemptionFrom>false</allowPreemptionFrom>
        <queue name="c">
          <fairSharePreemptionTimeout>5</fairSharePreemptionTimeout>
          <allowPreemptionFrom>true</allowPreemptionFrom>
        </queue>
      </queue>
    </allocations>""")
    c = tree["root.p.c"].settings
    assert c.fair_share_preemption_timeout_ms == 5000  # own value
    assert c.min_share_preemption_timeout_ms == 10000  # the parent's
    assert abs(c.fair_share_preemption_threshold - 0.8) < 1e-6  # float32 of the parent's 0.8
    assert not c.preemptable  # a non-preemptable parent wins over the child's own true
    tree, _ = get_or_create_leaf(tree, "default")  # an unconfigured queue takes the default
    assert tree["root.default"].settings.fair_share_preemption_timeout_ms == 30000


def test_max_container_allocation_is_inherited_from_the_nearest_ancestor() -> None:
    tree = build("""<allocations>
      <queue name="p">
        <maxContainerAllocation>4096 mb, 2 vcores</maxContainerAllocation>
        <queue name="c"/>
      </queue>
    </allocations>""")
    assert tree["root.p.c"].settings.max_container_allocation == res(4096, 2)
    tree, _ = get_or_create_leaf(tree, "default")
    assert tree["root.default"].settings.max_container_allocation is None


def test_dynamic_child_of_a_parent_with_max_child_resources() -> None:
    tree = build("""<allocations>
      <queue name="p" type="parent">
        <maxChildResources>memory-mb=2048, vcores=2</maxChildResources>
      </queue>
    </allocations>""")
    tree = tree.with_queue("root.p.adhoc", is_leaf=True, dynamic=True)
    assert tree["root.p.adhoc"].dynamic
    assert tree["root.p.adhoc"].settings.effective_max_share(res(10**6, 10**3)) == res(2048, 2)


def test_queue_max_resources_default_applies_to_root_and_parents() -> None:
    tree = build("""<allocations>
      <queueMaxResourcesDefault>40000 mb,0vcores</queueMaxResourcesDefault>
      <queue name="a"/>
    </allocations>""")
    tree, _ = get_or_create_leaf(tree, "default")  # an unconfigured leaf gets it too
    for name in ("root", "root.default", "root.a"):  # §1.3.1 gotcha: a literal 0-vcore cap
        assert tree[name].settings.effective_max_share(res(10**6, 10**3)) == res(40000, 0)


def test_drf_queue_under_a_fair_parent_is_not_created() -> None:
    # §2.6.4 / §1.6: creating the queue fails, so it does not exist
    tree = build("""<allocations>
      <queue name="a"><schedulingPolicy>drf</schedulingPolicy></queue>
      <queue name="b"/>
    </allocations>""")
    assert "root.a" not in tree
    assert "root.b" in tree
    assert tree.not_created[0][0] == "root.a"


def test_drf_default_policy_makes_root_drf_so_drf_children_exist() -> None:
    tree = build("""<allocations>
      <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
      <queue name="a"/>
    </allocations>""")
    assert tree["root"].settings.policy is PolicyName.DRF
    assert tree["root.a"].settings.policy is PolicyName.DRF


def test_a_fifo_root_is_set_and_then_no_queue_can_be_created_under_it() -> None:
    # Hadoop 3.4: when the file is first applied root has no child (QueueManager.initialize
    # creates root only), so FSQueue.verifyAndSetPolicyFromConf finds nothing to refuse and
    # sets root's fifo; every queue is then refused under it (FifoPolicy.isChildPolicyAllowed
    # is false). In 3.3 the walk met root.default and stopped, leaving root fair.
    tree = build("""<allocations>
      <queue name="root">
        <schedulingPolicy>fifo</schedulingPolicy>
        <queue name="a"/>
      </queue>
    </allocations>""")
    assert tree["root"].settings.policy is PolicyName.FIFO
    assert list(tree.queues) == ["root"]
    assert tree.not_created == (
        ("root.a", "root.a cannot be created: policy fair is not allowed under fifo root"),
    )
    assert get_or_create_leaf(tree, "default")[1] == (
        "root.default is not a leaf queue: root.default cannot be created: policy fair is not "
        "allowed under fifo root")


def test_a_reload_to_a_fifo_root_keeps_root_fair_while_it_has_queues() -> None:
    # the walk meets root.a first, which fifo does not allow: root keeps its previous policy
    engine = make_engine('<queue name="a"/>')
    engine.reload(parse_allocations_text(allocations_xml(
        '<queue name="root"><schedulingPolicy>fifo</schedulingPolicy><queue name="a"/></queue>'
    )), "new.xml")
    assert policies(engine) == {"root": "fair", "root.a": "fair"}


def test_root_default_configured_as_parent_gets_its_children_at_start() -> None:
    # Hadoop 3.4: root.default does not exist when the file is first applied, so the leaf
    # pass creates root.default.x and its parent root.default like any configured leaf (in
    # 3.3 the start-up leaf root.default blocked it until a later reload).
    tree = build("""<allocations>
      <queue name="default"><queue name="x"/></queue>
    </allocations>""")
    assert not tree["root.default"].is_leaf and not tree["root.default"].dynamic
    assert tree["root.default"].children == ("root.default.x",)
    assert tree["root.default.x"].is_leaf and not tree.not_created


def test_root_max_child_resources_applies_to_an_unconfigured_root_default() -> None:
    tree = build("""<allocations>
      <queue name="root">
        <maxChildResources>memory-mb=1000, vcores=1</maxChildResources>
        <queue name="a"/>
      </queue>
    </allocations>""")
    # created when an app is placed there: an ad hoc child (QueueManager.setChildResourceLimits)
    tree, _ = get_or_create_leaf(tree, "default")
    cluster = res(10**6, 10**3)
    assert tree["root.default"].settings.effective_max_share(cluster) == res(1000, 1)
    assert tree["root.a"].settings.max_share is None  # configured: no maxChildResources cap


def test_queue_defaults_for_apps_and_am_share() -> None:
    tree = build("""<allocations>
      <queueMaxAppsDefault>7</queueMaxAppsDefault>
      <queueMaxAMShareDefault>0.25</queueMaxAMShareDefault>
      <queue name="a"><maxRunningApps>3</maxRunningApps></queue>
      <queue name="b"/>
    </allocations>""")
    assert tree["root.a"].settings.max_running_apps == 3
    assert tree["root.b"].settings.max_running_apps == 7
    assert tree["root.b"].settings.max_am_share == 0.25


def test_many_queues_build_in_one_pass() -> None:
    queues = "".join(f"<queue name='q{i}'/>" for i in range(20000))
    tree = build(f"<allocations>{queues}</allocations>")
    assert len(tree.queues) == 20001  # root and the 20000 configured leaves
    assert set(tree["root"].children) == {f"root.q{i}" for i in range(20000)}


def test_root_default_configured_as_a_fifo_parent_is_not_created() -> None:
    # §1.6: creating it as a parent fails (fifo), as for any other queue
    tree = build("""<allocations>
      <queue name="a"/>
      <queue name="default" type="parent"><schedulingPolicy>fifo</schedulingPolicy></queue>
    </allocations>""")
    assert "root.default" not in tree
    assert tree["root"].children == ("root.a",)
    assert tree.not_created == (
        ("root.default", "root.default cannot be created: fifo is not allowed on a parent queue"),
    )


def test_root_default_configured_as_a_parent_is_created_after_the_leaves() -> None:
    tree = build("""<allocations>
      <queue name="default" type="parent"/>
      <queue name="a"/>
    </allocations>""")
    assert tree["root"].children == ("root.a", "root.default")
    assert not tree["root.default"].is_leaf


def test_with_queue_refuses_what_yarn_refuses() -> None:
    tree = build("<allocations><queue name='a'/></allocations>")
    with pytest.raises(ValueError, match=r"its parent root\.a is a leaf queue"):
        tree.with_queue("root.a.b", is_leaf=True, dynamic=True)


# -- §1.6 dynamic queues ----------------------------------------------------------------------

DYNAMIC = """<allocations>
  <queue name="users" type="parent">
    <maxChildResources>memory-mb=4096, vcores=4</maxChildResources>
  </queue>
  <queue name="a"/>
  <queue name="strict"><schedulingPolicy>fair</schedulingPolicy>
    <queue name="inner"/>
  </queue>
</allocations>"""


def test_get_or_create_leaf_under_a_configured_parent() -> None:
    tree, problem = get_or_create_leaf(build(DYNAMIC), "users.alice")
    assert problem is None
    alice = tree["root.users.alice"]
    assert alice.is_leaf and alice.dynamic
    assert tree.is_static("root.users") and not tree.is_static("root.users.alice")
    # ad-hoc child of a parent with maxChildResources (§1.6)
    assert alice.settings.effective_max_share(res(10**6, 10**3)) == res(4096, 4)


def test_get_or_create_leaf_creates_missing_parents_as_dynamic_parents() -> None:
    tree, problem = get_or_create_leaf(build(DYNAMIC), "root.x.y")
    assert problem is None
    assert not tree["root.x"].is_leaf and tree["root.x"].dynamic
    assert tree["root.x"].children == ("root.x.y",)


def test_get_or_create_leaf_refusals() -> None:
    tree = build(DYNAMIC)
    assert get_or_create_leaf(tree, "root.a.b")[1] == (
        "root.a.b is not a leaf queue: root.a.b cannot be created: its parent root.a is a leaf "
        "queue"
    )
    assert get_or_create_leaf(tree, "root.users")[1] == "root.users is not a leaf queue"
    assert get_or_create_leaf(tree, "root..b")[1] == "root..b: invalid queue name"
    assert get_or_create_leaf(tree, "root.a.b")[0] is tree  # nothing half-created


def test_get_or_create_leaf_existing_leaf_is_returned_unchanged() -> None:
    tree = build(DYNAMIC)
    assert get_or_create_leaf(tree, "a") == (tree, None)


def test_dynamic_queue_policy_must_be_allowed_under_its_parent() -> None:
    tree = build("""<allocations>
      <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
      <queue name="p"><schedulingPolicy>fair</schedulingPolicy>
        <queue name="c"><schedulingPolicy>fair</schedulingPolicy></queue>
      </queue>
    </allocations>""")
    # a new child gets the default policy, drf, which a fair parent does not allow (§2.6.4)
    _, problem = get_or_create_leaf(tree, "root.p.new")
    assert problem == ("root.p.new is not a leaf queue: root.p.new cannot be created: policy "
                       "drf is not allowed under fair root.p")


def test_empty_dynamic_queues_are_removed_transitively() -> None:
    tree, _ = get_or_create_leaf(build(DYNAMIC), "root.x.y")
    tree, _ = get_or_create_leaf(tree, "root.x.z")
    tree, _ = get_or_create_leaf(tree, "users.bob")
    busy = {"root.x.z"}
    kept = without_empty_dynamic_queues(tree, lambda q: q in busy)
    assert "root.x.y" not in kept and "root.users.bob" not in kept
    assert "root.x.z" in kept and kept["root.x"].children == ("root.x.z",)
    # once x.z is idle too, x goes with it; static queues stay even when empty
    idle = without_empty_dynamic_queues(kept, lambda q: False)
    assert "root.x" not in idle and "root.x.z" not in idle
    assert {"root.users", "root.a", "root.strict.inner"} <= set(idle.queues)
    assert "root.x" not in idle["root"].children


def test_placement_rules_read_the_tree() -> None:
    tree = build(DYNAMIC)
    generated = generated_policy(user_as_default_queue=True, allow_undeclared_pools=True)
    # "default" as the requested queue makes `specified` continue; `user` places (§1.5)
    assert place_application(generated, "default", "first.last", [], tree).queue == (
        "root.first_dot_last"
    )
    strict = generated_policy(user_as_default_queue=True, allow_undeclared_pools=False)
    # create=false: only static queues qualify; root.users.alice does not exist → root.default
    assert place_application(strict, "users.alice", "nobody", [], tree).queue == "root.default"
    tree, _ = get_or_create_leaf(tree, "users.alice")  # dynamic: still not good enough
    assert place_application(strict, "users.alice", "nobody", [], tree).queue == "root.default"
    assert place_application(strict, "a", "nobody", [], tree).queue == "root.a"


# ---- reload: applied to the queues that exist (QueueManager.updateAllocationConfiguration) -----

DRF_B = """<queue name="root"><schedulingPolicy>drf</schedulingPolicy>
  <queue name="b"><schedulingPolicy>drf</schedulingPolicy><queue name="u"/></queue>
</queue>"""
FAIR_ROOT = """<queue name="root"><schedulingPolicy>fair</schedulingPolicy>
  <queue name="b"><schedulingPolicy>drf</schedulingPolicy></queue><queue name="c"/>
</queue>"""
WALK_OLD = """<queue name="root">
  <queue name="p"><queue name="c1"/><queue name="c2"/></queue><queue name="q"/>
</queue>"""
WALK_NEW = """<queue name="root"><schedulingPolicy>drf</schedulingPolicy>
  <queue name="p">
    <queue name="c1"><schedulingPolicy>drf</schedulingPolicy></queue>
    <queue name="c2"><schedulingPolicy>fifo</schedulingPolicy><weight>2</weight></queue>
  </queue>
  <queue name="q"><schedulingPolicy>drf</schedulingPolicy><weight>3</weight></queue>
</queue>"""


def policies(engine: object) -> dict[str, str]:
    return {q.name: q.settings.policy.value for q in engine.s.tree.depth_first()}  # type: ignore[attr-defined]


def test_a_reload_stops_setting_policies_at_the_first_incompatible_child() -> None:
    # FSQueue.verifyAndSetPolicyFromConf walks the existing queues depth-first (children in
    # creation order: p, q; c2, c1 — Java's HashSet of the leaves iterates root.p.c2,
    # root.p.c1, root.q), setting a queue's policy after its children's: c2's fifo is allowed
    # under p's fair and is set; c1's drf is not, so the walk stops there — c1, p, q and root
    # keep fair, although the file says drf for q and root.
    engine = make_engine(WALK_OLD)
    assert engine.s.tree["root.p"].children == ("root.p.c2", "root.p.c1")
    engine.reload(parse_allocations_text(allocations_xml(WALK_NEW)), "new.xml")
    assert policies(engine) == {"root": "fair", "root.p": "fair", "root.p.c1": "fair",
                                "root.p.c2": "fifo", "root.q": "fair"}
    # every other setting of the new file applies (AllocationConfiguration.initFSQueue)
    assert engine.s.tree["root.q"].settings.weight == 3.0
    assert engine.s.tree["root.p.c2"].settings.weight == 2.0
    [reloaded] = records(engine, "config-reloaded")
    assert reloaded["problems"] == ["policy drf is not allowed under fair root.p: root.p.c1, "
                                    "root.p and the queues after them keep their policies"]
    assert not records(engine, "config-error")


def test_a_reload_replaces_an_empty_queue_of_the_other_kind_under_the_old_root_policy() -> None:
    # root.b turns from a drf parent into a drf leaf under a root that the file makes fair.
    # The walk stops at root.b (drf under fair), so root keeps drf; the configured leaf root.b
    # then makes way by removing the empty parent with root.b.u (removeEmptyIncompatibleQueues)
    # and is created under root's policy, drf, which allows it.
    engine = make_engine(DRF_B)
    engine.reload(parse_allocations_text(allocations_xml(FAIR_ROOT)), "new.xml")
    tree = engine.s.tree
    assert [q.name for q in tree.depth_first()] == ["root", "root.b", "root.c"]
    assert tree["root.b"].is_leaf and not tree["root.b"].dynamic
    assert policies(engine) == {"root": "drf", "root.b": "drf", "root.c": "fair"}


def test_a_queue_holding_apps_keeps_its_kind_and_the_rest_of_the_file_applies() -> None:
    engine = make_engine(DRF_B)
    engine.submit("app1", "root.b.u", "u", requests=[ask(1)])
    engine.reload(parse_allocations_text(allocations_xml(FAIR_ROOT)), "new.xml")
    tree = engine.s.tree
    assert not tree["root.b"].is_leaf and "root.b.u" in tree  # YARN retries once it is empty
    assert "root.c" in tree
    assert records(engine, "config-reloaded")[-1]["problems"][1] == (
        "root.b: root.b has applications and cannot become a leaf queue until they end")
    assert not records(engine, "config-error")


def test_queues_the_new_file_drops_become_dynamic_and_stay() -> None:
    engine = make_engine(WALK_OLD)
    engine.reload(parse_allocations_text(allocations_xml('<queue name="q"/>')), "new.xml")
    tree = engine.s.tree
    assert {"root.p", "root.p.c1", "root.p.c2", "root.q"} <= set(tree.queues)
    assert tree["root.p"].dynamic and tree["root.p.c1"].dynamic and not tree["root.q"].dynamic


def test_the_tree_view_lists_siblings_as_the_file_writes_them() -> None:
    # YARN creates root.p.c2 before root.p.c1 (HashSet order, tests/core/rules/test_yarn_order.py);
    # outputs list the queues as the file does, the queues it does not name last
    tree = build("<allocations><queue name='p'><queue name='c1'/><queue name='c2'/></queue>"
                 "<queue name='q'/></allocations>")
    assert tree["root.p"].children == ("root.p.c2", "root.p.c1")
    tree, problem = get_or_create_leaf(tree, "root.a")
    assert problem is None
    assert [n.name for n in tree.tree_view()] == ["root", "root.p", "root.p.c1", "root.p.c2",
                                                  "root.q", "root.a"]

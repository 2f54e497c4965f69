"""Hadoop's own unit tests for the allocation file, ported as an independent reference
(docs/semantics.md §1.2, §1.3, §1.5.4, §1.6, §1.7).

Sources (apache/hadoop, ``.../scheduler/fair/``): ``TestAllocationFileLoaderService``,
``TestFairSchedulerUtilities``, ``TestFairSchedulerQueueACLs`` (with the queue-ACL checks of
its base class ``QueueACLsTestBase``) and the reload-free part of ``TestQueueManager``. Each test,
or each ``pytest.param`` id, is the Hadoop test method it comes from. The XML is what Hadoop's
``AllocationFileWriter`` writes for the test (queues first, then users, placement policy and the
top-level defaults).

How Hadoop's getters map onto our API:

* ``AllocationConfiguration`` keeps only what the file configures and answers ``-1`` (timeouts,
  threshold) for a queue without its own value; that is ``None`` on our ``QueueConfig``. The
  effective, inherited value (what ``FSQueue`` ends up with, §1.3.3) is checked on the
  built queue tree, ``QueueTree[name].settings``.
* ``getMaxResources`` / ``getQueueMaxApps`` / ``getQueueMaxAMShare`` / ``getMinResources``
  apply the file's defaults; so does ``settings_for``, read here through the tree.
* ``getQueueMaxContainerAllocation`` answers ``Resources.unbounded()`` when unset; we store
  ``None`` (= unbounded) and inherit it in the tree.
* ``getConfiguredQueues()`` LEAF / PARENT are the configured queues with
  ``is_parent`` false / true.
"""

from __future__ import annotations

import pytest

from fairshare.config.acl import QueueAcl, can_submit, has_access, queue_acls
from fairshare.config.allocation import parse_allocations_text
from fairshare.config.errors import ConfigError, all_errors
from fairshare.config.model import AllocationConfig, PolicyName, RuleName
from fairshare.config.placement.names import trim_queue_name
from fairshare.config.placement.policy import generated_policy
from fairshare.config.yarnsite import load_site
from fairshare.core.model.queue_settings import QueueSettings, configured_policy
from fairshare.core.model.tree import (
    QueueTree,
    build_queue_tree,
    get_or_create_leaf,
)
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import (
    DEFAULT_TYPES,
    Resource,
    ResourceTypes,
    float32,
    res,
)
from tests.oracles.rules import without_empty_dynamic_queues

A_CUSTOM_RESOURCE = "a-custom-resource"
CUSTOM = ResourceTypes.with_custom([A_CUSTOM_RESOURCE])


def parse(xml: str, types: ResourceTypes = DEFAULT_TYPES) -> AllocationConfig:
    return parse_allocations_text(xml, "test-queues", types)


def errors_of(xml: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse(xml)
    return [e.message for e in all_errors(info.value)]


def leaves(config: AllocationConfig) -> set[str]:
    return {q.name for q in config.queues if not q.is_parent}


def parents(config: AllocationConfig) -> set[str]:
    return {q.name for q in config.queues if q.is_parent}


def absolute(resource: ConfigurableResource | None) -> Resource:
    assert resource is not None and resource.absolute is not None, resource
    return resource.absolute


# --- TestAllocationFileLoaderService ---------------------------------------------------------

ALLOCATION_FILE_PARSING = f"""<?xml version="1.0" encoding="UTF-8"?>
<allocations>
<queue name="queueA" >
<minResources>1024mb,0vcores</minResources>
<maxResources>2048mb,10vcores</maxResources>
</queue>
<queue name="queueB" >
<minResources>2048mb,0vcores</minResources>
<maxResources>5120mb,110vcores</maxResources>
<aclAdministerApps>alice,bob admins</aclAdministerApps>
<schedulingPolicy>fair</schedulingPolicy>
</queue>
<queue name="queueC" >
<minResources>5120mb,0vcores</minResources>
<aclSubmitApps>alice,bob admins</aclSubmitApps>
</queue>
<queue name="queueD" >
<maxRunningApps>3</maxRunningApps>
<maxAMShare>0.4</maxAMShare>
</queue>
<queue name="queueE" >
<minSharePreemptionTimeout>60</minSharePreemptionTimeout>
</queue>
<queue name="queueF" type="parent">
<maxChildResources>2048mb,64vcores</maxChildResources>
</queue>
<queue name="queueG" >
<queue name="queueH" >
<minSharePreemptionTimeout>40</minSharePreemptionTimeout>
<fairSharePreemptionTimeout>180</fairSharePreemptionTimeout>
<fairSharePreemptionThreshold>0.7</fairSharePreemptionThreshold>
<maxContainerAllocation>1024mb,8vcores</maxContainerAllocation>
</queue>
<minSharePreemptionTimeout>50</minSharePreemptionTimeout>
<maxChildResources>2048mb,64vcores</maxChildResources>
<fairSharePreemptionTimeout>120</fairSharePreemptionTimeout>
<fairSharePreemptionThreshold>0.6</fairSharePreemptionThreshold>
<maxContainerAllocation>vcores=16, memory-mb=512, {A_CUSTOM_RESOURCE}=10</maxContainerAllocation>
</queue>
<user name="user1">
<maxRunningApps>10</maxRunningApps>
</user>
<queueMaxAppsDefault>15</queueMaxAppsDefault>
<queueMaxResourcesDefault>4096mb,100vcores</queueMaxResourcesDefault>
<userMaxAppsDefault>5</userMaxAppsDefault>
<queueMaxAMShareDefault>0.5</queueMaxAMShareDefault>
<defaultMinSharePreemptionTimeout>120</defaultMinSharePreemptionTimeout>
<defaultFairSharePreemptionTimeout>300</defaultFairSharePreemptionTimeout>
<defaultFairSharePreemptionThreshold>0.4</defaultFairSharePreemptionThreshold>
<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
</allocations>
"""

DEFAULT = "root.default"
A, B, C, D, E, F, G = (f"root.queue{x}" for x in "ABCDEFG")
H = "root.queueG.queueH"


def user_max_apps(config: AllocationConfig, user: str) -> int:
    """``getUserMaxApps``: the user's own limit, else ``userMaxAppsDefault``."""
    return config.user_max_apps.get(user, config.user_max_apps_default)


def test_allocation_file_parsing() -> None:
    config = parse(ALLOCATION_FILE_PARSING, CUSTOM)
    # Hadoop asks AllocationConfiguration about root.default, a queue the file does not
    # configure; in Hadoop 3.4 the tree has it only once an app is placed there, so create it.
    tree, _ = get_or_create_leaf(build_queue_tree(config, CUSTOM), DEFAULT)

    assert leaves(config) == {A, B, C, D, E, H}
    assert {F, G} <= parents(config)
    assert H in leaves(config)

    def settings(name: str) -> QueueSettings:
        return tree[name].settings

    # Min resources: configured, else none (custom type 0: old-style strings, §1.4).
    assert settings(DEFAULT).min_share == res(0, 0, 0)
    assert settings(A).min_share == res(1024, 0, 0)
    assert settings(B).min_share == res(2048, 0, 0)
    assert settings(C).min_share == res(5120, 0, 0)
    for name in (D, E, F, G, H):
        assert settings(name).min_share == res(0, 0, 0), name

    # Max resources: configured, else queueMaxResourcesDefault — parents too (§1.3.1).
    assert absolute(settings(A).max_share) == res(2048, 10, 0)
    assert absolute(settings(B).max_share) == res(5120, 110, 0)
    for name in (C, D, E, F, G, H):
        assert absolute(settings(name).max_share) == res(4096, 100, 0), name

    # Max child resources only where configured.
    for name in (A, B, C, D, E, H):
        queue = config.queue(name)
        assert queue is not None and queue.max_child_resources is None, name
    assert absolute(settings(F).max_child_resources) == res(2048, 64, 0)
    assert absolute(settings(G).max_child_resources) == res(2048, 64, 0)

    # Running-app limits.
    for name in (DEFAULT, A, B, C, E):
        assert settings(name).max_running_apps == 15, name
    assert settings(D).max_running_apps == 3
    assert user_max_apps(config, "user1") == 10
    assert user_max_apps(config, "user2") == 5

    # maxAMShare (Hadoop compares with a 0.01 tolerance; ours is the exact float32).
    for name in (DEFAULT, A, B, C, E):
        assert settings(name).max_am_share == pytest.approx(0.5, abs=0.01), name
    assert settings(D).max_am_share == float32(0.4)

    # maxContainerAllocation: unset (unbounded) except on G and H; H's old-style string gives
    # the custom type 0 (§1.4).
    for name in (DEFAULT, A, B, C, D, E, F):
        assert settings(name).max_container_allocation is None, name
    assert settings(G).max_container_allocation == res(512, 16, 10)
    assert settings(H).max_container_allocation == res(1024, 8, 0)

    # Preemption timeouts and threshold: root takes the file's defaults (§1.3.3) ...
    assert settings("root").min_share_preemption_timeout_ms == 120000
    assert settings("root").fair_share_preemption_timeout_ms == 300000
    assert settings("root").fair_share_preemption_threshold == float32(0.4)
    # ... the other queues configure only what Hadoop's getters do not answer -1 for ...
    own = {name: config.queue(name) for name in (A, B, C, D, E, F, G, H)}
    for name, queue in own.items():
        assert queue is not None
        expected_min = {E: 60000, G: 50000, H: 40000}.get(name)
        expected_fair = {G: 120000, H: 180000}.get(name)
        expected_threshold = {G: float32(0.6), H: float32(0.7)}.get(name)
        assert queue.min_share_preemption_timeout_ms == expected_min, name
        assert queue.fair_share_preemption_timeout_ms == expected_fair, name
        assert queue.fair_share_preemption_threshold == expected_threshold, name
    assert config.queue(DEFAULT) is None  # not configured at all: -1 for all three in Hadoop
    # ... and inherit the rest from their parent (§1.3.3).
    for name in (DEFAULT, A, B, C, D, F):
        assert settings(name).min_share_preemption_timeout_ms == 120000, name
    assert settings(E).min_share_preemption_timeout_ms == 60000
    assert settings(G).min_share_preemption_timeout_ms == 50000
    assert settings(H).min_share_preemption_timeout_ms == 40000
    for name in (DEFAULT, A, B, C, D, E, F):
        assert settings(name).fair_share_preemption_timeout_ms == 300000, name
        assert settings(name).fair_share_preemption_threshold == float32(0.4), name
    assert settings(G).fair_share_preemption_timeout_ms == 120000
    assert settings(H).fair_share_preemption_timeout_ms == 180000
    assert settings(G).fair_share_preemption_threshold == float32(0.6)
    assert settings(H).fair_share_preemption_threshold == float32(0.7)

    # Scheduling policies: the default (drf) unless configured; a new queue gets the default.
    assert configured_policy(config, "root") is PolicyName.DRF
    assert configured_policy(config, A) is PolicyName.DRF
    assert configured_policy(config, B) is PolicyName.FAIR
    assert configured_policy(config, "root.newqueue") is PolicyName.DRF
    assert settings("root").policy is PolicyName.DRF
    assert settings(B).policy is PolicyName.FAIR
    tree, problem = get_or_create_leaf(tree, "root.newqueue")
    assert problem is None and tree["root.newqueue"].settings.policy is PolicyName.DRF

    # Queue ACLs (asserted by the 2.x version of this test, §1.3.4): root lets everyone
    # in, a configured queue without ACLs lets nobody in (" "), and B and C keep theirs.
    acls = queue_acls(config)
    admin, submit = QueueAcl.ADMINISTER_QUEUE, QueueAcl.SUBMIT_APPLICATIONS
    assert acls["root"][admin].acl_string == "*"
    assert acls["root"][submit].acl_string == "*"
    assert acls[A][admin].acl_string == " "
    assert acls[A][submit].acl_string == " "
    assert acls[B][admin].acl_string == "alice,bob admins"
    assert acls[C][submit].acl_string == "alice,bob admins"


BACKWARDS_COMPATIBLE = """<?xml version="1.0" encoding="UTF-8"?>
<allocations>
<pool name="queueA" >
<minResources>1024mb,0vcores</minResources>
</pool>
<pool name="queueB" >
<minResources>2048mb,0vcores</minResources>
<aclAdministerApps>alice,bob admins</aclAdministerApps>
</pool>
<pool name="queueC" >
<aclAdministerApps>alice,bob admins</aclAdministerApps>
</pool>
<pool name="queueD" >
<maxRunningApps>3</maxRunningApps>
</pool>
<pool name="queueE" >
<minSharePreemptionTimeout>60</minSharePreemptionTimeout>
<fairSharePreemptionThreshold>0.3</fairSharePreemptionThreshold>
</pool>
<user name="user1">
<maxRunningApps>10</maxRunningApps>
</user>
<queueMaxAppsDefault>15</queueMaxAppsDefault>
<queueMaxResourcesDefault>4096mb,100vcores</queueMaxResourcesDefault>
<userMaxAppsDefault>5</userMaxAppsDefault>
<queueMaxAMShareDefault>0.5</queueMaxAMShareDefault>
<defaultMinSharePreemptionTimeout>120</defaultMinSharePreemptionTimeout>
<defaultFairSharePreemptionTimeout>300</defaultFairSharePreemptionTimeout>
<defaultFairSharePreemptionThreshold>0.6</defaultFairSharePreemptionThreshold>
<defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>
</allocations>
"""


@pytest.mark.parametrize(
    "fair_share_timeout_tag",
    [
        "defaultFairSharePreemptionTimeout",
        # The 2.x-3.2 versions of this test use the legacy top-level spelling (§1.3.1).
        "fairSharePreemptionTimeout",
    ],
)
def test_backwards_compatible_allocation_file_parsing(fair_share_timeout_tag: str) -> None:
    config = parse(
        BACKWARDS_COMPATIBLE.replace("defaultFairSharePreemptionTimeout", fair_share_timeout_tag)
    )
    # root.default is unconfigured: created as an app placed there would (Hadoop 3.4)
    tree, _ = get_or_create_leaf(build_queue_tree(config, DEFAULT_TYPES), DEFAULT)

    assert leaves(config) == {A, B, C, D, E}

    assert tree[DEFAULT].settings.min_share == res(0, 0)
    assert tree[A].settings.min_share == res(1024, 0)
    assert tree[B].settings.min_share == res(2048, 0)
    for name in (C, D, E):
        assert tree[name].settings.min_share == res(0, 0), name

    for name in (DEFAULT, A, B, C, E):
        assert tree[name].settings.max_running_apps == 15, name
    assert tree[D].settings.max_running_apps == 3
    assert user_max_apps(config, "user1") == 10
    assert user_max_apps(config, "user2") == 5

    root = tree["root"].settings
    assert root.min_share_preemption_timeout_ms == 120000
    assert root.fair_share_preemption_timeout_ms == 300000
    assert root.fair_share_preemption_threshold == float32(0.6)
    for name in (A, B, C, D):
        queue = config.queue(name)
        assert queue is not None
        assert queue.min_share_preemption_timeout_ms is None, name  # Hadoop: -1
        assert queue.fair_share_preemption_timeout_ms is None, name
        assert queue.fair_share_preemption_threshold is None, name
    queue_e = config.queue(E)
    assert queue_e is not None
    assert queue_e.min_share_preemption_timeout_ms == 60000
    assert queue_e.fair_share_preemption_timeout_ms is None
    assert queue_e.fair_share_preemption_threshold == float32(0.3)
    # Inherited (§1.3.3).
    assert tree[E].settings.fair_share_preemption_timeout_ms == 300000
    assert tree[A].settings.fair_share_preemption_threshold == float32(0.6)


def test_reload() -> None:
    """The two files Hadoop's reload test loads one after the other. The reload thread's timing
    (the 5 s modification-time wait and the 10 s interval) is not part of this layer."""
    first = parse("""<?xml version="1.0" encoding="UTF-8"?>
<allocations>
<queue name="queueA" >
<maxRunningApps>1</maxRunningApps>
</queue>
<queue name="queueB" >
</queue>
<queuePlacementPolicy>
<rule name="default" create="true">
</rule>
</queuePlacementPolicy>
</allocations>
""")
    assert first.placement_policy is not None
    assert [r.name for r in first.placement_policy.rules] == [RuleName.DEFAULT]
    tree = build_queue_tree(first, DEFAULT_TYPES)
    assert tree["root.queueA"].settings.max_running_apps == 1
    assert leaves(first) == {"root.queueA", "root.queueB"}

    second = parse("""<?xml version="1.0" encoding="UTF-8"?>
<allocations>
<queue name="queueB" >
<maxRunningApps>3</maxRunningApps>
</queue>
<queuePlacementPolicy>
<rule name="specified" create="true">
</rule>
<rule name="nestedUserQueue" create="true">
<rule name="primaryGroup" create="true">
</rule>
</rule>
</queuePlacementPolicy>
</allocations>
""")
    assert second.placement_policy is not None
    specified, nested = second.placement_policy.rules
    assert specified.name is RuleName.SPECIFIED
    # Hadoop builds nestedUserQueue as a UserPlacementRule with a parent rule (§1.5.2).
    assert nested.name is RuleName.NESTED_USER_QUEUE
    assert nested.parent is not None and nested.parent.name is RuleName.PRIMARY_GROUP
    assert build_queue_tree(second, DEFAULT_TYPES)["root.queueB"].settings.max_running_apps == 3
    assert leaves(second) == {"root.queueB"}


def test_reload_3_2_second_file() -> None:
    """The 3.2 copy of testReload ends its second policy with a ``default`` rule after
    ``nestedUserQueue`` and expects three rules. Since 3.3 that ``default`` rule can never be
    reached (§1.5.3), so the file is rejected (a reload would keep the old rules)."""
    assert errors_of("""<allocations>
  <queue name="queueB">
    <maxRunningApps>3</maxRunningApps>
  </queue>
  <queuePlacementPolicy>
    <rule name='specified' />
    <rule name='nestedUserQueue' >
         <rule name='primaryGroup' />
    </rule>
    <rule name='default' />
  </queuePlacementPolicy>
</allocations>""") == ["Rules after rule 2 in queue placement policy can never be reached"
            ": rule 'nestedUserQueue' always places the application (create is true), so move "
            "the rules after it before it, or remove them, or give it create=\"false\" so that "
            "it places only into existing queues"]


def test_simple_placement_policy_from_conf() -> None:
    site = load_site(
        overrides={
            "yarn.scheduler.fair.allow-undeclared-pools": "false",
            "yarn.scheduler.fair.user-as-default-queue": "false",
        }
    )
    config = parse('<?xml version="1.0" encoding="UTF-8"?>\n<allocations>\n</allocations>\n')
    assert config.placement_policy is None  # the file has none: generated from yarn-site
    policy = generated_policy(site.user_as_default_queue, site.allow_undeclared_pools)
    assert [r.name for r in policy.rules] == [RuleName.SPECIFIED, RuleName.DEFAULT]
    assert policy.rules[0].create is False


def test_queue_alongside_root() -> None:
    assert errors_of(
        '<allocations>\n<queue name="root" >\n</queue>\n<queue name="other" >\n</queue>\n'
        "</allocations>"
    ) == ["If configuring root queue, no other queues can be placed alongside it."]


def test_queue_name_containing_periods() -> None:
    errors = errors_of('<allocations>\n<queue name="parent1.child" >\n</queue>\n</allocations>')
    assert len(errors) == 1 and errors[0].startswith(
        "queue name (parent1.child) shouldn't contain period"
    )


@pytest.mark.parametrize(
    "name",
    [
        pytest.param("      ", id="testQueueNameContainingOnlyWhitespace"),
        pytest.param("\u00a0", id="testQueueNameContainingNBWhitespace"),
    ],
)
def test_queue_name_containing_only_whitespace(name: str) -> None:
    errors = errors_of(f'<allocations>\n<queue name="{name}" >\n</queue>\n</allocations>')
    assert len(errors) == 1 and errors[0].startswith(
        "queue name shouldn't be empty or consist only of whitespace"
    )


PARENT_ONLY = (
    "The configuration settings for root.parent are invalid. A queue element that contains "
    "child queue elements or that has the type='parent' attribute cannot also include a {} "
    "element."
)


@pytest.mark.parametrize(
    ("body", "tag"),
    [
        pytest.param(
            'type="parent">\n<reservation></reservation>\n',
            "reservation",
            id="testParentTagWithReservation",
        ),
        pytest.param(
            'type="parent">\n<queue name="child" >\n</queue>\n<reservation></reservation>\n',
            "reservation",
            id="testParentWithReservation",
        ),
        pytest.param(
            'type="parent">\n<maxAMShare>0.75</maxAMShare>\n',
            "maxAMShare",
            id="testParentTagWithMaxAMShare",
        ),
        pytest.param(
            '>\n<queue name="child" >\n</queue>\n<maxAMShare>0.76</maxAMShare>\n',
            "maxAMShare",
            id="testParentWithMaxAMShare",
        ),
    ],
)
def test_parent_only_settings(body: str, tag: str) -> None:
    xml = f'<allocations>\n<queue name="parent" {body}</queue>\n</allocations>'
    assert errors_of(xml) == [PARENT_ONLY.format(tag)]


def test_parent_tag_with_child() -> None:
    config = parse(
        '<allocations>\n<queue name="parent" type="parent">\n<queue name="child" >\n</queue>\n'
        "</queue>\n</allocations>"
    )
    assert "root.parent" in parents(config)
    assert "root.parent.child" in leaves(config)


def test_default_queue_scheduling_mode_is_fifo() -> None:
    assert errors_of(
        "<allocations>\n<defaultQueueSchedulingPolicy>fifo</defaultQueueSchedulingPolicy>\n"
        "</allocations>"
    ) == [
        "Bad fair scheduler config file: defaultQueueSchedulingPolicy or "
        "defaultQueueSchedulingMode can't be FIFO."
    ]


def test_reservable_queue() -> None:
    config = parse("""<allocations>
<queue name="reservable" >
<reservation></reservation>
</queue>
<queue name="other" >
</queue>
<reservation-agent>DummyAgentName</reservation-agent>
<reservation-policy>AnyAdmissionPolicy</reservation-policy>
</allocations>""")
    reservable, other = config.queue("root.reservable"), config.queue("root.other")
    assert reservable is not None and other is not None
    assert reservable.reservation and not other.reservation
    # A plan queue is a parent, not a leaf (§1.8).
    assert "root.reservable" in parents(config)
    assert "root.reservable" not in leaves(config)
    assert config.reservation_agent == "DummyAgentName"
    assert config.reservation_policy == "AnyAdmissionPolicy"
    assert config.reservation_planner is None  # unset: the ReservationSystem's default planner
    tree = build_queue_tree(config, DEFAULT_TYPES)
    assert not tree["root.reservable"].is_leaf


def test_reservable_cannot_be_combined_with_dynamic_user_queue() -> None:
    xml = (
        '<allocations>\n<queue name="notboth" type="parent">\n<reservation/>\n</queue>\n'
        "</allocations>"
    )
    assert errors_of(xml) == [
        PARENT_ONLY.format("reservation").replace("root.parent", "root.notboth")
    ]


def test_deny_get_allocation_file_from_unsupported_file_system() -> None:
    with pytest.raises(ConfigError, match="unsupported filesystem"):
        load_site(overrides={"yarn.scheduler.fair.allocation.file": "badfs:///badfile"})


# --- TestFairSchedulerUtilities ------------------------------------------------------------

EQUALS_A = [
    "a",
    " a",
    " \u3000a",
    "\u2002\u3000\r\u0085\u200a\u2005\u2000\u3000a",
    "\u2029\u000b\u3000\u2008\u2003\u205f\u3000\u1680a",
    "\u0009\u0020\u2006\u2001\u202f\u00a0\u000c\u2009a",
    "\u3000\u2004\u3000\u3000\u2028\n\u2007\u3000a",
    "a\u200a",
    "a  \u0085 ",
    " a ",
    "  a\u00a0",
    "\u0009\u0020\u2006\u2001\u202f\u00a0\u000c\u2009a\u3000\u2004\u3000\u3000\u2028\n\u2007\u3000",
]


@pytest.mark.parametrize("name", EQUALS_A)
def test_trim_queue_name_equals(name: str) -> None:
    assert trim_queue_name(name) == "a"


def test_trim_queue_names_empty() -> None:
    spaces = (
        "\u2002\u3000\r\u0085\u200a\u2005\u2000\u3000"
        "\u2029\u000b\u3000\u2008\u2003\u205f\u3000\u1680"
        "\u0009\u0020\u2006\u2001\u202f\u00a0\u000c\u2009"
        "\u3000\u2004\u3000\u3000\u2028\n\u2007\u3000"
    )
    assert trim_queue_name(spaces) == ""


# --- TestFairSchedulerQueueACLs (QueueACLsTestBase) ----------------------------------------

ROOT_ADMIN, COMMON_USER = "root_admin", "common_user"
QUEUE_A_USER, QUEUE_A_ADMIN = "queueA_user", "queueA_admin"
QUEUE_B_USER, QUEUE_B_ADMIN = "queueB_user", "queueB_admin"
NO_GROUPS: tuple[str, ...] = ()

ACL_FILE = """<allocations>
<queue name="root" >
<queue name="queueA" >
<aclAdministerApps>queueA_admin </aclAdministerApps>
<aclSubmitApps>queueA_user,common_user </aclSubmitApps>
</queue>
<queue name="queueB" >
<aclAdministerApps>queueB_admin </aclAdministerApps>
<aclSubmitApps>queueB_user,common_user </aclSubmitApps>
</queue>
<aclAdministerApps>root_admin </aclAdministerApps>
<aclSubmitApps> </aclSubmitApps>
</queue>
</allocations>"""


def test_application_ac_ls() -> None:
    """The queue-ACL part of Hadoop's test: every submission it makes must be accepted, and the
    kills it expects to succeed or fail through queue administration (the app's own
    MODIFY_APP ACL, which lets ``common_user`` kill, is not a scheduler setting)."""
    acls = queue_acls(parse(ACL_FILE))
    for user, queue in (
        (QUEUE_A_USER, "root.queueA"),
        (QUEUE_B_USER, "root.queueB"),
        (ROOT_ADMIN, "root.queueA"),
        (ROOT_ADMIN, "root.queueB"),
    ):
        assert can_submit(acls, queue, user, NO_GROUPS), (user, queue)

    def administers(user: str, queue: str) -> bool:
        return has_access(acls, queue, user, NO_GROUPS, QueueAcl.ADMINISTER_QUEUE)

    for queue, own_admin, other_user, other_admin in (
        ("root.queueA", QUEUE_A_ADMIN, QUEUE_B_USER, QUEUE_B_ADMIN),
        ("root.queueB", QUEUE_B_ADMIN, QUEUE_A_USER, QUEUE_A_ADMIN),
    ):
        assert administers(own_admin, queue)
        assert administers(ROOT_ADMIN, queue)
        assert not administers(other_user, queue)
        assert not administers(other_admin, queue)


ALL_ACL, NONE_ACL = "*", " "


def d_and_d1_file(root: str | None, d: str | None, d1: str | None) -> str:
    """``updateConfigWithDAndD1Queues``: root > D > D1, each with the same ACL for both types;
    ``None`` leaves the elements out."""

    def acl(value: str | None) -> str:
        if value is None:
            return ""
        return (
            f"<aclAdministerApps>{value}</aclAdministerApps>\n"
            f"<aclSubmitApps>{value}</aclSubmitApps>\n"
        )

    return (
        '<allocations>\n<queue name="root" >\n<queue name="D" >\n<queue name="D1" >\n'
        f"{acl(d1)}</queue>\n{acl(d)}</queue>\n{acl(root)}</queue>\n</allocations>"
    )


@pytest.mark.parametrize(
    ("root", "d", "d1", "expected"),
    [
        pytest.param(
            NONE_ACL, ALL_ACL, ALL_ACL, (False, True, True), id="testQueueAclRestrictedRootACL"
        ),
        pytest.param(
            NONE_ACL, NONE_ACL, NONE_ACL, (False, False, False), id="testQueueAclNoAccess"
        ),
        pytest.param(
            NONE_ACL, ALL_ACL, NONE_ACL, (False, True, True), id="testQueueAclRestrictedRootAndD1"
        ),
        pytest.param(
            NONE_ACL, NONE_ACL, ALL_ACL, (False, False, True), id="testQueueAclRestrictedRootAndD"
        ),
        pytest.param(ALL_ACL, NONE_ACL, ALL_ACL, (True, True, True), id="testQueueAclRestrictedD"),
        pytest.param(ALL_ACL, ALL_ACL, NONE_ACL, (True, True, True), id="testQueueAclRestrictedD1"),
        pytest.param(None, None, None, (True, True, True), id="testQueueAclDefaultValues"),
    ],
)
def test_queue_acl_d_and_d1(
    root: str | None, d: str | None, d1: str | None, expected: tuple[bool, bool, bool]
) -> None:
    acls = queue_acls(parse(d_and_d1_file(root, d, d1)))
    for queue, access in zip(("root", "root.D", "root.D.D1"), expected, strict=True):
        for acl_type in (QueueAcl.ADMINISTER_QUEUE, QueueAcl.SUBMIT_APPLICATIONS):
            assert has_access(acls, queue, "someuser", ("somegroup",), acl_type) is access, (
                queue,
                acl_type,
            )


# --- TestQueueManager (queue creation and dynamic-queue removal, §1.6) ----------------------
#
# Not on the list of classes to port, but it is Hadoop's own reference for get_or_create_leaf
# and the dynamic-queue clean-up, so the tests that need no reload of a live queue manager are
# ported too. Its fixture configures root.test (parent) with root.test.childA (leaf) and
# root.test.childB (parent); a queue "has apps" when an app is assigned to it.

QUEUE_MANAGER_FILE = """<allocations>
<queue name="test" type="parent">
{extra}<queue name="childA"/>
<queue name="childB" type="parent"/>
</queue>
</allocations>"""


def queue_manager_tree(extra: str = "") -> QueueTree:
    return build_queue_tree(parse(QUEUE_MANAGER_FILE.format(extra=extra)), DEFAULT_TYPES)


def create_leaf(tree: QueueTree, name: str) -> QueueTree:
    tree, problem = get_or_create_leaf(tree, name)
    assert problem is None, problem
    return tree


def remove_empty_dynamic_queues(tree: QueueTree, busy: frozenset[str] = frozenset()) -> QueueTree:
    return without_empty_dynamic_queues(tree, lambda name: name in busy)


@pytest.mark.parametrize(
    ("name", "valid"),
    [
        ("", False),
        ("  ", False),
        (" a", False),
        ("a ", False),
        (" a ", False),
        ("\u00a0", False),
        ("a\u00a0", False),
        ("\u00a0a\u00a0", False),
        ("a b", True),
        ("a", True),
    ],
)
def test_check_queue_node_name(name: str, valid: bool) -> None:
    _, problem = get_or_create_leaf(queue_manager_tree(), f"root.{name}")
    assert (problem is None) is valid, problem


def test_create_leaf_queue() -> None:
    tree = create_leaf(queue_manager_tree(), "root.queue1")
    assert tree["root.queue1"].is_leaf


def test_create_leaf_queue_and_parent() -> None:
    tree = create_leaf(queue_manager_tree(), "root.queue1.queue2")
    assert not tree["root.queue1"].is_leaf
    assert tree["root.queue1.queue2"].is_leaf


def test_create_queue_with_child_defaults() -> None:
    tree = queue_manager_tree("<maxChildResources>8192mb,256vcores</maxChildResources>\n")
    cluster = res(10**6, 10**4)
    tree = create_leaf(tree, "root.test.childC")
    assert tree["root.test.childC"].settings.effective_max_share(cluster) == res(8192, 256)
    tree = tree.with_queue("root.test.childD", is_leaf=False, dynamic=True)
    assert not tree["root.test.childD"].is_leaf
    assert tree["root.test.childD"].settings.effective_max_share(cluster) == res(8192, 256)
    # The configured children are not ad hoc: no cap from maxChildResources.
    for name in ("root.test.childA", "root.test.childB"):
        assert tree[name].settings.max_share is None, name  # unbounded


def test_create_leaf_queue_with_defaults() -> None:
    tree = create_leaf(queue_manager_tree(), "root.queue1")
    settings = tree["root.queue1"].settings
    assert settings.min_share == res(0, 0)
    assert settings.max_share is None  # unbounded
    assert settings.effective_max_share(res(4096, 4)) == DEFAULT_TYPES.unbounded()


def test_create_parent_queue() -> None:
    tree = queue_manager_tree().with_queue("root.queue1", is_leaf=False, dynamic=True)
    assert not tree["root.queue1"].is_leaf


def test_create_parent_queue_and_parent() -> None:
    tree = queue_manager_tree().with_queue("root.queue1", is_leaf=False, dynamic=True)
    tree = tree.with_queue("root.queue1.queue2", is_leaf=False, dynamic=True)
    assert not tree["root.queue1"].is_leaf and not tree["root.queue1.queue2"].is_leaf


def test_removal_of_dynamic_leaf_queue() -> None:
    name = "root.test.childB.dynamic1"
    tree = create_leaf(queue_manager_tree(), name)
    assert tree[name].dynamic
    # An app is assigned: the queue stays.
    assert name in remove_empty_dynamic_queues(tree, frozenset({name}))
    # The app finished: the queue goes, its static parent stays.
    tree = remove_empty_dynamic_queues(tree)
    assert name not in tree
    assert "root.test.childB" in tree


def test_removal_of_dynamic_parent_queue() -> None:
    tree = create_leaf(queue_manager_tree(), "root.parent1.dynamic1")
    assert tree["root.parent1.dynamic1"].dynamic and tree["root.parent1"].dynamic
    tree = remove_empty_dynamic_queues(tree)
    assert "root.parent1.dynamic1" not in tree and "root.parent1" not in tree


def test_application_assignment_prevents_removal_of_dynamic_queue() -> None:
    tree = create_leaf(queue_manager_tree(), "root.leaf1")
    assert "root.leaf1" in remove_empty_dynamic_queues(tree, frozenset({"root.leaf1"}))
    assert "root.leaf1" not in remove_empty_dynamic_queues(tree)


def test_remove_deep_hierarchy() -> None:
    leaf = "root.p1.p2.p3.leaf"
    tree = create_leaf(queue_manager_tree(), leaf)
    assert leaf in remove_empty_dynamic_queues(tree, frozenset({leaf}))
    tree = remove_empty_dynamic_queues(tree)
    assert leaf not in tree and "root.p1" not in tree


def test_remove_split_hierarchy() -> None:
    leaf1, leaf2 = "root.p1.p2-1.leaf-1", "root.p1.p2-2.leaf-2"
    tree = create_leaf(create_leaf(queue_manager_tree(), leaf1), leaf2)
    # Only the empty branch goes.
    tree = remove_empty_dynamic_queues(tree, frozenset({leaf1}))
    assert leaf1 in tree
    assert leaf2 not in tree and "root.p1.p2-2" not in tree
    # Then the rest.
    tree = remove_empty_dynamic_queues(tree)
    assert leaf1 not in tree and "root.p1" not in tree

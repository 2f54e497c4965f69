"""Hadoop's own ``TestQueuePlacementPolicy``, ported as an independent reference for queue
placement (docs/semantics.md §1.5), emulating Hadoop 3.4.

Each test is named after the Hadoop test method it comes from; only inputs and outcomes are
taken over. How Hadoop's fixtures map onto our API:

* ``createPolicy(xml)`` is :func:`parse_placement_policy`; Hadoop's
  ``AllocationConfigurationException`` is a non-empty ``errors`` tuple.
* ``placementManager.placeApplication(asc, user)`` is :func:`place_application`; a ``null``
  context (the app is rejected) is ``Placement.queue is None`` and Hadoop's ``YarnException``
  is our :class:`PlacementError`.
* ``createQueue(type, name)`` creates the queue and marks it and its new ancestors static, as
  if configured; here the queue is configured in an allocation file and the real queue tree
  (:func:`build_queue_tree`) answers the rules' lookups.
* The group mapping is Hadoop's ``SimpleGroupsMapping`` (``<user>group``, ``<user>subgroup1``,
  ``<user>subgroup2``) or, for one test, ``PeriodGroupsMapping`` (``<user>.group``, ...).

Version notes (§1.5.3): the Hadoop 2.x copy of this test parsed ``testTerminals`` fine and
only failed at placement time, and it followed ``nestedUserQueue`` with a ``default`` rule;
since 3.x a ``default`` rule with ``create="false"`` is not terminal and a terminal
``nestedUserQueue`` must be last, so both are configuration errors. We follow 3.x/3.4.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.model import PlacementPolicy, RuleName
from fairshare.config.placement import (
    ParsedPolicy,
    PlacementError,
    QueueLookup,
    parse_placement_policy,
    place_application,
)
from fairshare.config.xml import parse_xml_text
from fairshare.core.model.tree import QueueTree, build_queue_tree
from fairshare.resources.vector import DEFAULT_TYPES


def simple_groups(user: str) -> list[str]:
    """Hadoop's ``SimpleGroupsMapping``."""
    if user == "admins":
        return ["root"]
    if user == "nosecondarygroupuser":
        return ["primarygrouponly"]
    return [f"{user}group", f"{user}subgroup1", f"{user}subgroup2"]


def period_groups(user: str) -> list[str]:
    """Hadoop's ``PeriodGroupsMapping``."""
    return [f"{user}.group", f"{user}subgroup1", f"{user}subgroup2"]


class Queues:
    """The scheduler's queue manager as the tests see it: root at start (Hadoop 3.4's
    ``QueueManager.initialize``), plus every queue ``create`` makes static (configured)."""

    def __init__(self) -> None:
        self.created: list[tuple[str, bool]] = []  # (full name, is parent)

    def create(self, kind: str, name: str) -> None:
        assert kind in ("LEAF", "PARENT")
        self.created = [(n, p) for n, p in self.created if n != name]
        self.created.append((name, kind == "PARENT"))

    def tree(self) -> QueueTree:
        xml = "".join(self._element(name, parent) for name, parent in self.created)
        config = parse_allocations_text(f"<allocations>{xml}</allocations>")
        tree = build_queue_tree(config, DEFAULT_TYPES)
        assert not tree.not_created, tree.not_created
        return tree

    @staticmethod
    def _element(name: str, parent: bool) -> str:
        # root.a.b → <queue name="a"><queue name="b"/></queue>; the innermost one is the queue.
        parts = name.split(".")[1:]
        kind = ' type="parent"' if parent else ""
        inner = f'<queue name="{parts[-1]}"{kind}/>'
        for part in reversed(parts[:-1]):
            inner = f'<queue name="{part}">{inner}</queue>'
        return inner


@dataclass(frozen=True)
class Without:
    """A queue lookup with some queues removed (``queueManager.removeLeafQueue``)."""

    tree: QueueLookup
    removed: frozenset[str]

    def exists(self, name: str) -> bool:
        return name not in self.removed and self.tree.exists(name)

    def is_static(self, name: str) -> bool:
        return name not in self.removed and self.tree.is_static(name)

    def is_leaf(self, name: str) -> bool:
        return name not in self.removed and self.tree.is_leaf(name)


def create_policy(rules: str) -> ParsedPolicy:
    xml = f"<queuePlacementPolicy>{rules}</queuePlacementPolicy>"
    return parse_placement_policy(parse_xml_text(xml, "policy.xml"), "policy.xml")


def policy(rules: str) -> PlacementPolicy:
    parsed = create_policy(rules)
    assert parsed.errors == (), parsed.errors
    assert parsed.policy is not None
    return parsed.policy


def assert_if_exception_thrown(rules: str) -> None:
    """Hadoop's ``assertIfExceptionThrown(sb)``: parsing the policy must fail."""
    parsed = create_policy(rules)
    assert parsed.errors, rules
    assert parsed.policy is None


def place(
    pol: PlacementPolicy,
    queue: str,
    user: str,
    lookup: QueueLookup | None = None,
    groups: Callable[[str], Sequence[str]] = simple_groups,
) -> str | None:
    queues = lookup if lookup is not None else Queues().tree()
    return place_application(pol, queue, user, groups(user), queues).queue


# --- the tests ------------------------------------------------------------------------------


def test_specified_user_policy() -> None:
    pol = policy("<rule name='specified' /><rule name='user' />")
    assert place(pol, "specifiedq", "someuser") == "root.specifiedq"
    assert place(pol, "default", "someuser") == "root.someuser"
    assert place(pol, "default", "otheruser") == "root.otheruser"


def test_no_create() -> None:
    pol = policy(
        "<rule name='specified' /><rule name='user' create=\"false\" /><rule name='default' />"
    )
    queues = Queues()
    queues.create("LEAF", "root.someuser")
    tree = queues.tree()
    assert place(pol, "specifiedq", "someuser", tree) == "root.specifiedq"
    assert place(pol, "default", "someuser", tree) == "root.someuser"
    assert place(pol, "specifiedq", "otheruser", tree) == "root.specifiedq"
    assert place(pol, "default", "otheruser", tree) == "root.default"


def test_specified_then_reject() -> None:
    pol = policy("<rule name='specified' /><rule name='reject' />")
    assert place(pol, "specifiedq", "someuser") == "root.specifiedq"
    assert place(pol, "default", "someuser") is None  # rejected


def test_omitted_terminal_rule() -> None:
    assert_if_exception_thrown("<rule name='specified' /><rule name='user' create=\"false\" />")


def test_terminal_rule_in_middle() -> None:
    assert_if_exception_thrown(
        "<rule name='specified' /><rule name='default' /><rule name='user' />"
    )


def test_terminals() -> None:
    # 3.x: a default rule with create='false' is not terminal, so the policy is rejected when it
    # is configured (2.x accepted it and failed at placement time; see the module docstring).
    assert_if_exception_thrown(
        "<rule name='secondaryGroupExistingQueue' create='true'/>"
        "<rule name='default' queue='otherdefault' create='false'/>"
    )


def test_default_rule_with_queue_attribute() -> None:
    queues = Queues()
    queues.create("LEAF", "root.someDefaultQueue")
    pol = policy(
        "<rule name='specified' create='false' />"
        "<rule name='default' queue='root.someDefaultQueue'/>"
    )
    assert place(pol, "default", "user1", queues.tree()) == "root.someDefaultQueue"


def test_nested_user_queue_parsing_errors() -> None:
    # No nested rule on nestedUserQueue.
    assert_if_exception_thrown("<rule name='nestedUserQueue'/>")
    # The nested rule is not a known rule.
    assert_if_exception_thrown("<rule name='nestedUserQueue'><rule name='unknownRule'/></rule>")
    # The nested rule may not be a parent rule: reject (or nestedUserQueue).
    assert_if_exception_thrown("<rule name='nestedUserQueue'><rule name='reject'/></rule>")
    # A nested rule without create makes the outer rule non-terminal, and it is the last rule.
    assert_if_exception_thrown(
        "<rule name='nestedUserQueue'><rule name='primaryGroup' create='false'/></rule>"
    )


def test_multiple_parent_rules() -> None:
    parsed = create_policy(
        "<rule name='nestedUserQueue'><rule name='primaryGroup'/><rule name='default'/></rule>"
    )
    assert parsed.errors == ()
    assert parsed.policy is not None
    nested = parsed.policy.rules[0]
    assert nested.name is RuleName.NESTED_USER_QUEUE
    # Only the last nested rule is used (with a warning).
    assert nested.parent is not None and nested.parent.name is RuleName.DEFAULT
    assert any("multiple parent rules" in w.message for w in parsed.warnings)


def test_broken_rules() -> None:
    # A rule without a name fails.
    assert_if_exception_thrown("<rule />")
    # A policy without any rule element is ignored (the previous rules stay), not an error.
    ignored = create_policy("<notarule />")
    assert ignored.errors == () and ignored.ignored and ignored.policy is None
    # A nested rule without a name fails.
    assert_if_exception_thrown("<rule name='user'><rule /></rule>")
    # A child element that is not a rule is no nested rule; user does not need one.
    pol = policy("<rule name='user'><notarule /></rule>")
    assert pol.rules[0].name is RuleName.USER and pol.rules[0].parent is None


def test_nested_user_queue_parsing() -> None:
    policy(
        "<rule name='specified' /><rule name='nestedUserQueue'><rule name='primaryGroup'/></rule>"
    )


def test_nested_user_queue_primary_group() -> None:
    pol = policy(
        "<rule name='specified' create='false' />"
        "<rule name='nestedUserQueue'><rule name='primaryGroup'/></rule>"
    )
    queues = Queues()
    # The user queue is created under the primary group queue.
    assert place(pol, "default", "user1", queues.tree()) == "root.user1group.user1"
    # The specified rule above it still works.
    queues.create("LEAF", "root.specifiedq")
    assert place(pol, "root.specifiedq", "user2", queues.tree()) == "root.specifiedq"
    # The primary group queue is a leaf: the user queue cannot go under it, so the app is
    # rejected.
    queues.create("LEAF", "root.user3group")
    assert place(pol, "default", "user3", queues.tree()) is None


def test_nested_user_queue_primary_group_no_create() -> None:
    pol = policy(
        "<rule name='nestedUserQueue'><rule name='primaryGroup' create='false'/></rule>"
        "<rule name='default' />"
    )
    queues = Queues()
    # root.user1group is not configured.
    assert place(pol, "default", "user1", queues.tree()) == "root.default"
    queues.create("PARENT", "root.user1group")
    assert place(pol, "default", "user1", queues.tree()) == "root.user1group.user1"

    # Both rules with create='false'. (Hadoop's test builds this policy but keeps placing with
    # the previous one; both give the same answers, so both are checked.)
    both = policy(
        "<rule name='nestedUserQueue' create='false'>"
        "<rule name='primaryGroup' create='false'/></rule>"
        "<rule name='default' />"
    )
    for each in (pol, both):
        assert place(each, "default", "user2", queues.tree()) == "root.default"
    queues.create("LEAF", "root.user2group.user2")
    for each in (pol, both):
        assert place(each, "default", "user2", queues.tree()) == "root.user2group.user2"
        # Placing the same app again gives the same queue.
        assert place(each, "default", "user2", queues.tree()) == "root.user2group.user2"


def test_nested_user_queue_secondary_group() -> None:
    pol = policy(
        "<rule name='nestedUserQueue'><rule name='secondaryGroupExistingQueue'/></rule>"
        "<rule name='default' />"
    )
    queues = Queues()
    # No group queue is configured.
    assert place(pol, "default", "user1", queues.tree()) == "root.default"
    queues.create("PARENT", "root.user1subgroup1")
    assert place(pol, "default", "user1", queues.tree()) == "root.user1subgroup1.user1"


def test_nested_user_queue_specific_rule() -> None:
    pol = policy(
        "<rule name='nestedUserQueue'><rule name='specified' create='false'/></rule>"
        "<rule name='default' />"
    )
    queues = Queues()
    queues.create("PARENT", "root.parent1")
    queues.create("PARENT", "root.parent2")
    tree = queues.tree()
    assert place(pol, "root.parent1", "user1", tree) == "root.parent1.user1"
    assert place(pol, "root.parent2", "user2", tree) == "root.parent2.user2"


def test_nested_user_queue_default_rule() -> None:
    queues = Queues()
    pol = policy(
        "<rule name='specified' create='false' />"
        "<rule name='nestedUserQueue'><rule name='default' queue='root.parent'/></rule>"
    )
    assert place(pol, "default", "user1", queues.tree()) == "root.parent.user1"

    # The same with create='false' on the nested rule, once root.parent is configured.
    queues.create("PARENT", "root.parent")
    pol = policy(
        "<rule name='specified' create='false' />"
        "<rule name='nestedUserQueue'>"
        "<rule name='default' queue='root.parent' create='false'/></rule>"
        "<rule name='default' />"
    )
    assert place(pol, "default", "user1", queues.tree()) == "root.parent.user1"

    # The nested rule returns a configured leaf: the rule continues, the app is rejected.
    queues.create("LEAF", "root.parent")
    pol = policy(
        "<rule name='specified' create='false' />"
        "<rule name='nestedUserQueue'><rule name='default' queue='root.parent' /></rule>"
    )
    assert place(pol, "default", "user1", queues.tree()) is None


def test_user_contains_period() -> None:
    pol = policy("<rule name='user' />")
    assert place(pol, "default", "first.last") == "root.first_dot_last"

    pol = policy(
        "<rule name='specified' create='false' />"
        "<rule name='nestedUserQueue'><rule name='default'/></rule>"
    )
    # The nested default rule needs root.default to be usable as a parent. Hadoop's test
    # removes the leaf first (3.3 created it at start); in 3.4 it does not exist either way.
    without_default = Without(Queues().tree(), frozenset({"root.default"}))
    for queues in (without_default, Queues().tree()):
        assert place(pol, "default", "first_dot_last", queues) == "root.default.first_dot_last"


def test_group_contains_period() -> None:
    pol = policy(
        "<rule name='specified' create='false' />"
        "<rule name='nestedUserQueue'><rule name='primaryGroup'/></rule>"
    )
    assert place(pol, "default", "user1", groups=period_groups) == "root.user1_dot_group.user1"


def test_empty_groups_primary_group_rule() -> None:
    pol = policy("<rule name='primaryGroup' create=\"false\" /><rule name='default' />")
    with pytest.raises(PlacementError, match="No groups returned for user emptygroupuser"):
        place(pol, "root.fake", "emptygroupuser", groups=lambda _user: [])


@pytest.mark.parametrize("queue", ["A ", "A\u00a0"])
def test_specified_queue_with_spaces(queue: str) -> None:
    pol = policy("<rule name='specified'/><rule name='default'/>")
    with pytest.raises(PlacementError, match="illegal queue name"):
        place(pol, queue, "user1")


# --- inputs of older copies of this test whose outcome changed by 3.x (§1.5.2, §1.5.3) ---


def test_nested_user_queue_parsing_2x_input() -> None:
    """The 2.x copy followed ``nestedUserQueue`` with a ``default`` rule and expected the policy
    to parse. Since 3.x a nested rule with create=true makes ``nestedUserQueue`` terminal, so the
    ``default`` rule after it can never be reached: a configuration error."""
    parsed = create_policy(
        "<rule name='specified' />"
        "<rule name='nestedUserQueue'><rule name='primaryGroup'/></rule>"
        "<rule name='default' />"
    )
    assert [e.message for e in parsed.errors] == [
        "Rules after rule 2 in queue placement policy can never be reached"
            ": rule 'nestedUserQueue' always places the application (create is true), so move "
            "the rules after it before it, or remove them, or give it create=\"false\" so that "
            "it places only into existing queues"
    ]


def test_default_rule_with_queue_attribute_2x_input() -> None:
    """The 2.x copy submitted to ``root.default`` and expected the ``specified`` rule to pass it
    on. Since 3.x only the bare name ``default`` continues; ``specified`` with create=false
    places into ``root.default`` only if it is a configured queue (``configuredQueue``). In
    Hadoop 3.4 it does not exist unless configured, so the ``default`` rule places the app."""
    queues = Queues()
    queues.create("LEAF", "root.someDefaultQueue")
    pol = policy(
        "<rule name='specified' create='false' />"
        "<rule name='default' queue='root.someDefaultQueue'/>"
    )
    assert place(pol, "root.default", "user1", queues.tree()) == "root.someDefaultQueue"
    assert place(pol, "default", "user1", queues.tree()) == "root.someDefaultQueue"
    queues.create("LEAF", "root.default")  # configured: now ``specified`` places there
    assert place(pol, "root.default", "user1", queues.tree()) == "root.default"
    assert place(pol, "default", "user1", queues.tree()) == "root.someDefaultQueue"

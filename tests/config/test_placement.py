"""Queue placement: parsing ``<queuePlacementPolicy>`` (docs/semantics.md §1.5.3), the generated
policy (§1.5.4) and rule evaluation (§1.5.1, §1.5.2, §8.2 vectors), emulating Hadoop 3.4."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import pytest

from fairshare.config.model import PlacementPolicy, PlacementRule, RuleName
from fairshare.config.placement import (
    ParsedPolicy,
    Placement,
    PlacementError,
    clean_name,
    generated_policy,
    parse_placement_policy,
    place_application,
)
from fairshare.config.placement.names import assure_root, is_valid_queue_name, trim_queue_name
from fairshare.config.xml import parse_xml_text

R = RuleName
REJECTED = "application rejected by placement rules"


# --- builders -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Tree:
    """A queue tree for the rules: static (configured) and dynamic queues, and which are leaves."""

    static: frozenset[str]
    dynamic: frozenset[str]
    leaves: frozenset[str]

    def exists(self, name: str) -> bool:
        return name in self.static or name in self.dynamic

    def is_static(self, name: str) -> bool:
        return name in self.static

    def is_leaf(self, name: str) -> bool:
        return self.exists(name) and name in self.leaves


def tree(
    *static: str, dynamic: Iterable[str] = (), leaves: Iterable[str] = ("root.default",)
) -> Tree:
    """root and root.default exist and are static: root.default as if the allocation file
    configured it (Hadoop 3.4 creates root only at start; 3.3 also created root.default)."""
    return Tree(frozenset({"root", "root.default", *static}), frozenset(dynamic), frozenset(leaves))


def parse(xml: str, **flags: bool) -> ParsedPolicy:
    return parse_placement_policy(parse_xml_text(xml, "fs.xml"), "fs.xml", **flags)


def policy(xml: str) -> PlacementPolicy:
    parsed = parse(xml)
    assert parsed.errors == (), parsed.errors
    assert parsed.policy is not None
    return parsed.policy


def rules(*items: PlacementRule) -> PlacementPolicy:
    return PlacementPolicy(items)


def place(
    pol: PlacementPolicy,
    queue: str | None = "default",
    user: str = "alice",
    groups: Iterable[str] = ("eng",),
    queues: Tree | None = None,
) -> Placement:
    return place_application(pol, queue, user, tuple(groups), queues or tree())


def errors(parsed: ParsedPolicy) -> list[tuple[int | None, str]]:
    return [(e.line, e.message) for e in parsed.errors]


SPECIFIED = PlacementRule(R.SPECIFIED)
USER = PlacementRule(R.USER)
DEFAULT = PlacementRule(R.DEFAULT)
REJECT = PlacementRule(R.REJECT)


def test_public_api_is_pinned() -> None:
    import fairshare.config.placement as placement

    assert sorted(placement.__all__) == [
        "ParsedPolicy",
        "Placement",
        "PlacementError",
        "QueueLookup",
        "clean_name",
        "generated_policy",
        "parse_placement_policy",
        "place_application",
    ]


# --- names (§1.5.1) ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("first.last", "first_dot_last"),
        ("a.b.c", "a_dot_b_dot_c"),
        ("\u3000bob\u00a0", "bob"),  # YARN's whitespace table includes these two
        ("\u001cbob", "\u001cbob"),  # ... but not the information separators Java trims
        ("plain", "plain"),
    ],
    ids=["dot", "dots", "unicode-space", "not-in-table", "plain"],
)
def test_clean_name_trims_with_yarn_table_and_replaces_dots(raw: str, cleaned: str) -> None:
    assert clean_name(raw) == cleaned


def test_trim_of_only_whitespace_is_empty() -> None:
    assert trim_queue_name(" \t\u2028 ") == ""


@pytest.mark.parametrize(
    ("name", "valid"),
    [("a", True), ("root.a", True), (".a", False), ("a.", False), (" a", False), ("", True)],
)
def test_is_valid_queue_name(name: str, valid: bool) -> None:
    assert is_valid_queue_name(name) is valid


@pytest.mark.parametrize(
    ("name", "qualified"),
    [("a", "root.a"), ("root", "root"), ("root.a", "root.a"), ("rootx", "root.rootx"), ("", "")],
)
def test_assure_root(name: str, qualified: str) -> None:
    assert assure_root(name) == qualified


# --- §8.2 vectors ---------------------------------------------------------------------------


def test_specified_default_continues_to_the_next_rule() -> None:
    result = place(rules(SPECIFIED, USER), queue="default", user="bob")
    assert result == Placement("root.bob", R.USER, "rule 2 (user) placed the app")


def test_specified_with_leading_dot_fails_the_submission() -> None:
    with pytest.raises(PlacementError, match=r"illegal queue name '\.q'") as info:
        place(rules(SPECIFIED, USER), queue=".q")
    assert info.value.rule is R.SPECIFIED


def test_user_with_dot_in_name() -> None:
    assert place(rules(USER), user="first.last").queue == "root.first_dot_last"


# --- specified ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("requested", "placed"),
    [("a", "root.a"), ("root.a.b", "root.a.b"), ("root.default", "root.default"), ("root", "root")],
)
def test_specified_prefixes_root(requested: str, placed: str) -> None:
    assert place(rules(SPECIFIED, USER), queue=requested).queue == placed


@pytest.mark.parametrize("requested", ["q.", " q", "q\u3000", "."])
def test_specified_invalid_names_fail(requested: str) -> None:
    with pytest.raises(PlacementError, match="illegal queue name"):
        place(rules(SPECIFIED, USER), queue=requested)


def test_no_requested_queue_is_default() -> None:
    assert place(rules(SPECIFIED, USER), queue=None, user="bob").queue == "root.bob"


@pytest.mark.parametrize(
    ("queues", "placed"),
    [
        (tree("root.a"), "root.a"),  # static: placed
        (tree(dynamic=["root.a"]), "root.bob"),  # dynamic does not count for create=false
        (tree(), "root.bob"),  # missing
    ],
    ids=["static", "dynamic", "missing"],
)
def test_specified_without_create_needs_a_static_queue(queues: Tree, placed: str) -> None:
    pol = rules(PlacementRule(R.SPECIFIED, create=False), USER)
    assert place(pol, queue="a", user="bob", queues=queues).queue == placed


# --- user / nestedUserQueue / primaryGroup ----------------------------------------------------


def test_user_without_create_continues_unless_static() -> None:
    pol = rules(PlacementRule(R.USER, create=False), DEFAULT)
    assert place(pol, user="bob", queues=tree("root.bob")).queue == "root.bob"
    assert place(pol, user="bob", queues=tree(dynamic=["root.bob"])).queue == "root.default"


def test_nested_user_under_primary_group() -> None:
    nested = PlacementRule(R.NESTED_USER_QUEUE, parent=PlacementRule(R.PRIMARY_GROUP))
    result = place(rules(nested), user="a.b", groups=["dev.ops", "eng"])
    assert result.queue == "root.dev_dot_ops.a_dot_b"


def test_nested_rule_returning_a_leaf_makes_the_outer_rule_continue() -> None:
    nested = PlacementRule(R.USER, parent=PlacementRule(R.PRIMARY_GROUP))
    pol = rules(nested, DEFAULT)
    queues = tree("root.eng", leaves=["root.eng", "root.default"])
    assert place(pol, groups=["eng"], queues=queues).queue == "root.default"


def test_nested_rule_result_that_does_not_exist_is_fine() -> None:
    nested = PlacementRule(R.USER, parent=PlacementRule(R.DEFAULT, queue="root.users"))
    assert place(rules(nested), user="bob").queue == "root.users.bob"


def test_nested_rule_returning_nothing_makes_the_outer_rule_continue() -> None:
    parent = PlacementRule(R.PRIMARY_GROUP, create=False)
    pol = rules(PlacementRule(R.USER, parent=parent), DEFAULT)
    assert place(pol, groups=["eng"]).queue == "root.default"


def test_nested_specified_with_default_continues() -> None:
    pol = rules(PlacementRule(R.USER, parent=SPECIFIED), REJECT)
    assert place(pol, queue="default").queue is None
    assert place(pol, queue="parent", user="bob").queue == "root.parent.bob"


def test_primary_group_places_in_first_group() -> None:
    assert place(rules(PlacementRule(R.PRIMARY_GROUP)), groups=["eng", "ops"]).queue == "root.eng"


def test_primary_group_without_groups_fails() -> None:
    with pytest.raises(PlacementError, match=r"^No groups returned for user alice$"):
        place(rules(PlacementRule(R.PRIMARY_GROUP)), groups=[])


def test_primary_group_fails_before_its_nested_rule_runs() -> None:
    # The nested rule would place, but the group lookup comes first.
    rule = PlacementRule(R.PRIMARY_GROUP, parent=PlacementRule(R.DEFAULT, queue="root.p"))
    with pytest.raises(PlacementError, match="No groups"):
        place(rules(rule), groups=[])


# --- secondaryGroupExistingQueue (Hadoop 3.4: primary group included) --------------------------


SECONDARY = PlacementRule(R.SECONDARY_GROUP_EXISTING_QUEUE)


@pytest.mark.parametrize(
    ("groups", "queues", "placed"),
    [
        (["eng", "ops"], tree("root.ops"), "root.ops"),
        (["eng", "ops"], tree("root.eng", "root.ops"), "root.eng"),  # HADOOP-17079
        (["eng", "ops"], tree(dynamic=["root.ops"]), "root.default"),
        ([], tree("root.eng"), "root.default"),  # no groups: continue, not an error
        (["a.b"], tree("root.a_dot_b"), "root.a_dot_b"),
    ],
    ids=["second", "primary-counts-in-3.4", "dynamic-ignored", "no-groups", "cleaned"],
)
def test_secondary_group_existing_queue(groups: list[str], queues: Tree, placed: str) -> None:
    assert place(rules(SECONDARY, DEFAULT), groups=groups, queues=queues).queue == placed


def test_secondary_group_ignores_create() -> None:
    pol = rules(PlacementRule(R.SECONDARY_GROUP_EXISTING_QUEUE, create=True), DEFAULT)
    assert place(pol, groups=["x"]).queue == "root.default"


def test_secondary_group_under_nested_rule() -> None:
    rule = PlacementRule(
        R.SECONDARY_GROUP_EXISTING_QUEUE, parent=PlacementRule(R.DEFAULT, queue="root.teams")
    )
    queues = tree("root.teams", "root.teams.ops")
    assert place(rules(rule, DEFAULT), groups=["eng", "ops"], queues=queues).queue == (
        "root.teams.ops"
    )


# --- default / reject -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("attribute", "placed"),
    [
        (None, "root.default"),
        ("", "root.default"),
        ("batch", "root.batch"),
        ("root.a.b", "root.a.b"),
        (".bad", "root.default"),
        ("bad.", "root.default"),
        (" padded", "root.default"),
    ],
)
def test_default_rule_queue(attribute: str | None, placed: str) -> None:
    assert place(rules(PlacementRule(R.DEFAULT, queue=attribute))).queue == placed


def test_default_rule_without_create_needs_a_static_queue() -> None:
    pol = rules(PlacementRule(R.DEFAULT, queue="root.x", create=False))
    assert place(pol, queues=tree("root.x")).queue == "root.x"
    assert place(pol) == Placement(None, None, REJECTED)


def test_reject_rejects() -> None:
    assert place(rules(SPECIFIED, REJECT), queue="default") == Placement(None, R.REJECT, REJECTED)


def test_empty_policy_rejects() -> None:
    assert place(PlacementPolicy(())) == Placement(None, None, REJECTED)


# --- generated policy (§1.5.4) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("user_default", "create", "expected"),
    [
        (True, True, (PlacementRule(R.SPECIFIED), PlacementRule(R.USER))),
        (
            True,
            False,
            (
                PlacementRule(R.SPECIFIED, create=False),
                PlacementRule(R.USER, create=False),
                PlacementRule(R.DEFAULT),
            ),
        ),
        (False, True, (PlacementRule(R.SPECIFIED), PlacementRule(R.DEFAULT))),
        (
            False,
            False,
            (PlacementRule(R.SPECIFIED, create=False), PlacementRule(R.DEFAULT)),
        ),
    ],
    ids=["defaults", "no-undeclared-pools", "no-user-queue", "neither"],
)
def test_generated_policy(
    user_default: bool, create: bool, expected: tuple[PlacementRule, ...]
) -> None:
    generated = generated_policy(user_default, create)
    assert generated == PlacementPolicy(expected, generated=True)
    assert [r.terminal for r in generated.rules] == [False] * (len(expected) - 1) + [True]


def test_generated_policy_without_undeclared_pools_falls_back() -> None:
    """Unconfigured queue → user queue if configured, else root.default (§1.5.4)."""
    pol = generated_policy(True, False)
    assert place(pol, queue="adhoc", user="bob", queues=tree("root.bob")).queue == "root.bob"
    assert place(pol, queue="adhoc", user="bob").queue == "root.default"


# --- parsing (§1.5.3) -----------------------------------------------------------------------


def test_parse_full_policy() -> None:
    parsed = policy(
        """<queuePlacementPolicy>
  <rule name="specified" create="false"/>
  <Rule name="nestedUserQueue">
    <rule name="secondaryGroupExistingQueue"/>
  </Rule>
  <rule name="primaryGroup" create="false"/>
  <rule name="default" queue="root.a.b"/>
</queuePlacementPolicy>"""
    )
    assert parsed == PlacementPolicy(
        (
            PlacementRule(R.SPECIFIED, create=False, line=2),
            PlacementRule(
                R.NESTED_USER_QUEUE,
                parent=PlacementRule(R.SECONDARY_GROUP_EXISTING_QUEUE, line=4),
                line=3,
            ),
            PlacementRule(R.PRIMARY_GROUP, create=False, line=6),
            PlacementRule(R.DEFAULT, queue="root.a.b", line=7),
        )
    )


@pytest.mark.parametrize(
    ("attribute", "create"),
    [
        ('create=""', True),
        ('create="TRUE"', True),
        ('create=" true"', False),
        ('create="yes"', False),
        ('create="false"', False),
        ("", True),
    ],
)
def test_create_attribute_is_java_parse_boolean_untrimmed(attribute: str, create: bool) -> None:
    parsed = policy(
        f'<queuePlacementPolicy><rule name="specified" {attribute}/>'
        '<rule name="reject"/></queuePlacementPolicy>'
    )
    assert parsed.rules[0].create is create


def test_reject_ignores_its_create_attribute() -> None:
    parsed = policy(
        '<queuePlacementPolicy><rule name="reject" create="false"/></queuePlacementPolicy>'
    )
    assert parsed.rules == (PlacementRule(R.REJECT, create=True, line=1),)


def test_empty_element_is_an_error() -> None:
    parsed = parse("<queuePlacementPolicy/>")
    assert errors(parsed) == [(1, "Empty configuration for QueuePlacementPolicy is not allowed")]
    assert parsed.policy is None


def test_element_with_only_a_comment_is_empty() -> None:
    parsed = parse("<queuePlacementPolicy><!-- nothing --></queuePlacementPolicy>")
    assert errors(parsed) == [(1, "Empty configuration for QueuePlacementPolicy is not allowed")]


@pytest.mark.parametrize(
    "xml",
    [
        "<queuePlacementPolicy>\n</queuePlacementPolicy>",
        "<queuePlacementPolicy><other name='user'/></queuePlacementPolicy>",
    ],
    ids=["whitespace", "no-rule-elements"],
)
def test_content_without_rules_is_ignored(xml: str) -> None:
    parsed = parse(xml)
    assert (parsed.policy, parsed.ignored, parsed.errors) == (None, True, ())
    assert "keeps the previous placement rules" in parsed.warnings[0].consequence


def test_rule_errors_with_lines() -> None:
    parsed = parse(
        """<queuePlacementPolicy>
  <rule/>
  <rule name="User"/>
  <rule name="nestedUserQueue"/>
  <rule name="reject"/>
</queuePlacementPolicy>"""
    )
    assert errors(parsed) == [
        (2, "No name provided for a rule element"),
        (3, "No rule class found for User"),
        (4, "Rule 'nestedUserQueue' must have a parent rule set"),
    ]


@pytest.mark.parametrize(
    ("outer", "nested", "message"),
    [
        ("user", "reject", "Rule 'reject' is not allowed as a parent rule for any rule"),
        (
            "user",
            "nestedUserQueue",
            "Rule 'nestedUserQueue' is not allowed as a parent rule for any rule",
        ),
        (
            "primaryGroup",
            "primaryGroup",
            "Parent rule may not be the same type as the child rule: primaryGroup",
        ),
        ("user", "user", "Parent rule may not be the same type as the child rule: user"),
        (
            "nestedUserQueue",
            "user",
            "Parent rule may not be the same type as the child rule: nestedUserQueue",
        ),
        ("specified", "user", "Parent rule should not be configured for Specified rule."),
        ("default", "user", "Parent rule must not be configured for Default rule."),
        ("reject", "user", "Parent rule should not be configured for Reject rule."),
        ("user", "bogus", "No rule class found for bogus"),
    ],
)
def test_nested_rule_errors_point_at_the_nested_rule(outer: str, nested: str, message: str) -> None:
    parsed = parse(
        f"""<queuePlacementPolicy>
  <rule name="{outer}">
    <rule name="{nested}"/>
  </rule>
  <rule name="reject"/>
</queuePlacementPolicy>"""
    )
    # Terminal-order errors, if any, are on lines 2 and 5; line 3 has the nesting error only.
    [text] = [text for line, text in errors(parsed) if line == 3]
    assert text.endswith(message)


def test_multiple_nested_rules_warn_and_the_last_wins() -> None:
    parsed = parse(
        """<queuePlacementPolicy>
  <rule name="user">
    <rule name="primaryGroup"/>
    <rule name="default" queue="root.p"/>
  </rule>
</queuePlacementPolicy>"""
    )
    assert parsed.errors == ()
    assert parsed.policy is not None
    assert parsed.policy.rules[0].parent == PlacementRule(R.DEFAULT, queue="root.p", line=4)
    assert [(w.line, "multiple parent rules" in w.message) for w in parsed.warnings] == [(2, True)]


def test_a_rule_nested_two_deep_is_ignored_with_a_warning() -> None:
    parsed = parse(
        """<queuePlacementPolicy>
  <rule name="user">
    <rule name="primaryGroup"><rule name="reject"/></rule>
  </rule>
</queuePlacementPolicy>"""
    )
    assert parsed.errors == ()
    assert parsed.policy is not None
    assert parsed.policy.rules[0].parent == PlacementRule(R.PRIMARY_GROUP, line=3)
    assert [w.line for w in parsed.warnings] == [3]


def test_invalid_default_queue_attribute_warns() -> None:
    parsed = parse(
        '<queuePlacementPolicy>\n<rule name="default" queue=".x"/>\n</queuePlacementPolicy>'
    )
    assert parsed.errors == ()
    assert [(w.line, "uses root.default" in w.message) for w in parsed.warnings] == [(2, True)]


TERMINAL_FIRST = """<queuePlacementPolicy>
  <rule name="specified"/>
  <rule name="user"/>
  <rule name="default"/>
</queuePlacementPolicy>"""


def test_terminal_rule_before_the_last_is_an_error() -> None:
    assert errors(parse(TERMINAL_FIRST)) == [
        (3, "Rules after rule 2 in queue placement policy can never be reached"
            ": rule 'user' always places the application (create is true), so move the rules "
            "after it before it, or remove them, or give it create=\"false\" so that it "
            "places only into existing queues")
    ]


@pytest.mark.parametrize(
    ("flags", "is_error"),
    [
        ({"migration_mode": True, "no_terminal_rule_check": True}, False),
        ({"migration_mode": True}, True),
        ({"no_terminal_rule_check": True}, True),  # only honoured in migration mode
    ],
)
def test_no_terminal_rule_check_in_migration_mode(flags: dict[str, bool], is_error: bool) -> None:
    parsed = parse(TERMINAL_FIRST, **flags)
    assert bool(parsed.errors) is is_error
    assert (parsed.policy is None) is is_error
    if not is_error:
        assert [(w.line, "can never be reached" in w.message) for w in parsed.warnings] == [
            (3, True)
        ]


@pytest.mark.parametrize(
    ("last", "why"),
    [
        ('<rule name="specified"/>', "never places every application"),
        ('<rule name="user" create="false"/>', 'has create="false"'),
        ('<rule name="user"><rule name="specified"/></rule>', "has a nested rule, 'specified'"),
        ('<rule name="secondaryGroupExistingQueue"/>', "never places every application"),
    ],
)
def test_last_rule_must_be_terminal(last: str, why: str) -> None:
    parsed = parse(
        f'<queuePlacementPolicy>\n<rule name="specified"/>\n{last}\n</queuePlacementPolicy>'
    )
    [(line, message)] = errors(parsed)
    assert line == 3
    assert message.startswith("Could get past last queue placement rule without assigning")
    assert why in message


def test_terminal_checks_are_skipped_when_a_rule_is_broken() -> None:
    parsed = parse(
        '<queuePlacementPolicy><rule name="user"/><rule name="x"/></queuePlacementPolicy>'
    )
    assert [m for _, m in errors(parsed)] == ["No rule class found for x"]


def test_parsed_policy_places_end_to_end() -> None:
    pol = policy(
        """<queuePlacementPolicy>
  <rule name="specified" create="false"/>
  <rule name="nestedUserQueue"><rule name="primaryGroup" create="false"/></rule>
  <rule name="default" queue="root.fallback"/>
</queuePlacementPolicy>"""
    )
    queues = tree("root.eng", "root.configured")
    assert place(pol, queue="configured", queues=queues).queue == "root.configured"
    assert place(pol, queue="adhoc", groups=["eng"], queues=queues).queue == "root.eng.alice"
    assert place(pol, queue="adhoc", groups=["ops"], queues=queues).queue == "root.fallback"

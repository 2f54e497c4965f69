"""Queue ACLs (docs/semantics.md §1.3.4): Hadoop's AccessControlList string format and the
ancestor walk."""

from __future__ import annotations

import pytest

from fairshare.config.acl import (
    EVERYBODY,
    NOBODY,
    AccessControlList,
    QueueAcl,
    can_submit,
    has_access,
    queue_acls,
)
from fairshare.config.allocation import parse_allocations_text
from fairshare.config.model import AllocationConfig

SUBMIT = QueueAcl.SUBMIT_APPLICATIONS
ADMIN = QueueAcl.ADMINISTER_QUEUE


def acl(users: tuple[str, ...] = (), groups: tuple[str, ...] = ()) -> AccessControlList:
    return AccessControlList(users, groups)


# --- parsing ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("*", EVERYBODY),
        (" * ", EVERYBODY),
        ("alice *", EVERYBODY),  # a wildcard in either half allows everyone
        (" *", EVERYBODY),
        ("alice,bob admins", acl(("alice", "bob"), ("admins",))),
        ("bob,alice", acl(("bob", "alice"))),  # a LinkedHashSet: first-seen order
        ("alice,bob,alice", acl(("alice", "bob"))),  # repeats dropped
        ("alice\nbob admins", acl(("alice", "bob"), ("admins",))),  # a newline separates too
        ("alice \n bob", acl(("alice",), ("bob",))),  # the space first: bob is a group
        ("alice\n\nbob", acl(("alice", "bob"))),  # empty names dropped
        ("alice ,\t\nbob", acl(("alice",), ("bob",))),  # the first space still splits
        ("al\tice,\tbob\t,carol", acl(("al\tice", "bob", "carol"))),  # tabs around commas go
        (" admins,ops", acl((), ("admins", "ops"))),  # leading space: groups only
        ("alice ", acl(("alice",))),
        (" ", NOBODY),
        ("", NOBODY),
        ("   ", NOBODY),
        ("alice,\tbob,,carol\t", acl(("alice", "bob", "carol"))),  # blanks skipped, trimmed
        ("alice, bob", acl(("alice",), ("bob",))),  # the space splits!
        ("a g1 g2", acl(("a",), ("g1 g2",))),  # only the first space separates
        ("\talice", acl(("alice",))),  # a tab does not separate, trim removes it
        ("\u00a0", acl(("\u00a0",))),  # not blank for Java, and trim keeps it
    ],
    ids=[
        "star",
        "padded-star",
        "user-star",
        "group-star",
        "users-and-groups",
        "first-seen-order",
        "repeats",
        "newline",
        "space-before-newline",
        "blank-line",
        "space-then-separator",
        "separator-whitespace",
        "groups-only",
        "trailing-space",
        "space-is-nobody",
        "empty-is-nobody",
        "spaces-are-nobody",
        "trimmed",
        "space-after-comma",
        "first-space-only",
        "tab",
        "nbsp",
    ],
)
def test_parse(text: str, expected: AccessControlList) -> None:
    assert AccessControlList.parse(text) == expected


def test_only_ascii_whitespace_is_trimmed_around_separators() -> None:
    # Java's \s is ASCII; U+2003 EM SPACE stays part of the name.
    assert AccessControlList.parse("alice\u2003,bob").users == ("alice\u2003", "bob")


@pytest.mark.parametrize(
    ("text", "acl_string", "description"),
    [
        ("*", "*", "All users are allowed"),
        (" ", " ", "No users are allowed"),
        ("b,a g", "b,a g", "Users [b, a] and members of the groups [g] are allowed"),
        ("a", "a ", "Users [a] are allowed"),
        (" g", " g", "Members of the groups [g] are allowed"),
    ],
)
def test_acl_string_round_trips(text: str, acl_string: str, description: str) -> None:
    parsed = AccessControlList.parse(text)
    assert parsed.acl_string == acl_string
    assert AccessControlList.parse(parsed.acl_string) == parsed
    assert str(parsed) == description


@pytest.mark.parametrize(
    ("text", "user", "groups", "allowed"),
    [
        ("alice", "alice", [], True),
        ("alice", "bob", ["alice"], False),  # a user entry does not match a group
        (" eng", "bob", ["ops", "eng"], True),
        (" eng", "eng", [], False),
        ("*", "anyone", [], True),
        (" ", "alice", ["eng"], False),
    ],
)
def test_is_user_allowed(text: str, user: str, groups: list[str], allowed: bool) -> None:
    assert AccessControlList.parse(text).is_user_allowed(user, groups) is allowed


# --- access through the queue hierarchy -------------------------------------------------------


ACLS = {
    "root": {SUBMIT: NOBODY, ADMIN: acl(("admin",))},
    "root.a": {SUBMIT: acl(("alice",)), ADMIN: NOBODY},
    "root.a.b": {SUBMIT: acl((), ("eng",)), ADMIN: NOBODY},
}


@pytest.mark.parametrize(
    ("queue", "user", "groups", "acl_type", "allowed"),
    [
        ("root.a.b", "bob", ["eng"], SUBMIT, True),  # own ACL
        ("root.a.b", "alice", [], SUBMIT, True),  # parent's ACL
        ("root.a.b.dynamic", "alice", [], SUBMIT, True),  # no entry: inherits
        ("root.a", "bob", ["eng"], SUBMIT, False),  # a child's ACL does not grant the parent
        ("root.a.b", "admin", [], SUBMIT, False),  # types do not mix
        ("root.a.b", "admin", [], ADMIN, True),  # root's administer ACL
        ("root.x", "alice", [], SUBMIT, False),
    ],
)
def test_has_access_walks_ancestors(
    queue: str, user: str, groups: list[str], acl_type: QueueAcl, allowed: bool
) -> None:
    assert has_access(ACLS, queue, user, groups, acl_type) is allowed


def test_can_submit_with_administer_access() -> None:
    assert can_submit(ACLS, "root.x", "admin", [])
    assert can_submit(ACLS, "root.a", "alice", [])
    assert not can_submit(ACLS, "root.x", "alice", [])


# --- the map built from an allocation file ----------------------------------------------------


def test_without_a_file_everyone_may_do_everything() -> None:
    acls = queue_acls(AllocationConfig())
    assert acls == {"root": {SUBMIT: EVERYBODY, ADMIN: EVERYBODY}}
    assert can_submit(acls, "root.any.queue", "mallory", [])
    assert queue_acls(None) == acls


def test_configured_queues_default_to_nobody_but_root_stays_open() -> None:
    """The classic surprise: ACLs on a queue do nothing while root allows everyone."""
    config = parse_allocations_text(
        '<allocations><queue name="a"><aclSubmitApps>alice</aclSubmitApps></queue></allocations>'
    )
    acls = queue_acls(config)
    assert acls["root.a"] == {SUBMIT: acl(("alice",)), ADMIN: NOBODY}
    assert acls["root"] == {SUBMIT: EVERYBODY, ADMIN: EVERYBODY}
    assert can_submit(acls, "root.a", "mallory", [])


def test_closing_root_makes_queue_acls_effective() -> None:
    config = parse_allocations_text(
        """<allocations>
  <queue name="root">
    <aclSubmitApps> </aclSubmitApps>
    <aclAdministerApps>ops</aclAdministerApps>
    <queue name="a"><aclSubmitApps> eng</aclSubmitApps></queue>
  </queue>
</allocations>"""
    )
    acls = queue_acls(config)
    assert acls["root"] == {SUBMIT: NOBODY, ADMIN: acl(("ops",))}
    assert can_submit(acls, "root.a", "bob", ["eng"])
    assert not can_submit(acls, "root.a", "mallory", ["other"])
    assert can_submit(acls, "root.a", "ops", [])  # root administrator


def test_configured_root_without_acls_is_open() -> None:
    config = parse_allocations_text(
        '<allocations><queue name="root"><weight>1</weight></queue></allocations>'
    )
    assert queue_acls(config)["root"] == {SUBMIT: EVERYBODY, ADMIN: EVERYBODY}


def test_acl_text_is_not_trimmed() -> None:
    """A leading space in the element makes the names groups (§1.3.2 ``aclSubmitApps``)."""
    config = parse_allocations_text(
        '<allocations><queue name="a"><aclSubmitApps> alice</aclSubmitApps></queue></allocations>'
    )
    assert queue_acls(config)["root.a"][SUBMIT] == acl((), ("alice",))


def test_a_root_spelt_otherwise_has_no_acls_of_its_own() -> None:
    """YARN keeps the ACLs under "Root" but looks up root.Root: it inherits root's (§1.3.2)."""
    config = parse_allocations_text(
        '<allocations><queue name="Root"><aclSubmitApps>alice</aclSubmitApps>'
        '<queue name="a"><aclAdministerApps>alice</aclAdministerApps></queue></queue>'
        "</allocations>"
    )
    acls = queue_acls(config)
    assert set(acls) == {"root"}
    assert can_submit(acls, "root.Root.a", "bob", [])  # root allows everyone

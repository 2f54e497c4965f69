"""The closed sets of reasons (fairshare.core.model.reasons): every member has words for people,
a reason with values in it is a kind plus details whose text is the sentence events.jsonl has
always carried, and such a text reads back as the same kind and details."""

from __future__ import annotations

import pickle
import re
from enum import StrEnum

import pytest

from fairshare.core import (
    REASON_KINDS,
    Because,
    BlockedCause,
    MoveRefusal,
    NoPreemptionReason,
    NotRunnable,
    Rejection,
    RequestRefusal,
    UnreserveReason,
    parse_member,
    parse_reason,
    phrase,
    record_problem,
    record_reasons,
)
from fairshare.core.model.event_records import REASON_FIELDS
from fairshare.core.model.reasons import PHRASES, SENTENCES, sentence

MEMBERS = [m for kind in REASON_KINDS for m in kind]


@pytest.mark.parametrize("member", MEMBERS, ids=lambda m: f"{type(m).__name__}.{m.name}")
def test_every_member_has_a_phrase(member: StrEnum) -> None:
    words = phrase(member)
    assert words.strip() and words == words.strip()


def test_the_tables_name_only_members_of_their_kind() -> None:
    for table in (PHRASES, SENTENCES):
        for kind, entries in table.items():
            assert kind in REASON_KINDS
            assert all(type(m) is kind for m in entries), kind
    assert {m for kind in PHRASES for m in PHRASES[kind]} >= set(MEMBERS)


def test_a_member_with_values_in_its_text_has_a_kebab_case_name() -> None:
    """Its value is the closed label (a metric's label, a REST field); the sentence is its
    template's."""
    for member in MEMBERS:
        if sentence(member) is not None:
            assert re.fullmatch(r"[a-z]+(-[a-z]+)*", member.value), member


def test_every_reason_field_of_an_event_is_typed() -> None:
    """Each event field that says why is a member of one kind (the types of events.py)."""
    typed = {(name, key) for name, fields in REASON_FIELDS.items() for key in fields}
    assert {("app-rejected", "reason"), ("app-not-runnable", "reason"),
            ("requests-rejected", "reason"), ("container-unreserved", "reason"),
            ("no-preemption", "reason"), ("no-preemption", "blocked"),
            ("starvation", "kind"), ("preemption-warned", "starvation-kind"),
            ("node-decommissioned", "reason"), ("app-attempt-restarted", "reason"),
            ("move-rejected", "reason"), ("container-allocated", "via"),
            ("container-completed", "status")} <= typed


def test_because_renders_yarns_sentences() -> None:
    # the texts of MaxRunningAppsEnforcer's limits as admission has always worded them
    assert Because(NotRunnable.USER_MAX_APPS, user="bob", limit=2) == (
        "user bob already has 2 running app(s) (userMaxApps)")
    assert Because(NotRunnable.MAX_RUNNING_APPS, queue="root.a", limit=3) == (
        "queue root.a already has 3 running app(s) (maxRunningApps)")
    assert Because(MoveRefusal.APP_NOT_FOUND, app="app_1") == "App to be moved app_1 not found."
    assert Because(NoPreemptionReason.NO_STARVATION_LEFT) == "no starvation left to preempt for"
    assert Because(Rejection.REJECTED) == "rejected"


def test_a_text_reads_back_as_its_kind_and_details() -> None:
    reason = Because(NoPreemptionReason.NO_NODE, missing=2, wanted=3,
                     listed="1 no-node-fits, 1 already-chosen")
    assert reason == ("2 of 3 containers found no node where preempting could make room "
                      "(1 no-node-fits, 1 already-chosen)")
    back = parse_reason(NoPreemptionReason, str(reason))
    assert back.kind is NoPreemptionReason.NO_NODE
    assert dict(back.details) == {"missing": 2, "wanted": 3,
                                  "listed": "1 no-node-fits, 1 already-chosen"}
    refused = parse_reason(RequestRefusal, "vcores 9 is above the maximum allocation, 8: YARN "
                           "refuses the allocate call (InvalidResourceRequestException)")
    assert refused.kind is RequestRefusal.ABOVE_MAXIMUM_ALLOCATION
    assert dict(refused.details) == {"resource": "vcores", "asked": 9, "most": 8}


def test_a_kind_of_the_same_words_in_another_field_is_its_own() -> None:
    """NotRunnable.MAX_RUNNING_APPS and MoveRefusal.MAX_RUNNING_APPS share a value; each
    keeps its own sentence."""
    assert NotRunnable.MAX_RUNNING_APPS == MoveRefusal.MAX_RUNNING_APPS
    assert Because(MoveRefusal.MAX_RUNNING_APPS, app="a", target="root.b", queue="root.b") == (
        "moving a to root.b would violate maxRunningApps on root.b")


def test_a_placement_message_is_passed_on_as_its_kind() -> None:
    """A rule's own message (config.placement) that no sentence here writes still reads back:
    as the message of a failed placement."""
    back = parse_reason(Rejection, "some rule's message")
    assert back.kind is Rejection.PLACEMENT_FAILED
    assert back.details == {"message": "some rule's message"}
    assert parse_reason(Rejection, "application rejected by placement rules").kind is (
        Rejection.BY_PLACEMENT_RULES)


def test_an_unknown_reason_is_refused_naming_its_kind() -> None:
    with pytest.raises(ValueError, match="'tired' is not a NotRunnable"):
        parse_reason(NotRunnable, "tired")
    with pytest.raises(ValueError, match=r"'sleepy' is not a UnreserveReason \(fulfilled, "):
        parse_member(UnreserveReason, "sleepy")


def test_a_record_with_an_unknown_reason_is_refused_naming_the_field() -> None:
    record = {"t": 0, "seq": 1, "type": "container-unreserved", "app": "a", "node": "n1",
              "resource": {"memory-mb": 1024, "vcores": 1}, "reason": "fulfilled"}
    assert record_problem(record) is None
    assert record_reasons(record) == {"reason": UnreserveReason.FULFILLED}
    problem = record_problem({**record, "reason": "because"})
    assert problem is not None and problem.startswith("container-unreserved 'reason': ")
    blocked = {"t": 0, "seq": 2, "type": "no-preemption", "app": "a", "queue": "root.a",
               "reason": "1 of 1 containers found no node where preempting could make room "
                         "(1 no-node-fits)", "starvation": {"memory-mb": 1, "vcores": 0},
               "containers-wanted": 1, "containers-found": 0, "blocked": {"no-node-fits": 1}}
    assert record_problem(blocked) is None
    assert record_reasons(blocked)["blocked"] == {BlockedCause.NO_NODE_FITS: 1}
    problem = record_problem({**blocked, "blocked": {"no-node": 1}})
    assert problem is not None and "no-preemption 'blocked'" in problem


def test_a_reason_survives_pickling_with_its_kind() -> None:
    reason = Because(NotRunnable.USER_MAX_APPS, user="bob", limit=2)
    again = pickle.loads(pickle.dumps(reason))
    assert again == reason and again.kind is NotRunnable.USER_MAX_APPS
    assert dict(again.details) == {"user": "bob", "limit": 2}


def test_docs_outputs_lists_every_member_with_its_text_and_phrase() -> None:
    """docs/outputs.md's "Reasons" is the closed set people read: each kind, each member's
    value, its sentence where it has one, and its phrase."""
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[3] / "docs" / "outputs.md").read_text()
    section = docs[docs.index("## Reasons"):]
    section = section[:section.index("\n## ")]
    for kind in REASON_KINDS:
        assert f"**{kind.__name__}**" in section, kind
        block = section[section.index(f"**{kind.__name__}**"):]
        for member in kind:
            text = sentence(member)
            row = f"| `{member.value}` | {'the value' if text is None else f'`{text}`'} | "
            assert row + f"{phrase(member)} |" in block, member


def test_every_wait_cause_has_its_words_and_is_in_the_tuning_guide() -> None:
    """summary.json's waiting causes (the simulator's closed set): each worded and advised in
    sim/record/causes.py, each in docs/tuning.md's table; the blocked causes that make one are
    members of BlockedCause."""
    from pathlib import Path

    from fairshare.sim.record import waiting
    from fairshare.sim.record.causes import BY_KEY, CAUSES, WaitCause

    assert [c.key for c in CAUSES] == list(WaitCause)
    assert set(BY_KEY) == set(WaitCause)
    tuning = (Path(__file__).resolve().parents[3] / "docs" / "tuning.md").read_text()
    rows = [line.split(" | ")[0] for line in tuning.splitlines() if line.startswith("| `")]
    listed = {name.strip("| `") for row in rows for name in row.split(", ")}
    assert set(WaitCause) <= listed
    assert all(isinstance(k, BlockedCause) and v in set(WaitCause)
               for k, v in waiting._BLOCKED.items())

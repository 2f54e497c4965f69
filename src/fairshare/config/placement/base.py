"""What every placement rule shares: the queue lookup, the result types and nested-rule resolution.

A rule returns the fully qualified queue it places the application in, or ``None`` to let the next
rule try ("continue"); it raises :class:`PlacementError` when the submission must fail
(docs/semantics.md §1.5.1).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from fairshare.config.model import PlacementRule, RuleName
from fairshare.config.placement.names import DOT, assure_root

REJECTED = "application rejected by placement rules"


class QueueLookup(Protocol):
    """The queue tree as the placement rules see it."""

    def exists(self, name: str) -> bool: ...

    def is_static(self, name: str) -> bool:
        """The queue exists and is not dynamic: the file configures it (or it is root)."""
        ...

    def is_leaf(self, name: str) -> bool:
        """The queue exists and is a leaf queue."""
        ...


@dataclass(frozen=True, slots=True)
class Placement:
    """The outcome of the placement rules; ``queue`` is None when the rules rejected the app."""

    queue: str | None
    rule: RuleName | None
    detail: str


class PlacementError(Exception):
    """A rule failed, so the submission fails with this message (§1.5.1)."""

    def __init__(self, message: str, rule: RuleName | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule


PlaceFn = Callable[[PlacementRule, "RuleContext"], "str | None"]


@dataclass(frozen=True, slots=True)
class RuleContext:
    """One submission: what the rules may look at, plus the rule table for nested rules."""

    requested_queue: str
    user: str
    groups: Sequence[str]
    queues: QueueLookup
    rules: Mapping[RuleName, PlaceFn]

    def place(self, rule: PlacementRule) -> str | None:
        return self.rules[rule.name](rule, self)


def create_or_static(rule: PlacementRule, queue: str, ctx: RuleContext) -> str | None:
    """The ``create`` test of most rules: place if the rule may create or the queue is static."""
    if rule.create or ctx.queues.is_static(queue):
        return queue
    return None


def nested_parent(rule: PlacementRule, ctx: RuleContext) -> tuple[bool, str | None]:
    """Evaluate a rule's nested (parent) rule: ``(ok, parent_queue)``.

    Without a nested rule: ``(True, None)``. With one, the outer rule continues (``ok`` False) when
    the nested rule returns nothing or names an existing *leaf* queue; a parent that does not exist
    yet is fine, it will be created as a parent queue (§1.5.2 details).
    """
    if rule.parent is None:
        return True, None
    parent = ctx.place(rule.parent)
    if parent is None or ctx.queues.is_leaf(parent):
        return False, None
    return True, parent


def under_parent(parent: str | None, name: str) -> str:
    """``root.<name>`` or ``<parent>.<name>``; the nested rule's result is already qualified."""
    return assure_root(name) if parent is None else f"{parent}{DOT}{name}"

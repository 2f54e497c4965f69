"""``reject``: never places; as the last rule it makes the app rejected
(docs/semantics.md §1.5.2)."""

from __future__ import annotations

from fairshare.config.model import PlacementRule
from fairshare.config.placement.base import RuleContext

NESTED_RULE_ERROR: str | None = "Parent rule should not be configured for Reject rule."


def place(rule: PlacementRule, ctx: RuleContext) -> str | None:
    return None

"""``primaryGroup``: a queue named after the user's primary (first) group
(docs/semantics.md §1.5.2)."""

from __future__ import annotations

from fairshare.config.model import PlacementRule, RuleName
from fairshare.config.placement.base import (
    PlacementError,
    RuleContext,
    create_or_static,
    nested_parent,
    under_parent,
)
from fairshare.config.placement.names import clean_name

NESTED_RULE_ERROR: str | None = None


def place(rule: PlacementRule, ctx: RuleContext) -> str | None:
    """``root.<group>`` or ``<nested result>.<group>``; a user without groups fails the app."""
    # Checked before the nested rule runs, as YARN does: every user has at least a primary group.
    if not ctx.groups:
        raise PlacementError(f"No groups returned for user {ctx.user}", RuleName.PRIMARY_GROUP)
    group = clean_name(ctx.groups[0])
    ok, parent = nested_parent(rule, ctx)
    if not ok:
        return None
    return create_or_static(rule, under_parent(parent, group), ctx)

"""``specified``: the queue named in the submission (docs/semantics.md §1.5.2)."""

from __future__ import annotations

from fairshare.config.model import PlacementRule, RuleName
from fairshare.config.placement.base import PlacementError, RuleContext, create_or_static
from fairshare.config.placement.names import DEFAULT_QUEUE_NAME, assure_root, is_valid_queue_name

NESTED_RULE_ERROR: str | None = "Parent rule should not be configured for Specified rule."


def place(rule: PlacementRule, ctx: RuleContext) -> str | None:
    """The requested queue, ``root.``-prefixed; ``default`` continues; a bad name fails the app."""
    name = ctx.requested_queue
    if not is_valid_queue_name(name):
        raise PlacementError(
            f"Application submitted by user {ctx.user} with illegal queue name '{name}'.",
            RuleName.SPECIFIED,
        )
    # Clients that set no queue send "default", so an explicit "default" cannot be told apart
    # from "no queue asked for": let the next rule decide (§1.5.2). "root.default" places.
    if name == DEFAULT_QUEUE_NAME:
        return None
    return create_or_static(rule, assure_root(name), ctx)

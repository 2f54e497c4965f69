"""``user``: a queue named after the submitting user (docs/semantics.md §1.5.2)."""

from __future__ import annotations

from fairshare.config.model import PlacementRule
from fairshare.config.placement.base import (
    RuleContext,
    create_or_static,
    nested_parent,
    under_parent,
)
from fairshare.config.placement.names import clean_name

NESTED_RULE_ERROR: str | None = None


def place(rule: PlacementRule, ctx: RuleContext) -> str | None:
    """``root.<user>`` or ``<nested result>.<user>``, with ``.`` in the name as ``_dot_``."""
    ok, parent = nested_parent(rule, ctx)
    if not ok:
        return None
    return create_or_static(rule, under_parent(parent, clean_name(ctx.user)), ctx)

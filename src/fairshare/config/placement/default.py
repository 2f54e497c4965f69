"""``default``: the queue in the rule's ``queue`` attribute, else ``root.default``
(docs/semantics.md §1.5.2)."""

from __future__ import annotations

from fairshare.config.model import PlacementRule
from fairshare.config.placement.base import RuleContext, create_or_static
from fairshare.config.placement.names import DEFAULT_QUEUE_PATH, assure_root, is_valid_queue_name

NESTED_RULE_ERROR: str | None = "Parent rule must not be configured for Default rule."


def queue_attribute_problem(rule: PlacementRule) -> str | None:
    """Why the ``queue`` attribute is ignored, or None when it is usable or absent."""
    if rule.queue is None or is_valid_queue_name(rule.queue):
        return None
    return (
        f"default rule: queue name '{rule.queue}' is not valid (surrounding whitespace, or a "
        f"leading or trailing '.'); YARN ignores it and uses root.default"
    )


def default_queue(rule: PlacementRule) -> str:
    """The queue this rule places into. Nested names are allowed, so the name is not cleaned."""
    if not rule.queue or queue_attribute_problem(rule) is not None:
        return DEFAULT_QUEUE_PATH
    return assure_root(rule.queue)


def place(rule: PlacementRule, ctx: RuleContext) -> str | None:
    return create_or_static(rule, default_queue(rule), ctx)

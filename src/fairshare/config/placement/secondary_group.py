"""``secondaryGroupExistingQueue``: the first group whose queue exists and is static
(docs/semantics.md §1.5.2).

Emulates Hadoop 3.4: after HADOOP-17079 the rule walks the user's group *set*, which includes the
primary group (the 3.3 line skipped it, as the documentation still says). The ``create`` flag is
ignored: only static queues match. An empty group list simply continues.
"""

from __future__ import annotations

from fairshare.config.model import PlacementRule
from fairshare.config.placement.base import RuleContext, nested_parent, under_parent
from fairshare.config.placement.names import clean_name

NESTED_RULE_ERROR: str | None = None


def place(rule: PlacementRule, ctx: RuleContext) -> str | None:
    ok, parent = nested_parent(rule, ctx)
    if not ok:
        return None
    # dict.fromkeys: the group set keeps the provider's order and drops repeats.
    for group in dict.fromkeys(ctx.groups):
        queue = under_parent(parent, clean_name(group))
        if ctx.queues.is_static(queue):
            return queue
    return None

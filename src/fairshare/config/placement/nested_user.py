"""``nestedUserQueue``: the ``user`` rule under a mandatory nested rule (docs/semantics.md §1.5.2).

YARN builds both names from the same class, so they behave identically; the old name only
insists on a nested rule (checked when the policy is parsed).
"""

from __future__ import annotations

from fairshare.config.placement.user import place

NESTED_RULE_ERROR: str | None = None
NESTED_RULE_REQUIRED = True

__all__ = ["NESTED_RULE_ERROR", "NESTED_RULE_REQUIRED", "place"]

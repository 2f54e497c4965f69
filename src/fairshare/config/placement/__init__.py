"""Queue placement (docs/semantics.md §1.5): one module per rule, the policy parser and
the evaluator."""

from fairshare.config.placement.base import Placement, PlacementError, QueueLookup
from fairshare.config.placement.names import clean_name
from fairshare.config.placement.policy import (
    ParsedPolicy,
    generated_policy,
    parse_placement_policy,
    place_application,
)

__all__ = [
    "ParsedPolicy",
    "Placement",
    "PlacementError",
    "QueueLookup",
    "clean_name",
    "generated_policy",
    "parse_placement_policy",
    "place_application",
]

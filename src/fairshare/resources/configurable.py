"""A resource setting that is either absolute or a percentage of the cluster
(docs/semantics.md §1.4, §2.8)."""

from __future__ import annotations

from dataclasses import dataclass

from fairshare.resources.vector import Resource, java_long


@dataclass(frozen=True, slots=True)
class ConfigurableResource:
    """A max-type resource setting: an absolute vector, or a fraction of the cluster per type."""

    absolute: Resource | None = None
    percentages: tuple[float, ...] | None = None  # fractions (0.5 = 50 %), one per resource type

    def __post_init__(self) -> None:
        if (self.absolute is None) == (self.percentages is None):
            raise ValueError("exactly one of absolute / percentages must be set")

    def resolve(self, cluster: Resource) -> Resource:
        """The value against the *current* cluster: ``trunc(cluster × pct)`` per type (§1.4)."""
        if self.absolute is not None:
            return self.absolute
        assert self.percentages is not None
        return Resource(
            tuple(
                java_long(float(c) * p)
                for c, p in zip(cluster.values, self.percentages, strict=True)
            )
        )

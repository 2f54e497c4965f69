"""Builders for queue trees and runnable apps in tests (keywords, not telescoping helpers)."""

from __future__ import annotations

from fairshare.config.model import AllocationConfig, PolicyName, QueueConfig
from fairshare.core.model.tree import QueueTree, build_queue_tree
from fairshare.core.shares.fair_shares import AppShareInput
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import DEFAULT_TYPES, Resource, ResourceTypes, float32, res


def queue(
    name: str,
    *,
    weight: float | None = None,
    min_share: Resource | None = None,
    max_share: Resource | None = None,
    max_pct: tuple[float, ...] | None = None,
    policy: str | None = None,
    parent: bool = False,
) -> QueueConfig:
    max_resources = None
    if max_share is not None:
        max_resources = ConfigurableResource(absolute=max_share)
    elif max_pct is not None:
        max_resources = ConfigurableResource(percentages=max_pct)
    return QueueConfig(
        name,
        is_parent=parent,
        weight=float32(weight) if weight is not None else None,
        min_resources=min_share,
        max_resources=max_resources,
        scheduling_policy=PolicyName(policy) if policy else None,
    )


def tree(
    *queues: QueueConfig, default_policy: str = "fair", types: ResourceTypes = DEFAULT_TYPES
) -> QueueTree:
    config = AllocationConfig(
        queues=queues, default_scheduling_policy=PolicyName(default_policy), has_file=True
    )
    return build_queue_tree(config, types)


def apps(*ids: str, start: int = 0) -> list[AppShareInput]:
    return [AppShareInput(app_id, start + i) for i, app_id in enumerate(ids)]


GB = 1024
CLUSTER_24G = res(24 * GB, 12)

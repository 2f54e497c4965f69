"""A queue's effective settings: configured values, defaults and inheritance
(docs/semantics.md §1.3, §2.8)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, TypeVar

from fairshare.config.model import (
    DEFAULT_FAIR_SHARE_PREEMPTION_THRESHOLD,
    TIMEOUT_NEVER_MS,
    UNSET_THRESHOLD,
    UNSET_TIMEOUT_MS,
    AllocationConfig,
    PolicyName,
    QueueConfig,
)
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import (
    Resource,
    ResourceTypes,
    componentwise_max,
    unbounded_like,
)

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class QueueSettings:
    """A queue's effective settings after defaults and inheritance."""

    weight: float
    policy: PolicyName
    min_share: Resource
    max_share: ConfigurableResource | None  # raw (absolute or percentage); None = unbounded
    max_child_resources: ConfigurableResource | None
    max_container_allocation: Resource | None  # inherited from the nearest ancestor; None = unset
    max_running_apps: int
    max_am_share: float
    min_share_preemption_timeout_ms: int
    fair_share_preemption_timeout_ms: int
    fair_share_preemption_threshold: float
    preemptable: bool

    def effective_max_share(self, cluster: Resource) -> Resource:
        """``componentwiseMax(resolve(rawMax, cluster), minShare)``: min wins (§2.8)."""
        raw = unbounded_like(cluster) if self.max_share is None else self.max_share.resolve(cluster)
        return componentwise_max(raw, self.min_share)


def configured_policy(config: AllocationConfig, name: str) -> PolicyName:
    """The policy the file gives ``name``: its own, else ``defaultQueueSchedulingPolicy``."""
    own = config.queue(name)
    return (own.scheduling_policy if own else None) or config.default_scheduling_policy


def settings_for(
    config: AllocationConfig,
    types: ResourceTypes,
    name: str,
    parent: QueueSettings | None,
) -> QueueSettings:
    """Effective settings of queue ``name`` given its parent's (None for root)."""
    configured = config.queue(name)
    own = configured or QueueConfig(name, is_parent=False)
    max_share = own.max_resources or config.queue_max_resources_default
    if configured is None and parent is not None and parent.max_child_resources is not None:
        # Queues the file does not configure are "ad hoc" and get the parent's
        # maxChildResources when created (§1.6) and at every reload (§1.2 step 6) — root.default
        # too, when an app creates it.
        max_share = parent.max_child_resources
    return QueueSettings(
        weight=_first(own.weight, 1.0),
        policy=configured_policy(config, name),
        min_share=own.min_resources or types.none(),
        max_share=max_share,
        max_child_resources=own.max_child_resources,
        max_container_allocation=own.max_container_allocation
        or (parent.max_container_allocation if parent else None),
        max_running_apps=_first(own.max_running_apps, config.queue_max_apps_default),
        max_am_share=_first(own.max_am_share, config.queue_max_am_share_default),
        **_preemption_settings(config, own, parent)._asdict(),
    )


class _Preemption(NamedTuple):
    min_share_preemption_timeout_ms: int
    fair_share_preemption_timeout_ms: int
    fair_share_preemption_threshold: float
    preemptable: bool


def _preemption_settings(
    config: AllocationConfig, own: QueueConfig, parent: QueueSettings | None
) -> _Preemption:
    """Timeouts and threshold: own value, else the parent's effective one (§1.3.3)."""
    if parent is None:
        return _root_preemption_settings(config, own)
    return _Preemption(
        _first(own.min_share_preemption_timeout_ms, parent.min_share_preemption_timeout_ms),
        _first(own.fair_share_preemption_timeout_ms, parent.fair_share_preemption_timeout_ms),
        _first(own.fair_share_preemption_threshold, parent.fair_share_preemption_threshold),
        # A non-preemptable parent makes the whole subtree non-preemptable.
        parent.preemptable and own.allow_preemption_from is not False,
    )


def _root_preemption_settings(config: AllocationConfig, own: QueueConfig) -> _Preemption:
    if not config.has_file:
        # Without an allocation file the "unset" sentinels propagate down the tree, so
        # fair-share starvation (threshold −1) can never happen (§1.3.3).
        return _Preemption(UNSET_TIMEOUT_MS, UNSET_TIMEOUT_MS, UNSET_THRESHOLD, True)
    return _Preemption(
        _first(
            own.min_share_preemption_timeout_ms,
            config.default_min_share_preemption_timeout_ms,
            TIMEOUT_NEVER_MS,
        ),
        _first(
            own.fair_share_preemption_timeout_ms,
            config.default_fair_share_preemption_timeout_ms,
            TIMEOUT_NEVER_MS,
        ),
        _first(
            own.fair_share_preemption_threshold,
            config.default_fair_share_preemption_threshold,
            DEFAULT_FAIR_SHARE_PREEMPTION_THRESHOLD,
        ),
        own.allow_preemption_from is not False,
    )


def _first(*values: _T | None) -> _T:
    for v in values:
        if v is not None:
            return v
    raise ValueError("no value")

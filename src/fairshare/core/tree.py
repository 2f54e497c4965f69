"""The queue tree: which queues exist and their effective settings (spec §1.3.3, §1.6, §2.8).

A :class:`QueueTree` is immutable; creating a dynamic queue returns a new tree. Children keep
creation order. YARN fills its configured-queue sets from hash sets, so the order in which
configured queues are created is hash order there; we create them in document order instead
(leaves first, each with its missing ancestors, then the remaining parents — spec §1.2 step 3),
which is deterministic and matches what an administrator reads in the file.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
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
from fairshare.core.policies import is_child_policy_allowed
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import Resource, ResourceTypes, componentwise_max

_T = TypeVar("_T")

ROOT = "root"
DEFAULT_QUEUE = "root.default"


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
        """``componentwiseMax(resolve(rawMax, cluster), minShare)``: min wins (spec §2.8)."""
        if self.max_share is None:
            raw = Resource((2**63 - 1,) * len(cluster.values))
        else:
            raw = self.max_share.resolve(cluster)
        return componentwise_max(raw, self.min_share)


@dataclass(frozen=True, slots=True)
class QueueNode:
    name: str
    is_leaf: bool
    dynamic: bool
    settings: QueueSettings
    children: tuple[str, ...] = ()

    @property
    def parent(self) -> str | None:
        return self.name.rsplit(".", 1)[0] if "." in self.name else None


@dataclass(frozen=True, slots=True)
class QueueTree:
    """Every queue by full name, in creation order, plus the configuration they came from."""

    queues: Mapping[str, QueueNode]
    config: AllocationConfig
    types: ResourceTypes
    not_created: tuple[tuple[str, str], ...] = ()  # (queue, why YARN could not create it)

    def __getitem__(self, name: str) -> QueueNode:
        return self.queues[name]

    def __contains__(self, name: object) -> bool:
        return name in self.queues

    def __iter__(self) -> Iterator[QueueNode]:
        return iter(self.queues.values())

    @property
    def root(self) -> QueueNode:
        return self.queues[ROOT]

    def leaves(self) -> list[QueueNode]:
        return [q for q in self.queues.values() if q.is_leaf]

    def children(self, name: str) -> list[QueueNode]:
        return [self.queues[c] for c in self.queues[name].children]

    def depth_first(self, name: str = ROOT) -> Iterator[QueueNode]:
        """Pre-order walk in child order (what a tree view shows)."""
        node = self.queues[name]
        yield node
        for child in node.children:
            yield from self.depth_first(child)

    def with_queue(self, name: str, is_leaf: bool, dynamic: bool) -> QueueTree:
        """A tree with ``name`` created under its (existing) parent; settings inherited now."""
        parent_name = name.rsplit(".", 1)[0]
        parent = self.queues[parent_name]
        node = QueueNode(
            name, is_leaf, dynamic, settings_for(self.config, self.types, name, parent.settings,
                                                 dynamic)
        )
        queues = dict(self.queues)
        queues[parent_name] = replace(parent, children=(*parent.children, name))
        queues[name] = node
        return replace(self, queues=MappingProxyType(queues))

    def creation_problem(self, name: str, is_leaf: bool) -> str | None:
        """Why YARN would refuse to create ``name`` under its existing parent, or None (§1.6)."""
        parent = self.queues[name.rsplit(".", 1)[0]]
        if parent.is_leaf:
            return f"its parent {parent.name} is a leaf queue"
        own = self.config.queue(name)
        policy = (own.scheduling_policy if own else None) or self.config.default_scheduling_policy
        if not is_leaf and policy is PolicyName.FIFO:
            return "fifo is not allowed on a parent queue"
        parent_policy = parent.settings.policy
        if not is_child_policy_allowed(parent_policy, policy):
            return f"policy {policy.value} is not allowed under {parent_policy.value} {parent.name}"
        return None


def settings_for(
    config: AllocationConfig,
    types: ResourceTypes,
    name: str,
    parent: QueueSettings | None,
    dynamic: bool = False,
) -> QueueSettings:
    """Effective settings of queue ``name`` given its parent's (None for root)."""
    own = config.queue(name) or QueueConfig(name, is_parent=False)
    max_share = own.max_resources or config.queue_max_resources_default
    if dynamic and parent is not None and parent.max_child_resources is not None:
        max_share = parent.max_child_resources  # ad-hoc children of maxChildResources (§1.2 #6)
    return QueueSettings(
        weight=own.weight if own.weight is not None else 1.0,
        policy=own.scheduling_policy or config.default_scheduling_policy,
        min_share=own.min_resources or types.none(),
        max_share=max_share,
        max_child_resources=own.max_child_resources,
        max_container_allocation=own.max_container_allocation
        or (parent.max_container_allocation if parent else None),
        max_running_apps=(
            own.max_running_apps
            if own.max_running_apps is not None
            else config.queue_max_apps_default
        ),
        max_am_share=(
            own.max_am_share if own.max_am_share is not None else config.queue_max_am_share_default
        ),
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
    """Timeouts and threshold: own value, else the parent's effective one (spec §1.3.3)."""
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
        # fair-share starvation (threshold −1) can never happen (spec §1.3.3).
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


def build_queue_tree(config: AllocationConfig, types: ResourceTypes) -> QueueTree:
    """The tree right after scheduler init: root, root.default, then the configured queues."""
    root = QueueNode(ROOT, is_leaf=False, dynamic=False,
                     settings=settings_for(config, types, ROOT, None))
    tree = QueueTree(MappingProxyType({ROOT: root}), config, types)
    default = config.queue(DEFAULT_QUEUE)
    # Hadoop 3.4 (our target) creates root.default at start-up even when unconfigured (§1.6).
    tree = tree.with_queue(DEFAULT_QUEUE, is_leaf=default is None or not default.is_parent,
                           dynamic=False)
    if tree.creation_problem(DEFAULT_QUEUE, tree[DEFAULT_QUEUE].is_leaf) is not None:
        # root.default predates the file; when its configured policy is not allowed under
        # root's, the reload walk leaves it on its initial policy, fair (spec §1.2 step 2).
        default_node = tree[DEFAULT_QUEUE]
        fair = replace(default_node.settings, policy=PolicyName.FAIR)
        tree = replace(tree, queues=MappingProxyType(
            {**tree.queues, DEFAULT_QUEUE: replace(default_node, settings=fair)}))
    leaves = [q.name for q in config.queues if not q.is_parent and q.name != ROOT]
    parents = [q.name for q in config.queues if q.is_parent and q.name != ROOT]
    for name in leaves:
        tree = _ensure(tree, name, is_leaf=True)
    for name in parents:
        tree = _ensure(tree, name, is_leaf=False)
    return tree


def _ensure(tree: QueueTree, name: str, is_leaf: bool) -> QueueTree:
    """Create ``name`` and its missing ancestors, unless YARN would refuse one of them (§1.6)."""
    parts = name.split(".")
    for depth in range(2, len(parts) + 1):
        prefix = ".".join(parts[:depth])
        leaf = is_leaf and depth == len(parts)
        if prefix in tree:
            continue
        problem = tree.creation_problem(prefix, leaf)
        if problem is not None:
            failed = (*tree.not_created, (name, f"{prefix} cannot be created: {problem}"))
            return replace(tree, not_created=failed)
        tree = tree.with_queue(prefix, is_leaf=leaf, dynamic=False)
    return tree

"""The queue tree: which queues exist, in what order, with which settings (spec §1.2, §1.6).

A :class:`QueueTree` is immutable; creating a dynamic queue returns a new tree. Children keep
creation order; the order configured queues are created in is decided in
:mod:`fairshare.core.yarn_order`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from fairshare.config.model import AllocationConfig, PolicyName
from fairshare.config.placement.names import trim_queue_name
from fairshare.core.policies import is_child_policy_allowed
from fairshare.core.queue_settings import QueueSettings, configured_policy, settings_for
from fairshare.core.yarn_order import ROOT, configured_creation_order
from fairshare.resources.vector import ResourceTypes

DEFAULT_QUEUE = "root.default"
__all__ = [
    "DEFAULT_QUEUE",
    "ROOT",
    "QueueNode",
    "QueueSettings",
    "QueueTree",
    "build_queue_tree",
    "get_or_create_leaf",
    "without_empty_dynamic_queues",
]


def parent_of(name: str) -> str | None:
    return name.rsplit(".", 1)[0] if "." in name else None


@dataclass(frozen=True, slots=True)
class QueueNode:
    name: str
    is_leaf: bool
    dynamic: bool
    settings: QueueSettings
    children: tuple[str, ...] = ()

    @property
    def parent(self) -> str | None:
        return parent_of(self.name)


@dataclass(frozen=True, slots=True)
class QueueTree:
    """Every queue by full name, in creation order, plus the configuration they came from."""

    queues: Mapping[str, QueueNode]
    config: AllocationConfig
    types: ResourceTypes
    # Configured queues YARN could not create at load time, with the reason (spec §1.6).
    not_created: tuple[tuple[str, str], ...] = field(default=())

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

    def depth_first(self, name: str = ROOT) -> Iterator[QueueNode]:
        """Pre-order walk in child order (what a tree view shows)."""
        stack = [name]
        while stack:
            node = self.queues[stack.pop()]
            yield node
            stack.extend(reversed(node.children))

    def creation_problem(self, name: str, is_leaf: bool) -> str | None:
        """Why YARN would refuse to create ``name`` under its existing parent, or None (§1.6)."""
        return _creation_problem(self.queues, self.config, name, is_leaf)

    # The placement rules' view of the tree (config.placement.QueueLookup).
    def exists(self, name: str) -> bool:
        return name in self.queues

    def is_static(self, name: str) -> bool:
        return name in self.queues and not self.queues[name].dynamic

    def is_leaf(self, name: str) -> bool:
        return name in self.queues and self.queues[name].is_leaf

    def with_queue(self, name: str, is_leaf: bool, dynamic: bool) -> QueueTree:
        """A tree with ``name`` created under its (existing) parent; settings inherited now.

        Raises ``ValueError`` when YARN would refuse to create it (see :meth:`creation_problem`).
        """
        problem = self.creation_problem(name, is_leaf)
        if problem is not None:
            raise ValueError(f"cannot create {name}: {problem}")
        parent = self.queues[parent_of(name) or ROOT]
        queues = dict(self.queues)
        queues[parent.name] = replace(parent, children=(*parent.children, name))
        settings = settings_for(self.config, self.types, name, parent.settings)
        queues[name] = QueueNode(name, is_leaf, dynamic, settings)
        return replace(self, queues=MappingProxyType(queues))


def _creation_problem(
    queues: Mapping[str, QueueNode], config: AllocationConfig, name: str, is_leaf: bool
) -> str | None:
    parent = queues[parent_of(name) or ROOT]
    if parent.is_leaf:
        return f"its parent {parent.name} is a leaf queue"
    policy = configured_policy(config, name)
    if not is_leaf and policy is PolicyName.FIFO:
        return "fifo is not allowed on a parent queue"
    parent_policy = parent.settings.policy
    if not is_child_policy_allowed(parent_policy, policy):
        return f"policy {policy.value} is not allowed under {parent_policy.value} {parent.name}"
    return None


class _Builder:
    """Creates queues into plain dicts (one pass, no copying) and freezes them at the end."""

    def __init__(self, config: AllocationConfig, types: ResourceTypes) -> None:
        self.config, self.types = config, types
        self.nodes: dict[str, QueueNode] = {}
        self.children: dict[str, list[str]] = {}
        self.not_created: list[tuple[str, str]] = []

    def create(self, name: str, is_leaf: bool) -> None:
        parent = parent_of(name)
        parent_settings = self.nodes[parent].settings if parent else None
        settings = settings_for(self.config, self.types, name, parent_settings)
        self.nodes[name] = QueueNode(name, is_leaf, dynamic=False, settings=settings)
        self.children[name] = []
        if parent:
            self.children[parent].append(name)

    def set_policy(self, name: str, policy: PolicyName) -> None:
        node = self.nodes[name]
        self.nodes[name] = replace(node, settings=replace(node.settings, policy=policy))

    def ensure(self, name: str, is_leaf: bool) -> None:
        """Create ``name`` and its missing ancestors, unless YARN would refuse one (§1.6)."""
        parts = name.split(".")
        for depth in range(2, len(parts) + 1):
            prefix = ".".join(parts[:depth])
            leaf = is_leaf and depth == len(parts)
            existing = self.nodes.get(prefix)
            if existing is not None and existing.is_leaf and not leaf and prefix == name:
                # A configured parent that exists as an (empty) leaf — only root.default can,
                # before the file is applied — is removed and created anew (spec §1.6).
                self._remove(prefix)
            elif existing is not None:
                continue
            problem = _creation_problem(self.nodes, self.config, prefix, leaf)
            if problem is not None:
                self.not_created.append((name, f"{prefix} cannot be created: {problem}"))
                return
            self.create(prefix, leaf)

    def _remove(self, name: str) -> None:
        del self.nodes[name], self.children[name]
        self.children[parent_of(name) or ROOT].remove(name)

    def freeze(self) -> QueueTree:
        queues = {
            name: replace(node, children=tuple(self.children[name]))
            for name, node in self.nodes.items()
        }
        return QueueTree(MappingProxyType(queues), self.config, self.types,
                         tuple(self.not_created))


def build_queue_tree(config: AllocationConfig, types: ResourceTypes) -> QueueTree:
    """The tree right after scheduler init (spec §1.2 steps 2–3, §1.6)."""
    builder = _Builder(config, types)
    # Start-up creates root and root.default (a leaf, even when configured as a parent; Hadoop
    # 3.4 still creates it at start) with the initial policy, fair.
    builder.create(ROOT, is_leaf=False)
    builder.create(DEFAULT_QUEUE, is_leaf=True)
    for name in (ROOT, DEFAULT_QUEUE):
        builder.set_policy(name, PolicyName.FAIR)
    _apply_configured_policies(builder)
    for name, is_leaf in configured_creation_order(config):
        builder.ensure(name, is_leaf)
    return builder.freeze()


def _apply_configured_policies(builder: _Builder) -> None:
    """The reload walk over the queues that exist before the file is applied (§1.2 step 2).

    root.default's configured policy must be allowed under root's configured policy; if not,
    the walk aborts and both keep fair — so a ``fifo`` root stays fair.
    """
    config = builder.config
    root_policy = configured_policy(config, ROOT)
    default_policy = configured_policy(config, DEFAULT_QUEUE)
    if is_child_policy_allowed(root_policy, default_policy):
        builder.set_policy(DEFAULT_QUEUE, default_policy)
        builder.set_policy(ROOT, root_policy)


def get_or_create_leaf(tree: QueueTree, name: str) -> tuple[QueueTree, str | None]:
    """YARN's get-or-create of a leaf queue at submission (spec §1.6).

    Returns the tree with ``name`` (and its missing ancestors, as parents) created, and None; or
    the unchanged tree and why it cannot be a leaf ("X is not a leaf queue" in YARN). Queues
    created here are dynamic unless the file configures them.
    """
    full = name if name == ROOT or name.startswith(ROOT + ".") else f"{ROOT}.{name}"
    parts = full.split(".")
    if any(part == "" or part != trim_queue_name(part) for part in parts):
        return tree, f"{full}: invalid queue name"
    if full in tree:
        existing = tree[full]
        return (tree, None) if existing.is_leaf else (tree, f"{full} is not a leaf queue")
    for depth in range(2, len(parts) + 1):
        prefix = ".".join(parts[:depth])
        if prefix in tree:
            continue
        leaf = depth == len(parts)
        problem = tree.creation_problem(prefix, leaf)
        if problem is not None:
            return tree, f"{full} is not a leaf queue: {prefix} cannot be created: {problem}"
        tree = tree.with_queue(prefix, is_leaf=leaf, dynamic=tree.config.queue(prefix) is None)
    return tree, None


def without_empty_dynamic_queues(tree: QueueTree, has_apps: Callable[[str], bool]) -> QueueTree:
    """The allocation reload thread's clean-up (spec §1.6).

    Every dynamic leaf with no runnable, non-runnable or assigned apps (``has_apps`` false) is
    removed; then dynamic parents left without children, transitively.
    """
    removable = {
        n.name for n in tree if n.dynamic and n.is_leaf and not n.children and not has_apps(n.name)
    }
    changed = True
    while changed:
        changed = False
        for node in tree:
            if node.dynamic and not node.is_leaf and node.name not in removable and all(
                c in removable for c in node.children
            ):
                removable.add(node.name)
                changed = True
    if not removable:
        return tree
    queues = {
        name: replace(node, children=tuple(c for c in node.children if c not in removable))
        for name, node in tree.queues.items()
        if name not in removable
    }
    return replace(tree, queues=MappingProxyType(queues))

"""The queue tree: which queues exist, in what order, with which settings
(docs/semantics.md §1.2, §1.6).

A :class:`QueueTree` is immutable; creating a dynamic queue returns a new tree. Children keep
creation order; the order configured queues are created in is decided in
:mod:`fairshare.core.rules.yarn_order`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

from fairshare.config.model import AllocationConfig, PolicyName
from fairshare.config.placement.names import trim_queue_name
from fairshare.core.model.queue_settings import QueueSettings, configured_policy, settings_for
from fairshare.core.model.reasons import Because, Rejection
from fairshare.core.rules.policies import is_child_policy_allowed
from fairshare.core.rules.yarn_order import ROOT, configured_creation_order
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
    "reload_queue_tree",
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
    # Configured queues YARN could not create at load time, with the reason (§1.6).
    not_created: tuple[tuple[str, str], ...] = field(default=())
    # Why the policy walk of the last load stopped (queues kept their policies), or None.
    policies_kept: str | None = None

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
        """Pre-order walk in child order: YARN's creation order (``yarn_order``)."""
        stack = [name]
        while stack:
            node = self.queues[stack.pop()]
            yield node
            stack.extend(reversed(node.children))

    def tree_view(self) -> list[QueueNode]:
        """Every queue as outputs and tables list them: pre-order, siblings in the order the
        allocation file writes them, then the queues it does not name in creation order.
        (YARN's own order of siblings is a hash order nobody can read.)"""
        written = {q.name: i for i, q in enumerate(self.config.queues)}
        rank = {name: (written.get(name, len(written)), i)
                for i, name in enumerate(self.queues)}
        out: list[QueueNode] = []
        stack = [ROOT]
        while stack:
            node = self.queues[stack.pop()]
            out.append(node)
            stack.extend(sorted(node.children, key=rank.__getitem__, reverse=True))
        return out

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
    """Applies an allocation file to a tree as YARN's ``QueueManager`` does, into plain dicts (no
    copying per queue), and freezes the result."""

    def __init__(self, config: AllocationConfig, types: ResourceTypes) -> None:
        self.config, self.types = config, types
        self.nodes: dict[str, QueueNode] = {}
        self.children: dict[str, list[str]] = {}
        self.not_created: list[tuple[str, str]] = []
        self.policies_kept: str | None = None

    def create(self, name: str, is_leaf: bool, dynamic: bool = False) -> None:
        """A queue with the new file's settings; its policy is the configured one, as the
        ``FSQueue`` constructor sets it (the reload walk may keep an existing queue's old one)."""
        parent = parent_of(name)
        parent_settings = self.nodes[parent].settings if parent else None
        settings = settings_for(self.config, self.types, name, parent_settings)
        self.nodes[name] = QueueNode(name, is_leaf, dynamic, settings)
        self.children[name] = []
        if parent:
            self.children[parent].append(name)

    def set_policy(self, name: str, policy: PolicyName) -> None:
        node = self.nodes[name]
        self.nodes[name] = replace(node, settings=replace(node.settings, policy=policy))

    def set_configured_policies(self, name: str = ROOT) -> str | None:
        """``FSQueue.verifyAndSetPolicyFromConf``: depth-first over the queues that exist, each
        queue's configured policy set after its children's; the walk stops at the first child
        whose configured policy its parent's configured policy does not allow, so that queue,
        its parent and every queue after it keep the policy they had. Returns why it stopped."""
        policy = configured_policy(self.config, name)
        for child in self.children[name]:
            child_policy = configured_policy(self.config, child)
            if not is_child_policy_allowed(policy, child_policy):
                return (f"policy {child_policy.value} is not allowed under {policy.value} "
                        f"{name}: {child}, {name} and the queues after them keep their "
                        f"policies")
            problem = self.set_configured_policies(child)
            if problem is not None:
                return problem
        self.set_policy(name, policy)
        return None

    def ensure(self, name: str, is_leaf: bool, is_empty: Callable[[str], bool]) -> None:
        """``QueueManager.ensureQueueExistsAndIsCompatibleAndIsStatic`` for one configured queue:
        make way for it (:meth:`remove_incompatible`), then create it and its missing
        ancestors unless YARN would refuse one (§1.6); it is static from now on."""
        if not self.remove_incompatible(name, is_leaf, is_empty):
            kind = "leaf" if is_leaf else "parent"
            self.not_created.append((name, f"{name} has applications and cannot become a "
                                           f"{kind} queue until they end"))
            return
        parts = name.split(".")
        for depth in range(2, len(parts) + 1):
            prefix = ".".join(parts[:depth])
            if prefix in self.nodes:
                continue
            leaf = is_leaf and depth == len(parts)
            problem = _creation_problem(self.nodes, self.config, prefix, leaf)
            if problem is not None:
                self.not_created.append((name, f"{prefix} cannot be created: {problem}"))
                return
            self.create(prefix, leaf)
        self.nodes[name] = replace(self.nodes[name], dynamic=False)

    def remove_incompatible(self, name: str, is_leaf: bool,
                            is_empty: Callable[[str], bool]) -> bool:
        """``QueueManager.removeEmptyIncompatibleQueues``: an existing queue of the other kind,
        or the nearest existing leaf among the new queue's ancestors, is removed with its
        subtree if it holds no app. False when it holds some (YARN retries later)."""
        if name.startswith(DEFAULT_QUEUE + "."):
            return True  # never removes root.default to make way for a queue under it
        existing = self.nodes.get(name)
        if existing is not None:
            blocker = None if existing.is_leaf == is_leaf else name
        else:
            prefixes = [".".join(name.split(".")[:d]) for d in range(name.count(".") + 1, 1, -1)]
            blocker = next((p for p in prefixes if p in self.nodes and self.nodes[p].is_leaf),
                           None)
        if blocker is None:
            return True
        if not is_empty(blocker):
            return False
        self._remove(blocker)
        return True

    def _remove(self, name: str) -> None:
        for child in list(self.children[name]):
            self._remove(child)
        del self.nodes[name], self.children[name]
        self.children[parent_of(name) or ROOT].remove(name)

    def freeze(self) -> QueueTree:
        queues = {
            name: replace(node, children=tuple(self.children[name]))
            for name, node in self.nodes.items()
        }
        return QueueTree(MappingProxyType(queues), self.config, self.types,
                         tuple(self.not_created), self.policies_kept)


def build_queue_tree(config: AllocationConfig, types: ResourceTypes) -> QueueTree:
    """The tree right after scheduler init (§1.2 steps 2–3, §1.6). Hadoop 3.4's
    ``QueueManager.initialize`` creates only root, with the initial policy, fair (3.3 also
    created root.default; 3.4 creates it when an app is placed there, as any dynamic queue);
    then the file is applied as every reload applies it (:func:`reload_queue_tree`)."""
    builder = _Builder(config, types)
    builder.create(ROOT, is_leaf=False)
    builder.set_policy(ROOT, PolicyName.FAIR)
    return _apply(builder, lambda name: True, frozenset())


def reload_queue_tree(old: QueueTree, config: AllocationConfig,
                      is_empty: Callable[[str], bool]) -> QueueTree:
    """``FairScheduler.AllocationReloadListener.onReload`` applied to the queues that exist:
    every queue stays, with the new file's settings, keeping its policy where the policy
    walk stops (:meth:`_Builder.set_configured_policies`); configured queues are created as at
    start-up, making way by removing empty queues of the wrong kind; queues the old file
    configured and the new one does not become dynamic. ``is_empty(queue)``: no app in its
    subtree, running or not."""
    builder = _Builder(config, old.types)
    for node in old:  # creation order: QueueManager keeps its lists, a parent before a child
        builder.create(node.name, node.is_leaf, node.dynamic)
        builder.set_policy(node.name, node.settings.policy)
    unconfigured = frozenset(old.config.queue_names) - frozenset(config.queue_names) - {ROOT}
    return _apply(builder, is_empty, unconfigured)


def _apply(builder: _Builder, is_empty: Callable[[str], bool],
           unconfigured: frozenset[str]) -> QueueTree:
    """``QueueManager.updateAllocationConfiguration``, then ``setQueuesToDynamic``."""
    builder.policies_kept = builder.set_configured_policies()
    for name, is_leaf in configured_creation_order(builder.config):
        builder.ensure(name, is_leaf, is_empty)
    for name in unconfigured & builder.nodes.keys():
        builder.nodes[name] = replace(builder.nodes[name], dynamic=True)
    return builder.freeze()


def get_or_create_leaf(tree: QueueTree, name: str
                       ) -> tuple[QueueTree, Because[Rejection] | None]:
    """YARN's get-or-create of a leaf queue at submission (§1.6).

    Returns the tree with ``name`` (and its missing ancestors, as parents) created, and None; or
    the unchanged tree and why it cannot be a leaf ("X is not a leaf queue" in YARN). Queues
    created here are dynamic unless the file configures them.
    """
    full = name if name == ROOT or name.startswith(ROOT + ".") else f"{ROOT}.{name}"
    parts = full.split(".")
    if any(part == "" or part != trim_queue_name(part) for part in parts):
        return tree, Because(Rejection.INVALID_QUEUE_NAME, queue=full)
    if full in tree:
        existing = tree[full]
        return (tree, None) if existing.is_leaf else (
            tree, Because(Rejection.NOT_A_LEAF, queue=full))
    for depth in range(2, len(parts) + 1):
        prefix = ".".join(parts[:depth])
        if prefix in tree:
            continue
        leaf = depth == len(parts)
        problem = tree.creation_problem(prefix, leaf)
        if problem is not None:
            return tree, Because(Rejection.CANNOT_CREATE, queue=full, prefix=prefix,
                                 problem=problem)
        tree = tree.with_queue(prefix, is_leaf=leaf, dynamic=tree.config.queue(prefix) is None)
    return tree, None

"""What every step reads and none writes: the configuration, the queue tree and what follows
from them.

:class:`Context` holds yarn-site, the allocation file, the queue tree and its ACLs, and answers the
questions the steps ask of them (a queue's settings, ancestry, effective max share, policy
calculator, AM limit). No step changes it but through ``Scheduler.set_tree``, which replaces the
tree on a reload or when a dynamic queue is created, and gives new queues their records. The memos
here are of pure functions of their inputs, never state: a memo that is dropped is recomputed to the
same value. The § numbers cited here are sections of docs/semantics.md.
"""

from __future__ import annotations

from fairshare.config.acl import QueueAcls, queue_acls
from fairshare.config.model import AllocationConfig, PlacementPolicy
from fairshare.config.placement.policy import generated_policy
from fairshare.config.yarnsite import SiteConfig
from fairshare.core.model.queue_settings import QueueSettings
from fairshare.core.model.tree import QueueTree, build_queue_tree
from fairshare.core.rules.am_share import max_am_resource
from fairshare.core.rules.policies import calculator_for
from fairshare.resources.calc import ResourceCalculator
from fairshare.resources.vector import Resource, ResourceTypes, unbounded_like

# a leaf's AM limit and what it was computed from (fair share, max share, root available,
# maxAMShare), by identity: vectors are replaced, never changed in place
_AmLimit = tuple[Resource, Resource, Resource, float, Resource]


class Context:
    """Configuration, queue tree and their derived answers; read-only to every step."""

    def __init__(self, site: SiteConfig, allocations: AllocationConfig) -> None:
        self.site = site
        self.types: ResourceTypes = site.resource_types
        self.none = self.types.none()
        self.unbounded = unbounded_like(self.none)
        self.reservation_threshold = site.reservation_threshold  # computed once (§3.6.5)
        self.allocations = allocations
        self.acls: QueueAcls = queue_acls(allocations)
        self.tree = build_queue_tree(allocations, self.types)
        self._forget_tree()
        self._cluster: Resource | None = None
        self._am_limits: dict[str, _AmLimit] = {}

    @property
    def placement_policy(self) -> PlacementPolicy:
        """The file's rules, or the ones yarn-site generates when it has none (§1.5.4)."""
        if self.allocations.placement_policy is not None:
            return self.allocations.placement_policy
        return generated_policy(self.site.user_as_default_queue, self.site.allow_undeclared_pools)

    @property
    def preemption_enabled(self) -> bool:
        """The preemption thread exists only when enabled and not in migration mode (§1.1)."""
        return self.site.preemption and not self.site.migration_mode

    def set_tree(self, tree: QueueTree, allocations: AllocationConfig | None = None) -> None:
        """A new queue tree (and, on a reload, the allocation file it came from)."""
        if allocations is not None:
            self.allocations = allocations
            self.acls = queue_acls(allocations)
        self.tree = tree
        self._forget_tree()

    def _forget_tree(self) -> None:
        self._ancestry: dict[str, tuple[str, ...]] = {}
        self._limited: dict[str, bool] = {}
        self._max_shares: dict[str, Resource] = {}

    def settings(self, queue: str) -> QueueSettings:
        return self.tree[queue].settings

    def calc(self, queue: str) -> ResourceCalculator:
        return calculator_for(self.settings(queue).policy)

    def ancestry(self, queue: str) -> tuple[str, ...]:
        """``queue`` and its ancestors, leaf first."""
        cached = self._ancestry.get(queue)
        if cached is None:
            parts = queue.split(".")
            cached = tuple(".".join(parts[:i]) for i in range(len(parts), 0, -1))
            self._ancestry[queue] = cached
        return cached

    def max_share_in(self, queue: str, cluster: Resource) -> Resource:
        """Effective max share (§2.8) in a cluster of ``cluster``; remembered per cluster
        size, as every walk reads it at every level."""
        if cluster is not self._cluster:
            self._cluster, self._max_shares = cluster, {}
        share = self._max_shares.get(queue)
        if share is None:
            share = self.settings(queue).effective_max_share(cluster)
            self._max_shares[queue] = share
        return share

    def max_share_above(self, queue: str) -> bool:
        """Is a max share configured on ``queue`` or an ancestor? If not, ``fitsInMaxShare``
        cannot fail below it, whatever the usage."""
        limited = self._limited.get(queue)
        if limited is None:
            limited = any(self.settings(q).max_share is not None for q in self.ancestry(queue))
            self._limited[queue] = limited
        return limited

    def am_limit(self, queue: str, fair_share: Resource, max_share: Resource,
                 available: Resource) -> Resource:
        """The leaf's AM limit as ``canRunAppAM`` computes it (§3.6.4); every AM check of a
        walk asks, and between two updates the inputs rarely change."""
        share = self.settings(queue).max_am_share
        kept = self._am_limits.get(queue)
        if (kept is not None and kept[0] is fair_share and kept[1] is max_share
                and kept[2] is available and kept[3] == share):
            return kept[4]
        limit = max_am_resource(fair_share, max_share, available, share)
        self._am_limits[queue] = (fair_share, max_share, available, share, limit)
        return limit

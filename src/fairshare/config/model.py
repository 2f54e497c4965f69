"""Frozen configuration objects: what a parsed ``fair-scheduler.xml`` says
(docs/semantics.md §1.3–§1.5).

These hold *configured* values only, exactly as written (after YARN's parse-time clamps and the
float32 rounding of §0.2); ``None`` means "not set here". Inheritance (§1.3.3) and defaults are
applied when the queue tree is built (``fairshare.core.model.tree``), because a dynamic queue
inherits from whatever its parent is at the time it is created.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from types import MappingProxyType

from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import INT_MAX, LONG_MAX, Resource


class PolicyName(StrEnum):
    """Scheduling policies (§2.6). The value is our lower-case name; see :attr:`yarn_name`."""

    FAIR = "fair"
    DRF = "drf"
    FIFO = "fifo"

    @property
    def yarn_name(self) -> str:
        """The name YARN reports in REST and metrics: ``fair``, ``DRF``, ``FIFO``."""
        return {"fair": "fair", "drf": "DRF", "fifo": "FIFO"}[self.value]


@dataclass(frozen=True, slots=True)
class QueueConfig:
    """One ``<queue>`` (or ``<pool>``) element, configured values only."""

    name: str  # full dotted name, e.g. "root.a.b"
    is_parent: bool  # nested queue elements, type="parent", or a reservation plan queue
    line: int | None = None
    weight: float | None = None  # float32-rounded
    min_resources: Resource | None = None  # percentages already mapped to None (§1.3.2)
    max_resources: ConfigurableResource | None = None
    max_child_resources: ConfigurableResource | None = None
    max_container_allocation: Resource | None = None  # percentages mapped to None
    max_running_apps: int | None = None
    max_am_share: float | None = None  # float32, already min(v, 1.0)
    scheduling_policy: PolicyName | None = None
    min_share_preemption_timeout_ms: int | None = None
    fair_share_preemption_timeout_ms: int | None = None
    fair_share_preemption_threshold: float | None = None  # float32, clamped to [0, 1]
    allow_preemption_from: bool | None = None
    acl_submit_apps: str | None = None  # not trimmed (§1.3.2)
    acl_administer_apps: str | None = None
    acl_administer_reservations: str | None = None
    acl_list_reservations: str | None = None
    acl_submit_reservations: str | None = None
    reservation: bool = False  # a plan queue (§1.8)
    # True for a top-level <queue name="Root"> (root in another case) and the queues inside it:
    # YARN stores their settings under "Root..." but creates "root.Root...", so none apply and
    # they have no ACL entry of their own (§1.3.2). Every setting above is then None.
    settings_ignored: bool = False

    @property
    def parent_name(self) -> str | None:
        return self.name.rsplit(".", 1)[0] if "." in self.name else None


class RuleName(StrEnum):
    """Placement rule names (§1.5.2), case-sensitive as in YARN (§1.5.3)."""

    SPECIFIED = "specified"
    USER = "user"
    PRIMARY_GROUP = "primaryGroup"
    SECONDARY_GROUP_EXISTING_QUEUE = "secondaryGroupExistingQueue"
    NESTED_USER_QUEUE = "nestedUserQueue"
    DEFAULT = "default"
    REJECT = "reject"


@dataclass(frozen=True, slots=True)
class PlacementRule:
    """One ``<rule>`` of a placement policy, possibly with a nested (parent) rule."""

    name: RuleName
    create: bool = True
    queue: str | None = None  # the `default` rule's queue attribute, as written
    parent: PlacementRule | None = None
    line: int | None = None

    @property
    def terminal(self) -> bool:
        """Whether this rule always places or rejects (§1.5.2 table, §1.5.3)."""
        own = {
            RuleName.SPECIFIED: False,
            RuleName.SECONDARY_GROUP_EXISTING_QUEUE: False,
            RuleName.REJECT: True,
        }.get(self.name, self.create)
        if self.parent is not None:
            return own and self.parent.terminal
        return own


@dataclass(frozen=True, slots=True)
class PlacementPolicy:
    rules: tuple[PlacementRule, ...]
    generated: bool = False  # built from yarn-site because the file has none (§1.5.4)


@dataclass(frozen=True, slots=True)
class ConfigWarning:
    """A finding about a configuration that loads: a warning YARN would only log, or one of
    fairshare's checks (``fairshare lint``). ``message`` says what is configured;
    ``consequence`` what YARN will do with it and ``fix`` what to write instead, when known.
    ``severity`` is ``error`` (YARN will not run applications as intended), ``warning`` or
    ``info``; ``code`` names the check, stable for CI (docs/lint.md). ``queue`` is the full name
    of the queue the finding is about, when it is about one (checks of the whole configuration
    refine such findings: a closed queue, a timeout that applies to no min share)."""

    message: str
    file: str | None = None
    line: int | None = None
    code: str = "config"
    severity: str = "warning"
    consequence: str = ""
    fix: str = ""
    queue: str | None = None

    def __str__(self) -> str:
        where = ":".join(str(p) for p in (self.file, self.line) if p)
        head = f"{self.severity}: {self.message}"
        if self.consequence:  # a message that ends a sentence (a question) takes no colon
            head += (" " if self.message.endswith(("?", ".", "!")) else ": ") + self.consequence
        return f"{where}: {head}" if where else head


def _frozen_map(m: Mapping[str, int] | None = None) -> Mapping[str, int]:
    return MappingProxyType(dict(m or {}))


@dataclass(frozen=True, slots=True)
class AllocationConfig:
    """A parsed allocation file (or YARN's defaults when there is none: ``has_file=False``)."""

    queues: tuple[QueueConfig, ...] = ()  # document order; a parent precedes its children
    user_max_apps: Mapping[str, int] = field(default_factory=_frozen_map)
    user_max_apps_default: int = INT_MAX
    queue_max_apps_default: int = INT_MAX
    queue_max_resources_default: ConfigurableResource | None = None  # None = unbounded
    queue_max_am_share_default: float = 0.5
    default_scheduling_policy: PolicyName = PolicyName.FAIR
    default_min_share_preemption_timeout_ms: int | None = None
    default_fair_share_preemption_timeout_ms: int | None = None
    default_fair_share_preemption_threshold: float | None = None
    placement_policy: PlacementPolicy | None = None  # None = generate from yarn-site (§1.5.4)
    placement_update_ignored: bool = False  # <queuePlacementPolicy> with no <rule>s (§1.5.3)
    reservation_agent: str | None = None
    reservation_policy: str | None = None
    reservation_planner: str | None = None
    source: str | None = None
    has_file: bool = False
    warnings: tuple[ConfigWarning, ...] = ()
    _by_name: Mapping[str, QueueConfig] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        # An index by name, so the tree builder's per-queue lookups stay O(1).
        object.__setattr__(self, "_by_name", {q.name: q for q in self.queues})

    def queue(self, name: str) -> QueueConfig | None:
        return self._by_name.get(name)

    @property
    def queue_names(self) -> tuple[str, ...]:
        return tuple(q.name for q in self.queues)


# The "not set" sentinels and defaults of §1.3.3, for the tree builder.
TIMEOUT_NEVER_MS = LONG_MAX
UNSET_TIMEOUT_MS = -1
UNSET_THRESHOLD = -1.0
DEFAULT_FAIR_SHARE_PREEMPTION_THRESHOLD = 0.5

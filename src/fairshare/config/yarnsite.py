"""yarn-site.xml settings the Fair Scheduler reads (docs/semantics.md §1.1) and its init-time
checks (§1.7).

Values are read with Hadoop's ``Configuration`` rules (``fairshare.config.hadoopconf``): later
definitions win unless final, ``${var}`` expands, numbers parse as Java does, and a boolean that is
neither ``true`` nor ``false`` quietly means the default. On top of that this module applies what
``FairScheduler.initScheduler`` / ``validateConf`` and ``AllocationFileLoaderService`` check.
Every problem is collected and raised at once
(:class:`~fairshare.config.errors.ConfigErrors` when there are several), located at the
property's file and line; odd-but-legal settings become warnings.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.config.hadoopconf import (
    OVERRIDES,
    ConfEntry,
    ConfReader,
    SubstitutionTooDeep,
    java_string,
    read_entries,
    read_site_xml,
    substitute,
)
from fairshare.config.lint.site_keys import (
    AM_PREEMPTION_PREFIX,
    FAIR,
    KNOWN_FAIR,
    warn_unknown_keys,
)
from fairshare.config.model import ConfigWarning
from fairshare.resources.javalang import shorten, trimmed_strings, wrap_int
from fairshare.resources.units import value_in_unit
from fairshare.resources.vector import (
    DEFAULT_TYPES,
    LONG_MAX,
    MEMORY,
    VCORES,
    Resource,
    ResourceTypes,
    float32,
    multiply,
)

__all__ = ["FAIR_SCHEDULER_CLASS", "SITE_KEY_PREFIXES", "SiteConfig", "known_site_keys",
           "load_site", "read_site_xml"]

FAIR_SCHEDULER_CLASS = "org.apache.hadoop.yarn.server.resourcemanager.scheduler.fair.FairScheduler"
_SCHEMES = frozenset({"hdfs", "file", "s3a", "viewfs"})  # §1.1, case-insensitive
_ALNUM_LABEL = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
# YARN's resource type names: an optional DNS-like prefix ending in "/", then a letter first
RESOURCE_NAME = re.compile(rf"(?:(?:{_ALNUM_LABEL}\.)*{_ALNUM_LABEL}/)?[A-Za-z][A-Za-z0-9_.-]*")
_DEFAULT_MIN = Resource((1024, 1))
_DEFAULT_MAX = Resource((8192, 4))


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class SiteConfig:
    """The yarn-site settings of §1.1 as the Fair Scheduler holds them after init.

    Float settings are float32-rounded (§0.2). ``locality_threshold_*`` are already clamped to
    at most 1.0 (YARN clamps at each use; the result is the same). ``no_terminal_rule_check`` is the
    effective flag: it is honoured only in migration mode. ``raw`` holds every property as
    ``Configuration.get`` returns it (substituted, untrimmed).
    """

    resource_types: ResourceTypes = DEFAULT_TYPES
    allocation_file: str = "fair-scheduler.xml"
    user_as_default_queue: bool = True
    allow_undeclared_pools: bool = True
    preemption: bool = False
    preemption_cluster_utilization_threshold: float = float32(0.8)
    am_preemption: bool = True
    am_preemption_per_queue: Mapping[str, bool] = field(default_factory=_empty, hash=False)
    wait_time_before_kill_ms: int = 15000
    wait_time_before_next_starvation_check_ms: int = 10000
    assign_multiple: bool = False
    dynamic_max_assign: bool = True
    max_assign: int = -1
    size_based_weight: bool = False
    locality_threshold_node: float = -1.0
    locality_threshold_rack: float = -1.0
    update_interval_ms: int = 500
    reservable_nodes: float = float32(0.05)
    continuous_scheduling_enabled: bool = False
    continuous_scheduling_sleep_ms: int = 5
    locality_delay_node_ms: int = -1
    locality_delay_rack_ms: int = -1
    migration_mode: bool = False
    no_terminal_rule_check: bool = False
    scheduler_class: str | None = None
    minimum_allocation: Resource = _DEFAULT_MIN
    maximum_allocation: Resource = _DEFAULT_MAX
    increment_allocation: Resource = _DEFAULT_MIN
    reservation_threshold_increment_multiple: float = 2.0
    include_port_in_node_name: bool = False
    nm_heartbeat_interval_ms: int = 1000
    # a stopped container's process group gets SIGTERM, then SIGKILL this long after; 0 or
    # less: SIGKILL at once (ContainerCleanup.signalProcess)
    nm_sigkill_delay_ms: int = 250
    acl_enable: bool = False  # yarn.acl.enable: the RM checks queue and app ACLs
    # yarn.admin.acl: who administers the cluster (an AccessControlList string; "*": everyone)
    admin_acl: str = "*"
    # hadoop.user.group.static.mapping.overrides (core-default "dr.who=;"): groups fixed per
    # user ahead of the OS's, read by Groups.parseStaticMapping (user, groups in order)
    static_groups: tuple[tuple[str, tuple[str, ...]], ...] = (("dr.who", ()),)
    scheduling_wait_ms: int = 10000
    # yarn.resourcemanager.recovery.enabled: the RM keeps its state in a store and recovers
    # it at a restart (fairshare serve's --store turns it on too)
    recovery_enabled: bool = False
    work_preserving_recovery: bool = True  # ...work-preserving-recovery.enabled
    # yarn.resourcemanager.max-completed-applications: the ended apps the RM keeps
    # (RMAppManager.checkAppNumCompletedLimit forgets the oldest beyond it)
    max_completed_apps: int = 1000
    # yarn.resourcemanager.state-store.max-completed-applications (by default the RM's
    # yarn.resourcemanager.max-completed-applications, 1000; never more than it)
    state_store_max_completed_apps: int = 1000
    raw: Mapping[str, str] = field(default_factory=_empty, hash=False)
    # where each property in ``raw`` was set: (file, line), for findings about it
    origins: Mapping[str, tuple[str | None, int | None]] = field(default_factory=_empty,
                                                                 hash=False)
    warnings: tuple[ConfigWarning, ...] = ()

    @classmethod
    def default(cls) -> SiteConfig:
        """YARN's defaults: what an empty yarn-site.xml gives."""
        return load_site()

    @property
    def reservation_threshold(self) -> Resource:
        """The smallest container that may reserve: ``multiply(increment, multiple)`` (§3.6.5)."""
        return multiply(self.increment_allocation, self.reservation_threshold_increment_multiple)

    @property
    def delay_scheduling_enabled(self) -> bool:
        """Threshold-based delay scheduling runs unless either threshold is negative (§3.6.3)."""
        return not (self.locality_threshold_node < 0.0 or self.locality_threshold_rack < 0.0)

    def am_preemption_for(self, queue: str) -> bool:
        """May AM containers of apps in ``queue`` (a full name) be preempted? (YARN-9537/10625)"""
        return self.am_preemption_per_queue.get(queue, self.am_preemption)


# --- building the SiteConfig ------------------------------------------------------------------


def load_site(
    path: str | Path | None = None,
    overrides: Mapping[str, object] | None = None,
    *,
    source: str | None = None,
    override_locations: Mapping[str, tuple[str, int | None]] | None = None,
) -> SiteConfig:
    """Read a yarn-site.xml (None: no file), apply ``overrides`` on top, validate (§1.7).

    Overrides act like ``Configuration.set``: they win over the file, ``final`` or not. ``source``
    names the file in messages instead of ``path``; ``override_locations`` says where each
    override was written (a scenario's ``site`` map: its file and line), for the messages about
    it (default ``<overrides>``).
    """
    entries: dict[str, ConfEntry] = {}
    warnings: list[ConfigWarning] = []
    if path is not None:
        entries, warnings = read_entries(path, source or str(path))
    reader = ConfReader(entries, warnings)
    for key, value in (overrides or {}).items():
        file, line = (override_locations or {}).get(key, (OVERRIDES, None))
        try:
            if not isinstance(key, str):
                raise ConfigError(f"override key {key!r} is not a str", file, line)
            entries[key] = ConfEntry(java_string(key, value), file, line)
        except ConfigError as exc:
            reader.errors.append(ConfigError(exc.message, file, line))
    config = _build(reader)
    reader.raise_errors()
    return config


SITE_KEY_PREFIXES = (AM_PREEMPTION_PREFIX, "yarn.resource-types")  # families of properties


@functools.cache
def known_site_keys() -> frozenset[str]:
    """The properties the site reader looks up (those of a file without properties: the
    defaults' lookups) and every Fair Scheduler property, for ``--set site:`` to check against;
    :data:`SITE_KEY_PREFIXES` name the families whose members depend on other properties."""
    seen: set[str] = set()

    class _Recording(ConfReader):
        def get(self, key: str) -> str | None:
            seen.add(key)
            return super().get(key)

    _build(_Recording({}, []))
    return frozenset(seen | {FAIR + suffix for suffix in KNOWN_FAIR})


def _build(r: ConfReader) -> SiteConfig:
    """Read every setting the way ``FairScheduler.initScheduler`` does (§1.1)."""
    warn_unknown_keys(r)
    types = _resource_types(r)
    preemption = r.boolean(FAIR + "preemption", False)
    migration = r.boolean(FAIR + "migration.mode", False)
    # Only the preemption thread reads these three, and it exists only with preemption on and
    # outside migration mode; a value Java cannot parse is then harmless, so it only warns.
    soft = "" if preemption and not migration else "YARN reads it only when preemption runs"
    minimum, maximum = _min_max_allocation(r, types)
    max_completed = r.integer("yarn.resourcemanager.max-completed-applications", 1000)
    return SiteConfig(
        resource_types=types,
        allocation_file=_allocation_file(r),
        user_as_default_queue=r.boolean(FAIR + "user-as-default-queue", True),
        allow_undeclared_pools=r.boolean(FAIR + "allow-undeclared-pools", True),
        preemption=preemption,
        preemption_cluster_utilization_threshold=r.floating(
            FAIR + "preemption.cluster-utilization-threshold", 0.8, soft=soft
        ),
        am_preemption=r.boolean(FAIR + "am.preemption", True),
        am_preemption_per_queue=_am_preemption_per_queue(r),
        wait_time_before_kill_ms=r.integer(FAIR + "waitTimeBeforeKill", 15000, soft=soft),
        wait_time_before_next_starvation_check_ms=r.integer(
            FAIR + "waitTimeBeforeNextStarvationCheck", 10000, bits=64, soft=soft
        ),
        assign_multiple=r.boolean(FAIR + "assignmultiple", False),
        dynamic_max_assign=r.boolean(FAIR + "dynamic.max.assign", True),
        max_assign=r.integer(FAIR + "max.assign", -1),
        size_based_weight=r.boolean(FAIR + "sizebasedweight", False),
        locality_threshold_node=_at_most_one(r.floating(FAIR + "locality.threshold.node", -1.0)),
        locality_threshold_rack=_at_most_one(r.floating(FAIR + "locality.threshold.rack", -1.0)),
        update_interval_ms=_update_interval(r),
        reservable_nodes=r.floating(FAIR + "reservable-nodes", 0.05),
        continuous_scheduling_enabled=r.boolean(FAIR + "continuous-scheduling-enabled", False),
        continuous_scheduling_sleep_ms=r.integer(FAIR + "continuous-scheduling-sleep-ms", 5),
        locality_delay_node_ms=r.integer(FAIR + "locality-delay-node-ms", -1, bits=64),
        locality_delay_rack_ms=r.integer(FAIR + "locality-delay-rack-ms", -1, bits=64),
        migration_mode=migration,
        no_terminal_rule_check=migration and r.boolean(FAIR + "no-terminal-rule.check", False),
        scheduler_class=_scheduler_class(r),
        minimum_allocation=minimum,
        maximum_allocation=maximum,
        increment_allocation=_increment_allocation(r, types),
        reservation_threshold_increment_multiple=r.floating(
            "yarn.scheduler.reservation-threshold.increment-multiple", 2.0
        ),
        include_port_in_node_name=r.boolean("yarn.scheduler.include-port-in-node-name", False),
        nm_heartbeat_interval_ms=r.integer(
            "yarn.resourcemanager.nodemanagers.heartbeat-interval-ms", 1000, bits=64
        ),
        nm_sigkill_delay_ms=r.integer(
            "yarn.nodemanager.sleep-delay-before-sigkill.ms", 250, bits=64
        ),
        acl_enable=r.boolean("yarn.acl.enable", False),
        admin_acl=_string(r, "yarn.admin.acl", "*"),
        static_groups=_static_groups(r),
        scheduling_wait_ms=r.integer(
            "yarn.resourcemanager.work-preserving-recovery.scheduling-wait-ms", 10000, bits=64
        ),
        recovery_enabled=r.boolean("yarn.resourcemanager.recovery.enabled", False),
        work_preserving_recovery=r.boolean(
            "yarn.resourcemanager.work-preserving-recovery.enabled", True),
        max_completed_apps=max_completed,
        # RMAppManager: a state store limit above the memory's is the memory's
        state_store_max_completed_apps=min(max_completed, r.integer(
            "yarn.resourcemanager.state-store.max-completed-applications", max_completed)),
        raw=MappingProxyType({key: _raw_value(r, entry) for key, entry in r.entries.items()}),
        origins=MappingProxyType({key: (e.file, e.line) for key, e in r.entries.items()}),
        warnings=tuple(r.warnings),
    )


def _string(r: ConfReader, key: str, default: str) -> str:
    """``Configuration.get(key, default)``: the value as written (substituted, untrimmed)."""
    value = r.get(key)
    return default if value is None else value


STATIC_GROUPS = "hadoop.user.group.static.mapping.overrides"


def _static_groups(r: ConfReader) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``Groups.parseStaticMapping``: ``user=g1,g2;user2=;`` cut with Java's
    ``StringTokenizer`` (empty pieces skipped, nothing trimmed); a piece that is not one user
    with at most one list of groups (``a=b=c``, ``=``) stops the RM at start
    (``HadoopIllegalArgumentException``). A user named twice: the last wins (a ``HashMap``)."""
    mapping: dict[str, tuple[str, ...]] = {}
    for piece in _tokens(_string(r, STATIC_GROUPS, "dr.who=;"), ";"):
        parts = _tokens(piece, "=")
        if not 1 <= len(parts) <= 2:
            r.error(STATIC_GROUPS, f"Configuration {STATIC_GROUPS} is invalid")
            return ()
        groups = tuple(dict.fromkeys(_tokens(parts[1], ","))) if len(parts) == 2 else ()
        mapping[parts[0]] = groups
    return tuple(mapping.items())


def _tokens(text: str, delimiters: str) -> list[str]:
    """``new StringTokenizer(text, delimiters)``'s tokens: the runs between delimiters."""
    return [t for t in re.split("[" + re.escape(delimiters) + "]", text) if t]


def _raw_value(r: ConfReader, entry: ConfEntry) -> str:
    try:
        return substitute(entry.value, r.entries)
    except SubstitutionTooDeep:  # only an error where YARN reads the key; elsewhere keep the text
        return entry.value


def _at_most_one(threshold: float) -> float:
    return 1.0 if threshold > 1.0 else threshold  # §1.1; NaN passes through, as in Java


def _update_interval(r: ConfReader) -> int:
    key = FAIR + "update-interval-ms"
    interval = r.integer(key, 500, bits=64)
    if interval < 0:
        r.warn(key, f"{key}={interval} is invalid",
               consequence="YARN logs a warning and uses the default, 500 ms",
               fix="a positive interval in ms, e.g. 500")
        return 500
    if interval == 0:  # §1.1: the update thread only starts for a positive interval
        r.warn(key, f"{key}=0: no update thread",
               consequence="AbstractYarnScheduler starts the update thread only for a positive "
               "interval, so fair shares are never recomputed",
               fix="a positive interval in ms, e.g. 500 (YARN's default)")
    return interval


def _allocation_file(r: ConfReader) -> str:
    key = FAIR + "allocation.file"
    path = r.get(key)
    if path is None:
        return "fair-scheduler.xml"
    if not path:
        r.error(key, f"{key} is empty: Can not create a Path from an empty string")
        return path
    colon, slash = path.find(":"), path.find("/")  # Hadoop Path: a colon before any slash
    scheme = path[:colon] if colon != -1 and (slash == -1 or colon < slash) else None
    if scheme is not None and not (scheme.isascii() and scheme.lower() in _SCHEMES):
        r.error(
            key,
            f"Allocation file {shorten(path, 80)} uses an unsupported filesystem (scheme "
            f"{shorten(scheme)!r}; supported: hdfs, file, s3a, viewfs)",
        )
    return path


def _scheduler_class(r: ConfReader) -> str | None:
    key = "yarn.resourcemanager.scheduler.class"
    name = r.trimmed(key)
    if name is not None and name != FAIR_SCHEDULER_CLASS:
        modelled = f"only the Fair Scheduler ({FAIR_SCHEDULER_CLASS}) is modelled"
        r.error(key, f"{key}={shorten(name, 100)}: {modelled}")
    return name


def _am_preemption_per_queue(r: ConfReader) -> Mapping[str, bool]:
    # An unparsable per-queue value falls back to true, not to the global switch (YARN-10625).
    return MappingProxyType(
        {
            key[len(AM_PREEMPTION_PREFIX) :]: r.boolean(key, True)
            for key in r.entries
            if key.startswith(AM_PREEMPTION_PREFIX)
        }
    )


def _resource_types(r: ConfReader) -> ResourceTypes:
    """``yarn.resource-types``: custom countable types, after ResourceUtils' checks."""
    key = "yarn.resource-types"
    custom: list[str] = []
    for name in trimmed_strings(r.get(key) or ""):  # Configuration.getTrimmedStrings
        if not name:
            problem = "Incomplete configuration for resource type ''"
        elif name in custom:
            problem = f"Error in config, key '{shorten(name)}' specified twice"
        elif RESOURCE_NAME.fullmatch(name) is None:
            problem = f"'{shorten(name)}' is not a valid resource name"
        elif name in ("memory", MEMORY, VCORES):
            problem = f"Attempt to re-define mandatory resource '{name}'."
        else:
            custom.append(name)
            continue
        r.error(key, f"{key}: {problem}")
    return ResourceTypes.with_custom(custom)


_MIN, _MAX = "yarn.scheduler.minimum-allocation-", "yarn.scheduler.maximum-allocation-"
_INC = "yarn.scheduler.increment-allocation-"  # the deprecated keys, still the usual ones


def _min_max_allocation(r: ConfReader, types: ResourceTypes) -> tuple[Resource, Resource]:
    """``FairScheduler.validateConf``: 0 <= min <= max for memory and vcores (§1.7)."""
    low = [r.integer(_MIN + "mb", 1024), r.integer(_MIN + "vcores", 1)]
    high = [r.integer(_MAX + "mb", 8192), r.integer(_MAX + "vcores", 4)]
    for what, unit, lo, hi in zip(("memory", "vcores"), ("mb", "vcores"), low, high, strict=True):
        if lo < 0 or lo > hi:
            key = (
                _MIN + unit
                if _MIN + unit in r.entries or _MAX + unit not in r.entries
                else _MAX + unit
            )
            r.error(
                key,
                f"Invalid resource scheduler {what} allocation configuration: "
                f"{_MIN}{unit}={lo}, {_MAX}{unit}={hi}. Both values must be >= 0 and the "
                "maximum must be >= the minimum.",
            )
    custom = len(types) - 2  # custom types: minimum 0, maximum unbounded
    return Resource((*low, *(0,) * custom)), Resource((*high, *(LONG_MAX,) * custom))


def _increment_allocation(r: ConfReader, types: ResourceTypes) -> Resource:
    """``FairSchedulerConfiguration.getIncrementAllocation`` plus its validation (§1.1)."""
    values: dict[str, int] = {}
    for name in types.names:
        key = f"yarn.resource-types.{name}.increment-allocation"
        text = r.get(key)  # untrimmed: the "value [unit]" pattern must match the whole text
        if text is not None and (value := _value_in_default_unit(r, key, text, name)) is not None:
            values[name] = value
    result = []
    for name, legacy, default, bits in ((MEMORY, "mb", 1024, 64), (VCORES, "vcores", 1, 32)):
        key, legacy_key = f"yarn.resource-types.{name}.increment-allocation", _INC + legacy
        if name in values:
            value = values[name] if name == MEMORY else wrap_int(values[name])  # intValue()
            if legacy_key in r.entries:
                r.warn(
                    key,
                    f"Configuration {key}={shorten(r.get(key) or '')} is overriding the "
                    f"{legacy_key}={shorten(r.get(legacy_key) or '')} property",
                    consequence=f"the {legacy_key} value has no effect",
                    fix=f"remove {legacy_key}",
                )
        else:
            key, value = legacy_key, r.integer(legacy_key, default, bits=bits)
        if value <= 0:
            r.error(
                key,
                f"Invalid resource scheduler {'memory' if name == MEMORY else 'vcores'} "
                f"allocation configuration: {key}={value}. Values must be greater than 0.",
            )
        result.append(value)
    # A custom type without an increment is not rounded (a 0 step, §1.1).
    return Resource((*result, *(values.get(name, 0) for name in types.names[2:])))


def _value_in_default_unit(r: ConfReader, key: str, text: str, name: str) -> int | None:
    try:
        value = value_in_unit(text, "Mi" if name == MEMORY else "")
    except ValueError as exc:
        r.error(key, f"{key}={shorten(text)}: {exc}")
        return None
    if value is None:
        r.error(key, f'Property {key} is not in "value [unit]" format: {shorten(text)}')
    return value

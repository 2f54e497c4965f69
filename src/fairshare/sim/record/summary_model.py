"""``summary.json`` as frozen dataclasses: what a simulation writes and every reader reads.

One description of the document (docs/outputs.md "summary.json"), used both ways: the writer
(:func:`fairshare.sim.record.summary.build_summary`) builds a :class:`Summary` and
:func:`summary_json` turns it into the JSON object it always wrote (keys in field order, a
field ``a_b`` as the key ``a-b`` unless its metadata names another); the readers (the report,
``compare``, ``explain``, a sweep's rows, the terminal) get one from
:func:`~fairshare.sim.record.summary_read.parse_summary`, which checks every field's type and
refuses anything else with the field's path.

``schema`` is the document's version: :data:`SCHEMA` is the one written and the only one
read, so a summary from before it (no ``schema``) or from a newer fairshare is refused rather
than half read. Numbers keep their JSON type both ways (a whole number stays an int in a float
field), so reading a summary and writing it again gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any

SCHEMA = 1  # bump when a field changes meaning, type or goes away; docs/outputs.md says which


def _key(name: str) -> dict[str, str]:
    """Metadata naming a field's JSON key where ``a_b`` → ``a-b`` does not."""
    return {"key": name}


@dataclass(frozen=True, slots=True)
class Pair:
    """Memory (MB) and vcores, each a time average."""

    memory_mb: float
    vcores: float


@dataclass(frozen=True, slots=True)
class MaybePair:
    """Memory and vcores, each null where there was nothing to divide by or average over."""

    memory_mb: float | None
    vcores: float | None


@dataclass(frozen=True, slots=True)
class ScenarioEntry:
    name: str
    description: str
    seed: int | None
    overrides: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Span:
    start_ms: int | None  # None: the run took no sample
    end_ms: int | None
    snapshot_every_ms: int
    samples: int


@dataclass(frozen=True, slots=True)
class Counts:
    apps: int
    apps_submitted: int
    apps_rejected: int
    apps_finished: int
    apps_unfinished: int
    containers_allocated: int
    containers_recovered: int  # running when the simulation started (an imported cluster)
    containers_completed: int
    containers_preempted: int
    events: int  # the lines of events.jsonl
    lost_work_ms: int
    preempted_container_ms: int


@dataclass(frozen=True, slots=True)
class ClusterPreemption:
    enabled: bool
    utilization_threshold: float | None  # None: not a finite number


@dataclass(frozen=True, slots=True)
class Cluster:
    capacity: Mapping[str, int]  # at the end, by resource name
    nodes: int
    utilization: MaybePair  # ∫ allocated ÷ ∫ capacity
    average_allocated: Pair
    preemption: ClusterPreemption


@dataclass(frozen=True, slots=True)
class IdleTail:
    """The end of the run in which the cluster had nothing left to run."""

    start_ms: int
    ms: int
    span_without_ms: int
    utilization_without: MaybePair
    usage_factor_without: float


@dataclass(frozen=True, slots=True)
class Contention:
    """A queue's averages over the samples in which it was in contention."""

    ms: int
    usage: MaybePair
    steady_fair_share: MaybePair
    fair_share: MaybePair
    demand: MaybePair


@dataclass(frozen=True, slots=True)
class Percentiles:
    """Nearest-rank percentiles of one wait over a queue's apps (None when it had none)."""

    p50: int | None
    p95: int | None
    max: int | None
    apps: int
    not_reached: int


@dataclass(frozen=True, slots=True)
class WaitCause:
    """One cause and limit of ``waiting`` (fairshare.sim.record.causes names the causes)."""

    cause: str
    limit: str
    ms: int
    share: float
    seqs: tuple[int, ...]  # the first events behind it


@dataclass(frozen=True, slots=True)
class Waiting:
    app_ms: int  # the app-time the queue's apps waited
    causes: tuple[WaitCause, ...]  # largest first


@dataclass(frozen=True, slots=True)
class SettingsOrigins:
    """Where each preemption setting of a queue comes from: the queue itself or the ancestor
    that sets it, ``<element>`` (the file's default), ``YARN default``, ``no allocation
    file``."""

    fair_share_preemption_timeout_ms: str
    fair_share_preemption_threshold: str
    min_share_preemption_timeout_ms: str


@dataclass(frozen=True, slots=True)
class Settings:
    """A queue's effective settings at the end; a timeout None never expires."""

    weight: float | None
    policy: str
    min_share: Mapping[str, int]
    preemptable: bool
    fair_share_preemption_timeout_ms: int | None
    fair_share_preemption_threshold: float | None
    min_share_preemption_timeout_ms: int | None
    set_in: SettingsOrigins


@dataclass(frozen=True, slots=True)
class QueueEntry:
    usage: Pair
    steady_fair_share: Pair
    fair_share: Pair
    usage_to_steady_fair_share: MaybePair
    usage_to_fair_share: MaybePair
    demand: Pair
    time_starved_ms: int
    time_short_of_fair_share_threshold_ms: int
    during_contention: Contention
    am_wait_ms: Percentiles
    first_task_wait_ms: Percentiles
    turnaround_ms: Percentiles
    containers_allocated: int
    containers_recovered: int
    containers_completed: int
    containers_preempted_from: int
    containers_preempted_for: int
    waiting: Waiting
    settings: Settings | None  # None: the queue was gone by the end

    def waits(self) -> dict[str, Percentiles]:
        """The three waits by their summary key (``am-wait-ms``, …)."""
        return {"am-wait-ms": self.am_wait_ms, "first-task-wait-ms": self.first_task_wait_ms,
                "turnaround-ms": self.turnaround_ms}


@dataclass(frozen=True, slots=True)
class AppEntry:
    queue: str | None  # None: never placed
    requested_queue: str
    user: str
    managed: bool
    state: str  # an AppState, or not-submitted
    rejected_reason: str | None
    submit_ms: int | None
    start_ms: int | None
    finish_ms: int | None
    wait_ms: int | None
    run_ms: int | None
    am_wait_ms: int | None
    first_task_wait_ms: int | None
    turnaround_ms: int | None
    unmet_demand_ms: int | None
    tasks_done: int
    tasks_total: int
    preempted_containers: int
    lost_work_ms: int

    def waits(self) -> dict[str, int | None]:
        return {"am-wait-ms": self.am_wait_ms, "first-task-wait-ms": self.first_task_wait_ms,
                "turnaround-ms": self.turnaround_ms}


@dataclass(frozen=True, slots=True)
class ChangeRecord:
    """A timed change of the workload as it happened (sim/run/timed.py's ``Applied``)."""

    t: int
    kind: str
    label: str
    mark: str
    node: str | None
    queues: Mapping[str, tuple[str, ...]]  # queue → what a reload changed of it


@dataclass(frozen=True, slots=True)
class Summary:
    scenario: ScenarioEntry
    span: Span
    counts: Counts
    cluster: Cluster
    idle_tail: IdleTail | None
    queues: Mapping[str, QueueEntry]  # tree order, then queues gone by the end
    apps: Mapping[str, AppEntry]
    changes: tuple[ChangeRecord, ...] = ()
    schema: int = field(default=SCHEMA, metadata=_key("schema"))


# The document's keys in the order written: the schema first, then the fields in order
_FIRST = ("schema",)


# -- writing ------------------------------------------------------------------------------------


def summary_json(summary: Summary) -> dict[str, Any]:
    """The JSON object of ``summary``: ``schema`` first, then the fields in order."""
    doc = _to_json(summary)
    return {key: doc[key] for key in (*_FIRST, *(k for k in doc if k not in _FIRST))}


def as_json(value: object) -> Any:
    """A model value (or a field of one) as its JSON value: objects, lists, numbers."""
    return _to_json(value)


_PLAIN = frozenset({int, float, str, bool, type(None)})
_KEYS: dict[type, tuple[tuple[str, str], ...]] = {}  # model class → (field, JSON key)


def _to_json(value: object) -> Any:
    # by exact type first: a day of 20,000 apps is some million values
    cls = type(value)
    if cls in _PLAIN:
        return value
    keys = _KEYS.get(cls)
    if keys is None and is_dataclass(value) and not isinstance(value, type):
        keys = _KEYS[cls] = tuple((f.name, json_key(f)) for f in fields(value))
    if keys is not None:
        return {key: _to_json(getattr(value, name)) for name, key in keys}
    if isinstance(value, tuple | list):
        return [_to_json(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _to_json(item) for key, item in value.items()}
    return value


def json_key(f: Any) -> str:
    return str(f.metadata.get("key") or f.name.replace("_", "-"))


__all__ = ["SCHEMA", "AppEntry", "ChangeRecord", "Cluster", "ClusterPreemption", "Contention",
           "Counts", "IdleTail", "MaybePair", "Pair", "Percentiles", "QueueEntry", "ScenarioEntry",
           "Settings", "SettingsOrigins", "Span", "Summary", "WaitCause", "Waiting",
           "as_json", "json_key", "summary_json"]

"""The pydantic schema of scenario files (private to :mod:`fairshare.sim.parse.scenario`).

Value types (:mod:`fairshare.sim.parse.schema_values`) carry our own messages. Every model
rejects unknown keys with a did-you-mean: a ``before`` validator replaces the value of each unknown
key by an :class:`_Unknown` marker that the typed ``__pydantic_extra__`` refuses, so the error is
located at the key itself. Resource models (nodes, requests, AMs) instead accept other keys with
integer amounts as custom resource types. :func:`problems_of` turns a ``ValidationError`` into
located :class:`Problem`s.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal, NoReturn, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
    model_validator,
)

from fairshare.config.yarnsite import RESOURCE_NAME
from fairshare.sim.parse.schema_values import (
    DEFAULT_MEMORY_MB,
    DEFAULT_QUEUE,
    DEFAULT_RACK,
    DEFAULT_TASK_PRIORITY,
    DEFAULT_USER,
    DEFAULT_VCORES,
    ContainerCount,
    ExistingFile,
    Flag,
    HeartbeatTimes,
    JavaInt,
    Long,
    Millis,
    Name,
    NodeCount,
    NonNegative,
    Positive,
    PositiveMillis,
    Rack,
    SiteValue,
    TaskCount,
    Text,
    Version,
    Which,
    non_negative,
    refuse,
)
from fairshare.sim.parse.yaml_lines import Loc, Problem, show, suggest

# ---- models: unknown keys, custom resource types -----------------------------------------------


class _Unknown:
    """Stands for the value of an unknown key, so that pydantic reports it at the key's loc."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


def _reject_unknown(value: Any) -> NoReturn:
    refuse(value.message if isinstance(value, _Unknown) else "unknown key", "unknown_key")


def known_value(value: Any) -> Any:
    """``value``, unless it marks an unknown key: then that key's "unknown key" error (for the
    validators of other models' extra keys)."""
    if isinstance(value, _Unknown):
        _reject_unknown(value)
    return value


def fail(message: str) -> NoReturn:
    """A validation error with exactly ``message`` (for validators of other modules)."""
    refuse(message)


def _custom_amount(value: Any) -> int:
    if isinstance(value, _Unknown):
        _reject_unknown(value)
    return non_negative(value)


_KNOWN_KEYS: dict[type, list[str]] = {}  # a model's keys (aliases), by model class


class SchemaModel(BaseModel):
    model_config = ConfigDict(
        extra="allow", alias_generator=lambda name: name.replace("_", "-"), frozen=True
    )
    __pydantic_extra__: dict[str, Annotated[Any, PlainValidator(_reject_unknown)]] = Field(
        init=False
    )
    custom_types: ClassVar[bool] = False  # other keys with integer values are resource types

    @model_validator(mode="before")
    @classmethod
    def _mark_unknown_keys(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        known = _KNOWN_KEYS.get(cls)
        if known is None:  # once per model: a workload may validate 100,000 apps
            known = [field.alias or name for name, field in cls.model_fields.items()]
            _KNOWN_KEYS[cls] = known
        return {
            key: value if key in known or cls._is_custom_type(key, value, known)
            else _Unknown(f"unknown key '{key}'{suggest(key, known)}")
            for key, value in data.items()
        }

    @classmethod
    def _is_custom_type(cls, key: str, value: Any, known: list[str]) -> bool:
        if not cls.custom_types or not RESOURCE_NAME.fullmatch(key):
            return False
        if suggest(key, known, cutoff=0.75):
            return False  # a misspelt known key, not a resource type
        return "/" in key or (isinstance(value, int) and not isinstance(value, bool))


# ---- resources and nodes -----------------------------------------------------------------------


class ResourceModel(SchemaModel):
    """A resource ask (AM or request): defaults are YARN's minimum allocation."""

    custom_types: ClassVar[bool] = True
    __pydantic_extra__: dict[str, Annotated[int, PlainValidator(_custom_amount)]] = Field(
        init=False
    )
    memory_mb: NonNegative = DEFAULT_MEMORY_MB
    vcores: NonNegative = DEFAULT_VCORES

    def resources(self) -> dict[str, int]:
        return {"memory-mb": self.memory_mb, "vcores": self.vcores, **(self.model_extra or {})}


class RequestModel(ResourceModel):
    count: ContainerCount = 1  # YARN's ResourceRequest.numContainers is a Java int
    priority: JavaInt = 1
    locality: Name = "*"
    relax_locality: Flag = True
    duration_ms: Millis | None = None


class TaskModel(ResourceModel):
    """A group of tasks of a workload app (docs/scenario-format.md, "Workload")."""

    count: TaskCount = 1
    duration_ms: Millis
    priority: JavaInt = DEFAULT_TASK_PRIORITY


class RunningModel(ResourceModel):
    """A container running when the scenario starts (an imported cluster): recovered on
    ``node`` as YARN's work-preserving recovery does (docs/import.md)."""

    node: Name
    am: Flag = False
    priority: JavaInt | None = None  # default: 0 for the AM, a task's default priority else
    remaining_ms: Millis | None = None
    container: Name | None = None

    @model_validator(mode="after")
    def _task_needs_time(self) -> Self:
        if not self.am and self.remaining_ms is None:
            refuse("a running task needs 'remaining-ms' (how much longer it runs)")
        return self


class WorkloadAppModel(SchemaModel):
    id: Name
    at_ms: Millis = 0
    queue: Name = DEFAULT_QUEUE
    user: Name = DEFAULT_USER
    am: ResourceModel | None = None
    tasks: tuple[TaskModel, ...] = ()
    running: tuple[RunningModel, ...] = ()

    @model_validator(mode="after")
    def _one_am_of_a_managed_app(self) -> Self:
        ams = sum(c.am for c in self.running)
        if ams > 1:
            refuse(f"'running' has {ams} AM containers; an attempt has one")
        if ams and self.am is None:
            refuse("'running' has an AM container but the app has no 'am' (unmanaged)")
        return self


def _synth_time_unit(value: Any) -> Literal["s", "ms"]:
    if value == "s":
        return "s"
    if value == "ms":
        return "ms"
    refuse(f"must be s (task times in seconds, as SLS documents them) or ms (as SLS reads them), "
          f"got {show(value)}")


class WorkloadModel(SchemaModel):
    apps: list[Any] | None = None  # each entry is validated on its own as a WorkloadAppModel
    sls: ExistingFile | None = None
    sls_nodes: ExistingFile | None = None
    synth: ExistingFile | None = None
    csv: ExistingFile | None = None
    # the unit of SYNTH task times (docs/workloads.md, "SLS SYNTH descriptions")
    synth_time_unit: Annotated[Literal["s", "ms"], PlainValidator(_synth_time_unit)] = "s"
    changes: list[Any] | None = None  # each entry is validated on its own (sim/parse/timed_spec.py)


class NodeResourceModel(ResourceModel):
    memory_mb: NonNegative
    vcores: NonNegative


class NodeModel(NodeResourceModel):
    """An entry of ``cluster.nodes``: one node (``name``) or a template (``count``, ``prefix``)."""

    name: Name | None = None
    rack: Rack = DEFAULT_RACK
    count: NodeCount | None = None
    prefix: Name | None = None

    @model_validator(mode="after")
    def _node_or_template(self) -> Self:
        template = self.count is not None or self.prefix is not None
        if template and self.name is not None:
            refuse("give 'name' (one node) or 'count' and 'prefix' (a template), not both")
        if template and (self.count is None or self.prefix is None):
            refuse(f"a node template needs '{'count' if self.count is None else 'prefix'}' too")
        if not template and self.name is None:
            refuse("missing required key 'name' (or 'count' and 'prefix' for a template)")
        return self

    def names(self) -> list[str]:
        if self.name is not None:
            return [self.name]
        return [f"{self.prefix}{i}" for i in range(1, (self.count or 0) + 1)]


# ---- steps -------------------------------------------------------------------------------------


class AddNodeModel(NodeResourceModel):
    name: Name
    rack: Rack = DEFAULT_RACK


class ResizeNodeModel(NodeResourceModel):
    name: Name


class NodeNameModel(SchemaModel):
    name: Name


class SubmitModel(SchemaModel):
    app: Name
    queue: Name = DEFAULT_QUEUE
    user: Name = DEFAULT_USER
    am: ResourceModel | None = None
    requests: tuple[RequestModel, ...] = ()
    recovering: Flag = False  # re-added after an RM restart: its AM is not asked for


class RecoverContainerModel(ResourceModel):
    """The ``recover-container`` step: a running container reported by its node."""

    app: Name
    node: Name
    am: Flag = False
    priority: JavaInt | None = None  # default: 0 for the AM, a task's default priority else
    container: Name | None = None


class RequestStepModel(SchemaModel):
    app: Name
    requests: tuple[RequestModel, ...]


class NoArgsModel(SchemaModel):
    pass


class HeartbeatModel(SchemaModel):
    node: Name
    times: HeartbeatTimes = 1


class AdvanceModel(SchemaModel):
    ms: Millis


class ReleaseModel(SchemaModel):
    app: Name
    count: Positive = 1
    which: Which = "newest"


class AppModel(SchemaModel):
    app: Name


class ReloadModel(SchemaModel):
    allocations: Text | None = None
    allocations_file: ExistingFile | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> Self:
        if (self.allocations is None) == (self.allocations_file is None):
            refuse("give exactly one of 'allocations' and 'allocations-file'")
        return self


class MoveModel(SchemaModel):
    app: Name
    queue: Name


class SnapshotModel(SchemaModel):
    label: Text | None = None


# ---- top level ---------------------------------------------------------------------------------


class ClockModel(SchemaModel):
    start_ms: Millis = 0


class RunModel(SchemaModel):
    until_ms: Millis | None = None
    snapshot_every_ms: PositiveMillis = 1000
    heartbeat_interval_ms: PositiveMillis | None = None


class ClusterModel(SchemaModel):
    nodes: list[Any] | None = None  # each entry is validated on its own as a NodeModel


class ScenarioModel(SchemaModel):
    version: Version
    name: Text | None = None
    description: Text | None = None
    seed: Long = 0
    site: dict[str, SiteValue] | None = None
    site_file: ExistingFile | None = None
    allocations: Text | None = None
    allocations_file: ExistingFile | None = None
    cluster: ClusterModel | None = None
    groups: dict[str, tuple[Name, ...]] | None = None
    clock: ClockModel | None = None
    steps: list[Any] | None = None  # each step is validated on its own
    workload: WorkloadModel | None = None
    run: RunModel | None = None


# ---- errors ------------------------------------------------------------------------------------

_MAP_ERRORS = frozenset({"model_type", "model_attributes_type", "dict_type"})
_LIST_ERRORS = frozenset({"list_type", "tuple_type"})


def problems_of(error: ValidationError, prefix: Loc) -> list[Problem]:
    """A pydantic error as problems located under ``prefix``."""
    problems = []
    for item in error.errors(include_url=False):
        loc: Loc = (*prefix, *item["loc"])
        kind, message = item["type"], item.get("ctx", {}).get("message", item["msg"])
        if kind == "missing":
            problems.append(Problem(loc, f"missing required key '{loc[-1]}'", parent=True))
        elif kind == "unknown_key":
            problems.append(Problem(loc, message, parent=True))
        elif kind in _MAP_ERRORS:
            problems.append(Problem(loc, f"must be a map, got {show(item['input'])}"))
        elif kind in _LIST_ERRORS:
            problems.append(Problem(loc, f"must be a list, got {show(item['input'])}"))
        else:
            problems.append(Problem(loc, str(message)))
    return problems

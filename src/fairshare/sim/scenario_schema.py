"""The pydantic schema of scenario files (private to :mod:`fairshare.sim.scenario`).

Value types carry our own messages (``must be a non-negative integer, got 'lots'``). Every model
rejects unknown keys with a did-you-mean: a ``before`` validator replaces the value of each unknown
key by an :class:`_Unknown` marker that the typed ``__pydantic_extra__`` refuses, so the error is
located at the key itself. Resource models (nodes, requests, AMs) instead accept other keys with
integer amounts as custom resource types. :func:`problems_of` turns a ``ValidationError`` into
located :class:`Problem`s.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal, NoReturn, Self

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError

from fairshare.config.files import file_problem
from fairshare.config.yarnsite import RESOURCE_NAME
from fairshare.core import MAX_TIME_MS
from fairshare.resources.vector import INT_MAX, LONG_MAX, LONG_MIN
from fairshare.sim.yaml_lines import Loc, Problem, not_a_string, scalar_text, show, suggest

DEFAULT_RACK = "/default-rack"
DEFAULT_QUEUE = "default"
DEFAULT_USER = "nobody"
DEFAULT_MEMORY_MB = 1024  # YARN's yarn.scheduler.minimum-allocation-mb
DEFAULT_VCORES = 1  # YARN's yarn.scheduler.minimum-allocation-vcores
DEFAULT_TASK_PRIORITY = 20  # MapReduce's map priority, as SLS gives its tasks
MAX_NODES = 100_000  # nodes of the cluster section, templates expanded
MAX_TASKS_PER_GROUP = 10_000_000  # a workload task group: each task is a simulated container
MAX_HEARTBEATS_PER_STEP = 1_000_000  # node heartbeats of one heartbeat step (times × nodes)


def _fail(message: str, kind: str = "scenario") -> NoReturn:
    raise PydanticCustomError(kind, "{message}", {"message": message})


def _integer(value: Any, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        _fail(f"must be {what}, got {show(value)}")
    return value


def _non_negative(value: Any) -> int:
    return _integer(value, 0, LONG_MAX, "a non-negative integer")


def _positive(value: Any) -> int:
    return _integer(value, 1, LONG_MAX, "a positive integer")


def _capped(value: Any, low: int, high: int, what: str, cap: str) -> int:
    """``_integer``'s message below ``low`` (or not an integer); above ``high``, why the cap."""
    if isinstance(value, int) and not isinstance(value, bool) and value > high:
        _fail(f"must be at most {high:,} ({cap}), got {show(value)}")
    return _integer(value, low, high, what)


_CLOCK_CAP = "the clock's limit, 2^53 - 1 ms"


def _millis(value: Any) -> int:
    return _capped(value, 0, MAX_TIME_MS, "a non-negative integer", _CLOCK_CAP)


def _positive_millis(value: Any) -> int:
    return _capped(value, 1, MAX_TIME_MS, "a positive integer", _CLOCK_CAP)


def _container_count(value: Any) -> int:
    return _capped(value, 1, INT_MAX, "a positive integer", "a Java int, as in YARN")


def _task_count(value: Any) -> int:
    return _capped(value, 1, MAX_TASKS_PER_GROUP, "a positive integer", "tasks in one group")


def _heartbeat_times(value: Any) -> int:
    return _capped(value, 1, MAX_HEARTBEATS_PER_STEP, "a positive integer",
                   "node heartbeats in one step")


def _node_count(value: Any) -> int:
    return _integer(value, 1, MAX_NODES, f"an integer from 1 to {MAX_NODES}")


def _java_int(value: Any) -> int:
    return _integer(value, -INT_MAX - 1, INT_MAX, "an integer")


def _long(value: Any) -> int:
    return _integer(value, LONG_MIN, LONG_MAX, "an integer")


def _version(value: Any) -> int:
    return _integer(value, 1, 1, "1 (the only version so far)")


def _text(value: Any) -> str:
    text = scalar_text(value)
    if text is None:
        _fail(not_a_string(value))
    return text


def _name(value: Any) -> str:
    text = _text(value)
    if not text.strip():
        _fail(f"must be a non-empty name, got {show(text)}")
    return text


def _rack(value: Any) -> str:
    text = _name(value)
    if not text.startswith("/"):
        _fail(f"must start with '/' (like {DEFAULT_RACK}), got {show(text)}")
    return text


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        _fail(f"must be true or false, got {show(value)}")
    return value


def _site_value(value: Any) -> Any:
    if value is None or isinstance(value, dict | list):
        _fail(f"must be a single value (text, number or boolean), got {show(value)}")
    return value


def _which(value: Any) -> str:
    choices = ("newest", "oldest", "am")
    if value not in choices:
        _fail(f"must be newest, oldest or am, got {show(value)}{suggest(str(value), choices)}")
    return str(value)


def _existing_file(value: Any, info: ValidationInfo) -> Path:
    text = _name(value)
    base = info.context["base_dir"] if isinstance(info.context, dict) else Path()
    try:
        path = (Path(base) / text).resolve()
    except (OSError, ValueError, RuntimeError):
        _fail(f"not a usable path: {show(text)}")
    problem = file_problem(path)  # a regular file only: never a FIFO, never /dev/zero
    if problem is not None:
        _fail(f"{'file not found' if problem.kind == 'missing' else problem.reason}: {path}")
    return path


NonNegative = Annotated[int, PlainValidator(_non_negative)]
Positive = Annotated[int, PlainValidator(_positive)]
NodeCount = Annotated[int, PlainValidator(_node_count)]
Millis = Annotated[int, PlainValidator(_millis)]
PositiveMillis = Annotated[int, PlainValidator(_positive_millis)]
ContainerCount = Annotated[int, PlainValidator(_container_count)]
TaskCount = Annotated[int, PlainValidator(_task_count)]
HeartbeatTimes = Annotated[int, PlainValidator(_heartbeat_times)]
JavaInt = Annotated[int, PlainValidator(_java_int)]
Long = Annotated[int, PlainValidator(_long)]
Version = Annotated[int, PlainValidator(_version)]
Text = Annotated[str, PlainValidator(_text)]
Name = Annotated[str, PlainValidator(_name)]
Rack = Annotated[str, PlainValidator(_rack)]
Flag = Annotated[bool, PlainValidator(_flag)]
SiteValue = Annotated[Any, PlainValidator(_site_value)]
Which = Annotated[Literal["newest", "oldest", "am"], PlainValidator(_which)]
ExistingFile = Annotated[Path, PlainValidator(_existing_file)]


# ---- models: unknown keys, custom resource types -----------------------------------------------


class _Unknown:
    """Stands for the value of an unknown key, so that pydantic reports it at the key's loc."""

    __slots__ = ("message",)

    def __init__(self, message: str) -> None:
        self.message = message


def _reject_unknown(value: Any) -> NoReturn:
    _fail(value.message if isinstance(value, _Unknown) else "unknown key", "unknown_key")


def known_value(value: Any) -> Any:
    """``value``, unless it marks an unknown key: then that key's "unknown key" error (for the
    validators of other models' extra keys)."""
    if isinstance(value, _Unknown):
        _reject_unknown(value)
    return value


def fail(message: str) -> NoReturn:
    """A validation error with exactly ``message`` (for validators of other modules)."""
    _fail(message)


def _custom_amount(value: Any) -> int:
    if isinstance(value, _Unknown):
        _reject_unknown(value)
    return _non_negative(value)


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
            _fail("a running task needs 'remaining-ms' (how much longer it runs)")
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
            _fail(f"'running' has {ams} AM containers; an attempt has one")
        if ams and self.am is None:
            _fail("'running' has an AM container but the app has no 'am' (unmanaged)")
        return self


def _synth_time_unit(value: Any) -> Literal["s", "ms"]:
    if value == "s":
        return "s"
    if value == "ms":
        return "ms"
    _fail(f"must be s (task times in seconds, as SLS documents them) or ms (as SLS reads them), "
          f"got {show(value)}")


class WorkloadModel(SchemaModel):
    apps: list[Any] | None = None  # each entry is validated on its own as a WorkloadAppModel
    sls: ExistingFile | None = None
    sls_nodes: ExistingFile | None = None
    synth: ExistingFile | None = None
    csv: ExistingFile | None = None
    # the unit of SYNTH task times (docs/workloads.md, "SLS SYNTH descriptions")
    synth_time_unit: Annotated[Literal["s", "ms"], PlainValidator(_synth_time_unit)] = "s"
    changes: list[Any] | None = None  # each entry is validated on its own (sim/timed_spec.py)


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
            _fail("give 'name' (one node) or 'count' and 'prefix' (a template), not both")
        if template and (self.count is None or self.prefix is None):
            _fail(f"a node template needs '{'count' if self.count is None else 'prefix'}' too")
        if not template and self.name is None:
            _fail("missing required key 'name' (or 'count' and 'prefix' for a template)")
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
            _fail("give exactly one of 'allocations' and 'allocations-file'")
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

"""The value types of scenario files: integers in range, names, racks, flags, durations,
existing files — each with our own message (``must be a non-negative integer, got 'lots'``) —
and the limits and defaults they apply (used by :mod:`fairshare.sim.parse.scenario_schema` and
the workload sources)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal, NoReturn

from pydantic import PlainValidator, ValidationInfo
from pydantic_core import PydanticCustomError

from fairshare.config.files import file_problem
from fairshare.core import MAX_TIME_MS
from fairshare.resources.vector import INT_MAX, LONG_MAX, LONG_MIN
from fairshare.sim.parse.yaml_lines import not_a_string, scalar_text, show, suggest

DEFAULT_RACK = "/default-rack"
DEFAULT_QUEUE = "default"
DEFAULT_USER = "nobody"
DEFAULT_MEMORY_MB = 1024  # YARN's yarn.scheduler.minimum-allocation-mb
DEFAULT_VCORES = 1  # YARN's yarn.scheduler.minimum-allocation-vcores
DEFAULT_TASK_PRIORITY = 20  # MapReduce's map priority, as SLS gives its tasks
MAX_NODES = 100_000  # nodes of the cluster section, templates expanded
MAX_TASKS_PER_GROUP = 10_000_000  # a workload task group: each task is a simulated container
MAX_HEARTBEATS_PER_STEP = 1_000_000  # node heartbeats of one heartbeat step (times × nodes)


def refuse(message: str, kind: str = "scenario") -> NoReturn:
    """Refuse a value with our own message (a pydantic error of ``kind``)."""
    raise PydanticCustomError(kind, "{message}", {"message": message})


def _integer(value: Any, low: int, high: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        refuse(f"must be {what}, got {show(value)}")
    return value


def non_negative(value: Any) -> int:
    return _integer(value, 0, LONG_MAX, "a non-negative integer")


def _positive(value: Any) -> int:
    return _integer(value, 1, LONG_MAX, "a positive integer")


def _capped(value: Any, low: int, high: int, what: str, cap: str) -> int:
    """``_integer``'s message below ``low`` (or not an integer); above ``high``, why the cap."""
    if isinstance(value, int) and not isinstance(value, bool) and value > high:
        refuse(f"must be at most {high:,} ({cap}), got {show(value)}")
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
        refuse(not_a_string(value))
    return text


def _name(value: Any) -> str:
    text = _text(value)
    if not text.strip():
        refuse(f"must be a non-empty name, got {show(text)}")
    return text


def _rack(value: Any) -> str:
    text = _name(value)
    if not text.startswith("/"):
        refuse(f"must start with '/' (like {DEFAULT_RACK}), got {show(text)}")
    return text


def _flag(value: Any) -> bool:
    if not isinstance(value, bool):
        refuse(f"must be true or false, got {show(value)}")
    return value


def _site_value(value: Any) -> Any:
    if value is None or isinstance(value, dict | list):
        refuse(f"must be a single value (text, number or boolean), got {show(value)}")
    return value


def _which(value: Any) -> str:
    choices = ("newest", "oldest", "am")
    if value not in choices:
        refuse(f"must be newest, oldest or am, got {show(value)}{suggest(str(value), choices)}")
    return str(value)


def _existing_file(value: Any, info: ValidationInfo) -> Path:
    text = _name(value)
    base = info.context["base_dir"] if isinstance(info.context, dict) else Path()
    try:
        path = (Path(base) / text).resolve()
    except (OSError, ValueError, RuntimeError):
        refuse(f"not a usable path: {show(text)}")
    problem = file_problem(path)  # a regular file only: never a FIFO, never /dev/zero
    if problem is not None:
        refuse(f"{'file not found' if problem.kind == 'missing' else problem.reason}: {path}")
    return path


NonNegative = Annotated[int, PlainValidator(non_negative)]
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

"""The pydantic schema of SLS SYNTH files (private to :mod:`fairshare.sim.sources.synth`).

It follows the Jackson-mapped classes of Hadoop 3.4's ``SynthTraceJobProducer`` (``Trace``,
``Workload``, ``JobDefinition``, ``TaskDefinition``, ``Sample``, ``TimeSample``), including the
old flat job-class format (``mtasks_avg``, ``mtime_stddev``, …) that ``validateJobDef``
converts. Where Jackson would accept a value that makes SLS fail later (a distribution with a
mean of 0, all weights 0, an empty list to choose from) the schema refuses it here, with its
line. Unknown keys are ignored as Jackson ignores them (``FAIL_ON_UNKNOWN_PROPERTIES`` off),
each with a warning and a "did you mean" (:func:`without_unknown_keys`): the SLS documentation's
own example has one (``{"time": 120, "jobs": 0}``). ``description`` is accepted everywhere.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, Self

from pydantic import PlainValidator, model_validator

from fairshare.resources.javalang import java_trim, parse_double
from fairshare.resources.vector import INT_MAX
from fairshare.sim.parse.scenario_schema import fail
from fairshare.sim.parse.schema_values import MAX_NODES, Long, Name, Text
from fairshare.sim.parse.yaml_lines import Loc, show, suggest
from fairshare.sim.sources.values import JsonModel

__all__ = ["OLD_FORMAT", "JobClassModel", "SampleModel", "TaskModel", "TraceModel",
           "WorkloadModel", "typical", "without_unknown_keys"]

MAX_JOBS = 200_000  # num_jobs: each job costs ~60 µs and ~2 KB to generate
DISTRIBUTIONS = ("LOGNORM", "NORM")


def _number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        fail(f"must be a number, got {show(value)}")
    try:
        number = float(value)
    except OverflowError:  # an integer beyond any double
        fail(f"must be a number, got {show(value)}")
    if not math.isfinite(number):
        fail(f"must be a number, got {show(value)}")
    return number


def _weight(value: Any) -> float:
    number = _number(value)
    if number < 0:
        fail(f"must not be negative, got {show(value)}")
    return number


def _integer(value: Any, low: int, high: int) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        fail(f"must be an integer from {low} to {high}, got {show(value)}")
    return value


def _choice(value: Any) -> float:
    """A ``discrete`` entry: Jackson reads it as a String, ``getDouble`` parses it."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return _number(value)
    if isinstance(value, str):
        try:
            parsed = parse_double(java_trim(value))
        except ValueError:
            pass
        else:
            if math.isfinite(parsed):
                return parsed
    fail(f"must be a number, got {show(value)}")


def _execution_type(value: Any) -> str:
    if value == "OPPORTUNISTIC":
        fail("OPPORTUNISTIC containers are not scheduled by the Fair Scheduler; only "
             "GUARANTEED is supported")
    if value != "GUARANTEED":
        fail(f"must be GUARANTEED or OPPORTUNISTIC, got {show(value)}")
    return "GUARANTEED"


Number = Annotated[float, PlainValidator(_number)]
Weight = Annotated[float, PlainValidator(_weight)]
Choice = Annotated[float, PlainValidator(_choice)]
Count = Annotated[int, PlainValidator(lambda v: _integer(v, 0, INT_MAX))]
Priority = Annotated[int, PlainValidator(lambda v: _integer(v, -INT_MAX - 1, INT_MAX))]
Seconds = Annotated[int, PlainValidator(lambda v: _integer(v, 0, INT_MAX))]
Jobs = Annotated[int, PlainValidator(lambda v: _integer(v, 0, MAX_JOBS))]
NodeCount = Annotated[int, PlainValidator(lambda v: _integer(v, 0, MAX_NODES))]
ExecutionType = Annotated[str, PlainValidator(_execution_type)]


class SampleModel(JsonModel):
    """``Sample``: a constant ``{val}``, a distribution ``{val, std, dist}`` (LogNormal by
    default) or a weighted choice ``{discrete, weights}``."""

    val: Number | None = None
    std: Number | None = None
    dist: Text | None = None
    discrete: tuple[Choice, ...] | None = None
    weights: tuple[Weight, ...] | None = None
    description: Text | None = None

    @model_validator(mode="after")
    def _one_mode(self) -> Self:
        if self.val is None:
            self._check_choice()
        elif self.std is None:
            if self.dist is not None or self.discrete is not None or self.weights is not None:
                fail("a constant {\"val\": …} takes no 'dist', 'discrete' or 'weights'")
        else:
            self._check_distribution()
        return self

    def _check_choice(self) -> None:
        if self.std is not None or self.dist is not None:
            fail(f"'{'std' if self.std is not None else 'dist'}' needs 'val' (the mean)")
        if self.discrete is None:
            fail("a sample needs 'val' (a constant), 'val' and 'std' (a distribution) or "
                 "'discrete' (a weighted choice)")
        if not self.discrete:
            fail("'discrete' must not be empty")
        if self.weights is not None and len(self.weights) != len(self.discrete):
            fail(f"'weights' has {len(self.weights)} entries, 'discrete' {len(self.discrete)}")
        if self.weights is not None and sum(self.weights) <= 0:
            fail("'weights' are all 0: nothing can be chosen")

    def _check_distribution(self) -> None:
        assert self.val is not None and self.std is not None
        if self.discrete is not None or self.weights is not None:
            fail("a distribution {\"val\", \"std\"} takes no 'discrete' or 'weights'")
        if self.dist is not None and self.dist not in DISTRIBUTIONS:
            fail(f"unknown distribution {show(self.dist)} (LOGNORM or NORM)")
        if self.val <= 0:
            fail(f"a distribution's 'val' (its mean) must be positive, got {show(self.val)} "
                 "(SLS has no distribution for it)")
        if self.std < 0:
            fail(f"'std' must not be negative, got {show(self.std)}")


class TaskModel(JsonModel):
    """``TaskDefinition``: one kind of task container of a job class."""

    type: Text | None = None
    count: SampleModel
    time: SampleModel  # seconds, or ms with synth-time-unit (docs/workloads.md)
    max_memory: SampleModel
    max_vcores: SampleModel
    priority: Priority = 0
    execution_type: ExecutionType = "GUARANTEED"
    description: Text | None = None


# the old flat format's keys (``validateJobDef``): (count, time, memory, vcores) means and
# standard deviations of the maps and of the reduces
OLD_FORMAT = {
    "map": ("mtasks", "mtime", "map_max_memory", "map_max_vcores"),
    "reduce": ("rtasks", "rtime", "reduce_max_memory", "reduce_max_vcores"),
}


class JobClassModel(JsonModel):
    """``JobDefinition``: a class of jobs of a workload."""

    class_name: Name
    user_name: Name | None = None
    class_weight: Weight = 0.0
    type: Text | None = None
    deadline_factor: SampleModel | None = None  # reservations are not modelled
    duration: SampleModel | None = None  # seconds: compared with task times (a warning)
    reservation: SampleModel | None = None
    tasks: tuple[TaskModel, ...] | None = None
    params: dict[str, Any] | None = None
    description: Text | None = None
    # the old flat format
    chance_of_reservation: Number = 0.0
    deadline_factor_avg: Number = 0.0
    deadline_factor_stddev: Number = 0.0
    dur_avg: Number = 0.0
    dur_stddev: Number = 0.0
    mtasks_avg: Number = 0.0
    mtasks_stddev: Number = 0.0
    rtasks_avg: Number = 0.0
    rtasks_stddev: Number = 0.0
    mtime_avg: Number = 0.0
    mtime_stddev: Number = 0.0
    rtime_avg: Number = 0.0
    rtime_stddev: Number = 0.0
    map_max_memory_avg: Number = 0.0
    map_max_memory_stddev: Number = 0.0
    reduce_max_memory_avg: Number = 0.0
    reduce_max_memory_stddev: Number = 0.0
    map_max_vcores_avg: Number = 0.0
    map_max_vcores_stddev: Number = 0.0
    reduce_max_vcores_avg: Number = 0.0
    reduce_max_vcores_stddev: Number = 0.0
    map_execution_type: ExecutionType = "GUARANTEED"
    reduce_execution_type: ExecutionType = "GUARANTEED"

    @model_validator(mode="after")
    def _tasks_or_old_format(self) -> Self:
        if self.tasks is not None:
            return self
        means = [f"{key}_avg" for keys in OLD_FORMAT.values() for key in keys]
        if not self.model_fields_set & set(means):
            fail("missing required key 'tasks' (or the old format's mtasks_avg, rtasks_avg, …)")
        # Jackson reads the memory and vcores means into longs: 0.5 is 0
        bad = [key for key in means if (math.trunc(getattr(self, key))
                                        if key.startswith(("map_", "reduce_"))
                                        else getattr(self, key)) <= 0]
        if bad:
            fail(f"the old format draws maps and reduces from LogNormals whose means must be "
                 f"positive: {', '.join(bad)} {'is' if len(bad) == 1 else 'are'} not "
                 "(use 'tasks' for a map-only job)")
        return self


class TimeSampleModel(JsonModel):
    """``TimeSample``: jobs start in ``[time, next time)`` seconds with chance ∝ ``weight``."""

    time: Seconds
    weight: Weight = 0.0
    description: Text | None = None


class WorkloadModel(JsonModel):
    workload_name: Text | None = None
    workload_weight: Weight = 0.0
    description: Text | None = None
    queue_name: Name | None = None
    job_classes: tuple[JobClassModel, ...]
    time_distribution: tuple[TimeSampleModel, ...]

    @model_validator(mode="after")
    def _choices(self) -> Self:
        if sum(c.class_weight for c in self.job_classes) <= 0:
            fail("no job class can be chosen: give one a positive 'class_weight'")
        if sum(t.weight for t in self.time_distribution) <= 0:
            fail("no start time can be chosen: give a 'time_distribution' entry a positive "
                 "'weight'")
        return self


class TraceModel(JsonModel):
    """``Trace``: the whole file."""

    description: Text | None = None
    num_nodes: NodeCount = 0
    nodes_per_rack: Count = 0
    num_jobs: Jobs = 0
    rand_seed: Long | None = None  # read, not used: the scenario's seed drives the generator
    workloads: tuple[WorkloadModel, ...]

    @model_validator(mode="after")
    def _choices(self) -> Self:
        if sum(w.workload_weight for w in self.workloads) <= 0:
            fail("no workload can be chosen: give one a positive 'workload_weight'")
        return self


def typical(sample: SampleModel) -> float:
    """A sample's mean: its ``val`` (a constant or a distribution's mean), or the weighted mean
    of its ``discrete`` values."""
    if sample.val is not None:
        return sample.val
    values = sample.discrete or ()
    weights = sample.weights or (1.0,) * len(values)
    return sum(v * w for v, w in zip(values, weights, strict=True)) / sum(weights)


# the nested objects of each object of the file, by key (a list of them, or one)
_SAMPLES = ("count", "time", "max_memory", "max_vcores")
_NESTED: dict[type[JsonModel], dict[str, type[JsonModel]]] = {
    TraceModel: {"workloads": WorkloadModel},
    WorkloadModel: {"job_classes": JobClassModel, "time_distribution": TimeSampleModel},
    JobClassModel: {"tasks": TaskModel, "deadline_factor": SampleModel,
                    "duration": SampleModel, "reservation": SampleModel},
    TaskModel: dict.fromkeys(_SAMPLES, SampleModel),
}
Ignored = tuple[Loc, str, str]  # where, the key, the message


def without_unknown_keys(value: Any, model: type[JsonModel] = TraceModel,
                         loc: Loc = ()) -> tuple[Any, list[Ignored]]:
    """``value`` without the keys that ``model`` and the objects nested in it do not have, and
    each key left out, as SLS's Jackson mapper skips them (FAIL_ON_UNKNOWN_PROPERTIES off)."""
    if not isinstance(value, dict):
        return value, []
    known = list(model.model_fields)
    ignored: list[Ignored] = []
    kept: dict[str, Any] = {}
    for key, item in value.items():
        if key not in known:
            ignored.append((loc, key, _ignored(model, key, known, value)))
            continue
        nested = _NESTED.get(model, {}).get(key)
        if nested is not None and isinstance(item, list):
            pairs = [without_unknown_keys(x, nested, (*loc, key, i)) for i, x in enumerate(item)]
            item = [x for x, _ in pairs]
            ignored.extend(found for _, more in pairs for found in more)
        elif nested is not None:
            item, more = without_unknown_keys(item, nested, (*loc, key))
            ignored.extend(more)
        kept[key] = item
    return kept, ignored


def _ignored(model: type[JsonModel], key: str, known: list[str], value: dict[str, Any]) -> str:
    message = f"unknown key '{key}' ignored, as SLS ignores unknown keys{suggest(key, known)}"
    if model is TimeSampleModel and "weight" not in value:
        message += "; without a 'weight' no job starts in this bucket (SLS: weight 0)"
    return message

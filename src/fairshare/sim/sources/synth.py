"""Hadoop SLS SYNTH workload descriptions (``workload.synth``) → generated workload apps.

The file is what Hadoop 3.4's ``SynthTraceJobProducer`` reads (schema:
:mod:`~fairshare.sim.sources.synth_schema`); jobs are generated the way ``SynthTraceJobProducer``
and ``SynthJob`` do, from our own deterministic random stream:

1. For each of ``num_jobs`` jobs, in order: a workload by ``workload_weight``; a start time from
   its ``time_distribution`` — a bucket by ``weight``, then a whole second uniformly in
   ``[time, next bucket's time)`` (the last bucket: its ``time``); a job class by
   ``class_weight``. (``SynthUtils.getWeighted``, ``Workload.generateSubmissionTime``.)
2. Jobs are sorted by start time (ties keep generation order) and named
   ``<class_name>_<NNNNNN>``, numbered from 0 in that order, as ``SynthJob`` names them.
3. For each task kind of the class: a count, a memory size (at least 1024 MB) and vcores (at
   least 1) drawn once for the job, then a time per task. Every draw is rounded half up to a
   whole number (``Math.round``); a task time is in seconds as SLS documents it, or in
   milliseconds as SLS reads it (``workload.synth-time-unit: ms``). (``SynthJob``.)

An app is the job: at its start time, in ``queue_name`` (default ``default``) as user
``user_name`` (default ``default``), with an AM of ``yarn.sls.am.container.*`` and its tasks
grouped by (priority, size, duration). ``num_nodes`` and ``nodes_per_rack`` give nodes
(``/rack<i % racks>/node<i>``, ``racks = num_nodes / nodes_per_rack``) that the scenario uses
when it names none itself.

Warnings: unknown keys are ignored as SLS ignores them; a job class whose tasks last longer on
average than its jobs' ``duration`` (in seconds) gets a warning that SLS reads task times as
milliseconds (:func:`_long_tasks`). A file that looks like another kind of input is named as
such (:mod:`~fairshare.sim.sources.kinds`).

Randomness: ``random.Random`` seeded with the scenario's ``seed`` (as an unsigned 64-bit
number); normal draws are Box–Muller on its uniform draws, so a seed gives the same apps on every
platform and Python version. The file's ``rand_seed`` is read but not used: change the
scenario's ``seed`` to get another workload from the same file. Hadoop's own
``JDKRandomGenerator`` stream is not reproduced.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from fairshare.config.files import memory_guard
from fairshare.config.model import ConfigWarning
from fairshare.resources.display import duration
from fairshare.resources.vector import INT_MAX, LONG_MAX, LONG_MIN
from fairshare.sim.parse.jsontext import (
    MAX_SYNTH_BYTES,
    json_doc,
    json_single,
    json_values,
    read_trace_text,
)
from fairshare.sim.parse.scenario_schema import problems_of
from fairshare.sim.parse.specs import NodeSpec, TaskSpec, WorkloadApp
from fairshare.sim.parse.yaml_lines import Loc, YamlDoc, render_path, show
from fairshare.sim.sources.kinds import wrong_kind
from fairshare.sim.sources.sls import generated_node_names
from fairshare.sim.sources.sls_settings import SlsSettings
from fairshare.sim.sources.synth_schema import (
    OLD_FORMAT,
    JobClassModel,
    SampleModel,
    TraceModel,
    WorkloadModel,
    typical,
    without_unknown_keys,
)
from fairshare.sim.sources.values import Bad, FileErrors, add_problems

__all__ = ["MAX_TASKS", "SynthWorkload", "TimeUnit", "load_synth"]

MIN_MEMORY_MB = 1024  # SynthJob.MIN_MEMORY
MIN_VCORES = 1  # SynthJob.MIN_VCORES
DEFAULT_QUEUE = "default"
DEFAULT_USER = "default"
MAX_TASKS = 2_000_000  # per file: a heavy-tailed count must not run for minutes
_OLD_PRIORITY = {"map": 20, "reduce": 10}  # SynthTraceJobProducer.DEFAULT_*_PRIORITY
TimeUnit = Literal["s", "ms"]
MS_PER_UNIT: dict[TimeUnit, int] = {"s": 1000, "ms": 1}


@dataclass(frozen=True)
class SynthWorkload:
    """The generated apps in start-time order, the nodes the file describes, its warnings."""

    apps: tuple[WorkloadApp, ...]
    nodes: tuple[NodeSpec, ...]
    warnings: tuple[ConfigWarning, ...] = ()


def load_synth(path: Path, seed: int, settings: SlsSettings, display: str | None = None,
               time_unit: TimeUnit = "s") -> SynthWorkload:
    """Read a SYNTH file and generate its jobs from ``seed``; ``display`` names the file;
    ``time_unit`` is the unit of task times (``workload.synth-time-unit``).

    Raises :class:`ConfigError` (:class:`ConfigErrors`) for a malformed file, and for a draw
    SLS would fail on (a task time that rounds to 0 or less), located at the sample.
    """
    name = display or str(path)
    with memory_guard(name):
        return _load(read_trace_text(path, name, MAX_SYNTH_BYTES), seed, settings, name,
                     time_unit)


def _load(text: str, seed: int, settings: SlsSettings, name: str,
          time_unit: TimeUnit) -> SynthWorkload:
    errors = FileErrors(name)
    first = next(json_values(text, name), None)  # a file of several values: its first
    wrong = None if first is None else wrong_kind(first.value, "synth")
    if first is not None and wrong is not None:
        errors.add(wrong, first.line)
        errors.fail()
    item = json_single(text, name)
    if not isinstance(item.value, dict):
        errors.add(f"a SYNTH description is one JSON object (SynthTraceJobProducer's Trace), "
                   f"got {show(item.value)}", item.line)
        errors.fail()
    doc = json_doc(item.value, text, item.start, item.line)
    value, ignored = without_unknown_keys(doc.value)
    for loc, key, message in ignored:
        errors.warn(f"{render_path(loc)}: {message}" if loc else message,
                    doc.line((*loc, key)))
    try:
        trace = TraceModel.model_validate(value)
    except ValidationError as error:
        add_problems(errors, problems_of(error, ()), doc)
        errors.fail()
    if time_unit == "s":
        _long_tasks(trace, doc, errors)
    try:
        apps = _Generator(trace, seed, settings, name, doc, time_unit).jobs()
    except Bad as bad:
        errors.add(f"{render_path(bad.loc)}: {bad.message}", doc.line(bad.loc))
        errors.fail()
    return SynthWorkload(apps, _nodes(trace, settings, name, doc.line(("num_nodes",))),
                         errors.all_warnings())


def _long_tasks(trace: TraceModel, doc: YamlDoc, errors: FileErrors) -> None:
    """Warn where a job class's tasks last longer on average than its jobs: the sign of a file
    written for SLS, which reads a task's ``time`` as milliseconds (``AMDefinitionSynth`` passes
    it to the container as is) but a job's ``duration`` and start times as seconds
    (``SynthJob`` converts them)."""
    for w, workload in enumerate(trace.workloads):
        for c, job_class in enumerate(workload.job_classes):
            loc: Loc = ("workloads", w, "job_classes", c)
            for time_loc, task_s, job_s in _times(job_class, loc):
                if job_s > 0 and task_s > job_s:
                    errors.warn(f"{render_path(time_loc)}: {_long_task_message(task_s, job_s)}",
                                doc.line(time_loc))


def _times(job_class: JobClassModel, loc: Loc) -> list[tuple[Loc, float, float]]:
    """(where, mean task time, mean job duration) of each task kind of a job class."""
    if job_class.tasks is None:  # the old format: dur_avg, mtime_avg, rtime_avg
        return [((*loc, key), getattr(job_class, key), job_class.dur_avg)
                for key in ("mtime_avg", "rtime_avg")]
    job_s = 0.0 if job_class.duration is None else typical(job_class.duration)
    return [((*loc, "tasks", i, "time"), typical(task.time), job_s)
            for i, task in enumerate(job_class.tasks)]


def _long_task_message(task_s: float, job_s: float) -> str:
    return (f"tasks last {task_s:g} s ({duration(task_s * 1000)}) on average, longer than "
            f"their job's duration of {job_s:g} s: SLS reads a task's time as milliseconds "
            f"({duration(task_s)}) but a job's duration and start times as seconds; "
            "'synth-time-unit: ms' in the scenario's 'workload' reads task times as SLS does")


def _nodes(trace: TraceModel, settings: SlsSettings, display: str,
           line: int) -> tuple[NodeSpec, ...]:
    """``SLSUtils.generateNodes(num_nodes, num_nodes / max(nodes_per_rack, 1))``."""
    racks = trace.num_nodes // max(trace.nodes_per_rack, 1)
    return tuple(NodeSpec(name, rack, dict(settings.node), line, display)
                 for name, rack in generated_node_names(trace.num_nodes, racks))


def java_round(value: float) -> int:
    """``Math.round(double)``: half up, clamped to the ``long`` range."""
    if math.isnan(value):
        return 0
    if value >= LONG_MAX:
        return LONG_MAX
    if value <= LONG_MIN:
        return LONG_MIN
    low = math.floor(value)
    return low + 1 if value - low >= 0.5 else low


def pick(weights: Sequence[float], rng: random.Random) -> int:
    """``SynthUtils.getWeighted``: the first index whose running total passes a uniform draw."""
    mark = rng.random() * sum(weights)
    total = 0.0
    for index, weight in enumerate(weights):
        total += weight
        if total > mark:
            return index
    return max(i for i, w in enumerate(weights) if w > 0)  # rounding at the very end


Draw = Callable[[], float]


def sampler(sample: SampleModel, rng: random.Random) -> Draw:
    """``Sample.getDouble`` for one sample of the file."""
    if sample.val is None:
        assert sample.discrete is not None
        values, weights = sample.discrete, sample.weights or (1.0,) * len(sample.discrete)
        return lambda: values[pick(weights, rng)]
    if sample.std is None:
        constant = sample.val
        return lambda: constant
    mean = sample.val
    std = sample.std or mean / 6  # SynthUtils: a missing (0) deviation is mean / 6
    if sample.dist == "NORM":
        return lambda: mean + std * _gauss(rng)
    sigma = math.sqrt(math.log1p(std * std / (mean * mean)))  # a LogNormal with this mean
    mu = math.log(mean) - sigma * sigma / 2
    return lambda: math.exp(min(mu + sigma * _gauss(rng), 709.0))


def _gauss(rng: random.Random) -> float:
    """A standard normal draw (Box–Muller on two uniform draws)."""
    return math.sqrt(-2.0 * math.log(1.0 - rng.random())) * math.cos(2.0 * math.pi * rng.random())


@dataclass(frozen=True)
class _Kind:
    """A task kind of a job class, ready to draw: samplers and where they are in the file."""

    count: Draw
    time: Draw
    memory: Draw
    vcores: Draw
    priority: int
    loc: dict[str, Loc]  # "count" / "time" / … → the sample's loc (for errors)


class _Generator:
    def __init__(self, trace: TraceModel, seed: int, settings: SlsSettings, display: str,
                 doc: YamlDoc, time_unit: TimeUnit) -> None:
        self.trace, self.settings, self.display, self.doc = trace, settings, display, doc
        self.unit, self.ms_per_unit = time_unit, MS_PER_UNIT[time_unit]
        self.rng = random.Random(seed % 2**64)
        self.tasks = 0
        self.kinds = {(w, c): self.kinds_of(job_class, ("workloads", w, "job_classes", c))
                      for w, workload in enumerate(trace.workloads)
                      for c, job_class in enumerate(workload.job_classes)}

    def kinds_of(self, job_class: JobClassModel, loc: Loc) -> list[_Kind]:
        rng = self.rng
        if job_class.tasks is not None:
            return [_Kind(sampler(t.count, rng), sampler(t.time, rng), sampler(t.max_memory, rng),
                          sampler(t.max_vcores, rng), t.priority,
                          {k: (*loc, "tasks", i, k) for k in ("count", "time", "max_memory",
                                                               "max_vcores")})
                    for i, t in enumerate(job_class.tasks)]
        return [self.old_kind(job_class, kind, keys, loc) for kind, keys in OLD_FORMAT.items()]

    def old_kind(self, job_class: JobClassModel, kind: str, keys: tuple[str, ...],
                 loc: Loc) -> _Kind:
        """``validateJobDef``: the old flat keys as LogNormal samples (memory, vcores: longs)."""
        samples: list[Draw] = []
        for key in keys:
            mean = getattr(job_class, f"{key}_avg")
            if key.startswith(("map_", "reduce_")):
                mean = float(math.trunc(mean))
            # a negative deviation gives the same LogNormal as its absolute value in SLS
            model = SampleModel(val=mean, std=abs(getattr(job_class, f"{key}_stddev")))
            samples.append(sampler(model, self.rng))
        names = ("count", "time", "max_memory", "max_vcores")
        count, time, memory, vcores = samples
        return _Kind(count, time, memory, vcores, _OLD_PRIORITY[kind],
                     {name: (*loc, f"{key}_avg") for name, key in zip(names, keys, strict=True)})

    def jobs(self) -> tuple[WorkloadApp, ...]:
        stories = []
        weights = [w.workload_weight for w in self.trace.workloads]
        for index in range(self.trace.num_jobs):
            w = pick(weights, self.rng)
            workload = self.trace.workloads[w]
            start = self.start_seconds(workload)
            c = pick([j.class_weight for j in workload.job_classes], self.rng)
            stories.append((start, index, w, c))
        stories.sort()
        return tuple(self.job(number, start, w, c)
                     for number, (start, _, w, c) in enumerate(stories))

    def start_seconds(self, workload: WorkloadModel) -> int:
        """``Workload.generateSubmissionTime``."""
        buckets = workload.time_distribution
        index = pick([b.weight for b in buckets], self.rng)
        start = buckets[index].time
        span = buckets[min(index + 1, len(buckets) - 1)].time - start
        return start + (int(self.rng.random() * span) if span > 0 else 0)

    def job(self, number: int, start: int, w: int, c: int) -> WorkloadApp:
        workload = self.trace.workloads[w]
        job_class = workload.job_classes[c]
        name = f"{job_class.class_name}_{number:06d}"
        tasks: list[TaskSpec] = []
        for kind in self.kinds[(w, c)]:
            tasks.extend(self.draw_tasks(kind, name))
        loc = ("workloads", w, "job_classes", c)
        return WorkloadApp(name, start * 1000, workload.queue_name or DEFAULT_QUEUE,
                           job_class.user_name or DEFAULT_USER, dict(self.settings.am),
                           tuple(tasks), self.doc.line(loc), self.display)

    def draw_tasks(self, kind: _Kind, job: str) -> list[TaskSpec]:
        count = java_round(kind.count())
        if count > INT_MAX:
            raise Bad(kind.loc["count"], f"job {job}: a drawn task count ({count}) exceeds "
                                         "Java's int range (SLS: Math.toIntExact fails)")
        memory = max(java_round(kind.memory()), MIN_MEMORY_MB)
        vcores = max(java_round(kind.vcores()), MIN_VCORES)
        for key, amount in (("max_memory", memory), ("max_vcores", vcores)):
            if amount > INT_MAX:
                raise Bad(kind.loc[key], f"job {job}: a drawn size ({amount}) exceeds Java's "
                                         "int range")
        self.tasks += max(count, 0)
        if self.tasks > MAX_TASKS:
            raise Bad(kind.loc["count"], f"the workload draws more than {MAX_TASKS:,} tasks "
                                         f"(at job {job})")
        durations: dict[int, int] = {}
        for _ in range(count):
            time = java_round(kind.time())
            if time <= 0:
                raise Bad(kind.loc["time"], f"job {job}: a drawn task time rounds to {time} "
                                            f"{self.unit}; SLS refuses tasks that do not last "
                                            "(\"Duration of a task shouldn't be less or equal "
                                            "to 0\")")
            durations[time] = durations.get(time, 0) + 1
        size = {"memory-mb": memory, "vcores": vcores}
        return [TaskSpec(n, size, time * self.ms_per_unit, kind.priority)
                for time, n in durations.items()]

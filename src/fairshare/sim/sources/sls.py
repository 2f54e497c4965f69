"""Hadoop SLS JSON job traces (``workload.sls``) → workload apps, and the nodes they name.

The format is what Hadoop 3.4's SLS reads (``AMRunner.startAMFromSLSTrace``,
``AMDefinitionFactory.createFromSlsTrace``, ``AMDefinitionSLS``, ``TaskContainerDefinition``,
``SLSConfiguration``; the keys are documented in ``SchedulerLoadSimulator.md``): a sequence of
JSON objects (or one array of them), each a job::

    {"job.start.ms": 0, "job.end.ms": 95375, "job.queue.name": "sls_queue_1",
     "job.id": "job_1", "job.user": "default", "am.type": "mapreduce",
     "job.tasks": [{"container.host": "/default-rack/node1", "container.start.ms": 6664,
                    "container.end.ms": 23707, "container.priority": 20,
                    "container.type": "map"}]}

What each key becomes (docs/workloads.md has the full table and every deviation):

* ``job.start.ms`` (default 0) is the app's ``at_ms``; ``job.end.ms`` is only checked.
* ``job.queue.name`` (default ``default``) is the *requested* queue: placement rules make
  ``sls_queue_1`` ``root.sls_queue_1`` as YARN does; ``job.user`` defaults to ``default``.
* ``yarn.sls.am.type`` (the key SLS 3.4 reads, as in Hadoop's ``sls_dag.json``) or
  ``am.type`` (SLS 3.1–3.3, and the SLS documentation) names the AM simulator: accepted, not
  used (every app follows the one app model of ``sim/run/loop.py``).
* ``job.id`` is the app id; without one, or when ``job.count`` > 1 copies the job, an id is the
  AM's number in the trace (0, 1, …) as in SLS.
* The AM is ``yarn.sls.am.container.*`` (1024 MB, 1 vcore) with ``am.<type>`` overrides; a task
  is ``yarn.sls.container.*`` (1024 MB, 1 vcore) with ``container.<type>`` overrides
  (``container.memory-mb``, ``container.vcores``, ``container.yarn.io/gpu``).
* A task's duration is ``container.duration.ms``, else ``duration.ms``, else
  ``container.end.ms - container.start.ms``; it must be positive. ``count`` repeats a task;
  ``container.priority`` defaults to 20.
* Tasks of one job with the same priority, size and duration become one :class:`TaskSpec`
  group with a count: identical asks at one priority are one request in YARN anyway.
* ``container.host`` (``/rack/host``) and ``num.nodes``/``num.racks`` entries name nodes, which
  the scenario uses when it names none itself.

A file whose first value is not an SLS job — a Rumen job history, a SYNTH description, a
topology file — is named as what it looks like (:mod:`~fairshare.sim.sources.kinds`).

Unlike SLS, which logs a bad job and skips it, any bad job fails the load, with the file, the
job's number and id, and the line of the offending key.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fairshare.config.errors import ConfigError, all_errors
from fairshare.config.files import gc_paused, memory_guard
from fairshare.sim.parse.jsontext import JsonValue, json_line, json_values, read_trace_text
from fairshare.sim.parse.schema_values import MAX_NODES
from fairshare.sim.parse.specs import NodeSpec, Resources, TaskSpec, WorkloadApp
from fairshare.sim.parse.yaml_lines import Loc, render_path, show
from fairshare.sim.sources.kinds import wrong_kind
from fairshare.sim.sources.sls_settings import SlsSettings
from fairshare.sim.sources.values import (
    Bad,
    FileErrors,
    java_int,
    java_long,
    java_string,
    java_text,
    non_negative,
    resource_key,
    unknown_key,
)

__all__ = ["SlsTrace", "load_sls_jobs", "parse_host"]

DEFAULT_QUEUE = "default"
DEFAULT_USER = "default"  # AMDefinition.AmDefinitionBuilder.DEFAULT_USER
DEFAULT_PRIORITY = 20  # AMDefinitionRumen.DEFAULT_MAPPER_PRIORITY
TASKS = "job.tasks"
NUM_NODES, NUM_RACKS = "num.nodes", "num.racks"
MAX_COPIES = 100_000  # job.count: a typo must not create billions of apps
MAX_APPS = 1_000_000  # apps of one trace, copies included (as SYNTH's num_jobs)

AM_TYPES = ("yarn.sls.am.type", "am.type")  # SLS 3.4 (SLSConfiguration.AM_TYPE), 3.1–3.3
JOB_KEYS = frozenset({
    *AM_TYPES, "job.start.ms", "job.end.ms", "job.queue.name", "job.id", "job.user",
    "job.count", TASKS, "job.label.expression", NUM_NODES, NUM_RACKS,
})
TASK_KEYS = frozenset({
    "count", "container.host", "container.start.ms", "container.end.ms",
    "container.duration.ms", "duration.ms", "container.priority", "container.type",
    "container.execution.type", "container.allocation.id", "container.request.delay",
})
_JOB_NAMES = sorted(JOB_KEYS | {"am.memory-mb", "am.vcores"})
_TASK_NAMES = sorted(TASK_KEYS | {"container.memory-mb", "container.vcores"})
_DURATION_KEYS = ("container.duration.ms", "duration.ms")


@dataclass(frozen=True)
class SlsTrace:
    """A trace's apps in file order, and the nodes it names in first-seen order."""

    apps: tuple[WorkloadApp, ...]
    nodes: tuple[NodeSpec, ...]


def load_sls_jobs(path: Path, settings: SlsSettings, display: str | None = None) -> SlsTrace:
    """Read an SLS job trace; ``display`` names the file in errors and in ``source``.

    Raises :class:`ConfigError` (:class:`ConfigErrors`) with every problem found (at most
    :data:`~fairshare.sim.sources.values.MAX_ERRORS`).
    """
    name = display or str(path)
    with memory_guard(name), gc_paused():
        reader = _Reader(read_trace_text(path, name), settings, name)
        try:
            for item in json_values(reader.text, name):
                wrong = wrong_kind(item.value, "sls") if item.index == 0 else None
                if wrong is not None:
                    reader.errors.add(wrong, item.line)
                    break
                reader.entry(item)
                if reader.errors.full:
                    break
        except ConfigError as syntax:
            for error in all_errors(syntax):
                reader.errors.add(error.message, error.line)
        reader.errors.raise_any()
        return SlsTrace(tuple(reader.apps), tuple(reader.nodes.values()))


def parse_host(host: str) -> tuple[str, str] | None:
    """``/rack/host`` → ``("/rack", "host")`` as Hadoop's ``NodeBase`` splits it (a trailing
    ``/`` dropped, the rack is everything before the last ``/``); None if it has no rack."""
    path = host[:-1] if host.endswith("/") and len(host) > 1 else host
    cut = path.rfind("/")
    if not path.startswith("/") or cut <= 0 or cut == len(path) - 1:
        return None
    return path[:cut], path[cut + 1 :]


class _Reader:
    def __init__(self, text: str, settings: SlsSettings, display: str) -> None:
        self.text, self.settings, self.display = text, settings, display
        self.errors = FileErrors(display)
        self.apps: list[WorkloadApp] = []
        self.nodes: dict[str, NodeSpec] = {}
        self.am_number = 0  # SLS's AM_ID: every AM of the trace, numbered from 0
        self.default_size = tuple(settings.container.items())
        self.sizes: dict[tuple[tuple[str, int], ...], Resources] = {
            self.default_size: dict(settings.container)}  # a group's size → its one dict
        self.hosts: set[str] = set()  # container.host values already read

    def entry(self, item: JsonValue) -> None:
        value = item.value
        if not isinstance(value, dict):
            self.errors.add(f"job #{item.index + 1}: a job is a JSON object, got {show(value)}",
                            item.line)
            return
        try:
            if NUM_NODES in value:
                self.generated_nodes(value, item.line)
                if value.keys() <= {NUM_NODES, NUM_RACKS}:
                    return  # a topology entry, not a job
            self.apps.extend(self.job(value, item.line))
        except Bad as bad:
            self.report(item, bad)

    def report(self, item: JsonValue, bad: Bad) -> None:
        line = json_line(self.text, item.start, item.line, bad.loc)
        job_id = item.value.get("job.id")
        if isinstance(job_id, str) and len(job_id) > 60:
            job_id = job_id[:59] + "…"
        named = f" ({job_id})" if isinstance(job_id, str) else ""
        where = render_path(bad.loc)
        self.errors.add(f"job #{item.index + 1}{named}: {where + ': ' if where else ''}"
                        f"{bad.message}", line)

    def generated_nodes(self, entry: dict[str, Any], line: int) -> None:
        count = java_int(entry[NUM_NODES], (NUM_NODES,))
        if count > MAX_NODES:
            raise Bad((NUM_NODES,), f"more than {MAX_NODES} nodes")
        racks = java_int(entry[NUM_RACKS], (NUM_RACKS,)) if NUM_RACKS in entry else 1
        for name, rack in generated_node_names(count, racks):
            self.node(name, rack, line)

    def node(self, name: str, rack: str, line: int) -> None:
        if name not in self.nodes:
            if len(self.nodes) >= MAX_NODES:
                raise Bad((), f"the trace names more than {MAX_NODES:,} nodes")
            self.nodes[name] = NodeSpec(name, rack, dict(self.settings.node), line, self.display)

    def job(self, job: dict[str, Any], line: int) -> list[WorkloadApp]:
        am = dict(self.settings.am)
        for key, value in job.items():
            if key not in JOB_KEYS:
                name = resource_key(key, "am.", _JOB_NAMES)
                if name is None:
                    raise Bad((key,), unknown_key(key, _JOB_NAMES))
                am[name] = non_negative(value, (key,))
        start, end = (java_long(job.get(key, 0), (key,)) for key in ("job.start.ms", "job.end.ms"))
        if start < 0:
            raise Bad(("job.start.ms",), f"must not be negative, got {start}")
        if end and end < start:
            raise Bad(("job.end.ms",), f"{end} is before job.start.ms ({start})")
        queue = DEFAULT_QUEUE
        if "job.queue.name" in job:
            queue = java_text(job["job.queue.name"], ("job.queue.name",))
        # read with a (String) cast: null means "not given" (every AM type runs one app model)
        user, job_id, *_am_types = (None if job.get(key) is None
                                    else java_string(job[key], (key,))
                                    for key in ("job.user", "job.id", *AM_TYPES))
        count = max(java_int(job["job.count"], ("job.count",)), 1) if "job.count" in job else 1
        if count > MAX_COPIES:
            raise Bad(("job.count",), f"at most {MAX_COPIES} copies of a job, got {count}")
        tasks = self.tasks(job.get(TASKS), line)
        if self.am_number + count > MAX_APPS:
            raise Bad(("job.count",) if count > 1 else (),
                      f"the trace has more than {MAX_APPS:,} apps (job.count copies included)")
        apps = []
        for _ in range(count):
            app_id = job_id if job_id is not None and count == 1 else str(self.am_number)
            self.am_number += 1
            apps.append(WorkloadApp(app_id, start, queue, user or DEFAULT_USER, am, tasks, line,
                                    self.display))
        return apps

    def tasks(self, tasks: Any, line: int) -> tuple[TaskSpec, ...]:
        if not isinstance(tasks, list) or not tasks:
            got = "none" if tasks is None else show(tasks)
            raise Bad((TASKS,) if tasks is not None else (),
                      f"a job needs a non-empty '{TASKS}' list (SLS: \"No task for the job!\"); "
                      f"got {got}")
        groups: dict[tuple[int, tuple[tuple[str, int], ...], int], int] = {}
        for i, task in enumerate(tasks):
            if not isinstance(task, dict):
                raise Bad((TASKS, i), f"a task is a JSON object, got {show(task)}")
            key, count = self.task(task, (TASKS, i), line)
            groups[key] = groups.get(key, 0) + count
        return tuple(TaskSpec(count, self.sizes[size], duration, priority)
                     for (priority, size, duration), count in groups.items())

    def task(self, task: dict[str, Any], loc: Loc,
             line: int) -> tuple[tuple[int, tuple[tuple[str, int], ...], int], int]:
        """A task's group key (priority, size, duration) and its count. The common case — only
        keys SLS knows, JSON integers — is kept fast: a trace may have millions of tasks."""
        size_key = self.default_size if task.keys() <= TASK_KEYS else self.size(task, loc)
        count = max(_int(task["count"], loc, "count"), 1) if "count" in task else 1
        priority = _int(task.get("container.priority", DEFAULT_PRIORITY), loc,
                        "container.priority")
        host = task.get("container.host")
        if host is not None and (type(host) is not str or host not in self.hosts):
            self.host(host, loc, line)  # (a list or map is refused there, not hashed here)
        if not task.keys().isdisjoint(_CHECKED_KEYS):
            self.check_extras(task, loc)
        return (priority, size_key, _duration(task, loc)), count

    def size(self, task: dict[str, Any], loc: Loc) -> tuple[tuple[str, int], ...]:
        """A task size with ``container.<type>`` keys (``container.memory-mb``)."""
        size = dict(self.settings.container)
        for key, value in task.items():
            if key not in TASK_KEYS:
                name = resource_key(key, "container.", _TASK_NAMES)
                if name is None:
                    raise Bad((*loc, key), unknown_key(key, _TASK_NAMES))
                size[name] = non_negative(value, (*loc, key))
        size_key = tuple(size.items())
        self.sizes.setdefault(size_key, size)
        return size_key

    def host(self, host: Any, loc: Loc, line: int) -> None:
        parts = parse_host(java_string(host, (*loc, "container.host")))
        if parts is None:
            raise Bad((*loc, "container.host"),
                      f"must be '/rack/host' (SLS splits it with NodeBase), got {show(host)}")
        if parts[1] not in self.nodes and len(self.nodes) >= MAX_NODES:
            raise Bad((*loc, "container.host"), f"the trace names more than {MAX_NODES:,} nodes")
        self.hosts.add(host)
        self.node(parts[1], parts[0], line)

    @staticmethod
    def check_extras(task: dict[str, Any], loc: Loc) -> None:
        """Keys SLS parses that do not change the app model; wrong values still fail there."""
        kind = task.get("container.execution.type")
        if kind is not None and kind != "GUARANTEED":
            message = ("OPPORTUNISTIC containers are not scheduled by the Fair Scheduler; "
                       "only GUARANTEED is supported" if kind == "OPPORTUNISTIC"
                       else f"must be GUARANTEED or OPPORTUNISTIC, got {show(kind)}")
            raise Bad((*loc, "container.execution.type"), message)
        for key in ("container.allocation.id", "container.request.delay"):
            if key in task:
                java_long(task[key], (*loc, key))
        if "container.type" in task and task["container.type"] is None:
            raise Bad((*loc, "container.type"), "must be a string, got null")


_CHECKED_KEYS = frozenset({"container.execution.type", "container.allocation.id",
                           "container.request.delay", "container.type"})


def _int(value: Any, loc: Loc, key: str) -> int:
    """``Integer.parseInt(value.toString())``, quick for a JSON integer."""
    if type(value) is int and -(2**31) <= value < 2**31:
        return value
    return java_int(value, (*loc, key))


def _long(value: Any, loc: Loc, key: str) -> int:
    """``Long.parseLong(value.toString())``, quick for a JSON integer."""
    if type(value) is int and -(2**63) <= value < 2**63:
        return value
    return java_long(value, (*loc, key))


def _duration(task: dict[str, Any], loc: Loc) -> int:
    """``TaskContainerDefinition.validateAndGetDuration``: ``container.duration.ms``, else
    ``duration.ms``, else end - start; -1 counts as "not given"; the result must be positive."""
    start = _long(task["container.start.ms"], loc, "container.start.ms") \
        if "container.start.ms" in task else -1
    end = _long(task["container.end.ms"], loc, "container.end.ms") \
        if "container.end.ms" in task else -1
    chosen = None
    for key in _DURATION_KEYS:
        if key in task:
            value = _int(task[key], loc, key)
            if value != -1 and chosen is None:
                chosen = key, value
    if chosen is not None:
        key, value = chosen
        if value <= 0:
            raise Bad((*loc, key), f"a task must last: must be positive, got {value}")
        return value
    if start != -1 and end != -1:
        if end <= start:
            raise Bad((*loc, "container.end.ms"),
                      f"{end} is not after container.start.ms ({start}): a task must last")
        return end - start
    raise Bad(loc, "no duration: give container.duration.ms, or container.start.ms and "
                   "container.end.ms")


def generated_node_names(count: int, racks: int) -> list[tuple[str, str]]:
    """``SLSUtils.generateNodes``: ``node<i>`` in ``/rack<i % racks>``, racks within 1..count."""
    racks = min(max(racks, 1), count)
    return [(f"node{i}", f"/rack{i % racks}") for i in range(count)]

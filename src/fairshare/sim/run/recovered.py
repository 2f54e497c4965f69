"""Apps already running when a simulation starts (``workload.apps[].running``): their running
containers joined to their task groups for the app model (:mod:`fairshare.sim.run.loop`).

A running task belongs to the task group of its size and priority: a re-run after it is
preempted or lost lasts that group's ``duration-ms``. When no group has its size and priority, a
group of its own is made, whose re-runs last what the container still had to run. The AM comes
first: YARN counts the first container it recovers for a managed attempt as its AM
(``FSAppAttempt.recoverContainer``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from fairshare.resources.vector import Resource
from fairshare.sim.parse.specs import RunningSpec
from fairshare.sim.sources.workload import AppSpec, RunningContainer, TaskGroup


def with_running(spec: AppSpec, running: Sequence[tuple[RunningSpec, Resource]]) -> AppSpec:
    """``spec`` with ``running`` (each with its resource vector) recovered at its arrival."""
    tasks, counts = list(spec.tasks), [task.count for task in spec.tasks]
    recovered: list[RunningContainer] = []
    for entry, resource in sorted(running, key=lambda pair: not pair[0].am):
        group = -1
        if not entry.am:
            group = _group_of(tasks, resource, entry)
            if group == len(counts):
                counts.append(0)
            counts[group] += 1
        recovered.append(RunningContainer(entry.node, resource, entry.am, entry.priority,
                                          entry.remaining_ms, group, entry.container))
    tasks = [replace(task, count=count) for task, count in zip(tasks, counts, strict=True)]
    return replace(spec, tasks=tuple(tasks), running=tuple(recovered))


def _group_of(tasks: list[TaskGroup], resource: Resource, entry: RunningSpec) -> int:
    for i, task in enumerate(tasks):
        if task.resource == resource and task.priority == entry.priority:
            return i
    tasks.append(TaskGroup(0, resource, entry.remaining_ms or 0, entry.priority))
    return len(tasks) - 1

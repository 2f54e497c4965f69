"""The scenario ``fairshare import`` writes: the dump's nodes, and its apps as a workload that
starts from where they were (docs/import.md).

Running apps are ``workload.apps`` entries arriving at 0 with their containers under
``running`` (recovered where they run, as YARN's work-preserving recovery does); their
outstanding asks are their ``tasks``. Apps waiting for their AM are submitted at 0 with it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from fairshare.sim.importer.dump import Amounts, Dump
from fairshare.sim.importer.placement import AppPlan, Placed
from fairshare.sim.importer.remaining import RemainingTimes

DEFAULT_REMAINING_MS = 600_000  # how much longer a running task runs: 10 minutes
DEFAULT_TASK_MS = 600_000  # how long a task asked for but not placed yet runs once placed
DEFAULT_TASK_PRIORITY = 20
DEFAULT_SEED = 1


@dataclass(frozen=True)
class Choices:
    """What the dump does not say and the admin may choose (CLI options)."""

    remaining_ms: int = DEFAULT_REMAINING_MS  # the mean of the distribution
    task_ms: int = DEFAULT_TASK_MS
    # how running tasks' remaining times are drawn (remaining.py); the CLI's default is
    # uniform, this one keeps a library caller's remaining_ms the time of every task
    remaining_dist: str = "fixed"
    seed: int = DEFAULT_SEED
    arrivals_file: str | None = None  # a CSV workload beside the scenario: future arrivals
    site_file: str | None = None  # beside the scenario
    allocations_file: str = "fair-scheduler.xml"
    allocations_rebuilt: bool = True


def q(text: str) -> str:
    """A YAML scalar that stays text whatever it holds (JSON's quoting is YAML's too)."""
    return json.dumps(text, ensure_ascii=False)


def site_unknown_note() -> list[str]:
    """Said in the scenario and printed when no yarn-site.xml was given."""
    return [
        "No yarn-site.xml given (--site): the scenario runs on YARN's defaults, which are",
        "likely not this cluster's: preemption is off (yarn.scheduler.fair.preemption=false),",
        "so nothing is ever preempted; assignmultiple, the utilization threshold,",
        "waitTimeBeforeKill, the minimum allocation and the heartbeat intervals are YARN's",
        "defaults too. Give the cluster's yarn-site.xml with --site to use its settings.",
    ]


def remaining_times(choices: Choices) -> RemainingTimes:
    return RemainingTimes(choices.remaining_dist, choices.remaining_ms, choices.seed)


def scenario_text(dump: Dump, plans: Sequence[AppPlan], choices: Choices) -> str:
    times = remaining_times(choices)
    lines = _header(dump, plans, choices, times)
    lines += ["version: 1", f"name: {q('imported from ' + dump.source.name)}",
              f"description: {q(_description(dump, plans))}"]
    if choices.site_file is not None:
        lines.append(f"site-file: {q(choices.site_file)}")
    else:
        lines += ["# " + line for line in site_unknown_note()]
    lines.append(f"allocations-file: {q(choices.allocations_file)}")
    lines += ["cluster:", "  nodes:"]
    lines += [f"    - {{name: {q(n.name)}, rack: {q(n.rack)}, {_size(n.capacity)}}}"
              for n in dump.nodes]
    lines += ["workload:", "  apps:" if plans else "  apps: []"]
    for plan in plans:
        lines += _app(plan, choices, times)
    if choices.arrivals_file is not None:
        lines.append(f"  csv: {q(choices.arrivals_file)}")
    lines += ["run:", "  snapshot-every-ms: 1000"]
    return "\n".join(lines) + "\n"


def _header(dump: Dump, plans: Sequence[AppPlan], choices: Choices, times: RemainingTimes
            ) -> list[str]:
    out = [f"# Imported by `fairshare import` from {dump.source} (the ResourceManager's",
           "# /ws/v1/cluster/scheduler, nodes and apps). See docs/import.md.",
           "#",
           "# The simulation starts from the dumped state: the running apps' containers are",
           "# recovered where they run (YARN's work-preserving recovery), so the queues' usage",
           "# at t = 0 is the dump's. Then:",
           "# - a running task runs for a time drawn from a distribution (--remaining,",
           "#   --remaining-ms, --seed), then completes; here:",
           f"#   {times.describe()};",
           f"# - a task asked for but not placed yet runs {choices.task_ms:,} ms once placed "
           "(--task-ms);",
           "# - an app finishes when all those tasks are done; an app with no task left",
           "#   finishes when its AM has run a time drawn the same way.",
           *_arrivals_note(choices),
           *_placement_note(plans),
           ]
    if choices.allocations_rebuilt:
        out.append(f"# {choices.allocations_file} was rebuilt from the scheduler's queue tree: "
                   "its comments say")
        out.append("# what was guessed.")
    if dump.skipped_nodes:
        out.append("# Nodes left out (the scheduler does not hold them): "
                   + ", ".join(dump.skipped_nodes))
    waiting = sum(1 for p in plans if not p.running)
    out.append(f"# {len(dump.nodes)} nodes, {len(plans) - waiting} running apps, {waiting} "
               "waiting for their AM.")
    return out


def _arrivals_note(choices: Choices) -> list[str]:
    if choices.arrivals_file is None:
        return []
    return [f"# Future arrivals: the apps of {choices.arrivals_file} (--arrivals), submitted at "
            "their at-ms", "# after the dump's moment (t = 0)."]


def _placement_note(plans: Sequence[AppPlan]) -> list[str]:
    running = [p for p in plans if p.running]
    exact = sum(p.exact for p in running)
    out = []
    if exact:
        out.append(f"# Exact: the containers of {exact} of the {len(running)} running apps, as "
                   "the RM listed them (containers/).")
    if exact < len(running):
        which = f" for the {len(running) - exact} other apps" if exact else ""
        out += [f"# Guessed{which}: each running container's size and node (the REST API",
                "# gives each app's total and its AM's host, each node's total used), the",
                "# priority of running tasks."]
    return out


def _description(dump: Dump, plans: Sequence[AppPlan]) -> str:
    containers = sum(len(p.running) for p in plans)
    return (f"{len(dump.nodes)} nodes and {len(plans)} apps ({containers} running containers) "
            "as the ResourceManager reported them")


def _size(amounts: Amounts) -> str:
    return f"memory-mb: {amounts[0]}, vcores: {amounts[1]}"


def _app(plan: AppPlan, choices: Choices, times: RemainingTimes) -> list[str]:
    app = plan.app
    out = [f"    - id: {q(app.id)}", f"      queue: {q(app.queue)}", f"      user: {q(app.user)}"]
    if plan.am is not None:
        out.append(f"      am: {{{_size(plan.am)}}}")
    if plan.pending:
        out.append("      tasks:")
        out += [f"        - {{count: {a.count}, {_size(a.size)}, priority: {a.priority}, "
                f"duration-ms: {choices.task_ms}}}" for a in plan.pending]
    if plan.running:
        has_tasks = bool(plan.pending) or any(not c.am for c in plan.running)
        out.append("      running:")
        out += [f"        - {_running(c, plan, times, has_tasks)}" for c in plan.running]
    return out


def _running(c: Placed, plan: AppPlan, times: RemainingTimes, has_tasks: bool) -> str:
    parts = [f"node: {q(c.node)}", _size(c.size)]
    if c.am:
        parts.append("am: true")
        if not has_tasks:
            parts.append(f"remaining-ms: {times.draw()}")
    else:
        parts.append(f"priority: {_priority(c, plan) if c.priority is None else c.priority}")
        parts.append(f"remaining-ms: {times.draw()}")
    if c.container is not None:
        parts.append(f"container: {q(c.container)}")
    return "{" + ", ".join(parts) + "}"


def _priority(c: Placed, plan: AppPlan) -> int:
    """A running task's priority is not in the dump: that of an ask of its size, if any."""
    return next((a.priority for a in plan.pending if a.size == c.size), DEFAULT_TASK_PRIORITY)

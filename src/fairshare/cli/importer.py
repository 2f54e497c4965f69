"""``fairshare import DUMP_DIR -o SCENARIO_DIR`` and ``fairshare workload from-apps``: start
from a running cluster (docs/import.md).

Errors (a missing or malformed dump file, a CapacityScheduler dump, a bad --site or
--allocations) are printed as ``file:line: field: message`` and exit 2 with nothing written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairshare.cli.common import CommandGroup, err, fail, guarded, one_line, out
from fairshare.sim.importer.build import import_dump
from fairshare.sim.importer.history import DEFAULT_CONTAINER, history_of, write_csv
from fairshare.sim.importer.remaining import DISTRIBUTIONS
from fairshare.sim.importer.scenario_text import (
    DEFAULT_REMAINING_MS,
    DEFAULT_SEED,
    DEFAULT_TASK_MS,
    Choices,
    remaining_times,
)

workload_app = typer.Typer(no_args_is_help=True, rich_markup_mode=None, cls=CommandGroup,
                           help="Make workloads from what a cluster ran.")


def import_command(
    dump: Annotated[Path, typer.Argument(
        help="The folder holding scheduler.json, nodes.json and apps.json (saved with curl "
        "from the ResourceManager's /ws/v1/cluster/scheduler, nodes and apps), and optionally "
        "containers/<app id>.json for each running app (its containers, placed exactly).",
        show_default=False)],
    outdir: Annotated[Path, typer.Option(
        "-o", "--outdir", help="Where to write scenario.yaml and its configuration files.",
        show_default=False)],
    allocations: Annotated[Path | None, typer.Option(
        "--allocations", help="The cluster's fair-scheduler.xml (default: one rebuilt from "
        "scheduler.json, its guesses commented).")] = None,
    site: Annotated[Path | None, typer.Option(
        "--site", help="The cluster's yarn-site.xml (default: YARN's defaults, "
        "preemption off).")] = None,
    remaining: Annotated[str, typer.Option(
        "--remaining", metavar="|".join(DISTRIBUTIONS),
        help="How each running task's remaining time is drawn: uniform between 1 ms and twice "
        "--remaining-ms, exponential of mean --remaining-ms, or fixed at --remaining-ms.")]
    = "uniform",
    remaining_ms: Annotated[int, typer.Option(
        "--remaining-ms", min=0, help="The mean remaining time of a running task.")]
    = DEFAULT_REMAINING_MS,
    seed: Annotated[int, typer.Option(
        "--seed", help="The seed of the remaining times' draws.")] = DEFAULT_SEED,
    task_ms: Annotated[int, typer.Option(
        "--task-ms", min=0, help="How long each task asked for but not placed yet runs.")]
    = DEFAULT_TASK_MS,
    arrivals: Annotated[Path | None, typer.Option(
        "--arrivals", help="Apps to submit after the dump's moment: a CSV workload "
        "(docs/workloads.md), or an apps.json history, replayed from t = 0 as "
        "`workload from-apps` reads it.")] = None,
) -> None:
    """Write a scenario that starts from a running ResourceManager's state."""
    if remaining not in DISTRIBUTIONS:
        raise fail([f"--remaining: give one of {', '.join(DISTRIBUTIONS)}, not {remaining!r}"])
    choices = Choices(remaining_ms=remaining_ms, task_ms=task_ms, remaining_dist=remaining,
                      seed=seed)
    result = guarded(lambda: import_dump(dump, outdir, choices, allocations=allocations,
                                         site=site, arrivals=arrivals))
    for note in result.notes:
        err.print(one_line(f"note: {note}"), soft_wrap=True, style="yellow")
    for guess in result.guesses:
        err.print(one_line(f"guess: {guess}"), soft_wrap=True, style="yellow")
    out.print(f"Imported {_n(result.nodes, 'node')}, {_n(result.running_apps, 'running app')} "
              f"({_n(result.containers, 'container')}) and "
              f"{_n(result.waiting_apps, 'app')} waiting for "
              f"{'its' if result.waiting_apps == 1 else 'their'} AM.", soft_wrap=True)
    out.print(f"Containers: {_n(result.exact_apps, 'running app')} placed exactly as listed "
              f"in containers/, {_n(result.rebuilt_apps, 'app')} reconstructed from "
              "apps.json and nodes.json (docs/import.md).", soft_wrap=True)
    out.print(f"Remaining time of running tasks: {remaining_times(choices).describe()} "
              "(--remaining, --remaining-ms, --seed).", soft_wrap=True)
    if result.arrivals is not None:
        a = result.arrivals
        out.print(f"Arrivals: {_n(a.apps, 'app')} from {arrivals}, submitted from "
                  f"{a.first_ms:,} ms to {a.last_ms:,} ms after the dump's moment.",
                  soft_wrap=True)
    if result.check is not None:
        out.print(result.check.summary(), soft_wrap=True)
        for line in (*result.check.differences, *result.check.skipped):
            out.print(f"  {line}", soft_wrap=True)
    for path in result.written:
        out.print(f"  wrote {path}", soft_wrap=True)
    out.print(f"Run it with: fairshare simulate {outdir / 'scenario.yaml'}", soft_wrap=True)


@workload_app.command("from-apps")
def from_apps(
    apps: Annotated[Path, typer.Argument(
        help="An apps.json saved from the ResourceManager's /ws/v1/cluster/apps.",
        show_default=False)],
    output: Annotated[Path, typer.Option(
        "-o", "--output", help="The CSV workload to write.", show_default=False)],
    container: Annotated[str, typer.Option(
        "--container", metavar="MB/VCORES",
        help="Task size when the app's containers are not known.")]
    = f"{DEFAULT_CONTAINER[0]}/{DEFAULT_CONTAINER[1]}",
    start_ms: Annotated[int, typer.Option(
        "--start-ms", min=0, help="When the first app arrives; the others keep their distance "
        "from it.")] = 0,
) -> None:
    """Turn the apps history into a CSV workload (docs/workloads.md) to replay."""
    size = _size(container)
    history = guarded(lambda: history_of(apps, size, start_ms=start_ms))
    guarded(lambda: write_csv(history, output))
    if history.left_out:
        err.print(one_line("note: left out: " + ", ".join(history.left_out)), soft_wrap=True,
                  style="yellow")
    out.print(f"Wrote {len(history.apps)} apps to {output}", soft_wrap=True)


def _n(count: int, what: str) -> str:
    return f"{count} {what}{'' if count == 1 else 's'}"


def _size(text: str) -> tuple[int, int]:
    memory, _, vcores = text.partition("/")
    if not (memory.isdigit() and vcores.isdigit()) or int(memory) == 0:
        raise fail([f"--container: give MB/VCORES, like 2048/1, not {text!r}"])
    return int(memory), int(vcores)

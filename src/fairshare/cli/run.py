"""``fairshare run SCENARIO [-o OUTDIR]``: run a scenario's scripted steps, then its workload.

Exit codes (scenario-format.md): 0 when every ``expect`` held, 1 when one failed (the run
still finishes and writes its outputs), 2 for a scenario or configuration that is wrong.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from fairshare.cli import format as fmt
from fairshare.cli.common import err, fail, guarded, out
from fairshare.core.engine import Engine
from fairshare.sim.outputs import write_outputs
from fairshare.sim.scenario import load_scenario
from fairshare.sim.scripted import RunResult, run_scenario

EXIT_EXPECT_FAILED = 1


def run(
    scenario: Annotated[Path, typer.Argument(help="The scenario file (YAML or JSON).",
                                             show_default=False)],
    outdir: Annotated[Path | None, typer.Option(
        "-o", "--outdir", help="Write events.jsonl and snapshots.json here.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print failures only.")] = False,
) -> None:
    """Run a scenario: its steps, snapshots and expectations."""
    spec = guarded(lambda: load_scenario(scenario))
    result = guarded(lambda: run_scenario(spec))
    if outdir is not None:
        try:
            write_outputs(outdir, result.records, result.snapshots)
        except OSError as e:
            raise fail([f"{outdir}: cannot write outputs: {e.strerror or e}"]) from None
    for failure in result.failures:
        err.print(failure.describe(spec.source), markup=False, soft_wrap=True, style="red")
    if not quiet:
        _summary(spec.name or str(scenario), result)
    if result.failures:
        raise typer.Exit(EXIT_EXPECT_FAILED)


def _summary(name: str, result: RunResult) -> None:
    engine = result.engine
    passed = result.expectations - len(result.failures)
    out.print(f"[bold]{name}[/bold]: {len(result.records)} events, "
              f"clock at {engine.now:,} ms, {passed}/{result.expectations} expectations held")
    out.print(_queue_table(engine))


def _queue_table(engine: Engine) -> Table:
    table = Table(box=box.SIMPLE_HEAD, title="Queues at the end of the run", title_justify="left")
    for column in ("queue", "steady fair share", "fair share", "usage", "demand",
                   "preempted from"):
        table.add_column(column, justify="left" if column == "queue" else "right")
    types = engine.types
    for node in engine.tree.depth_first():
        q = engine.state.queues[node.name]
        depth = node.name.count(".")
        table.add_row(
            "  " * depth + node.name.rsplit(".", 1)[-1],
            fmt.short(engine.s.steady_fair_share(node.name), types), fmt.short(q.fair_share, types),
            fmt.short(q.usage, types), fmt.short(q.demand, types),
            str(q.containers_preempted),
        )
    return table

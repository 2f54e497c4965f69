"""``fairshare explain OUTDIR (--app A | --container C | --queue Q) [--format text|json]``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.text import Text

from fairshare.cli.common import (
    Format,
    FormatOpt,
    JsonOpt,
    fail,
    guarded,
    one_line,
    out,
    wants_json,
)
from fairshare.resources.display import duration
from fairshare.sim.record.outputs import json_text
from fairshare.workbench.explain.queue import (
    Explanation,
    explain,
    load_run,
)

RunDir = Annotated[Path, typer.Argument(show_default=False,
                                        help="A simulation's output directory (its -o).")]
App = Annotated[str | None, typer.Option("--app", show_default=False, help="An app id.")]
Container = Annotated[str | None, typer.Option("--container", show_default=False,
                                               help="A container id (from events.jsonl).")]
Queue = Annotated[str | None, typer.Option("--queue", show_default=False,
                                           help="A queue's full name (root.a.b).")]


def explain_command(outdir: RunDir, app: App = None, container: Container = None,
                    queue: Queue = None, output: FormatOpt = Format.TEXT,
                    as_json: JsonOpt = False) -> None:
    """Why an app waited, a container was preempted, a queue was (or was never) starved: the
    causal chain, each statement with its time and the events behind it."""
    chosen = [(kind, name) for kind, name in (("app", app), ("container", container),
                                              ("queue", queue)) if name is not None]
    if len(chosen) != 1:
        raise fail(["explain: give exactly one of --app, --container, --queue"])
    kind, name = chosen[0]
    run = guarded(lambda: load_run(outdir, name))
    result = guarded(lambda: explain(run, kind, name))
    if wants_json(output, as_json):
        out.print(json_text(result.as_json(), indent=2), soft_wrap=True)
        return
    _print(result)


def _print(result: Explanation) -> None:
    out.print(Text(one_line(result.subject), style="bold"))
    for statement in result.statements:
        when = "" if statement.time_ms is None else duration(statement.time_ms)
        seqs = ", ".join(str(s) for s in statement.seqs[:8])
        more = "…" if len(statement.seqs) > 8 else ""
        ref = f"  [seq {seqs}{more}]" if seqs else ""
        out.print(Text.assemble((f"{when:>10}  ", "dim"), one_line(statement.text),
                                (ref, "dim")), soft_wrap=True)

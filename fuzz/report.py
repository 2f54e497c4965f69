"""Collecting results: failures by class, one reproducer per cause, the figures.

A *cause* is a failure class plus a signature (a traceback's exception type and last frames, a
normalized message, or for hangs and memory the command and what was done to the input); all
the runs that failed for one cause count for it, and the one with the smallest input is saved
as its reproducer under ``OUT/<class>/<n>/``: ``files/`` (the case directory; FIFOs, symlinks
and sparse files are recreated by the script), ``command.sh`` (runs the command from
``files/``; ``FAIRSHARE=.venv/bin/fairshare`` picks the CLI), ``stdout.txt``, ``stderr.txt``
and ``finding.txt``. ``OUT/report.json`` and ``OUT/report.md`` hold the figures.
"""

from __future__ import annotations

import heapq
import json
import shlex
import shutil
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from fuzz import worker
from fuzz.cases import Case, Task
from fuzz.checks import CLASS_TITLES, CLASSES, Finding
from fuzz.worker import CaseResult, Job, Settings, TaskResult


@dataclass
class Cause:
    cls: str
    signature: str
    message: str
    runs: int = 0
    tasks: set[str] = field(default_factory=set)
    best_size: int = -1
    best_job: Job | None = None
    best_task: str = ""
    best_case: str = ""
    best_run: CaseResult | None = None
    description: str = ""
    path: str = ""  # where its reproducer was saved


class Report:
    def __init__(self, out_dir: Path, settings: Settings) -> None:
        self.out_dir = out_dir
        self.settings = settings
        self.tasks: Counter[str] = Counter()
        self.runs: Counter[str] = Counter()  # per command
        self.failing_runs: Counter[str] = Counter()  # per class
        self.failing_tasks: dict[str, set[str]] = {c: set() for c in CLASSES}
        self.causes: dict[tuple[str, str], Cause] = {}
        self.errors: list[str] = []
        self.verify_mismatches: list[str] = []
        self.verified = 0
        self.slowest: list[tuple[float, str, str]] = []
        self.hungriest: list[tuple[float, str, str]] = []
        self.exit_codes: Counter[str] = Counter()
        self.phase_seconds: dict[str, float] = {}

    # -- collecting -------------------------------------------------------------------------

    def add(self, result: TaskResult) -> None:
        self.tasks[result.kind if result.job.kind != "verify" else "verify"] += 1
        if result.error:
            self.errors.append(f"{result.task_id}: {result.error}")
        if result.job.kind == "verify":
            self.verified += int(result.meta.get("verified", 0))
            self.verify_mismatches += list(result.meta.get("verify", []))
            return
        main_mode = "subprocess" if not self.settings.fork else "fork"
        for case_run in result.runs:
            self.runs[case_run.command] += 1
            code = (str(case_run.exit_code) if case_run.exit_code is not None
                    else f"signal {case_run.signal}")
            self.exit_codes[code] += 1
            label = f"{result.task_id} {result.description[:90]}"
            command = " ".join(shlex.quote(a) for a in case_run.argv)[:120]
            if case_run.mode == main_mode:  # a subprocess among forks pays ~1 s of imports
                _top(self.slowest, (case_run.wall_s, label, command))
                _top(self.hungriest, (case_run.max_rss_mb, label, command))
        seen_classes: set[tuple[str, str]] = set()
        for run, finding in result.all_findings():
            self._finding(result, run, finding, seen_classes)

    def _finding(self, result: TaskResult, run: CaseResult | None, finding: Finding,
                 seen: set[tuple[str, str]]) -> None:
        run_id = run.case_id if run is not None else result.task_id
        if (finding.cls, run_id) not in seen:
            seen.add((finding.cls, run_id))
            self.failing_runs[finding.cls] += 1
        self.failing_tasks[finding.cls].add(result.task_id)
        key = (finding.cls, finding.signature)
        cause = self.causes.get(key)
        if cause is None:
            cause = self.causes[key] = Cause(finding.cls, finding.signature, finding.message)
        cause.runs += 1
        cause.tasks.add(result.task_id)
        shown = run if run is not None else (result.runs[0] if result.runs else None)
        size = shown.input_bytes if shown is not None else 1 << 62
        if cause.best_job is None or size < cause.best_size:
            cause.best_size, cause.best_job = size, result.job
            cause.best_task = result.task_id
            cause.best_case = shown.case_id if shown is not None else ""
            cause.best_run = shown
            cause.message, cause.description = finding.message, result.description

    @property
    def failures(self) -> int:
        return sum(self.failing_runs.values())

    # -- reproducers ------------------------------------------------------------------------

    def save_reproducers(self, rebuild: Any) -> None:
        numbers: Counter[str] = Counter()
        for cause in sorted(self.causes.values(), key=lambda c: (CLASSES.index(c.cls), -c.runs)):
            numbers[cause.cls] += 1
            target = self.out_dir / cause.cls / str(numbers[cause.cls])
            cause.path = str(target)
            try:
                task: Task = rebuild(cause.best_job)
                case = next(c for c in task.cases if c.id == cause.best_case)
            except Exception as e:
                target.mkdir(parents=True, exist_ok=True)
                (target / "finding.txt").write_text(f"{cause.message}\n(rebuild failed: {e})\n")
                continue
            _save(target, cause, task, case, self.settings)

    # -- output -----------------------------------------------------------------------------

    def table(self) -> Table:
        table = Table(title="Failures by class", box=box.SIMPLE_HEAD, title_justify="left")
        table.add_column("class")
        table.add_column("failing runs", justify="right")
        table.add_column("tasks", justify="right")
        table.add_column("causes", justify="right")
        table.add_column("reproducers")
        for cls in CLASSES:
            causes = [c for c in self.causes.values() if c.cls == cls]
            table.add_row(CLASS_TITLES[cls], f"{self.failing_runs[cls]:,}",
                          f"{len(self.failing_tasks[cls]):,}", str(len(causes)),
                          f"{self.out_dir}/{cls}/" if causes else "–")
        return table

    def causes_table(self) -> Table:
        table = Table(title="Distinct causes (one reproducer each)", box=box.SIMPLE_HEAD,
                      title_justify="left")
        for column in ("reproducer", "runs", "what"):
            table.add_column(column, overflow="fold")
        for cause in sorted(self.causes.values(), key=lambda c: (CLASSES.index(c.cls), -c.runs)):
            where = cause.path.replace(str(self.out_dir) + "/", "")
            table.add_row(where, str(cause.runs),
                          Text(f"{cause.message[:150]}\n") + Text(
                              f"{cause.signature[:150]}\n{cause.description[:150]}", "dim"))
        return table

    def figures(self, seconds: float, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "arguments": args,
            "seconds": round(seconds, 1),
            "phase-seconds": {k: round(v, 1) for k, v in self.phase_seconds.items()},
            "tasks": dict(self.tasks),
            "runs": dict(self.runs),
            "runs-total": sum(self.runs.values()),
            "exit-codes": dict(self.exit_codes),
            "failing-runs": {c: self.failing_runs[c] for c in CLASSES},
            "failing-tasks": {c: len(self.failing_tasks[c]) for c in CLASSES},
            "causes": [{"class": c.cls, "runs": c.runs, "tasks": len(c.tasks),
                        "message": c.message, "signature": c.signature,
                        "example": c.description, "reproducer": c.path}
                       for c in sorted(self.causes.values(),
                                       key=lambda c: (CLASSES.index(c.cls), -c.runs))],
            "slowest": [{"seconds": round(s, 2), "task": t, "command": c}
                        for s, t, c in sorted(self.slowest, reverse=True)],
            "most-memory": [{"max-rss-mb": round(m), "task": t, "command": c}
                            for m, t, c in sorted(self.hungriest, reverse=True)],
            "fork-server-verified": self.verified,
            "fork-server-mismatches": self.verify_mismatches,
            "harness-errors": self.errors[:50],
        }

    def write(self, seconds: float, args: dict[str, Any]) -> dict[str, Any]:
        figures = self.figures(seconds, args)
        self.out_dir.mkdir(parents=True, exist_ok=True)
        (self.out_dir / "report.json").write_text(json.dumps(figures, indent=1,
                                                             ensure_ascii=False) + "\n")
        (self.out_dir / "report.md").write_text(markdown(figures))
        return figures

    def print(self, console: Console, seconds: float) -> None:
        console.print(self.table())
        if self.causes:
            console.print(self.causes_table())
        for title, rows, unit in (("Slowest runs", self.slowest, "s"),
                                  ("Most memory (peak RSS)", self.hungriest, "MB")):
            table = Table(title=title, box=box.SIMPLE_HEAD, title_justify="left")
            table.add_column(unit, justify="right")
            table.add_column("task")
            table.add_column("command", overflow="fold")
            for value, task, command in sorted(rows, reverse=True):
                table.add_row(f"{value:,.1f}", task, command)
            console.print(table)
        if self.verify_mismatches:
            console.print("[yellow]fork server and subprocess disagreed:[/yellow]")
            for line in self.verify_mismatches[:10]:
                console.print("  " + line, markup=False)
        for error in self.errors[:5]:
            console.print(f"[red]harness error[/red] {error[:500]}", markup=True)
        runs = sum(self.runs.values())
        console.print(f"{sum(self.tasks.values()):,} tasks ({dict(self.tasks)}), {runs:,} runs, "
                      f"{self.failures:,} failing runs, {len(self.causes)} causes, "
                      f"{seconds:,.0f} s; fork server checked against subprocesses on "
                      f"{self.verified} cases ({len(self.verify_mismatches)} mismatches)",
                      markup=False)


def _top(heap: list[tuple[float, str, str]], item: tuple[float, str, str], n: int = 5) -> None:
    if len(heap) < n:
        heapq.heappush(heap, item)
    else:
        heapq.heappushpop(heap, item)


def markdown(figures: dict[str, Any]) -> str:
    lines = ["# fuzz run", "", f"Arguments: `{json.dumps(figures['arguments'])}`", "",
             f"Time: {figures['seconds']:,} s; tasks: {figures['tasks']}; runs: "
             f"{figures['runs-total']:,} ({figures['runs']}); exit codes: "
             f"{figures['exit-codes']}", "",
             "| class | failing runs | tasks |", "|---|---:|---:|"]
    for cls in CLASSES:
        lines.append(f"| {CLASS_TITLES[cls]} | {figures['failing-runs'][cls]:,} | "
                     f"{figures['failing-tasks'][cls]:,} |")
    lines += ["", "## Causes", ""]
    for cause in figures["causes"]:
        lines.append(f"* **{cause['class']}** ({cause['runs']} runs, {cause['tasks']} tasks) "
                     f"`{cause['reproducer']}`: {cause['message'][:200]}  ")
        lines.append(f"  {cause['signature'][:200]} — e.g. {cause['example'][:160]}")
    lines += ["", "## Slowest runs", ""]
    lines += [f"* {r['seconds']} s: {r['task']}: `{r['command']}`" for r in figures["slowest"]]
    lines += ["", "## Most memory", ""]
    lines += [f"* {r['max-rss-mb']} MB: {r['task']}: `{r['command']}`"
              for r in figures["most-memory"]]
    return "\n".join(lines) + "\n"


def _save(target: Path, cause: Cause, task: Task, case: Case, settings: Settings) -> None:
    if target.exists():
        shutil.rmtree(target)
    files = target / "files"
    files.mkdir(parents=True)
    setup: list[str] = []
    for name, entry in sorted(case.files.items()):
        path = files / name
        path.parent.mkdir(parents=True, exist_ok=True)
        q = shlex.quote(name)
        if entry.kind == "file":
            path.write_bytes(entry.data)
        elif entry.kind == "copy":
            try:
                shutil.copyfile(entry.target, path)
            except OSError:
                path.write_bytes(b"")
        elif entry.kind == "dir":
            path.mkdir(exist_ok=True)
        elif entry.kind == "fifo":
            setup.append(f"[ -p {q} ] || mkfifo {q}")
        elif entry.kind == "symlink":
            setup.append(f"[ -L {q} ] || ln -s {shlex.quote(entry.target)} {q}")
        elif entry.kind == "sparse":
            setup.append(f"[ -e {q} ] || truncate -s {entry.size} {q}")
    argv = [shlex.quote(a).replace("'{CASE}", '"$PWD"\'') for a in case.argv]
    env = "".join(f"{k}={shlex.quote(v)} " for k, v in (case.env or {}).items())
    command = f"{env}\"${{FAIRSHARE:-fairshare}}\" {' '.join(argv)}"
    script = [
        "#!/bin/sh",
        f"# {cause.cls}: {cause.message[:200]}".replace("\n", " "),
        f"# {task.description[:200]}".replace("\n", " "),
        f"# rebuilt by: python -m fuzz --seed {settings.seed} --task {task.id}",
        "# FAIRSHARE=/path/to/.venv/bin/fairshare picks the CLI (default: fairshare on PATH)",
        'cd "$(dirname "$0")/files" || exit 1',
        *setup,
        command,
        "",
    ]
    (target / "command.sh").write_bytes("\n".join(script).encode("utf-8", "surrogateescape"))
    (target / "command.sh").chmod(0o755)
    run = cause.best_run
    if run is not None:
        (target / "stdout.txt").write_bytes(run.stdout)
        (target / "stderr.txt").write_bytes(run.stderr)
    (target / "finding.txt").write_text(
        f"class: {cause.cls}\nmessage: {cause.message}\nsignature: {cause.signature}\n"
        f"runs with this cause: {cause.runs} (in {len(cause.tasks)} tasks)\n"
        f"task: {task.id}: {task.description}\ncase: {case.id}\n"
        f"exit: {run.exit_code if run else '?'} signal: {run.signal if run else '?'} "
        f"wall: {run.wall_s if run else 0:.2f} s, max RSS: {run.max_rss_mb if run else 0:.0f} "
        f"MB, mode: {run.mode if run else '?'}\n", encoding="utf-8", errors="backslashreplace")


def rebuilder(settings: Settings, corpus_: Any) -> Any:
    """A function from a job to its task, in the main process (for reproducers)."""
    cache: dict[tuple[str, int], Task] = {}

    def rebuild(job: Job | None) -> Task:
        if job is None:
            raise ValueError("no job")
        if job.task is not None:
            return job.task
        key = (job.kind, job.index)
        if key not in cache:
            if len(cache) > 64:
                cache.clear()
            cache[key] = worker.build(job, settings, corpus_)
        return cache[key]

    return rebuild

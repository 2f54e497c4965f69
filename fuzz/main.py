"""``python -m fuzz``: the fuzz suite's command line (``make fuzz``; docs/reliability.md).

Phases, on ``--jobs`` worker processes (2 by default):

1. **baseline** — every example, unmutated, under every command that reads it: all must pass
   (their outputs are also what mutant runs find in a pre-populated OUTDIR);
2. **fork check** — some cases run both in the fork server and as real subprocesses: exit
   code, stdout, stderr and outputs must agree (skipped with ``--subprocess``);
3. **mutants** — ``--mutants`` mutated inputs (files of examples/, paths replaced by
   directories, FIFOs, /dev/zero…, hostile option values), each run under the commands that
   read it;
4. **scenarios** — ``--scenarios`` random valid scenarios, each run four times (twice, with
   another PYTHONHASHSEED in a subprocess, with ``--fixed-interval``): invariants and
   determinism.

Everything is derived from ``--seed``; ``--task m00042`` (or ``s00007``) runs one task again
and prints what it found. Exit status 1 when anything failed, 0 otherwise.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from pathlib import Path

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from fuzz import cases, corpus, report, runner, worker
from fuzz.cases import Task
from fuzz.worker import Job, Settings, TaskResult

FULL = {"mutants": 3000, "scenarios": 300, "timeout": 60.0, "verify": 60}
SMOKE = {"mutants": 220, "scenarios": 24, "timeout": 20.0, "verify": 12}
WORKER_HASH_SEED = "0"  # workers (and so forked runs) hash with this; the check uses another
OTHER_HASH_SEED = "4242"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m fuzz",
        description="Fuzz fairshare: mutated examples and random valid scenarios "
        "(docs/reliability.md).")
    p.add_argument("--smoke", action="store_true",
                   help=f"a bounded run for CI: {SMOKE['mutants']} mutants, "
                   f"{SMOKE['scenarios']} scenarios, {SMOKE['timeout']:g} s per run")
    p.add_argument("--seed", type=int, default=1, help="derives every mutant and scenario")
    p.add_argument("--mutants", type=int, help=f"mutated inputs (default {FULL['mutants']})")
    p.add_argument("--scenarios", type=int,
                   help=f"random valid scenarios (default {FULL['scenarios']})")
    p.add_argument("--jobs", type=int, default=max(1, min(2, os.cpu_count() or 1)),
                   help="worker processes (default 2)")
    p.add_argument("--timeout", type=float,
                   help=f"seconds per run before it counts as a hang (default "
                   f"{FULL['timeout']:g}, smoke {SMOKE['timeout']:g})")
    p.add_argument("--memory-mb", type=int, default=1536,
                   help="peak resident memory per run before it fails (default 1536)")
    p.add_argument("--address-space-mb", type=int, default=8192,
                   help="RLIMIT_AS per run, a hard guard above --memory-mb (default 8192)")
    p.add_argument("--subprocess", action="store_true",
                   help="start the real CLI for every run (slower: ~1 s of imports each)")
    p.add_argument("--verify", type=int,
                   help="mutant tasks also run as real subprocesses to check the fork server "
                   f"(default {FULL['verify']}, smoke {SMOKE['verify']})")
    p.add_argument("--only", action="append", choices=["baseline", "mutants", "scenarios"],
                   help="run only these phases (repeatable)")
    p.add_argument("--task", action="append", default=[],
                   help="run only this task (m00042, s00007; repeatable) and show its results")
    p.add_argument("--examples", default="examples", help="the seed corpus (default examples)")
    p.add_argument("--out", default="out/fuzz",
                   help="reproducers and report.json / report.md (default out/fuzz)")
    p.add_argument("--work-dir", help="where cases run (default: a new directory in $TMPDIR)")
    args = p.parse_args(argv)
    defaults = SMOKE if args.smoke else FULL
    for key in ("mutants", "scenarios", "timeout", "verify"):
        if getattr(args, key) is None:
            setattr(args, key, defaults[key])
    if args.memory_mb >= args.address_space_mb:
        p.error("--address-space-mb must be above --memory-mb")
    return args


# A task's cost relative to a mutant's, for the ETA: measured on a full run (seed 2: 0.12 s
# a mutant or baseline task, twice that to verify a case both ways, 1 s a random scenario,
# which is run four times and checked). Counting tasks alike put the ETA minutes short.
COST = {"baseline": 1, "mutant": 1, "verify": 2, "scenario": 8}


class Ticker:
    """Progress with an ETA on stderr: a bar on a terminal, a line every 15 s otherwise.
    Both measure work done in :data:`COST` units, so the ETA holds across phases."""

    def __init__(self, jobs: Sequence[Job]) -> None:
        self.console = Console(stderr=True)
        self.total, self.done, self.failures = len(jobs), 0, 0
        self.cost_total, self.cost_done = sum(COST[job.kind] for job in jobs), 0
        self.start = time.monotonic()
        self.last_line = self.start
        self.progress: Progress | None = None
        self.task: TaskID | None = None
        if self.console.is_terminal:
            self.progress = Progress(
                TextColumn("{task.description}"), BarColumn(),
                TextColumn("{task.fields[tasks]} tasks"),
                TextColumn("{task.fields[failures]} failing"), TimeElapsedColumn(),
                TextColumn("ETA"), TimeRemainingColumn(), console=self.console)
            self.progress.start()
            self.task = self.progress.add_task("fuzz", total=self.cost_total, failures=0,
                                               tasks=f"0/{self.total:,}")

    def phase(self, name: str) -> None:
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, description=name)
        else:
            self.console.print(f"fuzz: {name} …", markup=False)

    def advance(self, job: Job, failures: int) -> None:
        self.done += 1
        self.cost_done += COST[job.kind]
        self.failures = failures
        if self.progress is not None and self.task is not None:
            self.progress.update(self.task, advance=COST[job.kind], failures=failures,
                                 tasks=f"{self.done:,}/{self.total:,}")
            return
        now = time.monotonic()
        if now - self.last_line >= 15 or self.done == self.total:
            self.last_line = now
            elapsed = now - self.start
            eta = elapsed / self.cost_done * (self.cost_total - self.cost_done)
            self.console.print(f"fuzz: {self.done:,}/{self.total:,} tasks, {failures:,} failing "
                               f"runs, {elapsed:,.0f} s elapsed, ETA {eta:,.0f} s", markup=False)

    def stop(self) -> None:
        if self.progress is not None:
            self.progress.stop()


def _run_jobs(pool: ProcessPoolExecutor, jobs: Iterable[Job], window: int,
              ) -> Iterator[TaskResult]:
    """Results as they come, with at most ``window`` jobs in flight."""
    pending: set[Future[TaskResult]] = set()
    for job in jobs:
        pending.add(pool.submit(worker.execute, job))
        if len(pending) >= window:
            done, pending = wait(pending, return_when=FIRST_COMPLETED)
            yield from (f.result() for f in done)
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
        yield from (f.result() for f in done)


def _verify_jobs(c: corpus.Corpus, args: argparse.Namespace, baseline: Path) -> list[Job]:
    """Cases for the fork-server check: one per example folder, and the first mutants'."""
    tasks = [Task(t.id, "verify", t.target, t.description, t.cases[-1:])
             for t in cases.baseline_tasks(c)]
    for index in range(args.verify):
        task = cases.mutant_task(c, args.seed, index, baseline)
        tasks.append(Task(task.id, "verify", task.target, task.description, task.cases[:1]))
    return [Job("verify", task=t) for t in tasks]


def _selected(args: argparse.Namespace) -> list[Job]:
    jobs = []
    for name in args.task:
        kind = {"m": "mutant", "s": "scenario"}.get(name[:1])
        if kind is None or not name[1:].isdigit():
            raise SystemExit(f"--task: {name}: give m<index> or s<index>, e.g. m00042")
        jobs.append(Job(kind, int(name[1:])))
    return jobs


def _show(console: Console, result: TaskResult) -> None:
    console.print(f"{result.task_id}: {result.description}", markup=False)
    for run in result.runs:
        console.print(f"  {run.case_id} [{run.mode}] fairshare {' '.join(run.argv)} -> exit "
                      f"{run.exit_code} signal {run.signal} in {run.wall_s:.2f} s, "
                      f"{run.max_rss_mb:.0f} MB", markup=False)
        tail = run.stderr.decode("utf-8", "replace").strip().splitlines()[-6:]
        for line in tail:
            console.print(f"      {line[:300]}", markup=False)
        for finding in run.findings:
            console.print(f"    FAIL {finding.cls}: {finding.message[:300]}", markup=False)
    for finding in result.findings:
        console.print(f"  FAIL {finding.cls}: {finding.message[:300]}", markup=False)
    if result.error:
        console.print(f"  harness error: {result.error}", markup=False)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    console = Console(stderr=True)
    started = time.monotonic()
    os.environ["PYTHONHASHSEED"] = WORKER_HASH_SEED
    examples = Path(args.examples).resolve()
    c = corpus.load(examples)
    work_root = Path(tempfile.mkdtemp(prefix="fairshare-fuzz-", dir=args.work_dir))
    baseline_dir = work_root / "baseline"
    baseline_dir.mkdir()
    out_dir = Path(args.out)
    settings = Settings(
        examples=str(examples), seed=args.seed,
        limits=runner.Limits(timeout_s=args.timeout, max_rss_mb=args.memory_mb,
                             address_space_mb=args.address_space_mb),
        fork=not args.subprocess, work_root=str(work_root), baseline_dir=str(baseline_dir),
        other_hash_seed=OTHER_HASH_SEED)
    selected = _selected(args)
    phases = set(args.only or ["baseline", "mutants", "scenarios"])
    if not selected and out_dir.exists():
        shutil.rmtree(out_dir)
    results = report.Report(out_dir, settings)
    rebuild = report.rebuilder(settings, c)
    baseline_jobs = [Job("baseline", task=t) for t in cases.baseline_tasks(c)]
    mutant_jobs = [Job("mutant", i) for i in range(args.mutants)]
    scenario_jobs = [Job("scenario", i) for i in range(args.scenarios)]
    plan: list[tuple[str, list[Job]]] = []
    if selected:
        plan = [("selected tasks", baseline_jobs + selected)]
    else:
        if "baseline" in phases or "mutants" in phases:
            plan.append(("baseline", baseline_jobs))
        if "mutants" in phases:
            verify = [] if args.subprocess else _verify_jobs(c, args, baseline_dir)
            plan.append(("mutants", verify + mutant_jobs))
        if "scenarios" in phases:
            plan.append(("scenarios", scenario_jobs))
    ticker = Ticker([job for _, jobs in plan for job in jobs])
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=args.jobs, mp_context=context,
                               initializer=worker.init, initargs=(settings,))
    interrupted = False
    try:
        for name, jobs in plan:
            ticker.phase(name)
            phase_start = time.monotonic()
            for result in _run_jobs(pool, jobs, window=4 * args.jobs):
                results.add(result)
                if selected and result.job.kind != "baseline":
                    _show(console, result)
                ticker.advance(result.job, results.failures)
            results.phase_seconds[name] = time.monotonic() - phase_start
    except KeyboardInterrupt:
        interrupted = True
        console.print("fuzz: interrupted; reporting what ran", markup=False)
    finally:
        ticker.stop()
        pool.shutdown(wait=not interrupted, cancel_futures=True)
    seconds = time.monotonic() - started
    if not selected:
        results.save_reproducers(rebuild)
        results.write(seconds, {k: v for k, v in vars(args).items()
                                if k not in ("task", "work_dir")})
    results.print(Console(stderr=True, width=max(120, console.width)), seconds)
    shutil.rmtree(work_root, ignore_errors=True)
    if not selected:
        console.print(f"reproducers and report: {out_dir}/", markup=False)
    failed = results.failures > 0 or bool(results.errors) or bool(results.verify_mismatches)
    return 130 if interrupted else (1 if failed else 0)


def entry() -> None:
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    sys.exit(main())

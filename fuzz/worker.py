"""What a worker process does: build a task's cases, run them, check them.

Workers are started with ``spawn`` (a clean interpreter each) and import the CLI once
(:func:`fuzz.runner.warm_up`) when the fork server is used. A task arrives as a small
:class:`Job` — which mutant or scenario (from the seed and its index), or a baseline task —
and the worker builds it itself, so the main process only schedules and reports.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from fuzz import cases as cases_mod
from fuzz import checks, corpus, invariants, runner, scengen
from fuzz.cases import Case, Entry, Task
from fuzz.checks import Finding
from fuzz.runner import Limits, RunResult

KEEP_BYTES = 64 * 1024  # stdout / stderr kept per run for reports


@dataclass(frozen=True)
class Settings:
    examples: str
    seed: int
    limits: Limits
    fork: bool
    work_root: str
    baseline_dir: str
    other_hash_seed: str


@dataclass(frozen=True)
class Job:
    kind: str  # baseline | mutant | scenario | verify
    index: int = 0
    task: Task | None = None  # baseline and verify jobs carry their task


@dataclass
class CaseResult:
    case_id: str
    command: str
    argv: tuple[str, ...]
    exit_code: int | None
    signal: int | None
    timed_out: bool
    wall_s: float
    max_rss_mb: float
    mode: str
    stdout: bytes
    stderr: bytes
    findings: list[Finding]
    input_bytes: int = 0  # the size of the case's inputs (the smallest failing one is kept)


@dataclass
class TaskResult:
    job: Job
    task_id: str
    kind: str
    target: str
    description: str
    runs: list[CaseResult] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)  # task-level: determinism
    error: str | None = None  # the harness itself failed
    meta: dict[str, Any] = field(default_factory=dict)

    def all_findings(self) -> list[tuple[CaseResult | None, Finding]]:
        out: list[tuple[CaseResult | None, Finding]] = [(None, f) for f in self.findings]
        for run in self.runs:
            out += [(run, f) for f in run.findings]
        return out


_settings: Settings | None = None
_corpus: corpus.Corpus | None = None


def init(settings: Settings) -> None:
    """Pool initializer: remember the settings, load the corpus, import the CLI once."""
    global _settings, _corpus
    _settings = settings
    _corpus = corpus.load(Path(settings.examples))
    if settings.fork:
        runner.warm_up()
    else:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        os.close(devnull)


def build(job: Job, settings: Settings, c: corpus.Corpus) -> Task:
    if job.task is not None:
        return job.task
    if job.kind == "mutant":
        return cases_mod.mutant_task(c, settings.seed, job.index, Path(settings.baseline_dir))
    if job.kind == "scenario":
        return scenario_task(settings, job.index)
    raise ValueError(job.kind)


def scenario_task(settings: Settings, index: int) -> Task:
    generated = scengen.generate(settings.seed, index)
    files = {name: Entry("file", data) for name, data in generated.files.items()}
    scenario = generated.scenario
    base = f"s{index:05d}"
    argv = ("run", scenario, "-o", "out", "--quiet")
    hint = f"scenario:{generated.edge or 'plain'}"
    runs = (
        Case(f"{base}.1", "run", argv, files, "out", (), True, hint),
        Case(f"{base}.2", "run", argv, files, "out", (), True, hint),
        Case(f"{base}.3", "run", argv, files, "out", (), True, hint,
             env={"PYTHONHASHSEED": settings.other_hash_seed}),
        Case(f"{base}.4", "run", (*argv, "--fixed-interval"), files, "out", (), True, hint),
    )
    description = f"generated scenario {index}" + (f" (edge: {generated.edge})"
                                                    if generated.edge else "")
    return Task(base, "scenario", "scenario", description, runs, dict(generated.meta))


def materialize(case: Case, root: Path) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for name, entry in sorted(case.files.items()):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if entry.kind == "file":
            path.write_bytes(entry.data)
        elif entry.kind == "copy":
            shutil.copyfile(entry.target, path)
        elif entry.kind == "dir":
            path.mkdir(exist_ok=True)
        elif entry.kind == "fifo":
            os.mkfifo(path)
        elif entry.kind == "symlink":
            os.symlink(entry.target, path)
        elif entry.kind == "sparse":
            with path.open("wb") as f:
                f.truncate(entry.size)
        else:
            raise ValueError(entry.kind)


def _argv(case: Case, case_dir: Path) -> list[str]:
    return [a.replace("{CASE}", str(case_dir)) for a in case.argv]


def run_case(case: Case, settings: Settings, case_dir: Path, *, fork: bool | None = None
             ) -> tuple[CaseResult, Path]:
    materialize(case, case_dir)
    before = checks.snapshot(case_dir)
    io_dir = case_dir.parent / (case_dir.name + ".io")
    io_dir.mkdir()
    result = runner.run(_argv(case, case_dir), case_dir, io_dir, settings.limits,
                        fork=settings.fork if fork is None else fork, env=case.env)
    findings = checks.check_run(case, result, case_dir, before, settings.limits)
    return _case_result(case, result, findings), case_dir


def _case_result(case: Case, r: RunResult, findings: list[Finding]) -> CaseResult:
    size = sum(len(e.data) + e.size for e in case.files.values())
    return CaseResult(case.id, case.command, case.argv, r.exit_code, r.signal, r.timed_out,
                      r.wall_s, r.max_rss_mb, r.mode, _keep(r.stdout), _keep(r.stderr),
                      findings, size)


def _keep(data: bytes) -> bytes:
    if len(data) <= KEEP_BYTES:
        return data
    return data[:KEEP_BYTES // 2] + b"\n[... cut ...]\n" + data[-KEEP_BYTES // 2:]


def execute(job: Job) -> TaskResult:
    """Run one job (in a worker)."""
    assert _settings is not None and _corpus is not None
    settings = _settings
    try:
        task = build(job, settings, _corpus)
    except Exception as e:
        return TaskResult(job, f"{job.kind}-{job.index}", job.kind, "?", "?",
                          error=f"building the task failed: {type(e).__name__}: {e}")
    result = TaskResult(job, task.id, task.kind, task.target, task.description,
                        meta=dict(task.meta))
    scratch = Path(tempfile.mkdtemp(prefix=f"{task.id}-", dir=settings.work_root))
    try:
        if job.kind == "verify":
            _verify(task, settings, scratch, result)
        elif task.kind == "scenario":
            _scenario(task, settings, scratch, result)
        else:
            for i, case in enumerate(task.cases):
                run, case_dir = run_case(case, settings, scratch / f"c{i}")
                result.runs.append(run)
                if task.kind == "baseline":
                    _keep_baseline(case, run, case_dir, settings)
    except Exception as e:
        import traceback

        result.error = f"harness error: {type(e).__name__}: {e}\n{traceback.format_exc()}"
    finally:
        _remove(scratch)
    return result


def _keep_baseline(case: Case, run: CaseResult, case_dir: Path, settings: Settings) -> None:
    """Keep a passing example's outputs: mutant cases put them in OUTDIR beforehand."""
    if case.command != "run" or run.exit_code != 0 or run.findings or case.outdir is None:
        return
    scenario = case.argv[1]
    folder = case.id[2:].rsplit(".", 1)[0]
    target = Path(settings.baseline_dir) / folder / scenario
    if target.exists():
        return
    target.mkdir(parents=True)
    for path in (case_dir / case.outdir).iterdir():
        if path.is_file():
            shutil.copyfile(path, target / path.name)


def _scenario(task: Task, settings: Settings, scratch: Path, result: TaskResult) -> None:
    outdirs: list[Path] = []
    labels = ["(first run)", "between two runs", "with PYTHONHASHSEED="
              f"{settings.other_hash_seed} (a subprocess)", "with --fixed-interval"]
    for i, case in enumerate(task.cases):
        run, case_dir = run_case(case, settings, scratch / f"c{i}")
        result.runs.append(run)
        outdirs.append(case_dir / "out")
        if i == 0 and (run.exit_code != 0 or run.findings):
            if run.exit_code == 2 and not run.findings:
                run.findings.append(Finding(
                    "bad-exit", "exit 2 on a generated valid scenario: "
                    + run.stderr.decode("utf-8", "replace").strip().splitlines()[0][:200]
                    if run.stderr.strip() else "exit 2 on a generated valid scenario",
                    "bad-exit|2|generated scenario"))
            return  # the first run failed: the rest would say the same
    first = result.runs[0]
    if first.exit_code == 0 and not first.findings:
        result.findings += invariants.check_outputs(outdirs[0], task.meta)
    for i in range(1, len(task.cases)):
        if result.runs[i].exit_code == first.exit_code and not result.runs[i].findings:
            result.findings += invariants.compare_runs(outdirs[0], outdirs[i], labels[i])


def _verify(task: Task, settings: Settings, scratch: Path, result: TaskResult) -> None:
    """The same cases in the fork server and as real subprocesses: the results must agree."""
    for i, case in enumerate(task.cases):
        # both in the same directory (messages name absolute paths), one after the other
        a, dir_a = run_case(case, settings, scratch / f"v{i}", fork=True)
        kept = scratch / f"fork{i}"
        if case.outdir is not None and (dir_a / case.outdir).is_dir():
            shutil.copytree(dir_a / case.outdir, kept, symlinks=True)
        _remove(dir_a)
        _remove(scratch / f"v{i}.io")
        b, dir_b = run_case(replace(case, id=case.id + "-sub"), settings, scratch / f"v{i}",
                            fork=False)
        result.runs += [a, b]
        differences = []
        if a.exit_code != b.exit_code or a.signal != b.signal:
            differences.append(f"exit {a.exit_code}/{a.signal} vs {b.exit_code}/{b.signal}")
        if a.stdout != b.stdout:
            differences.append("stdout differs")
        if _strip_frames(a.stderr) != _strip_frames(b.stderr):
            differences.append("stderr differs")
        if case.outdir is not None:
            for name in cases_mod.OUTPUT_NAMES:
                fa, fb = kept / name, dir_b / case.outdir / name
                if fa.is_file() != fb.is_file() or (
                        fa.is_file() and name != "timeline.parquet" and
                        fa.read_bytes() != fb.read_bytes()):
                    differences.append(f"{name} differs")
        if differences:
            result.meta.setdefault("verify", []).append(f"{case.id}: {'; '.join(differences)}")
        result.meta.setdefault("verified", 0)
        result.meta["verified"] = int(result.meta["verified"]) + 1


def _strip_frames(stderr: bytes) -> bytes:
    """A traceback without the frames above fairshare's main() (the harness's or the
    console script's), so both modes can be compared."""
    text = stderr.decode("utf-8", "replace")
    out, skipping = [], False
    for line in text.splitlines():
        if line.startswith("Traceback (most recent call last)"):
            out.append(line)
            skipping = True
            continue
        if skipping:
            if line.startswith("  File ") and "fairshare/cli/main.py" in line:
                skipping = False
            else:
                continue
        out.append(line)
    return "\n".join(out).encode()


def _remove(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
    if path.exists():  # e.g. a directory left without write permission
        for root, dirs, _ in os.walk(path):
            for d in dirs:
                with contextlib.suppress(OSError):
                    os.chmod(os.path.join(root, d), 0o755)
        shutil.rmtree(path, ignore_errors=True)

"""One oracle run: prepare every case, run the driver on them (twice: the self-check), compare.

Phases, each with a progress bar and an ETA:

1. **fairshare** — each case is prepared in a worker process (:func:`oracle.cases.prepare`):
   its scenario, the driver's input and fairshare's own run;
2. **hadoop** — the driver runs the ready cases in batches, one JVM per batch and ``jobs``
   JVMs at once, writing ``oracle/``; then again into ``oracle-again/``, and the two must be
   byte-identical (the driver is deterministic, or the comparison means nothing);
3. **compare** — :func:`oracle.compare.compare_runs` on each case.

The driver is built with Maven first (``oracle/driver``; offline once its dependencies are in
the local repository).
"""

from __future__ import annotations

import filecmp
import json
import shutil
import subprocess
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from oracle.cases import ROOT, Case, Prepared, prepare
from oracle.known import known_difference
from oracle.output_files import OracleOutputError

DRIVER = ROOT / "oracle" / "driver"
JAR = DRIVER / "target" / "oracle-driver.jar"
BATCH = 200  # scenarios per JVM: enough to amortise its start, small enough to show progress


class OracleError(Exception):
    """The oracle itself cannot run (no JDK, a build that fails): exit 2."""


@dataclass
class Outcome:
    case: Case
    # identical, differ, known (a difference docs/fidelity.md explains: oracle.known),
    # driver-error, not-comparable, invalid, nondeterministic
    status: str
    reason: str = ""
    report: Any = None  # the comparison (oracle.compare.Comparison) when it was compared
    shrunk: Path | None = None  # the shrunk scenario, whose comparison ``report`` then is


@dataclass
class RunSummary:
    outcomes: list[Outcome] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def compared(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status in ("identical", "differ", "known")]

    @property
    def failed(self) -> bool:
        return any(o.status in ("differ", "driver-error", "nondeterministic")
                   or (o.status == "invalid" and o.case.kind == "random")
                   for o in self.outcomes)


def build_driver(console: Console) -> Path:
    """``mvn package`` in oracle/driver; offline when the local repository has everything."""
    if shutil.which("mvn") is None or shutil.which("java") is None:
        raise OracleError("the oracle needs a JDK (17) and Maven on PATH: java and mvn")
    console.print("oracle: building the driver (Maven)…")
    offline = _maven(["-o"]) if (Path.home() / ".m2" / "repository").exists() else None
    if offline is None or offline.returncode != 0:
        online = _maven([])
        if online.returncode != 0:
            raise OracleError("the driver does not build:\n" + online.stdout[-4000:])
    return JAR


def _maven(extra: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["mvn", "-B", "-q", *extra, "package", "-DskipTests"], cwd=DRIVER,
                          capture_output=True, text=True, check=False)


def _progress(console: Console) -> Progress:
    return Progress(TextColumn("{task.description:<10}"), BarColumn(),
                    TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                    TextColumn("ETA"), TimeRemainingColumn(), console=console, transient=True)


def prepare_all(cases: Sequence[Case], workdir: Path, jobs: int,
                console: Console) -> list[Prepared]:
    out: list[Prepared] = []
    with _progress(console) as progress, ProcessPoolExecutor(jobs) as pool:
        bar = progress.add_task("fairshare", total=len(cases))
        futures = [pool.submit(prepare, case, workdir / case.name) for case in cases]
        for future in as_completed(futures):
            out.append(future.result())
            progress.advance(bar)
    order = {case.name: i for i, case in enumerate(cases)}
    return sorted(out, key=lambda p: order[p.case.name])


def run_driver_twice(jar: Path, directories: Sequence[Path], jobs: int,
                     console: Console) -> None:
    """The driver on every directory, twice: ``oracle-again/`` is the first run, ``oracle/``
    the second; :func:`self_check` compares them."""
    batches = driver_batches(directories)
    run_driver(jar, batches, jobs, console, "hadoop")
    for directory in directories:
        shutil.rmtree(directory / "oracle-again", ignore_errors=True)
        if (directory / "oracle").exists():
            (directory / "oracle").rename(directory / "oracle-again")
    run_driver(jar, batches, jobs, console, "again")


def run_driver(jar: Path, batches: Sequence[Sequence[Path]], jobs: int, console: Console,
               label: str) -> None:
    """The driver on every directory of ``batches`` (one JVM each, :func:`driver_batches`),
    into ``<dir>/oracle``, ``jobs`` JVMs at a time."""
    with _progress(console) as progress:
        bar = progress.add_task(label, total=sum(map(len, batches)))
        running: list[subprocess.Popen[str]] = []
        for batch in batches:
            while len(running) >= jobs:
                running = _reap(running, progress, bar)
            running.append(subprocess.Popen(
                ["java", "-jar", str(jar), *map(str, batch)], stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True))
        while running:
            running = _reap(running, progress, bar)


def driver_batches(directories: Sequence[Path]) -> list[list[Path]]:
    """At most ``BATCH`` scenarios per JVM, each JVM's of one set of resource types:
    ``DominantResourceFairnessPolicy`` counts the resource types once per JVM, when the class
    is loaded (a static final), as a ResourceManager does at start-up."""
    by_types: dict[str, list[Path]] = {}
    for directory in directories:
        site = json.loads((directory / "scenario.json").read_text(encoding="utf-8"))["site"]
        by_types.setdefault(str(site.get("yarn.resource-types", "")), []).append(directory)
    return [group[i:i + BATCH] for group in by_types.values()
            for i in range(0, len(group), BATCH)]


def _reap(running: list[subprocess.Popen[str]], progress: Progress,
          bar: Any) -> list[subprocess.Popen[str]]:
    """Wait for the first JVM, counting the lines it printed (one per scenario)."""
    first = running[0]
    assert first.stdout is not None
    for _line in first.stdout:
        progress.advance(bar)
    if first.wait() != 0:
        batch = len(first.args) - 3 if isinstance(first.args, list) else "?"  # java -jar JAR
        raise OracleError(f"the driver failed (exit {first.returncode}) on a batch of "
                          f"{batch} scenarios")
    return running[1:]


def self_check(directory: Path) -> str | None:
    """None when the two driver runs wrote the same files, else the first that differs."""
    first, again = directory / "oracle", directory / "oracle-again"
    if not (first.is_dir() and again.is_dir()):
        return "its output directory (the driver stopped)"
    names = sorted({p.name for p in first.iterdir()} | {p.name for p in again.iterdir()})
    for name in names:
        a, b = first / name, again / name
        if not (a.exists() and b.exists() and filecmp.cmp(a, b, shallow=False)):
            return name
    return None


def compare_case(prepared: Prepared, directory: Path,
                 compare: Callable[[Path, Path, Sequence[dict[str, Any]]], Any],
                 steps: Sequence[dict[str, Any]]) -> Outcome:
    error = directory / "oracle" / "error.txt"
    if error.exists():
        first = error.read_text(encoding="utf-8").strip().splitlines()
        return Outcome(prepared.case, "driver-error", first[0] if first else "")
    different = self_check(directory)
    if different is not None:
        return Outcome(prepared.case, "nondeterministic",
                       f"two driver runs wrote different {different}")
    try:
        report = compare(directory / "fairshare", directory / "oracle", steps)
    except OracleOutputError as e:  # an output file that cannot be read: this case fails
        return Outcome(prepared.case, "driver-error", str(e))
    if report.identical:
        return Outcome(prepared.case, "identical", prepared.reason, report=report)
    known = known_difference(prepared.case.name, report.first)
    if known is not None:
        return Outcome(prepared.case, "known", known.why, report=report)
    return Outcome(prepared.case, "differ", report=report)


def skipped(prepared: Iterable[Prepared]) -> list[Outcome]:
    return [Outcome(p.case, p.status, p.reason) for p in prepared if p.status != "ready"]

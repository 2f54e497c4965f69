"""The scenarios the oracle compares, and how one is prepared for both sides.

A case is a scenario file of ``examples/`` or ``tests/``, or a random scenario drawn by
:mod:`oracle.generate` from a seed. Preparing it (in a worker process) writes, under the case's
directory:

* ``scenario.yaml`` — the scenario to replay it with ``fairshare run`` (a file case: a copy of
  the original; its relative paths are resolved from the original's directory, recorded in
  ``source.txt``);
* ``scenario.json`` — the driver's input (:mod:`oracle.normalise`);
* ``fairshare/events.jsonl`` and ``fairshare/snapshots.json`` — fairshare's run, each event
  with the index of the step that produced it (``step``, −1 before the first step);
* ``fairshare/rest.jsonl`` — at each snapshot, fairshare's REST answers for it
  (:mod:`oracle.rest`), when fairshare has its REST layer.
"""

from __future__ import annotations

import json
import shutil
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from fairshare.config.errors import ConfigError, ConfigErrors
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.parse.steps import SnapshotStep
from fairshare.sim.record.outputs import json_text
from fairshare.sim.run.scripted import ScriptRunner
from oracle.normalise import NotComparable, normalise
from oracle.rest import Renderer, fairshare_renderer, rest_line
from oracle.trace import trace_workload

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Case:
    name: str  # also its directory's name
    kind: str  # "example", "test" or "random"
    path: Path | None = None  # a file case's scenario
    seed: int | None = None  # a random case's seed
    hash_order: bool = False  # random: may depend on Java hash-map order (oracle.generate)
    document: dict[str, Any] | None = field(default=None, compare=False)  # a shrunk candidate


@dataclass(frozen=True)
class Prepared:
    case: Case
    status: str  # "ready", or "not-comparable" / "invalid" with ``reason``
    reason: str = ""  # when ready: how far a workload is compared, if not to its end
    steps: int = 0


def file_cases() -> Iterator[Case]:
    """Every scenario of examples/ and tests/ (a YAML file with a ``version`` key that is not a
    workload-format fixture), in path order."""
    for kind, folder in (("example", ROOT / "examples"), ("test", ROOT / "tests")):
        for path in sorted(folder.rglob("*.yaml")):
            if _is_scenario(path):
                rel = path.relative_to(folder).with_suffix("")
                yield Case(f"{kind}-{str(rel).replace('/', '-')}", kind, path=path)


def _is_scenario(path: Path) -> bool:
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        return False
    return isinstance(doc, dict) and "version" in doc


def random_cases(n: int, seed: int, hash_order: bool) -> Iterator[Case]:
    for i in range(n):
        yield Case(f"random-{seed + i:06d}", "random", seed=seed + i, hash_order=hash_order)


def scenario_document(case: Case) -> dict[str, Any]:
    """A random case's scenario, as :mod:`oracle.generate` draws it (or a shrunk candidate)."""
    if case.document is not None:
        return case.document
    from oracle.generate import generate  # not at import: file cases do not need it
    assert case.seed is not None
    return generate(case.seed, hash_order=case.hash_order)


def prepare(case: Case, directory: Path) -> Prepared:
    """Write the case's scenario, its normalised form and fairshare's run into ``directory``."""
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    scenario_path = directory / "scenario.yaml"
    if case.path is not None:
        shutil.copyfile(case.path, scenario_path)
        (directory / "source.txt").write_text(f"{case.path}\n", encoding="utf-8")
        source = case.path
    else:
        scenario_path.write_text(yaml.safe_dump(scenario_document(case), sort_keys=False,
                                                allow_unicode=True), encoding="utf-8")
        source = scenario_path
    partly = ""
    render = fairshare_renderer()
    rest = None if render is None else _RestRecorder(render)
    try:
        scenario = load_scenario(source)
        if scenario.workload is None:
            document = normalise(scenario)
            result = _RestRunner(scenario, rest).run()
            snapshots = result.snapshots
            records = [{**r, "step": step_of(i, result.step_bounds)}
                       for i, r in enumerate(result.records)]
        else:
            trace = trace_workload(scenario, rest)
            document = normalise(scenario, trace.steps)
            records, snapshots = trace.records, trace.snapshots
            partly = f"compared until {trace.stopped}" if trace.stopped else ""
    except NotComparable as e:
        return Prepared(case, "not-comparable", str(e))
    except (ConfigError, ConfigErrors) as e:
        return Prepared(case, "invalid", str(e).splitlines()[0])
    (directory / "scenario.json").write_text(json.dumps(document, indent=1) + "\n",
                                             encoding="utf-8")
    _write_run(directory / "fairshare", records, snapshots)
    if rest is not None:
        (directory / "fairshare" / "rest.jsonl").write_text(
            "".join(line + "\n" for line in rest.lines), encoding="utf-8")
    return Prepared(case, "ready", partly, steps=len(document["steps"]))


class _RestRecorder:
    """At each snapshot, fairshare's REST answers for the engine, as ``rest.jsonl`` lines."""

    def __init__(self, render: Renderer) -> None:
        self.render = render
        self.lines: list[str] = []
        self.snapshots = 0
        self.records: list[dict[str, Any]] = []  # the run's records so far (its lost nodes)

    def __call__(self, engine: Any, records: list[dict[str, Any]] | None = None) -> None:
        answers = self.render(engine, self.records if records is None else records)
        self.lines.extend(rest_line(self.snapshots, endpoint, body, error)
                          for endpoint, body, error in answers)
        self.snapshots += 1


class _RestRunner(ScriptRunner):
    """``fairshare run``'s scripted steps, with fairshare's REST answers at each snapshot."""

    def __init__(self, scenario: Any, record: _RestRecorder | None) -> None:
        super().__init__(scenario)
        self._record = record

    def _snapshot(self, step: SnapshotStep) -> None:
        super()._snapshot(step)
        if self._record is not None:
            self._record.records = self.result.records
            self._record(self.engine)


def _write_run(outdir: Path, records: list[dict[str, Any]],
               snapshots: list[dict[str, Any]]) -> None:
    outdir.mkdir()
    with (outdir / "events.jsonl").open("w", encoding="utf-8") as f:
        for record in records:
            f.write(json_text(record) + "\n")
    (outdir / "snapshots.json").write_text(json_text(snapshots, indent=1) + "\n",
                                           encoding="utf-8")


def step_of(index: int, bounds: list[int]) -> int:
    """The step that wrote record ``index``: −1 before the first step (the initial nodes)."""
    return min(bisect_right(bounds, index), len(bounds) - 1) - 1

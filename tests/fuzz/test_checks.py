"""The fuzz suite's contract checks, on made-up runs and output directories."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from fuzz import checks
from fuzz.cases import Case, Entry
from fuzz.runner import Limits, RunResult

TRACE = """Traceback (most recent call last):
  File "/x/.venv/bin/fairshare", line 8, in <module>
    sys.exit(main())
  File "/work/main/src/fairshare/cli/main.py", line 20, in main
    app()
  File "/work/main/src/fairshare/sim/run/loop.py", line 275, in _complete
    app = self.apps[app_id]
KeyError: 'a'
"""


def _result(code: int | None = 0, stderr: bytes = b"", stdout: bytes = b"", **kw: object
            ) -> RunResult:
    values: dict[str, object] = dict(exit_code=code, signal=None, timed_out=False,
                                     memory_killed=False, wall_s=0.1, max_rss_mb=50.0,
                                     stdout=stdout, stderr=stderr, mode="fork")
    values.update(kw)
    return RunResult(**values)  # type: ignore[arg-type]


def _case(tmp: Path, argv: tuple[str, ...], outdir: str | None = None,
          workload: bool | None = None) -> Case:
    files = {"scenario.yaml": Entry("file", b"version: 1\n")}
    (tmp / "scenario.yaml").write_bytes(b"version: 1\n")
    return Case("t.1", argv[0], argv, files, outdir, (), workload)


def _classes(findings: list[checks.Finding]) -> list[str]:
    return sorted(f.cls for f in findings)


def test_traceback_signature_names_the_exception_and_last_frames() -> None:
    exception, signature = checks.traceback_summary(TRACE)
    assert exception == "KeyError: 'a'"
    assert signature.startswith("KeyError @ sim/run/loop.py:_complete < cli/main.py:main")


@pytest.mark.parametrize(("line", "ok"), [
    ("scenario.yaml:3: steps[0]: unknown key 'x'", True),
    ("scenario.yaml: cannot read file: not a regular file", True),
    ("ex/../scenario.yaml:3:7: bad", True),
    ("--cluster: give absolute amounts", True),
    ("--active root.x: not a leaf queue", True),
    ("--site: nope", False),  # not an option of this command line
    ("Error: Invalid value", False),
    (" (column 29)", False),
    ("b'", False),
    ("/etc/passwd:1: outside the case", False),
])
def test_locations(tmp_path: Path, line: str, ok: bool) -> None:
    case = _case(tmp_path, ("shares", "scenario.yaml", "--cluster", "x", "--active", "y"))
    assert checks.location_ok(line, case, tmp_path) is ok


def test_absolute_paths_inside_the_case_are_locations(tmp_path: Path) -> None:
    case = _case(tmp_path, ("run", "scenario.yaml"))
    assert checks.location_ok(f"{tmp_path}/jobs.json:57: job #2: bad", case, tmp_path)


def test_finite_json() -> None:
    assert checks.finite_json('{"a": [1, 2.5, null]}') == {"a": [1, 2.5, None]}
    for text in ('{"a": NaN}', "[Infinity]", "[-Infinity]", "[1e400]"):
        with pytest.raises(checks.NotFinite):
            checks.finite_json(text)


def _write_outputs(out: Path, rows: int = 2) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "events.jsonl").write_text('{"t":0,"type":"node-added","seq":1}\n')
    (out / "snapshots.json").write_text("[]\n")
    header = ",".join(checks.TIMELINE_COLUMNS)
    body = [f"{i},root," + ",".join(["0"] * 17) for i in range(rows)]
    (out / "timeline.csv").write_text("\n".join([header, *body]) + "\n")
    table = pa.table({c: ([i for i in range(rows)] if c == "time_ms" else
                          ["root"] * rows if c == "queue" else [0] * rows)
                      for c in checks.TIMELINE_COLUMNS})
    pq.write_table(table, out / "timeline.parquet")
    (out / "summary.json").write_text(json.dumps({k: {} for k in checks.SUMMARY_KEYS}))


def test_complete_outputs_pass(tmp_path: Path) -> None:
    _write_outputs(tmp_path / "out")
    assert checks.check_outputs(tmp_path / "out", True) == []


def test_broken_outputs_are_found(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _write_outputs(out)
    (out / "events.jsonl").write_text('{"t":0,"type":"x","seq":1}\n{"t":1,"ty')
    (out / "summary.json").write_text('{"scenario": NaN}')
    problems = checks.check_outputs(out, True)
    assert any("no newline" in p for p in problems)
    assert any("summary.json: non-finite" in p for p in problems)
    (out / "timeline.parquet").unlink()
    assert any("timeline.parquet missing" in p for p in checks.check_outputs(out, None))


def test_timeline_csv_and_parquet_must_agree(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _write_outputs(out, rows=3)
    lines = (out / "timeline.csv").read_text().splitlines()
    (out / "timeline.csv").write_text("\n".join(lines[:-1]) + "\n")
    assert any("rows" in p for p in checks.check_outputs(out, True))


def test_run_classes(tmp_path: Path) -> None:
    limits = Limits(timeout_s=5)
    case = _case(tmp_path, ("validate", "scenario.yaml"))
    before = checks.snapshot(tmp_path)
    assert _classes(checks.check_run(case, _result(0), tmp_path, before, limits)) == []
    assert _classes(checks.check_run(case, _result(1, TRACE.encode()), tmp_path, before,
                                     limits)) == ["traceback"]
    assert _classes(checks.check_run(case, _result(3), tmp_path, before, limits)) == [
        "bad-exit"]
    assert _classes(checks.check_run(case, _result(None, signal=11), tmp_path, before,
                                     limits)) == ["bad-exit"]
    assert _classes(checks.check_run(case, _result(None, signal=9, timed_out=True), tmp_path,
                                     before, limits)) == ["hang"]
    assert _classes(checks.check_run(case, _result(None, signal=9, memory_killed=True),
                                     tmp_path, before, limits)) == ["memory"]
    assert _classes(checks.check_run(case, _result(2, b"Error: bad\n"), tmp_path, before,
                                     limits)) == ["unlocated"]
    assert _classes(checks.check_run(case, _result(2, b"scenario.yaml:1: bad\n"), tmp_path,
                                     before, limits)) == []
    assert _classes(checks.check_run(case, _result(1), tmp_path, before, limits)) == [
        "bad-exit"]  # validate has no expectations to fail


def test_a_failed_run_must_leave_the_directory_as_it_was(tmp_path: Path) -> None:
    case = _case(tmp_path, ("run", "scenario.yaml", "-o", "out"), outdir="out")
    before = checks.snapshot(tmp_path)
    (tmp_path / ".out-staging-123").mkdir()
    findings = checks.check_run(case, _result(2, b"scenario.yaml:1: bad\n"), tmp_path, before,
                                Limits())
    assert _classes(findings) == ["partial-output"]
    assert "new .out-staging-123" in findings[0].message


def test_a_successful_run_must_write_complete_outputs(tmp_path: Path) -> None:
    case = _case(tmp_path, ("run", "scenario.yaml", "-o", "out"), outdir="out", workload=True)
    before = checks.snapshot(tmp_path)
    _write_outputs(tmp_path / "out")
    assert checks.check_run(case, _result(0), tmp_path, before, Limits()) == []
    (tmp_path / "out" / "summary.json").unlink()
    assert _classes(checks.check_run(case, _result(0), tmp_path, before, Limits())) == [
        "partial-output"]


def test_without_outdir_nothing_may_be_written(tmp_path: Path) -> None:
    case = _case(tmp_path, ("run", "scenario.yaml"))
    before = checks.snapshot(tmp_path)
    (tmp_path / "events.jsonl").write_text("")
    assert _classes(checks.check_run(case, _result(0), tmp_path, before, Limits())) == [
        "partial-output"]


def test_code_that_ran_is_unsafe(tmp_path: Path) -> None:
    case = _case(tmp_path, ("run", "scenario.yaml"))
    (tmp_path / "PWNED_BY_FUZZ").write_text("")
    before = checks.snapshot(tmp_path)
    assert _classes(checks.check_run(case, _result(2, b"scenario.yaml:1: x\n"), tmp_path,
                                     before, Limits())) == ["unsafe"]


def test_an_unquoted_line_break_in_the_timeline_is_found(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _write_outputs(out, rows=1)
    zeros = ",".join(["0"] * 17)
    (out / "timeline.csv").write_text(
        ",".join(checks.TIMELINE_COLUMNS) + f"\n0,root.a\rb,{zeros}\n", newline="")
    assert any("2 fields" in p for p in checks.check_outputs(out, True))


def test_an_import_must_write_its_scenario_and_allocations_or_nothing(tmp_path: Path) -> None:
    case = _case(tmp_path, ("import", ".", "-o", "out"), outdir="out")
    before = checks.snapshot(tmp_path)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "scenario.yaml").write_text("cluster: {}\nworkload: {}\n")
    assert _classes(checks.check_run(case, _result(0), tmp_path, before, Limits())) == [
        "partial-output"]  # fair-scheduler.xml missing
    (tmp_path / "out" / "fair-scheduler.xml").write_text("<allocations/>")
    assert checks.check_run(case, _result(0), tmp_path, before, Limits()) == []
    # exit 2: the scenario written anyway, or a staging folder left, is half-written
    assert _classes(checks.check_run(case, _result(2, b"apps.json:3: bad\n"), tmp_path,
                                     before, Limits())) == ["partial-output"]
    assert _classes(checks.check_run(case, _result(1), tmp_path, before, Limits())) == [
        "bad-exit", "partial-output"]  # import has no exit 1

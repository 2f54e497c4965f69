"""``simulate --until DURATION`` and ``run --until``: a run bounded from the command line, for
that long from the simulation's start (an imported cluster's clock starts at the dump's time)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.cli.until import parse_until

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "examples/seed-three-tenants/simulation.yaml"
runner = CliRunner()

CLOCKED = """
version: 1
allocations: "<allocations><queue name='a'/></allocations>"
clock: {start-ms: 1700000000000}
cluster:
  nodes: [{name: n1, memory-mb: 8192, vcores: 8}]
workload:
  apps:
    - {id: a1, queue: root.a, user: u, tasks: [{count: 2, memory-mb: 1024, duration-ms: 3600000}]}
run: {snapshot-every-ms: 1000}
"""


@pytest.mark.parametrize(("text", "ms"), [
    ("600000", 600_000), ("0", 0), ("500ms", 500), ("90s", 90_000), ("12.5 s", 12_500),
    ("30m", 1_800_000), ("10min", 600_000), ("1h30m", 5_400_000), ("3 m 20 s", 200_000),
    ("2 h 05 m", 7_500_000), ("1d", 86_400_000), (" 2H ", 7_200_000)])
def test_durations_read_as_fairshare_writes_them(text: str, ms: int) -> None:
    assert parse_until(text) == ms


@pytest.mark.parametrize("text", ["", "soon", "10x", "m", "-5", "1.5", "5 m 3", "1h later",
                                  "9999999999999999"])
def test_anything_else_is_refused(text: str) -> None:
    with pytest.raises(typer.BadParameter):
        parse_until(text)


def test_simulate_until_bounds_the_seed(tmp_path: Path) -> None:
    """The seed runs 40 m 02 s on its own; --until 10m stops it at 600,000 ms."""
    result = runner.invoke(app, ["simulate", str(SEED), "-q", "-o", str(tmp_path / "out"),
                                 "--until", "10m"])
    assert result.exit_code == 0, result.output
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert (summary["span"]["start-ms"], summary["span"]["end-ms"]) == (0, 600_000)
    assert summary["counts"]["apps-unfinished"] == 2  # etl and reports run for 30 and 40 m


def test_until_counts_from_the_simulations_start_not_clock_zero(tmp_path: Path) -> None:
    """A scenario whose clock starts at a dump's time (what `import` writes): --until 90s is
    90 s after it; without it, the run lasts as long as its tasks (1 h)."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text(CLOCKED)
    start = 1_700_000_000_000
    spans = {}
    for until in ("90s", None):
        out = tmp_path / f"out-{until}"
        args = ["run", str(scenario), "-q", "-o", str(out)]
        result = runner.invoke(app, [*args, "--until", until] if until else args)
        assert result.exit_code == 0, result.output
        span = json.loads((out / "summary.json").read_text())["span"]
        spans[until] = (span["start-ms"], span["end-ms"])
    assert spans["90s"] == (start, start + 90_000)
    assert spans[None][0] == start and spans[None][1] > start + 3_600_000


def test_a_bad_until_is_a_usage_error_and_writes_nothing(tmp_path: Path) -> None:
    result = runner.invoke(app, ["simulate", str(SEED), "-o", str(tmp_path / "out"),
                                 "--until", "ten minutes"])
    assert result.exit_code == 2
    assert "--until" in result.output and "is not a duration" in result.output
    assert not (tmp_path / "out").exists()


def test_until_without_a_workload_is_refused(tmp_path: Path) -> None:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(CLOCKED.split("workload:")[0] + "steps:\n  - update: {}\n")
    result = runner.invoke(app, ["run", str(scenario), "--until", "1m"])
    assert result.exit_code == 2
    assert "--until" in result.output and "no 'workload'" in result.output

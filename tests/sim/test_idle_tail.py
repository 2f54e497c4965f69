"""A run bounded past its last app: the end in which the cluster had nothing left to run lowers
every time average. summary.json's ``idle-tail``, the terminal and the report say so."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.report import build_report
from tests.report.conftest import parse

runner = CliRunner()

# One 1,024 MB node; one task of the whole node for 10 s, placed at the first heartbeat (1 s),
# done at 11 s; the run goes on to 20 s. Completions come before the snapshot of the same
# millisecond (docs/simulator.md), so the sample at 11 s is the first with nothing to run.
ONE_TASK = """
version: 1
allocations: "<allocations><queue name='a'/></allocations>"
cluster:
  nodes: [{name: n1, memory-mb: 1024, vcores: 1}]
workload:
  apps:
    - {id: a1, queue: root.a, user: u, tasks: [{count: 1, memory-mb: 1024, vcores: 1,
                                                duration-ms: 10000}]}
run: {until-ms: 20000, snapshot-every-ms: 1000}
"""


def _simulate(tmp_path: Path, text: str) -> tuple[str, dict[str, object], Path]:
    scenario = tmp_path / "s.yaml"
    scenario.write_text(text)
    out = tmp_path / "out"
    result = runner.invoke(app, ["simulate", str(scenario), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return result.stdout, json.loads((out / "summary.json").read_text()), out


def test_the_idle_tail_and_the_averages_without_it(tmp_path: Path) -> None:
    stdout, summary, out = _simulate(tmp_path, ONE_TASK)
    # 1,024 MB for 10 s of 20 s; of the 11 s before the tail, 10 s
    assert summary["cluster"]["utilization"] == {"memory-mb": 0.5, "vcores": 0.5}
    assert summary["idle-tail"] == {
        "start-ms": 11000, "ms": 9000, "span-without-ms": 11000,
        "utilization-without": {"memory-mb": round(10 / 11, 4), "vcores": round(10 / 11, 4)},
        "usage-factor-without": round(20 / 11, 4)}
    text = " ".join(stdout.split())
    assert ("for the last 9.0 s (from t = 11.0 s) the cluster had nothing left to run" in text)
    assert "utilization 91% of memory, 91% of vcores" in text
    page = build_report(out, out / "report.html")[0]
    tail = parse(page).xpath('//*[@id="idle-tail"]')
    assert len(tail) == 1 and tail[0].get("data-ms") == "9000"


def test_no_tail_when_the_run_ends_with_its_last_app(tmp_path: Path) -> None:
    stdout, summary, out = _simulate(tmp_path, ONE_TASK.replace("until-ms: 20000, ", ""))
    assert summary["idle-tail"] is None
    assert "nothing left to run" not in stdout
    page = build_report(out, out / "report.html")[0]
    assert parse(page).xpath('//*[@id="idle-tail"]') == []


def test_an_idle_gap_between_apps_is_not_a_tail(tmp_path: Path) -> None:
    """a2 arrives at 15 s, after 4 s with nothing running, and runs to the end."""
    text = ONE_TASK.replace(
        "run: {", "    - {id: a2, at-ms: 15000, queue: root.a, user: u, tasks: [{count: 1, "
        "memory-mb: 1024, vcores: 1, duration-ms: 60000}]}\nrun: {")
    _, summary, _ = _simulate(tmp_path, text)
    assert summary["idle-tail"] is None

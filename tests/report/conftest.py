"""Runs to report on, made once per session: the seed example (tenant3 starves and preemption
restores it), a tree too big to chart whole, and a small sweep of the seed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import typer
from lxml import html as lxml_html
from typer.testing import CliRunner

from fairshare.cli.main import app as main_app
from fairshare.cli.report import report_command
from fairshare.report import build_report
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.run.scripted import run_scenario

ROOT = Path(__file__).resolve().parents[2]
SEED = ROOT / "examples/seed-three-tenants/simulation.yaml"
runner = CliRunner()


def report_cli() -> typer.Typer:
    """``fairshare report`` as main.py registers it (a group, so the name is a subcommand)."""
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.callback()(lambda: None)
    app.command("report")(report_command)
    return app


def invoke_report(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(report_cli(), ["report", *args])
    return result.exit_code, result.stdout, result.stderr


def parse(page: Path) -> lxml_html.HtmlElement:
    return lxml_html.parse(str(page)).getroot()


def simulate(scenario: Path, outdir: Path) -> Path:
    run_scenario(load_scenario(scenario), outdir)
    return outdir


@pytest.fixture(scope="session")
def seed_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The seed example's outputs; tests that change files work on a copy (``seed_copy``)."""
    return simulate(SEED, tmp_path_factory.mktemp("seed") / "out")


@pytest.fixture(scope="session")
def seed_report(seed_run: Path, tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The seed's report, written beside a copy of its outputs: the page first, then PNGs."""
    outdir = tmp_path_factory.mktemp("seed-report") / "out"
    shutil.copytree(seed_run, outdir)
    return build_report(outdir, outdir / "report.html")


@pytest.fixture
def seed_copy(seed_run: Path, tmp_path: Path) -> Path:
    outdir = tmp_path / "out"
    shutil.copytree(seed_run, outdir)
    return outdir


# Sixteen leaves in four parents, preemption on: more queues than a page charts. Apps arrive
# in six leaves in turn, so some starve, some are preempted, some only wait.
BIG_TREE = """\
version: 1
name: sixteen leaves
seed: 3
site:
  yarn.scheduler.fair.preemption: true
  yarn.scheduler.fair.assignmultiple: true
  yarn.scheduler.fair.waitTimeBeforeKill: 2000
allocations: |
  <allocations>
    <defaultFairSharePreemptionTimeout>2</defaultFairSharePreemptionTimeout>
    <defaultFairSharePreemptionThreshold>0.8</defaultFairSharePreemptionThreshold>
{queues}
  </allocations>
cluster:
  nodes: [{{count: 4, prefix: n, memory-mb: 8192, vcores: 8}}]
workload:
  apps:
{apps}
run: {{until-ms: 240000, snapshot-every-ms: 1000}}
"""


@pytest.fixture(scope="session")
def big_tree_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    queues = "\n".join(
        f'    <queue name="p{p}">' + "".join(f'<queue name="l{leaf}"/>' for leaf in range(4))
        + "</queue>" for p in range(4))
    apps = "\n".join(
        f"    - {{id: a{i}, at-ms: {i * 20000}, queue: root.p{i % 4}.l{i % 3}, user: u{i}, "
        f"am: {{memory-mb: 1024, vcores: 1}}, tasks: [{{count: 24, memory-mb: 2048, "
        f"vcores: 1, duration-ms: 90000}}]}}" for i in range(6))
    folder = tmp_path_factory.mktemp("big-tree")
    scenario = folder / "s.yaml"
    scenario.write_text(BIG_TREE.format(queues=queues, apps=apps))
    return simulate(scenario, folder / "out")


@pytest.fixture(scope="session")
def seed_sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``fairshare sweep`` of the seed: timeouts 5, 60 and one that is not a number (its two
    variants fail) × preemption on and off: 6 variants, 4 points."""
    outdir = tmp_path_factory.mktemp("sweep") / "sw"
    result = runner.invoke(main_app, [
        "sweep", str(SEED), "-o", str(outdir), "-q", "--jobs", "1",
        "--set", "alloc:root.tenant3.fairSharePreemptionTimeout=5,60,soon",
        "--set", "site:yarn.scheduler.fair.preemption=true,false"])
    assert result.exit_code == 1, result.output  # some variants failed
    return outdir

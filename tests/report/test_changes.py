"""The workload's timed changes on the report: dotted lines named on the charts, and a list."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fairshare.config.errors import ConfigError
from fairshare.report import build_report
from fairshare.sim.parse.scenario import parse_scenario_text
from fairshare.sim.record.outputs import SUMMARY
from fairshare.sim.run.scripted import run_scenario
from tests.report.conftest import parse

SCENARIO = """\
version: 1
allocations: |
  <allocations><queue name="a"/><queue name="b"/></allocations>
cluster:
  nodes:
    - {name: n1, memory-mb: 8192, vcores: 8}
    - {name: n2, memory-mb: 8192, vcores: 8}
run: {until-ms: 20000}
workload:
  apps:
    - {id: x, queue: a, tasks: [{count: 8, duration-ms: 60000}]}
    - {id: y, queue: b, tasks: [{count: 8, duration-ms: 60000}]}
  changes:
    - {at-ms: 5000, reload: {set: ['alloc:root.a.weight=3']}}
    - {at-ms: 10000, decommission-node: {name: n1}}
    - {at-ms: 10000, remove-node: {name: n2}}
"""


def run(tmp_path: Path) -> Path:
    scenario = parse_scenario_text(SCENARIO, str(tmp_path / "s.yaml"), tmp_path)
    out = tmp_path / "out"
    run_scenario(scenario, out)
    return out


def test_changes_are_marked_on_the_charts_and_listed(tmp_path: Path) -> None:
    out = run(tmp_path)
    page = build_report(out, out / "report.html")[0]
    root = parse(page)
    svgs = root.findall(".//svg")
    utilization = next(s for s in svgs if "Cluster utilization" in "".join(s.itertext()))
    text = "".join(utilization.itertext())
    assert "reload" in text
    assert "n1 decommissioning · n2 lost" in text  # one mark per time, words joined
    items = [" ".join(li.text_content().split()) for li in root.iter("li")]
    assert "t = 5.0 s: configuration reloaded: alloc:root.a.weight=3 — root.a: weight 1 → 3" \
        in items
    assert any(i.startswith("t = 10.0 s: node n1 decommissioning (8 containers running, "
                            "timeout 1 h 00 m)") for i in items)


def test_a_summary_without_its_changes_is_refused_naming_them(tmp_path: Path) -> None:
    """Schema 1 has ``changes`` always (docs/outputs.md): a summary without is damaged, and
    the report says so rather than drawing a run without its changes."""
    out = run(tmp_path)
    summary = json.loads((out / SUMMARY).read_text())
    del summary["changes"]
    (out / SUMMARY).write_text(json.dumps(summary))
    with pytest.raises(ConfigError) as caught:
        build_report(out, out / "report.html")
    assert str(caught.value) == (f"{out / SUMMARY}: not a fairshare summary (docs/outputs.md): "
                                 "changes: missing")

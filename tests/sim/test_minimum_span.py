"""``minimum_span``: a lower bound on a workload's simulated span, which decides whether a run
without ``until-ms`` is refused (over 7 days) and where the progress bar aims.

Its values on hand-made workloads are checked in tests/cli/test_hostile.py (from the messages);
here: it never exceeds what the simulator actually takes, on random workloads.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fairshare.sim.parse.scenario import parse_scenario_text
from fairshare.sim.parse.specs import minimum_span
from fairshare.sim.record.summary_model import summary_json
from fairshare.sim.run.scripted import run_scenario

task = st.fixed_dictionaries({
    "count": st.integers(1, 12),
    "memory-mb": st.sampled_from([512, 1024, 2048, 4096]),
    "vcores": st.integers(1, 3),
    "duration-ms": st.integers(0, 20).map(lambda s: s * 500),
})
app = st.fixed_dictionaries({
    "at-ms": st.integers(0, 10_000),
    "tasks": st.lists(task, min_size=1, max_size=3),
    "managed": st.booleans(),
})


def scenario_text(nodes: list[tuple[int, int]], apps: list[dict[str, object]]) -> str:
    lines = ["version: 1", "cluster:", "  nodes:"]
    lines += [f"    - {{name: n{i}, memory-mb: {m}, vcores: {v}}}"
              for i, (m, v) in enumerate(nodes)]
    lines += ["workload:", "  apps:"]
    for i, a in enumerate(apps):
        tasks = ", ".join("{" + ", ".join(f"{k}: {v}" for k, v in t.items()) + "}"
                          for t in a["tasks"])  # type: ignore[attr-defined]
        am = "{memory-mb: 1024, vcores: 1}" if a["managed"] else "null"
        lines.append(f"    - {{id: a{i}, at-ms: {a['at-ms']}, am: {am}, tasks: [{tasks}]}}")
    return "\n".join(lines) + "\n"


@settings(max_examples=40, deadline=None)
@given(nodes=st.lists(st.tuples(st.sampled_from([4096, 8192]), st.sampled_from([4, 8])),
                      min_size=1, max_size=3),
       apps=st.lists(app, min_size=1, max_size=4))
def test_no_simulation_ends_before_its_minimum_span(nodes, apps) -> None:
    spec = parse_scenario_text(scenario_text(nodes, apps), "s.yaml", Path("."))
    assert spec.workload is not None
    capacity = {"memory-mb": sum(m for m, _ in nodes), "vcores": sum(v for _, v in nodes)}
    bound = minimum_span(spec.workload, capacity)
    result = run_scenario(spec)
    assert result.summary is not None
    span = summary_json(result.summary)["span"]
    if not summary_json(result.summary)["counts"]["apps-unfinished"]:
        assert span["end-ms"] - span["start-ms"] >= bound.ms

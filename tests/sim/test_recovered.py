"""Scenarios that start from running apps: the ``recover-container`` step, ``submit`` with
``recovering``, and ``workload.apps[].running`` (what ``fairshare import`` writes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from fairshare.config.errors import ConfigError, ConfigErrors
from fairshare.core.model.events import Event
from fairshare.sim.parse.scenario import parse_scenario_text
from fairshare.sim.record.summary_model import summary_json
from fairshare.sim.run.scripted import ScriptRunner, run_scenario

GB = 1024
HEAD = """
version: 1
allocations: "<allocations><queue name='a'/><queue name='b'/></allocations>"
cluster:
  nodes:
    - {name: n1, memory-mb: 8192, vcores: 8}
    - {name: n2, memory-mb: 8192, vcores: 8}
"""


def scenario(body: str, tmp_path: Path) -> Any:
    return parse_scenario_text(HEAD + body, str(tmp_path / "s.yaml"), tmp_path)


def test_steps_recover_containers_and_expectations_see_them(tmp_path: Path) -> None:
    s = scenario("""
steps:
  - submit: {app: a1, queue: a, user: u, am: {memory-mb: 1024, vcores: 1}, recovering: true,
             requests: [{count: 2, memory-mb: 2048, vcores: 1}]}
  - recover-container: {app: a1, node: n1, memory-mb: 1024, vcores: 1, am: true}
  - recover-container: {app: a1, node: n2, memory-mb: 2048, vcores: 1}
  - expect: {queue: root.a, usage: {memory-mb: 3072, vcores: 2}}
  - expect: {node: n1, containers: 1, unallocated: {memory-mb: 7168}}
  - expect: {app: a1, usage: {memory-mb: 3072}}
""", tmp_path)
    result = run_scenario(s)
    assert not result.failures, [f.describe("s") for f in result.failures]
    types = [r["type"] for r in result.records]
    assert types.count("container-recovered") == 2
    assert [r["priority"] for r in result.records if r["type"] == "containers-requested"] == [1]
    assert [r["priority"] for r in result.records if r["type"] == "container-recovered"] == [
        0, 20]  # the AM's priority, a task's default


def test_a_recovery_onto_an_unknown_node_stops_at_its_line(tmp_path: Path) -> None:
    s = scenario("""
steps:
  - submit: {app: a1, queue: a, recovering: true}
  - recover-container: {app: a1, node: ghost}
""", tmp_path)
    with pytest.raises(ConfigError) as e:
        run_scenario(s)
    assert e.value.line == 11 and "unknown node ghost" in str(e.value)


RUNNING = """
workload:
  apps:
    - id: a1
      queue: root.a
      user: alice
      am: {memory-mb: 1024, vcores: 1}
      tasks: [{count: 2, memory-mb: 2048, vcores: 1, duration-ms: 3000}]
      running:
        - {node: n1, memory-mb: 1024, vcores: 1, am: true}
        - {node: n1, memory-mb: 2048, vcores: 1, remaining-ms: 5000}
        - {node: n2, memory-mb: 2048, vcores: 1, remaining-ms: 5000, priority: 20}
    - id: a2
      queue: root.b
      user: bob
      am: {memory-mb: 1024, vcores: 1}
      running: [{node: n2, memory-mb: 1024, vcores: 1, am: true, remaining-ms: 2500}]
run: {snapshot-every-ms: 500}
"""


class UsageAt:
    """Queue usage (memory MB, vcores) at every sample of the simulation."""

    def __init__(self) -> None:
        self.runner: ScriptRunner | None = None
        self.samples: dict[int, dict[str, tuple[int, int]]] = {}

    def on_events(self, events: list[Event]) -> None:
        pass

    def on_snapshot(self, now_ms: int) -> None:
        assert self.runner is not None
        queues = self.runner.engine.state.queues
        self.samples[now_ms] = {name: (q.usage.memory, q.usage.vcores)
                                for name, q in queues.items()}

    def on_end(self, now_ms: int) -> None:
        pass


def test_running_apps_start_where_they_were_and_then_run_forward(tmp_path: Path) -> None:
    watch = UsageAt()
    runner = ScriptRunner(scenario(RUNNING, tmp_path), observers=[watch])
    watch.runner = runner
    result = runner.run()
    at_start = watch.samples[0]
    assert at_start["root.a"] == (5 * GB, 3) and at_start["root.b"] == (GB, 1)
    assert at_start["root"] == (6 * GB, 4)
    assert result.summary is not None
    a1, a2 = summary_json(result.summary)["apps"]["a1"], summary_json(result.summary)["apps"]["a2"]
    # the two pending tasks are placed at the first heartbeat (1 s) and run 3 s; the two
    # recovered ones end at 5 s: then a1 has done its 4 tasks and finishes
    assert (a1["start-ms"], a1["tasks-total"], a1["tasks-done"], a1["finish-ms"]) == (
        0, 4, 4, 5000)
    assert (a2["tasks-total"], a2["finish-ms"]) == (0, 2500)  # its AM's time is up
    assert watch.samples[1500]["root.a"] == (9 * GB, 5)
    assert watch.samples[5000]["root"] == (0, 0)


@pytest.mark.parametrize(("entry", "message"), [
    ("{node: n1, remaining-ms: 5}, {node: n1, am: true}, {node: n2, am: true}",
     "has 2 AM containers"),
    ("{node: n1}", "a running task needs 'remaining-ms'"),
    ("{node: n1, remaining-ms: -1}", "must be a non-negative integer"),
])
def test_bad_running_entries_are_located(tmp_path: Path, entry: str, message: str) -> None:
    body = f"""
workload:
  apps:
    - {{id: a1, am: {{memory-mb: 1024}}, running: [{entry}]}}
"""
    with pytest.raises(ConfigErrors) as e:
        scenario(body, tmp_path)
    assert message in str(e.value) and "s.yaml:11" in str(e.value)


def test_an_am_among_the_running_of_an_unmanaged_app_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigErrors) as e:
        scenario("""
workload:
  apps:
    - {id: a1, running: [{node: n1, am: true}]}
""", tmp_path)
    assert "the app has no 'am'" in str(e.value)


def test_a_running_container_that_does_not_fit_names_its_app(tmp_path: Path) -> None:
    s = scenario("""
workload:
  apps:
    - {id: a1, am: {memory-mb: 1024}, running: [{node: n1, memory-mb: 9000, am: true}]}
""", tmp_path)
    with pytest.raises(ConfigError) as e:
        run_scenario(s)
    assert "workload app a1" in str(e.value) and "does not fit on node n1" in str(e.value)
    assert e.value.line == 11


def test_recovered_containers_count_in_the_totals_and_an_am_alone_waits_for_no_task(
        tmp_path: Path) -> None:
    """RUNNING recovers 4 containers: a1's AM and 2 tasks in root.a, a2's AM in root.b. Then
    a1's 2 pending tasks are allocated. All 6 end by 5 s: allocated 2 + recovered 4 =
    completed 6. a2 has no task: it has no first-task wait, in its entry or its queue's."""
    result = run_scenario(scenario(RUNNING, tmp_path))
    assert result.summary is not None
    counts, queues = summary_json(result.summary)["counts"], summary_json(result.summary)["queues"]
    assert (counts["containers-allocated"], counts["containers-recovered"],
            counts["containers-completed"]) == (2, 4, 6)
    assert [queues[q]["containers-recovered"] for q in ("root", "root.a", "root.b")] == [4, 3, 1]
    assert summary_json(result.summary)["apps"]["a2"]["first-task-wait-ms"] is None
    b_wait = queues["root.b"]["first-task-wait-ms"]
    assert (b_wait["apps"], b_wait["p50"], b_wait["not-reached"]) == (0, None, 0)
    root_wait = queues["root"]["first-task-wait-ms"]
    assert (root_wait["apps"], root_wait["max"]) == (1, 0)  # a1's, recovered at its arrival

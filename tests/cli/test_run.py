"""``fairshare run``: the bundled examples, exit codes, outputs, determinism."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.sim.parse.expect import SNAPSHOT_FIELDS
from fairshare.sim.record.summary_model import AppEntry
from tests.sim.test_outputs import TWO_TENANTS

EXAMPLES = sorted(Path(__file__).resolve().parents[2].glob("examples/*/scenario.yaml"))
runner = CliRunner()

SCENARIO = """\
version: 1
site: {yarn.scheduler.fair.preemption: true}
allocations: |
  <allocations><queue name="a"/></allocations>
cluster:
  nodes: [{name: n1, memory-mb: 4096, vcores: 4}]
steps:
  - submit: {app: a1, queue: a, user: u, requests: [{count: 2}]}
  - update: {}
  - heartbeat: {node: n1}
  - expect: {app: a1, usage: {memory-mb: %d}}
  - snapshot: {label: end}
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return path


def test_there_are_at_least_four_examples():
    names = {p.parent.name for p in EXAMPLES}
    assert {"seed-three-tenants", "min-share-split", "non-preemptable-queue",
            "am-spared"} <= names


@pytest.mark.parametrize("scenario", EXAMPLES, ids=lambda p: p.parent.name)
def test_every_example_runs_and_its_expectations_hold(scenario, tmp_path):
    result = runner.invoke(app, ["run", str(scenario), "-o", str(tmp_path)])
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "events.jsonl").read_text().splitlines()
    assert all(json.loads(line)["type"] != "expect-failed" for line in lines)


def test_a_failed_expectation_exits_1_and_says_expected_versus_actual(tmp_path):
    result = runner.invoke(app, ["run", str(write(tmp_path, SCENARIO % 4096)),
                                 "-o", str(tmp_path / "out")])
    assert result.exit_code == 1
    assert "s.yaml:11: expect app a1: usage.memory-mb: expected 4096, got 1024" in result.output
    events = [json.loads(x) for x in (tmp_path / "out/events.jsonl").read_text().splitlines()]
    assert events[-1]["type"] == "expect-failed" and events[-1]["line"] == 11


def test_outputs_hold_events_and_snapshots(tmp_path):
    result = runner.invoke(app, ["run", str(write(tmp_path, SCENARIO % 1024)),
                                 "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    events = [json.loads(x) for x in (tmp_path / "out/events.jsonl").read_text().splitlines()]
    assert [e["type"] for e in events][:3] == ["node-added", "app-submitted", "app-runnable"]
    assert [e["t"] for e in events] == sorted(e["t"] for e in events)
    [snap] = json.loads((tmp_path / "out/snapshots.json").read_text())
    assert snap["label"] == "end"
    assert snap["apps"]["a1"]["usage"] == {"memory-mb": 1024, "vcores": 1}


def test_snapshots_carry_exactly_the_fields_expect_knows(tmp_path):
    runner.invoke(app, ["run", str(write(tmp_path, SCENARIO % 1024)), "-o", str(tmp_path)])
    [snap] = json.loads((tmp_path / "snapshots.json").read_text())
    assert set(snap["cluster"]) == set(SNAPSHOT_FIELDS["cluster"])
    for section in ("queues", "apps", "nodes"):
        for entry in snap[section].values():
            assert set(entry) == set(SNAPSHOT_FIELDS[section]), section


def test_identical_runs_write_identical_event_files(tmp_path):
    seed = next(p for p in EXAMPLES if p.parent.name == "seed-three-tenants")
    for out in ("one", "two"):
        assert runner.invoke(app, ["run", str(seed), "-o", str(tmp_path / out)]).exit_code == 0
    assert (tmp_path / "one/events.jsonl").read_bytes() == \
        (tmp_path / "two/events.jsonl").read_bytes()


@pytest.mark.parametrize(("text", "message"), [
    ("version: 2\n", "s.yaml:1: version"),
    (SCENARIO.replace("heartbeat: {node: n1}", "heartbeat: {node: n9}") % 1024,
     "s.yaml:10: unknown node n9"),
    (SCENARIO.replace("requests: [{count: 2}]", "requests: [{count: 2, yarn.io/gpu: 1}]")
     % 1024, "s.yaml:8: unknown resource type 'yarn.io/gpu'"),
    (SCENARIO.replace('<queue name="a"/>', '<queue name="a"><weight>x</weight></queue>') % 1024,
     "weight"),
], ids=["bad version", "unknown node in a step", "undeclared resource type", "bad allocations"])
def test_bad_scenarios_exit_2_with_file_and_line(tmp_path, text, message):
    result = runner.invoke(app, ["run", str(write(tmp_path, text))])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output


def test_a_broken_reload_keeps_the_old_configuration(tmp_path):
    text = (SCENARIO % 1024).replace(
        "  - snapshot: {label: end}\n",
        "  - reload: {allocations: '<allocations><queue name=\"a\"><weight>oops</weight>"
        "</queue></allocations>'}\n"
        "  - expect: {queue: root.a, weight: 1.0}\n")
    result = runner.invoke(app, ["run", str(write(tmp_path, text)), "-o", str(tmp_path / "o")])
    assert result.exit_code == 0, result.output
    events = [json.loads(x) for x in (tmp_path / "o/events.jsonl").read_text().splitlines()]
    assert any(e["type"] == "config-error" and "weight" in e["message"] for e in events)


# -- a simulation: outputs and the summary it prints ---------------------------------------------


def cells(output: str, first: str) -> list[str]:
    """The cells of the table row that starts with ``first`` (cells are 2+ spaces apart)."""
    [line] = [x for x in output.splitlines() if x.strip().startswith(first + "  ")]
    return re.split(r"\s{2,}", line.strip())


def test_a_simulation_writes_all_outputs_and_prints_its_summary(tmp_path):
    """The hand-worked run of tests/sim/test_outputs.py: root.b averaged 10 × 1024 MB over 24
    samples (427 MB, 0.4 vc) against a steady share of 1024 MB (2048 / 2: 42%; root.a's
    1408 MB is 137.5%, shown 138%) and an instantaneous
    one of 13 × 1024 / 24 = 555 MB (77%); starved for one 500 ms sample, short of its threshold
    for three (1500–2500, see test_outputs.py; root.a for one, at 500); one container
    preempted for it from root.a. a1 (unmanaged: no AM wait) is unfinished at 12 s."""
    result = runner.invoke(app, ["run", str(write(tmp_path, TWO_TENANTS)),
                                 "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "events.jsonl", "snapshots.json", "summary.json", "timeline.csv", "timeline.parquet"]
    lines = result.output.splitlines()
    events = len((tmp_path / "out/events.jsonl").read_text().splitlines())
    assert lines[0] == f"two tenants: {events} events, clock at 12,000 ms"
    assert lines[1] == ("Cluster: 1 node, 2,048 MB, 2 vc; utilization 90% of memory, 90% of "
                        "vcores (time-averaged, 12.0 s simulated).")
    assert lines[2] == ("Apps: 2 submitted, 0 rejected, 1 finished, 1 unfinished. Containers: "
                        "4 allocated, 1 completed, 1 preempted (1.5 s of work lost).")
    assert "Queues, time-averaged over 12.0 s (sampled every 500 ms)" in result.output
    assert cells(result.output, "b") == [
        "b", "427 MB, 0.4 vc", "1,024 MB, 0 vc", "555 MB, 0 vc", "42% / –", "77% / –", "500 ms",
        "1.5 s", "0 / 1"]
    assert cells(result.output, "a") == [
        "a", "1,408 MB, 1.4 vc", "1,024 MB, 0 vc", "1,408 MB, 0 vc", "138% / –", "100% / –",
        "0", "500 ms", "1 / 0"]
    # submitted at, wait (first container), AM wait, first task, turnaround: one unit system
    assert cells(result.output, "a1") == [
        "a1", "root.a", "running", "0", "1.0 s", "–", "1.0 s", "–", "0/2", "1", "1.5 s"]
    assert cells(result.output, "b1") == [
        "b1", "root.b", "finished", "1.2 s", "1.8 s", "–", "1.8 s", "6.8 s", "1/1", "0", "0"]
    assert "simulating" not in result.output  # no progress bar in a pipe


def test_quiet_prints_nothing_for_a_simulation(tmp_path):
    result = runner.invoke(app, ["run", str(write(tmp_path, TWO_TENANTS)), "--quiet"])
    assert result.exit_code == 0
    assert result.output == ""


def many(apps: int, queues: int) -> str:
    entries = "\n".join(
        f"    - {{id: x{i:02d}, at-ms: {i * 100}, queue: root.q{i % 3}, user: u, tasks: "
        "[{count: 2, memory-mb: 1024, vcores: 1, duration-ms: 3000}]}" for i in range(apps))
    xml = "".join(f'<queue name="q{i}"/>' for i in range(queues))
    return (f"version: 1\nallocations: '<allocations>{xml}</allocations>'\ncluster:\n"
            "  nodes: [{name: n1, memory-mb: 4096, vcores: 4}]\n"
            f"workload:\n  apps:\n{entries}\nrun: {{until-ms: 20000}}\n")


def test_big_runs_show_the_longest_waits_and_the_busiest_queues_only(tmp_path):
    """20 apps: 10 rows of the longest waits, longest first; 45 queues + root = 46 (no app
    goes to root.default, so Hadoop 3.4 never creates it), 40 shown."""
    result = runner.invoke(app, ["run", str(write(tmp_path, many(20, 45)))])
    assert result.exit_code == 0, result.output
    out = result.output
    assert ("40 of 46 queues: the most starved and preempted; run with -o for all of them in "
            "summary.json") in out
    assert ("The 10 longest waits (of 20 apps; run with -o for all of them in summary.json)"
            in out)
    apps = [line.split()[0] for line in out.splitlines() if re.match(r"^\s*x\d\d ", line)]
    assert len(apps) == 10
    waits = [float(cells(out, a)[4].removeprefix("≥ ").removesuffix(" s")) for a in apps]
    assert waits == sorted(waits, reverse=True)
    queues = [line for line in out.splitlines() if re.match(r"^\s+(q\d+|default) ", line)]
    assert len(queues) == 40 - 1  # and root
    assert "lost the most work" not in out  # nothing was preempted


def test_the_apps_that_lost_the_most_work_get_their_own_table():
    """The table logic on a made-up summary: 16 apps, two of them lost work."""
    from fairshare.cli.run import _app_tables

    def entry(i: int, lost: int) -> AppEntry:
        return AppEntry(queue="root.a", requested_queue="root.a", user="u", managed=False,
                        state="finished", rejected_reason=None, submit_ms=0,
                        start_ms=100 * i, finish_ms=10_000, wait_ms=100 * i,
                        run_ms=10_000 - 100 * i, am_wait_ms=None, first_task_wait_ms=100 * i,
                        turnaround_ms=10_000, unmet_demand_ms=100 * i, tasks_done=1,
                        tasks_total=1, preempted_containers=1 if lost else 0, lost_work_ms=lost)

    apps = {f"x{i:02d}": entry(i, {3: 500, 7: 2500}.get(i, 0)) for i in range(16)}
    waits, lost = _app_tables(apps, 10_000, "all of them are in summary.json")
    assert waits.title == "The 10 longest waits (of 16 apps; all of them are in summary.json)"
    assert lost.title == ("The 2 apps that lost the most work (of 16 apps; all of them are in "
                          "summary.json)")
    assert list(lost.columns[0].cells) == ["x07", "x03"]
    assert list(waits.columns[0].cells) == [f"x{i:02d}" for i in range(15, 5, -1)]


def test_progress_follows_the_simulated_clock_to_until_ms():
    from fairshare.cli.progress import SimProgress

    seen: list[tuple[int, int | None, str]] = []
    bar = SimProgress(lambda *report: seen.append(report), until_ms=6000, span_ms=1000)
    bar.on_snapshot(2000)  # the workload starts where the steps left the clock
    bar.on_snapshot(4000)
    bar.on_end(6000)
    assert [(done, total) for done, total, _ in seen] == [(0, 4000), (2000, 4000), (4000, 4000)]
    assert seen[1][2] == "4.0 s of 6.0 s"


def test_without_until_ms_progress_aims_at_the_minimum_span_then_only_counts():
    """The workload's minimum span (arrival + longest task) is the best end known in advance;
    contention can make the run longer, and then there is no total to show."""
    from fairshare.cli.progress import SimProgress

    seen: list[tuple[int, int | None, str]] = []
    bar = SimProgress(lambda *report: seen.append(report), until_ms=None, span_ms=3000)
    for now in (1000, 2500, 4000, 5000):
        bar.on_snapshot(now)
    assert [(done, total) for done, total, _ in seen] == [
        (0, 3000), (1500, 3000), (3000, 3000), (4000, None)]
    assert seen[1][2] == "2.5 s of at least 4.0 s"
    assert seen[3][2] == "5.0 s, past the minimum span"


def test_progress_goes_to_stderr_when_stdout_is_piped(tmp_path):
    """A plain line on a stderr that is not a terminal (here: every 0 s, to see one)."""
    import subprocess
    import sys

    scenario = write(tmp_path, TWO_TENANTS)
    code = ("import fairshare.cli.progress as p; p.LINE_EVERY_S = 0.0; "
            "from fairshare.cli.main import main; main()")
    done = subprocess.run([sys.executable, "-c", code, "run", str(scenario)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "simulating" not in done.stdout
    lines = [line for line in done.stderr.splitlines() if line.startswith("simulating: ")]
    assert lines and "elapsed" in lines[-1]
    quiet = subprocess.run([sys.executable, "-c", code, "run", str(scenario), "--quiet"],
                           capture_output=True, text=True, check=False)
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == ""


SEED_SIMULATION = Path(__file__).parents[2] / "examples/seed-three-tenants/simulation.yaml"


def test_simulate_gives_the_same_bytes_with_and_without_skipping_heartbeats(
        tmp_path: Path) -> None:
    """`fairshare simulate` event-driven (default) and --fixed-interval: identical outputs."""
    for name, extra in (("event", []), ("fixed", ["--fixed-interval"])):
        result = CliRunner().invoke(app, ["simulate", str(SEED_SIMULATION), "-o",
                                          str(tmp_path / name), "-q", *extra])
        assert result.exit_code == 0, result.output
    for output in ("events.jsonl", "summary.json", "timeline.csv"):
        assert (tmp_path / "event" / output).read_bytes() == \
            (tmp_path / "fixed" / output).read_bytes()


def test_simulate_refuses_a_scenario_without_a_workload() -> None:
    scripted = SEED_SIMULATION.with_name("scenario.yaml")
    result = CliRunner().invoke(app, ["simulate", str(scripted)])
    assert result.exit_code == 2
    assert "nothing to simulate: the scenario has no 'workload'" in result.output


# -- --set ---------------------------------------------------------------------------------------

SEED = Path(__file__).resolve().parents[2] / "examples/seed-three-tenants"


def test_set_changes_the_run_and_the_summary_records_it(tmp_path: Path) -> None:
    """tenant3's weight 1 → 2 (weights 0:1:2:2 over 24 GB: steady shares 24576 × 1/5 = 4915.2
    and × 2/5 = 9830.4 MB), preemption off (nothing preempted)."""
    out = tmp_path / "out"
    result = runner.invoke(app, [
        "simulate", str(SEED / "simulation.yaml"), "-q", "-o", str(out),
        "--set", "alloc:root.tenant3.weight=2",
        "--set", "site:yarn.scheduler.fair.preemption=false"])
    assert result.exit_code == 0, result.output
    summary = json.loads((out / "summary.json").read_text())
    assert summary["scenario"]["overrides"] == [
        "alloc:root.tenant3.weight=2", "site:yarn.scheduler.fair.preemption=false"]
    queues = summary["queues"]
    assert queues["root.tenant1"]["steady-fair-share"]["memory-mb"] == pytest.approx(4915.2, abs=1)
    assert queues["root.tenant3"]["steady-fair-share"]["memory-mb"] == pytest.approx(9830.4, abs=1)
    assert summary["counts"]["containers-preempted"] == 0


def test_set_applies_to_a_scripted_run(tmp_path: Path) -> None:
    """Without preemption tenant3 never gets its containers: the example's expectations about
    the preemption fail (exit 1)."""
    plain = runner.invoke(app, ["run", str(SEED / "scenario.yaml"), "-q"])
    assert plain.exit_code == 0, plain.output
    off = runner.invoke(app, ["run", str(SEED / "scenario.yaml"), "-q",
                              "--set", "site:yarn.scheduler.fair.preemption=false"])
    assert off.exit_code == 1, off.output


def test_a_bad_set_is_exit_2_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["simulate", str(SEED / "simulation.yaml"), "-o", str(out),
                                 "--set", "alloc:root.tenant3.weight=heavy"])
    assert result.exit_code == 2
    assert result.output.strip() == ('--set alloc:root.tenant3.weight=heavy: root.tenant3: '
                                     '<weight> must be a number, got "heavy"')
    assert not out.exists()


def test_set_without_an_allocation_file_writes_into_an_empty_one(tmp_path: Path) -> None:
    text = SCENARIO.replace("allocations: |\n  <allocations><queue name=\"a\"/></allocations>\n",
                            "") % 1024
    path = write(tmp_path, text)
    ok = runner.invoke(app, ["run", str(path), "-q",
                             "--set", "alloc:defaultFairSharePreemptionTimeout=1"])
    assert ok.exit_code == 0, ok.output
    bad = runner.invoke(app, ["run", str(path), "--set", "alloc:root.a.weight=2"])
    assert bad.exit_code == 2
    assert bad.output.strip() == ("--set alloc:root.a.weight=2: queue root.a is not in the "
                                  "allocation file (it defines no queue)")


def test_set_applies_to_reloads_and_a_reload_lacking_its_queue_fails_as_a_bad_file(
        tmp_path: Path) -> None:
    text = (SCENARIO % 1024).replace(
        "  - snapshot: {label: end}\n",
        "  - reload: {allocations: \"<allocations><queue name='a'/></allocations>\"}\n"
        "  - reload: {allocations: \"<allocations><queue name='b'/></allocations>\"}\n")
    out = tmp_path / "out"
    result = runner.invoke(app, ["run", str(write(tmp_path, text)), "-q", "-o", str(out),
                                 "--set", "alloc:root.a.weight=3"])
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in (out / "events.jsonl").read_text().splitlines()]
    reloads = [e for e in events if e["type"] in ("config-reloaded", "config-error")]
    assert [e["type"] for e in reloads] == ["config-reloaded", "config-error"]
    assert "--set alloc:root.a.weight=3: queue root.a is not in the allocation file" in (
        reloads[1]["message"])


def test_on_the_seed_example_tenant3_is_better_off_with_preemption(tmp_path: Path) -> None:
    """Without preemption YARN never calls tenant3 starved (starvation is only computed with
    preemption on), yet it is short of its threshold far longer and waits far longer."""
    summaries = {}
    for preemption in ("true", "false"):
        out = tmp_path / preemption
        result = runner.invoke(app, [
            "simulate", str(SEED / "simulation.yaml"), "-q", "-o", str(out),
            "--set", f"site:yarn.scheduler.fair.preemption={preemption}"])
        assert result.exit_code == 0, result.output
        summaries[preemption] = json.loads((out / "summary.json").read_text())
    on, off = (summaries[k]["queues"]["root.tenant3"] for k in ("true", "false"))
    assert off["time-starved-ms"] == 0 < on["time-starved-ms"]
    assert 0 < on["time-short-of-fair-share-threshold-ms"] < (
        off["time-short-of-fair-share-threshold-ms"])
    for wait in ("am-wait-ms", "first-task-wait-ms", "turnaround-ms"):
        assert on[wait]["p95"] < off[wait]["p95"], wait
    adhoc = {k: s["apps"]["adhoc"]["unmet-demand-ms"] for k, s in summaries.items()}
    assert adhoc["true"] < adhoc["false"]


def test_float32_settings_are_written_as_java_prints_them(tmp_path: Path) -> None:
    """The utilization threshold is a Java float (0.8f): events say 0.8, not the double
    0.800000011920929 that holds it; snapshot weights the same."""
    out = tmp_path / "out"
    result = runner.invoke(app, ["simulate", str(SEED / "simulation.yaml"), "-q", "-o", str(out),
                                 "--set", "alloc:root.tenant3.weight=0.3"])
    assert result.exit_code == 0, result.output
    text = (out / "events.jsonl").read_text()
    gates = [json.loads(x) for x in text.splitlines() if '"starvation-gate"' in x]
    assert gates and all(g["threshold"] == 0.8 for g in gates)
    assert '"threshold":0.8,' in text or '"threshold":0.8}' in text
    assert "0.800000011920929" not in text
    snapshot_out = tmp_path / "snap"
    result = runner.invoke(app, ["run", str(write(tmp_path, SCENARIO % 1024)), "-q", "-o",
                                 str(snapshot_out), "--set", "alloc:root.a.weight=0.3"])
    assert result.exit_code == 0, result.output
    [snap] = json.loads((snapshot_out / "snapshots.json").read_text())
    assert snap["queues"]["root.a"]["weight"] == 0.3  # float32(0.3) is 0.30000001192092896


REJECTING = """\
version: 1
allocations: |
  <allocations><queue name="a"/>
    <queuePlacementPolicy><rule name="specified" create="false"/><rule name="reject"/>
    </queuePlacementPolicy></allocations>
cluster:
  nodes: [{name: n1, memory-mb: 4096, vcores: 4}]
workload:
  apps:
    - {id: ok, queue: root.a, user: u, tasks: [{count: 1, duration-ms: 1000}]}
    - {id: lost, queue: root.nope, user: u, tasks: [{count: 1, duration-ms: 1000}]}
"""


def test_a_rejected_apps_reason_is_in_the_summary_and_the_apps_table(tmp_path: Path) -> None:
    out = tmp_path / "out"
    result = runner.invoke(app, ["simulate", str(write(tmp_path, REJECTING)), "-o", str(out)])
    assert result.exit_code == 0, result.output
    events = [json.loads(x) for x in (out / "events.jsonl").read_text().splitlines()]
    [rejected] = [e for e in events if e["type"] == "app-rejected"]
    assert rejected["app"] == "lost" and rejected["reason"]
    apps = json.loads((out / "summary.json").read_text())["apps"]
    assert apps["lost"]["state"] == "rejected"
    assert apps["lost"]["rejected-reason"] == rejected["reason"]
    assert apps["ok"]["rejected-reason"] is None
    row = cells(result.output, "lost")
    assert row[2] == "rejected" and row[-1] == rejected["reason"]
    assert "reason" in result.output


def test_run_prints_the_configurations_warnings_and_errors_but_not_its_notes(tmp_path: Path):
    # A max share of 0 vcores rejects every app (an error finding), a misspelt element is
    # ignored by YARN (a warning), a min-share timeout is only a note: the run prints the first
    # two before its output, and still runs (YARN accepts the file). Lines count within the
    # inline allocations text.
    path = write(tmp_path, """\
version: 1
allocations: |
  <allocations>
    <queue name="a">
      <maxResources>4096 mb, 0 vcores</maxResources>
      <weigth>2</weigth>
      <minSharePreemptionTimeout>60</minSharePreemptionTimeout>
    </queue>
  </allocations>
cluster:
  nodes: [{name: n1, memory-mb: 8192, vcores: 4}]
steps:
  - submit: {app: x, queue: a, am: {memory-mb: 1024, vcores: 1}}
  - expect: {app: x, state: rejected}
""")
    result = runner.invoke(app, ["run", str(path)])
    assert result.exit_code == 0, result.output
    lines = result.stderr.splitlines()
    assert [line.split(": ")[1] for line in lines] == ["error", "warning"]
    assert lines[0].startswith(f"{path} (allocations):3: error: root.a: <maxResources>")
    assert lines[1].startswith(f"{path} (allocations):4: warning: root.a: <weigth>")
    assert "minSharePreemptionTimeout" not in result.stderr


def test_a_column_keeps_one_memory_unit_on_a_large_cluster(tmp_path):
    """Issue 30, item 6: the run of the test above with every memory amount × 100 (a 200 GB
    node, 100 GB tasks; the decisions scale with it): the cluster is past 100,000 MB, so its
    values print in GB, and so must every other value of the queue table, below 100,000 MB
    too — b's averaged usage 10 × 102,400 / 24 = 42,667 MB is 41.7 GB, shown 42 GB (not
    "42,667 MB" under a root of "200 GB"); its instantaneous share 13 × 102,400 / 24 MB is
    54.2 GB; its steady share half the node, 100 GB."""
    text = (TWO_TENANTS.replace("memory-mb: 2048", "memory-mb: 204800")
            .replace("memory-mb: 1024", "memory-mb: 102400")
            .replace("  yarn.scheduler.fair.preemption: true\n",
                     "  yarn.scheduler.fair.preemption: true\n"
                     "  yarn.scheduler.maximum-allocation-mb: 204800\n"))
    result = runner.invoke(app, ["run", str(write(tmp_path, text))])
    assert result.exit_code == 0, result.output
    assert cells(result.output, "b") == [
        "b", "42 GB, 0.4 vc", "100 GB, 0 vc", "54 GB, 0 vc", "42% / –", "77% / –", "500 ms",
        "1.5 s", "0 / 1"]
    table = result.output[result.output.index("Queues, time-averaged"):]
    assert " MB" not in table.split("\nApps")[0]

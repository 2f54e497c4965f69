"""Hostile and broken input at the command line: a correct run or a located error (exit 2), never
a traceback, never a half-written output directory.

Each test names the case it covers; the expected values come from YARN's rules (0/0 is NaN in
Java and leaves the preemption gate closed), from JSON's (no NaN), or from the contract of the
outputs (docs/outputs.md: a failed run leaves ``-o`` as it was).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.core.engine import MAX_TIME_MS

runner = CliRunner()


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def strict_json(text: str) -> object:
    """JSON as a strict reader sees it: NaN and Infinity are not JSON."""
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in JSON output")
    return json.loads(text, parse_constant=refuse)


def events(outdir: Path) -> list[dict[str, object]]:
    lines = (outdir / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return [strict_json(line) for line in lines]  # type: ignore[misc]


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.rglob("*.partial"))


# -- 1. a cluster with no capacity --------------------------------------------------------------


def test_a_cluster_without_capacity_runs_and_its_undefined_utilization_is_null(tmp_path):
    """No nodes: utilization is 0/0, NaN in Java, so the gate stays closed (NaN > 0.8 is false)
    and the event says ``null`` (docs/outputs.md), not a non-JSON NaN."""
    scenario = write(tmp_path / "s.yaml", "version: 1\nsite: {yarn.scheduler.fair.preemption: true}"
                                          "\nsteps: [{update: {}}]\n")
    result = runner.invoke(app, ["run", str(scenario), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    [gate] = [e for e in events(tmp_path / "out") if e["type"] == "starvation-gate"]
    assert gate["open"] is False
    assert gate["utilization"] is None


def test_nodes_of_zero_memory_simulate_without_crashing(tmp_path):
    scenario = write(tmp_path / "s.yaml", """\
version: 1
site: {yarn.scheduler.fair.preemption: true}
cluster: {nodes: [{name: n1, memory-mb: 0, vcores: 0}]}
workload: {apps: [{id: a, tasks: [{count: 1, duration-ms: 1000}]}]}
run: {until-ms: 5000}
""")
    result = runner.invoke(app, ["run", str(scenario), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    summary = strict_json((tmp_path / "out/summary.json").read_text())
    assert summary["apps"]["a"]["state"] != "finished"  # type: ignore[index]
    assert all(e["type"] != "container-allocated" for e in events(tmp_path / "out"))


# -- 2. an app id with a slash -----------------------------------------------------------------


def test_an_app_id_with_slashes_runs_to_its_end(tmp_path):
    scenario = write(tmp_path / "s.yaml", """\
version: 1
cluster: {nodes: [{name: n1, memory-mb: 8192, vcores: 8}]}
workload: {apps: [{id: team/etl/2, tasks: [{count: 2, duration-ms: 1000}]}]}
""")
    result = runner.invoke(app, ["run", str(scenario), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    entry = strict_json((tmp_path / "out/summary.json").read_text())["apps"]["team/etl/2"]  # type: ignore[index]
    assert (entry["state"], entry["tasks-done"]) == ("finished", 2)


# -- 3. user text is text, not markup or emoji codes -------------------------------------------


@pytest.mark.parametrize("name", ["[/x]", "[bold]x", ":100: :smile:", "[link=file:///]y[/link]"])
def test_names_are_printed_as_they_are(tmp_path, name):
    scenario = write(tmp_path / "s.yaml", f"""\
version: 1
name: {json.dumps(name)}
cluster: {{nodes: [{{name: n1, memory-mb: 8192, vcores: 8}}]}}
workload: {{apps: [{{id: {json.dumps(name)}, tasks: [{{count: 1, duration-ms: 1000}}]}}]}}
""")
    result = runner.invoke(app, ["run", str(scenario)])
    assert result.exit_code == 0, result.output
    assert result.output.startswith(f"{name}: ")
    assert sum(name in line for line in result.output.splitlines()) == 2  # title, app row


def test_an_error_on_line_100_keeps_its_location(tmp_path):
    scenario = write(tmp_path / "l100.yaml", "version: 1\n" + "# pad\n" * 98 + "bogus: 1\n")
    result = runner.invoke(app, ["run", str(scenario)])
    assert result.exit_code == 2
    assert f"{scenario}:100: unknown key 'bogus'" in result.output


def test_control_characters_print_escaped_and_every_problem_is_one_line(tmp_path):
    """An ESC in a name must not reach the terminal (it could clear the screen); a newline in
    an app id must not split an error into a line without a location."""
    scenario = write(tmp_path / "s.yaml", """\
version: 1
name: "x\\x1b[2Jy\\nz"
cluster: {nodes: [{name: n1, memory-mb: 8192, vcores: 8}]}
steps:
  - expect: {app: "a\\nb", state: running}
""")
    result = runner.invoke(app, ["run", str(scenario)])
    assert result.exit_code == 1
    assert "\x1b" not in result.output
    assert result.stdout.startswith("x\\x1b[2Jy\\nz: 2 events")
    assert result.stderr == f"{scenario}:5: expect app a\\nb: there is no app a\\nb\n"


def test_an_option_value_with_a_newline_gives_one_located_line(tmp_path):
    xml = write(tmp_path / "fs.xml", "<allocations><queue name='a'/></allocations>")
    result = runner.invoke(app, ["shares", str(xml), "--cluster", "memory-mb=1024,vcores=1",
                                 "--active", "a.x\ny"])
    assert result.exit_code == 2
    assert result.output == ("--active: root.a.x\\ny is not a leaf queue of this configuration "
                             "and YARN would not create it: root.a.x\\ny is not a leaf queue: "
                             "root.a.x\\ny cannot be created: its parent root.a is a leaf queue\n")


def test_a_libxml2_message_with_a_newline_stays_on_its_line(tmp_path):
    site = tmp_path / "yarn-site.xml"
    site.write_bytes(b'<?xml version="1.0"?>\n<configuration>\n<property><name>a\x00</name>'
                     b"<value>1</value></property>\n</configuration>\n")
    xml = write(tmp_path / "fs.xml", "<allocations/>")
    result = runner.invoke(app, ["validate", str(xml), "--site", str(site)])
    assert result.exit_code == 2
    [line] = result.output.splitlines()
    assert line.startswith(f"{site}:3: malformed XML: ") and line.endswith("(column 18)")


# -- 5. weights that are not finite numbers -----------------------------------------------------


def test_weights_java_reads_as_nan_or_infinite_are_written_as_null(tmp_path):
    """``Float.parseFloat`` gives NaN, +Infinity (1e39 is beyond a float) and +Infinity: YARN
    accepts all three; JSON has no such numbers."""
    scenario = write(tmp_path / "s.yaml", """\
version: 1
allocations: |
  <allocations>
    <queue name="a"><weight>NaN</weight></queue>
    <queue name="b"><weight>1e39</weight></queue>
    <queue name="c"><weight>Infinity</weight></queue>
    <queue name="d"><weight>2.5</weight></queue>
  </allocations>
cluster: {nodes: [{name: n1, memory-mb: 8192, vcores: 8}]}
steps:
  - submit: {app: x, queue: a, requests: [{count: 2}]}
  - update
  - snapshot: {label: s}
""")
    result = runner.invoke(app, ["run", str(scenario), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    [snap] = strict_json((tmp_path / "out/snapshots.json").read_text())  # type: ignore[misc]
    weights = {name: q["weight"] for name, q in snap["queues"].items()}
    assert weights == {"root": 1.0, "root.a": None, "root.b": None, "root.c": None,
                       "root.d": 2.5}


# -- 6. output directories ----------------------------------------------------------------------

SIMULATION = """\
version: 1
cluster: {nodes: [{name: n1, memory-mb: 8192, vcores: 8}]}
workload: {apps: [{id: a, tasks: [{count: 2, duration-ms: 1000}]}]}
"""
BROKEN_STEP = """\
version: 1
cluster: {nodes: [{name: n1, memory-mb: 8192, vcores: 8}]}
steps:
  - submit: {app: a, requests: [{count: 1}]}
  - update
  - finish: {app: nobody-submitted-this}
"""


def snapshot_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_a_failing_run_leaves_the_previous_outputs_untouched(tmp_path):
    out = tmp_path / "out"
    assert runner.invoke(app, ["run", str(write(tmp_path / "ok.yaml", SIMULATION)),
                               "-o", str(out)]).exit_code == 0
    (out / "notes.txt").write_text("mine")
    before = snapshot_of(out)
    assert set(before) == {"events.jsonl", "snapshots.json", "summary.json", "timeline.csv",
                           "timeline.parquet", "notes.txt"}
    result = runner.invoke(app, ["run", str(write(tmp_path / "bad.yaml", BROKEN_STEP)),
                                 "-o", str(out)])
    assert result.exit_code == 2
    assert "bad.yaml:6: unknown application nobody-submitted-this" in result.output
    assert snapshot_of(out) == before
    assert leftovers(tmp_path) == []


def test_a_failing_run_into_a_new_directory_creates_nothing(tmp_path):
    out = tmp_path / "new" / "deeper"
    result = runner.invoke(app, ["run", str(write(tmp_path / "bad.yaml", BROKEN_STEP)),
                                 "-o", str(out)])
    assert result.exit_code == 2
    assert not (tmp_path / "new").exists()
    assert leftovers(tmp_path) == []


def test_a_full_disk_leaves_nothing_half_written(tmp_path, monkeypatch):
    """The summary is the last file written: a disk that fills up then must not leave the
    events and timelines written before it."""
    import errno

    import fairshare.sim.run.scripted as scripted

    out = tmp_path / "out"
    assert runner.invoke(app, ["run", str(write(tmp_path / "ok.yaml", SIMULATION)),
                               "-o", str(out)]).exit_code == 0
    before = snapshot_of(out)

    def full(path: Path, summary: object) -> None:
        path.write_text('{"trunc')
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(scripted, "write_summary", full)
    bigger = SIMULATION.replace("count: 2", "count: 5")
    result = runner.invoke(app, ["run", str(write(tmp_path / "big.yaml", bigger)),
                                 "-o", str(out)])
    assert result.exit_code == 2
    assert f"-o {out}: cannot write outputs: No space left on device" in result.output
    assert snapshot_of(out) == before
    assert leftovers(tmp_path) == []


def test_outputs_of_another_kind_of_run_do_not_linger(tmp_path):
    """A scripted run writes no timeline and no summary: those of an earlier simulation in the
    same directory would describe another run, so they go; the user's own files stay."""
    out = tmp_path / "out"
    assert runner.invoke(app, ["run", str(write(tmp_path / "sim.yaml", SIMULATION)),
                               "-o", str(out)]).exit_code == 0
    (out / "notes.txt").write_text("mine")
    scripted_only = BROKEN_STEP.replace("nobody-submitted-this", "a")
    result = runner.invoke(app, ["run", str(write(tmp_path / "s.yaml", scripted_only)),
                                 "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["events.jsonl", "notes.txt",
                                                     "snapshots.json"]


def test_an_output_path_that_is_a_file_is_refused_before_running(tmp_path):
    target = write(tmp_path / "taken", "not a directory")
    result = runner.invoke(app, ["run", str(write(tmp_path / "s.yaml", SIMULATION)),
                                 "-o", str(target)])
    assert result.exit_code == 2
    assert result.output.strip() == f"-o {target}: not a directory"
    assert target.read_text() == "not a directory"


def test_a_new_output_directory_gets_the_ordinary_permissions(tmp_path):
    out = tmp_path / "out"
    assert runner.invoke(app, ["run", str(write(tmp_path / "s.yaml", SIMULATION)),
                               "-o", str(out)]).exit_code == 0
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o777 & ~umask


def test_ctrl_c_stops_a_run_without_a_traceback_or_outputs(tmp_path):
    scenario = write(tmp_path / "long.yaml", """\
version: 1
cluster: {nodes: [{name: n1, memory-mb: 8192, vcores: 8}]}
workload: {apps: [{id: a, tasks: [{count: 1, duration-ms: 500000000}]}]}
run: {until-ms: 500000000}
""")
    out = tmp_path / "out"
    process = subprocess.Popen([sys.executable, "-m", "fairshare", "run", str(scenario),
                                "-o", str(out)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not leftovers(tmp_path) and time.monotonic() < deadline:
        time.sleep(0.05)  # until the run has started writing
    assert leftovers(tmp_path), "the run never started"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert "Traceback" not in stderr
    assert stderr.strip().endswith("interrupted: no output was written or changed")
    assert not out.exists()
    assert leftovers(tmp_path) == []


def test_a_carriage_return_in_a_queue_name_keeps_the_timeline_one_row_per_line(tmp_path):
    """YARN accepts a queue name with a CR inside (it trims only the ends); a CSV reader takes
    a bare CR for a line end, so the name must be quoted."""
    import csv

    scenario = write(tmp_path / "s.yaml", """\
version: 1
allocations: '<allocations><queue name="a&#13;b"/></allocations>'
cluster: {nodes: [{name: n1, memory-mb: 4096, vcores: 4}]}
workload: {apps: [{id: x, queue: "a\\rb", tasks: [{count: 1, duration-ms: 1000}]}]}
""")
    result = runner.invoke(app, ["run", str(scenario), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    with (tmp_path / "out/timeline.csv").open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert {len(row) for row in rows} == {19}
    assert {row[1] for row in rows[1:]} == {"root", "root.a\rb"}  # no app in root.default
    assert sum(row[1] == "root.a\rb" for row in rows) == len(rows[1:]) // 2


# -- 8. the inline site map --------------------------------------------------------------------


def test_an_error_in_the_inline_site_map_points_at_its_line(tmp_path):
    scenario = write(tmp_path / "s.yaml", """\
version: 1
site:
  yarn.scheduler.fair.preemption: true
  yarn.scheduler.fair.preemption.cluster-utilization-threshold: abc
steps: [update]
""")
    result = runner.invoke(app, ["run", str(scenario)])
    assert result.exit_code == 2
    assert result.output.startswith(f"{scenario}:4: yarn.scheduler.fair.preemption.cluster-"
                                    "utilization-threshold='abc' is not a float")


# -- 10. huge values ---------------------------------------------------------------------------

NODE = "cluster: {nodes: [{name: n1, memory-mb: 8192, vcores: 8}]}\n"


@pytest.mark.parametrize(("text", "message"), [
    (f"{NODE}steps: [{{heartbeat: {{node: '*', times: 2147483647}}}}]\n",
     ":3: steps[0].heartbeat.times: must be at most 1,000,000 (node heartbeats in one step), "
     "got 2147483647"),
    (f"clock: {{start-ms: {2**63 - 10}}}\nsteps: [update]\n",
     f":2: clock.start-ms: must be at most {MAX_TIME_MS:,} (the clock's limit, 2^53 - 1 ms), "
     f"got {2**63 - 10}"),
    (f"clock: {{start-ms: {MAX_TIME_MS - 5}}}\nsteps: [{{advance: {{ms: 10}}}}]\n",
     f":3: the clock would pass {MAX_TIME_MS:,} ms"),
    (f"{NODE}workload: {{apps: [{{id: a, tasks: [{{count: 1, duration-ms: 2147483648}}]}}]}}\n",
     ":3: workload: runs for at least 2,147,483,648 ms (24.9 days) (app a arrives at 0 ms and "
     "its longest task lasts 2,147,483,648 ms); a simulation longer than 604,800,000 ms "
     "(7.0 days) needs an explicit run.until-ms"),
    # 16,000 tasks × 600 s × 2,048 MB = 19,660,800,000,000 MB·ms on 3 × 8,192 MB: 800,000,000 ms
    ("cluster: {nodes: [{count: 3, prefix: n, memory-mb: 8192, vcores: 4}]}\n"
     "workload: {apps: [{id: a, tasks: [{count: 16000, memory-mb: 2048, vcores: 1, "
     "duration-ms: 600000}]}]}\n",
     ": workload: runs for at least 800,000,000 ms (9.3 days) (its tasks need "
     "19,660,800,000,000 MB·ms and the cluster has 24,576 MB); a simulation longer than "
     "604,800,000 ms (7.0 days) needs an explicit run.until-ms"),
    (f"{NODE}workload: {{apps: [{{id: a, tasks: [{{count: 1, duration-ms: 1000}}]}}]}}\n"
     "run: {until-ms: 20000000000, snapshot-every-ms: 1000}\n",
     ":4: run: sampling every 1,000 ms for 20,000,000,000 ms (231.5 days) gives 20,000,000 "
     "timeline samples per queue, more than 10,000,000"),
])
def test_huge_values_are_refused_before_they_run_for_hours(tmp_path, text, message):
    scenario = write(tmp_path / "s.yaml", "version: 1\n" + text)
    started = time.monotonic()
    result = runner.invoke(app, ["run", str(scenario), "-o", str(tmp_path / "out")])
    assert time.monotonic() - started < 20
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"{scenario}{message}")
    assert not (tmp_path / "out").exists()


def test_a_heartbeat_step_is_capped_by_the_node_heartbeats_it_makes(tmp_path):
    """1,000 times on 2,000 nodes is 2,000,000 node heartbeats: over the cap of a step."""
    scenario = write(tmp_path / "s.yaml", """\
version: 1
cluster: {nodes: [{count: 2000, prefix: n, memory-mb: 1024, vcores: 1}]}
steps:
  - update
  - heartbeat: {node: '*', times: 1000}
""")
    result = runner.invoke(app, ["run", str(scenario)])
    assert result.exit_code == 2
    assert result.output.startswith(f"{scenario}:5: heartbeat: 1,000 times 2,000 nodes is more "
                                    "than 1,000,000 node heartbeats in one step")


def test_a_long_run_with_an_explicit_end_is_allowed(tmp_path):
    """The same long task with until-ms: the run stops there, the task unfinished."""
    scenario = write(tmp_path / "s.yaml", f"""\
version: 1
{NODE}workload: {{apps: [{{id: a, tasks: [{{count: 1, duration-ms: 2147483648}}]}}]}}
run: {{until-ms: 60000}}
""")
    result = runner.invoke(app, ["run", str(scenario), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    entry = strict_json((tmp_path / "out/summary.json").read_text())["apps"]["a"]  # type: ignore[index]
    assert entry["state"] == "running"

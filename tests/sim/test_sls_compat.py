"""Hadoop SLS's own inputs, as SLS 3.4 reads them (docs/workloads.md).

The files under ``fixtures/sls/`` are written for these tests in the shapes of Hadoop's SLS
samples: ``dag-jobs.json`` as ``sls_dag.json`` (the ``yarn.sls.am.type`` job key),
``racks.json`` as the test ``nodes.json`` (a last node ``{}``), ``stream-synth.json`` as
``syn_stream.json`` (task ``time`` 30000 against a job ``duration`` of 40), ``doc-synth.json`` as
the SYNTH example of ``SchedulerLoadSimulator.md`` (old job class format, ``"jobs": 0``), and
``sls-runner.xml``. Expected values are worked out by hand from SLS's code: ``SLSConfiguration``,
``NMRunner``, ``SLSUtils.parseNodesFromNodeFile``, ``SynthJob``, ``AMDefinitionSynth``.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fairshare.cli.main import app as cli
from fairshare.config.errors import ConfigError, all_errors
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.parse.specs import NodeSpec, TaskSpec
from fairshare.sim.sources import SlsSettings, load_sls_jobs, load_sls_topology, load_synth

FIXTURES = Path(__file__).parent / "fixtures" / "sls"
RUNNER_NODE = {"memory-mb": 20240, "vcores": 16}  # sls-runner.xml: ${sls.node.gb}0240, 16
NODE = {"memory-mb": 10240, "vcores": 10}  # SLSConfiguration's NM defaults


def copy(tmp_path: Path, *names: str) -> None:
    for name in names:
        shutil.copy(FIXTURES / name, tmp_path / name)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def problems(error: ConfigError) -> list[str]:
    """Errors, then warnings."""
    return [str(p) for p in (*all_errors(error), *error.warnings)]


# ---- yarn.sls.* from site-file -----------------------------------------------------------------


def test_sls_sizes_come_from_the_site_file_and_inline_site_wins() -> None:
    """sls-runner.xml: nodes 20240 MB (its ${sls.node.gb} expanded) and 16 vcores, tasks 2048 MB
    and 2 vcores, AMs 1536 MB; the scenario's inline site sets task vcores back to 1."""
    s = load_scenario(FIXTURES / "dag.yaml")
    assert [(n.name, n.rack, n.resources) for n in s.nodes] == [
        ("host1", "/rack-a", RUNNER_NODE), ("host2", "/rack-a", RUNNER_NODE),
        ("host3", "/rack-a", RUNNER_NODE)]
    task = {"memory-mb": 2048, "vcores": 1}
    assert [(a.id, a.am, a.tasks) for a in s.workload or ()] == [
        ("dag_1", {"memory-mb": 1536, "vcores": 1},
         (TaskSpec(1, task, 20000, 20), TaskSpec(2, task, 30000, 20))),
        ("dag_2", {"memory-mb": 1536, "vcores": 1},
         (TaskSpec(1, task, 20000, 20), TaskSpec(1, task, 30000, 20))),
    ]
    assert s.warnings == ()


SITE_SCENARIO = """\
version: 1
site-file: sls-runner.xml
site: {yarn.sls.container.memory.mb: lots}
workload:
  sls: dag-jobs.json
run: {until-ms: 1000}
"""


def test_a_bad_sls_value_is_located_in_the_site_file_or_in_the_scenario(tmp_path: Path) -> None:
    copy(tmp_path, "dag-jobs.json")
    runner = (FIXTURES / "sls-runner.xml").read_text().replace("<value>16</value>",
                                                               "<value>sixteen</value>")
    write(tmp_path, "sls-runner.xml", runner)
    path = write(tmp_path, "s.yaml", SITE_SCENARIO)
    with pytest.raises(ConfigError) as info:
        load_scenario(path)
    expected = [
        f"{path}:3: site.yarn.sls.container.memory.mb: must be an integer (SLS reads it with "
        "getInt), got 'lots'",
        f"{tmp_path / 'sls-runner.xml'}:16: yarn.sls.nm.vcores: must be an integer (SLS reads "
        "it with getInt), got 'sixteen'",
    ]
    assert problems(info.value) == expected
    done = CliRunner().invoke(cli, ["simulate", str(path), "-o", str(tmp_path / "out")])
    assert (done.exit_code, done.output.splitlines()) == (2, expected)
    assert not (tmp_path / "out").exists()


def test_a_site_file_that_is_not_xml_is_an_error_of_that_file(tmp_path: Path) -> None:
    copy(tmp_path, "dag-jobs.json")
    write(tmp_path, "sls-runner.xml", "<configuration>\n<property>\n")
    path = write(tmp_path, "s.yaml", SITE_SCENARIO.replace("site: {yarn.sls.container"
                                                           ".memory.mb: lots}\n", ""))
    with pytest.raises(ConfigError) as info:
        load_scenario(path)
    [message] = problems(info.value)
    assert message.startswith(f"{tmp_path / 'sls-runner.xml'}:")


def test_without_trace_files_the_site_file_is_not_read_for_sls_sizes(tmp_path: Path) -> None:
    """yarn.sls.* sizes only matter to traces: a bad one is no error of a scenario without."""
    write(tmp_path, "sls-runner.xml", (FIXTURES / "sls-runner.xml").read_text()
          .replace("<value>16</value>", "<value>sixteen</value>"))
    path = write(tmp_path, "s.yaml", "version: 1\nsite-file: sls-runner.xml\nsteps: [update]\n")
    assert load_scenario(path).warnings == ()


# ---- yarn.sls.am.type: an sls_dag.json-shaped trace --------------------------------------------


def test_the_am_type_key_of_sls_3_4_and_the_older_one_are_accepted(tmp_path: Path) -> None:
    trace = load_sls_jobs(FIXTURES / "dag-jobs.json", SlsSettings(), "dag-jobs.json")
    assert [(a.id, a.at_ms, a.queue, a.user, a.line) for a in trace.apps] == [
        ("dag_1", 0, "etl", "alice", 1), ("dag_2", 90000, "adhoc", "bob", 37)]
    both = '{"yarn.sls.am.type": "dag", "am.type": "mapreduce", "job.tasks": [{"duration.ms": 5}]}'
    [app] = load_sls_jobs(write(tmp_path, "jobs.json", both), SlsSettings()).apps
    assert app.tasks == (TaskSpec(1, {"memory-mb": 1024, "vcores": 1}, 5, 20),)


@pytest.mark.parametrize("key", ["yarn.sls.am.type", "am.type"])
def test_an_am_type_must_be_a_string_as_sls_casts_it(tmp_path: Path, key: str) -> None:
    path = write(tmp_path, "jobs.json", f'{{"{key}": 3, "job.tasks": [{{"duration.ms": 5}}]}}')
    with pytest.raises(ConfigError) as info:
        load_sls_jobs(path, SlsSettings(), "jobs.json")
    assert problems(info.value) == [f"jobs.json:1: job #1: {key}: must be a string, got 3"]


def test_the_dag_trace_runs_to_the_end() -> None:
    done = CliRunner().invoke(cli, ["simulate", str(FIXTURES / "dag.yaml")])
    assert done.exit_code == 0, done.output
    assert "Apps: 2 submitted, 0 rejected, 2 finished, 0 unfinished." in done.output
    assert "3 nodes, 60,720 MB, 48 vc" in done.output  # 3 × sls-runner.xml's 20240 MB, 16 vc


# ---- a nameless node (a trailing {}) -------------------------------------------------------------


def test_a_nameless_node_is_the_node_null_as_in_sls_with_a_warning() -> None:
    """SLSUtils.parseNodesFromNodeFile: "/" + rack + "/" + node.get("node"), a missing name
    being the text null: SLS starts a sixth node manager, "null" on /rack-b."""
    topology = load_sls_topology(FIXTURES / "racks.json", SlsSettings(), "racks.json")
    assert topology.nodes == (
        *(NodeSpec(n, "/rack-a", NODE, line, "racks.json")
          for n, line in (("a1", 4), ("a2", 7), ("a3", 10))),
        *(NodeSpec(n, "/rack-b", NODE, line, "racks.json")
          for n, line in (("b1", 18), ("b2", 21), ("null", 24))),
    )
    assert [str(w) for w in topology.warnings] == [
        "racks.json:24: warning: rack #2: nodes[2]: a node without 'node' (its name): SLS "
        "starts a node manager named 'null' for it, and so does fairshare; remove the entry if "
        "it is not meant to be a node"]


def test_a_rack_without_a_name_is_rack_null_with_a_warning(tmp_path: Path) -> None:
    path = write(tmp_path, "nodes.json", '{"nodes": [{"node": "x"}]}\n{"rack": "r", "nodes": []}')
    topology = load_sls_topology(path, SlsSettings(), "nodes.json")
    assert topology.nodes == (NodeSpec("x", "/null", NODE, 1, "nodes.json"),)
    assert [str(w) for w in topology.warnings] == [
        "nodes.json:1: warning: rack #1: no 'rack': SLS puts its nodes on rack '/null' (it "
        "builds the rack's name from a missing value), and so does fairshare"]


def test_two_nameless_nodes_are_one_name_twice(tmp_path: Path) -> None:
    path = write(tmp_path, "nodes.json", '{"rack": "r", "nodes": [{}, {}]}')
    with pytest.raises(ConfigError) as info:
        load_sls_topology(path, SlsSettings(), "nodes.json")
    errors = problems(info.value)
    assert "nodes.json:1: rack #1: nodes[1]: duplicate node name 'null' (first at line 1)" in errors
    assert len([e for e in errors if "warning: " in e]) == 2


def test_the_topology_scenario_runs_with_the_warning_first(tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = CliRunner().invoke(cli, ["simulate", str(FIXTURES / "racks.yaml"), "-o", str(out)])
    assert done.exit_code == 0, done.output
    first = done.output.splitlines()[0]
    assert first.startswith(f"{FIXTURES / 'racks.json'}:24: warning: rack #2: nodes[2]: ")
    assert "Cluster: 6 nodes, 61,440 MB, 60 vc" in done.output


# ---- SYNTH: unknown keys, the documentation's example -----------------------------------------


def test_the_documentations_synth_example_loads_with_a_warning_for_jobs() -> None:
    """{"time": 90, "jobs": 0}: Jackson ignores "jobs", so the bucket's weight stays 0 and every
    job starts in [1, 30) or [30, 90) seconds."""
    for seed in range(5):
        synth = load_synth(FIXTURES / "doc-synth.json", seed, SlsSettings(), "doc-synth.json")
        assert len(synth.apps) == 6
        assert all(1000 <= a.at_ms < 90000 for a in synth.apps)
        assert [str(w) for w in synth.warnings] == [
            "doc-synth.json:42: warning: workloads[0].time_distribution[2]: unknown key 'jobs' "
            "ignored, as SLS ignores unknown keys; without a 'weight' no job starts in this "
            "bucket (SLS: weight 0)"]


def test_the_documentations_synth_example_runs() -> None:
    done = CliRunner().invoke(cli, ["simulate", str(FIXTURES / "doc-synth.yaml")])
    assert done.exit_code == 0, done.output
    assert "Apps: 6 submitted, 0 rejected, 6 finished, 0 unfinished." in done.output
    assert done.output.splitlines()[0].startswith(
        f"{FIXTURES / 'doc-synth.json'}:42: warning: workloads[0].time_distribution[2]: ")


def test_unknown_synth_keys_are_ignored_with_a_warning_each(tmp_path: Path) -> None:
    text = {"num_jobs": 1, "nodes_per_racks": 2, "workloads": [{
        "workload_weight": 1, "queue_names": "q",
        "job_classes": [{"class_name": "c", "class_weight": 1, "tasks": [{
            "count": {"val": 1, "mean": 2}, "time": {"val": 1}, "max_memory": {"val": 1024},
            "max_vcores": {"val": 1}}]}],
        "time_distribution": [{"time": 0, "weight": 1}]}]}
    path = write(tmp_path, "synth.json", json.dumps(text, indent=1))
    synth = load_synth(path, 1, SlsSettings(), "synth.json")
    assert [a.queue for a in synth.apps] == ["default"]  # no queue_name
    assert [str(w) for w in synth.warnings] == [
        "synth.json:3: warning: unknown key 'nodes_per_racks' ignored, as SLS ignores unknown "
        "keys (did you mean 'nodes_per_rack'?)",
        "synth.json:7: warning: workloads[0]: unknown key 'queue_names' ignored, as SLS ignores "
        "unknown keys (did you mean 'queue_name'?)",
        "synth.json:16: warning: workloads[0].job_classes[0].tasks[0].count: unknown key "
        "'mean' ignored, as SLS ignores unknown keys",
    ]


def test_at_most_twenty_warnings_of_a_file_then_a_count(tmp_path: Path) -> None:
    text = {"num_jobs": 1, **{f"extra{i}": i for i in range(25)}, "workloads": [{
        "workload_weight": 1, "job_classes": [{"class_name": "c", "class_weight": 1,
                                               "tasks": [{"count": {"val": 1},
                                                          "time": {"val": 1},
                                                          "max_memory": {"val": 1024},
                                                          "max_vcores": {"val": 1}}]}],
        "time_distribution": [{"time": 0, "weight": 1}]}]}
    synth = load_synth(write(tmp_path, "synth.json", json.dumps(text)), 1, SlsSettings(),
                       "synth.json")
    assert len(synth.warnings) == 21
    assert str(synth.warnings[-1]) == "synth.json: warning: 5 more warnings like these"


# ---- SYNTH task times: seconds or milliseconds -------------------------------------------------


def test_stream_task_times_are_seconds_by_default_with_a_warning() -> None:
    """time {"val": 30000} against duration {"val": 40}: read in seconds, 30,000,000 ms; one
    bucket [5, 6): every job starts at 5 s; 3 tasks of 2048 MB and 2 vcores each."""
    synth = load_synth(FIXTURES / "stream-synth.json", 1, SlsSettings(), "s.json")
    size = {"memory-mb": 2048, "vcores": 2}
    assert [(a.id, a.at_ms, a.queue, a.user, a.tasks) for a in synth.apps] == [
        (f"stream_00000{i}", 5000, "services", "svc", (TaskSpec(3, size, 30_000_000, 20),))
        for i in range(2)]
    assert [str(w) for w in synth.warnings] == [
        "s.json:27: warning: workloads[0].job_classes[0].tasks[0].time: tasks last 30000 s "
        "(8 h 20 m) on average, longer than their job's duration of 40 s: SLS reads a task's "
        "time as milliseconds (30.0 s) but a job's duration and start times as seconds; "
        "'synth-time-unit: ms' in the scenario's 'workload' reads task times as SLS does"]


def test_stream_task_times_in_milliseconds_as_sls_reads_them() -> None:
    """SynthJob keeps task.time.getLong() as it is and AMDefinitionSynth gives it to the
    container as its duration in ms; start times stay seconds (SynthJob converts them)."""
    synth = load_synth(FIXTURES / "stream-synth.json", 1, SlsSettings(), "s.json", "ms")
    assert [(a.at_ms, a.tasks[0].duration_ms, a.tasks[0].count) for a in synth.apps] == [
        (5000, 30000, 3), (5000, 30000, 3)]
    assert synth.warnings == ()


def test_the_scenario_key_reads_task_times_in_milliseconds() -> None:
    seconds = load_scenario(FIXTURES / "stream.yaml")
    millis = load_scenario(FIXTURES / "stream-ms.yaml")
    assert [t.duration_ms for a in seconds.workload or () for t in a.tasks] == [30_000_000] * 2
    assert [t.duration_ms for a in millis.workload or () for t in a.tasks] == [30_000] * 2
    assert len(seconds.warnings) == 1 and millis.warnings == ()


def test_a_bad_time_unit_is_located_in_the_scenario(tmp_path: Path) -> None:
    copy(tmp_path, "stream-synth.json")
    text = (FIXTURES / "stream-ms.yaml").read_text().replace("unit: ms", "unit: sec")
    path = write(tmp_path, "s.yaml", text)
    with pytest.raises(ConfigError) as info:
        load_scenario(path)
    expected = [
        f"{path}:5: workload.synth-time-unit: must be s (task times in seconds, as SLS documents "
        "them) or ms (as SLS reads them), got 'sec'"]
    assert problems(info.value) == expected
    done = CliRunner().invoke(cli, ["simulate", str(path), "-o", str(tmp_path / "out")])
    assert (done.exit_code, done.output.splitlines()) == (2, expected)
    assert not (tmp_path / "out").exists()


def test_stream_runs_as_in_sls_with_milliseconds() -> None:
    """Read as SLS reads it, each 30 s task finishes within the 100 s run; read in seconds none
    does."""
    done = CliRunner().invoke(cli, ["simulate", str(FIXTURES / "stream-ms.yaml")])
    assert done.exit_code == 0, done.output
    assert "Apps: 2 submitted, 0 rejected, 2 finished, 0 unfinished." in done.output
    done = CliRunner().invoke(cli, ["simulate", str(FIXTURES / "stream.yaml")])
    assert done.exit_code == 0, done.output
    assert "Apps: 2 submitted, 0 rejected, 0 finished, 2 unfinished." in done.output
    assert done.output.splitlines()[0].startswith(
        f"{FIXTURES / 'stream-synth.json'}:27: warning: workloads[0].job_classes[0].tasks[0]."
        "time: tasks last 30000 s")


@settings(max_examples=25, deadline=None, derandomize=True)
@given(seed=st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_milliseconds_change_task_times_only(seed: int) -> None:
    """The unit changes no draw: the same seed gives the same jobs, starts, counts, sizes and
    priorities, every task 1000 times shorter in ms."""
    path = FIXTURES / "doc-synth.json"
    seconds = load_synth(path, seed, SlsSettings(), "d.json").apps
    millis = load_synth(path, seed, SlsSettings(), "d.json", "ms").apps
    shorter = tuple(replace(app, tasks=tuple(replace(t, duration_ms=t.duration_ms // 1000)
                                             for t in app.tasks)) for app in seconds)
    assert millis == shorter


def synth_with(job_class: dict[str, object]) -> str:
    return json.dumps({"num_jobs": 1, "workloads": [{
        "workload_weight": 1, "job_classes": [job_class],
        "time_distribution": [{"time": 0, "weight": 1}]}]}, indent=1)


TASK = {"count": {"val": 1}, "max_memory": {"val": 1024}, "max_vcores": {"val": 1}}


@pytest.mark.parametrize(("job_class", "warned"), [
    ({"duration": {"val": 10}, "tasks": [{**TASK, "time": {"val": 11}}]}, True),
    ({"duration": {"val": 10}, "tasks": [{**TASK, "time": {"val": 10}}]}, False),
    ({"tasks": [{**TASK, "time": {"val": 5000}}]}, False),  # no duration: nothing to compare
    # a weighted choice: mean (5 × 3 + 40 × 1) / 4 = 13.75 s, over 12 s
    ({"duration": {"val": 12, "std": 1},
      "tasks": [{**TASK, "time": {"discrete": [5, 40], "weights": [3, 1]}}]}, True),
    ({"duration": {"discrete": [20, 10]},
      "tasks": [{**TASK, "time": {"val": 14, "std": 2}}]}, False),  # 14 s, under 15 s
], ids=["longer", "as long", "no duration", "discrete mean", "discrete duration"])
def test_a_task_time_over_the_job_duration_is_warned(tmp_path: Path,
                                                     job_class: dict[str, object],
                                                     warned: bool) -> None:
    text = synth_with({"class_name": "c", "class_weight": 1, **job_class})
    synth = load_synth(write(tmp_path, "synth.json", text), 1, SlsSettings(), "synth.json")
    assert bool(synth.warnings) is warned


def test_the_old_format_compares_map_and_reduce_times_with_dur_avg(tmp_path: Path) -> None:
    old = {"class_name": "old", "class_weight": 1, "dur_avg": 60, "mtasks_avg": 2,
           "rtasks_avg": 1, "mtime_avg": 30, "rtime_avg": 9000, "map_max_memory_avg": 1024,
           "reduce_max_memory_avg": 1024, "map_max_vcores_avg": 1, "reduce_max_vcores_avg": 1}
    synth = load_synth(write(tmp_path, "synth.json", synth_with(old)), 1, SlsSettings(),
                       "synth.json")
    [warning] = synth.warnings
    assert str(warning).startswith("synth.json:14: warning: workloads[0].job_classes[0]."
                                   "rtime_avg: tasks last 9000 s (2 h 30 m) on average, longer "
                                   "than their job's duration of 60 s: SLS reads a task's time "
                                   "as milliseconds (9.0 s)")


def test_a_drawn_time_of_zero_milliseconds_names_the_unit(tmp_path: Path) -> None:
    text = synth_with({"class_name": "c", "class_weight": 1,
                       "tasks": [{**TASK, "time": {"val": 0.4}}]})
    with pytest.raises(ConfigError) as info:
        load_synth(write(tmp_path, "synth.json", text), 1, SlsSettings(), "synth.json", "ms")
    [message] = problems(info.value)
    assert "job c_000000: a drawn task time rounds to 0 ms; SLS refuses" in message


# ---- a file of the wrong kind ------------------------------------------------------------------

RUMEN = ("this looks like a Rumen job trace ('jobID', 'mapTasks', 'submitTime'), not {what}: "
         "fairshare does not read Rumen's job histories: convert it with Hadoop's rumen2sls.sh "
         "(RumenToSLSConverter: --rumen-file=FILE --output-dir=DIR), then give its "
         "sls-jobs.json as 'workload.sls' and its sls-nodes.json as 'workload.sls-nodes'")
JOBS, SYNTH, TOPOLOGY = "an SLS job trace", "an SLS SYNTH description", "an SLS topology file"


@pytest.mark.parametrize(("key", "name", "message"), [
    ("sls", "rumen-jobs.json", RUMEN.format(what=JOBS)),
    ("synth", "rumen-jobs.json", RUMEN.format(what=SYNTH)),
    ("sls-nodes", "rumen-jobs.json", RUMEN.format(what=TOPOLOGY)),
    ("sls", "stream-synth.json", f"this looks like {SYNTH} ('workloads'), not {JOBS}: give it "
                                 "as 'workload.synth'"),
    ("synth", "dag-jobs.json", f"this looks like {JOBS} ('job.*' keys), not {SYNTH}: give it as "
                               "'workload.sls'"),
    ("sls", "racks.json", f"this looks like {TOPOLOGY} ('rack' and 'nodes'), not {JOBS}: give "
                          "it as 'workload.sls-nodes'"),
    ("sls-nodes", "dag-jobs.json", f"this looks like {JOBS} ('job.*' keys), not {TOPOLOGY}: "
                                   "give it as 'workload.sls'"),
    ("sls-nodes", "doc-synth.json", f"this looks like {SYNTH} ('workloads'), not {TOPOLOGY}: "
                                    "give it as 'workload.synth'"),
    ("synth", "racks.json", f"this looks like {TOPOLOGY} ('rack' and 'nodes'), not {SYNTH}: "
                            "give it as 'workload.sls-nodes'"),
])
def test_a_file_of_the_wrong_kind_is_named_with_exit_2_and_nothing_written(
        tmp_path: Path, key: str, name: str, message: str) -> None:
    copy(tmp_path, name)
    path = write(tmp_path, "s.yaml", f"version: 1\nworkload:\n  {key}: {name}\n"
                                     "run: {until-ms: 1000}\n")
    out = tmp_path / "out"
    done = CliRunner().invoke(cli, ["simulate", str(path), "-o", str(out)])
    assert done.exit_code == 2
    assert done.output.splitlines() == [f"{tmp_path / name}:1: {message}"]
    assert not out.exists()


def test_a_rumen_job_in_an_array_is_recognised_too(tmp_path: Path) -> None:
    rumen = json.loads((FIXTURES / "rumen-jobs.json").read_text())
    path = write(tmp_path, "jobs.json", "[\n" + json.dumps(rumen) + "\n]")
    with pytest.raises(ConfigError) as info:
        load_sls_jobs(path, SlsSettings(), "jobs.json")
    [message] = problems(info.value)
    assert message.startswith("jobs.json:2: this looks like a Rumen job trace")


def test_a_synth_file_is_one_object_not_an_array_of_them(tmp_path: Path) -> None:
    text = "[\n" + (FIXTURES / "stream-synth.json").read_text() + "]"
    with pytest.raises(ConfigError) as info:
        load_synth(write(tmp_path, "synth.json", text), 1, SlsSettings(), "synth.json")
    assert problems(info.value) == [
        "synth.json:1: a SYNTH description is one JSON object (SynthTraceJobProducer's Trace), "
        "got a list"]


def test_errors_and_warnings_of_a_failed_load_are_shown_together(tmp_path: Path) -> None:
    """The topology's warning is shown with the trace's error: each file's in line order."""
    copy(tmp_path, "racks.json", "stream-synth.json")
    path = write(tmp_path, "s.yaml", "version: 1\nworkload:\n  sls-nodes: racks.json\n"
                                     "  sls: stream-synth.json\nrun: {until-ms: 1000}\n")
    done = CliRunner().invoke(cli, ["simulate", str(path)])
    assert done.exit_code == 2
    assert done.output.splitlines() == [
        f"{tmp_path / 'stream-synth.json'}:1: this looks like {SYNTH} ('workloads'), not "
        f"{JOBS}: give it as 'workload.synth'",
        f"{tmp_path / 'racks.json'}:24: warning: rack #2: nodes[2]: a node without 'node' (its "
        "name): SLS starts a node manager named 'null' for it, and so does fairshare; remove "
        "the entry if it is not meant to be a node",
    ]

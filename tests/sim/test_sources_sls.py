"""SLS JSON job traces and topology files (``workload.sls``, ``workload.sls-nodes``).

Expected apps, nodes, lines and messages are worked out by hand from the format (Hadoop 3.4's
``AMDefinitionSLS``, ``TaskContainerDefinition``, ``SLSUtils``; docs/workloads.md): line 1 is
the first line of each file.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app as cli
from fairshare.config.errors import ConfigError, all_errors
from fairshare.sim.parse.scenario import parse_scenario_text
from fairshare.sim.parse.specs import NodeSpec, TaskSpec, WorkloadApp
from fairshare.sim.sources import SlsSettings, load_sls_jobs, load_sls_topology

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = {"memory-mb": 1024, "vcores": 1}  # yarn.sls.container.* and yarn.sls.am.container.*
NODE = {"memory-mb": 10240, "vcores": 10}  # yarn.sls.nm.memory.mb / yarn.sls.nm.vcores

TRACE = """\
{"num.nodes": 2, "num.racks": 2}
{
  "job.start.ms": 1000,
  "job.end.ms": 50000,
  "job.queue.name": "sls_queue_1",
  "job.id": "job_1",
  "job.user": "alice",
  "am.memory-mb": 2048,
  "job.tasks": [
    {"container.host": "/r1/h1", "container.start.ms": 2000, "container.end.ms": 12000},
    {"container.host": "/r1/h2", "container.start.ms": 2500, "container.end.ms": 12500},
    {"count": 3, "container.duration.ms": 10000, "container.priority": 10},
    {"container.duration.ms": 10000, "container.memory-mb": 4096, "container.vcores": 2}
  ]
}
{"job.queue.name": "root.b", "job.tasks": [{"duration.ms": 500, "container.type": "reduce"}]}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def load(tmp_path: Path, text: str, settings: SlsSettings | None = None):
    return load_sls_jobs(write(tmp_path, "jobs.json", text), settings or SlsSettings(),
                         "jobs.json")


def errors_of(tmp_path: Path, text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, text)
    return [str(e) for e in all_errors(info.value)]


# ---- what a trace becomes ----------------------------------------------------------------------


def test_a_two_job_trace_becomes_these_apps(tmp_path: Path) -> None:
    """job_1: tasks 0 and 1 last 12000-2000 = 12500-2500 = 10000 ms at the default priority 20
    and size: one group of 2; task 2 is 3 tasks at priority 10; task 3 has its own size. The
    second job has no id: SLS numbers AMs from 0 in the trace, and job_1 was AM 0."""
    trace = load(tmp_path, TRACE)
    assert trace.apps == (
        WorkloadApp("job_1", 1000, "sls_queue_1", "alice", {"memory-mb": 2048, "vcores": 1}, (
            TaskSpec(2, DEFAULT, 10000, 20),
            TaskSpec(3, DEFAULT, 10000, 10),
            TaskSpec(1, {"memory-mb": 4096, "vcores": 2}, 10000, 20),
        ), 2, "jobs.json"),
        WorkloadApp("1", 0, "root.b", "default", DEFAULT, (TaskSpec(1, DEFAULT, 500, 20),), 16,
                    "jobs.json"),
    )


def test_the_trace_names_nodes_in_first_seen_order(tmp_path: Path) -> None:
    """num.nodes 2 over num.racks 2: /rack0/node0, /rack1/node1 (SLSUtils.generateNodes); then
    the container hosts /r1/h1 and /r1/h2, at the line of the job that names them."""
    assert load(tmp_path, TRACE).nodes == (
        NodeSpec("node0", "/rack0", NODE, 1, "jobs.json"),
        NodeSpec("node1", "/rack1", NODE, 1, "jobs.json"),
        NodeSpec("h1", "/r1", NODE, 2, "jobs.json"),
        NodeSpec("h2", "/r1", NODE, 2, "jobs.json"),
    )


def test_sls_sizes_come_from_the_settings(tmp_path: Path) -> None:
    settings = SlsSettings(node={"memory-mb": 8192, "vcores": 8},
                           container={"memory-mb": 512, "vcores": 1},
                           am={"memory-mb": 1536, "vcores": 2})
    trace = load(tmp_path, '{"job.tasks": [{"container.host": "/r/n", "duration.ms": 1}]}',
                 settings)
    [app] = trace.apps
    assert app.am == {"memory-mb": 1536, "vcores": 2}
    assert app.tasks == (TaskSpec(1, {"memory-mb": 512, "vcores": 1}, 1, 20),)
    assert trace.nodes == (NodeSpec("n", "/r", {"memory-mb": 8192, "vcores": 8}, 1,
                                    "jobs.json"),)


@pytest.mark.parametrize(("task", "duration"), [
    ('"container.duration.ms": 7, "duration.ms": 9', 7),  # the new key first
    ('"duration.ms": 9, "container.start.ms": 0, "container.end.ms": 5', 9),  # then the legacy
    ('"container.duration.ms": -1, "container.start.ms": 10, "container.end.ms": 15', 5),  # -1:
    ('"container.start.ms": "100", "container.end.ms": "250"', 150),  # not given; strings parse
], ids=["container.duration.ms", "duration.ms", "minus one means unset", "strings of digits"])
def test_a_tasks_duration(tmp_path: Path, task: str, duration: int) -> None:
    [app] = load(tmp_path, '{"job.tasks": [{' + task + "}]}").apps
    assert app.tasks[0].duration_ms == duration


def test_job_count_copies_a_job_with_numbered_ids(tmp_path: Path) -> None:
    """job.count 3 ignores job.id (SLS: oldAppId = null when jobCount > 1): AMs 0, 1, 2; the
    next job is AM 3. A count below 1 means 1, as SLS's Math.max(count, 1)."""
    text = ('{"job.id": "x", "job.count": 3, "job.tasks": [{"duration.ms": 1, "count": 0}]}\n'
            '{"job.tasks": [{"duration.ms": 1}]}')
    apps = load(tmp_path, text).apps
    assert [a.id for a in apps] == ["0", "1", "2", "3"]
    assert apps[0].tasks == (TaskSpec(1, DEFAULT, 1, 20),)


def test_a_top_level_array_of_jobs_is_read_too(tmp_path: Path) -> None:
    text = '[\n  {"job.tasks": [{"duration.ms": 1}]},\n  {"job.tasks": [{"duration.ms": 2}]}\n]'
    assert [(a.id, a.line) for a in load(tmp_path, text).apps] == [("0", 2), ("1", 3)]


def test_a_custom_resource_type_of_a_task_and_an_am(tmp_path: Path) -> None:
    text = ('{"am.yarn.io/gpu": 1, "job.tasks": [{"duration.ms": 1, "container.yarn.io/gpu": 2},'
            ' {"duration.ms": 1, "container.gpu": 3}]}')
    [app] = load(tmp_path, text).apps
    assert app.am == {"memory-mb": 1024, "vcores": 1, "yarn.io/gpu": 1}
    assert [t.resources for t in app.tasks] == [{"memory-mb": 1024, "vcores": 1, "yarn.io/gpu": 2},
                                                {"memory-mb": 1024, "vcores": 1, "gpu": 3}]


# ---- mistakes ----------------------------------------------------------------------------------

BAD_JOB = """\
{
  "job.id": "j",
  "job.tasks": [
    {"duration.ms": 5},
    {"container.start.ms": 300, "container.end.ms": 200}
  ]
}
"""


@pytest.mark.parametrize(("text", "message"), [
    (BAD_JOB, "jobs.json:5: job #1 (j): job.tasks[1].container.end.ms: 200 is not after "
              "container.start.ms (300): a task must last"),
    (BAD_JOB.replace('"duration.ms": 5', '"container.duration.ms": -5'),
     "jobs.json:4: job #1 (j): job.tasks[0].container.duration.ms: a task must last: must be "
     "positive, got -5"),
    (BAD_JOB.replace('"duration.ms": 5', '"count": 2'),
     "jobs.json:4: job #1 (j): job.tasks[0]: no duration: give container.duration.ms, or "
     "container.start.ms and container.end.ms"),
    (BAD_JOB.replace('"job.id": "j"', '"job.start.ms": "soon"'),
     "jobs.json:2: job #1: job.start.ms: must be an integer, got 'soon'"),
    (BAD_JOB.replace('"job.id": "j"', '"job.start.ms": 1.5'),
     "jobs.json:2: job #1: job.start.ms: must be an integer, got 1.5"),
    (BAD_JOB.replace('"job.id": "j"', '"job.start.ms": -1'),
     "jobs.json:2: job #1: job.start.ms: must not be negative, got -1"),
    (BAD_JOB.replace('"job.id": "j"', '"job.start.ms": 9, "job.end.ms": 8'),
     "jobs.json:2: job #1: job.end.ms: 8 is before job.start.ms (9)"),
    (BAD_JOB.replace('"job.id": "j"', '"job.queue": "a"'),
     "jobs.json:2: job #1: job.queue: unknown key 'job.queue' (did you mean 'job.queue.name'?)"),
    (BAD_JOB.replace('"duration.ms": 5', '"duration.ms": 5, "container.memory": 1'),
     "jobs.json:4: job #1 (j): job.tasks[0].container.memory: unknown key 'container.memory' "
     "(did you mean 'container.memory-mb'?)"),
    (BAD_JOB.replace('"duration.ms": 5', '"duration.ms": 5, "container.host": "h1"'),
     "jobs.json:4: job #1 (j): job.tasks[0].container.host: must be '/rack/host' (SLS splits it "
     "with NodeBase), got 'h1'"),
    (BAD_JOB.replace('"duration.ms": 5', '"duration.ms": 5, "container.execution.type": '
                                         '"OPPORTUNISTIC"'),
     "jobs.json:4: job #1 (j): job.tasks[0].container.execution.type: OPPORTUNISTIC containers "
     "are not scheduled by the Fair Scheduler; only GUARANTEED is supported"),
    (BAD_JOB.replace('"job.id": "j"', '"job.user": 7'),
     "jobs.json:2: job #1: job.user: must be a string, got 7"),
    ('{"job.id": "j"}', 'jobs.json:1: job #1 (j): a job needs a non-empty \'job.tasks\' list '
                        '(SLS: "No task for the job!"); got none'),
    ('{"job.tasks": []}', 'jobs.json:1: job #1: job.tasks: a job needs a non-empty '
                          '\'job.tasks\' list (SLS: "No task for the job!"); got a list'),
    ('{"job.tasks": [1]}', "jobs.json:1: job #1: job.tasks[0]: a task is a JSON object, got 1"),
    ('{}\n[1]', "jobs.json:2: job #2: a job is a JSON object, got a list"),
    ('{"job.count": 100001, "job.tasks": [{"duration.ms": 1}]}',
     "jobs.json:1: job #1: job.count: at most 100000 copies of a job, got 100001"),
    ('{"num.nodes": 100001}', "jobs.json:1: job #1: num.nodes: more than 100000 nodes"),
], ids=["end before start", "negative duration", "no duration", "not a number", "a double",
        "negative start", "job ends before it starts", "misspelt job key",
        "misspelt resource key", "host without rack", "opportunistic", "user not a string",
        "no tasks", "empty tasks", "task not an object", "entry not an object",
        "too many copies", "too many nodes"])
def test_a_bad_job_is_located(tmp_path: Path, text: str, message: str) -> None:
    assert message in errors_of(tmp_path, text)


@pytest.mark.parametrize(("text", "message"), [
    ('{"job.tasks": [\n  {"duration.ms": 1},\n}', "jobs.json:3: invalid JSON: expecting value "
                                                   "(column 1)"),
    ('{"job.tasks": [}', "jobs.json:1: invalid JSON: expecting value (column 16)"),
    ('{"a": NaN}', "jobs.json:1: invalid JSON: NaN is not a JSON value (column 1)"),
    ('[{"job.tasks": [{"duration.ms": 1}]} {}]',
     "jobs.json:1: invalid JSON: expecting ',' or ']' after an array element (column 38)"),
], ids=["trailing comma", "bad value", "NaN", "array without comma"])
def test_invalid_json_is_reported_with_line_and_column(tmp_path: Path, text: str,
                                                       message: str) -> None:
    assert errors_of(tmp_path, text) == [message]


def test_every_bad_job_is_reported_and_the_good_ones_do_not_hide_them(tmp_path: Path) -> None:
    text = ('{"job.tasks": [{"duration.ms": 0}]}\n'
            '{"job.tasks": [{"duration.ms": 1}]}\n'
            '{"job.tasks": [{"duration.ms": "x"}]}\n')
    assert errors_of(tmp_path, text) == [
        "jobs.json:1: job #1: job.tasks[0].duration.ms: a task must last: must be positive, "
        "got 0",
        "jobs.json:3: job #3: job.tasks[0].duration.ms: must be a 32-bit integer, got 'x'",
    ]


# ---- the topology file -------------------------------------------------------------------------

TOPOLOGY = """\
[
  {"rack": "default-rack", "nodes": [
    {"node": "a"},
    {"node": "b", "memory-mb": "4096", "vcores": 4, "labels": "x"}
  ]},
  {"rack": "/r2", "nodes": [{"node": "c", "yarn.io/gpu": 2}]}
]
"""


def test_a_topology_file_becomes_these_nodes(tmp_path: Path) -> None:
    """Rack "default-rack" is /default-rack; a node's own sizes win over yarn.sls.nm.*, which
    give what it leaves out; labels are read and ignored; a leading "/" of a rack is kept once."""
    topology = load_sls_topology(write(tmp_path, "topology.json", TOPOLOGY), SlsSettings(),
                                 "topology.json")
    assert topology.warnings == ()
    assert topology.nodes == (
        NodeSpec("a", "/default-rack", NODE, 3, "topology.json"),
        NodeSpec("b", "/default-rack", {"memory-mb": 4096, "vcores": 4}, 4, "topology.json"),
        NodeSpec("c", "/r2", {**NODE, "yarn.io/gpu": 2}, 6, "topology.json"),
    )


@pytest.mark.parametrize(("change", "message"), [
    (('{"node": "a"}', '{"node": "a", "memory": 1}'),
     "topology.json:3: rack #1: nodes[0]: unknown key 'memory' (did you mean 'memory-mb'?)"),
    (('"vcores": 4', '"vcores": -4'),
     "topology.json:4: rack #1: nodes[1].vcores: must not be negative, got -4"),
    (('{"node": "c", ', '{"node": "a", '),
     "topology.json:6: rack #2: nodes[0]: duplicate node name 'a' (first at line 3)"),
    (('"rack": "/r2", "nodes"', '"rack": "/r2", "nodez"'),
     "topology.json:6: rack #2: missing required key 'nodes'"),
], ids=["misspelt key", "negative size", "a node twice", "no nodes"])
def test_topology_mistakes_are_located(tmp_path: Path, change: tuple[str, str],
                                       message: str) -> None:
    path = write(tmp_path, "topology.json", TOPOLOGY.replace(*change))
    with pytest.raises(ConfigError) as info:
        load_sls_topology(path, SlsSettings(), "topology.json")
    assert message in [str(e) for e in all_errors(info.value)]


# ---- in a scenario -----------------------------------------------------------------------------

SCENARIO = """\
version: 1
site:
  yarn.sls.nm.memory.mb: 8192
  yarn.sls.nm.vcores: "0x8"
  yarn.sls.container.memory.mb: 2048
workload:
  apps:
    - {id: native, tasks: [{duration-ms: 1000}]}
  sls: jobs.json
run: {until-ms: 60000}
"""


def scenario(tmp_path: Path, text: str = SCENARIO, trace: str = TRACE):
    write(tmp_path, "jobs.json", trace)
    write(tmp_path, "topology.json", TOPOLOGY)
    return parse_scenario_text(text, "s.yaml", tmp_path)


def scenario_errors(tmp_path: Path, text: str = SCENARIO, trace: str = TRACE) -> list[str]:
    with pytest.raises(ConfigError) as info:
        scenario(tmp_path, text, trace)
    return [str(e) for e in all_errors(info.value)]


def test_a_scenario_runs_native_apps_then_the_traces_with_sls_sizes_from_site(
        tmp_path: Path) -> None:
    """yarn.sls.nm.vcores "0x8" is 8 (Hadoop's getInt reads hex); tasks default to 2048 MB."""
    s = scenario(tmp_path)
    assert [(a.id, a.source, a.line) for a in s.workload or ()] == [
        ("native", "", 8), ("job_1", "jobs.json", 2), ("1", "jobs.json", 16)]
    assert s.workload and s.workload[2].tasks == (
        TaskSpec(1, {"memory-mb": 2048, "vcores": 1}, 500, 20),)
    # no node named anywhere: the trace's nodes, sized by yarn.sls.nm.*
    assert [(n.name, n.rack, n.resources) for n in s.nodes] == [
        (name, rack, {"memory-mb": 8192, "vcores": 8})
        for name, rack in (("node0", "/rack0"), ("node1", "/rack1"), ("h1", "/r1"), ("h2", "/r1"))
    ]


def test_with_cluster_nodes_the_trace_names_no_nodes(tmp_path: Path) -> None:
    text = SCENARIO.replace("workload:", "cluster:\n  nodes: [{name: n1, memory-mb: 1, "
                                         "vcores: 1}]\nworkload:")
    assert [n.name for n in scenario(tmp_path, text).nodes] == ["n1"]


def test_with_an_add_node_step_the_trace_names_no_nodes(tmp_path: Path) -> None:
    text = SCENARIO.replace("workload:", "steps:\n  - add-node: {name: n1, memory-mb: 1, "
                                         "vcores: 1}\nworkload:")
    assert scenario(tmp_path, text).nodes == ()


def test_the_topology_file_joins_cluster_nodes(tmp_path: Path) -> None:
    text = SCENARIO.replace("workload:", "cluster:\n  nodes: [{name: n1, memory-mb: 1, "
                                         "vcores: 1}]\nworkload:\n  sls-nodes: topology.json")
    s = scenario(tmp_path, text)
    assert [(n.name, n.source) for n in s.nodes] == [
        ("n1", ""), ("a", "topology.json"), ("b", "topology.json"), ("c", "topology.json")]


def test_a_node_in_both_the_scenario_and_the_topology_is_an_error(tmp_path: Path) -> None:
    text = SCENARIO.replace("workload:", "cluster:\n  nodes: [{name: b, memory-mb: 1, "
                                         "vcores: 1}]\nworkload:\n  sls-nodes: topology.json")
    assert scenario_errors(tmp_path, text) == [
        "topology.json:4: node 'b' is also defined by the scenario (at s.yaml:7)"]


def test_an_app_id_in_both_the_scenario_and_the_trace_is_an_error(tmp_path: Path) -> None:
    text = SCENARIO.replace("id: native", "id: job_1")
    assert scenario_errors(tmp_path, text) == [
        "jobs.json:2: duplicate app id 'job_1' (first at s.yaml:8)"]


def test_a_bad_sls_site_property_is_located_in_the_scenario(tmp_path: Path) -> None:
    text = SCENARIO.replace("memory.mb: 8192", "memory.mb: lots")
    assert scenario_errors(tmp_path, text) == [
        "s.yaml:3: site.yarn.sls.nm.memory.mb: must be an integer (SLS reads it with getInt), "
        "got 'lots'"]


def test_trace_errors_fail_the_whole_scenario(tmp_path: Path) -> None:
    assert scenario_errors(tmp_path, trace='{"job.tasks": [{"duration.ms": 0}]}') == [
        "jobs.json:1: job #1: job.tasks[0].duration.ms: a task must last: must be positive, "
        "got 0"]


def test_a_missing_trace_file_is_an_error_of_the_scenario(tmp_path: Path) -> None:
    errors = scenario_errors(tmp_path, SCENARIO.replace("sls: jobs.json", "sls: nope.json"))
    assert errors == [f"s.yaml:9: workload.sls: file not found: {tmp_path / 'nope.json'}"]


def test_fairshare_run_reports_a_bad_trace_with_exit_2_and_no_traceback(tmp_path: Path) -> None:
    write(tmp_path, "jobs.json", '{\n  "job.tasks": [{"duration.ms": 5,\n  "count": "many"}]\n}')
    path = write(tmp_path, "s.yaml", SCENARIO)
    done = CliRunner().invoke(cli, ["run", str(path)])
    assert done.exit_code == 2
    assert (f"{tmp_path / 'jobs.json'}:3: job #1: job.tasks[0].count: must be a 32-bit integer, "
            "got 'many'") in done.output
    assert "Traceback" not in done.output


def test_the_sls_example_runs() -> None:
    done = CliRunner().invoke(cli, ["run", str(ROOT / "examples/sls-trace/scenario.yaml"),
                                    "--quiet"])
    assert done.exit_code == 0, done.output


# ---- size --------------------------------------------------------------------------------------


def test_a_million_tasks_load_in_seconds_as_few_groups(tmp_path: Path) -> None:
    """1000 jobs × 1000 tasks; each job's tasks have 7 durations, so 7 groups per job."""
    task = '{{"container.host": "/r/n{n}", "container.start.ms": 0, "container.end.ms": {end}}}'
    with (tmp_path / "jobs.json").open("w") as f:
        for job in range(1000):
            tasks = ",".join(task.format(n=i % 50, end=1000 * (1 + i % 7)) for i in range(1000))
            f.write(f'{{"job.id": "j{job}", "job.start.ms": {job}, "job.tasks": [{tasks}]}}\n')
    began = time.perf_counter()
    trace = load_sls_jobs(tmp_path / "jobs.json", SlsSettings(), "jobs.json")
    assert time.perf_counter() - began < 30
    assert sum(t.count for a in trace.apps for t in a.tasks) == 1_000_000
    assert {len(a.tasks) for a in trace.apps} == {7}
    assert len(trace.nodes) == 50


def test_a_container_host_that_is_not_a_string_is_a_located_error(tmp_path: Path) -> None:
    trace = '{"job.tasks": [{"container.host": ["a"], "duration.ms": 1}]}'
    assert errors_of(tmp_path, trace) == [
        "jobs.json:1: job #1: job.tasks[0].container.host: must be a string, got a list"]


def test_a_number_of_thousands_of_digits_is_a_located_json_error(tmp_path: Path) -> None:
    trace = '{"job.tasks": [{"duration.ms": ' + "9" * 5000 + "}]}"
    [message] = errors_of(tmp_path, trace)
    assert message.startswith("jobs.json:1: invalid JSON: number too long")

"""SLS SYNTH workload descriptions (``workload.synth``): generated apps, nodes, errors.

Constant samples give numbers worked out by hand from ``SynthJob`` (round half up, memory at
least 1024 MB, vcores at least 1, task times in seconds); random ones are checked for
determinism and against the configured means.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app as cli
from fairshare.config.errors import ConfigError, all_errors
from fairshare.sim.parse.scenario import parse_scenario_text
from fairshare.sim.parse.specs import NodeSpec, TaskSpec, WorkloadApp
from fairshare.sim.sources import SlsSettings, load_synth

ROOT = Path(__file__).resolve().parents[2]
AM = {"memory-mb": 1024, "vcores": 1}  # yarn.sls.am.container.*
NODE = {"memory-mb": 10240, "vcores": 10}  # yarn.sls.nm.*

CONSTANT = """\
{
  "num_nodes": 5,
  "nodes_per_rack": 2,
  "num_jobs": 3,
  "rand_seed": 99,
  "workloads": [
    {
      "workload_name": "w",
      "workload_weight": 1,
      "queue_name": "sls_queue_1",
      "job_classes": [
        {
          "class_name": "c",
          "user_name": "u",
          "class_weight": 1,
          "tasks": [
            {"type": "map", "priority": 20, "count": {"val": 3}, "time": {"val": 5},
             "max_memory": {"val": 512}, "max_vcores": {"val": 2.5}},
            {"type": "reduce", "count": {"val": 1.4}, "time": {"val": 0.5},
             "max_memory": {"val": 3000.5}, "max_vcores": {"val": 0.4}}
          ]
        }
      ],
      "time_distribution": [{"time": 10, "weight": 1}]
    }
  ]
}
"""


def write(tmp_path: Path, text: str, name: str = "synth.json") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def generate(tmp_path: Path, text: str, seed: int = 1):
    return load_synth(write(tmp_path, text), seed, SlsSettings(), "synth.json")


def errors_of(tmp_path: Path, text: str, seed: int = 1) -> list[str]:
    """The errors of a file, then its warnings."""
    with pytest.raises(ConfigError) as info:
        generate(tmp_path, text, seed)
    return [str(e) for e in (*all_errors(info.value), *info.value.warnings)]


def workload(*classes: dict[str, Any],
             times: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"workload_name": "w", "workload_weight": 1, "queue_name": "q",
            "job_classes": list(classes),
            "time_distribution": times or [{"time": 0, "weight": 1}]}


def task(**samples: Any) -> dict[str, Any]:
    base = {"count": {"val": 1}, "time": {"val": 1}, "max_memory": {"val": 1024},
            "max_vcores": {"val": 1}}
    return {**base, **samples}


def trace(*workloads: dict[str, Any], num_jobs: int = 2000) -> str:
    return json.dumps({"num_jobs": num_jobs, "workloads": list(workloads)}, indent=1)


def job_class(name: str = "c", weight: float = 1, **samples: Any) -> dict[str, Any]:
    return {"class_name": name, "class_weight": weight, "tasks": [task(**samples)]}


# ---- constant samples: worked by hand ----------------------------------------------------------


def test_constant_samples_give_these_apps(tmp_path: Path) -> None:
    """One bucket at 10 s: every job starts at 10000 ms. Maps: 3 tasks of 5 s, memory 512 raised
    to 1024, vcores round(2.5) = 3. Reduces: round(1.4) = 1 task of round(0.5) = 1 s, memory
    round(3000.5) = 3001, vcores round(0.4) = 0 raised to 1, priority 0 (the JSON default).
    Names: class name and the job's number in start order; the line is the job class's."""
    apps = generate(tmp_path, CONSTANT).apps
    tasks = (TaskSpec(3, {"memory-mb": 1024, "vcores": 3}, 5000, 20),
             TaskSpec(1, {"memory-mb": 3001, "vcores": 1}, 1000, 0))
    assert apps == tuple(WorkloadApp(f"c_{n:06d}", 10000, "sls_queue_1", "u", AM, tasks, 12,
                                     "synth.json") for n in range(3))


def test_num_nodes_and_nodes_per_rack_give_nodes(tmp_path: Path) -> None:
    """racks = 5 // 2 = 2; node i on /rack(i % 2) (SLSUtils.generateNodes)."""
    assert generate(tmp_path, CONSTANT).nodes == tuple(
        NodeSpec(f"node{i}", f"/rack{i % 2}", NODE, 2, "synth.json") for i in range(5))


def test_the_old_flat_job_class_format(tmp_path: Path) -> None:
    """validateJobDef: maps at priority 20, reduces at 10, every value a LogNormal with the
    given mean; a deviation of 0.001 keeps every draw within rounding of the mean."""
    old = {"class_name": "old", "class_weight": 1, "mtasks_avg": 5, "mtasks_stddev": 0.001,
           "rtasks_avg": 2, "rtasks_stddev": 0.001, "mtime_avg": 10, "mtime_stddev": 0.001,
           "rtime_avg": 20, "rtime_stddev": 0.001, "map_max_memory_avg": 1024,
           "map_max_memory_stddev": 0.001, "reduce_max_memory_avg": 2048,
           "reduce_max_memory_stddev": 0.001, "map_max_vcores_avg": 1,
           "map_max_vcores_stddev": 0.001, "reduce_max_vcores_avg": 2,
           "reduce_max_vcores_stddev": 0.001, "dur_avg": 60, "dur_stddev": 5,
           "chance_of_reservation": 0.5, "deadline_factor_avg": 10,
           "deadline_factor_stddev": 0.001}
    apps = generate(tmp_path, trace(workload(old), num_jobs=20)).apps
    assert [a.tasks for a in apps] == [(
        TaskSpec(5, {"memory-mb": 1024, "vcores": 1}, 10000, 20),
        TaskSpec(2, {"memory-mb": 2048, "vcores": 2}, 20000, 10),
    )] * 20
    assert {(a.queue, a.user) for a in apps} == {("q", "default")}


def test_a_discrete_sample_chooses_by_weight(tmp_path: Path) -> None:
    memory = {"discrete": [2048, " 4096 "], "weights": [0, 1]}  # strings parse as Java doubles
    apps = generate(tmp_path, trace(workload(job_class(max_memory=memory)), num_jobs=50)).apps
    assert {a.tasks[0].resources["memory-mb"] for a in apps} == {4096}


# ---- random samples ----------------------------------------------------------------------------

RANDOM = trace(
    workload(job_class("small", 1, count={"val": 20, "std": 4}, time={"val": 30, "std": 10}),
             job_class("normal", 1, count={"val": 10, "std": 2, "dist": "NORM"}),
             times=[{"time": 0, "weight": 1}, {"time": 30, "weight": 2},
                    {"time": 90, "weight": 0}]),
    {**workload(job_class("other")), "workload_weight": 3, "queue_name": "q3"},
)


def test_the_same_seed_gives_the_same_apps_and_another_seed_others(tmp_path: Path) -> None:
    first, again = generate(tmp_path, RANDOM, seed=42), generate(tmp_path, RANDOM, seed=42)
    assert first == again
    assert generate(tmp_path, RANDOM, seed=43).apps != first.apps
    assert generate(tmp_path, RANDOM, seed=-42).apps != first.apps  # not abs(seed)


def test_the_files_rand_seed_does_not_change_the_workload(tmp_path: Path) -> None:
    seeded = json.loads(RANDOM)
    seeded["rand_seed"] = 12345
    with_seed = generate(tmp_path, json.dumps(seeded, indent=1)).apps
    assert [replace(a, line=0) for a in with_seed] == [
        replace(a, line=0) for a in generate(tmp_path, RANDOM).apps]


def test_draws_follow_the_configured_distributions(tmp_path: Path) -> None:
    """2000 jobs: workloads 1:3, so about 500 from the first; its classes 1:1. The mean task
    count of "small" is the LogNormal's mean 20 (standard error 4 / √500 ≈ 0.18), of "normal"
    10; start buckets [0, 30) and [30, 90) s with weights 1:2, nothing from 90 s on."""
    apps = generate(tmp_path, RANDOM).apps
    by_class: dict[str, list[WorkloadApp]] = {}
    for a in apps:
        by_class.setdefault(a.id.split("_")[0], []).append(a)
    assert abs(len(by_class["other"]) / len(apps) - 0.75) < 0.04
    counts = {name: [sum(t.count for t in a.tasks) for a in by_class[name]]
              for name in ("small", "normal")}
    assert abs(statistics.mean(counts["small"]) - 20) < 1
    assert abs(statistics.mean(counts["normal"]) - 10) < 0.5
    times = [t.duration_ms for a in by_class["small"] for t in a.tasks for _ in range(t.count)]
    assert abs(statistics.mean(times) - 30000) < 1000
    first = [a.at_ms for a in (*by_class["small"], *by_class["normal"])]
    assert max(first) < 90000
    assert abs(sum(t < 30000 for t in first) / len(first) - 1 / 3) < 0.06
    assert [a.at_ms for a in apps] == sorted(a.at_ms for a in apps)  # start-time order
    assert [a.id[-6:] for a in apps] == [f"{n:06d}" for n in range(len(apps))]


# ---- mistakes ----------------------------------------------------------------------------------


def test_a_drawn_task_time_of_zero_is_refused_at_its_sample(tmp_path: Path) -> None:
    """N(1, 10) draws below 0.5 about half the time; 50 tasks: the first job fails."""
    text = trace(workload(job_class(count={"val": 50},
                                    time={"val": 1, "std": 10, "dist": "NORM"})), num_jobs=3)
    [message] = errors_of(tmp_path, text)
    assert message.startswith("synth.json:17: workloads[0].job_classes[0].tasks[0].time: job "
                              "c_000000: a drawn task time rounds to ")
    assert message.endswith("SLS refuses tasks that do not last (\"Duration of a task shouldn't "
                            "be less or equal to 0\")")


BAD = """\
{
  "num_jobs": 1,
  "workloads": [{
    "workload_weight": 1,
    "job_classes": [{
      "class_name": "c", "class_weight": 1,
      "tasks": [{
        "count": {"val": 1},
        "time": {"val": 10, "std": 2},
        "max_memory": {"val": 1024},
        "max_vcores": {"val": 1}
      }]
    }],
    "time_distribution": [{"time": 0, "weight": 1}]
  }]
}
"""


@pytest.mark.parametrize(("change", "message"), [
    (('"std": 2}', '"std": 2, "dist": "GAMMA"}'),
     "synth.json:9: workloads[0].job_classes[0].tasks[0].time: unknown distribution 'GAMMA' "
     "(LOGNORM or NORM)"),
    (('"val": 10, "std": 2', '"val": 0, "std": 2'),
     "synth.json:9: workloads[0].job_classes[0].tasks[0].time: a distribution's 'val' (its "
     "mean) must be positive, got 0.0 (SLS has no distribution for it)"),
    (('"val": 10, "std": 2', '"std": 2'),
     "synth.json:9: workloads[0].job_classes[0].tasks[0].time: 'std' needs 'val' (the mean)"),
    (('"val": 10, "std": 2', '"val": 10, "discrete": [1]'),
     "synth.json:9: workloads[0].job_classes[0].tasks[0].time: a constant {\"val\": …} takes no "
     "'dist', 'discrete' or 'weights'"),
    (('"time": {"val": 10, "std": 2}', '"time": 10'),
     "synth.json:9: workloads[0].job_classes[0].tasks[0].time: must be a map, got 10"),
    (('"class_weight": 1', '"class_weight": 0'),
     "synth.json:3: workloads[0]: no job class can be chosen: give one a positive "
     "'class_weight'"),
    (('{"time": 0, "weight": 1}', '{"time": -1, "weight": 1}'),
     "synth.json:14: workloads[0].time_distribution[0].time: must be an integer from 0 to "
     "2147483647, got -1"),
    (('"num_jobs": 1', '"num_jobs": 2000000'),
     "synth.json:2: num_jobs: must be an integer from 0 to 200000, got 2000000"),
    (('"max_vcores": {"val": 1}', '"max_vcores": {"val": 1}, "execution_type": "OPPORTUNISTIC"'),
     "synth.json:11: workloads[0].job_classes[0].tasks[0].execution_type: OPPORTUNISTIC "
     "containers are not scheduled by the Fair Scheduler; only GUARANTEED is supported"),
    (('"tasks": [{', '"taskz": [{'),
     "synth.json:7: warning: workloads[0].job_classes[0]: unknown key 'taskz' ignored, as SLS "
     "ignores unknown keys (did you mean 'tasks'?)"),
    (('"tasks": [{', '"taskz": [{'),
     "synth.json:5: workloads[0].job_classes[0]: missing required key 'tasks' (or the old "
     "format's mtasks_avg, rtasks_avg, …)"),
    (('"count": {"val": 1},', ''),
     "synth.json:7: workloads[0].job_classes[0].tasks[0]: missing required key 'count'"),
    (('"time_distribution": [{"time": 0, "weight": 1}]', '"time_distribution": []'),
     "synth.json:3: workloads[0]: no start time can be chosen: give a 'time_distribution' entry "
     "a positive 'weight'"),
    (('"num_jobs": 1,', '"num_jobs": 1,,'),
     "synth.json:2: invalid JSON: expecting property name enclosed in double quotes "
     "(column 17)"),
], ids=["unknown distribution", "mean of 0", "std without val", "constant with discrete",
        "a number for a sample", "no class weight", "negative time",
        "too many jobs", "opportunistic", "misspelt tasks: warned", "misspelt tasks: then missing",
        "no count", "no time buckets",
        "invalid JSON"])
def test_a_bad_synth_file_is_located(tmp_path: Path, change: tuple[str, str],
                                     message: str) -> None:
    assert message in errors_of(tmp_path, BAD.replace(*change))


def test_the_old_format_needs_positive_means(tmp_path: Path) -> None:
    old = {"class_name": "old", "class_weight": 1, "mtasks_avg": 5, "mtime_avg": 10,
           "map_max_memory_avg": 1024, "map_max_vcores_avg": 0.5}
    assert errors_of(tmp_path, trace(workload(old), num_jobs=1)) == [
        "synth.json:9: workloads[0].job_classes[0]: the old format draws maps and reduces from "
        "LogNormals whose means must be positive: map_max_vcores_avg, rtasks_avg, rtime_avg, "
        "reduce_max_memory_avg, reduce_max_vcores_avg are not (use 'tasks' for a map-only job)"]


# ---- in a scenario -----------------------------------------------------------------------------

SCENARIO = """\
version: 1
seed: 5
site: {yarn.sls.nm.memory.mb: 4096, yarn.sls.am.container.memory: 512}
workload:
  synth: synth.json
run: {until-ms: 60000}
"""


def test_a_scenario_generates_from_its_seed_and_sizes_from_site(tmp_path: Path) -> None:
    write(tmp_path, RANDOM)
    s = parse_scenario_text(SCENARIO, "s.yaml", tmp_path)
    settings = SlsSettings(node={"memory-mb": 4096, "vcores": 10},
                           am={"memory-mb": 512, "vcores": 1})
    expected = load_synth(tmp_path / "synth.json", 5, settings, "synth.json")
    assert s.workload == expected.apps
    assert s.nodes == expected.nodes == ()  # RANDOM has no num_nodes
    write(tmp_path, CONSTANT)
    s = parse_scenario_text(SCENARIO, "s.yaml", tmp_path)
    assert [(n.name, n.resources) for n in s.nodes] == [
        (f"node{i}", {"memory-mb": 4096, "vcores": 10}) for i in range(5)]
    assert {a.am["memory-mb"] for a in s.workload or () if a.am} == {512}


def test_fairshare_run_reports_a_bad_synth_file_with_exit_2(tmp_path: Path) -> None:
    write(tmp_path, BAD.replace('"std": 2}', '"std": 2, "dist": "lognorm"}'))
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    done = CliRunner().invoke(cli, ["run", str(path)])
    assert done.exit_code == 2
    assert (f"{tmp_path / 'synth.json'}:9: workloads[0].job_classes[0].tasks[0].time: unknown "
            "distribution 'lognorm' (LOGNORM or NORM)") in done.output
    assert "Traceback" not in done.output


def test_the_synth_example_runs() -> None:
    done = CliRunner().invoke(cli, ["run", str(ROOT / "examples/synth-workload/scenario.yaml"),
                                    "--quiet"])
    assert done.exit_code == 0, done.output


def test_a_weight_beyond_any_double_is_a_located_error(tmp_path: Path) -> None:
    heavy = {**workload(job_class("a")), "workload_weight": 10**400}
    assert errors_of(tmp_path, trace(heavy)) == [
        "synth.json:6: workloads[0].workload_weight: must be a number, got a very large number"]

"""CSV workloads (``workload.csv``), and a scenario combining every source.

Expected apps, lines and messages are worked out by hand from the format described in
``fairshare.sim.sources.csv_source`` and docs/workloads.md; line 1 is the file's first line.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from fairshare.cli.main import app as cli
from fairshare.config.errors import ConfigError, all_errors
from fairshare.sim.parse.scenario import parse_scenario_text
from fairshare.sim.parse.specs import TaskSpec, WorkloadApp
from fairshare.sim.sources import dump_csv, load_csv, parse_csv

ROOT = Path(__file__).resolve().parents[2]
HEADER = ("app,at_ms,queue,user,am-memory-mb,am-vcores,count,memory-mb,vcores,duration-ms,"
          "priority,yarn.io/gpu,am-yarn.io/gpu")
CSV = f"""\
# teams and their jobs
{HEADER}
etl,0,root.etl,alice,2048,1,40,2048,1,60000,20,,1
etl,,,,,,10,4096,2,120000,10,1,

adhoc,5000,,bob,,,4,,,30000,,,
"quoted, id",7,q,u,,,1,1,1,1,1,,
"""


def parse(text: str) -> tuple[WorkloadApp, ...]:
    return parse_csv(text, "apps.csv")


def errors_of(text: str) -> list[str]:
    with pytest.raises(ConfigError) as info:
        parse(text)
    return [str(e) for e in all_errors(info.value)]


def test_rows_become_these_apps() -> None:
    """etl's second row adds a task group and leaves the app columns empty; adhoc leaves the
    AM cells empty (an unmanaged AM) and sizes, queue and priority to their defaults; an empty
    custom-type cell means none of that type."""
    assert parse(CSV) == (
        WorkloadApp("etl", 0, "root.etl", "alice",
                    {"memory-mb": 2048, "vcores": 1, "yarn.io/gpu": 1}, (
                        TaskSpec(40, {"memory-mb": 2048, "vcores": 1}, 60000, 20),
                        TaskSpec(10, {"memory-mb": 4096, "vcores": 2, "yarn.io/gpu": 1},
                                 120000, 10),
                    ), 3, "apps.csv"),
        WorkloadApp("adhoc", 5000, "default", "bob", None,
                    (TaskSpec(4, {"memory-mb": 1024, "vcores": 1}, 30000, 20),), 6, "apps.csv"),
        WorkloadApp("quoted, id", 7, "q", "u", None,
                    (TaskSpec(1, {"memory-mb": 1, "vcores": 1}, 1, 1),), 7, "apps.csv"),
    )


def test_one_am_cell_makes_a_managed_am_with_defaults_for_the_rest() -> None:
    [app] = parse("app,am-vcores,duration-ms\na,2,5\n")
    assert app.am == {"memory-mb": 1024, "vcores": 2}
    assert app.user == "nobody"  # as the scenario's own apps


def test_a_header_alone_is_no_apps(tmp_path: Path) -> None:
    path = tmp_path / "apps.csv"
    path.write_text("app,duration-ms\n")
    assert load_csv(path) == ()


@pytest.mark.parametrize(("text", "message"), [
    (CSV.replace("etl,,,,,,10", "etl,5,,,,,10"),
     "apps.csv:4: app 'etl': at-ms is '5' here but '0' on its first row (line 3)"),
    (CSV.replace("etl,,,,,,10", "etl,,,,1024,,10"),
     "apps.csv:4: app 'etl': am-memory-mb is '1024' here but '2048' on its first row (line 3)"),
    (CSV.replace("adhoc,5000,,bob,,,4,,,30000,,,\n",
                 "adhoc,5000,,bob,,,4,,,30000,,,\nadhoc,,,,,1,1,1,1,1,1,,\n"),
     "apps.csv:7: app 'adhoc': am-vcores is '1' here but empty on its first row (line 6)"),
    (CSV + "etl,0,root.etl,alice,2048,1,1,1,1,1,1,,\n",
     "apps.csv:8: duplicate app id 'etl' (first at line 3; the rows of one app must follow one "
     "another)"),
    (CSV.replace(",4,,,30000", ",x,,,30000"),
     "apps.csv:6: count: must be an integer from 1 to 2147483647, got 'x'"),
    (CSV.replace(",4,,,30000", ",0,,,30000"),
     "apps.csv:6: count: must be an integer from 1 to 2147483647, got '0'"),
    (CSV.replace("adhoc,5000", "adhoc,-5000"),
     "apps.csv:6: at-ms: must be a non-negative integer, got '-5000'"),
    (CSV.replace(",4,,,30000", ",4,,,"), "apps.csv:6: duration-ms: required, got an empty cell"),
    (CSV.replace("adhoc,5000", ",5000"), "apps.csv:6: app: required, got an empty cell"),
    (CSV.replace("1,1,1,1,1,,", "1,1,1,1,1,,,"), "apps.csv:7: the row has 14 cells, the header 13"),
    (CSV.replace(",duration-ms,", ",duration,"),
     "apps.csv:2: header: unknown column 'duration' (did you mean 'duration-ms'?)"),
    (CSV.replace(",duration-ms,", ",duration-ms,").replace("app,", "id,", 1),
     "apps.csv:2: header: missing column 'app'"),
    (CSV.replace(",vcores,", ",memory-mb,"),
     "apps.csv:2: header: column 'memory-mb' appears twice"),
    (CSV.replace("etl,0,", 'etl,"0"x,'), "apps.csv:3: invalid CSV: ',' expected after '\"'"),
    ("# nothing\n\n", "apps.csv:1: no header row: the first row names the columns (app, "
                      "duration-ms, …)"),
], ids=["rows disagree on at-ms", "rows disagree on the AM", "a later row adds an AM cell",
        "rows of one app apart", "count not a number", "count 0", "negative at-ms",
        "no duration", "no app", "too many cells", "misspelt column", "missing column",
        "column twice", "bad quoting", "no header"])
def test_csv_mistakes_are_located(text: str, message: str) -> None:
    assert message in errors_of(text)


# ---- round trip --------------------------------------------------------------------------------

NAMES = st.text(st.characters(codec="utf-8", exclude_characters="\r\n\x00"), min_size=1,
                max_size=12).filter(lambda s: s.strip() == s and not s.startswith("#"))
CUSTOM = st.dictionaries(st.sampled_from(["yarn.io/gpu", "fpga"]), st.integers(0, 2**40),
                         max_size=2)
SIZES = st.builds(lambda m, v, more: {"memory-mb": m, "vcores": v, **more},
                  st.integers(0, 2**40), st.integers(0, 2**31), CUSTOM)
TASKS = st.builds(TaskSpec, st.integers(1, 2**31 - 1), SIZES, st.integers(0, 2**50),
                  st.integers(-(2**31), 2**31 - 1))
APPS = st.lists(st.builds(WorkloadApp, NAMES, st.integers(0, 2**50), NAMES, NAMES,
                          st.none() | SIZES, st.lists(TASKS, min_size=1, max_size=3).map(tuple)),
                max_size=5, unique_by=lambda a: a.id)


@settings(max_examples=200, deadline=None)
@given(APPS)
def test_dumped_apps_read_back_the_same(apps: list[WorkloadApp]) -> None:
    back = parse_csv(dump_csv(apps), "x.csv")
    assert [replace(a, line=0, source="") for a in back] == apps


def test_an_app_without_tasks_cannot_be_dumped() -> None:
    with pytest.raises(ValueError, match="has no tasks"):
        dump_csv([WorkloadApp("a", 0, "q", "u", None, ())])


# ---- every source in one scenario --------------------------------------------------------------

SCENARIO = """\
version: 1
seed: 3
cluster:
  nodes: [{name: n1, memory-mb: 8192, vcores: 8}]
workload:
  csv: apps.csv
  synth: synth.json
  sls: jobs.json
  apps:
    - {id: native, tasks: [{duration-ms: 1000}]}
run: {until-ms: 60000}
"""
SYNTH = """{"num_jobs": 2, "num_nodes": 4, "workloads": [{"workload_weight": 1,
  "job_classes": [{"class_name": "gen", "class_weight": 1, "tasks": [{"count": {"val": 1},
  "time": {"val": 1}, "max_memory": {"val": 1024}, "max_vcores": {"val": 1}}]}],
  "time_distribution": [{"time": 0, "weight": 1}]}]}
"""


def every_source(tmp_path: Path, csv: str = CSV) -> Path:
    (tmp_path / "apps.csv").write_text(csv)
    (tmp_path / "synth.json").write_text(SYNTH)
    (tmp_path / "jobs.json").write_text('{"job.id": "sls", "job.tasks": [{"duration.ms": 1}]}')
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO)
    return path


def test_a_scenario_holds_native_apps_then_sls_synth_and_csv(tmp_path: Path) -> None:
    """Whatever the order of the keys; with cluster.nodes, SYNTH's num_nodes adds no node."""
    every_source(tmp_path)
    s = parse_scenario_text(SCENARIO, "s.yaml", tmp_path)
    assert [(a.id, a.source) for a in s.workload or ()] == [
        ("native", ""), ("sls", "jobs.json"), ("gen_000000", "synth.json"),
        ("gen_000001", "synth.json"), ("etl", "apps.csv"), ("adhoc", "apps.csv"),
        ("quoted, id", "apps.csv")]
    assert [n.name for n in s.nodes] == ["n1"]


def test_an_id_taken_by_another_source_is_an_error_at_the_later_one(tmp_path: Path) -> None:
    every_source(tmp_path, CSV.replace("adhoc,", "gen_000001,"))
    with pytest.raises(ConfigError) as info:
        parse_scenario_text(SCENARIO, "s.yaml", tmp_path)
    assert [str(e) for e in all_errors(info.value)] == [
        "apps.csv:6: duplicate app id 'gen_000001' (first at synth.json:2)"]


def test_errors_of_every_file_are_reported_together(tmp_path: Path) -> None:
    every_source(tmp_path, CSV.replace("adhoc,5000", "adhoc,soon"))
    (tmp_path / "jobs.json").write_text('{"job.tasks": []}')
    with pytest.raises(ConfigError) as info:
        parse_scenario_text(SCENARIO, "s.yaml", tmp_path)
    assert [str(e) for e in all_errors(info.value)] == [
        "jobs.json:1: job #1: job.tasks: a job needs a non-empty 'job.tasks' list (SLS: \"No "
        "task for the job!\"); got a list",
        "apps.csv:6: at-ms: must be a non-negative integer, got 'soon'"]


def test_fairshare_run_reports_a_bad_csv_with_exit_2(tmp_path: Path) -> None:
    path = every_source(tmp_path, CSV.replace("etl,,,,,,10", "etl,1,,,,,10"))
    done = CliRunner().invoke(cli, ["run", str(path)])
    assert done.exit_code == 2
    assert (f"{tmp_path / 'apps.csv'}:4: app 'etl': at-ms is '1' here but '0' on its first row "
            "(line 3)") in done.output
    assert "Traceback" not in done.output


def test_the_csv_example_runs() -> None:
    done = CliRunner().invoke(cli, ["run", str(ROOT / "examples/csv-workload/scenario.yaml"),
                                    "--quiet"])
    assert done.exit_code == 0, done.output


def test_a_cell_of_thousands_of_digits_is_a_located_error_not_a_crash() -> None:
    # Python refuses int() of more than 4,300 digits; the cell must still get the range message
    huge = "9" * 5000
    [message] = errors_of(CSV.replace(",4,,,30000", f",{huge},,,30000"))
    assert message.startswith("apps.csv:6: count: must be an integer from 1 to 2147483647, "
                              "got '999")


def test_the_cli_lists_each_files_errors_together_in_line_order(tmp_path: Path) -> None:
    """Errors of two files: jobs.json's (read first) at line 4, apps.csv's at lines 3 and 6.
    Sorting by line alone would interleave the files (apps.csv:3, jobs.json:4, apps.csv:6)."""
    path = every_source(tmp_path, CSV.replace("etl,0,", "etl,x,").replace("adhoc,5000",
                                                                        "adhoc,soon"))
    (tmp_path / "jobs.json").write_text('{"job.id": "sls",\n\n\n "job.tasks": []}')
    done = CliRunner().invoke(cli, ["run", str(path)])
    assert done.exit_code == 2
    located = [line.split(": ")[0].rsplit("/", 1)[-1] for line in done.output.splitlines()
               if line.startswith(str(tmp_path))]
    assert located == ["jobs.json:4", "apps.csv:3", "apps.csv:6"]

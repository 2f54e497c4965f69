"""``summary.json`` through its one model (sim/record/summary_model.py, summary_read.py): what
is read back writes the same bytes, and a summary that is damaged, older or newer is refused
with the field that is wrong (docs/outputs.md "summary.json")."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.config.errors import ConfigError
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.record.outputs import SUMMARY, json_text
from fairshare.sim.record.summary_model import SCHEMA, summary_json
from fairshare.sim.record.summary_read import SummaryError, load_summary, parse_summary
from fairshare.sim.run.scripted import run_scenario
from tests.sim.test_outputs import simulate
from tests.summary_docs import summary_doc

EXAMPLES = Path(__file__).parents[2] / "examples"
runner = CliRunner()


def written(doc: Any) -> str:
    """As the writer puts a summary on disk (sim/record/outputs.py: indent 1, newline)."""
    return json_text(doc, indent=1) + "\n"


@pytest.mark.parametrize("example", ["timed-changes", "csv-workload"])
def test_an_example_summary_reads_back_and_writes_the_same_bytes(tmp_path: Path,
                                                                 example: str) -> None:
    result = run_scenario(load_scenario(EXAMPLES / example / "scenario.yaml"), tmp_path)
    text = (tmp_path / SUMMARY).read_text(encoding="utf-8")
    read = load_summary(tmp_path)
    assert read == result.summary  # the run's own model and the file's are the same values
    assert written(summary_json(read)) == text
    doc = json.loads(text)
    assert next(iter(doc)) == "schema" and doc["schema"] == SCHEMA == 1


def test_a_preempting_run_reads_back_the_same_and_pickles(tmp_path: Path) -> None:
    result = simulate(tmp_path)
    text = (tmp_path / "out" / SUMMARY).read_text(encoding="utf-8")
    read = load_summary(tmp_path / "out")
    assert written(summary_json(read)) == text
    # the model pickles (a sweep's variants come back from worker processes)
    assert pickle.loads(pickle.dumps(result.summary)) == read


def test_a_made_up_complete_summary_reads() -> None:
    """tests/summary_docs.py's document, every number 0: a whole summary of schema 1."""
    doc = summary_doc(("root", "root.a"), {"a1": "root.a"})
    assert summary_json(parse_summary(doc)) == doc


def refusal(doc: dict[str, Any]) -> SummaryError:
    with pytest.raises(SummaryError) as caught:
        parse_summary(doc)
    return caught.value


def test_a_removed_field_is_refused_by_its_path() -> None:
    doc = summary_doc(("root", "root.a"))
    del doc["queues"]["root.a"]["during-contention"]["demand"]
    e = refusal(doc)
    assert (e.field, str(e)) == ("queues.root.a.during-contention.demand",
                                 "queues.root.a.during-contention.demand: missing")


def test_a_field_of_the_wrong_type_is_refused_by_its_path() -> None:
    cases: list[tuple[tuple[str, ...], Any, str]] = [
        (("queues", "root", "usage", "vcores"), "x", "expected a number, got 'x'"),
        (("counts", "events"), 1.5, "expected a whole number, got 1.5"),
        (("counts", "apps"), True, "expected a whole number, got True"),  # JSON's true
        (("cluster", "preemption", "enabled"), 1, "expected true or false, got 1"),
        (("span", "samples"), None, "expected a whole number, got null"),
        (("queues", "root", "waiting", "causes"), {}, "expected a list, got {}"),
    ]
    for path, value, said in cases:
        doc = summary_doc()
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = value
        e = refusal(doc)
        assert str(e) == f"{'.'.join(path)}: {said}"


def test_an_unknown_field_is_refused() -> None:
    doc = summary_doc()
    doc["counts"]["apps-lost"] = 0
    assert str(refusal(doc)) == "counts.apps-lost: not a field of a summary"


def test_an_older_summary_without_a_schema_is_refused() -> None:
    doc = summary_doc()
    del doc["schema"]
    e = refusal(doc)
    assert e.field == "schema"
    assert str(e).startswith("schema: missing: written before summaries had a version")


def test_a_newer_or_unknown_schema_is_refused() -> None:
    for version, said in ((2, "2 is newer than"), (0, "0 is older than")):
        doc = summary_doc()
        doc["schema"] = version
        assert str(refusal(doc)) == f"schema: {said} the schema this fairshare reads (1)"
    doc = summary_doc()
    doc["schema"] = "1"
    assert str(refusal(doc)) == "schema: expected a whole number, got '1'"


def test_load_summary_names_the_file(tmp_path: Path) -> None:
    doc = summary_doc()
    del doc["span"]["end-ms"]
    (tmp_path / SUMMARY).write_text(json.dumps(doc))
    with pytest.raises(ConfigError) as caught:
        load_summary(tmp_path)
    assert str(caught.value) == (f"{tmp_path / SUMMARY}: not a fairshare summary "
                                 f"(docs/outputs.md): span.end-ms: missing")


@pytest.mark.parametrize("command", ["compare", "report", "explain"])
def test_the_commands_refuse_an_older_summary_with_exit_2(tmp_path: Path, command: str) -> None:
    simulate(tmp_path)
    out = tmp_path / "out"
    doc = json.loads((out / SUMMARY).read_text())
    del doc["schema"]
    (out / SUMMARY).write_text(json.dumps(doc))
    args = {"compare": [str(out), str(out)], "report": [str(out), "-q"],
            "explain": [str(out), "--queue", "root.a"]}[command]
    result = runner.invoke(app, [command, *args])
    assert result.exit_code == 2, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output
    text = " ".join(result.output.split())
    assert f"{out / SUMMARY}: not a fairshare summary (docs/outputs.md): schema: missing" in text


def test_what_a_run_records_does_not_import_the_loop() -> None:
    """sim/record/ sits below sim/run/ (issue 31, item 7): the summary reads the app model's
    progress through a protocol, not the loop's class."""
    import ast

    record = Path(__file__).parents[2] / "src/fairshare/sim/record"
    imported = [(path.name, node.module) for path in sorted(record.glob("*.py"))
                for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                if isinstance(node, ast.ImportFrom) and node.module
                and node.module.startswith("fairshare.sim.run")]
    assert imported == []

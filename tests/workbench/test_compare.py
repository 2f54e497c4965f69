"""``fairshare compare``: every summary number paired, biggest changes first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.sim.record.summary_read import parse_summary
from fairshare.workbench.compare import compare
from tests.summary_docs import numbers, summary_doc

runner = CliRunner()


def summary(*, util: float, preempted: int, waits: dict[str, int | None],
            queues: tuple[str, ...] = ("root", "root.a")) -> dict[str, Any]:
    """Every number 0 (tests/summary_docs.py) but these."""
    doc = summary_doc(queues, dict.fromkeys(waits, "root.a"))
    doc["cluster"]["utilization"]["memory-mb"] = util
    doc["counts"]["containers-preempted"] = preempted
    for q in queues:
        doc["queues"][q]["am-wait-ms"].update({"p95": 1000, "apps": 2})
    for name, wait in waits.items():
        doc["apps"][name]["wait-ms"] = wait
    return doc


A = summary(util=0.5, preempted=0, waits={"x": 1000, "y": 4000})
B = summary(util=0.6, preempted=3, waits={"x": 1500, "y": 2000, "z": 10},
            queues=("root", "root.a", "root.b"))


def test_changes_are_ordered_by_relative_size_changes_from_zero_first() -> None:
    """containers-preempted 0 → 3 (from 0: first); then y's wait −50 % and x's +50 % (equal
    relative size: the bigger change, y's −2000 ms against x's +500 ms, first); util +20 %."""
    result = compare(parse_summary(A), parse_summary(B))
    assert [(c.kind, c.name, c.metric, c.a, c.b) for c in result.changes] == [
        ("counts", "", "containers-preempted", 0.0, 3.0),
        ("app", "y", "wait-ms", 4000.0, 2000.0),
        ("app", "x", "wait-ms", 1000.0, 1500.0),
        ("cluster", "", "utilization.memory-mb", 0.5, 0.6)]
    assert result.changes[1].relative == -0.5 and result.changes[2].relative == 0.5
    # unchanged: every other number of the cluster, the counts, root, root.a, x and y
    both = [A["cluster"], A["counts"], A["queues"]["root"], A["queues"]["root.a"],
            A["apps"]["x"], A["apps"]["y"]]
    assert result.unchanged == sum(numbers(entry) for entry in both) - 4
    assert result.only_in == ((), ("queue root.b", "app z"))


def test_a_number_that_became_null_is_a_change_without_a_size() -> None:
    b = summary(util=0.5, preempted=0, waits={"x": None, "y": 4000})
    [change] = compare(parse_summary(A), parse_summary(b)).changes
    assert (change.name, change.a, change.b, change.delta, change.relative) == (
        "x", 1000.0, None, None, None)


def write(tmp_path: Path, name: str, doc: dict[str, Any]) -> Path:
    out = tmp_path / name
    out.mkdir()
    (out / "summary.json").write_text(json.dumps(doc))
    return out


def test_the_command_prints_a_table_and_json(tmp_path: Path) -> None:
    a, b = write(tmp_path, "a", A), write(tmp_path, "b", B)
    table = runner.invoke(app, ["compare", str(a), str(b)])
    assert table.exit_code == 0, table.output
    lines = table.output.splitlines()
    first = next(i for i, line in enumerate(lines) if "containers-preempted" in line)
    assert lines[first].split() == ["counts", "containers-preempted", "0", "3", "+3", "new"]
    assert lines[first + 1].split() == ["app", "y", "wait-ms", "4.0", "s", "2.0", "s", "−2.0",
                                        "s", "-50%"]
    assert "only in B: queue root.b, app z" in table.output
    doc = json.loads(runner.invoke(app, ["compare", str(a), str(b), "--json"]).output)
    assert doc["changes"][0] == {"kind": "counts", "name": "", "metric": "containers-preempted",
                                 "a": 0.0, "b": 3.0, "change": 3.0, "relative": None}
    assert doc["only-in-b"] == ["queue root.b", "app z"]


def test_a_directory_without_a_summary_is_exit_2(tmp_path: Path) -> None:
    a = write(tmp_path, "a", A)
    (tmp_path / "scripted").mkdir()
    result = runner.invoke(app, ["compare", str(a), str(tmp_path / "scripted")])
    assert result.exit_code == 2
    assert result.output.strip() == (f"{tmp_path / 'scripted'}: no summary.json here: only a "
                                     "simulation (a scenario with a workload) writes one")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad/summary.json").write_text('{"queues": {}\n,,')
    result = runner.invoke(app, ["compare", str(a), str(tmp_path / "bad")])
    assert result.exit_code == 2
    assert result.output.startswith(f"{tmp_path / 'bad/summary.json'}:2: not JSON: ")


def test_a_summary_with_the_wrong_shape_is_exit_2(tmp_path: Path) -> None:
    a = write(tmp_path, "a", A)
    for name, damage, said in [
        ("apps", {"apps": 5}, "apps: expected an object, got 5"),
        ("queue", {"queues": {"root": [1]}}, "queues.root: expected an object, got [1]"),
        ("counts", {"counts": "x"}, "counts: expected an object, got 'x'"),
        ("scenario", {"scenario": None}, "scenario: expected an object, got null"),
        ("overrides", {"scenario": {**B["scenario"], "overrides": [3]}},
         "scenario.overrides[0]: expected a string, got 3"),
        ("schema", {"schema": 2}, "schema: 2 is newer than the schema this fairshare reads (1)"),
    ]:
        b = write(tmp_path, name, {**B, **damage})
        result = runner.invoke(app, ["compare", str(a), str(b)])
        assert result.exit_code == 2, result.output
        assert " ".join(result.output.split()) == (
            f"{b / 'summary.json'}: not a fairshare summary (docs/outputs.md): {said}")


def two_tenants(ratio_a: float, ratio_b: float, wait: int) -> dict[str, Any]:
    doc = summary_doc(("root", "root.a", "root.a.x", "root.b"),
                      {"a1": "root.a.x", "b1": "root.b"})
    for q, ratio, fair_mb in (("root", 1.0, 8192), ("root.a", ratio_a, 4096),
                              ("root.a.x", ratio_a, 2048), ("root.b", ratio_b, 4096)):
        doc["queues"][q]["usage-to-fair-share"]["memory-mb"] = ratio
        doc["queues"][q]["fair-share"]["memory-mb"] = fair_mb
    doc["apps"]["a1"]["wait-ms"], doc["apps"]["b1"]["wait-ms"] = wait, wait * 2
    return doc


def test_ratios_print_as_percentages_never_with_resource_units(tmp_path: Path) -> None:
    """usage-to-fair-share.memory-mb is a ratio: 0.8 → 1.2 reads 80% → 120%, +40 pt, +50%."""
    a = write(tmp_path, "a", two_tenants(0.8, 1.0, 1000))
    b = write(tmp_path, "b", two_tenants(1.2, 1.0, 1000))
    result = runner.invoke(app, ["compare", str(a), str(b), "--queue", "root.a"])
    assert result.exit_code == 0, result.output
    row = next(line for line in result.output.splitlines()
               if "root.a " in line and "usage-to-fair-share.memory-mb" in line)
    assert row.split()[-5:] == ["80%", "120%", "+40", "pt", "+50%"]
    assert " MB" not in row and "vc" not in row


def test_queue_and_app_filters_keep_only_their_changes(tmp_path: Path) -> None:
    a = write(tmp_path, "a", two_tenants(0.8, 0.5, 1000))
    b = write(tmp_path, "b", two_tenants(1.2, 0.9, 3000))
    full = compare(parse_summary(json.loads((a / "summary.json").read_text())),
                   parse_summary(json.loads((b / "summary.json").read_text())))
    assert {c.name for c in full.changes} == {"root.a", "root.a.x", "root.b", "a1", "b1"}
    doc = json.loads(runner.invoke(app, ["compare", str(a), str(b), "--json",
                                         "--queue", "a", "--app", "b1"]).output)
    # root.a and the queue below it (root. may be left off), and b1: not root.b, a1, counts
    assert sorted({(c["kind"], c["name"]) for c in doc["changes"]}) == [
        ("app", "b1"), ("queue", "root.a"), ("queue", "root.a.x")]
    # unchanged, of root.a and root.a.x: every number but usage-to-fair-share.memory-mb; of
    # b1: every number but wait-ms
    tenants = two_tenants(0.8, 0.5, 1000)
    assert doc["unchanged"] == (2 * (numbers(tenants["queues"]["root.a"]) - 1)
                                + numbers(tenants["apps"]["b1"]) - 1)


def test_an_unknown_queue_or_app_is_exit_2_with_the_names_there_are(tmp_path: Path) -> None:
    a = write(tmp_path, "a", two_tenants(0.8, 0.5, 1000))
    for option, name, listed in (("--queue", "root.c", "root, root.a, root.a.x, root.b"),
                                 ("--app", "c1", "a1, b1")):
        result = runner.invoke(app, ["compare", str(a), str(a), option, name])
        assert result.exit_code == 2
        text = " ".join(result.output.split())
        assert f"{option}: {name}: no" in text and listed in text

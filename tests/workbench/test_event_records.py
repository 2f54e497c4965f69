"""``record_problem``: how the tools that read ``events.jsonl`` tell a damaged line from an
event, derived from the event classes themselves (so the check cannot drift from the writer)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fairshare.cli.main import app
from fairshare.core.model.event_records import EVENT_CLASSES, RECORD_FIELDS, record_problem
from tests.workbench.test_explain import RESERVING, SEED, runner, simulate


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """Every event of the seed simulation (preemption, AM containers) and of the reserving
    scenario (reservations), as written."""
    base = tmp_path_factory.mktemp("records")
    (base / "r.yaml").write_text(RESERVING)
    lines: list[dict[str, Any]] = []
    for out in (simulate(base / "seed", SEED), simulate(base / "r", base / "r.yaml")):
        lines += [json.loads(x) for x in (out / "events.jsonl").read_text().splitlines()]
    return lines


def test_every_written_event_passes(records: list[dict[str, Any]]) -> None:
    kinds = {r["type"] for r in records}
    assert {"preemption-warned", "container-reserved", "no-preemption", "starvation",
            "container-allocated", "app-finished"} <= kinds
    assert [r for r in records if record_problem(r) is not None] == []


def test_a_missing_key_is_named_unless_added_later(records: list[dict[str, Any]]) -> None:
    seen: set[str] = set()
    for record in records:
        if record["type"] in seen:
            continue
        seen.add(record["type"])
        for key in RECORD_FIELDS[record["type"]]:
            damaged = {k: v for k, v in record.items() if k != key}
            problem = record_problem(damaged)
            if key in EVENT_CLASSES[record["type"]].added:
                assert problem is None
            else:
                assert problem == f"{record['type']} without {key!r}"


@pytest.mark.parametrize(("change", "problem"), [
    ({"t": "65000"}, "'t' missing or not a whole number"),
    ({"seq": True}, "'seq' missing or not a whole number"),
    ({"node-victims": 1.5}, "preemption-warned 'node-victims' is float, not int"),
    ({"am": 0}, "preemption-warned 'am' is int, not bool"),
    ({"node": None}, "preemption-warned 'node' is NoneType, not str"),
    ({"request": {"memory-mb": "1024", "vcores": 1}},
     "preemption-warned 'request' is not resource amounts"),
    ({"victim-usage": [1, 2]}, "preemption-warned 'victim-usage' is not resource amounts"),
])
def test_a_wrong_kind_of_value_is_named(records: list[dict[str, Any]], change: dict[str, Any],
                                        problem: str) -> None:
    warned = next(r for r in records if r["type"] == "preemption-warned")
    assert record_problem({**warned, **change}) == problem


def test_an_event_of_a_newer_version_needs_only_its_frame() -> None:
    assert record_problem({"t": 1, "seq": 2, "type": "something-new", "x": []}) is None
    assert record_problem([1, 2]) == "not a JSON object"
    assert record_problem({"t": 1, "seq": 2}) == "'type' missing or not text"


def explain_refusal(out: Path) -> str:
    result = runner.invoke(app, ["explain", str(out), "--app", "adhoc"])
    assert result.exit_code == 2, result.output
    return result.output.strip()


def test_explain_refuses_a_damaged_run_with_its_file_and_line(tmp_path: Path) -> None:
    out = simulate(tmp_path / "seed", SEED)
    events, summary = out / "events.jsonl", out / "summary.json"
    written = events.read_text()
    lines = written.splitlines()
    number = next(i for i, x in enumerate(lines, 1) if '"preemption-warned"' in x)
    lines[number - 1] = lines[number - 1].replace('"kill-at-ms":', '"kill-at":')
    events.write_text("\n".join(lines) + "\n")
    assert explain_refusal(out) == (f"{events}:{number}: not a fairshare event: "
                                    f"preemption-warned without 'kill-at-ms'")
    events.write_text(written)
    doc = json.loads(summary.read_text())
    del doc["span"]["end-ms"]
    summary.write_text(json.dumps(doc))
    assert explain_refusal(out) == (f"{summary}: not a fairshare summary (docs/outputs.md): "
                                    f"span.end-ms: missing")


def test_what_a_chain_finds_lacking_is_the_events_error(tmp_path: Path) -> None:
    """The summary is checked whole as it is read (its model), so what a chain can still find
    lacking is in the events: a key its event type gained later (``added``) may be missing and
    pass the line's check, and the chain that needs it names ``events.jsonl``. A summary whose
    run has no end (``span.end-ms`` null, which the schema allows) cannot time an app's wait."""
    out = simulate(tmp_path / "seed", SEED)
    events, summary = out / "events.jsonl", out / "summary.json"
    written = events.read_text()
    lines = written.splitlines()
    number = next(i for i, x in enumerate(lines) if '"preemption-warned"' in x)
    warned = json.loads(lines[number])
    assert "node-am-victims" in EVENT_CLASSES["preemption-warned"].added
    del warned["node-am-victims"]
    lines[number] = json.dumps(warned)
    events.write_text("\n".join(lines) + "\n")
    result = runner.invoke(app, ["explain", str(out), "--container", warned["container"]])
    assert result.exit_code == 2, result.output
    assert " ".join(result.output.split()) == (
        f"{events}: not a fairshare event: no key 'node-am-victims'")
    events.write_text(written)
    doc = json.loads(summary.read_text())
    doc["span"]["end-ms"] = None
    summary.write_text(json.dumps(doc))
    assert " ".join(explain_refusal(out).split()) == (
        f"{summary}: not a fairshare summary (docs/outputs.md): span.end-ms is null, but the "
        f"run submitted apps")

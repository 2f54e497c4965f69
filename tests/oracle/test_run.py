"""How ``python -m oracle`` classifies one case from the files its two sides wrote."""

from __future__ import annotations

from pathlib import Path

from oracle.cases import Case, Prepared
from oracle.compare import compare_runs
from oracle.run import compare_case

EVENT = '{"t": 0, "type": "node-added", "seq": 1, "node": "n1", "step": -1}\n'


def _case(tmp_path: Path, fairshare: str, oracle: str) -> Path:
    for side, events in (("fairshare", fairshare), ("oracle", oracle),
                         ("oracle-again", oracle)):
        (tmp_path / side).mkdir()
        (tmp_path / side / "events.jsonl").write_text(events, encoding="utf-8")
        (tmp_path / side / "snapshots.json").write_text("[]", encoding="utf-8")
    return tmp_path


def test_identical_outputs_are_identical(tmp_path: Path) -> None:
    directory = _case(tmp_path, EVENT, EVENT)
    prepared = Prepared(Case("c", "test"), "ready")
    assert compare_case(prepared, directory, compare_runs, []).status == "identical"


def test_a_malformed_driver_output_is_a_driver_error_naming_file_and_line(
        tmp_path: Path) -> None:
    directory = _case(tmp_path, EVENT, EVENT + "{not json\n")
    prepared = Prepared(Case("c", "test"), "ready")
    outcome = compare_case(prepared, directory, compare_runs, [])
    assert outcome.status == "driver-error"
    assert "events.jsonl:2: not JSON" in outcome.reason

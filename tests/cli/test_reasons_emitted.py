"""Every reason the runs of the examples and of the scenarios under tests/ write is a member of
its kind (fairshare.core.model.reasons): read back from events.jsonl, each parses, and its
kind and details write the same text again. The scripted scenarios are also checked live: what
the engine emitted (kind and details) is what its text reads back as."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from fairshare.cli.main import app
from fairshare.core import Because, Event, event_record, record_reasons
from fairshare.core.model.event_records import REASON_FIELDS
from fairshare.core.model.reasons import parse_reason
from fairshare.resources.vector import ResourceTypes
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.run import scripted
from fairshare.sim.run.scripted import run_scenario

ROOT = Path(__file__).resolve().parents[2]
RUNS = sorted([*ROOT.glob("examples/*/scenario.yaml"), *ROOT.glob("examples/*/simulation.yaml"),
               *(ROOT / "tests").rglob("*.yaml")])
SCRIPTED = sorted((ROOT / "tests" / "scenarios").glob("*.yaml"))


def _check(record: dict[str, object], seen: Counter[str]) -> None:
    for key, value in record_reasons(record).items():
        for reason in value if isinstance(value, dict) else (value,):
            seen[f"{type(reason.kind if isinstance(reason, Because) else reason).__name__}"] += 1
            if isinstance(reason, Because):  # the kind and details write its text again
                assert Because(reason.kind, **reason.details) == record[key]


def test_every_reason_written_by_every_run_is_a_member_of_its_kind(tmp_path: Path) -> None:
    runner = CliRunner()
    seen: Counter[str] = Counter()
    for number, path in enumerate(RUNS):
        out = tmp_path / str(number)
        runner.invoke(app, ["run", str(path), "-o", str(out), "-q"])
        events = out / "events.jsonl"
        if not events.is_file():
            continue
        for line in events.read_text(encoding="utf-8").splitlines():
            _check(json.loads(line), seen)
    # the runs reach most kinds: a check that read nothing would pass vacuously
    assert {"Completion", "AllocationVia", "UnreserveReason", "StarvationKind", "BlockedCause",
            "NoPreemptionReason", "AttemptRestart", "Rejection"} <= set(seen), seen


def test_what_the_engine_emits_is_what_its_text_reads_back_as(monkeypatch) -> None:
    """Live events of the scripted scenarios: a reason with values is a Because, and its text
    reads back as the kind and details the engine gave it."""
    seen: Counter[str] = Counter()

    def checked(event: Event, types: ResourceTypes) -> dict[str, Any]:
        for key, (kind, how) in REASON_FIELDS[event.type].items():
            value = getattr(event, key.replace("-", "_"))
            if how == "because":
                assert isinstance(value, Because) and isinstance(value.kind, kind), (key, value)
                back = parse_reason(kind, str(value))
                # (a detail that is itself a reason, a move refused for a limit, reads back as
                # its text: equal, as a Because is its text)
                assert (back.kind, dict(back.details)) == (value.kind, dict(value.details)), (
                    key, value)
                seen[value.kind] += 1
            elif how == "member":
                assert isinstance(value, kind), (key, value)
        return event_record(event, types)

    monkeypatch.setattr(scripted, "event_record", checked)
    for path in SCRIPTED:
        run_scenario(load_scenario(path))
    assert seen, "no reason with values was emitted"


"""Writing a run's outputs (scenario-format.md "Outputs"): ``events.jsonl``, ``snapshots.json``.

``events.jsonl`` holds one compact JSON object per line, in event order, keys in a fixed order,
so the same scenario and seed give the same bytes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def _json_line(record: dict[str, Any]) -> str:
    return json.dumps(record, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def write_events(path: Path, records: Iterable[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as f:
        for record in records:
            f.write(_json_line(record))
            f.write("\n")


def write_snapshots(path: Path, snapshots: list[dict[str, Any]]) -> None:
    path.write_text(json.dumps(snapshots, indent=1, ensure_ascii=False, allow_nan=False) + "\n",
                    encoding="utf-8")


def write_outputs(outdir: Path, records: list[dict[str, Any]],
                  snapshots: list[dict[str, Any]]) -> list[Path]:
    outdir.mkdir(parents=True, exist_ok=True)
    events, snaps = outdir / "events.jsonl", outdir / "snapshots.json"
    write_events(events, records)
    write_snapshots(snaps, snapshots)
    return [events, snaps]

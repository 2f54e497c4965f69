"""Reading the oracle's output files (fairshare's formats, each event with its ``step``):
malformed content is an :class:`OracleOutputError` naming ``file:line``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

EVENTS = "events.jsonl"
SNAPSHOTS = "snapshots.json"


class OracleOutputError(ValueError):
    """An output file that cannot be read: the message names it (``file:line: what``)."""


# -- reading --------------------------------------------------------------------------------------

def read_events(path: Path) -> list[dict[str, Any]]:
    """``events.jsonl``: one JSON object per line, each with an integer ``step``."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise OracleOutputError(f"{path}: cannot read: {e}") from None
    events = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError as e:
            raise OracleOutputError(f"{path}:{number}: not JSON: {e.msg}") from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise OracleOutputError(f"{path}:{number}: not an event (an object with a 'type')")
        step = event.get("step")
        if not isinstance(step, int) or isinstance(step, bool) or step < -1:
            raise OracleOutputError(f"{path}:{number}: {event['type']} event without a valid "
                                    f"'step' (an integer ≥ -1), got {step!r}")
        events.append(event)
    return events


def read_snapshots(path: Path) -> list[dict[str, Any]]:
    """``snapshots.json``: a JSON list of snapshot objects."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise OracleOutputError(f"{path}: cannot read: {e}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise OracleOutputError(f"{path}:{e.lineno}: not JSON: {e.msg}") from None
    if not isinstance(doc, list) or not all(isinstance(s, dict) for s in doc):
        raise OracleOutputError(f"{path}:1: not a list of snapshot objects")
    return doc

"""What ``fairshare explain`` reads of a run and says about it: the statements it makes, the
events of the run that mention its subject, and how it writes times, resources and shares."""

from __future__ import annotations

import difflib
import json
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.core import AllocationVia, parse_member, phrase, record_problem
from fairshare.resources.display import duration, percent
from fairshare.sim.record.outputs import EVENTS, SUMMARY
from fairshare.sim.record.summary_model import MaybePair, Summary
from fairshare.workbench.compare import load_summary


@dataclass(frozen=True, slots=True)
class Statement:
    time_ms: int | None
    text: str
    seqs: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Explanation:
    subject: str  # "app adhoc", "container …", "queue root.tenant3"
    statements: tuple[Statement, ...]

    def as_json(self) -> dict[str, Any]:
        return {"subject": self.subject,
                "statements": [{"t": s.time_ms, "text": s.text, "seq": list(s.seqs)}
                               for s in self.statements]}


@dataclass
class Run:
    """What explain reads of a run: its summary and the events that concern the subject."""

    outdir: Path
    summary: Summary  # summary.json, checked as it was read (fairshare.sim.record.summary_read)
    events: list[dict[str, Any]] = field(default_factory=list)

    def end_ms(self) -> int:
        """When the run ended; a run that submitted apps has an end (the recorder's
        ``on_end``), so a summary without one is refused as damaged."""
        end = self.summary.span.end_ms
        if end is None:
            raise ConfigError("not a fairshare summary (docs/outputs.md): span.end-ms is null, "
                              "but the run submitted apps", str(self.outdir / SUMMARY))
        return end


def load_run(outdir: Path, mentions: str) -> Run:
    """The run's summary, and its events that mention ``mentions`` (an app, a container, a
    queue) or the utilization gate. Lines are filtered as text before they are parsed."""
    summary = load_summary(outdir)
    path = outdir / EVENTS
    if not path.is_file():
        raise ConfigError("no events.jsonl here (give a run's output directory, its -o)",
                          str(outdir))
    needle = json.dumps(mentions)  # as it appears in the file: quoted, escaped
    events = list(events_mentioning(path, (needle, '"starvation-gate"')))
    return Run(outdir, summary, events)


def events_mentioning(path: Path, needles: Sequence[str]) -> Iterator[dict[str, Any]]:
    """The events whose line holds one of ``needles`` (filtered as text, then parsed), each
    checked to be what fairshare writes: a damaged file is an error at its line."""
    try:
        with path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                if any(needle in line for needle in needles):
                    try:
                        record = json.loads(line)
                    except json.JSONDecodeError as e:
                        raise ConfigError(f"not JSON: {e.msg}", str(path), number) from None
                    problem = record_problem(record)
                    if problem is not None:
                        raise ConfigError(f"not a fairshare event: {problem}", str(path),
                                          number)
                    yield record
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text", str(path)) from None


def unknown_subject(kind: str, name: str, known: Sequence[str]) -> ConfigError:
    """No such app or queue: the closest name, and the names there are (the first
    :data:`LISTED`)."""
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"; did you mean {close[0]}?" if close else "."
    names = ", ".join(known[:LISTED]) + (f" and {len(known) - LISTED:,} more"
                                         if len(known) > LISTED else "")
    listed = f" The run's {kind}s: {names}." if known else f" The run has no {kind}s."
    return ConfigError(f"no {kind} {name} in this run{hint}{listed}", f"--{kind} {name}")


LISTED = 20


def in_causal_order(said: Sequence[Statement]) -> tuple[Statement, ...]:
    """In the order things happened: by time, then at one instant by the events' order (the
    first event each statement cites); a statement without a time stays after its
    predecessor, one without events after those with. A statement told already (the same
    words) is not told again."""
    keyed = []
    when, first = -1, -1
    for index, statement in enumerate(said):
        if statement.time_ms is not None:
            when = statement.time_ms
            first = min(statement.seqs) if statement.seqs else 2**63
        keyed.append(((when, first, index), statement))
    told: set[str] = set()
    ordered: list[Statement] = []
    for _, statement in sorted(keyed, key=lambda item: item[0]):
        if statement.text not in told:
            told.add(statement.text)
            ordered.append(statement)
    return tuple(ordered)


def first_event(events: list[dict[str, Any]], kind: str) -> dict[str, Any] | None:
    return next((e for e in events if e["type"] == kind), None)


def by_time(events: list[dict[str, Any]]) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    batch: list[dict[str, Any]] = []
    for e in events:
        if batch and e["t"] != batch[0]["t"]:
            yield batch[0]["t"], batch
            batch = []
        batch.append(e)
    if batch:
        yield batch[0]["t"], batch


def via_text(e: Mapping[str, Any]) -> str:
    """How a ``container-allocated`` was placed, in words (its ``via``'s phrase)."""
    return phrase(parse_member(AllocationVia, e["via"]))


def at(ms: int | None) -> str:
    return "never" if ms is None else duration(ms)


def res(r: Mapping[str, Any]) -> str:
    return ", ".join(f"{v:,} MB" if k == "memory-mb" else f"{v:,} {k}" for k, v in r.items())


def pair(r: MaybePair) -> str:
    mb, vc = r.memory_mb, r.vcores
    return "–" if mb is None or vc is None else f"{mb:,.0f} MB, {vc:,.1f} vcores"


def pct(x: float | None) -> str:
    return "?" if x is None else percent(x)

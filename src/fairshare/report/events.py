"""What the report needs from ``events.jsonl``: the preemptions and the cluster's capacity.

A day of a 5,000-node cluster is ~19 million events (docs/benchmarks.md), a few GB, of which
the report wants ~1 in 30: ``container-preempted`` (when, the victim's queue — "preempted
from" — and the ``beneficiary-queue`` — "preempted for") and ``node-added`` /
``node-removed`` / ``node-resized`` (the capacity over time). Parsing every line as JSON would
take minutes, so only the lines that hold ``"type":"container-preempted"`` or
``"type":"node-`` are parsed (:mod:`fairshare.report.scan`; every other line is still checked
to be one JSON object): the writer (``fairshare.sim.record.outputs.json_text``) prints compact JSON,
so a type appears exactly so. A parsed line whose type is not one of these (the text was in
a value) is skipped.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.config.files import check_input_file
from fairshare.report import held
from fairshare.report.scan import scan
from fairshare.sim.record.outputs import EVENTS

_NEEDLES = (b'"type":"container-preempted"', b'"type":"node-', *held.NEEDLES)


@dataclass(frozen=True, slots=True)
class Preemption:
    """A container killed by preemption (``container-preempted``)."""

    time_ms: int
    victim_queue: str  # preempted from
    beneficiary_queue: str | None  # preempted for (None: not named)
    memory_mb: int
    vcores: int
    am: bool


@dataclass(frozen=True, slots=True)
class CapacityChange:
    """The cluster's capacity from ``time_ms`` on, after a node event."""

    time_ms: int
    memory_mb: int
    vcores: int
    nodes: int


@dataclass(frozen=True, slots=True)
class RunEvents:
    preemptions: tuple[Preemption, ...]  # in time order
    capacity: tuple[CapacityChange, ...]  # in time order; several at one time: the last holds
    # per leaf, when its apps were held not runnable (report/held.py)
    held: Mapping[str, tuple[held.Span, ...]] = field(default_factory=dict)


def load_events(outdir: Path, end_ms: int | None = None) -> RunEvents:
    """The preemptions and capacity changes of ``outdir/events.jsonl``; a missing file, or one
    whose lines are not JSON objects, is a ConfigError (with the line)."""
    path = outdir / EVENTS
    display = str(path)
    check_input_file(path, display)
    reader = _Reader(display)
    try:
        for line, record in scan(path, display, _NEEDLES):
            if isinstance(record, dict) and record.get("type") in _TYPES:
                reader.take(line, record)
    except OSError as e:
        raise ConfigError(f"cannot read file: {e.strerror or e}", display) from None
    return RunEvents(tuple(reader.preemptions), tuple(reader.capacity),
                     reader.held.close(end_ms))


class _Reader:
    """Turns the wanted records into values, keeping each node's capacity (a ``node-removed``
    event does not repeat it)."""

    def __init__(self, display: str) -> None:
        self.display = display
        self.preemptions: list[Preemption] = []
        self.capacity: list[CapacityChange] = []
        self._nodes: dict[str, tuple[int, int]] = {}
        self._memory = self._vcores = 0
        self.held = held.HeldApps()

    def take(self, line: int, r: dict[str, Any]) -> None:
        try:
            if r["type"] in held.TYPES:
                self.held.take(r)
            elif r["type"] == "container-preempted":
                size = r["resource"]
                self.preemptions.append(Preemption(
                    _int(r["t"]), str(r["queue"]), _opt_str(r.get("beneficiary-queue")),
                    _int(size["memory-mb"]), _int(size["vcores"]), bool(r.get("am"))))
            else:
                self._node(r)
        except (KeyError, TypeError, ValueError) as e:
            what = f"no key {e.args[0]!r}" if isinstance(e, KeyError) else str(e)
            raise ConfigError(f"not a fairshare {r.get('type')} event: {what}", self.display,
                              line) from None

    def _node(self, r: dict[str, Any]) -> None:
        node = str(r["node"])
        old = self._nodes.pop(node, (0, 0))
        if r["type"] != "node-removed":
            size = r["capacity"]
            self._nodes[node] = (_int(size["memory-mb"]), _int(size["vcores"]))
        new = self._nodes.get(node, (0, 0))
        self._memory += new[0] - old[0]
        self._vcores += new[1] - old[1]
        self.capacity.append(CapacityChange(_int(r["t"]), self._memory, self._vcores,
                                            len(self._nodes)))


def _int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected a whole number, got {value!r:.40}")
    return value


def _opt_str(value: Any) -> str | None:
    return None if value is None else str(value)


_TYPES = frozenset({"container-preempted", "node-added", "node-removed", "node-resized",
                    *held.TYPES})

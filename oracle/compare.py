"""The comparator: fairshare's outputs against the driver's, decision by decision.

Both sides are read in fairshare's formats (``events.jsonl`` with each event's ``step``,
``snapshots.json``) and compared as the oracle's contract says:

* fairshare's events of types the driver never writes (:data:`DRIVER_EVENT_KEYS`) are dropped;
  of the rest only the keys the driver's event carries are compared, ``t`` included; ``seq``,
  ``cause`` and ``step`` never are (``step`` places the event, it is not a decision);
* events are compared step by step; within a step, type by type, in order — the interleaving of
  different types in one step is not a scheduler decision (a ``container-completed`` and the
  ``app-finished`` that caused it are written in whatever order each side emits them);
* a container is identified by its id, ``container_<app>_<attempt>_<sequence>``, so two events
  about one container agree on the app, the attempt and YARN's sequence number;
* snapshots: the same number and labels; per section (``cluster``, ``queues``, ``apps``,
  ``nodes``) the same keys, then field by field the fields the driver's entry has;
* at each snapshot, when both sides wrote ``rest.jsonl``, the REST answers of YARN's REST
  API for that snapshot, document by document (:mod:`oracle.rest`), after the snapshot.

The result names the *first* divergence — the step (index, line, kind), the event type or the
snapshot label/section/key/field, both sides — and counts what was compared.

**Allowed permutations** (:data:`PERMUTATIONS`) are named, off unless asked for, and each has a
written reason (docs/fidelity.md). ``victims-by-app``: within one step, the victims warned for
one starved app are compared as a multiset (YARN walks a node's containers in the hash order of
its container map, ``FSPreemptionThread.identifyContainersToPreemptOnNode``); the order of the
starved apps is still compared, and so is the kill order's (``container-preempted``) the same
way, since the kill timer kills in the warned list's order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from oracle import rest
from oracle.output_files import (
    DRIVER_EVENT_KEYS,
    DRIVER_SNAPSHOT_FIELDS,
    EVENTS,
    SNAPSHOTS,
    OracleOutputError,
    read_events,
    read_snapshots,
)

__all__ = ["DRIVER_EVENT_KEYS", "DRIVER_SNAPSHOT_FIELDS", "PERMUTATIONS", "Comparison",
           "Divergence", "OracleOutputError", "compare", "compare_runs", "read_events",
           "read_snapshots"]

IGNORED_KEYS = frozenset({"seq", "cause", "step"})

SECTIONS = ("cluster", "queues", "apps", "nodes")


# -- allowed permutations -----------------------------------------------------------------------

Canon = Callable[[list[dict[str, Any]]], list[dict[str, Any]]]


def _by_beneficiary(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Starved apps in the order they come; each one's victims sorted by container id."""
    groups: dict[Any, list[dict[str, Any]]] = {}
    for event in events:
        groups.setdefault(event.get("beneficiary-app"), []).append(event)
    return [e for group in groups.values()
            for e in sorted(group, key=lambda e: (str(e.get("container")), _canonical(e)))]


# name → (event types it applies to, how one step's events of such a type are put in order)
PERMUTATIONS: dict[str, tuple[frozenset[str], Canon]] = {
    "victims-by-app": (frozenset({"preemption-warned", "container-preempted"}), _by_beneficiary),
}

# Types whose order within one step is not a decision, always compared as multisets
# (docs/fidelity.md, "The differential oracle"): the containers an app gives up when it ends or
# loses its attempt come in the hash order of its live-container map
# (SchedulerApplicationAttempt.liveContainers), a node's lost containers in the hash order of
# its container map; the order starved apps are *processed* in is compared through the
# preemption-warned events, while fairshare reports starvation when an app enters the queue.
UNORDERED: dict[str, Callable[[dict[str, Any]], Any]] = {
    "container-completed": lambda e: str(e.get("container")),
    "starvation": lambda e: str(e.get("app")),
    # an ending app gives up its reservations in FSAppAttempt.reservedContainers' order, a
    # HashMap by NodeId; a node's heartbeat drops at most one
    "container-unreserved": lambda e: (str(e.get("app")), str(e.get("node"))),
}

# Free-text keys: YARN's messages are its own words, so they are shown, never compared; the
# event itself, its app and queue are.
TEXT_KEYS = frozenset({"reason", "message"})


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


# -- the result ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Divergence:
    step: int  # index in the scenario's steps; -1: before the first step (the initial nodes)
    line: int | None  # the step's line in the scenario
    kind: str | None  # the step's kind (submit, update, …)
    what: str  # "event", "snapshot" or "rest" (a REST document of the snapshot)
    type: str | None = None  # the event type
    label: str | None = None  # the snapshot's label
    snapshot: int | None = None  # the snapshot's index in snapshots.json
    section: str | None = None  # cluster, queues, apps, nodes; for "rest", the endpoint
    key: str | None = None  # the queue, app or node
    field: str | None = None  # for "rest", the path in the document
    fairshare: Any = None  # the event (or value) on each side; None: missing on that side
    hadoop: Any = None
    differing: tuple[str, ...] = ()  # the keys of the two events that differ
    summary: str = ""


@dataclass
class Comparison:
    identical: bool = True
    first: Divergence | None = None
    events_compared: dict[str, int] = field(default_factory=dict)  # per type, pairs compared
    snapshots_compared: int = 0
    permutations: tuple[str, ...] = ()
    rest_compared: int = 0  # REST documents compared identical
    rest: bool = False  # whether both sides had REST documents to compare

    def as_json(self) -> dict[str, Any]:
        return {"identical": self.identical,
                "first": None if self.first is None else asdict(self.first),
                "events-compared": dict(sorted(self.events_compared.items())),
                "snapshots-compared": self.snapshots_compared,
                "rest-compared": self.rest_compared if self.rest else None,
                "permutations": list(self.permutations)}

    def as_text(self) -> str:
        documents = f", {self.rest_compared} REST documents" if self.rest else ""
        counts = (f"{sum(self.events_compared.values())} events of "
                  f"{len(self.events_compared)} types and {self.snapshots_compared} snapshots"
                  f"{documents} compared")
        if self.first is None:
            return f"identical ({counts})"
        return "\n".join([f"differ: {self.first.summary}", *_side_by_side(self.first),
                          f"({counts} before it)"])


def _side_by_side(d: Divergence) -> list[str]:
    if d.what == "rest":
        return [f"  fairshare: {rest.show(d.fairshare)}", f"  hadoop:    {rest.show(d.hadoop)}"]
    if d.what == "snapshot" or not (isinstance(d.fairshare, dict)
                                    and isinstance(d.hadoop, dict)):
        return [f"  fairshare: {_show(d.fairshare)}", f"  hadoop:    {_show(d.hadoop)}"]
    keys = list(d.hadoop) + [k for k in d.fairshare if k not in d.hadoop]
    width = max(len(k) for k in keys)
    rows = [f"  {'':{width}}   {'fairshare':40} hadoop"]
    for key in keys:
        mark = "≠" if key in d.differing else " "
        left = _show(d.fairshare.get(key, "—")) if key in d.fairshare else "—"
        right = _show(d.hadoop[key]) if key in d.hadoop else "—"
        rows.append(f"{mark} {key:{width}}   {left:40} {right}")
    return rows


def _show(value: Any) -> str:
    if value is None:
        return "(none)"
    return json.dumps(value, ensure_ascii=False)


# -- comparing ------------------------------------------------------------------------------------

def compare_runs(fairshare_dir: Path, oracle_dir: Path, steps: Sequence[Mapping[str, Any]],
                 permutations: Collection[str] = ()) -> Comparison:
    """Compare the outputs in two directories (each with events.jsonl and snapshots.json, and
    rest.jsonl where that side wrote its REST answers: compared when both did)."""
    fs_rest, or_rest = fairshare_dir / rest.REST, oracle_dir / rest.REST
    documents = ((rest.read_rest(fs_rest), rest.read_rest(or_rest))
                 if fs_rest.exists() and or_rest.exists() else None)
    return compare(read_events(fairshare_dir / EVENTS), read_events(oracle_dir / EVENTS),
                   read_snapshots(fairshare_dir / SNAPSHOTS),
                   read_snapshots(oracle_dir / SNAPSHOTS), steps, permutations, documents)


def compare(fs_events: Sequence[Mapping[str, Any]], or_events: Sequence[Mapping[str, Any]],
            fs_snaps: Sequence[Mapping[str, Any]], or_snaps: Sequence[Mapping[str, Any]],
            steps: Sequence[Mapping[str, Any]], permutations: Collection[str] = (),
            documents: tuple[Sequence[rest.Document], Sequence[rest.Document]] | None = None
            ) -> Comparison:
    """``documents``: each side's REST documents (fairshare's, Hadoop's), compared at each
    snapshot after it; None: not compared."""
    unknown = sorted(set(permutations) - set(PERMUTATIONS))
    if unknown:
        raise ValueError(f"unknown permutation {unknown[0]!r}; known: {', '.join(PERMUTATIONS)}")
    result = Comparison(permutations=tuple(sorted(permutations)), rest=documents is not None)
    fs_by_step = _by_step(e for e in fs_events if e["type"] in DRIVER_EVENT_KEYS)
    or_by_step = _by_step(or_events)
    snapshot_steps = [i for i, s in enumerate(steps) if s.get("step") == "snapshot"]
    snapshot_at = dict(zip(snapshot_steps, range(len(snapshot_steps)), strict=True))
    last = max([len(steps) - 1, *fs_by_step, *or_by_step])
    for index in range(-1, last + 1):
        where = _where(steps, index)
        found = _compare_step(fs_by_step.get(index, []), or_by_step.get(index, []), where,
                              result, permutations)
        if found is None and index in snapshot_at:
            found = _compare_snapshot(fs_snaps, or_snaps, snapshot_at[index], where, result)
            if found is None and documents is not None:
                found = _compare_rest(documents, snapshot_at[index], or_snaps, where, result)
        if found is not None:
            result.identical, result.first = False, found
            return result
    extra = _extra_snapshots(fs_snaps, or_snaps, len(snapshot_steps), steps)
    if extra is not None:
        result.identical, result.first = False, extra
    return result


def _by_step(events: Iterable[Mapping[str, Any]]) -> dict[int, list[dict[str, Any]]]:
    out: dict[int, list[dict[str, Any]]] = {}
    for event in events:
        out.setdefault(int(event["step"]), []).append(dict(event))
    return out


@dataclass(frozen=True)
class _Where:
    step: int
    line: int | None
    kind: str | None

    def text(self) -> str:
        if self.step < 0:
            return "before the first step (the initial nodes)"
        line = "" if self.line is None else f", line {self.line}"
        return f"step {self.step} ({self.kind or '?'}{line})"


def _where(steps: Sequence[Mapping[str, Any]], index: int) -> _Where:
    if 0 <= index < len(steps):
        step = steps[index]
        line = step.get("line")
        return _Where(index, line if isinstance(line, int) else None, step.get("step"))
    return _Where(index, None, None)


def _compare_step(fs: list[dict[str, Any]], hadoop: list[dict[str, Any]], where: _Where,
                  result: Comparison, permutations: Collection[str]) -> Divergence | None:
    types = list(dict.fromkeys([e["type"] for e in hadoop] + [e["type"] for e in fs]))
    for kind in types:
        left = [e for e in fs if e["type"] == kind]
        right = [e for e in hadoop if e["type"] == kind]
        for name in permutations:
            applies, canon = PERMUTATIONS[name]
            if kind in applies:
                left, right = canon(left), canon(right)
        if kind in UNORDERED:
            left, right = sorted(left, key=UNORDERED[kind]), sorted(right, key=UNORDERED[kind])
        found = _compare_sequence(left, right, kind, where, result)
        if found is not None:
            return found
    return None


def _compare_sequence(left: list[dict[str, Any]], right: list[dict[str, Any]], kind: str,
                      where: _Where, result: Comparison) -> Divergence | None:
    for position in range(max(len(left), len(right))):
        hadoop = _shown(right[position]) if position < len(right) else None
        fs = None if position >= len(left) else _projected(left[position], hadoop)
        if fs is None or hadoop is None:
            return _missing(fs, hadoop, kind, position, len(left), len(right), where)
        differing = tuple(k for k in dict.fromkeys([*hadoop, *fs]) if k not in TEXT_KEYS
                          and not _same(fs.get(k, _ABSENT), hadoop.get(k, _ABSENT)))
        if differing:
            summary = (f"{where.text()}: {kind} #{position + 1} of the step differs in "
                       f"{', '.join(differing)}")
            return Divergence(where.step, where.line, where.kind, "event", type=kind,
                              fairshare=fs, hadoop=hadoop, differing=differing,
                              summary=summary)
        result.events_compared[kind] = result.events_compared.get(kind, 0) + 1
    return None


def _missing(fs: dict[str, Any] | None, hadoop: dict[str, Any] | None, kind: str,
             position: int, left: int, right: int, where: _Where) -> Divergence:
    side = "hadoop" if fs is None else "fairshare"
    summary = (f"{where.text()}: {kind} #{position + 1} of the step only in {side} "
               f"(fairshare {left}, hadoop {right} in this step)")
    return Divergence(where.step, where.line, where.kind, "event", type=kind, fairshare=fs,
                      hadoop=hadoop, summary=summary)


_ABSENT = object()


def _shown(event: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k not in IGNORED_KEYS}


def _projected(fs: Mapping[str, Any], hadoop: Mapping[str, Any] | None) -> dict[str, Any]:
    """fairshare's event with only the keys the driver's has, in the driver's order (without
    a driver's event: the keys the contract says the driver writes for its type)."""
    keys = ("t", "type", *DRIVER_EVENT_KEYS[fs["type"]]) if hadoop is None else hadoop
    return {k: fs[k] for k in keys if k not in IGNORED_KEYS and k in fs}


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON values: a boolean is not a number, an integer not a float."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


# -- snapshots ------------------------------------------------------------------------------------

def _compare_snapshot(fs_snaps: Sequence[Mapping[str, Any]],
                      or_snaps: Sequence[Mapping[str, Any]], index: int, where: _Where,
                      result: Comparison) -> Divergence | None:
    fs = fs_snaps[index] if index < len(fs_snaps) else None
    hadoop = or_snaps[index] if index < len(or_snaps) else None
    label = (hadoop or fs or {}).get("label")
    if fs is None or hadoop is None:
        side = "hadoop" if fs is None else "fairshare"
        return Divergence(where.step, where.line, where.kind, "snapshot", label=label,
                          snapshot=index, fairshare=fs is not None, hadoop=hadoop is not None,
                          summary=f"{where.text()}: snapshot #{index + 1} only in {side}")
    found = _compare_fields(fs, hadoop, ("label", "time-ms"), None, None)
    for section in SECTIONS:
        if found is not None:
            break
        if section not in hadoop:
            continue
        if section == "cluster":
            found = _compare_fields(fs.get(section, {}), hadoop[section], None, section, None)
        else:
            found = _compare_section(fs.get(section, {}), hadoop[section], section)
    if found is None:
        result.snapshots_compared += 1
        return None
    part, key, name, left, right = found
    path = "/".join(p for p in (part, key, name) if p is not None)
    summary = (f"{where.text()}: snapshot #{index + 1}"
               f"{'' if label is None else f' ({label})'}: {path} differs")
    return Divergence(where.step, where.line, where.kind, "snapshot", label=label,
                      snapshot=index, section=part, key=key, field=name,
                      fairshare=_plain(left), hadoop=_plain(right), summary=summary)


_Found = tuple[str | None, str | None, str | None, Any, Any]


def _compare_rest(documents: tuple[Sequence[rest.Document], Sequence[rest.Document]],
                  index: int, or_snaps: Sequence[Mapping[str, Any]], where: _Where,
                  result: Comparison) -> Divergence | None:
    found, compared = rest.compare_documents(*documents, index)
    result.rest_compared += compared
    if found is None:
        return None
    label = or_snaps[index].get("label") if index < len(or_snaps) else None
    summary = (f"{where.text()}: snapshot #{index + 1}"
               f"{'' if label is None else f' ({label})'}: REST /ws/v1/cluster/"
               f"{found.endpoint} differs at {found.path}")
    return Divergence(where.step, where.line, where.kind, "rest", label=label, snapshot=index,
                      section=found.endpoint, field=found.path, fairshare=found.fairshare,
                      hadoop=found.hadoop, summary=summary)


def _compare_section(fs: Any, hadoop: Any, section: str) -> _Found | None:
    if not isinstance(fs, dict) or not isinstance(hadoop, dict):
        return (section, None, None, fs, hadoop)
    if section == "apps":  # YARN forgets a rejected app; fairshare's snapshot keeps it
        fs = {key: app for key, app in fs.items()
              if not (isinstance(app, dict) and app.get("state") == "rejected")}
    fs_keys, or_keys = list(fs), list(hadoop)
    if sorted(fs_keys) != sorted(or_keys):
        only_fs = sorted(set(fs_keys) - set(or_keys))
        only_or = sorted(set(or_keys) - set(fs_keys))
        key = (only_fs or only_or)[0]
        return (section, key, None, fs.get(key, _ABSENT), hadoop.get(key, _ABSENT))
    for key in or_keys:
        found = _compare_fields(fs[key], hadoop[key], None, section, key)
        if found is not None:
            return found
    return None


def _compare_fields(fs: Any, hadoop: Any, names: Sequence[str] | None, section: str | None,
                    key: str | None) -> _Found | None:
    if not isinstance(fs, dict) or not isinstance(hadoop, dict):
        return None if _same(fs, hadoop) else (section, key, None, fs, hadoop)
    for name in hadoop if names is None else names:
        if names is not None and name not in hadoop and name not in fs:
            continue
        left, right = fs.get(name, _ABSENT), hadoop.get(name, _ABSENT)
        if not _same(left, right):
            return (section, key, name, left, right)
    return None


def _plain(value: Any) -> Any:
    return "(absent)" if value is _ABSENT else value


def _extra_snapshots(fs_snaps: Sequence[Mapping[str, Any]],
                     or_snaps: Sequence[Mapping[str, Any]], expected: int,
                     steps: Sequence[Mapping[str, Any]]) -> Divergence | None:
    """More snapshots on one side than the scenario has snapshot steps."""
    if len(fs_snaps) == len(or_snaps) == expected:
        return None
    where = _where(steps, len(steps) - 1)
    summary = (f"snapshot count: fairshare {len(fs_snaps)}, hadoop {len(or_snaps)}, "
               f"the scenario has {expected} snapshot steps")
    return Divergence(where.step, where.line, where.kind, "snapshot", fairshare=len(fs_snaps),
                      hadoop=len(or_snaps), summary=summary)

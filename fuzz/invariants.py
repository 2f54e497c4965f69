"""What a generated scenario's outputs must satisfy, checked from the outputs alone.

``events.jsonl`` is replayed (docs/outputs.md, and the record fields of
``fairshare.core.model.events``, read as JSON — nothing of the engine is imported):

* events come in order: ``seq`` increasing, ``t`` never going back;
* no node ever holds more than its capacity: ``node-added`` / ``node-resized`` /
  ``node-removed`` give capacities, ``container-allocated`` adds to a node, and
  ``container-completed`` / ``container-preempted`` take away; every allocation must fit at
  that moment, on a node that exists, and every container ends once, where it ran;
* ``timeline.csv``: at each sample, every queue's ``usage_mb`` / ``usage_vcores`` /
  ``containers`` equal the sum of the live containers of its subtree (a sample comes after
  everything of its millisecond);
* no container of a queue with ``allowPreemptionFrom=false`` (or under one) is ever warned or
  preempted;
* ``preemption-warned``: ``victim-usage`` is the victim app's usage as replayed,
  ``victim-usage-after`` that usage less everything warned and not yet gone, and it is not
  below ``victim-fair-share`` as the victim queue's policy compares (memory for ``fair`` and
  ``fifo``, the dominant share of the cluster for ``drf``; docs/semantics.md §5.5);
* without scripted steps, ``summary.json``'s container counts equal the events'.

:func:`compare_runs` is the determinism check: the same files, byte for byte.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fuzz.checks import Finding

Res = dict[str, int]
DETERMINISTIC_FILES = ("events.jsonl", "summary.json", "timeline.csv", "snapshots.json")


def _add(a: Res, b: Mapping[str, Any]) -> None:
    for k, v in b.items():
        a[k] = a.get(k, 0) + int(v)


def _sub(a: Res, b: Mapping[str, Any]) -> None:
    for k, v in b.items():
        a[k] = a.get(k, 0) - int(v)


def _fits(alloc: Res, capacity: Mapping[str, Any]) -> bool:
    return all(v <= int(capacity.get(k, 0)) for k, v in alloc.items())


def _in_subtree(queue: str, top: str) -> bool:
    return queue == top or queue.startswith(top + ".")


def below_share(after: Mapping[str, Any], share: Mapping[str, Any], policy: str,
                cluster: Mapping[str, Any]) -> bool:
    """Is ``after`` below ``share`` as the policy's calculator compares (singleType)?"""
    if policy != "drf":
        return int(after.get("memory-mb", 0)) < int(share.get("memory-mb", 0))
    keys = sorted(set(after) | set(share) | set(cluster))
    if all(int(after.get(k, 0)) == int(share.get(k, 0)) for k in keys):
        return False
    if all(int(cluster.get(k, 0)) == 0 for k in keys):
        return False  # no cluster: nothing can run, nothing to compare against

    def max_share(x: Mapping[str, Any]) -> float:
        shares = [int(x.get(k, 0)) / int(cluster[k]) for k in keys if int(cluster.get(k, 0))]
        return max(shares, default=0.0)

    return max_share(after) < max_share(share)


class Replay:
    def __init__(self, meta: Mapping[str, Any]) -> None:
        self.non_preemptable: list[str] = list(meta.get("non_preemptable", []))
        self.policies: dict[str, str] = dict(meta.get("policies", {}))
        self.default_policy = str(meta.get("default_policy", "fair"))
        self.capacity: dict[str, Res] = {}
        self.removed: set[str] = set()
        self.allocated: dict[str, Res] = {}
        self.live: dict[str, tuple[str, str, str, Res]] = {}  # container -> node, app, queue, r
        self.warned: dict[str, dict[str, Res]] = defaultdict(dict)  # app -> container -> r
        self.counts: dict[str, int] = defaultdict(int)
        self.problems: list[tuple[str, str]] = []  # (kind, message)
        self.last_t: int | None = None
        self.last_seq: int | None = None

    def fail(self, kind: str, message: str) -> None:
        if len(self.problems) < 50:
            self.problems.append((kind, message))

    def cluster(self) -> Res:
        total: Res = {}
        for node, cap in self.capacity.items():
            if node not in self.removed:
                _add(total, cap)
        return total

    def policy(self, queue: str) -> str:
        while queue:
            if queue in self.policies:
                return self.policies[queue]
            queue = queue.rsplit(".", 1)[0] if "." in queue else ""
        return self.default_policy

    def preemptable(self, queue: str) -> bool:
        return not any(_in_subtree(queue, q) for q in self.non_preemptable)

    def app_usage(self, app: str) -> Res:
        usage: Res = {}
        for _, owner, _, r in self.live.values():
            if owner == app:
                _add(usage, r)
        return usage

    def feed(self, e: dict[str, Any]) -> None:
        t, seq, kind = e.get("t"), e.get("seq"), e.get("type")
        if isinstance(t, int) and self.last_t is not None and t < self.last_t:
            self.fail("order", f"seq {seq}: t={t} after t={self.last_t}")
        if isinstance(seq, int) and self.last_seq is not None and seq <= self.last_seq:
            self.fail("order", f"seq {seq} after seq {self.last_seq}")
        self.last_t = t if isinstance(t, int) else self.last_t
        self.last_seq = seq if isinstance(seq, int) else self.last_seq
        self.counts[str(kind)] += 1
        if kind == "node-added":
            node = e["node"]
            left = self.allocated.get(node)
            if left and any(left.values()) and node not in self.removed:
                self.fail("capacity", f"seq {seq}: node {node} added twice while in use")
            self.capacity[node] = dict(e["capacity"])
            self.allocated.setdefault(node, {})
            self.removed.discard(node)
        elif kind == "node-resized":
            self.capacity[e["node"]] = dict(e["capacity"])
        elif kind == "node-removed":
            self.removed.add(e["node"])
        elif kind == "container-allocated":
            self._allocated(e)
        elif kind in ("container-completed", "container-preempted"):
            self._ended(e)
        elif kind == "preemption-warned":
            self._warned(e)
        elif kind == "app-moved":
            for cid, (node, app, _, r) in list(self.live.items()):
                if app == e["app"]:
                    self.live[cid] = (node, app, e["to-queue"], r)

    def _allocated(self, e: dict[str, Any]) -> None:
        node, cid, seq = e["node"], e["container"], e.get("seq")
        if node not in self.capacity or node in self.removed:
            self.fail("capacity", f"seq {seq}: {cid} allocated on unknown node {node}")
            return
        if cid in self.live:
            self.fail("capacity", f"seq {seq}: {cid} allocated twice")
        self.live[cid] = (node, e["app"], e["queue"], dict(e["resource"]))
        alloc = self.allocated.setdefault(node, {})
        _add(alloc, e["resource"])
        if not _fits(alloc, self.capacity[node]):
            self.fail("capacity", f"seq {seq}: allocating {cid} makes {node} hold {alloc}, "
                                  f"over its capacity {self.capacity[node]}")

    def _ended(self, e: dict[str, Any]) -> None:
        cid, seq = e["container"], e.get("seq")
        entry = self.live.pop(cid, None)
        if entry is None:
            self.fail("capacity", f"seq {seq}: {cid} ended ({e['type']}) but was not running")
            return
        node, app, queue, r = entry
        _sub(self.allocated[node], r)
        self.warned[app].pop(cid, None)
        if e["type"] == "container-preempted" and not self.preemptable(queue):
            self.fail("non-preemptable", f"seq {seq}: {cid} of {queue} preempted, but "
                                         f"{queue} does not allow preemption")

    def _warned(self, e: dict[str, Any]) -> None:
        seq, cid, app, queue = e.get("seq"), e["container"], e["app"], e["queue"]
        if not self.preemptable(queue):
            self.fail("non-preemptable", f"seq {seq}: {cid} of {queue} warned for preemption, "
                                         f"but {queue} does not allow preemption")
        if cid not in self.live:
            self.fail("warned", f"seq {seq}: warned container {cid} is not running")
            return
        usage = self.app_usage(app)
        claimed = {k: int(v) for k, v in e["victim-usage"].items()}
        if {k: v for k, v in usage.items() if v} != {k: v for k, v in claimed.items() if v}:
            self.fail("warned", f"seq {seq}: victim-usage of {app} says {claimed}, the events "
                                f"say {usage}")
        self.warned[app][cid] = dict(e["resource"])
        after = dict(usage)
        for r in self.warned[app].values():
            _sub(after, r)
        said_after = {k: int(v) for k, v in e["victim-usage-after"].items()}
        if {k: v for k, v in after.items() if v} != {k: v for k, v in said_after.items() if v}:
            self.fail("warned", f"seq {seq}: victim-usage-after of {app} says {said_after}, the "
                                f"events say {after}")
        policy = self.policy(queue)
        share = e["victim-fair-share"]
        if below_share(said_after, share, policy, self.cluster()):
            self.fail("below-fair-share", f"seq {seq}: preempting {cid} leaves {app} ({policy}) "
                                          f"at {said_after}, below its fair share {share}")

    def check_sample(self, time_ms: int, rows: list[list[str]], header: list[str]) -> None:
        col = {name: i for i, name in enumerate(header)}
        for row in rows:
            queue = row[col["queue"]]
            usage: Res = {}
            containers = 0
            for _, _, q, r in self.live.values():
                if _in_subtree(q, queue):
                    _add(usage, r)
                    containers += 1
            got = (int(row[col["usage_mb"]]), int(row[col["usage_vcores"]]),
                   int(row[col["containers"]]))
            want = (usage.get("memory-mb", 0), usage.get("vcores", 0), containers)
            if got != want:
                self.fail("timeline", f"timeline at {time_ms} ms, {queue}: usage "
                                      f"{got[0]} MB / {got[1]} vc / {got[2]} containers, the "
                                      f"events say {want[0]} MB / {want[1]} vc / {want[2]}")


def _samples(path: Path) -> tuple[list[str], list[tuple[int, list[list[str]]]]]:
    samples: list[tuple[int, list[list[str]]]] = []
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        for row in reader:
            t = int(row[0])
            if not samples or samples[-1][0] != t:
                samples.append((t, []))
            samples[-1][1].append(row)
    return header, samples


def check_outputs(outdir: Path, meta: Mapping[str, Any]) -> list[Finding]:
    """The invariants of one run's outputs (the run exited 0 and its files parse)."""
    replay = Replay(meta)
    try:
        header, samples = _samples(outdir / "timeline.csv")
    except (OSError, StopIteration, ValueError, IndexError):
        header, samples = [], []
    at = 0
    try:
        with (outdir / "events.jsonl").open("rb") as f:
            for line in f:
                event = json.loads(line)
                t = event.get("t")
                while at < len(samples) and isinstance(t, int) and samples[at][0] < t:
                    replay.check_sample(samples[at][0], samples[at][1], header)
                    at += 1
                replay.feed(event)
    except (OSError, ValueError, KeyError, TypeError) as e:
        replay.fail("events", f"events.jsonl cannot be replayed: {type(e).__name__}: {e}")
    for time_ms, rows in samples[at:]:
        replay.check_sample(time_ms, rows, header)
    if not meta.get("steps"):
        _check_counts(outdir, replay)
    return [Finding("invariant", message, f"invariant|{kind}")
            for kind, message in replay.problems]


def _check_counts(outdir: Path, replay: Replay) -> None:
    try:
        summary = json.loads((outdir / "summary.json").read_bytes())
        counts = summary["counts"]
    except (OSError, ValueError, KeyError, TypeError):
        return
    pairs = [("containers-allocated", "container-allocated"),
             ("containers-completed", "container-completed"),
             ("containers-preempted", "container-preempted")]
    for key, kind in pairs:
        if counts.get(key) != replay.counts.get(kind, 0):
            replay.fail("summary", f"summary.json counts.{key} = {counts.get(key)}, "
                                   f"events.jsonl has {replay.counts.get(kind, 0)} {kind}")


def first_difference(a: bytes, b: bytes) -> str:
    lines_a, lines_b = a.split(b"\n"), b.split(b"\n")
    for i, (x, y) in enumerate(zip(lines_a, lines_b, strict=False), start=1):
        if x != y:
            return f"line {i}"
    return f"line {min(len(lines_a), len(lines_b)) + 1} (one is longer)"


def compare_runs(first: Path, other: Path, label: str) -> list[Finding]:
    findings = []
    for name in DETERMINISTIC_FILES:
        a, b = first / name, other / name
        if not a.is_file() and not b.is_file():
            continue
        da = a.read_bytes() if a.is_file() else None
        db = b.read_bytes() if b.is_file() else None
        if da != db:
            where = ("only one run wrote it" if da is None or db is None
                     else first_difference(da, db))
            findings.append(Finding("nondeterminism", f"{name} differs {label}: first at {where}",
                                    f"nondeterminism|{label}|{name}"))
    return findings

"""Benchmark: the Preemption Tuning report of a day of the benchmark cluster (issue: report,
item 5): ``build_report`` must take at most 60 s and the page at most 20 MB.

Simulating that day takes ~25 minutes (bench/simulate.py), so this benchmark writes synthetic
output files of the same shape instead (seeded, generated here, not timed):

* ``summary.json``: 1,022 queues (root, root.default, 20 parents × 50 leaves, weights 1–3 and
  1–4) and 20,000 apps (a third in twenty busy leaves), every key of docs/outputs.md, the
  queues' averages computed from the timeline below;
* ``timeline.parquet``: one row per queue per sample, every 10 s for 24 h — 8,641 samples,
  8.8 million rows, in row groups of 131,072 rows as the simulator writes them. 10 s is finer
  than every timer that shapes preemption in the benchmark's configuration (15 s
  ``waitTimeBeforeKill``, 30 s min-share and 60 s fair-share timeouts), so each starvation
  episode and kill lands in samples of its own; the default 1 s would make 88 million rows
  (``--sample-ms`` to try another interval). A day curve peaking at 15 h puts demand at 136 %
  of the cluster (as the real day's workload), so by day queues are short of their shares
  and starve, by night idle;
* ``events.jsonl``: the real day's 19 million events, type by type as bench/simulate.py counted
  them (docs/benchmarks.md): 5,000 ``node-added``, 305,501 ``container-preempted`` each after
  its ``preemption-warned`` (victims over their fair share, beneficiaries starving, at the
  times they starve), and the other types as filler lines of realistic length, in time order.

Then ``build_report`` is timed in a process of its own (one build, as ``fairshare report``
makes it; its peak memory is the build's) and the page measured. ``--smoke``: 2 × 5 leaves,
30 apps, half an hour, 20,000 events.

    python bench/report.py            # full size (generating the files takes a few minutes)
    python bench/report.py --smoke    # tiny, for CI
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from fairshare.report import build_report
from fairshare.sim.record.summary_model import SCHEMA

GB, HOUR = 1024, 3_600_000
NODE_MB, NODE_VCORES = 16 * GB, 8
THRESHOLD = 0.5  # defaultFairSharePreemptionThreshold of bench/simulate.py
TARGET_SECONDS, TARGET_MB = 60.0, 20.0
# the real day's events by type (docs/benchmarks.md, bench/simulate.py, 24 h)
DAY_EVENTS = {"container-reserved": 5_786_254, "container-unreserved": 5_783_571,
              "starvation": 2_113_578, "no-preemption": 2_077_652,
              "container-allocated": 1_277_092, "container-completed": 939_469,
              "containers-requested": 363_973, "app-submitted": 20_000, "app-runnable": 20_000,
              "app-finished": 18_081}
DAY_PREEMPTED = 305_501


@dataclass(frozen=True)
class Size:
    parents: int
    leaves: int
    nodes: int
    apps: int
    hours: float
    events: float  # share of the real day's events


FULL = Size(parents=20, leaves=50, nodes=5000, apps=20_000, hours=24, events=1.0)
SMOKE = Size(parents=2, leaves=5, nodes=20, apps=30, hours=0.5, events=0.001)


@dataclass
class Day:
    """The synthetic run: sample times and every leaf's columns ([sample, leaf])."""

    times: np.ndarray
    end_ms: int
    leaves: list[str]
    leaf: dict[str, np.ndarray]
    steady: np.ndarray  # per leaf, MB


def leaf_names(size: Size) -> list[str]:
    return [f"root.p{p}.l{x}" for p in range(size.parents) for x in range(size.leaves)]


def queue_order(size: Size) -> list[str]:
    names = ["root", "root.default"]
    for p in range(size.parents):
        names += [f"root.p{p}", *(f"root.p{p}.l{x}" for x in range(size.leaves))]
    return names


def simulate_day(size: Size, sample_ms: int, rng: np.random.Generator) -> Day:
    """Shares, demand and usage of every leaf at every sample, roughly as the Fair Scheduler
    would have them: instantaneous shares split among the active leaves by weight, usage
    near the share by day (some over it, some under), starvation where usage is below half
    the share with asks pending."""
    end = int(size.hours * HOUR)
    times = np.arange(0, end + 1, sample_ms, dtype=np.int64)
    cluster = size.nodes * NODE_MB
    p_w = rng.choice([1, 2, 3], size.parents).astype(float)
    l_w = rng.choice([1, 1, 2, 4], (size.parents, size.leaves)).astype(float)
    steady = (cluster * (p_w / p_w.sum())[:, None] * l_w / l_w.sum(1, keepdims=True)).ravel()
    hours = times / HOUR % 24
    day = np.clip(0.5 + 0.5 * np.sin(2 * np.pi * (hours - 9) / 24), 0, 1)  # peak at 15 h
    n = size.parents * size.leaves
    busy = rng.random(n) < 20 / n  # about twenty busy leaves, as in bench/simulate.py
    base = rng.lognormal(0, 0.8, n) * np.where(busy, 12.0, 1.0)
    noise = rng.lognormal(0, 0.35, (len(times), n))
    demand = np.maximum(0, day[:, None] * 1.6 - 0.25 + 0.3 * (noise - 1)) * base
    demand *= 1.36 * cluster / demand.sum(1).max()  # the busiest sample: 136 % of the cluster
    active = demand > 0
    weights = (l_w.ravel() * p_w.repeat(size.leaves))[None, :] * active
    fair = cluster * weights / np.maximum(weights.sum(1, keepdims=True), 1e-9)
    usage = np.minimum(demand, fair * rng.uniform(0.3, 1.5, n))
    usage *= np.minimum(1.0, cluster / np.maximum(usage.sum(1, keepdims=True), 1))
    # what is left of the cluster goes to the leaves still asking, as the scheduler would
    # hand free containers out: busy by day (up to 97 %), idle by night
    target = np.minimum(demand.sum(1), 0.97 * cluster)
    room = demand - usage
    spare = np.maximum(target - usage.sum(1), 0) / np.maximum(room.sum(1), 1)
    usage += room * np.minimum(spare, 1)[:, None]
    pending = demand - usage
    starving = np.where((usage < THRESHOLD * fair) & (pending > 0),
                        np.minimum(pending, THRESHOLD * fair - usage), 0)
    leaf = {"fair_share": fair, "usage": usage, "demand": demand, "pending": pending,
            "starving": starving}
    return Day(times, end, leaf_names(size),
               {k: np.rint(v).astype(np.int64) for k, v in leaf.items()}, steady)


def vcores(mb: np.ndarray) -> np.ndarray:
    """Tasks of 1–4 GB with 1 vcore each: about one vcore per 2.5 GB."""
    return np.rint(mb / 2560).astype(np.int64)


def queue_columns(size: Size, day: Day, rows: slice) -> dict[str, np.ndarray]:
    """Every queue's columns for the samples ``rows``: [sample, queue] in tree order."""
    names = queue_order(size)
    t = len(range(*rows.indices(len(day.times))))
    out: dict[str, np.ndarray] = {}
    cluster = size.nodes * NODE_MB
    for measure in ("steady_fair_share", "fair_share", "usage", "demand", "pending",
                    "starving"):
        leaf = (np.broadcast_to(np.rint(day.steady).astype(np.int64), (t, len(day.leaves)))
                if measure == "steady_fair_share" else day.leaf[measure][rows])
        parents = leaf.reshape(t, size.parents, size.leaves).sum(2)
        root = np.full(t, cluster) if measure == "steady_fair_share" else leaf.sum(1)
        columns = [root, np.zeros(t, dtype=np.int64)]
        for p in range(size.parents):
            columns += [parents[:, p], *leaf[:, p * size.leaves:(p + 1) * size.leaves].T]
        mb = np.stack(columns, axis=1)
        out[f"{measure}_mb"], out[f"{measure}_vcores"] = mb, vcores(mb)
    assert out["usage_mb"].shape[1] == len(names)
    return out


TIMELINE_VALUES = [f"{m}_{u}" for m in ("steady_fair_share", "fair_share", "min_share",
                                        "usage", "demand", "pending", "starving")
                   for u in ("mb", "vcores")] + ["running_apps", "pending_apps", "containers"]


class Integrals:
    """The summary's time integrals of every queue, accumulated chunk by chunk as the timeline
    is written (docs/outputs.md: a sample stands for the time up to the next one)."""

    def __init__(self, queues: int) -> None:
        self.sums: dict[str, np.ndarray] = {}
        self.contention = np.zeros(queues)
        self.starved = np.zeros(queues, dtype=np.int64)
        self.short = np.zeros(queues, dtype=np.int64)

    def add(self, cols: dict[str, np.ndarray], durations: np.ndarray) -> None:
        d = durations[:, None]
        busy = (cols["pending_mb"] > 0) | (cols["pending_vcores"] > 0)
        for name in ("steady_fair_share", "fair_share", "usage", "demand"):
            for unit in ("mb", "vcores"):
                column = cols[f"{name}_{unit}"] * d
                for key, values in ((f"{name}_{unit}", column), (f"c:{name}_{unit}",
                                                                 column * busy)):
                    self.sums[key] = self.sums.get(key, 0) + values.sum(0)
        self.contention += (d * busy).sum(0)
        self.starved += (d * ((cols["starving_mb"] > 0) | (cols["starving_vcores"] > 0))).sum(0)
        below = ((cols["usage_mb"] < THRESHOLD * cols["fair_share_mb"])
                 | (cols["usage_vcores"] < THRESHOLD * cols["fair_share_vcores"]))
        self.short += (d * busy * below).sum(0)


def write_timeline_and_integrals(size: Size, day: Day, path: Path) -> tuple[int, Integrals]:
    names = queue_order(size)
    schema = pa.schema([("time_ms", pa.int64()), ("queue", pa.string()),
                        *((c, pa.int64()) for c in TIMELINE_VALUES)])
    per_group = max(1, 131_072 // len(names))
    durations = np.diff(np.append(day.times, day.end_ms))
    integrals = Integrals(len(names))
    with pq.ParquetWriter(path, schema) as writer:
        for start in range(0, len(day.times), per_group):
            rows = slice(start, start + per_group)
            cols = queue_columns(size, day, rows)
            integrals.add(cols, durations[rows])
            t = cols["usage_mb"].shape[0]
            zeros = np.zeros(t * len(names), dtype=np.int64)
            data: dict[str, Any] = {"time_ms": np.repeat(day.times[rows], len(names)),
                                    "queue": np.tile(np.asarray(names, dtype=object), t)}
            for c in TIMELINE_VALUES:
                data[c] = cols[c].ravel() if c in cols else zeros
            writer.write_table(pa.table(data, schema=schema))
    return len(day.times) * len(names), integrals


@dataclass
class Apps:
    leaf: np.ndarray  # index into Day.leaves
    submit: np.ndarray
    am_wait: np.ndarray
    first_task: np.ndarray
    turnaround: np.ndarray  # -1: not finished by the end
    preempted: np.ndarray
    lost: np.ndarray


def make_apps(size: Size, day: Day, rng: np.random.Generator) -> Apps:
    """Arrivals following the day curve, a third into the busy leaves; waits with a long tail
    (longer where the leaf was starving when the app arrived)."""
    n, leaves = size.apps, len(day.leaves)
    hour = rng.choice(np.arange(math.ceil(size.hours * 60)) / 60, n,
                      p=_day_weights(size.hours))
    submit = np.minimum((hour * HOUR + rng.uniform(0, 60_000, n)).astype(np.int64),
                        day.end_ms - 1)
    demand = day.leaf["demand"].sum(0)
    busy = np.argsort(-demand)[:20]
    leaf = np.where(rng.random(n) < 1 / 3, rng.choice(busy, n), rng.integers(0, leaves, n))
    at = np.searchsorted(day.times, submit, side="right") - 1
    starving = day.leaf["starving"][at, leaf] > 0
    am_wait = (rng.lognormal(7.0, 1.4, n) * np.where(starving, 30, 1)).astype(np.int64)
    first_task = am_wait + rng.lognormal(7.5, 1.2, n).astype(np.int64)
    turnaround = first_task + rng.integers(60_000, 3_600_000, n) * 2
    turnaround = np.where(submit + turnaround > day.end_ms, -1, turnaround)
    zeros = np.zeros(n, dtype=np.int64)
    return Apps(leaf, submit, am_wait, first_task, turnaround, zeros.copy(), zeros.copy())


def _day_weights(hours: float) -> np.ndarray:
    minutes = np.arange(math.ceil(hours * 60)) / 60 % 24
    w = 0.5 + 0.5 * np.sin(2 * np.pi * (minutes - 9) / 24) + 0.05
    return w / w.sum()


@dataclass
class Kills:
    time: np.ndarray
    victim_leaf: np.ndarray
    beneficiary_leaf: np.ndarray
    victim_app: np.ndarray
    beneficiary_app: np.ndarray
    memory: np.ndarray
    ran_ms: np.ndarray


def make_kills(size: Size, day: Day, apps: Apps, rng: np.random.Generator) -> Kills:
    """The day's preemptions: each for a leaf starving at that sample, each of a container of
    a leaf over its instantaneous fair share then, killed within the sample."""
    count = max(1, round(DAY_PREEMPTED * size.events))
    starving = np.flatnonzero(day.leaf["starving"].ravel() > 0)
    cells = np.sort(rng.choice(starving, count)) if len(starving) else np.zeros(count, int)
    at, beneficiary = np.divmod(cells, len(day.leaves))
    over = day.leaf["usage"] > day.leaf["fair_share"]
    victim = np.empty(count, dtype=np.int64)
    for t in np.unique(at):
        here = np.flatnonzero(at == t)
        candidates = np.flatnonzero(over[t])
        if not len(candidates):
            candidates = np.arange(len(day.leaves))
        victim[here] = rng.choice(candidates, len(here))
    sample = np.diff(day.times).min() if len(day.times) > 1 else 1000
    time = np.minimum(day.times[at] + rng.integers(0, sample, count), day.end_ms)
    by_leaf = [np.flatnonzero(apps.leaf == i) for i in range(len(day.leaves))]
    victim_app = np.array([_an_app(by_leaf[v], rng, len(apps.leaf)) for v in victim])
    beneficiary_app = np.array([_an_app(by_leaf[b], rng, len(apps.leaf)) for b in beneficiary])
    ran = rng.integers(10_000, 1_800_000, count)
    np.add.at(apps.preempted, victim_app, 1)
    np.add.at(apps.lost, victim_app, ran)
    return Kills(time, victim, beneficiary, victim_app, beneficiary_app,
                 rng.choice([1, 2, 3, 4], count) * GB, ran)


def _an_app(candidates: np.ndarray, rng: np.random.Generator, apps: int) -> int:
    return int(rng.choice(candidates)) if len(candidates) else int(rng.integers(0, apps))


def summary(size: Size, day: Day, integrals: Integrals, apps: Apps, kills: Kills) -> dict[
        str, Any]:
    """``summary.json`` with every key of docs/outputs.md: queues from the integrals, waits
    and counts from the apps and kills."""
    names = queue_order(size)
    span = day.end_ms - int(day.times[0])
    leaf_index = {name: i for i, name in enumerate(day.leaves)}

    def subtree(name: str) -> np.ndarray:
        """The leaves at or under ``name``."""
        return np.asarray([i for leaf, i in leaf_index.items()
                           if leaf == name or leaf.startswith(name + ".")], dtype=np.int64)

    counts = (np.bincount(kills.victim_leaf, minlength=len(day.leaves)),
              np.bincount(kills.beneficiary_leaf, minlength=len(day.leaves)))
    queues = {}
    for q, name in enumerate(names):
        leaves = subtree(name) if name != "root" else np.arange(len(day.leaves))
        queues[name] = _queue_entry(q, integrals, span, day.end_ms, apps,
                                    np.isin(apps.leaf, leaves), counts, leaves)
    capacity = {"memory-mb": size.nodes * NODE_MB, "vcores": size.nodes * NODE_VCORES}
    root = queues["root"]
    finished = int((apps.turnaround >= 0).sum())
    return {
        "schema": SCHEMA,
        "scenario": {"name": "benchmark day (synthetic)", "description": "bench/report.py",
                     "seed": 11, "overrides": []},
        "span": {"start-ms": int(day.times[0]), "end-ms": day.end_ms,
                 "snapshot-every-ms": int(day.times[1] - day.times[0]),
                 "samples": len(day.times)},
        "counts": {"apps": size.apps, "apps-submitted": size.apps, "apps-rejected": 0,
                   "apps-finished": finished, "apps-unfinished": size.apps - finished,
                   "containers-allocated": round(DAY_EVENTS["container-allocated"] * size.events),
                   "containers-recovered": 0,
                   "containers-completed": round(DAY_EVENTS["container-completed"] * size.events),
                   "containers-preempted": len(kills.time),
                   "events": round(sum(DAY_EVENTS.values()) * size.events),
                   "lost-work-ms": int(apps.lost.sum()),
                   "preempted-container-ms": int(kills.ran_ms.sum())},
        "cluster": {"capacity": capacity, "nodes": size.nodes,
                    "utilization": {k: round(root["usage"][k] / capacity[k], 4)
                                    for k in capacity},
                    "average-allocated": root["usage"],
                    "preemption": {"enabled": True, "utilization-threshold": 0.8}},
        "idle-tail": None,
        "queues": queues,
        "apps": {f"app_{i:06d}": _app_entry(i, day, apps) for i in range(size.apps)},
        "changes": [],
    }


def _queue_entry(q: int, integrals: Integrals, span: int, end: int, apps: Apps,
                 mine: np.ndarray, kills: tuple[np.ndarray, np.ndarray],
                 leaves: np.ndarray) -> dict[str, Any]:
    def res(prefix: str, name: str, over: float) -> dict[str, float | None]:
        if not over:
            return {"memory-mb": None, "vcores": None}
        return {"memory-mb": round(float(integrals.sums[f"{prefix}{name}_mb"][q]) / over, 3),
                "vcores": round(float(integrals.sums[f"{prefix}{name}_vcores"][q]) / over, 3)}

    whole = {n: res("", n, span) for n in ("usage", "steady_fair_share", "fair_share",
                                            "demand")}
    contention = float(integrals.contention[q])

    def ratio(share: str) -> dict[str, float | None]:
        return {k: (round(whole["usage"][k] / whole[share][k], 4)  # type: ignore[operator]
                    if whole[share][k] else None) for k in ("memory-mb", "vcores")}

    return {
        "usage": whole["usage"], "steady-fair-share": whole["steady_fair_share"],
        "fair-share": whole["fair_share"],
        "usage-to-steady-fair-share": ratio("steady_fair_share"),
        "usage-to-fair-share": ratio("fair_share"), "demand": whole["demand"],
        "time-starved-ms": int(integrals.starved[q]),
        "time-short-of-fair-share-threshold-ms": int(integrals.short[q]),
        "during-contention": {"ms": int(contention), **{
            key: res("c:", n, contention) for key, n in (
                ("usage", "usage"), ("steady-fair-share", "steady_fair_share"),
                ("fair-share", "fair_share"), ("demand", "demand"))}},
        **{wait: _waits(values[mine], apps, mine, end) for wait, values in (
            ("am-wait-ms", apps.am_wait), ("first-task-wait-ms", apps.first_task),
            ("turnaround-ms", apps.turnaround))},
        "containers-allocated": 0, "containers-recovered": 0, "containers-completed": 0,
        "containers-preempted-from": int(kills[0][leaves].sum()),
        "containers-preempted-for": int(kills[1][leaves].sum()),
        "waiting": {"app-ms": 0, "causes": []}, "settings": None,
    }


def _waits(values: np.ndarray, apps: Apps, mine: np.ndarray, end: int) -> dict[str, Any]:
    if not len(values):
        return {"p50": None, "p95": None, "max": None, "apps": 0, "not-reached": 0}
    reached = values >= 0
    so_far = np.where(reached, values, end - apps.submit[mine])
    ordered = np.sort(so_far)

    def rank(p: float) -> int:
        return int(ordered[max(0, math.ceil(p * len(ordered)) - 1)])
    return {"p50": rank(0.5), "p95": rank(0.95), "max": int(ordered[-1]),
            "apps": len(ordered), "not-reached": int((~reached).sum())}


def _app_entry(i: int, day: Day, apps: Apps) -> dict[str, Any]:
    done = apps.turnaround[i] >= 0
    submit, am = int(apps.submit[i]), int(apps.am_wait[i])
    turnaround = int(apps.turnaround[i]) if done else None
    return {"queue": day.leaves[apps.leaf[i]], "requested-queue": day.leaves[apps.leaf[i]],
            "user": f"user{i % 300}", "managed": True,
            "state": "finished" if done else "running", "rejected-reason": None,
            "submit-ms": submit, "start-ms": submit + am,
            "finish-ms": submit + turnaround if turnaround is not None else None,
            "wait-ms": am, "run-ms": turnaround - am if turnaround is not None else None,
            "am-wait-ms": am, "first-task-wait-ms": int(apps.first_task[i]),
            "turnaround-ms": turnaround, "unmet-demand-ms": int(apps.first_task[i]),
            "tasks-done": 40 if done else 20, "tasks-total": 40,
            "preempted-containers": int(apps.preempted[i]), "lost-work-ms": int(apps.lost[i])}


# The lines of events.jsonl, as str.format templates over one argument list:
# 0 t, 1 seq, 2 app, 3 queue, 4 node, 5 memory, 6 other app, 7 other queue, 8 container
_NODE = '{{"t":0,"type":"node-added","seq":{1},"node":"n{4:05d}","rack":"/rack{2:02d}",' \
    '"capacity":{{"memory-mb":16384,"vcores":8}}}}'
_FILLER = {
    "container-reserved": '{{"t":{0},"type":"container-reserved","seq":{1},"app":"app_{2:06d}",'
    '"queue":"{3}","node":"n{4:05d}","resource":{{"memory-mb":{5},"vcores":1}},"priority":20}}',
    "container-unreserved": '{{"t":{0},"type":"container-unreserved","seq":{1},'
    '"app":"app_{2:06d}","queue":"{3}","node":"n{4:05d}","reason":"no longer valid"}}',
    "starvation": '{{"t":{0},"type":"starvation","seq":{1},"app":"app_{2:06d}","queue":"{3}",'
    '"kind":"fair-share","amount":{{"memory-mb":{5},"vcores":1}},"since-ms":{0}}}',
    "no-preemption": '{{"t":{0},"type":"no-preemption","seq":{1},"app":"app_{2:06d}",'
    '"queue":"{3}","reason":"no single node can free enough for a requested container",'
    '"containers-wanted":2,"containers-found":0}}',
    "container-allocated": '{{"t":{0},"type":"container-allocated","seq":{1},'
    '"app":"app_{2:06d}","queue":"{3}","container":"container_app_{2:06d}_01_{8:06d}",'
    '"node":"n{4:05d}","resource":{{"memory-mb":{5},"vcores":1}},"am":false,'
    '"locality":"off-switch","via":"heartbeat"}}',
    "container-completed": '{{"t":{0},"type":"container-completed","seq":{1},'
    '"app":"app_{2:06d}","container":"container_app_{2:06d}_01_{8:06d}","node":"n{4:05d}",'
    '"status":"released"}}',
    "containers-requested": '{{"t":{0},"type":"containers-requested","seq":{1},'
    '"app":"app_{2:06d}","priority":20,"locality":"*","count":12,'
    '"resource":{{"memory-mb":{5},"vcores":1}},"asked":{{"memory-mb":{5},"vcores":1}}}}',
    "app-submitted": '{{"t":{0},"type":"app-submitted","seq":{1},"app":"app_{2:06d}",'
    '"queue":"{3}","user":"user1","requested-queue":"{3}","placed-by":"rule 1 (specified)",'
    '"am":{{"memory-mb":1024,"vcores":1}}}}',
    "app-runnable": '{{"t":{0},"type":"app-runnable","seq":{1},"app":"app_{2:06d}",'
    '"queue":"{3}","promoted":false}}',
    "app-finished": '{{"t":{0},"type":"app-finished","seq":{1},"app":"app_{2:06d}",'
    '"queue":"{3}","state":"finished"}}',
}
_WARNED = '{{"t":{0},"type":"preemption-warned","seq":{1},' \
    '"container":"container_app_{2:06d}_01_{8:06d}","app":"app_{2:06d}","queue":"{3}",' \
    '"node":"n{4:05d}","resource":{{"memory-mb":{5},"vcores":1}},"am":false,' \
    '"beneficiary-app":"app_{6:06d}","beneficiary-queue":"{7}","starvation-kind":"fair-share",' \
    '"kill-at-ms":{9}}}'
_PREEMPTED = '{{"t":{0},"type":"container-preempted","seq":{1},"cause":{9},' \
    '"container":"container_app_{2:06d}_01_{8:06d}","app":"app_{2:06d}","queue":"{3}",' \
    '"node":"n{4:05d}","resource":{{"memory-mb":{5},"vcores":1}},"am":false,' \
    '"beneficiary-app":"app_{6:06d}","beneficiary-queue":"{7}"}}'
WAIT_BEFORE_KILL = 15_000


def write_events(size: Size, day: Day, apps: Apps, kills: Kills, path: Path,
                 rng: np.random.Generator) -> int:
    """The nodes, then every other event in time order: filler of the day's types (at a rate
    that follows the day), each kill's warning 15 s before it, the kills."""
    templates = [*_FILLER.values(), _WARNED, _PREEMPTED]
    per_type = [max(1, round(n * size.events)) for n in DAY_EVENTS.values()]
    kinds = np.repeat(np.arange(len(_FILLER)), per_type)
    filler_at = np.sort(rng.choice(len(_day_weights(size.hours)), len(kinds),
                                   p=_day_weights(size.hours))) * 60_000
    filler_at = np.minimum(filler_at + rng.integers(0, 60_000, len(kinds)), day.end_ms)
    k = len(kills.time)
    times = np.concatenate([filler_at, np.maximum(kills.time - WAIT_BEFORE_KILL, 0),
                            kills.time])
    kind = np.concatenate([rng.permutation(kinds), np.full(k, len(_FILLER)),
                           np.full(k, len(_FILLER) + 1)])
    which = np.concatenate([np.zeros(len(kinds), dtype=np.int64), np.arange(k),
                            np.arange(k)])  # the kill a warning or preemption belongs to
    order = np.lexsort((kind, times))  # a warning before its kill at the same millisecond
    app = rng.integers(0, len(apps.leaf), len(times))
    node = rng.integers(0, size.nodes, len(times))
    memory = rng.choice([1024, 2048, 3072, 4096], len(times))
    leaves = day.leaves
    with path.open("w", encoding="utf-8") as f:
        f.write("".join(_NODE.format(0, n + 1, n // 100, 0, n) + "\n"
                        for n in range(size.nodes)))
        seq = size.nodes
        warned_seq = np.zeros(k, dtype=np.int64)
        for start in range(0, len(order), 1 << 20):
            lines = []
            for i in order[start:start + (1 << 20)].tolist():
                seq += 1
                code, j = int(kind[i]), int(which[i])
                if code < len(_FILLER):
                    a = int(app[i])
                    lines.append(templates[code].format(
                        int(times[i]), seq, a, leaves[apps.leaf[a]], int(node[i]),
                        int(memory[i]), 0, "", seq))
                    continue
                if code == len(_FILLER):
                    warned_seq[j] = seq
                cause = int(kills.time[j]) if code == len(_FILLER) else int(warned_seq[j])
                lines.append(templates[code].format(
                    int(times[i]), seq, int(kills.victim_app[j]),
                    leaves[kills.victim_leaf[j]], int(node[j]), int(kills.memory[j]),
                    int(kills.beneficiary_app[j]), leaves[kills.beneficiary_leaf[j]], j, cause))
            f.write("\n".join(lines) + "\n")
    return seq


def generate(size: Size, sample_ms: int, outdir: Path, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    day = simulate_day(size, sample_ms, rng)
    rows, integrals = write_timeline_and_integrals(size, day, outdir / "timeline.parquet")
    apps = make_apps(size, day, rng)
    kills = make_kills(size, day, apps, rng)
    (outdir / "summary.json").write_text(json.dumps(summary(size, day, integrals, apps, kills),
                                                    indent=1), encoding="utf-8")
    events = write_events(size, day, apps, kills, outdir / "events.jsonl", rng)
    (outdir / "snapshots.json").write_text("[]")
    return {"queues": len(queue_order(size)), "leaf_queues": len(day.leaves),
            "apps": size.apps, "nodes": size.nodes, "hours": size.hours,
            "sample_interval_ms": sample_ms, "samples": len(day.times), "timeline_rows": rows,
            "events": events, "containers_preempted": len(kills.time),
            "files_mb": {p.name: round(p.stat().st_size / 1e6, 1)
                         for p in sorted(outdir.iterdir())}}


def timed_build(outdir: Path) -> dict[str, Any]:
    """``build_report`` on ``outdir``, timed, with the time of each of its steps."""
    phases: dict[str, float] = {}
    last: list[Any] = [time.perf_counter(), ""]

    def progress(what: str, done: int, total: int) -> None:
        now = time.perf_counter()
        if last[1]:
            phases[last[1]] = round(phases.get(last[1], 0.0) + now - last[0], 2)
        last[:] = [now, "drawing queues" if what.startswith("drawing root.") else what]

    began = time.perf_counter()
    written = build_report(outdir, outdir / "report.html", progress)
    seconds = time.perf_counter() - began
    page_mb = written[0].stat().st_size / 1e6
    return {
        "report_seconds": round(seconds, 2), "report_phases_seconds": phases,
        "page_mb": round(page_mb, 2), "charts": len(written) - 1,
        "pngs_mb": round(sum(p.stat().st_size for p in written[1:]) / 1e6, 2),
        "target_seconds": TARGET_SECONDS, "target_mb": TARGET_MB,
        "seconds_vs_target": round(seconds / TARGET_SECONDS, 3),
        "mb_vs_target": round(page_mb / TARGET_MB, 3),
        "meets_targets": seconds <= TARGET_SECONDS and page_mb <= TARGET_MB,
        # the build's own process: what `fairshare report` would need
        "report_peak_memory_mb": _own_peak_mb()}


def _own_peak_mb() -> int:
    """This process's peak resident memory. ``ru_maxrss`` survives ``exec`` on Linux, so a
    child started by the generating process would report the generator's peak; the memory
    map's own high-water mark (``VmHWM``) starts afresh with the new program."""
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
    return round(int(line.split()[1]) / 1024)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true", help="tiny size, for CI")
    parser.add_argument("--sample-ms", type=int, default=10_000,
                        help="the timeline's sample interval (default %(default)s)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--keep", type=Path, default=None,
                        help="generate into this directory and keep it (default: a temporary "
                             "one)")
    parser.add_argument("--build-only", type=Path, default=None, metavar="OUTDIR",
                        help="time the report of outputs already generated (with --keep)")
    args = parser.parse_args()
    if args.build_only is not None:
        print(json.dumps(timed_build(args.build_only)))
        return
    size = SMOKE if args.smoke else FULL
    with tempfile.TemporaryDirectory() as tmp:
        outdir = args.keep or Path(tmp) / "out"
        outdir.mkdir(parents=True, exist_ok=True)
        began = time.perf_counter()
        shape = generate(size, args.sample_ms, outdir, args.seed)
        generated = time.perf_counter() - began
        # built in a process of its own: the generator's memory is not the report's
        child = subprocess.run([sys.executable, __file__, "--build-only", str(outdir)],
                               check=True, capture_output=True, text=True)
    print(json.dumps({"workload": shape, "generate_seconds": round(generated, 1),
                      **json.loads(child.stdout)}))


if __name__ == "__main__":
    main()

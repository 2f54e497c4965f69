"""Samples made up for the history's tests: a flat queue tree (root and leaves) built as
DumpQueue objects from given numbers, the RM's fixture dumps read by the import's reader,
and the benchmark's large cluster (matrices built directly, no DumpQueue)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from fairshare.sim.importer.dump import (
    DumpApp,
    DumpNode,
    DumpQueue,
)
from fairshare.web.sample import QUEUE_COLUMNS, Sample
from tests.web.dumps import sample_of

DUMPS = Path(__file__).resolve().parents[2] / "importer" / "dumps"
C = {name: i for i, name in enumerate(QUEUE_COLUMNS)}
Values = tuple[int, ...]  # one queue's numbers in QUEUE_COLUMNS order


def _pair(v: Values, column: str) -> tuple[int, int]:
    return v[C[column]], v[C[column[:-3] + "_vcores" if column.endswith("_mb") else column]]


def queue(name: str, v: Values, children: tuple[DumpQueue, ...] = ()) -> DumpQueue:
    """A queue whose :data:`QUEUE_COLUMNS` are ``v`` (apps given for leaves only)."""
    def pair(prefix: str) -> tuple[int, int]:
        return v[C[prefix + "_mb"]], v[C[prefix + "_vcores"]]

    return DumpQueue(
        name=name, leaf=not children, policy="fair", min_resources=pair("min_share"),
        max_resources=pair("max_share"), used=pair("used"), steady_fair=pair("steady_fair_share"),
        fair=pair("fair_share"), am_max=pair("am_max"), max_apps=None, preemptable=True,
        children=children, line=0, am_used=pair("am_used"), demand=pair("demand"),
        reserved=pair("reserved"), pending_containers=v[C["pending_containers"]],
        allocated_containers=v[C["allocated_containers"]],
        reserved_containers=v[C["reserved_containers"]],
        active_apps=v[C["running_apps"]] if not children else None,
        pending_apps=v[C["pending_apps"]] if not children else None)


def flat_sample(time_ms: int, leaves: Sequence[tuple[str, Values]], root: Values,
                cluster_id: int = 1, apps: Sequence[DumpApp] = (),
                nodes: Sequence[DumpNode] = ()) -> Sample:
    """root with the given leaves (root.<name>); root's app counts are its leaves' sums."""
    children = tuple(queue(f"root.{name}", v) for name, v in leaves)
    return Sample(time_ms=time_ms, rm="http://127.0.0.1:8088", cluster_id=cluster_id,
                  rm_version="3.4.1", root=queue("root", root, children),
                  cluster=(root[C["max_share_mb"]], root[C["max_share_vcores"]]),
                  nodes=tuple(nodes), apps=tuple(apps))


def expected_rows(leaves: Sequence[tuple[str, Values]], root: Values
                  ) -> list[tuple[str, Values]]:
    """The rows the history should store for :func:`flat_sample` (root's apps summed)."""
    running = sum(v[C["running_apps"]] for _, v in leaves)
    pending = sum(v[C["pending_apps"]] for _, v in leaves)
    r = list(root)
    r[C["running_apps"]], r[C["pending_apps"]] = running, pending
    return [("root", tuple(r)), *((f"root.{n}", v) for n, v in leaves)]


def dump_sample(folder: str, time_ms: int, cluster_id: int = 1700000000000) -> Sample:
    """A sample of one of tests/importer/dumps/, read as ``fairshare watch`` reads answers."""
    return sample_of(folder, time_ms, cluster_id=cluster_id)


def with_apps(sample: Sample, time_ms: int, apps: Sequence[DumpApp],
              nodes: Sequence[DumpNode] | None = None, cluster_id: int | None = None
              ) -> Sample:
    return replace(sample, time_ms=time_ms, apps=tuple(apps),
                   nodes=sample.nodes if nodes is None else tuple(nodes),
                   cluster_id=sample.cluster_id if cluster_id is None else cluster_id)


class BigCluster:
    """The benchmark's cluster: ``queues`` queues (root, parents of 50 leaves), 5,000 nodes of
    128 GiB / 32 vcores. Configured numbers (steady, min, max, AM max share) stay put; a
    third of the leaves are busy at a time, each busy leaf's used, demand and pending move by
    whole 4-GiB containers every few samples, and leaves turn busy or idle now and then
    (which moves every busy leaf's instantaneous share)."""

    def __init__(self, queues: int = 1000, seed: int = 1) -> None:
        self.rng = np.random.default_rng(seed)
        parents = max(1, (queues - 1) // 51)
        self.names = ["root"]
        self.leaf = [False]
        for p in range(parents):
            self.names.append(f"root.p{p}")
            self.leaf.append(False)
            for k in range(min(50, queues - len(self.names))):
                self.names.append(f"root.p{p}.q{k}")
                self.leaf.append(True)
        while len(self.names) < queues:
            self.names.append(f"root.p0.x{len(self.names)}")
            self.leaf.append(True)
        n = len(self.names)
        self.is_leaf = np.array(self.leaf)
        self.cluster = (5000 * 131072, 5000 * 32)
        leaves = int(self.is_leaf.sum())
        self.values = np.zeros((n, len(QUEUE_COLUMNS)), np.int64)
        v = self.values
        v[self.is_leaf, C["steady_fair_share_mb"]] = self.cluster[0] // leaves
        v[self.is_leaf, C["steady_fair_share_vcores"]] = self.cluster[1] // leaves
        v[:, C["max_share_mb"]], v[:, C["max_share_vcores"]] = self.cluster
        some = self.rng.random(n) < 0.1
        v[some, C["min_share_mb"]] = 4096 * self.rng.integers(1, 100, some.sum())
        v[some, C["min_share_vcores"]] = v[some, C["min_share_mb"]] // 4096
        self.busy = self.is_leaf & (self.rng.random(n) < 1 / 3)
        self.thresholds = np.full(n, 0.5)

    def step(self) -> npt.NDArray[np.int64]:
        """The next sample's values (5 s later)."""
        v, rng = self.values, self.rng
        flip = self.is_leaf & (rng.random(len(v)) < 0.002)
        self.busy ^= flip
        busy = self.busy
        moving = busy & (rng.random(len(v)) < 0.3)
        used = v[:, C["used_mb"]] // 4096 + rng.integers(-2, 3, len(v)) * moving
        used = np.where(busy, np.clip(used, 0, 400), 0)
        pending = np.where(busy, np.clip(v[:, C["pending_containers"]]
                                         + rng.integers(-3, 4, len(v)) * moving, 0, 200), 0)
        v[:, C["used_mb"]], v[:, C["used_vcores"]] = used * 4096, used
        v[:, C["allocated_containers"]] = used
        v[:, C["pending_containers"]] = pending
        v[:, C["demand_mb"]], v[:, C["demand_vcores"]] = (used + pending) * 4096, used + pending
        v[:, C["am_used_mb"]] = np.where(busy, 4096, 0)
        v[:, C["am_used_vcores"]] = np.where(busy, 1, 0)
        v[:, C["running_apps"]] = np.where(busy, 1 + used // 100, 0)
        active = max(int(busy.sum()), 1)
        v[:, C["fair_share_mb"]] = np.where(busy, self.cluster[0] // active, 0)
        v[:, C["fair_share_vcores"]] = np.where(busy, self.cluster[1] // active, 0)
        v[:, C["am_max_mb"]] = v[:, C["fair_share_mb"]] // 2
        v[:, C["am_max_vcores"]] = v[:, C["fair_share_vcores"]] // 2
        parents = ~self.is_leaf
        v[parents, 8:] = 0
        v[0, C["used_mb"]] = v[self.is_leaf, C["used_mb"]].sum()
        v[0, C["used_vcores"]] = v[self.is_leaf, C["used_vcores"]].sum()
        return v.copy()

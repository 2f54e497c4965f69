"""What explain says of the workload's timed changes (``changes`` in summary.json): a reload
that changed a queue's settings, and a node that was lost or left with containers on it.

A reload touches an app or a queue when it changed the settings of that queue or of one of
its ancestors (their weights and limits shape its share); a node change touches an app when its
containers ended there as ``lost``, and every queue (the cluster, so every fair share, changed).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from fairshare.resources.display import duration
from fairshare.sim.record.summary_model import ChangeRecord, Summary


def reloads_touching(summary: Summary, queue: str, start: int = 0,
                     end: int | None = None) -> Iterator[tuple[int, str]]:
    """(time, statement) for each reload between ``start`` and ``end`` that changed the
    settings of ``queue`` or an ancestor."""
    lineage = _lineage(queue)
    for change in summary.changes:
        t = change.t
        if change.kind != "reload" or t < start or (end is not None and t > end):
            continue
        touched = {q: what for q, what in change.queues.items() if q in lineage}
        if touched:
            what = "; ".join(f"{q} {', '.join(w)}" for q, w in touched.items())
            yield t, f"At {duration(t)} the configuration was reloaded: {what}."


def node_losses(summary: Summary, lost: Sequence[Mapping[str, Any]]
                ) -> Iterator[tuple[int, str, tuple[int, ...]]]:
    """(time, statement, seqs) for each node whose loss ended containers in ``lost``
    (``container-completed`` events with status ``lost``), grouped by time and node."""
    groups: dict[tuple[int, str], list[int]] = {}
    for e in lost:
        groups.setdefault((e["t"], e["node"]), []).append(e["seq"])
    for (t, node), seqs in groups.items():
        how = _how_it_left(summary.changes, t, node)
        yield t, f"Node {node} {how}, killing {len(seqs)} of its containers there.", tuple(seqs)


def node_changes(summary: Summary, lost: Sequence[Mapping[str, Any]]
                 ) -> Iterator[tuple[int, str]]:
    """Every node change of the run, as a queue's chain cites them, with how many of the
    queue's containers ended ``lost`` on that node (``lost``: its such events)."""
    for change in summary.changes:
        if change.kind not in ("add-node", "remove-node", "decommission-node"):
            continue
        mine = sum(1 for e in lost if e["node"] == change.node)
        ours = f"; {mine} of this queue's containers were lost there" if mine else ""
        yield change.t, (f"At {duration(change.t)}: {change.label} (the cluster, "
                         f"so the fair shares, changed{ours}).")


def _how_it_left(timed: Sequence[ChangeRecord], t: int, node: str) -> str:
    for change in timed:
        if (change.t, change.kind, change.node) == (t, "remove-node", node):
            return f"was lost at {duration(t)} (a timed change of the workload)"
    for change in timed:
        if change.t <= t and (change.kind, change.node) == ("decommission-node", node):
            return (f"left at {duration(t)}, its graceful decommission (from "
                    f"{duration(change.t)}) timed out")
    return f"was removed at {duration(t)}"


def _lineage(queue: str) -> set[str]:
    parts = queue.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}

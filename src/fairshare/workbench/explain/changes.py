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


def changes(summary: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The run's timed changes (a summary from before them has none)."""
    return list(summary.get("changes") or ())


def reloads_touching(summary: Mapping[str, Any], queue: str, start: int = 0,
                     end: int | None = None) -> Iterator[tuple[int, str]]:
    """(time, statement) for each reload between ``start`` and ``end`` that changed the
    settings of ``queue`` or an ancestor."""
    lineage = _lineage(queue)
    for change in changes(summary):
        t = change["t"]
        if change["kind"] != "reload" or t < start or (end is not None and t > end):
            continue
        touched = {q: what for q, what in change["queues"].items() if q in lineage}
        if touched:
            what = "; ".join(f"{q} {', '.join(w)}" for q, w in touched.items())
            yield t, f"At {duration(t)} the configuration was reloaded: {what}."


def node_losses(summary: Mapping[str, Any], lost: Sequence[Mapping[str, Any]]
                ) -> Iterator[tuple[int, str, tuple[int, ...]]]:
    """(time, statement, seqs) for each node whose loss ended containers in ``lost``
    (``container-completed`` events with status ``lost``), grouped by time and node."""
    groups: dict[tuple[int, str], list[int]] = {}
    for e in lost:
        groups.setdefault((e["t"], e["node"]), []).append(e["seq"])
    timed = changes(summary)
    for (t, node), seqs in groups.items():
        yield t, f"Node {node} {_how_it_left(timed, t, node)}, killing {len(seqs)} of its " \
                 f"containers there.", tuple(seqs)


def node_changes(summary: Mapping[str, Any], lost: Sequence[Mapping[str, Any]]
                 ) -> Iterator[tuple[int, str]]:
    """Every node change of the run, as a queue's chain cites them, with how many of the
    queue's containers ended ``lost`` on that node (``lost``: its such events)."""
    for change in changes(summary):
        if change["kind"] not in ("add-node", "remove-node", "decommission-node"):
            continue
        mine = sum(1 for e in lost if e["node"] == change.get("node"))
        ours = f"; {mine} of this queue's containers were lost there" if mine else ""
        yield change["t"], (f"At {duration(change['t'])}: {change['label']} (the cluster, "
                            f"so the fair shares, changed{ours}).")


def _how_it_left(timed: list[Mapping[str, Any]], t: int, node: str) -> str:
    for change in timed:
        if (change["t"], change["kind"], change.get("node")) == (t, "remove-node", node):
            return f"was lost at {duration(t)} (a timed change of the workload)"
    for change in timed:
        if change["t"] <= t and (change["kind"], change.get("node")) == (
                "decommission-node", node):
            return (f"left at {duration(t)}, its graceful decommission (from "
                    f"{duration(change['t'])}) timed out")
    return f"was removed at {duration(t)}"


def _lineage(queue: str) -> set[str]:
    parts = queue.split(".")
    return {".".join(parts[:i]) for i in range(1, len(parts) + 1)}

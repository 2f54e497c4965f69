"""The import fixtures (tests/importer/dumps/) read as ``fairshare watch`` reads an RM's
answers: one :class:`~fairshare.web.sample.Sample` per dump, for every test of the live
layers."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fairshare.sim.importer.dump import DumpNode, read_apps, read_nodes, read_scheduler
from fairshare.sim.importer.jsonfile import JsonFile
from fairshare.web.sample import Sample

DUMPS = Path(__file__).resolve().parents[1] / "importer" / "dumps"
NOW_MS = 1_700_000_400_000
CLUSTER_ID = 1_700_000_000_000


def dump_text(folder: str, name: str) -> str:
    return (DUMPS / folder / name).read_text(encoding="utf-8")


def sample_of(folder: str, time_ms: int = NOW_MS, *, cluster_id: int = CLUSTER_ID,
              texts: Mapping[str, str] | None = None, apps: bool = True,
              metrics: Mapping[str, int | float] | None = None) -> Sample:
    """The dump's three answers (or ``texts`` in their place) read as one Sample; ``apps``
    False leaves the apps out."""
    def answer(name: str) -> JsonFile:
        text = (texts or {}).get(name)
        return JsonFile(dump_text(folder, name) if text is None else text, f"{folder}/{name}")

    root, cluster = read_scheduler(answer("scheduler.json"))
    others: list[DumpNode] = []
    nodes, _skipped = read_nodes(answer("nodes.json"), others)
    return Sample(time_ms=time_ms, rm="http://127.0.0.1:8088", cluster_id=cluster_id,
                  rm_version="3.4.1", root=root, cluster=cluster, nodes=nodes,
                  apps=read_apps(answer("apps.json")) if apps else (),
                  other_nodes=tuple(others), metrics=metrics or {})


def json_queues(scheduler: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Every queue object of a ``/scheduler`` answer by name, walked with plain json — the
    independent reading the tests compare fairshare's reader with."""
    out: dict[str, dict[str, Any]] = {}
    stack = [scheduler["scheduler"]["schedulerInfo"]["rootQueue"]]
    while stack:
        q = stack.pop()
        out[q["queueName"]] = q
        stack.extend((q.get("childQueues") or {}).get("queue") or [])
    return out


def dump_queues(folder: str) -> dict[str, dict[str, Any]]:
    return json_queues(json.loads(dump_text(folder, "scheduler.json")))

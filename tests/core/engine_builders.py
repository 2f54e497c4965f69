"""Builders for engine tests: an engine from inline XML and yarn-site overrides, asks, events."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.yarnsite import load_site
from fairshare.core.engine import ContainerRequest, Engine
from fairshare.core.model.event_records import event_record
from fairshare.resources.vector import DEFAULT_TYPES, Resource
from tests.oracles.preemption import use_reference_preemption
from tests.oracles.update import use_reference_update
from tests.oracles.walk import use_reference_walk

GB = 1024

PREEMPTION_ON = {
    "yarn.scheduler.fair.preemption": "true",
    "yarn.scheduler.fair.preemption.cluster-utilization-threshold": "0",
}


def allocations_xml(body: str) -> str:
    return f"<?xml version='1.0'?><allocations>{body}</allocations>"


def make_engine(
    body: str | None = "",
    *,
    site: Mapping[str, object] | None = None,
    nodes: Sequence[tuple[str, int, int]] = (("n1", 8 * GB, 8),),
    rack: str = "/default-rack",
    groups: Mapping[str, Sequence[str]] | None = None,
    reference_walk: bool = False,
    reference_update: bool = False,
    reference_preemption: bool = False,
) -> Engine:
    """An engine with ``nodes`` registered. ``body`` is the inside of ``<allocations>``.
    ``reference_*``: the step of ``tests/oracles/`` in place of the engine's own."""
    conf = load_site(None, dict(site or {}))
    text = allocations_xml(body or "")
    alloc = parse_allocations_text(text, "test.xml", conf.resource_types)
    engine = Engine(conf, alloc, groups=groups)
    if reference_walk:
        use_reference_walk(engine)
    if reference_update:
        use_reference_update(engine)
    if reference_preemption:
        use_reference_preemption(engine)
    for name, memory, vcores in nodes:
        engine.add_node(name, r(memory, vcores), rack)
    return engine


def r(memory: int, vcores: int = 1) -> Resource:
    return DEFAULT_TYPES.of({"memory-mb": memory, "vcores": vcores})


def ask(
    count: int, memory: int = GB, vcores: int = 1, *, priority: int = 1,
    locality: str = "*", relax: bool = True,
) -> ContainerRequest:
    return ContainerRequest(count, r(memory, vcores), priority, locality, relax)


def records(engine: Engine, kind: str | None = None) -> list[dict[str, Any]]:
    out = [event_record(e, engine.types) for e in engine.events]
    return [rec for rec in out if kind is None or rec["type"] == kind]


def usage(engine: Engine, app_id: str) -> tuple[int, int]:
    u = engine.app(app_id).usage
    return u.memory, u.vcores


def random_node_change(rng: random.Random, nodes: list[str], do: Callable[..., None]) -> None:
    """Add, remove, resize or gracefully decommission a node at random (lockstep workloads):
    ``do(op, *args)``."""
    choice = rng.choice(["add", "remove", "resize", "decommission"]) if nodes else "add"
    if choice == "decommission":  # a replacement comes, as when an admin retires a node
        do("decommission_node", rng.choice(nodes), rng.choice([None, 0, 1000, 5000]))
    if choice in ("add", "decommission") or len(nodes) < 2:
        name = f"n{len(nodes) + rng.randint(10, 99)}"
        if name not in nodes:
            do("add_node", name, r(rng.choice([4, 8]) * GB, rng.choice([4, 8])),
               f"/rack{rng.randint(0, 1)}")
    elif choice == "remove":
        do("remove_node", rng.choice(nodes))
    else:
        do("resize_node", rng.choice(nodes), r(rng.choice([2, 6, 8]) * GB, 4))


def same(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    """Equal event-record streams, NaN equal to NaN (utilization with no capacity left)."""
    return a == b or repr(a) == repr(b)


def first_difference(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> str:
    """Where two event-record streams part (lockstep tests' failure message)."""
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if not same([x], [y]):
            return f"event {i}: {x} != {y}"
    return f"lengths {len(a)} vs {len(b)}"

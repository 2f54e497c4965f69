"""Random valid scenarios: a queue tree, nodes, a site, a workload that makes preemption happen.

:func:`generate` draws, from ``random.Random`` (so an index gives the same scenario
everywhere):

* a queue tree two or three levels deep with weights (0 sometimes), ``minResources``,
  ``maxResources``, ``allowPreemptionFrom`` false on some queues, fair-share and min-share
  preemption timeouts and thresholds (per queue and as defaults), ``fair``/``drf``/``fifo``
  policies as YARN allows them (no ``drf`` under a ``fair`` parent, ``fifo`` on leaves only);
  the allocation file inline or as ``fair-scheduler.xml``;
* odd but valid names one time in four (markup, ``/``, non-ASCII, spaces) for apps, users,
  nodes and the scenario;
* nodes (named, or a template), a ``site`` with preemption on most of the time and short kill
  waits;
* a workload: a first wave that asks for more than the cluster, later apps in other queues that
  starve and preempt, managed and unmanaged apps, task groups with count / size / duration;
  ``run.until-ms`` bounded; sometimes scripted steps first;
* every tenth scenario an edge: no nodes (with ``update`` steps), a zero-length run, a
  non-preemptable tree, an immediate kill, one-millisecond samples, a late clock, …

It also returns what the invariant checker needs to know and may not read from the engine: the
queues that are not preemptable and each queue's policy.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import yaml

NAMES = ["alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa",
         "lam", "mu"]
# Valid, but odd: markup, path separators, non-ASCII, spaces (app ids, users, nodes, labels).
ODD_NAMES = ["a/b", "[/x]", "[bold]x[/bold]", "名前", "🔥", "e\u0301", "x y", "a:b", "%s{0}",
             "../up", "[link=x]y", "tab\there", "\u202eltr", "a\\b", "100%", "a/b", "[/x]"]
EDGES = ["no-nodes", "zero-length", "all-non-preemptable", "kill-at-once", "tiny-samples",
         "late-clock", "too-big-asks", "zero-weights", "same-millisecond", "zero-duration"]


@dataclass
class Queue:
    name: str  # full name
    policy: str
    preemptable: bool
    children: list[Queue] = field(default_factory=list)
    settings: dict[str, str] = field(default_factory=dict)

    @property
    def leaf(self) -> bool:
        return not self.children


@dataclass
class Generated:
    files: dict[str, bytes]
    scenario: str  # the scenario file's name among files
    edge: str | None
    meta: dict[str, Any]


def _tree(rng: random.Random, default_policy: str, edge: str | None) -> Queue:
    root = Queue("root", default_policy, True)
    names = rng.sample(NAMES, rng.randint(2, 5))
    for name in names:
        root.children.append(_queue(rng, root, f"root.{name}", depth=1, edge=edge))
    if rng.random() < 0.5:  # root.default, often kept out of the split
        root.children.append(Queue("root.default", default_policy, True,
                                   settings={"weight": "0"} if rng.random() < 0.7 else {}))
    return root


def _queue(rng: random.Random, parent: Queue, name: str, depth: int, edge: str | None) -> Queue:
    parent_policy = parent.policy
    policy = parent_policy if parent_policy != "fifo" else "fair"
    settings: dict[str, str] = {}
    if rng.random() < 0.2 and parent_policy == "drf":
        policy = rng.choice(["fair", "drf"])
        settings["schedulingPolicy"] = policy
    weight = rng.choice(["1", "1", "1", "2", "3", "0.5", "1.5", "0" if rng.random() < 0.2
                         else "1"])
    if edge == "zero-weights":
        weight = "0"
    settings["weight"] = weight
    if rng.random() < 0.3:
        settings["minResources"] = (f"{rng.choice([1024, 2048, 4096, 8192])} mb, "
                                    f"{rng.randint(0, 4)} vcores")
    if rng.random() < 0.15:
        settings["maxResources"] = (f"{rng.choice([4096, 8192, 16384])} mb, "
                                    f"{rng.choice([4, 8, 16])} vcores")
    preemptable = parent.preemptable
    if rng.random() < 0.12 or edge == "all-non-preemptable":
        settings["allowPreemptionFrom"] = "false"
        preemptable = False
    if rng.random() < 0.3:
        settings["fairSharePreemptionTimeout"] = str(rng.randint(1, 8))
    if rng.random() < 0.3:
        settings["fairSharePreemptionThreshold"] = rng.choice(["0.5", "0.8", "1.0", "0.3"])
    if rng.random() < 0.2:
        settings["minSharePreemptionTimeout"] = str(rng.randint(1, 8))
    if rng.random() < 0.08:
        settings["maxRunningApps"] = str(rng.randint(1, 3))
    am_share = rng.choice(["0.5", "1.0", "-1"]) if rng.random() < 0.08 else None
    queue = Queue(name, policy, preemptable, settings=settings)
    if depth < 3 and rng.random() < (0.35 if depth == 1 else 0.2):
        for child in rng.sample(NAMES, rng.randint(2, 3)):
            queue.children.append(_queue(rng, queue, f"{name}.{child}", depth + 1, edge))
    else:
        if am_share is not None:  # a leaf setting only
            settings["maxAMShare"] = am_share
        if rng.random() < 0.1:
            settings["schedulingPolicy"] = "fifo"
            queue.policy = "fifo"
    return queue


def _xml(root: Queue, rng: random.Random, default_policy: str, edge: str | None) -> str:
    lines = ["<?xml version=\"1.0\"?>", "<allocations>"]
    if default_policy == "drf":
        lines.append("  <defaultQueueSchedulingPolicy>drf</defaultQueueSchedulingPolicy>")
    if rng.random() < 0.85:
        lines.append(f"  <defaultFairSharePreemptionTimeout>{rng.randint(1, 6)}"
                     "</defaultFairSharePreemptionTimeout>")
    if rng.random() < 0.7:
        lines.append("  <defaultFairSharePreemptionThreshold>"
                     f"{rng.choice(['0.5', '0.8', '1.0', '0.6'])}"
                     "</defaultFairSharePreemptionThreshold>")
    if rng.random() < 0.3:
        lines.append(f"  <defaultMinSharePreemptionTimeout>{rng.randint(1, 6)}"
                     "</defaultMinSharePreemptionTimeout>")
    if rng.random() < 0.1:
        lines.append("  <queueMaxAMShareDefault>0.8</queueMaxAMShareDefault>")

    def emit(queue: Queue, indent: str) -> None:
        short = queue.name.rsplit(".", 1)[1]
        kind = ' type="parent"' if queue.children else ""
        lines.append(f'{indent}<queue name="{short}"{kind}>')
        for key, value in queue.settings.items():
            lines.append(f"{indent}  <{key}>{value}</{key}>")
        for child in queue.children:
            emit(child, indent + "  ")
        lines.append(f"{indent}</queue>")

    for child in root.children:
        emit(child, "  ")
    lines.append("</allocations>")
    return "\n".join(lines) + "\n"


def _walk(queue: Queue) -> list[Queue]:
    out = [queue]
    for child in queue.children:
        out += _walk(child)
    return out


def _nodes(rng: random.Random, edge: str | None, odd: bool) -> list[dict[str, Any]]:
    if edge == "no-nodes":
        return []
    memory = rng.choice([4096, 8192, 8192, 16384])
    vcores = rng.choice([4, 8, 8, 16])
    if rng.random() < 0.5:
        return [{"count": rng.randint(1, 6), "prefix": "n", "memory-mb": memory,
                 "vcores": vcores}]
    nodes = []
    for i in range(rng.randint(1, 6)):
        node: dict[str, Any] = {"name": _odd(rng, f"node{i + 1}", odd), "memory-mb": rng.choice(
            [memory, memory // 2, memory * 2]), "vcores": rng.choice([vcores, vcores // 2 or 1])}
        if rng.random() < 0.3:
            node["rack"] = f"/rack{i % 2}"
        nodes.append(node)
    return nodes


def _capacity(nodes: list[dict[str, Any]]) -> int:
    return sum(n["memory-mb"] * n.get("count", 1) for n in nodes)


def _odd(rng: random.Random, name: str, odd: bool) -> str:
    return f"{rng.choice(ODD_NAMES)}{name}" if odd and rng.random() < 0.7 else name


def _apps(rng: random.Random, leaves: list[str], capacity: int, edge: str | None,
          odd: bool) -> list[dict[str, Any]]:
    apps: list[dict[str, Any]] = []
    greedy = rng.sample(leaves, min(len(leaves), rng.choice([1, 2, 2])))
    others = [q for q in leaves if q not in greedy] or leaves
    capacity = max(capacity, 8192)
    for i, queue in enumerate(greedy):  # the first wave: more than the cluster
        size = rng.choice([1024, 2048])
        count = max(2, int(capacity * rng.uniform(0.8, 1.6)) // size)
        apps.append(_app(rng, _odd(rng, f"big{i}", odd), 0, queue, count, size,
                         rng.randint(60_000, 240_000), edge, odd))
    for i in range(rng.randint(1, 8)):
        at = 0 if edge == "same-millisecond" else rng.randint(1000, 40_000)
        queue = rng.choice(others)
        if rng.random() < 0.05:
            queue = "root.newcomer"  # not configured: placement creates it (or rejects)
        size = rng.choice([512, 1024, 1024, 2048, 4096])
        count = rng.randint(1, 12)
        apps.append(_app(rng, _odd(rng, f"app{i}", odd), at, queue, count, size,
                         rng.randint(5_000, 90_000), edge, odd))
    return apps


def _app(rng: random.Random, app_id: str, at: int, queue: str, count: int, size: int,
         duration: int, edge: str | None, odd: bool) -> dict[str, Any]:
    if edge == "too-big-asks":
        size *= 64
    if edge == "zero-duration":
        duration = 0
    app: dict[str, Any] = {"id": app_id, "at-ms": at, "queue": queue,
                           "user": _odd(rng, rng.choice(["alice", "bob", "carol"]), odd)}
    if rng.random() < 0.7:
        app["am"] = {"memory-mb": rng.choice([512, 1024]), "vcores": 1}
    tasks = [{"count": count, "memory-mb": size, "vcores": rng.randint(1, 2),
              "duration-ms": duration}]
    if rng.random() < 0.3:
        tasks.append({"count": rng.randint(1, 4), "memory-mb": rng.choice([1024, 2048]),
                      "vcores": 1, "duration-ms": max(0, duration // 2), "priority": 10})
    app["tasks"] = tasks
    return app


def generate(seed: int, index: int) -> Generated:
    rng = random.Random(f"fairshare-fuzz:{seed}:scenario:{index}")
    edge = EDGES[(index // 10) % len(EDGES)] if index % 10 == 7 else None
    default_policy = rng.choice(["fair", "drf", "drf"])
    root = _tree(rng, default_policy, edge)
    xml = _xml(root, rng, default_policy, edge)
    queues = _walk(root)
    leaves = [q.name for q in queues if q.leaf and q.name != "root.default"] or ["root.default"]
    odd = rng.random() < 0.25  # odd names for apps, users, nodes, the scenario itself
    nodes = _nodes(rng, edge, odd)
    site: dict[str, Any] = {}
    if rng.random() < 0.9 or edge in ("no-nodes", "kill-at-once"):
        site["yarn.scheduler.fair.preemption"] = True
    if rng.random() < 0.6:
        site["yarn.scheduler.fair.assignmultiple"] = True
    if rng.random() < 0.3:
        site["yarn.scheduler.fair.dynamic.max.assign"] = False
    if rng.random() < 0.6 or edge == "kill-at-once":
        site["yarn.scheduler.fair.waitTimeBeforeKill"] = (
            0 if edge == "kill-at-once" else rng.choice([1000, 3000, 5000, 15000]))
    if rng.random() < 0.3:
        site["yarn.scheduler.fair.preemption.cluster-utilization-threshold"] = rng.choice(
            [0.5, 0.7, 0.9])
    if rng.random() < 0.2:
        site["yarn.scheduler.fair.update-interval-ms"] = rng.choice([250, 500, 1000])
    doc: dict[str, Any] = {
        "version": 1,
        "name": _odd(rng, f"generated scenario {index}", odd) + (f" ({edge})" if edge else ""),
        "seed": rng.randint(0, 2**31),
    }
    if site:
        doc["site"] = site
    files: dict[str, bytes] = {}
    if rng.random() < 0.5:
        doc["allocations"] = xml
    else:
        doc["allocations-file"] = "fair-scheduler.xml"
        files["fair-scheduler.xml"] = xml.encode()
    if nodes:
        doc["cluster"] = {"nodes": nodes}
    if edge == "late-clock":
        doc["clock"] = {"start-ms": 10**12}
    steps = _steps(rng, leaves, edge)
    if steps:
        doc["steps"] = steps
    doc["workload"] = {"apps": _apps(rng, leaves, _capacity(nodes), edge, odd)}
    until = rng.choice([90_000, 120_000, 180_000])
    run: dict[str, Any] = {"until-ms": until,
                           "snapshot-every-ms": rng.choice([500, 1000, 2000, 5000])}
    if edge == "zero-length":
        run["until-ms"] = 0
    if edge == "tiny-samples":
        run.update({"until-ms": 3000, "snapshot-every-ms": 1})
    if rng.random() < 0.15:
        run["heartbeat-interval-ms"] = rng.choice([500, 1000, 2000])
    doc["run"] = run
    text = yaml.dump(doc, Dumper=_Dumper, sort_keys=False, default_flow_style=None, width=100)
    files["scenario.yaml"] = text.encode()
    meta = {
        "non_preemptable": sorted(q.name for q in queues if not q.preemptable),
        "policies": {q.name: q.policy for q in queues},
        "default_policy": default_policy,
        "steps": bool(steps),
        "edge": edge,
        "odd-names": odd,
    }
    return Generated(files, "scenario.yaml", edge, meta)


class _Dumper(yaml.SafeDumper):
    """Multi-line text (the inline allocation file) as a literal block."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _text)


def _steps(rng: random.Random, leaves: list[str], edge: str | None) -> list[dict[str, Any]]:
    if edge == "no-nodes":
        return [{"update": {}}, {"advance": {"ms": 1000}}, {"update": {}},
                {"snapshot": {"label": "no nodes"}}]
    if rng.random() > 0.25:
        return []
    queue = rng.choice(leaves)
    return [
        {"submit": {"app": "scripted", "queue": queue, "user": "ops",
                    "requests": [{"count": rng.randint(1, 6), "memory-mb": 1024}]}},
        {"update": {}},
        {"heartbeat": {"node": "*"}},
        {"snapshot": {"label": "after the steps"}},
        {"advance": {"ms": rng.choice([0, 500, 1000])}},
    ]

"""What a scenario exercises, as a set of feature names: the generator's coverage, counted by
its tests and printed by ``python -m oracle.features N`` (issue 19, point 3)."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from collections import Counter
from typing import Any

QUEUE_SETTINGS = ("weight", "minResources", "maxChildResources", "maxRunningApps",
                  "maxAMShare", "fairSharePreemptionTimeout", "fairSharePreemptionThreshold",
                  "minSharePreemptionTimeout")
SITE = {"yarn.scheduler.fair.preemption": "preemption",
        "yarn.scheduler.fair.waitTimeBeforeKill": "waitTimeBeforeKill",
        "yarn.scheduler.fair.max.assign": "max.assign",
        "yarn.scheduler.fair.preemption.cluster-utilization-threshold": "utilization-threshold",
        "yarn.resource-types": "gpu",
        "yarn.scheduler.fair.locality.threshold.node": "delay-scheduling"}


def features(scenario: dict[str, Any]) -> set[str]:
    out = _allocation_features(scenario["allocations"])
    site = scenario.get("site", {})
    out |= {name for key, name in SITE.items() if key in site}
    out.add("assignmultiple" if site.get("yarn.scheduler.fair.assignmultiple")
            else "no-assignmultiple")
    if any("rack" in n for n in scenario.get("cluster", {}).get("nodes", [])):
        out.add("racks")
    snapshots = 0
    parents = _parents(scenario["allocations"])
    for step in scenario.get("steps", []):
        (kind, args), = step.items()
        out.add(f"step:{kind}")
        out |= _step_features(kind, args or {}, parents)
        snapshots += kind == "snapshot"
    if snapshots >= 3:
        out.add("several-snapshots")
    return out


def _allocation_features(text: str) -> set[str]:
    root = ET.fromstring(text)
    out: set[str] = set()

    def walk(element: ET.Element, depth: int) -> None:
        for queue in element.findall("queue"):
            out.add(f"depth-{depth}")
            for setting in queue:
                value = (setting.text or "").strip()
                if setting.tag in QUEUE_SETTINGS:
                    out.add(setting.tag)
                elif setting.tag in ("maxResources", "maxChildResources"):
                    out.add(f"{setting.tag}-{'percent' if '%' in value else 'absolute'}")
                elif setting.tag == "schedulingPolicy":
                    out.add(f"policy-{value}")
                elif setting.tag == "allowPreemptionFrom" and value == "false":
                    out.add("non-preemptable-queue")
            walk(queue, depth + 1)

    walk(root, 1)
    if (root.findtext("defaultQueueSchedulingPolicy") or "").strip() == "drf":
        out.add("policy-drf")
    for rule in root.iter("rule"):
        out.add(f"rule-{rule.get('name')}")
        if rule.get("create") is not None:
            out.add(f"rule-create-{rule.get('create')}")
    return out


def _parents(text: str) -> set[str]:
    """The full names of the file's parent queues."""
    out: set[str] = set()

    def walk(element: ET.Element, prefix: str) -> None:
        for queue in element.findall("queue"):
            name = f"{prefix}.{queue.get('name')}"
            if queue.find("queue") is not None:
                out.add(name)
            walk(queue, name)

    walk(ET.fromstring(text), "root")
    return out


def _step_features(kind: str, args: dict[str, Any], parents: set[str]) -> set[str]:
    out: set[str] = set()
    if kind == "submit":
        out.add("managed-app" if "am" in args else "unmanaged-app")
    for request in args.get("requests", []) if kind in ("submit", "request") else []:
        place = request.get("locality", "*")
        out.add("locality-any" if place == "*" else "locality-rack" if place.startswith("/")
                else "locality-host")
        if request.get("relax-locality") is False:
            out.add("relax-locality-false")
        if "yarn.io/gpu" in request:
            out.add("gpu-request")
    if kind == "release":
        out.add(f"release-{args.get('which', 'newest')}")
    if kind == "move":
        refused = args["queue"] == "root.nosuch" or args["queue"] in parents
        out.add("move-to-non-leaf" if refused else "move-to-leaf")
    if kind == "reload":
        text = args.get("allocations", "")
        out |= {f"reload-{k}" for k in ("valid", "malformed", "bad-value", "unknown-element",
                                        "drf-under-fair") if f"reload: {k} " in text}
    if kind == "heartbeat":
        out.add("heartbeat-all" if args.get("node") == "*" else "heartbeat-node")
    return out


def coverage(scenarios: list[dict[str, Any]]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for scenario in scenarios:
        counts.update(features(scenario))
    return counts


def main(argv: list[str]) -> None:
    from oracle.generate import generate
    n = int(argv[0]) if argv else 1000
    counts = coverage([generate(seed) for seed in range(n)])
    for name, count in sorted(counts.items()):
        print(f"{name:32} {count:6} {100 * count / n:5.1f} %")


if __name__ == "__main__":
    main(sys.argv[1:])

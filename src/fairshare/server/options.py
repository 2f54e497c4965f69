"""``fairshare serve``'s options read: the nodes (``--nodes``, ``--nodes-file``) and the
speed; every error names its option or its file and line."""

from __future__ import annotations

import re
from pathlib import Path

from fairshare.config.errors import ConfigError
from fairshare.resources.vector import ResourceTypes
from fairshare.server.loop import NodeSpec
from fairshare.sim.parse.scenario import parse_scenario_text
from fairshare.sim.run.build import scenario_resource

NM_PORT = 45454  # yarn.nodemanager.address's default port: a node id is host:port
MAX_NODES = 10_000
_NODES = re.compile(r"(\d+)\s*x\s*(\d+)\s*([mgt]?)b?\s*/\s*(\d+)", re.IGNORECASE)
_UNITS = {"": 1, "m": 1, "g": 1024, "t": 1024 * 1024}


def parse_nodes(text: str, types: ResourceTypes, option: str = "--nodes") -> list[NodeSpec]:
    """``4x16g/8`` (4 nodes of 16 GB and 8 vcores), ``2x8192/4,1x64g/32``: memory in MB, or
    with ``m``, ``g`` or ``t``. Nodes are ``node1:45454``, ``node2:45454``, … in order."""
    nodes: list[NodeSpec] = []
    for part in (p.strip() for p in text.split(",")):
        match = _NODES.fullmatch(part)
        if match is None:
            raise ConfigError(f"expected COUNTxMEMORY/VCORES such as 4x16g/8, got {part!r}",
                              option)
        count, memory, unit, vcores = match.groups()
        if int(count) < 1 or int(memory) < 1 or int(vcores) < 1:
            raise ConfigError(f"count, memory and vcores must be positive in {part!r}", option)
        size = types.of({"memory-mb": int(memory) * _UNITS[unit.lower()],
                         "vcores": int(vcores)})
        for _ in range(int(count)):
            nodes.append(NodeSpec(f"node{len(nodes) + 1}:{NM_PORT}", size))
        if len(nodes) > MAX_NODES:
            raise ConfigError(f"at most {MAX_NODES:,} nodes", option)
    return nodes


def read_nodes_file(path: Path, types: ResourceTypes) -> list[NodeSpec]:
    """A YAML file with the scenario format's ``cluster: nodes:`` list (docs/scenario-format.md
    "Cluster and nodes": names, racks, sizes, custom types, ``count``/``prefix`` templates); a
    name without a port gets the NodeManager's default port."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read the nodes file: {e}", str(path)) from None
    # a scenario's version key added after the user's lines keeps their line numbers
    scenario = parse_scenario_text(f"{text}\nversion: 1\n", str(path), path.parent)
    extra = [k for k in ("steps", "workload", "allocations", "site") if getattr(
        scenario, k.replace("-", "_"), None)]
    if extra:
        raise ConfigError(f"a nodes file holds only 'cluster: nodes:', not {extra[0]!r}",
                          str(path))
    if not scenario.nodes:
        raise ConfigError("no nodes: expected 'cluster: nodes: [...]'", str(path))
    return [NodeSpec(n.name if ":" in n.name else f"{n.name}:{NM_PORT}",
                     scenario_resource(types, n.resources, str(path), n.line), n.rack)
            for n in scenario.nodes]

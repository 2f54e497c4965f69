"""The SLS topology file (``workload.sls-nodes``; SLS's ``--nodes``) → nodes.

A sequence of JSON objects (or one array of them), one per rack, as Hadoop 3.4's
``SLSUtils.parseNodesFromNodeFile`` reads it::

    {"rack": "default-rack",
     "nodes": [{"node": "node1"}, {"node": "node2", "memory-mb": 4096, "vcores": 4}]}

A node is ``<node>`` on rack ``/<rack>``. A node key named after a resource type
(``memory-mb``, ``vcores``, ``yarn.io/gpu``) sizes it (``Integer.parseInt``, so a string of
digits works too); what it does not give comes from ``yarn.sls.nm.*``
(:mod:`~fairshare.sim.sources.sls_settings`). ``labels`` is accepted and ignored: the Fair
Scheduler has no node labels. Unknown keys are errors (with a "did you mean"), a node named twice
is an error (SLS keeps one of them silently), and nodes keep the file's order (SLS's is a
``HashSet``'s).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import Field, PlainValidator, ValidationError

from fairshare.config.errors import ConfigError, all_errors
from fairshare.config.files import memory_guard
from fairshare.sim.scenario_schema import MAX_NODES, Name, fail, known_value, problems_of
from fairshare.sim.sources.jsontext import (
    MAX_TOPOLOGY_BYTES,
    json_doc,
    json_element_lines,
    json_values,
    read_trace_text,
)
from fairshare.sim.sources.sls_settings import SlsSettings
from fairshare.sim.sources.values import (
    Bad,
    FileErrors,
    JsonModel,
    add_problems,
    non_negative,
)
from fairshare.sim.specs import NodeSpec
from fairshare.sim.yaml_lines import show

__all__ = ["JsonNonNegative", "load_sls_topology"]


def _json_non_negative(value: Any) -> int:
    """``Integer.parseInt(value.toString())``, and not negative."""
    try:
        amount = non_negative(known_value(value), ())
    except Bad as bad:
        fail(bad.message)
    if amount >= 2**31:
        fail(f"must be a 32-bit integer, got {show(value)}")
    return amount


JsonNonNegative = Annotated[int, PlainValidator(_json_non_negative)]


class _TopologyNode(JsonModel):
    custom_types: ClassVar[bool] = True
    __pydantic_extra__: dict[str, JsonNonNegative] = Field(init=False)
    node: Name
    labels: Any = None  # node labels: read by SLS, not modelled by the Fair Scheduler
    memory_mb: JsonNonNegative | None = Field(None, alias="memory-mb")
    vcores: JsonNonNegative | None = None


class _Rack(JsonModel):
    rack: Name
    nodes: tuple[_TopologyNode, ...]


def load_sls_topology(path: Path, settings: SlsSettings,
                      display: str | None = None) -> tuple[NodeSpec, ...]:
    """Read an SLS topology file; ``display`` names it in errors and in ``source``."""
    name = display or str(path)
    with memory_guard(name):
        return _load(read_trace_text(path, name, MAX_TOPOLOGY_BYTES), settings, name)


def _load(text: str, settings: SlsSettings, name: str) -> tuple[NodeSpec, ...]:
    errors = FileErrors(name)
    nodes: dict[str, NodeSpec] = {}
    try:
        for item in json_values(text, name):
            try:
                rack = _Rack.model_validate(item.value)
            except ValidationError as error:
                add_problems(errors, problems_of(error, ()), json_doc(item.value, text,
                             item.start, item.line), f"rack #{item.index + 1}: ")
                continue
            lines = json_element_lines(text, item.start, item.line, ("nodes",))
            for index, node in enumerate(rack.nodes):
                line = lines[index] if index < len(lines) else item.line
                if node.node in nodes:
                    first = nodes[node.node].line
                    errors.add(f"rack #{item.index + 1}: nodes[{index}]: duplicate node name "
                               f"'{node.node}' (first at line {first})", line)
                    continue
                if len(nodes) >= MAX_NODES:
                    errors.add(f"rack #{item.index + 1}: nodes[{index}]: more than "
                               f"{MAX_NODES:,} nodes", line)
                    break
                nodes[node.node] = NodeSpec(node.node, "/" + rack.rack.lstrip("/"),
                                            _size(node, settings), line, name)
            if errors.full:
                break
    except ConfigError as syntax:
        for found in all_errors(syntax):
            errors.add(found.message, found.line)
    errors.raise_any()
    return tuple(nodes.values())


def _size(node: _TopologyNode, settings: SlsSettings) -> dict[str, int]:
    size = dict(settings.node)
    if node.memory_mb is not None:
        size["memory-mb"] = node.memory_mb
    if node.vcores is not None:
        size["vcores"] = node.vcores
    size.update(node.model_extra or {})
    return size

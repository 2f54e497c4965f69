"""The SLS topology file (``workload.sls-nodes``; SLS's ``--nodes``) → nodes.

A sequence of JSON objects (or one array of them), one per rack, as Hadoop 3.4's
``SLSUtils.parseNodesFromNodeFile`` reads it::

    {"rack": "default-rack",
     "nodes": [{"node": "node1"}, {"node": "node2", "memory-mb": 4096, "vcores": 4}]}

A node is ``<node>`` on rack ``/<rack>``. A node key named after a resource type
(``memory-mb``, ``vcores``, ``yarn.io/gpu``) sizes it (``Integer.parseInt``, so a string of
digits works too); what it does not give comes from ``yarn.sls.nm.*``
(:mod:`~fairshare.sim.sources.sls_settings`). ``labels`` is accepted and ignored: the Fair
Scheduler has no node labels. A node without ``node`` (Hadoop's own test ``nodes.json`` ends with
an empty ``{}``) is named ``null`` and a rack without ``rack`` is ``/null``, as SLS names them,
each with a warning. Unknown keys are errors (with a "did you mean"), a node named twice is an
error (SLS keeps one of them silently), and nodes keep the file's order (SLS's is a
``HashSet``'s). A file that looks like another kind of input is named as such
(:mod:`~fairshare.sim.sources.kinds`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import Field, PlainValidator, ValidationError

from fairshare.config.errors import ConfigError, all_errors
from fairshare.config.files import memory_guard
from fairshare.config.model import ConfigWarning
from fairshare.sim.parse.jsontext import (
    MAX_TOPOLOGY_BYTES,
    JsonValue,
    json_doc,
    json_element_lines,
    json_values,
    read_trace_text,
)
from fairshare.sim.parse.scenario_schema import fail, known_value, problems_of
from fairshare.sim.parse.schema_values import MAX_NODES, Name
from fairshare.sim.parse.specs import NodeSpec
from fairshare.sim.parse.yaml_lines import show
from fairshare.sim.sources.kinds import wrong_kind
from fairshare.sim.sources.sls_settings import SlsSettings
from fairshare.sim.sources.values import (
    Bad,
    FileErrors,
    JsonModel,
    add_problems,
    non_negative,
)

__all__ = ["JsonNonNegative", "SlsTopology", "load_sls_topology"]


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
    node: Name | None = None  # SLS names a node without one "null" (warned)
    labels: Any = None  # node labels: read by SLS, not modelled by the Fair Scheduler
    memory_mb: JsonNonNegative | None = Field(None, alias="memory-mb")
    vcores: JsonNonNegative | None = None


class _Rack(JsonModel):
    rack: Name | None = None  # SLS puts the nodes of a rack without one on "/null" (warned)
    nodes: tuple[_TopologyNode, ...]


# SLSUtils.parseNodesFromNodeFile builds "/" + rack + "/" + node from Map.get: a missing name
# is the text "null"
NO_NAME = "null"


@dataclass(frozen=True)
class SlsTopology:
    """A topology file's nodes in file order, and its warnings."""

    nodes: tuple[NodeSpec, ...]
    warnings: tuple[ConfigWarning, ...] = ()


def load_sls_topology(path: Path, settings: SlsSettings,
                      display: str | None = None) -> SlsTopology:
    """Read an SLS topology file; ``display`` names it in errors and in ``source``."""
    name = display or str(path)
    with memory_guard(name):
        return _load(read_trace_text(path, name, MAX_TOPOLOGY_BYTES), settings, name)


def _load(text: str, settings: SlsSettings, name: str) -> SlsTopology:
    errors = FileErrors(name)
    nodes: dict[str, NodeSpec] = {}
    try:
        for item in json_values(text, name):
            wrong = wrong_kind(item.value, "sls-nodes") if item.index == 0 else None
            if wrong is not None:
                errors.add(wrong, item.line)
                break
            try:
                rack = _Rack.model_validate(item.value)
            except ValidationError as error:
                add_problems(errors, problems_of(error, ()), json_doc(item.value, text,
                             item.start, item.line), f"rack #{item.index + 1}: ")
                continue
            _rack_nodes(rack, item, text, settings, nodes, errors)
            if errors.full:
                break
    except ConfigError as syntax:
        for found in all_errors(syntax):
            errors.add(found.message, found.line)
    errors.raise_any()
    return SlsTopology(tuple(nodes.values()), errors.all_warnings())


def _rack_nodes(rack: _Rack, item: JsonValue, text: str, settings: SlsSettings,
                nodes: dict[str, NodeSpec], errors: FileErrors) -> None:
    """Add the nodes of one rack entry to ``nodes``, by name."""
    where = f"rack #{item.index + 1}: "
    if rack.rack is None:
        errors.warn(f"{where}no 'rack': SLS puts its nodes on rack '/{NO_NAME}' (it builds the "
                    "rack's name from a missing value), and so does fairshare", item.line)
    rack_name = "/" + (rack.rack or NO_NAME).lstrip("/")
    lines = json_element_lines(text, item.start, item.line, ("nodes",))
    for index, node in enumerate(rack.nodes):
        line = lines[index] if index < len(lines) else item.line
        name = node.node or NO_NAME
        if node.node is None:
            errors.warn(f"{where}nodes[{index}]: a node without 'node' (its name): SLS starts a "
                        f"node manager named '{NO_NAME}' for it, and so does fairshare; remove "
                        "the entry if it is not meant to be a node", line)
        if name in nodes:
            errors.add(f"{where}nodes[{index}]: duplicate node name '{name}' (first at line "
                       f"{nodes[name].line})", line)
            continue
        if len(nodes) >= MAX_NODES:
            errors.add(f"{where}nodes[{index}]: more than {MAX_NODES:,} nodes", line)
            return
        nodes[name] = NodeSpec(name, rack_name, _size(node, settings), line, errors.display)


def _size(node: _TopologyNode, settings: SlsSettings) -> dict[str, int]:
    size = dict(settings.node)
    if node.memory_mb is not None:
        size["memory-mb"] = node.memory_mb
    if node.vcores is not None:
        size["vcores"] = node.vcores
    size.update(node.model_extra or {})
    return size

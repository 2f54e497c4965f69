"""A scenario's whole workload: its own ``apps`` and every trace it names, checked together.

Order: the scenario's ``workload.apps`` first, then the SLS trace's jobs (file order), the SYNTH
jobs (start-time order), the CSV apps (file order). An app id must be unique across all of them.

Nodes: the SLS topology file's nodes (``sls-nodes``) join the scenario's ``cluster.nodes``; a name
in both is an error. When the scenario names no node at all — no ``cluster.nodes``, no
``sls-nodes``, no ``add-node`` step — the nodes the traces describe are used, as SLS does without
``--nodes``: the SLS trace's container hosts and ``num.nodes`` entries, then SYNTH's
``num_nodes`` (a name seen twice is one node, with the rack it was first seen on).

Every file is read even when an earlier one fails, so one run reports the errors of all; nothing
is returned unless everything is valid. Warnings (what SLS accepts, read as SLS reads it, but
worth a word) are returned with the workload, or raised with the errors.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from fairshare.config.errors import ConfigError, ConfigErrors, LocatedWarning, all_errors
from fairshare.sim.parse.specs import NodeSpec, WorkloadApp
from fairshare.sim.sources.csv_source import load_csv
from fairshare.sim.sources.sls import load_sls_jobs
from fairshare.sim.sources.sls_settings import SlsSettings
from fairshare.sim.sources.sls_topology import load_sls_topology
from fairshare.sim.sources.synth import TimeUnit, load_synth
from fairshare.sim.sources.values import MAX_ERRORS

__all__ = ["LoadedWorkload", "SourceFile", "load_workload"]

T = TypeVar("T")


@dataclass(frozen=True)
class SourceFile:
    """A trace file: where it is, and how errors and records name it."""

    path: Path
    display: str


@dataclass(frozen=True)
class LoadedWorkload:
    apps: tuple[WorkloadApp, ...]  # the scenario's own apps first, then sls, synth, csv
    nodes: tuple[NodeSpec, ...]  # to add after the scenario's cluster.nodes
    warnings: tuple[LocatedWarning, ...] = ()  # of every file, each at its file:line


def load_workload(
    *, native: Sequence[WorkloadApp], cluster: Sequence[NodeSpec], scenario: str, seed: int,
    settings: SlsSettings, derive_nodes: bool, max_nodes: int, sls: SourceFile | None = None,
    sls_nodes: SourceFile | None = None, synth: SourceFile | None = None,
    csv: SourceFile | None = None, synth_time_unit: TimeUnit = "s",
) -> LoadedWorkload:
    """Read every trace named and combine them with the scenario's ``native`` apps and
    ``cluster`` nodes (``scenario`` names the scenario file in messages).

    Raises :class:`ConfigErrors` with the errors of every file, each at its own ``file:line``,
    and the warnings found.
    """
    errors: list[ConfigError] = []
    warnings: list[LocatedWarning] = []

    def read(load: Callable[[SourceFile], T], source: SourceFile | None) -> T | None:
        if source is None:
            return None
        try:
            return load(source)
        except ConfigError as error:
            errors.extend(all_errors(error))
            warnings.extend(error.warnings)
            return None

    trace = read(lambda f: load_sls_jobs(f.path, settings, f.display), sls)
    topology = read(lambda f: load_sls_topology(f.path, settings, f.display), sls_nodes)
    synthetic = read(lambda f: load_synth(f.path, seed, settings, f.display, synth_time_unit),
                     synth)
    rows = read(lambda f: load_csv(f.path, f.display), csv)
    warnings.extend((*(topology.warnings if topology else ()),
                     *(synthetic.warnings if synthetic else ())))
    try:
        if errors:
            raise ConfigErrors(errors)
        apps = (*native, *(trace.apps if trace else ()), *(synthetic.apps if synthetic else ()),
                *(rows or ()))
        _check_unique_ids(apps, scenario)
        nodes = topology.nodes if topology else ()
        if derive_nodes:
            nodes = _first_of_each_name((*(trace.nodes if trace else ()),
                                         *(synthetic.nodes if synthetic else ())))
        _check_nodes(cluster, nodes, scenario, max_nodes)
    except ConfigErrors as failed:
        raise ConfigErrors(failed.errors, warnings) from None
    return LoadedWorkload(apps, nodes, tuple(warnings))


def _where(source: str, line: int, scenario: str) -> str:
    return f"{source or scenario}:{line}"


def _check_unique_ids(apps: Sequence[WorkloadApp], scenario: str) -> None:
    first: dict[str, WorkloadApp] = {}
    errors: list[ConfigError] = []
    for app in apps:
        seen = first.setdefault(app.id, app)
        if seen is not app and len(errors) < MAX_ERRORS:
            where = _where(seen.source, seen.line, scenario)
            errors.append(ConfigError(f"duplicate app id '{app.id}' (first at {where})",
                                      app.source or scenario, app.line))
    if errors:
        raise ConfigErrors(errors)


def _first_of_each_name(nodes: Sequence[NodeSpec]) -> tuple[NodeSpec, ...]:
    named: dict[str, NodeSpec] = {}
    for node in nodes:
        named.setdefault(node.name, node)
    return tuple(named.values())


def _check_nodes(cluster: Sequence[NodeSpec], more: Sequence[NodeSpec], scenario: str,
                 max_nodes: int) -> None:
    first = {node.name: node for node in cluster}
    errors = [ConfigError(f"node '{node.name}' is also defined by the scenario (at "
                          f"{_where(first[node.name].source, first[node.name].line, scenario)})",
                          node.source or scenario, node.line)
              for node in more if node.name in first][:MAX_ERRORS]
    if len(cluster) + len(more) > max_nodes:
        last = more[max_nodes - len(cluster)] if len(cluster) < max_nodes else more[0]
        errors.append(ConfigError(f"more than {max_nodes} nodes in the cluster",
                                  last.source or scenario, last.line))
    if errors:
        raise ConfigErrors(errors)

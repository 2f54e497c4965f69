"""A scenario's run prepared once (:class:`PreparedRun`): its site and allocation file with the
``--set`` overrides applied, its timed reloads' configurations parsed; and the engine built
from it, its nodes registered."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from fairshare.config.allocation import read_allocations
from fairshare.config.errors import ConfigError
from fairshare.config.model import AllocationConfig
from fairshare.config.overrides import site_overrides
from fairshare.config.yarnsite import SITE_KEY_PREFIXES, SiteConfig, known_site_keys, load_site
from fairshare.core import AddNode, AddNodes, Engine, Event, apply_command
from fairshare.resources.vector import Resource, ResourceTypes
from fairshare.sim.parse.steps import Scenario
from fairshare.sim.run.timed import TimedRun, timed_changes


@dataclass(frozen=True, slots=True)
class PreparedRun:
    """A scenario's configuration, parsed once (:func:`prepare_run`): the site and allocation
    file with the ``--set`` overrides applied, and its timed changes with every reload's
    configuration parsed. The CLI checks and warns about these before the run starts, and the
    runner builds its engine from them (:func:`build_engine`), so nothing is read twice.

    For one run: :attr:`timed` records the changes applied as the run goes."""

    scenario: Scenario
    site: SiteConfig
    allocations: AllocationConfig
    timed: TimedRun


def prepare_run(scenario: Scenario) -> PreparedRun:
    """Parse ``scenario``'s configuration: site, then allocations, then the timed reloads;
    configuration errors raise ConfigError. Cheap: nothing is built but the configurations."""
    site, allocations = _site_and_allocations(scenario)
    timed = timed_changes(scenario.changes, scenario.source,
                          (scenario.allocations_text, scenario.allocations_file),
                          scenario.overrides, site.resource_types)
    return PreparedRun(scenario, site, allocations, timed)


def _site_and_allocations(scenario: Scenario) -> tuple[SiteConfig, AllocationConfig]:
    options, where = site_overrides(scenario.overrides, known_site_keys(), SITE_KEY_PREFIXES)
    site = load_site(scenario.site_file, {**scenario.site, **options}, override_locations={
        **{key: (scenario.source, line) for key, line in scenario.site_lines.items()}, **where})
    return site, _allocations(scenario, site.resource_types)


def build_engine(run: PreparedRun | Scenario,
                 sink: Callable[[Event], None] | None = None) -> Engine:
    """The engine of a prepared run (a scenario is prepared first): its site, allocations and
    nodes; configuration errors raise ConfigError."""
    prepared = run if isinstance(run, PreparedRun) else prepare_run(run)
    scenario, types = prepared.scenario, prepared.site.resource_types
    engine = Engine(prepared.site, prepared.allocations, start_ms=scenario.start_ms,
                    groups=scenario.groups, sink=sink)
    # registered one by one (as many events), steady shares computed once for them all; a
    # topology file's nodes name their own source
    apply_command(engine, AddNodes(tuple(
        AddNode(node.name, scenario_resource(types, node.resources,
                                             node.source or scenario.source, node.line),
                node.rack) for node in scenario.nodes)))
    return engine


def _allocations(scenario: Scenario, types: ResourceTypes) -> AllocationConfig:
    text, path, overrides = scenario.allocations_text, scenario.allocations_file, scenario.overrides
    if text is None and path is None and not any(o.scope == "alloc" for o in overrides):
        return AllocationConfig()  # no allocation file: YARN's defaults
    # with alloc: overrides but no file, they are set into an empty file, not into none
    source = "(no allocation file)" if text is None else f"{scenario.source} (allocations)"
    return read_allocations(text, path, source, types, overrides=overrides)


def scenario_resource(types: ResourceTypes, values: Mapping[str, int], source: str,
                      line: int) -> Resource:
    """A resource of the scenario (``source``, ``line``) in the cluster's types."""
    unknown = [name for name in values if name not in types.names]
    if unknown:
        raise ConfigError(
            f"unknown resource type {unknown[0]!r}; this cluster has {', '.join(types.names)} "
            "(declare others in yarn.resource-types)", source, line)
    return types.of(dict(values))

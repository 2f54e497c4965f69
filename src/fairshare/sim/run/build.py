"""An engine built from a scenario: its site and allocation file with the ``--set``
overrides applied, its timed reloads' configurations parsed, its nodes registered."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from fairshare.config.allocation import read_allocations
from fairshare.config.errors import ConfigError
from fairshare.config.model import AllocationConfig
from fairshare.config.overrides import site_overrides
from fairshare.config.yarnsite import SITE_KEY_PREFIXES, SiteConfig, known_site_keys, load_site
from fairshare.core import Engine, Event
from fairshare.resources.vector import Resource, ResourceTypes
from fairshare.sim.parse.steps import (
    Scenario,
)
from fairshare.sim.run.timed import TimedRun, timed_changes


def configuration(scenario: Scenario) -> tuple[SiteConfig, AllocationConfig]:
    """The scenario's site and allocations, its ``--set`` overrides applied; configuration
    errors raise ConfigError, those of its timed reloads' overrides too (:func:`timed_run`).
    Cheap: nothing is built but the configurations. A check before a run: the run itself
    reads them once, in :func:`build_engine` and :class:`ScriptRunner`."""
    site, allocations = _site_and_allocations(scenario)
    if scenario.changes:
        timed_run(scenario, site.resource_types)
    return site, allocations


def _site_and_allocations(scenario: Scenario) -> tuple[SiteConfig, AllocationConfig]:
    options, where = site_overrides(scenario.overrides, known_site_keys(), SITE_KEY_PREFIXES)
    site = load_site(scenario.site_file, {**scenario.site, **options}, override_locations={
        **{key: (scenario.source, line) for key, line in scenario.site_lines.items()}, **where})
    return site, _allocations(scenario, site.resource_types)


def timed_run(scenario: Scenario, types: ResourceTypes) -> TimedRun:
    """The workload's timed changes, every reload's configuration parsed now."""
    return timed_changes(scenario.changes, scenario.source,
                         (scenario.allocations_text, scenario.allocations_file),
                         scenario.overrides, types)


def build_engine(scenario: Scenario, sink: Callable[[Event], None] | None = None) -> Engine:
    """Site, allocations and nodes of a scenario; configuration errors raise ConfigError."""
    site, allocations = _site_and_allocations(scenario)
    types = site.resource_types
    engine = Engine(site, allocations, start_ms=scenario.start_ms, groups=scenario.groups,
                    sink=sink)
    # registered one by one (as many events), steady shares computed once for them all; a
    # topology file's nodes name their own source
    engine.add_nodes((node.name, scenario_resource(types, node.resources,
                                                   node.source or scenario.source, node.line),
                      node.rack) for node in scenario.nodes)
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

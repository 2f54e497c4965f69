"""``fairshare validate ALLOCATIONS``: check an allocation file as the ResourceManager would,
summarise every queue's settings, the preemption switches and the placement rules, and list
what ``fairshare lint`` finds."""

from __future__ import annotations

from typing import Annotated

import typer
from rich import box
from rich.table import Table

from fairshare.cli import format as fmt
from fairshare.cli.allocations import AllocationsArg, SiteOpt, limit_columns, load, tree_label
from fairshare.cli.cluster import CLUSTER_HELP
from fairshare.cli.common import out
from fairshare.cli.lint import EXIT_ERRORS, all_findings, configuration_files, print_findings
from fairshare.cli.tables import FitTable
from fairshare.config.model import AllocationConfig, PlacementPolicy
from fairshare.config.placement.policy import generated_policy
from fairshare.config.yarnsite import SiteConfig
from fairshare.core import QueueSettings, QueueTree
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import ResourceTypes, componentwise_max


def validate(
    allocations: AllocationsArg,
    site: SiteOpt = None,
    cluster: Annotated[
        str | None,
        typer.Option("--cluster", help=CLUSTER_HELP + " Adds lint's findings about min shares "
                     "against fair shares."),
    ] = None,
) -> None:
    """Check an allocation file as the ResourceManager would, summarise it, and list the
    findings of `fairshare lint` (exit 1 when one is an error).

    Given a configuration directory, reads the fair-scheduler.xml and yarn-site.xml in it."""
    allocations, site = configuration_files(allocations, site)
    site_config, config, tree = load(allocations, site)
    findings = all_findings(site_config, config, cluster)
    out.print(_settings_table(str(allocations), tree, site_config.resource_types))
    out.print(_preemption_summary(site_config), soft_wrap=True)
    if tree.not_created:
        out.print("Configured queues YARN cannot create (applications cannot run in them):")
        for name, why in tree.not_created:
            out.print(f"  {name}: {why}")
    _print_placement(config, site_config)
    print_findings(findings, out)
    errors = sum(1 for f in findings if f.severity == "error")
    if errors:
        noun = "finding above is an error" if errors == 1 else "findings above are errors"
        out.print(f"The ResourceManager would accept this configuration, but {errors} {noun}: "
                  "applications would not run as intended.", style="red")
        raise typer.Exit(EXIT_ERRORS)
    out.print("OK: the ResourceManager would accept this configuration.")


def _settings_table(source: str, tree: QueueTree, types: ResourceTypes) -> Table:
    """Every queue's effective weight, policy, limits and when it counts as starved."""
    nodes = list(tree.tree_view())
    table = FitTable(
        title=f"{source}: {len(nodes)} queues",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("Queue", no_wrap=True)
    table.add_column("Weight", justify="right")
    table.add_column("Policy")
    limits = limit_columns(tree)
    for column in limits:
        table.add_column(column)
    for column in ("Fair-share starved", "Min-share starved", "Preemptable"):
        table.add_column(column, no_wrap=True)
    for node in nodes:
        s = node.settings
        has_min = any(s.min_share.values)
        cells = {
            "Min share": fmt.short(s.min_share, types) if has_min else "–",
            "Max share": fmt.configurable(_max_share(s), types),
        }
        table.add_row(
            tree_label(node),
            f"{s.weight:g}",
            s.policy.value,
            *(cells[c] for c in limits),
            fmt.fair_share_starvation(
                s.fair_share_preemption_timeout_ms, s.fair_share_preemption_threshold
            ),
            fmt.min_share_starvation(s.min_share_preemption_timeout_ms, has_min),
            "yes" if s.preemptable else "no",
        )
    return table


def _max_share(s: QueueSettings) -> ConfigurableResource | None:
    """An absolute max share as YARN applies it: raised to the min share where below it (the
    min-above-max finding says why); a percentage is shown as written."""
    if s.max_share is None or s.max_share.absolute is None:
        return s.max_share
    return ConfigurableResource(componentwise_max(s.max_share.absolute, s.min_share))


def _preemption_summary(site: SiteConfig) -> str:
    """Whether the starvation columns can ever act (docs/semantics.md §1.1, §4.1)."""
    if not site.preemption:
        return ("Preemption: off (yarn.scheduler.fair.preemption=false): starvation is never "
                "checked and nothing is preempted.")
    threshold = site.preemption_cluster_utilization_threshold
    return (f"Preemption: on. Starvation is checked while cluster utilization is above "
            f"{threshold * 100:.4g}%; victims are killed "
            f"{fmt.timeout(site.wait_time_before_kill_ms)} after they are chosen.")


def _print_placement(config: AllocationConfig, site: SiteConfig) -> None:
    policy: PlacementPolicy = config.placement_policy or generated_policy(
        site.user_as_default_queue, site.allow_undeclared_pools
    )
    origin = "generated from yarn-site" if policy.generated else "from the allocation file"
    out.print(f"Placement rules ({origin}):")
    for i, rule in enumerate(policy.rules, start=1):
        out.print(f"  {i}. {fmt.rule(rule)}")

"""``fairshare shares ALLOCATIONS --cluster SIZE``: the steady and instantaneous fair share of
every queue for a cluster size, given which leaf queues are active (``--active``)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from fairshare.cli import format as fmt
from fairshare.cli.allocations import AllocationsArg, SiteOpt, limit_columns, load, tree_label
from fairshare.cli.cluster import CLUSTER_HELP, cluster_option
from fairshare.cli.common import (
    Format,
    FormatOpt,
    JsonOpt,
    err,
    fail,
    one_line,
    out,
    wants_json,
    warn,
)
from fairshare.cli.tables import FitTable
from fairshare.config.lint.checks import configuration_findings
from fairshare.config.model import PlacementPolicy, RuleName
from fairshare.config.placement.policy import generated_policy
from fairshare.core import (
    QueueTree,
    active_queues,
    get_or_create_leaf,
    placeholder_apps,
    shares_with_active_leaves,
)
from fairshare.resources.vector import Resource, float32_decimal
from fairshare.sim.record.outputs import json_text


def _parse_active(text: str | None, tree: QueueTree, policy: PlacementPolicy) -> list[str]:
    """The active leaves named by ``--active``; a queue the file does not configure counts when
    YARN would create it at submission (a dynamic leaf), which is said on stderr."""
    leaves = [leaf.name for leaf in tree.leaves()]
    if text is None:
        return leaves
    names = [n.strip() for n in text.split(",") if n.strip()]
    full = [n if n == "root" or n.startswith("root.") else f"root.{n}" for n in names]
    full = list(dict.fromkeys(full))  # a repeated name counts once
    creators = [fmt.rule(r) for r in policy.rules if r.create and r.name is not RuleName.DEFAULT]
    problems = []
    for name in (n for n in full if n not in leaves):
        problem: str | None = get_or_create_leaf(tree, name)[1]
        if problem is None and not creators:
            problem = "no placement rule creates queues (each has create=\"false\")"
        if problem is not None:
            problems.append(f"--active: {name} is not a leaf queue of this configuration "
                            f"and YARN would not create it: {problem}")
            continue
        note = (f"note: --active: {name} is not in the allocation file; counted as the dynamic "
                f"leaf YARN creates when a placement rule puts an app there "
                f"(rules that create queues: {'; '.join(creators)})")
        err.print(one_line(note), soft_wrap=True)
    if problems:
        raise fail(problems)
    return full


def shares(
    allocations: AllocationsArg,
    cluster: Annotated[
        str, typer.Option(
            "--cluster",
            help=CLUSTER_HELP,
        )
    ],
    active: Annotated[
        str | None,
        typer.Option("--active", help="Comma-separated active leaf queues (default: all)."),
    ] = None,
    site: SiteOpt = None,
    output: FormatOpt = Format.TEXT,
    as_json: JsonOpt = False,
) -> None:
    """Steady and instantaneous fair share of every queue for a cluster size."""
    site_config, config, tree = load(allocations, site)
    types = site_config.resource_types
    capacity = cluster_option(cluster, types)
    policy = config.placement_policy or generated_policy(
        site_config.user_as_default_queue, site_config.allow_undeclared_pools
    )
    active_leaves = _parse_active(active, tree, policy)
    for name in active_leaves:
        tree = get_or_create_leaf(tree, name)[0]
    steady, instantaneous = shares_with_active_leaves(tree, capacity, active_leaves)
    warn(configuration_findings(site_config, config))
    if wants_json(output, as_json):
        busy = active_queues(tree, placeholder_apps(active_leaves))
        rows = {
            node.name: {
                "type": "leaf" if node.is_leaf else "parent",
                "active": node.name in busy,
                "steady-fair-share": types.as_dict(steady[node.name]),
                "fair-share": types.as_dict(instantaneous.queues[node.name]),
                "min-share": types.as_dict(node.settings.min_share),
                "max-share": types.as_dict(node.settings.effective_max_share(capacity)),
                "weight": float32_decimal(node.settings.weight),
                "policy": node.settings.policy.value,
            }
            for node in tree.tree_view()
        }
        sys.stdout.write(json_text({"queues": rows}, indent=2) + "\n")
        return
    out.print(_shares_table(tree, capacity, steady, instantaneous.queues, active_leaves))


def _shares_table(
    tree: QueueTree,
    capacity: Resource,
    steady: Mapping[str, Resource],
    instantaneous: Mapping[str, Resource],
    active: Sequence[str],
) -> Table:
    types = tree.types
    plural = "s" if len(active) != 1 else ""
    table = FitTable(
        title=f"Fair shares of a {fmt.short(capacity, types)} cluster, "
        f"{len(active)} active leaf queue{plural} (*)",
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
        caption="% = share of the cluster's memory; custom resource types follow vcores",
        caption_justify="left",
    )
    table.add_column("Queue", no_wrap=True)
    table.add_column("Weight", justify="right", no_wrap=True)
    table.add_column("Policy", no_wrap=True)
    limits = limit_columns(tree)
    for column in limits:
        table.add_column(column)
    units = ["MB", "vc", *types.names[2:]]
    for kind in ("Steady", "Inst."):
        for unit in units:
            table.add_column(f"{kind}\n{unit}", justify="right", overflow="fold")
        table.add_column("\n%", justify="right", overflow="fold")
    for node in tree.tree_view():
        s = node.settings
        cells = {
            "Min share": fmt.short(s.min_share, types) if any(s.min_share.values) else "–",
            "Max share": fmt.short(s.effective_max_share(capacity), types),
        }
        numbers = []
        for share in (steady[node.name], instantaneous[node.name]):
            numbers += [fmt.amount(v) for v in share.values]
            numbers.append(fmt.percent(share.memory, capacity.memory))
        table.add_row(
            tree_label(node, " *" if node.name in active else ""),
            f"{s.weight:g}",
            s.policy.value,
            *(cells[c] for c in limits),
            *numbers,
        )
    return table

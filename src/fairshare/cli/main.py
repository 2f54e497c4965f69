"""The ``fairshare`` command: parses arguments, calls the library, prints with rich.

Bad input never produces a traceback: configuration problems are printed one per line as
``file:line: message`` on stderr and the exit code is 2.
"""

from __future__ import annotations

import io
import signal
import sys
from collections.abc import Mapping, Sequence
from importlib.metadata import version as package_version
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from fairshare.cli import format as fmt
from fairshare.cli.cluster import CLUSTER_HELP, cluster_option
from fairshare.cli.common import (
    CommandGroup,
    Format,
    FormatOpt,
    JsonOpt,
    err,
    fail,
    guarded,
    one_line,
    out,
    wants_json,
    warn,
)
from fairshare.cli.compare import compare_command
from fairshare.cli.explain import explain_command
from fairshare.cli.importer import import_command, workload_app
from fairshare.cli.lint import EXIT_ERRORS, all_findings, configuration_files, print_findings
from fairshare.cli.lint import lint as lint_command
from fairshare.cli.report import report_command
from fairshare.cli.run import run as run_command
from fairshare.cli.run import simulate as simulate_command
from fairshare.cli.sweep import sweep as sweep_command
from fairshare.cli.tables import FitTable
from fairshare.config.allocation import load_allocations
from fairshare.config.lint.checks import configuration_findings
from fairshare.config.model import AllocationConfig, PlacementPolicy, RuleName
from fairshare.config.placement.policy import generated_policy
from fairshare.config.yarnsite import SiteConfig, load_site
from fairshare.core import (
    QueueNode,
    QueueSettings,
    QueueTree,
    active_queues,
    build_queue_tree,
    get_or_create_leaf,
    placeholder_apps,
    shares_with_active_leaves,
)
from fairshare.resources.configurable import ConfigurableResource
from fairshare.resources.vector import (
    Resource,
    ResourceTypes,
    componentwise_max,
    float32_decimal,
)
from fairshare.sim.record.outputs import json_text

# Help in click's plain layout (rich_markup_mode=None): paragraphs are rewrapped to the
# terminal, flags show no "<bool>", and a pipe gets no box drawing or padding
app = typer.Typer(
    cls=CommandGroup,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
)
HADOOP_VERSION = "3.4"  # the release whose FairScheduler the engine reproduces
def _print_version(value: bool) -> None:
    if value:
        out.print(f"fairshare {package_version('fairshare')} (YARN Fair Scheduler semantics of "
                  f"Hadoop {HADOOP_VERSION})")
        raise typer.Exit()


@app.callback()
def _options(
    version: Annotated[
        bool,
        typer.Option("--version", help="Print the version and exit.", is_eager=True,
                     callback=_print_version),
    ] = False,
) -> None:
    """The YARN Fair Scheduler, rebuilt in Python: check configurations, compute shares, run
    scenarios, simulate workloads, tune preemption."""


def _load(allocations: Path, site: Path | None) -> tuple[SiteConfig, AllocationConfig, QueueTree]:
    site_config = guarded(lambda: load_site(site) if site else SiteConfig.default())
    config = guarded(lambda: load_allocations(allocations, site_config.resource_types))
    tree = build_queue_tree(config, site_config.resource_types)
    return site_config, config, tree


AllocationsArg = Annotated[
    Path, typer.Argument(help="The allocation file (fair-scheduler.xml).", show_default=False)
]
SiteOpt = Annotated[
    Path | None, typer.Option("--site", help="A yarn-site.xml (default: YARN's defaults).")
]


@app.command()
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
    site_config, config, tree = _load(allocations, site)
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
    limits = _limit_columns(tree)
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
            _tree_label(node),
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


def _limit_columns(tree: QueueTree) -> list[str]:
    """Min/max columns only when some queue sets one: keeps the summary on one screen."""
    columns = []
    if any(any(n.settings.min_share.values) for n in tree):
        columns.append("Min share")
    if any(n.settings.max_share is not None for n in tree):
        columns.append("Max share")
    return columns


def _tree_label(node: QueueNode, marker: str = "") -> str:
    depth = node.name.count(".")
    label = "  " * depth + node.name.rsplit(".", 1)[-1] if depth else node.name
    return label + ("" if node.is_leaf else "/") + marker


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


@app.command()
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
    site_config, config, tree = _load(allocations, site)
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
    limits = _limit_columns(tree)
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
            _tree_label(node, " *" if node.name in active else ""),
            f"{s.weight:g}",
            s.policy.value,
            *(cells[c] for c in limits),
            *numbers,
        )
    return table


app.command("run")(run_command)
app.command("simulate")(simulate_command)
app.command("sweep")(sweep_command)
app.command("compare")(compare_command)
app.command("explain")(explain_command)
app.command("report")(report_command)
app.command("lint")(lint_command)
app.command("import")(import_command)
app.add_typer(workload_app, name="workload")


EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


class _Interrupted(BaseException):
    """Ctrl-C. Not a KeyboardInterrupt, which click turns into "Aborted!" and exit 1 (the
    code of a failed expectation); it unwinds the run, whose staged outputs are dropped."""


def _interrupt(signum: int, frame: object) -> None:
    raise _Interrupted


def main() -> None:
    # Paths from the command line can hold bytes that are not UTF-8 (Python keeps them as lone
    # surrogates): print them escaped rather than fail while reporting a problem.
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    signal.signal(signal.SIGINT, _interrupt)
    try:
        app(prog_name="fairshare")
    except _Interrupted:
        err.print("interrupted: no output was written or changed")
        sys.exit(EXIT_INTERRUPTED)

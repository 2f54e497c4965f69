"""An allocation file on the command line, as ``fairshare validate`` and ``fairshare shares``
take it: the argument and ``--site`` option, loading it as the ResourceManager does, and the
queue column pieces their tables share."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from fairshare.cli.common import guarded
from fairshare.config.allocation import load_allocations
from fairshare.config.model import AllocationConfig
from fairshare.config.yarnsite import SiteConfig, load_site
from fairshare.core import QueueNode, QueueTree, build_queue_tree

AllocationsArg = Annotated[
    Path, typer.Argument(help="The allocation file (fair-scheduler.xml).", show_default=False)
]
SiteOpt = Annotated[
    Path | None, typer.Option("--site", help="A yarn-site.xml (default: YARN's defaults).")
]


def load(allocations: Path, site: Path | None) -> tuple[SiteConfig, AllocationConfig, QueueTree]:
    """The site (YARN's defaults without ``--site``), the allocation file and its queue tree;
    a configuration problem exits 2 (:func:`~fairshare.cli.common.guarded`)."""
    site_config = guarded(lambda: load_site(site) if site else SiteConfig.default())
    config = guarded(lambda: load_allocations(allocations, site_config.resource_types))
    tree = build_queue_tree(config, site_config.resource_types)
    return site_config, config, tree


def limit_columns(tree: QueueTree) -> list[str]:
    """Min/max columns only when some queue sets one: keeps the summary on one screen."""
    columns = []
    if any(any(n.settings.min_share.values) for n in tree):
        columns.append("Min share")
    if any(n.settings.max_share is not None for n in tree):
        columns.append("Max share")
    return columns


def tree_label(node: QueueNode, marker: str = "") -> str:
    """A queue's row label: its last name indented by depth, ``/`` after a parent."""
    depth = node.name.count(".")
    label = "  " * depth + node.name.rsplit(".", 1)[-1] if depth else node.name
    return label + ("" if node.is_leaf else "/") + marker

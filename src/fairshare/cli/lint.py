"""``fairshare lint``: what YARN will do with a configuration that it accepts.

Every finding (``config.lint``, and with ``--cluster`` ``workbench.lint``) is printed with its
severity, ``file:line``, what YARN will do and what to do. The exit code is 1 when a finding is
an error, 0 otherwise; a file YARN would refuse (or that cannot be read) exits 2 as everywhere.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from fairshare.cli.cluster import CLUSTER_HELP, cluster_option
from fairshare.cli.common import Format, FormatOpt, JsonOpt, fail, guarded, out, wants_json
from fairshare.config.allocation import load_allocations
from fairshare.config.lint.checks import configuration_findings, ordered
from fairshare.config.model import AllocationConfig, ConfigWarning
from fairshare.config.yarnsite import SiteConfig, load_site
from fairshare.core import build_queue_tree
from fairshare.workbench.lint import cluster_findings

EXIT_ERRORS = 1
_SEVERITIES = ("error", "warning", "info")


def lint(
    allocations: Annotated[
        Path, typer.Argument(help="The allocation file (fair-scheduler.xml), or a configuration "
                             "directory holding it (and yarn-site.xml).", show_default=False)
    ],
    site: Annotated[
        Path | None, typer.Option("--site", help="A yarn-site.xml (default: YARN's defaults).")
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option("--cluster", help=CLUSTER_HELP + " Adds the findings about min shares "
                     "against fair shares."),
    ] = None,
    output: FormatOpt = Format.TEXT,
    json_alias: JsonOpt = False,
) -> None:
    """Findings about a configuration YARN accepts: what will happen and what to do.

    Exit code 1 when a finding is an error, 2 when a file is unreadable or YARN would refuse it.
    """
    allocations, site = configuration_files(allocations, site)
    site_config = guarded(lambda: load_site(site) if site else SiteConfig.default())
    config = guarded(lambda: load_allocations(allocations, site_config.resource_types))
    findings = all_findings(site_config, config, cluster)
    if wants_json(output, json_alias):
        sys.stdout.write(json.dumps([as_json(f) for f in findings], indent=2) + "\n")
    else:
        print_findings(findings, out)
        out.print(summary(findings))
    if any(f.severity == "error" for f in findings):
        raise typer.Exit(EXIT_ERRORS)


def configuration_files(path: Path, site: Path | None) -> tuple[Path, Path | None]:
    """The allocation file and yarn-site file a command reads: ``path`` and ``site`` as given,
    or for a directory (a Hadoop configuration directory) the files in it: its yarn-site.xml
    unless ``site`` is given, and its fair-scheduler.xml — or the file that yarn-site's
    yarn.scheduler.fair.allocation.file names, relative to the directory as YARN looks a
    relative name up on its classpath. Exit 2 when the directory holds no allocation file."""
    if not path.is_dir():
        return path, site
    in_dir = path / "yarn-site.xml"
    if site is None and in_dir.is_file():
        site = in_dir
    named = guarded(lambda: load_site(site)).allocation_file if site else "fair-scheduler.xml"
    allocations = _local_file(path, named, site)
    if allocations.is_file():
        return allocations, site
    if site is None:
        raise fail([f"{path}: a directory with neither fair-scheduler.xml nor yarn-site.xml in "
                    "it: give the allocation file, or the directory that holds it"])
    why = ("" if named == "fair-scheduler.xml"
           else f", the file {site}'s yarn.scheduler.fair.allocation.file names")
    raise fail([f"{path}: no allocation file {allocations} in it{why}: give the allocation "
                "file itself"])


def _local_file(directory: Path, named: str, site: Path | None) -> Path:
    """``yarn.scheduler.fair.allocation.file`` as a local path: absolute as it is, relative in
    ``directory``; a file on another filesystem (hdfs:, s3a:…) cannot be read here."""
    scheme, colon, rest = named.partition(":")
    if colon and "/" not in scheme:
        if scheme.lower() != "file":
            raise fail([f"{site}: yarn.scheduler.fair.allocation.file is {named}, not a local "
                        "file: give the allocation file itself"])
        named = rest
    candidate = Path(named)
    return candidate if candidate.is_absolute() else directory / candidate


def all_findings(site: SiteConfig, config: AllocationConfig,
                 cluster: str | None) -> list[ConfigWarning]:
    """The configuration's findings, and with a ``--cluster`` value those about its min shares
    on that cluster, in file and line order."""
    findings = configuration_findings(site, config)
    if cluster is None:
        return findings
    capacity = cluster_option(cluster, site.resource_types)
    tree = build_queue_tree(config, site.resource_types)
    return ordered([*findings, *cluster_findings(tree, site, capacity)], config.source)


def as_json(finding: ConfigWarning) -> dict[str, object]:
    return {"severity": finding.severity, "file": finding.file, "line": finding.line,
            "code": finding.code, "message": finding.message,
            "consequence": finding.consequence, "fix": finding.fix}


def print_findings(findings: Sequence[ConfigWarning], console: Console) -> None:
    """Each finding as ``file:line: severity: message [code]``, then what YARN will do and the
    fix, indented below it."""
    for finding in findings:
        where = ":".join(str(p) for p in (finding.file, finding.line) if p)
        head = f"{finding.severity}: {finding.message} [{finding.code}]"
        console.print(f"{where}: {head}" if where else head, soft_wrap=True,
                      style={"error": "red", "warning": "yellow"}.get(finding.severity))
        if finding.consequence:
            console.print(f"    in YARN: {finding.consequence}", soft_wrap=True)
        if finding.fix:
            console.print(f"    fix: {finding.fix}", soft_wrap=True)


def summary(findings: Sequence[ConfigWarning]) -> str:
    """``1 error, 2 warnings, 0 info`` or ``No findings.``"""
    if not findings:
        return "No findings."
    counts = {s: sum(1 for f in findings if f.severity == s) for s in _SEVERITIES}
    plural = {"error": "errors", "warning": "warnings", "info": "info"}
    return ", ".join(f"{n} {s if n == 1 else plural[s]}" for s, n in counts.items()) + "."

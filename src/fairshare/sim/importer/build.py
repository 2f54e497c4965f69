"""``fairshare import``: a dump folder in, a scenario folder out, all of it or nothing.

The files are written into a hidden staging folder, the scenario is loaded back from there
with its configuration (so what is written is known to run), and only then are they moved into
the output folder; any error leaves the output folder as it was.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from fairshare.config.allocation import load_allocations
from fairshare.config.errors import ConfigError
from fairshare.config.files import read_input
from fairshare.config.yarnsite import load_site
from fairshare.core import build_queue_tree
from fairshare.sim.importer.allocations import read_rebuilt, rebuild_allocations
from fairshare.sim.importer.arrivals import ARRIVALS, Arrivals, read_arrivals
from fairshare.sim.importer.containers import read_containers
from fairshare.sim.importer.dump import Amounts, Dump, DumpQueue, read_dump
from fairshare.sim.importer.limits import container_limits
from fairshare.sim.importer.placement import AppPlan, place_apps
from fairshare.sim.importer.scenario_text import Choices, scenario_text, site_unknown_note
from fairshare.sim.importer.selfcheck import ShareCheck, check_shares
from fairshare.sim.parse.scenario import load_scenario
from fairshare.sim.run.build import prepare_run

SCENARIO, ALLOCATIONS, SITE = "scenario.yaml", "fair-scheduler.xml", "yarn-site.xml"
MAX_CONFIG_BYTES = 16 * 1024**2


@dataclass
class Imported:
    """What an import wrote, and what the admin should know about it."""

    written: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    nodes: int = 0
    running_apps: int = 0
    waiting_apps: int = 0
    containers: int = 0
    exact_apps: int = 0  # running apps placed as containers/ lists them
    rebuilt_apps: int = 0  # running apps whose containers were rebuilt from their totals
    guesses: tuple[str, ...] = ()  # what the rebuilt allocation file guessed, by queue
    check: ShareCheck | None = None  # the fair shares against the dump's
    arrivals: Arrivals | None = None


def import_dump(folder: Path, outdir: Path, choices: Choices, *,
                allocations: Path | None = None, site: Path | None = None,
                arrivals: Path | None = None) -> Imported:
    """Read the dump in ``folder``, write the scenario into ``outdir`` (ConfigError: nothing
    is written)."""
    dump = read_dump(folder)
    files: dict[str, bytes] = {}
    site_config = load_site(site) if site is not None else None
    if site is not None:
        files[SITE] = read_input(site, str(site), MAX_CONFIG_BYTES)
        choices = replace(choices, site_file=SITE)
    types = site_config.resource_types if site_config else load_site(None).resource_types
    guesses: tuple[str, ...] = ()
    if allocations is not None:
        config = load_allocations(allocations, types)  # refused here, not when it runs
        files[ALLOCATIONS] = read_input(allocations, str(allocations), MAX_CONFIG_BYTES)
        choices = replace(choices, allocations_rebuilt=False)
    else:
        rebuilt = rebuild_allocations(dump.root, dump.cluster, str(folder))
        files[ALLOCATIONS], guesses = rebuilt.text.encode("utf-8"), rebuilt.guesses
        config = read_rebuilt(rebuilt, dump.root, str(folder / "scheduler.json"), types)
    more = None
    if arrivals is not None:
        more = read_arrivals(arrivals, {app.id for app in dump.apps})
        files[ARRIVALS] = more.csv_text.encode("utf-8")
        choices = replace(choices, arrivals_file=ARRIVALS)
    listed = read_containers(folder, dump)
    placement = place_apps(dump, str(folder), listed.placed,
                           container_limits(dump, site_config,
                                            config if allocations is not None else None))
    plans = placement.plans
    files[SCENARIO] = scenario_text(dump, plans, choices).encode("utf-8")
    result = _summary(dump, plans)
    result.guesses, result.arrivals = guesses, more
    result.check = check_shares(dump, config, types)
    result.notes = listed.notes + placement.notes + _notes(dump, plans, site is None) + list(
        more.notes if more else ())
    result.written, problems = write_all(outdir, files)
    result.notes += [f"{problem}: its apps will be rejected" for problem in problems]
    return result


def _summary(dump: Dump, plans: Sequence[AppPlan]) -> Imported:
    running = [p for p in plans if p.running]
    exact = sum(p.exact for p in running)
    return Imported(nodes=len(dump.nodes), running_apps=len(running),
                    waiting_apps=len(plans) - len(running),
                    containers=sum(len(p.running) for p in running),
                    exact_apps=exact, rebuilt_apps=len(running) - exact)


def _notes(dump: Dump, plans: Sequence[AppPlan], no_site: bool) -> list[str]:
    notes = []
    if no_site:
        notes.append(" ".join(site_unknown_note()))
    if dump.apps and all(a.asks is None for a in dump.apps):
        notes.append("no app in apps.json carries resourceRequests (Hadoop 2's REST API, or "
                     "a caller without access to the apps): the running apps' outstanding "
                     "asks are unknown, so they ask for nothing more")
    used = _usage_by_queue(plans)
    for queue in _queues(dump.root):
        if queue.used != used.get(queue.name, (0, 0)):
            got = used.get(queue.name, (0, 0))
            notes.append(f"queue {queue.name}: scheduler.json says {queue.used[0]:,} MB and "
                         f"{queue.used[1]} vcores used, its running containers hold "
                         f"{got[0]:,} MB and {got[1]} vcores (files saved at different "
                         "moments?): the scenario starts from the containers'")
    known = {q.name for q in _queues(dump.root)}
    for plan in plans:
        if plan.app.queue not in known:
            notes.append(f"app {plan.app.id}: its queue {plan.app.queue} is not in "
                         "scheduler.json; placement decides where it goes")
    return notes


def _queues(queue: DumpQueue) -> list[DumpQueue]:
    return [queue, *(q for child in queue.children for q in _queues(child))]


def _usage_by_queue(plans: Sequence[AppPlan]) -> dict[str, Amounts]:
    used: dict[str, Amounts] = {}
    for plan in plans:
        parts = plan.app.queue.split(".")
        for i in range(1, len(parts) + 1):
            name = ".".join(parts[:i])
            old = used.get(name, (0, 0))
            add = (sum(c.size[0] for c in plan.running), sum(c.size[1] for c in plan.running))
            used[name] = (old[0] + add[0], old[1] + add[1])
    return used


def write_all(outdir: Path, files: dict[str, bytes]) -> tuple[list[Path], list[str]]:
    """Write ``files`` into ``outdir`` only if all of them can be written and the scenario
    loads from them; other files already in ``outdir`` stay. Also returns the configured
    queues YARN could not create (their apps will be rejected)."""
    target = Path(os.path.abspath(outdir))
    if target.exists() and not target.is_dir():
        raise ConfigError("-o: exists and is not a directory", str(outdir))
    anchor = target if target.is_dir() else target.parent
    while not anchor.is_dir():
        anchor = anchor.parent
    stage = anchor / f".{target.name}.{os.getpid()}.import.partial"
    try:
        stage.mkdir()
        for name, data in files.items():
            (stage / name).write_bytes(data)
        prepared = prepare_run(load_scenario(stage / SCENARIO))  # it loads
        tree = build_queue_tree(prepared.allocations, prepared.site.resource_types)
        problems = [f"queue {name} cannot be created: {why}" for name, why in tree.not_created]
        target.mkdir(parents=True, exist_ok=True)
        for name in files:
            os.replace(stage / name, target / name)
    except OSError as e:
        raise ConfigError(f"cannot write the scenario: {e.strerror or e}", str(outdir)) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)
    return [outdir / name for name in files], problems

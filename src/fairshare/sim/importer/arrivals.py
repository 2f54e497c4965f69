"""Future arrivals for an imported scenario (``fairshare import --arrivals FILE``).

The imported scenario starts at the dump's moment (t = 0); arrivals are apps submitted after
it. ``FILE`` is either a CSV workload (docs/workloads.md, "CSV"), whose ``at-ms`` count from the
dump's moment, or an ``apps.json`` history saved from the RM's ``/ws/v1/cluster/apps``: that is
turned into apps as ``fairshare workload from-apps`` turns it (:mod:`.history`), shifted so that
its first app arrives at the dump's moment — the last hours replayed as the next ones.

A history saved on the same RM holds the apps running now too, under the ids the dump's apps
have. In the replay they are new submissions, so an arrival whose id is one of the dump's apps
(or another arrival's) is renamed ``<id>-next`` and the import says so. The arrivals are written
beside the scenario as a CSV (``arrivals.csv``), which the scenario's ``workload.csv`` names.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from fairshare.config.errors import ConfigError
from fairshare.sim.importer.history import history_of
from fairshare.sim.parse.specs import WorkloadApp
from fairshare.sim.sources import dump_csv, load_csv

ARRIVALS = "arrivals.csv"
RENAMED = "-next"


@dataclass(frozen=True)
class Arrivals:
    csv_text: str
    apps: int
    first_ms: int  # the earliest at-ms
    last_ms: int
    notes: tuple[str, ...]


def read_arrivals(path: Path, taken: Collection[str]) -> Arrivals:
    """The apps of ``path`` (a CSV workload or an apps.json history); a bad file is a located
    ConfigError."""
    notes: list[str] = []
    if path.suffix.lower() == ".json":
        history = history_of(path)
        apps: Sequence[WorkloadApp] = history.apps
        if history.left_out:
            notes.append(f"--arrivals: left out of {path} (as workload from-apps does): "
                         + ", ".join(history.left_out))
    else:
        apps = load_csv(path, str(path))
    if not apps:
        raise ConfigError("--arrivals: the file has no app to submit", str(path))
    renamed, clashes = _unique(apps, taken)
    if clashes:
        notes.append(f"--arrivals: {len(clashes)} app id{'s' if len(clashes) > 1 else ''} of "
                     f"{path} {'are' if len(clashes) > 1 else 'is'} also in the dump (a history "
                     "holds the apps running now): renamed with '-next' as new submissions, "
                     "e.g. " + clashes[0])
    times = [a.at_ms for a in renamed] or [0]
    return Arrivals(dump_csv(renamed), len(renamed), min(times), max(times), tuple(notes))


def _unique(apps: Sequence[WorkloadApp], taken: Collection[str]
            ) -> tuple[list[WorkloadApp], list[str]]:
    used = set(taken)
    out: list[WorkloadApp] = []
    clashes: list[str] = []
    for app in apps:
        new = app.id
        while new in used:
            new += RENAMED
        if new != app.id:
            clashes.append(f"{app.id} → {new}")
        used.add(new)
        out.append(app if new == app.id else replace(app, id=new))
    return out, clashes

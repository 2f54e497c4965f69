"""``fairshare watch fork``: a scenario that starts from the state the history recorded at a
moment, with the apps that really arrived after it as its workload (docs/watch.md, "Fork from
now").

One implementation of "a scenario from an RM's state": the newest checkpoint at or before the
moment (the raw answers of ``/ws/v1/cluster/scheduler``, ``/nodes`` and ``/apps`` the watcher
kept) is written as a dump folder and goes through ``fairshare import``
(:func:`fairshare.sim.importer.build.import_dump`: the nodes, the queues rebuilt or the
``--allocations`` given, the running apps recovered where they run, as YARN's work-preserving
recovery does in ``AbstractYarnScheduler.recoverContainersOnNode``). The arrivals are the apps
the history saw start after the checkpoint, made into a CSV workload exactly as ``fairshare
workload from-apps`` makes the RM's apps history into one
(:func:`fairshare.sim.importer.history.history_of_apps`: one task group per app, its tasks the
app's lifetime, as many as its memory·seconds), submitted at their recorded distance from the
checkpoint. The simulation is bounded to the same span (``run.until-ms``), so that it can be
compared with what the cluster did (:mod:`fairshare.watch.calibration`).

``--set`` overrides (the forms ``fairshare simulate`` takes, :mod:`fairshare.config.overrides`)
are written into the fork — ``alloc:`` ones into its ``fair-scheduler.xml``, ``site:`` ones as
the scenario's ``site`` map, which wins over ``site-file`` as ``--set`` would — after the
import's self-check has compared the unchanged configuration with the RM's shares; each is
checked as the file's own value would be, and named in the scenario's header. Everything is
written or nothing (:func:`fairshare.sim.importer.build.write_all`), and every problem is a
:class:`~fairshare.config.errors.ConfigError` naming the option or the checkpoint's answer.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from fairshare.config.allocation import allocation_text, parse_allocations_text
from fairshare.config.errors import ConfigError, ConfigErrors
from fairshare.config.overrides import Override, parse_override, site_overrides
from fairshare.config.yarnsite import SITE_KEY_PREFIXES, known_site_keys, load_site
from fairshare.report.units import duration
from fairshare.sim.importer.build import ALLOCATIONS, SCENARIO, Imported, import_dump, write_all
from fairshare.sim.importer.dump import APPS, NODES, SCHEDULER, Amounts, DumpApp, read_apps
from fairshare.sim.importer.history import DEFAULT_CONTAINER, history_of_apps, write_csv
from fairshare.sim.importer.jsonfile import JsonFile
from fairshare.sim.importer.placement import holds_containers
from fairshare.sim.importer.scenario_text import Choices, q
from fairshare.web.history.model import AppRecord, Preemption, QueueTally, Window

FORK = "fork.json"  # what the fork was made from, for the calibration
DUMP_FILES = (SCHEDULER, NODES, APPS)


class ForkHistory(Protocol):
    """What the fork and the calibration ask of the history
    (:class:`fairshare.web.history.store.History`)."""

    def last_time_ms(self) -> int | None: ...

    def checkpoint(self, at_ms: int) -> tuple[int, dict[str, str]] | None: ...

    def apps(self, window: Window, queue: str | None = None) -> list[AppRecord]: ...

    def tally(self, window: Window) -> list[QueueTally]: ...

    def preemptions(self, start_ms: int, end_ms: int, queue: str | None = None
                    ) -> list[Preemption]: ...


@dataclass(frozen=True)
class Forked:
    """What a fork wrote, and what the admin should know about it."""

    scenario: Path
    written: tuple[Path, ...]
    at_ms: int  # the moment asked for
    checkpoint_ms: int  # the recorded state it starts from (at or before at_ms): t = 0
    # the end of the span simulated and compared; None: nothing was recorded after the
    # checkpoint (a fork from now): no arrivals, the run goes until its apps end
    until_ms: int | None
    arrivals: int  # apps submitted after t = 0
    overrides: tuple[str, ...]
    imported: Imported
    notes: tuple[str, ...]


def utc(ms: int) -> str:
    """A Unix time in ms as the messages write it: ``2026-12-01 10:00 UTC`` (seconds and
    milliseconds shown when there are any)."""
    moment = datetime.fromtimestamp(ms // 1000, UTC)
    if ms % 1000:
        return moment.strftime("%Y-%m-%d %H:%M:%S") + f".{ms % 1000:03d} UTC"
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC" if moment.second else "%Y-%m-%d %H:%M UTC")


def fork(history: ForkHistory, at_ms: int, outdir: Path, *, allocations: Path | None = None,
         site: Path | None = None, overrides: Sequence[str] = (), until_ms: int | None = None,
         choices: Choices | None = None, container: Amounts = DEFAULT_CONTAINER,
         now_ms: int | None = None) -> Forked:
    """Write into ``outdir`` the scenario that starts from the history's state at ``at_ms``
    and runs the apps that arrived until ``until_ms`` (default: the last sample); ConfigError
    and nothing written on any problem. ``choices``: the import's (default: its CLI's, running
    tasks' remaining times uniform); ``container``: the size of an arrival's tasks when its
    containers are not known (``workload from-apps --container``)."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    if at_ms > now:
        raise ConfigError(f"{utc(at_ms)} is in the future (now is {utc(now)}): a fork starts "
                          "from a recorded state", "--at")
    parsed = tuple(parse_override(text) for text in overrides)
    found = history.checkpoint(at_ms)
    if found is None:
        raise ConfigError(_no_checkpoint(history, at_ms), "--at")
    checkpoint_ms, answers = found
    end = _until(history, checkpoint_ms, until_ms)
    label = f"checkpoint of {utc(checkpoint_ms)}"
    missing = [name for name in DUMP_FILES if name not in answers]
    if missing:
        raise ConfigError(f"the checkpoint lacks the answer{'s' if len(missing) > 1 else ''} "
                          f"{', '.join(missing)} (a history written by another fairshare?)",
                          label)
    state = read_apps(JsonFile(answers[APPS], f"{label}: {APPS}"))
    taken = {app.id for app in state}
    # what the fork's run must give an AM to: the apps waiting for theirs, then the arrivals
    waiting = sorted(a.id for a in state if a.state in ("RUNNING", "ACCEPTED")
                     and not holds_containers(a))
    came, notes = _arrivals(history, checkpoint_ms, end, taken) if end is not None else ([], [])
    with tempfile.TemporaryDirectory(prefix="fairshare-fork-") as tmp:
        folder = Path(tmp) / f"checkpoint-{checkpoint_ms}"
        folder.mkdir()
        for name in DUMP_FILES:
            (folder / name).write_text(answers[name], encoding="utf-8")
        arrivals, arrived_ids = _write_arrivals(came, checkpoint_ms, container, Path(tmp),
                                                notes)
        try:
            imported = import_dump(folder, Path(tmp) / "imported", _choices(choices),
                                   allocations=allocations, site=site, arrivals=arrivals)
        except ConfigError as e:
            raise _relocated(e, folder, label) from None
        # the files name the dump folder they came from: the checkpoint's, not a temporary one
        files = {path.name: path.read_bytes().replace(str(folder).encode(), folder.name.encode())
                 for path in imported.written}
    files = _with_overrides(files, parsed, site)
    files[SCENARIO] = _bounded(files[SCENARIO].decode("utf-8"), checkpoint_ms, end, at_ms,
                               parsed).encode("utf-8")
    arrived = imported.arrivals.apps if imported.arrivals else 0
    record = {"at-ms": at_ms, "checkpoint-ms": checkpoint_ms, "until-ms": end,
              "arrivals": arrived, "overrides": [o.text for o in parsed],
              "waiting-apps": waiting, "arrival-apps": arrived_ids}
    files[FORK] = (json.dumps(record, indent=2) + "\n").encode("utf-8")
    written, problems = write_all(outdir, files)
    notes += imported.notes + [f"{p}: its apps will be rejected" for p in problems]
    if checkpoint_ms < at_ms:
        notes.insert(0, f"the newest recorded state at or before {utc(at_ms)} is of "
                     f"{utc(checkpoint_ms)} ({duration(at_ms - checkpoint_ms)} before): "
                     "the fork starts there")
    return Forked(outdir / SCENARIO, tuple(written), at_ms, checkpoint_ms, end, arrived,
                  tuple(o.text for o in parsed), imported, tuple(notes))


@dataclass(frozen=True)
class ForkRecord:
    """``fork.json``: what the calibration needs to know of a fork."""

    checkpoint_ms: int
    until_ms: int | None
    started_apps: tuple[str, ...]  # the apps whose AM the run places: waiting at t = 0, arrivals


def read_fork(folder: Path) -> ForkRecord:
    """The ``fork.json`` of the fork written in ``folder``."""
    path = folder / FORK
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        until = record["until-ms"]
        return ForkRecord(int(record["checkpoint-ms"]), None if until is None else int(until),
                          tuple(map(str, (*record["waiting-apps"], *record["arrival-apps"]))))
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ConfigError(f"not a fork written by fairshare watch fork ({e})", str(path)) from None


def _choices(choices: Choices | None) -> Choices:
    # the import CLI's default: remaining times drawn uniformly (docs/import.md)
    return choices if choices is not None else Choices(remaining_dist="uniform")


def _no_checkpoint(history: ForkHistory, at_ms: int) -> str:
    first = _first_checkpoint(history, at_ms)
    if first is None:
        return (f"the history holds no state at or before {utc(at_ms)}, nor any after: the "
                "watcher has not kept a checkpoint yet")
    return (f"the history holds no state at or before {utc(at_ms)}; the first is of "
            f"{utc(first)}")


def _first_checkpoint(history: ForkHistory, after_ms: int) -> int | None:
    """The oldest checkpoint's time, knowing none is at or before ``after_ms``: a bisection on
    ``checkpoint`` (the API answers the newest at or before a time), ~40 questions at most."""
    last = history.last_time_ms()
    newest = history.checkpoint(max(last or after_ms, after_ms))
    if newest is None:
        return None
    low, high = after_ms, newest[0]  # none at or before low; one at high
    while high - low > 1:
        middle = (low + high) // 2
        found = history.checkpoint(middle)
        if found is None:
            low = middle
        else:
            high = found[0]
    return high


def _until(history: ForkHistory, checkpoint_ms: int, until_ms: int | None) -> int | None:
    last = history.last_time_ms()
    if last is None:
        raise ConfigError("the history holds no sample", "--until")
    if until_ms is None and last <= checkpoint_ms:
        return None  # forked from the last state: there is nothing after it to replay
    end = last if until_ms is None else until_ms
    if end > last:
        raise ConfigError(f"{utc(end)} is after the history's last sample ({utc(last)}): "
                          "only what was recorded can be compared", "--until")
    if end <= checkpoint_ms:
        raise ConfigError(f"{utc(end)} is not after the state the fork starts from "
                          f"({utc(checkpoint_ms)})", "--until")
    return end


def _arrivals(history: ForkHistory, checkpoint_ms: int, end_ms: int, taken: set[str]
              ) -> tuple[list[AppRecord], list[str]]:
    """The apps that started after the checkpoint and before ``end_ms``; an app the checkpoint's
    apps.json already lists (the watcher's and the RM's clocks differ) is state, not an
    arrival."""
    alive = history.apps(Window(checkpoint_ms, end_ms))
    came = sorted((a for a in alive if checkpoint_ms < a.started_ms < end_ms
                   and a.id not in taken), key=lambda a: (a.started_ms, a.id))
    unseen = [a.id for a in alive if a.started_ms <= checkpoint_ms and a.id not in taken
              and not 0 < a.finished_ms <= checkpoint_ms]
    notes = []
    if unseen:
        notes.append(f"{len(unseen)} app{'s' if len(unseen) > 1 else ''} started before the "
                     "checkpoint but not in its apps.json (left out): " + ", ".join(unseen))
    return came, notes


def as_dump_app(record: AppRecord) -> DumpApp:
    """An app of the history as the RM's ``AppInfo`` would have shown it at its last sample:
    what ``workload from-apps`` reads. Its lifetime is start to finish, or to the last sample
    that saw it (``elapsedTime`` of a running app); the history does not keep
    ``unmanagedApplication``, so every app is taken as managed."""
    end = record.finished_ms if record.finished_ms > 0 else record.last_seen_ms
    return DumpApp(
        id=record.id, user=record.user, queue=record.queue, state=record.state,
        started_ms=record.started_ms, finished_ms=record.finished_ms,
        allocated=record.allocated, running_containers=record.running_containers,
        am_host=None, am_container=None, unmanaged=False, asks=None, line=0,
        elapsed_ms=max(0, end - record.started_ms), memory_seconds=record.memory_seconds,
        vcore_seconds=record.vcore_seconds, name=record.name,
        final_status=record.final_status, launched_ms=record.launched_ms)


def _write_arrivals(came: Sequence[AppRecord], checkpoint_ms: int, container: Amounts,
                    folder: Path, notes: list[str]) -> tuple[Path | None, list[str]]:
    """The arrivals' CSV (None: no app to submit) and the ids it holds."""
    if not came:
        return None, []
    history = history_of_apps([as_dump_app(a) for a in came], "the history", container,
                              start_ms=came[0].started_ms - checkpoint_ms)
    if history.left_out:
        notes.append("arrivals left out (as workload from-apps leaves them out): "
                     + ", ".join(history.left_out))
    if not history.apps:
        return None, []
    path = folder / "arrivals.csv"
    write_csv(history, path)
    return path, [a.id for a in history.apps]


def _relocated(error: ConfigError, folder: Path, label: str) -> ConfigError:
    """The import's error, naming the checkpoint's answer instead of the temporary file."""
    def where(file: str | None) -> str | None:
        if file is None or not file.startswith(str(folder)):
            return file
        return f"{label}: {Path(file).name}"

    if isinstance(error, ConfigErrors):
        return ConfigErrors([ConfigError(e.message, where(e.file), e.line) for e in error.errors])
    return ConfigError(error.message, where(error.file), error.line)


def _with_overrides(files: Mapping[str, bytes], overrides: Sequence[Override],
                    site: Path | None) -> dict[str, bytes]:
    """``alloc:`` overrides written into the fork's allocation file, each checked as the
    file's own value would be; ``site:`` ones checked against the properties fairshare reads
    (they go into the scenario: :func:`_bounded`)."""
    out = dict(files)
    values, where = site_overrides(overrides, known_site_keys(), SITE_KEY_PREFIXES)
    types = load_site(site, values, override_locations=where).resource_types
    alloc = [o for o in overrides if o.scope == "alloc"]
    if alloc:
        text = files[ALLOCATIONS].decode("utf-8")
        parse_allocations_text(text, ALLOCATIONS, types, overrides=alloc)
        out[ALLOCATIONS] = allocation_text(text, None, alloc).encode("utf-8")
    return out


def _bounded(text: str, checkpoint_ms: int, end_ms: int | None, at_ms: int,
             overrides: Sequence[Override]) -> str:
    """The imported scenario, said to be a fork, bounded to the compared span, with the
    ``site:`` overrides as its ``site`` map."""
    header = [f"# Forked by fairshare watch fork from the state recorded at {utc(checkpoint_ms)}"
              f" (asked: {utc(at_ms)}); t = 0 is that moment.",
              f"# The workload: the apps that arrived until {utc(end_ms)} "
              f"(run.until-ms {end_ms - checkpoint_ms})." if end_ms is not None else
              "# Nothing was recorded after it: no arrivals; the run goes until its apps end.",
              *(f"# --set {o.text}" for o in overrides)]
    site = [o for o in overrides if o.scope == "site"]
    lines = text.splitlines()
    out = list(header)
    for line in lines:
        if line == "cluster:" and site:
            out.append("site:")
            out += [f"  {q(o.key)}: {q(o.value)}" for o in {o.key: o for o in site}.values()]
        out.append(line)
        if line == "run:" and end_ms is not None:
            out.append(f"  until-ms: {end_ms - checkpoint_ms}")
    if "run:" not in lines or "cluster:" not in lines:
        raise RuntimeError("the imported scenario lacks its cluster or run section")
    return "\n".join(out) + "\n"


__all__ = ["FORK", "ForkHistory", "ForkRecord", "Forked", "as_dump_app", "fork", "read_fork", "utc"]


"""``fairshare workload from-apps``: the RM's apps history as a CSV workload to replay.

``/ws/v1/cluster/apps`` lists the apps the RM remembers, finished ones included, with when
each started and finished, its queue and user, and the resources it was accounted
(``memorySeconds``, ``vcoreSeconds``); a running app also shows what it holds now. The
individual containers are not in it, so each app becomes one task group (docs/import.md):

* its tasks run the app's elapsed time (``elapsedTime``, or finish − start);
* each is of the app's container size: what it holds over its running containers when it
  runs, else ``container`` (an option, default YARN's minimum allocation);
* there are as many as give the app the memory·seconds the RM accounted to it, its AM's
  share taken out (at least one).

Apps are submitted at their start time, relative to the first one's, which is submitted at
``start_ms`` (0 by default: the start of a run, or of an imported scenario — the dump's
moment). Apps that never started,
ran no time or held nothing yet (waiting for their AM) are left out, and named.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from fairshare.config.errors import ConfigError
from fairshare.sim.importer.dump import Amounts, DumpApp, read_apps
from fairshare.sim.importer.jsonfile import JsonFile
from fairshare.sim.parse.specs import TaskSpec, WorkloadApp
from fairshare.sim.sources import dump_csv

DEFAULT_CONTAINER: Amounts = (1024, 1)  # yarn.scheduler.minimum-allocation-mb / -vcores
TASK_PRIORITY = 20


@dataclass
class History:
    apps: list[WorkloadApp] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)  # "app_… (why)"


def history_of(path: Path, container: Amounts = DEFAULT_CONTAINER,
               am: Amounts = DEFAULT_CONTAINER, start_ms: int = 0) -> History:
    """The apps of an ``apps.json`` as workload apps (ConfigError: located in the file)."""
    return history_of_apps(read_apps(JsonFile.read(path, str(path))), str(path), container, am,
                           start_ms)


def history_of_apps(apps: Iterable[DumpApp], source: str,
                    container: Amounts = DEFAULT_CONTAINER, am: Amounts = DEFAULT_CONTAINER,
                    start_ms: int = 0) -> History:
    """:func:`history_of` for apps already read (``fairshare watch fork`` has them from its
    history database, not from a file); ``source`` names where they came from."""
    history = History()
    dumped = sorted(apps, key=lambda a: (a.started_ms, a.id))
    started = [a for a in dumped if a.started_ms > 0]
    first = started[0].started_ms if started else 0
    for app in dumped:
        duration = _duration(app)
        why = ("never started" if app.started_ms <= 0 else "ran no time" if duration <= 0
               else "held nothing" if not app.memory_seconds and not any(app.allocated)
               else None)
        if why is not None:
            history.left_out.append(f"{app.id} ({why})")
            continue
        size = _container_size(app, container)
        am_size = None if app.unmanaged else am
        tasks = (TaskSpec(_task_count(app, duration, size, am_size),
                          {"memory-mb": size[0], "vcores": size[1]}, duration, TASK_PRIORITY),)
        history.apps.append(WorkloadApp(
            app.id, app.started_ms - first + start_ms, app.queue, app.user,
            None if am_size is None else {"memory-mb": am_size[0], "vcores": am_size[1]},
            tasks, app.line, source))
    return history


def _duration(app: DumpApp) -> int:
    if app.elapsed_ms > 0:
        return app.elapsed_ms
    if app.finished_ms > app.started_ms > 0:
        return app.finished_ms - app.started_ms
    return 0


def _container_size(app: DumpApp, default: Amounts) -> Amounts:
    """What a running app holds per container; else the default size."""
    n = app.running_containers
    if n > 0 and app.allocated[0] >= n:
        return app.allocated[0] // n, max(1, app.allocated[1] // n)
    return default


def _task_count(app: DumpApp, duration_ms: int, size: Amounts, am: Amounts | None) -> int:
    """Tasks of ``size`` running ``duration_ms`` that hold the app's memory·seconds, less
    what its AM held over the same time."""
    task_mb_ms = app.memory_seconds * 1000 - (am[0] * duration_ms if am else 0)
    return max(1, round(task_mb_ms / (duration_ms * size[0])))


def write_csv(history: History, out: Path) -> None:
    """The CSV, written whole or not at all (a temporary file renamed into place)."""
    if not history.apps:
        raise ConfigError("no app of the file ran: nothing to write", str(out))
    text = dump_csv(history.apps)
    draft = out.with_name(f".{out.name}.{os.getpid()}.partial")
    try:
        draft.write_text(text, encoding="utf-8", newline="\n")
        draft.replace(out)
    except OSError as e:
        raise ConfigError(f"cannot write: {e.strerror or e}", str(out)) from None
    finally:
        draft.unlink(missing_ok=True)

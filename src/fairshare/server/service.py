"""``fairshare serve`` put together: the configuration read, the engine and its loop, the
executor, the session's outputs, and the ASGI app (YARN's REST API, fairshare's extensions, the
AM protocol, the pages and ``/metrics``).

:func:`build` checks everything a user gives before anything starts (a :class:`ConfigError`
naming the option or the file and line); :class:`Served` starts, serves and stops it. The
allocation file is reloaded as YARN's ``AllocationFileLoaderService`` does: looked at every
10 s of the wall, reloaded once a change has settled, the last good file kept on error.
"""

from __future__ import annotations

import logging
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.errors import ConfigError
from fairshare.config.model import AllocationConfig
from fairshare.config.yarnsite import SiteConfig, load_site
from fairshare.core import Engine, Reload, ReloadFailed
from fairshare.resources.vector import ResourceTypes
from fairshare.server.authorize import UserGroups
from fairshare.server.executors.base import Executor
from fairshare.server.executors.virtual import VirtualExecutor
from fairshare.server.journal import Journal
from fairshare.server.loop import EngineLoop, NodeSpec, ServerClock
from fairshare.server.options import parse_nodes, read_nodes_file
from fairshare.server.store.codec import resource_of
from fairshare.server.store.store import StateStore, StateStoreError, StoredState
from fairshare.sim.record.outputs import EVENTS, SNAPSHOTS, SUMMARY, TIMELINE_CSV, TIMELINE_PARQUET

log = logging.getLogger("fairshare.serve")

RELOAD_INTERVAL_S = 10.0  # AllocationFileLoaderService.ALLOC_RELOAD_INTERVAL_MS
RELOAD_WAIT_S = 5.0  # ALLOC_RELOAD_WAIT_MS: a file modified this recently is not read yet
EXECUTORS = ("virtual", "local", "ray")
JOURNAL = "session.yaml"
STORE = "state.db"  # the default store, in the session's directory
# a session's run outputs: a restart moves those of the epoch before into epoch-NN/
SESSION_FILES = (JOURNAL, EVENTS, TIMELINE_PARQUET, TIMELINE_CSV, SUMMARY, SNAPSHOTS)


@dataclass(frozen=True)
class ServeOptions:
    allocations: Path
    site: Path | None = None
    nodes: str | None = None  # None: 4x16g/8 (or, at a restart, the stored nodes)
    nodes_file: Path | None = None
    executor: str = "virtual"
    ray_address: str | None = None
    speed: float = 1.0
    out: Path = Path("fairshare-serve")
    cluster_timestamp: int | None = None  # None: the wall clock at start, as YARN's
    db: str | None = None  # the pages' history; None: history.db in the session's directory
    pages_interval_ms: int = 5_000  # of the server's clock: the pages' and history's resolution
    # the state store: a path (SQLite) or a database URL; None: <out>/state.db when the site
    # sets yarn.resourcemanager.recovery.enabled, else no store (YARN's default)
    store: str | None = None


@dataclass
class Served:
    """A built server: start it, serve ``app`` with uvicorn, stop it."""

    options: ServeOptions
    site: SiteConfig
    engine: Engine
    loop: EngineLoop
    journal: Journal
    allocations_text: str
    store: StateStore | None = None
    recovered: StoredState | None = None  # what a restart read back (None: a fresh start)
    _stop: threading.Event = field(default_factory=threading.Event)
    _reloader: threading.Thread | None = None
    app: Any = None  # the ASGI app, built by start()
    extra_stops: list[Callable[[], None]] = field(default_factory=list)
    _pages: Any = None

    def start(self, base_url: str, auth: Any = None) -> None:
        """Start the engine, the AM protocol, the pages' sampler and the reloader; ``app`` is
        then the ASGI app to serve at ``base_url``, its callers authenticated by ``auth`` (an
        ``auth.Authenticator``; None: simple authentication)."""
        from fairshare.server.am import AMHub
        from fairshare.server.am_routes import am_router
        from fairshare.server.app import create_server_app
        from fairshare.server.pages import ServePages, serve_pages_app
        from fairshare.web.history.store import History

        out = self.options.out
        hub = AMHub(self.loop, self.loop.executor, types=self.engine.types,
                    maximum_allocation=self.site.maximum_allocation, base_url=base_url,
                    work_root=out / "containers", log_root=out / "containers",
                    grace_ms=self.loop.grace_ms,
                    # the AM tokens' key is the store's: an AM's token outlives a restart
                    master_key=None if self.store is None else self.store.master_key())
        self.loop.attach_hub(hub)
        db = self.options.db or str(out / "history.db")
        history = History.open(db, poll_interval_ms=self.options.pages_interval_ms)
        self.extra_stops.append(history.close)
        pages = ServePages(self.loop, history, self.engine.allocations, self.site,
                           self.options.pages_interval_ms, rm_url=base_url,
                           explain=lambda app_id: self.loop.explain_json(app_id, "app"))
        self._pages = pages
        self.loop.start()
        hub.start()
        thread, stop = pages.start()

        def stop_pages() -> None:
            stop.set()
            thread.join(timeout=10)

        self.extra_stops.insert(0, stop_pages)
        self.app = create_server_app(self.loop, am_router=am_router(hub),
                                     pages=serve_pages_app(pages), auth=auth)
        self._reloader = threading.Thread(target=self._reload_loop, name="fairshare-reload",
                                          daemon=True)
        self._reloader.start()

    def stop(self) -> None:
        """Stop the reloader and the pages' sampler, the engine thread and every container
        (by process id), then close the session's files."""
        self._stop.set()
        stops, self.extra_stops = self.extra_stops, []
        for stop in stops[:1]:  # the sampler first: it reads the engine's snapshots
            stop()
        self.loop.stop()
        for stop in stops[1:]:
            stop()
        self.journal.close()
        if self.store is not None:
            self.store.close()

    # -- AllocationFileLoaderService ----------------------------------------------------------

    def _reload_loop(self) -> None:
        path = self.options.allocations
        seen = _mtime(path)
        while not self._stop.wait(RELOAD_INTERVAL_S):
            modified = _mtime(path)
            if modified == seen or modified is None or time.time() - modified < RELOAD_WAIT_S:
                continue  # (YARN waits for a change to settle before reading it)
            seen = modified
            self.reload_now()

    def reload_now(self) -> bool:
        """Read the allocation file now: a good one is applied, a broken one is YARN's failed
        reload (the last good one kept, the error logged and in the events)."""
        path = self.options.allocations
        text: str | None = None
        try:
            text = path.read_text(encoding="utf-8")
            reload = Reload.of_text(text, str(path), self.site.resource_types)
        except (OSError, UnicodeDecodeError, ConfigError) as e:
            message = str(e)
            log.warning("allocation file not reloaded, the last good one is kept: %s", message)
            self.loop.command(ReloadFailed(str(path), message, text))
            return False
        self.loop.command(reload)
        self.allocations_text = text
        if self._pages is not None:
            self._pages.configure(reload.allocations, self.site)
        log.info("allocation file reloaded: %s", path)
        return True


def _mtime(path: Path) -> float | None:
    try:
        return path.stat().st_mtime
    except OSError:
        return None


def build(options: ServeOptions, *, clock: ServerClock | None = None) -> Served:
    """Everything checked and built, nothing started (the outputs directory is created)."""
    if options.executor not in EXECUTORS:
        raise ConfigError(f"expected one of {', '.join(EXECUTORS)}, got {options.executor!r}",
                          "--executor")
    if options.speed != 1.0 and options.executor != "virtual":
        raise ConfigError("only the virtual executor's clock can run faster than the wall "
                          "(real processes take real time)", "--speed")
    if options.executor == "ray" and (options.nodes is not None
                                      or options.nodes_file is not None):
        raise ConfigError("the Ray executor's NodeManagers are the Ray cluster's nodes",
                          "--nodes-file" if options.nodes_file is not None else "--nodes")
    if options.executor != "ray" and options.ray_address is not None:
        raise ConfigError("only the Ray executor connects to a Ray cluster (--executor ray)",
                          "--ray-address")
    if not 0 < options.speed <= 10_000:
        raise ConfigError("expected a speed above 0 and at most 10000", "--speed")
    site = load_site(options.site)
    types = site.resource_types
    allocations_text, config = _allocations(options.allocations, site)
    grace_ms = max(0, site.nm_sigkill_delay_ms)  # 0 or less: SIGKILL at once
    executor = _executor(options, types, grace_ms)
    nodes = _nodes(options, executor, types)
    cluster_timestamp = options.cluster_timestamp or int(time.time() * 1000)
    out = options.out
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise ConfigError(f"cannot create the session's directory: {e.strerror}",
                          "--out") from None
    store = _open_store(options, site)
    state: StoredState | None = None
    if store is not None:
        try:
            nodes = _stored_nodes(store, options, executor, types, nodes)
            state = store.start()
        except BaseException:
            store.close()
            raise
        if state.apps or state.containers:
            _keep_outputs(out, state.epoch - 1)
    # the groups YARN's RM reads (Groups: static overrides, then the system's), for placement
    # (primaryGroup rules) and the ACL checks alike
    engine = Engine(site, config, groups=UserGroups(dict(site.static_groups)))
    journal = Journal(out / JOURNAL, types, allocations_text, options.site)
    loop = EngineLoop(engine, executor, nodes, cluster_timestamp=cluster_timestamp,
                      clock=clock or ServerClock(options.speed), work_dir=out / "containers",
                      heartbeat_ms=site.nm_heartbeat_interval_ms, journal=journal,
                      outputs=out, grace_ms=grace_ms, store=store)
    if state is not None:
        loop.recover(state, site.scheduling_wait_ms)
    return Served(options, site, engine, loop, journal, allocations_text, store=store,
                  recovered=state if state is not None and not state.empty else None)


def _open_store(options: ServeOptions, site: SiteConfig) -> StateStore | None:
    url = options.store
    if url is None and site.recovery_enabled:
        url = str(options.out / STORE)
    if url is None:
        return None
    if not site.work_preserving_recovery:
        raise ConfigError("yarn.resourcemanager.work-preserving-recovery.enabled=false: "
                          "fairshare serve recovers work-preserving only (running containers "
                          "are taken over, not killed)", "--site")
    try:
        return StateStore(url, max_completed=site.state_store_max_completed_apps)
    except (ValueError, StateStoreError) as e:  # a malformed URL; a store that cannot open
        raise ConfigError(str(e), "--store") from None


def _stored_nodes(store: StateStore, options: ServeOptions, executor: Executor,
                  types: ResourceTypes, given: list[NodeSpec]) -> list[NodeSpec]:
    """The NodeManagers a restart comes back with: the store's (the virtual and local
    executors' nodes are fairshare's own), unless it has none. ``--nodes`` or ``--nodes-file``
    that say otherwise are refused: the recovered containers run on the stored nodes."""
    if executor.kind == "ray":
        return given
    records = store.nodes()
    if not records:
        return given
    stored = [NodeSpec(r["id"], resource_of(r["capacity"], types), r["rack"]) for r in records]
    explicit = options.nodes is not None or options.nodes_file is not None
    if explicit and [(n.id, n.capacity, n.rack) for n in given] != [
            (n.id, n.capacity, n.rack) for n in stored]:
        raise ConfigError(f"the state store holds this cluster's {len(stored)} nodes, which "
                          "its containers run on; give the same nodes, or leave the option "
                          "out", "--nodes-file" if options.nodes_file is not None
                          else "--nodes")
    return stored


def _keep_outputs(out: Path, epoch: int) -> None:
    """A restart's session starts new outputs; the epoch before's go to ``epoch-NN/``."""
    kept = out / f"epoch-{epoch:02d}"
    for name in SESSION_FILES:
        path = out / name
        if path.exists():
            kept.mkdir(exist_ok=True)
            shutil.move(str(path), str(kept / name))


def _allocations(path: Path, site: SiteConfig) -> tuple[str, AllocationConfig]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError("no such file", str(path)) from None
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"cannot read the allocation file: {e}", str(path)) from None
    return text, parse_allocations_text(text, str(path), site.resource_types)


def _executor(options: ServeOptions, types: ResourceTypes, grace_ms: int) -> Executor:
    if options.executor == "virtual":
        return VirtualExecutor()
    if options.executor == "local":
        from fairshare.server.executors.local import LocalExecutor

        return LocalExecutor(grace_ms=grace_ms)
    try:
        from fairshare.server.executors.ray import RayExecutor
    except ImportError as e:
        raise ConfigError(f"the ray executor needs Ray: pip install 'fairshare[ray]' ({e})",
                          "--executor") from None
    # the site's resource types: Ray's custom resources map onto them (GPU → yarn.io/gpu)
    return RayExecutor(options.ray_address, types=types, sigkill_delay_ms=grace_ms)


def _nodes(options: ServeOptions, executor: Executor, types: Any) -> list[NodeSpec]:
    try:
        brought = executor.nodes()
    except (ConnectionError, RuntimeError, TimeoutError) as e:  # ray.init could not connect
        raise ConfigError(f"cannot reach the Ray cluster: {e}", "--ray-address") from None
    if brought is not None:
        return [NodeSpec(n.id, n.capacity, n.rack) for n in brought]
    if options.nodes_file is not None:
        return read_nodes_file(options.nodes_file, types)
    return parse_nodes(options.nodes or "4x16g/8", types)

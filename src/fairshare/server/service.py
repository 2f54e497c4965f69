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
from fairshare.server.executors.base import Executor
from fairshare.server.executors.virtual import VirtualExecutor
from fairshare.server.journal import Journal
from fairshare.server.loop import EngineLoop, NodeSpec, ServerClock
from fairshare.server.options import parse_nodes, read_nodes_file

log = logging.getLogger("fairshare.serve")

RELOAD_INTERVAL_S = 10.0  # AllocationFileLoaderService.ALLOC_RELOAD_INTERVAL_MS
RELOAD_WAIT_S = 5.0  # ALLOC_RELOAD_WAIT_MS: a file modified this recently is not read yet
EXECUTORS = ("virtual", "local", "ray")


@dataclass(frozen=True)
class ServeOptions:
    allocations: Path
    site: Path | None = None
    nodes: str | None = "4x16g/8"
    nodes_file: Path | None = None
    executor: str = "virtual"
    ray_address: str | None = None
    speed: float = 1.0
    out: Path = Path("fairshare-serve")
    cluster_timestamp: int | None = None  # None: the wall clock at start, as YARN's
    db: str | None = None  # the pages' history; None: history.db in the session's directory
    pages_interval_ms: int = 5_000  # of the server's clock: the pages' and history's resolution


@dataclass
class Served:
    """A built server: start it, serve ``app`` with uvicorn, stop it."""

    options: ServeOptions
    site: SiteConfig
    engine: Engine
    loop: EngineLoop
    journal: Journal
    allocations_text: str
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
                    grace_ms=self.loop.grace_ms)
        self.loop.hub = hub
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
    engine = Engine(site, config)
    journal = Journal(out / "session.yaml", types, allocations_text, options.site)
    loop = EngineLoop(engine, executor, nodes, cluster_timestamp=cluster_timestamp,
                      clock=clock or ServerClock(options.speed), work_dir=out / "containers",
                      heartbeat_ms=site.nm_heartbeat_interval_ms, journal=journal,
                      outputs=out, grace_ms=grace_ms)
    return Served(options, site, engine, loop, journal, allocations_text)


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

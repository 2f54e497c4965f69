"""``fairshare serve``: the engine as a live ResourceManager (docs/serve.md).

Everything given is checked before anything starts (exit 2, the option or file:line named, no
output written); the address is bound before the engine starts, so a port in use starts
nothing. Ctrl-C or SIGTERM stop it gracefully: requests in flight are answered, every
container is stopped (by process id), the session's journal and outputs are closed; exit 0.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import signal
import sys
import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from fairshare.cli.common import bind_listening, err, fail, guarded, out
from fairshare.watch.options import listen_address

DEFAULT_LISTEN = "127.0.0.1:8088"  # the RM's own default web address port


class LogFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


class _JsonLines(logging.Formatter):
    """One JSON object per log record: time (epoch ms), level, logger, message."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {"time": int(record.created * 1000), "level": record.levelname,
                                 "logger": record.name, "message": record.getMessage()}
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry)


def is_loopback(host: str) -> bool:
    """A loopback address (127.0.0.0/8, ::1) or ``localhost``."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # another host name: it may resolve to anything


def _logging(fmt: LogFormat, level: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonLines() if fmt is LogFormat.JSON else logging.Formatter(
        "%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("fairshare")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False


def serve(
    allocations: Annotated[Path, typer.Argument(
        metavar="FAIR_SCHEDULER_XML", help="The allocation file (fair-scheduler.xml); "
        "reloaded when it changes, as YARN does (a broken edit keeps the last good one).",
        show_default=False)],
    site: Annotated[Path | None, typer.Option(
        "--site", help="yarn-site.xml: preemption, intervals, resource types, "
        "allocation limits.")] = None,
    nodes: Annotated[str | None, typer.Option(
        "--nodes", help="The NodeManagers: COUNTxMEMORY/VCORES, e.g. 4x16g/8 (memory in MB or "
        "with m/g/t), comma-separated for several sizes. Default 4x16g/8.")] = None,
    nodes_file: Annotated[Path | None, typer.Option(
        "--nodes-file", help="A YAML file with a scenario's 'cluster: nodes:' list (names, "
        "racks, custom resource types).")] = None,
    executor: Annotated[str, typer.Option(
        "--executor", help="Where containers run: virtual (simulated NodeManagers; an app's "
        "containers last what its submission declares), local (processes on this machine), "
        "ray (a Ray cluster's nodes).")] = "virtual",
    ray_address: Annotated[str | None, typer.Option(
        "--ray-address", help="With --executor ray: ray://HOST:PORT or auto (default: a "
        "local Ray started for the server).")] = None,
    speed: Annotated[float, typer.Option(
        "--speed", help="Run the clock this many times faster than the wall (virtual "
        "executor only).")] = 1.0,
    listen: Annotated[str, typer.Option(
        "--listen", help="Where the REST API, the pages and /metrics are served "
        "(HOST:PORT; port 0 picks a free one).")] = DEFAULT_LISTEN,
    out_dir: Annotated[Path, typer.Option(
        "--out", help="The session's directory: its journal (session.yaml, replayed by "
        "fairshare run), containers' work dirs and logs.")] = Path("fairshare-serve"),
    insecure: Annotated[bool, typer.Option(
        "--insecure", help="Serve on an address other than loopback although simple "
        "authentication (?user.name=) trusts whoever asks.")] = False,
    log_format: Annotated[LogFormat, typer.Option(
        "--log-format", help="Logs on stderr as text or as JSON lines.")] = LogFormat.TEXT,
    log_level: Annotated[str, typer.Option(
        "--log-level", help="debug, info, warning or error.")] = "info",
) -> None:
    """Run the Fair Scheduler as a live ResourceManager: YARN's REST API, containers on
    simulated nodes, local processes or Ray, preemption, the pages and /metrics."""
    import uvicorn

    from fairshare.server.service import ServeOptions, build

    if log_level.lower() not in ("debug", "info", "warning", "error"):
        raise fail([f"--log-level: expected debug, info, warning or error, got {log_level!r}"])
    if nodes is not None and nodes_file is not None:
        raise fail(["--nodes-file: give --nodes or --nodes-file, not both"])
    host, port = guarded(lambda: listen_address(listen))
    if not insecure and not is_loopback(host):
        # YARN's simple authentication (PseudoAuthenticationHandler) takes ?user.name= on
        # trust: off loopback anyone could act as anyone
        raise fail([f"--listen: {host} is not a loopback address, and simple authentication "
                    "(?user.name=, else dr.who) lets whoever can reach it act as any user; "
                    "listen on 127.0.0.1, or give --insecure if that is meant"])
    options = ServeOptions(allocations, site, nodes, nodes_file, executor, ray_address, speed,
                           out_dir)
    listening = bind_listening(host, port)
    served = guarded(lambda: build(options))
    _logging(log_format, log_level)
    if not is_loopback(host):
        logging.getLogger("fairshare.serve").warning(
            "--insecure: serving on %s with simple authentication, which authenticates no "
            "one: any caller can act as any user", host)
    bound = listening.getsockname()[1]
    guarded(lambda: served.start(f"http://{host}:{bound}"))
    server = uvicorn.Server(uvicorn.Config(served.app, host=host, port=bound,
                                           log_level="warning",
                                           access_log=False))
    n = len(served.engine.state.nodes)
    out.print(f"Serving {allocations} on http://{host}:{bound}/ (REST /ws/v1/cluster, pages "
              f"/, /metrics): {n} node{'s' * (n != 1)}, executor {executor}"
              f"{f', {speed:g}x' if speed != 1 else ''}; session in {out_dir} "
              "(Ctrl-C stops)", soft_wrap=True)
    # the engine thread, the request threads and the event loop share one GIL: handed over
    # every 1 ms instead of 5, a request waits less behind the engine's heartbeats and
    # snapshots (bench/serve_load.py: p99 of the reads 1.0 s → 0.6 s at 5,000 nodes)
    sys.setswitchinterval(0.001)
    quiet = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}
    started = time.monotonic()
    try:
        server.run(sockets=[listening])
    finally:
        for sig, handler in quiet.items():
            signal.signal(sig, handler)
        served.stop()
        apps = len(served.loop.records.apps)
        out.print(f"Stopped after {time.monotonic() - started:.0f} s: {apps} "
                  f"app{'s' * (apps != 1)}; journal {out_dir / 'session.yaml'}", soft_wrap=True)
    if served.loop.failure is not None:
        err.print(f"the engine stopped on an error: {served.loop.failure}")
        raise typer.Exit(70)


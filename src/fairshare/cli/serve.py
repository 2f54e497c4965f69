"""``fairshare serve``: the engine as a live ResourceManager (docs/serve.md).

Everything given is checked before anything starts (exit 2, the option or file:line named, no
output written): the users file, the TLS certificate and key (loaded as uvicorn will load
them), and whether the address may be served with the authentication asked for — off loopback
only with ``basic`` or ``token`` over TLS, or with ``--insecure`` (docs/serve.md "Security:
authentication and TLS"). The address is bound before the engine starts, so a port in use
starts nothing. Ctrl-C or SIGTERM stop it gracefully: requests in flight are answered, every
container is stopped (by process id), the session's journal and outputs are closed; exit 0.
"""

from __future__ import annotations

import ctypes
import ipaddress
import json
import logging
import signal
import ssl
import sys
import threading
import time
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from fairshare.cli.common import bind_listening, err, fail, guarded, out
from fairshare.config.files import file_problem
from fairshare.watch.options import listen_address

DEFAULT_LISTEN = "127.0.0.1:8088"  # the RM's own default web address port


class LogFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


class AuthScheme(StrEnum):
    PSEUDO = "pseudo"
    BASIC = "basic"
    TOKEN = "token"


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


class _Encrypted(Exception):
    """The key asks for a password (OpenSSL would prompt for it on the terminal)."""


def _no_password() -> str:
    raise _Encrypted


def check_tls(cert: Path | None, key: Path | None) -> bool:
    """Whether TLS is asked for; the certificate and key loaded as uvicorn will load them
    (``SSLContext.load_cert_chain``), any problem exit 2 naming the option."""
    if cert is None:
        if key is not None:
            raise fail(["--tls-key: give the certificate it is the key of, --tls-cert"])
        return False
    for option, path in (("--tls-cert", cert), ("--tls-key", key)):
        problem = None if path is None else file_problem(path)
        if problem is not None:
            raise fail([f"{option}: {path}: {problem.reason}"])
    try:
        ssl.create_default_context().load_verify_locations(cafile=str(cert))
    except (ssl.SSLError, OSError, ValueError):
        raise fail([f"--tls-cert: {cert}: not a PEM certificate (-----BEGIN CERTIFICATE-----)"
                    ]) from None
    keyed = "--tls-key" if key is not None else "--tls-cert"
    try:
        ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER).load_cert_chain(cert, key, _no_password)
    except _Encrypted:
        raise fail([f"{keyed}: the private key is encrypted; give an unencrypted key (the "
                    "server cannot ask for its password)"]) from None
    except ssl.SSLError as e:
        if e.reason == "KEY_VALUES_MISMATCH":
            raise fail([f"{keyed}: {key or cert}: the private key does not match the "
                        f"certificate of --tls-cert {cert}"]) from None
        if key is None:
            raise fail([f"--tls-cert: {cert} holds no private key: give it as --tls-key"]
                       ) from None
        raise fail([f"--tls-key: {key}: not a PEM private key"]) from None
    except OSError as e:
        raise fail([f"{keyed}: {key or cert}: {e.strerror or e}"]) from None
    return True


def check_exposure(host: str, scheme: AuthScheme, tls: bool, insecure: bool) -> str | None:
    """Whether ``host`` may be served with ``scheme`` (exit 2 if not); the warning to log when
    it is served only because of ``--insecure``."""
    if is_loopback(host):
        return None
    if scheme is AuthScheme.PSEUDO:
        if not insecure:
            # YARN's simple authentication (PseudoAuthenticationHandler) takes ?user.name= on
            # trust: off loopback anyone could act as anyone
            raise fail([f"--listen: {host} is not a loopback address, and simple "
                        "authentication (?user.name=, else dr.who) lets whoever can reach it "
                        "act as any user; listen on 127.0.0.1, use --auth basic or token with "
                        "--tls-cert, or give --insecure if that is meant"])
        return (f"--insecure: serving on {host} with simple authentication, which "
                "authenticates no one: any caller can act as any user")
    if tls:
        return None
    what = "passwords" if scheme is AuthScheme.BASIC else "tokens"
    if not insecure:
        raise fail([f"--listen: {host} is not a loopback address, and without TLS the "
                    f"{what} of {scheme} authentication would cross the network in clear; "
                    "give --tls-cert and --tls-key, or --insecure if that is meant"])
    return (f"--insecure: serving on {host} without TLS: the {what} of {scheme} "
            "authentication cross the network in clear")


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
    store: Annotated[str | None, typer.Option(
        "--store", help="The state store a restart recovers from: a path (SQLite) or a "
        "database URL (postgresql://…). Default: none, or state.db in --out when the site "
        "sets yarn.resourcemanager.recovery.enabled.")] = None,
    auth: Annotated[AuthScheme, typer.Option(
        "--auth", help="How callers are authenticated: pseudo (YARN's simple "
        "authentication: ?user.name=, trusted), basic (HTTP Basic against --users' password "
        "hashes) or token (Authorization: Bearer, against --users' token digests).")
    ] = AuthScheme.PSEUDO,
    users: Annotated[Path | None, typer.Option(
        "--users", help="The users file (YAML; made with fairshare serve-users): password "
        "hashes, token digests, groups. Needed by basic and token.")] = None,
    tls_cert: Annotated[Path | None, typer.Option(
        "--tls-cert", help="Serve HTTPS with this PEM certificate (chain).")] = None,
    tls_key: Annotated[Path | None, typer.Option(
        "--tls-key", help="The certificate's PEM private key (unencrypted), unless "
        "--tls-cert holds it.")] = None,
    insecure: Annotated[bool, typer.Option(
        "--insecure", help="Serve on an address other than loopback although pseudo "
        "authentication trusts whoever asks, or basic/token credentials would cross the "
        "network without TLS.")] = False,
    log_format: Annotated[LogFormat, typer.Option(
        "--log-format", help="Logs on stderr as text or as JSON lines.")] = LogFormat.TEXT,
    log_level: Annotated[str, typer.Option(
        "--log-level", help="debug, info, warning or error.")] = "info",
) -> None:
    """Run the Fair Scheduler as a live ResourceManager: YARN's REST API, containers on
    simulated nodes, local processes or Ray, preemption, the pages and /metrics."""
    import uvicorn

    from fairshare.server.auth import authenticator_for
    from fairshare.server.collector import PacedCollector
    from fairshare.server.service import ServeOptions, build

    _fewer_arenas()

    if log_level.lower() not in ("debug", "info", "warning", "error"):
        raise fail([f"--log-level: expected debug, info, warning or error, got {log_level!r}"])
    if nodes is not None and nodes_file is not None:
        raise fail(["--nodes-file: give --nodes or --nodes-file, not both"])
    host, port = guarded(lambda: listen_address(listen))
    tls = check_tls(tls_cert, tls_key)
    exposure = check_exposure(host, auth, tls, insecure)
    authenticator = guarded(lambda: authenticator_for(auth.value, users))
    options = ServeOptions(allocations, site, nodes, nodes_file, executor, ray_address, speed,
                           out_dir, store=store)
    listening = bind_listening(host, port)
    served = guarded(lambda: build(options))
    _logging(log_format, log_level)
    if exposure is not None:
        logging.getLogger("fairshare.serve").warning("%s", exposure)
    bound = listening.getsockname()[1]
    url = f"{'https' if tls else 'http'}://{host}:{bound}"
    guarded(lambda: served.start(url, authenticator))
    logging.getLogger("fairshare.serve").info("callers authenticated by %s%s", auth.value,
                                              f" (users in {users})" if users else "")
    server = uvicorn.Server(uvicorn.Config(
        served.app, host=host, port=bound, log_level="warning", access_log=False,
        ssl_certfile=tls_cert, ssl_keyfile=tls_key))
    n = len(served.engine.state.nodes)
    out.print(f"Serving {allocations} on {url}/ (REST /ws/v1/cluster, pages "
              f"/, /metrics): {n} node{'s' * (n != 1)}, executor {executor}"
              f"{f', {speed:g}x' if speed != 1 else ''}; session in {out_dir} "
              "(Ctrl-C stops)", soft_wrap=True)
    if served.recovered is not None:
        state, epoch = served.recovered, served.engine.state.rm_epoch
        running = sum(a["state"] in ("NEW", "NEW_SAVING", "SUBMITTED", "ACCEPTED", "RUNNING")
                      for a in state.apps)
        out.print(f"Recovered from the state store (epoch {epoch}): {len(state.apps)} "
                  f"app{'s' * (len(state.apps) != 1)} ({running} running), "
                  f"{len(state.containers)} container{'s' * (len(state.containers) != 1)}; "
                  f"new containers allocated after "
                  f"{served.site.scheduling_wait_ms / 1000:g} s", soft_wrap=True)

    def engine_ended() -> None:  # the engine stopped by itself (its store failed): exit
        served.loop.ended.wait()
        server.should_exit = True

    threading.Thread(target=engine_ended, name="fairshare-engine-watch", daemon=True).start()
    # the engine thread, the request threads and the event loop share one GIL: handed over
    # every 0.5 ms instead of 5, a request waits less behind the engine's heartbeats and
    # the other requests (bench/serve_load.py at 5,000 nodes, p99 of the reads: 1.0 s at 5 ms,
    # 0.6 s at 1 ms before the snapshots kept what was unchanged; then 107 ms at 1 ms, 76 ms at
    # 0.5 ms)
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    collector = PacedCollector()  # server/collector.py: why the collector runs on a clock
    collector.start()
    quiet = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}
    started = time.monotonic()
    try:
        server.run(sockets=[listening])
    finally:
        for sig, handler in quiet.items():
            signal.signal(sig, handler)
        served.stop()
        collector.stop()
        # the apps the engine was given since the start (recovered ones too); the RM keeps
        # the running ones and the last max-completed-applications to end
        given, kept = served.loop.engine.state.apps_added, len(served.loop.records.apps)
        out.print(f"Stopped after {time.monotonic() - started:.0f} s: {given} "
                  f"app{'s' * (given != 1)} submitted, {kept} kept by the RM; journal "
                  f"{out_dir / 'session.yaml'}", soft_wrap=True)
    if served.loop.failure is not None:
        err.print(f"the engine stopped on an error: {served.loop.failure}")
        raise typer.Exit(70)


SWITCH_INTERVAL_S = 0.0005


def _fewer_arenas() -> None:
    """glibc gives each thread that allocates its own malloc arena, up to 8 per core, and
    keeps what was freed in each: the request threads' large transient answers (megabytes
    for /nodes of 5,000 nodes) then grow the resident memory arena by arena. Two arenas
    (``M_ARENA_MAX``, as ``MALLOC_ARENA_MAX=2``) before any thread starts; elsewhere than
    glibc, nothing."""
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    m_arena_max = -8  # malloc.h
    mallopt(ctypes.c_int(m_arena_max), ctypes.c_int(2))


"""``fairshare watch``: a running ResourceManager, watched (docs/watch.md).

``fairshare watch RM_URL[,RM_URL…]`` polls the RM into a history database and serves the
pages and ``/metrics``; ``watch status`` prints one screen and exits; ``watch fork`` writes a
scenario that starts from a recorded moment. Bad options, an unreadable allocation file or a
database that cannot be opened exit 2 with the option or file named, nothing written.
"""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import Annotated, Any

import typer
from typer import _click as click

from fairshare.cli.common import (
    CommandGroup,
    Format,
    FormatOpt,
    bind_listening,
    err,
    fail,
    guarded,
    one_line,
    out,
)
from fairshare.sim.importer.remaining import DISTRIBUTIONS
from fairshare.sim.importer.scenario_text import DEFAULT_REMAINING_MS, DEFAULT_SEED, Choices
from fairshare.watch.options import duration_ms, listen_address, moment_ms, retention, rm_urls

DEFAULT_DB = "fairshare-watch.db"
DEFAULT_LISTEN = "127.0.0.1:8089"


class _WatchGroup(CommandGroup):
    """``fairshare watch RM_URL …`` runs the watcher: a first argument that is not one of the
    subcommands (``status``, ``fork``) is the RM list of the default command, ``start``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h"):
            args = ["start", *args]
        return super().parse_args(ctx, args)


watch_app = typer.Typer(
    cls=_WatchGroup, no_args_is_help=True, rich_markup_mode=None,
    help="Watch a running ResourceManager: history, pages, diagnosis, Prometheus metrics, "
    "and scenarios forked from a recorded moment (docs/watch.md).")

RmArg = Annotated[str, typer.Argument(
    metavar="RM_URL[,RM_URL…]",
    help="The ResourceManager's web address (http://rm:8088); with HA, every RM, "
    "comma-separated: a standby's redirect is followed and the active one asked first.",
    show_default=False)]
AllocOpt = Annotated[Path | None, typer.Option(
    "--allocations", help="The cluster's fair-scheduler.xml: weights, timeouts and "
    "thresholds the RM does not report (reloaded when it changes; a broken edit keeps the "
    "last good one).")]
SiteOpt = Annotated[Path | None, typer.Option(
    "--site", help="The cluster's yarn-site.xml: whether preemption is on, its utilization "
    "threshold.")]
UserOpt = Annotated[str | None, typer.Option(
    "--user", help="Simple authentication: ask as this user (?user.name=).")]
CaOpt = Annotated[Path | None, typer.Option(
    "--ca-bundle", help="PEM file of the CA that signed the RM's certificate (https).")]
SpnegoOpt = Annotated[bool, typer.Option(
    "--spnego", help="Kerberos: authenticate with SPNEGO (needs fairshare[kerberos] and a "
    "ticket: kinit).")]
TimeoutOpt = Annotated[str, typer.Option(
    "--timeout", help="How long one request may take.")]


def _client(rm: str, user: str | None, ca_bundle: Path | None, spnego: bool,
            timeout: str) -> Any:
    from fairshare.watch.client import RMClient

    urls = guarded(lambda: rm_urls(rm))
    timeout_s = guarded(lambda: duration_ms(timeout, "--timeout")) / 1000
    return guarded(lambda: RMClient(urls, timeout_s=timeout_s, user=user,
                                    ca_bundle=str(ca_bundle) if ca_bundle else None,
                                    spnego=spnego))


def _allocations(allocations: Path | None, site: Path | None) -> Any:
    from fairshare.watch.allocations import AllocationWatch

    return guarded(lambda: AllocationWatch(allocations, site))


@watch_app.command("start")
def start(
    rm: RmArg,
    allocations: AllocOpt = None,
    site: SiteOpt = None,
    interval: Annotated[str, typer.Option(
        "--interval", help="How often to poll the RM's queues (5s, 30s, 1m): the history, "
        "the pages and /metrics are at this resolution.")] = "5s",
    apps_interval: Annotated[str, typer.Option(
        "--apps-interval", help="How often to ask for the apps (at least --interval): on a "
        "large RM most of a poll's cost. Preemptions and waits are seen at this resolution; "
        "finishes and the RM's counters are exact.")] = "15s",
    nodes_interval: Annotated[str, typer.Option(
        "--nodes-interval", help="How often to ask for the nodes (at least --interval).")]
    = "60s",
    db: Annotated[str, typer.Option(
        "--db", help="The history database: a file (SQLite) or a URL "
        "(postgresql+psycopg://user@host/db).")] = DEFAULT_DB,
    listen: Annotated[str, typer.Option(
        "--listen", help="Where the pages and /metrics are served (HOST:PORT).")]
    = DEFAULT_LISTEN,
    keep: Annotated[str, typer.Option(
        "--retention", help="How long raw samples and each resolution are kept: "
        "raw=2d,1m=7d,1h=400d,1d=1096d (the database's size follows: docs/watch.md).")]
    = "raw=2d,1m=7d,1h=400d,1d=1096d",
    user: UserOpt = None,
    ca_bundle: CaOpt = None,
    spnego: SpnegoOpt = False,
    timeout: TimeoutOpt = "10s",
) -> None:
    """Poll the RM into the history database and serve the pages and /metrics (the
    default: `fairshare watch RM_URL` is `fairshare watch start RM_URL`)."""
    import uvicorn

    from fairshare.watch.app import watch_app_for
    from fairshare.watch.service import Watcher
    from fairshare.web.history.store import History

    interval_s = guarded(lambda: duration_ms(interval, "--interval")) / 1000
    apps_s = max(interval_s, guarded(lambda: duration_ms(apps_interval, "--apps-interval"))
                 / 1000)
    nodes_s = max(interval_s, guarded(lambda: duration_ms(nodes_interval, "--nodes-interval"))
                  / 1000)
    host, port = guarded(lambda: listen_address(listen))
    client = _client(rm, user, ca_bundle, spnego, timeout)
    watch = _allocations(allocations, site)
    kept = guarded(lambda: retention(keep))
    # bound before the database is opened: a port in use leaves nothing written; bound here,
    # so that the address printed is the one served (port 0: a free one)
    listening = bind_listening(host, port)
    history = guarded(lambda: History.open(db, kept, poll_interval_ms=round(interval_s * 1000)))
    watcher = Watcher(client, history, watch, interval_s, apps_interval_s=apps_s,
                      nodes_interval_s=nodes_s,
                      tell=lambda line: err.print(one_line(line), soft_wrap=True,
                                                  style="yellow"))
    stop = threading.Event()
    poller = threading.Thread(target=watcher.run, args=(stop,), name="poll", daemon=True)
    server = uvicorn.Server(uvicorn.Config(watch_app_for(watcher), host=host, port=port,
                                           log_level="warning", access_log=False))
    bound = listening.getsockname()[1]
    out.print(f"Watching {', '.join(client.urls)} every {interval_s:g} s into {db}; pages "
              f"and /metrics on http://{host}:{bound}/ (Ctrl-C stops)", soft_wrap=True)
    poller.start()
    # Ctrl-C and SIGTERM are how a watcher stops: uvicorn shuts down gracefully and then
    # raises the signal again, which must not read as an interrupted command (exit 130)
    quiet = {sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        server.run(sockets=[listening])
    finally:
        for sig, handler in quiet.items():
            signal.signal(sig, handler)
        stop.set()
        poller.join(timeout=interval_s + 30)
        history.close()
        out.print(f"Stopped after {watcher.latest().stats.polls} polls.", soft_wrap=True)


@watch_app.command("status")
def status(
    rm: RmArg,
    allocations: AllocOpt = None,
    site: SiteOpt = None,
    user: UserOpt = None,
    ca_bundle: CaOpt = None,
    spnego: SpnegoOpt = False,
    timeout: TimeoutOpt = "10s",
    output: FormatOpt = Format.TEXT,
) -> None:
    """Poll the RM once and print shares, usage and diagnosis per queue."""
    import json
    import time

    from fairshare.watch.poll import PollError, poll
    from fairshare.watch.status import render_status, status_json
    from fairshare.web.diagnosis import diagnose

    client = _client(rm, user, ca_bundle, spnego, timeout)
    watch = _allocations(allocations, site)
    try:
        result = poll(client, lambda: int(time.time() * 1000), None)
    except PollError as e:
        raise fail([str(e)]) from None
    if site is None:
        err.print("note: no --site: YARN's defaults are assumed (preemption off)",
                  soft_wrap=True, style="yellow")
    findings = diagnose(result.sample, watch.config, watch.site, {})
    if output is Format.JSON:
        out.print(json.dumps(status_json(result.sample, findings), indent=2), soft_wrap=True)
    else:
        out.print(render_status(result.sample, findings, width=out.width), soft_wrap=True)


@watch_app.command("fork")
def fork(
    db: Annotated[str, typer.Option("--db", help="The history database watch wrote.")]
    = DEFAULT_DB,
    at: Annotated[str, typer.Option(
        "--at", help="The recorded moment to start from: ISO 8601 (2026-12-01T10:00, UTC "
        "unless a zone is given), Unix ms, now, or a time before now (now-1d, -2h).",
        show_default=False)] = "",
    outdir: Annotated[Path | None, typer.Option(
        "-o", "--outdir", help="Where to write scenario.yaml and its files.",
        show_default=False)] = None,
    until: Annotated[str | None, typer.Option(
        "--until", help="The end of the span replayed and compared (default: the last "
        "sample).")] = None,
    allocations: AllocOpt = None,
    site: SiteOpt = None,
    overrides: Annotated[list[str] | None, typer.Option(
        "--set", help="A candidate setting, as simulate takes it "
        "(alloc:root.b.fairSharePreemptionTimeout=30, site:yarn.scheduler.fair.preemption="
        "true); repeat for several.")] = None,
    remaining: Annotated[str, typer.Option(
        "--remaining", metavar="|".join(DISTRIBUTIONS),
        help="How each task running at --at draws its remaining time (as fairshare import).")]
    = "uniform",
    remaining_ms: Annotated[int, typer.Option(
        "--remaining-ms", min=0, help="The mean remaining time of a running task.")]
    = DEFAULT_REMAINING_MS,
    seed: Annotated[int, typer.Option("--seed", help="The seed of those draws.")]
    = DEFAULT_SEED,
    calibrate: Annotated[bool, typer.Option(
        "--calibrate", help="Also simulate the fork (into DIR/run) and compare it, per "
        "queue, with what the cluster did over the same span.")] = False,
    output: FormatOpt = Format.TEXT,
) -> None:
    """Write a scenario that starts from the recorded state at --at, with the apps that
    really arrived after it as its workload; --calibrate compares its simulation with what
    the cluster did."""
    import json
    import time

    from fairshare.report import build_report
    from fairshare.report.calibration import CALIBRATION
    from fairshare.watch import calibration as calib
    from fairshare.watch.fork import fork as fork_history
    from fairshare.watch.fork import utc
    from fairshare.web.history.store import History

    if not at or outdir is None:
        raise fail(["watch fork: give --at TIME and -o DIR"])
    if remaining not in DISTRIBUTIONS:
        raise fail([f"--remaining: give one of {', '.join(DISTRIBUTIONS)}, not {remaining!r}"])
    choices = Choices(remaining_ms=remaining_ms, remaining_dist=remaining, seed=seed)
    now = int(time.time() * 1000)
    at_ms = guarded(lambda: moment_ms(at, "--at", now))
    until_ms = guarded(lambda: moment_ms(until, "--until", now)) if until else None
    history = guarded(lambda: History.open(db, create=False))
    try:
        forked = guarded(lambda: fork_history(
            history, at_ms, outdir, allocations=allocations, site=site,
            overrides=overrides or (), until_ms=until_ms, choices=choices, now_ms=now))
        for note in forked.notes:
            err.print(f"note: {note}", soft_wrap=True, style="yellow")
        span = (f"to {utc(forked.until_ms)}" if forked.until_ms is not None
                else "(the last recorded state: no arrivals)")
        out.print(f"Forked from {utc(forked.checkpoint_ms)} (asked: {utc(forked.at_ms)}) "
                  f"{span}: {forked.imported.nodes} nodes, {forked.imported.running_apps} "
                  f"running apps, {forked.arrivals} arrivals"
                  + (f"; --set {', '.join(forked.overrides)}" if forked.overrides else ""),
                  soft_wrap=True)
        for path in forked.written:
            out.print(f"  wrote {path}", soft_wrap=True)
        if not calibrate:
            out.print(f"Run it with: fairshare simulate {forked.scenario}", soft_wrap=True)
            return
        out.print(f"Simulating the fork into {outdir / 'run'} …", soft_wrap=True)
        guarded(lambda: calib.simulate_fork(outdir, outdir / "run"))
        result = guarded(lambda: calib.calibrate(history, outdir, outdir / "run"))
    finally:
        history.close()
    run_dir = outdir / "run"
    staged = run_dir / f".{CALIBRATION}.tmp"
    staged.write_text(json.dumps(calib.as_json(result), indent=2) + "\n", encoding="utf-8")
    staged.replace(run_dir / CALIBRATION)
    page = guarded(lambda: build_report(run_dir, run_dir / "report.html"))[0]
    if output is Format.JSON:
        out.print(json.dumps(calib.as_json(result), indent=2), soft_wrap=True)
    else:
        out.print(calib.render(result, width=min(out.width, 160)), soft_wrap=True)
        out.print(f"Wrote {run_dir / CALIBRATION} and the run's report, with the "
                  f"calibration: {page}", soft_wrap=True)

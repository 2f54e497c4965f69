"""``fairshare explain --app``: an app's chain, from submission to its end (see
:mod:`fairshare.workbench.explain`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fairshare.core import StarvationKind, parse_member, phrase, record_reasons
from fairshare.sim.record.outputs import EVENTS
from fairshare.workbench.explain import changes as explain_changes
from fairshare.workbench.explain.model import (
    LISTED,
    Explanation,
    Run,
    Statement,
    at,
    by_time,
    events_mentioning,
    first_event,
    in_causal_order,
    pct,
    res,
    unknown_subject,
    via_text,
)


def explain_app(run: Run, app: str) -> Explanation:
    apps = run.summary.apps
    entry = apps.get(app)
    mine = [e for e in run.events if e.get("app") == app or e.get("beneficiary-app") == app]
    if entry is None and not mine:
        raise unknown_subject("app", app, list(apps))
    said: list[Statement] = []
    rejected = first_event(mine, "app-rejected")
    if rejected is not None:
        said.append(Statement(rejected["t"], f"Submitted to {rejected['requested-queue']} and "
                              f"rejected: {rejected['reason']}.", (rejected["seq"],)))
        return Explanation(f"app {app}", tuple(said))
    submitted = first_event(mine, "app-submitted")
    if submitted is None:
        said.append(Statement(None, f"{app} was not submitted before the run ended "
                                    f"(at {at(run.summary.span.end_ms)})."))
        return Explanation(f"app {app}", tuple(said))
    t0 = submitted["t"]
    queue = submitted["queue"]
    said.append(Statement(t0, f"Submitted by {submitted['user']}, asking for queue "
                          f"{submitted['requested-queue']}; placed in {queue} "
                          f"({submitted['placed-by']}).", (submitted["seq"],)))
    said += _admission(run, mine)
    # containers it ran when the run started come first (taken over: container-recovered)
    allocated = [e for e in mine if e["type"] in ("container-recovered", "container-allocated")
                 and e["app"] == app]
    am = next((e for e in allocated if e["am"]), None)
    first_task = next((e for e in allocated if not e["am"]), None)
    said += _recovered(allocated)
    served = am if submitted.get("am") is not None else first_task
    last = run.end_ms()
    end = served["t"] if served is not None else last
    said += _why_it_waited(run, mine, app, queue, t0, end)
    said += _reservations(run, mine, app, t0, end, first_task["t"] if first_task else last)
    if am is not None and am["type"] == "container-allocated":
        said.append(Statement(am["t"], f"Its AM container was placed on {am['node']} "
                              f"({via_text(am)}), {at(am['t'] - t0)} after submission.",
                              (am["seq"],)))
    elif am is None and submitted.get("am") is not None:
        said.append(Statement(end, f"Its AM container was never placed: it waited "
                              f"{at(end - t0)}, to the end of the run."))
    if first_task is not None and first_task["type"] == "container-allocated":
        said.append(Statement(first_task["t"], f"Its first task container was placed on "
                              f"{first_task['node']} ({via_text(first_task)}), "
                              f"{at(first_task['t'] - t0)} after submission.",
                              (first_task["seq"],)))
    told = {e["seq"] for e in (am, first_task) if e is not None}
    said += _preemption_for(mine, app, told)
    said += _preempted_from(mine, app)
    finished = first_event(mine, "app-finished")
    said += _timed_changes(run, mine, app, queue, t0, finished["t"] if finished else last)
    if finished is not None:
        said.append(Statement(finished["t"], f"It {finished['state']} at {at(finished['t'])}: "
                              f"turnaround {at(finished['t'] - t0)}.", (finished["seq"],)))
    elif entry is not None:
        said.append(Statement(last, f"It had not finished when the run ended "
                                    f"({entry.tasks_done} of {entry.tasks_total} tasks "
                                    f"done)."))
    said += _containers(mine, app)
    return Explanation(f"app {app}", in_causal_order(said))


def _containers(mine: list[dict[str, Any]], app: str) -> Iterator[Statement]:
    """The ids of every container it had (for ``explain --container``)."""
    placed = [e for e in mine if e["type"] in ("container-recovered", "container-allocated")
              and e["app"] == app]
    if not placed:
        return
    ids = [f"{e['container']}{' (AM)' if e['am'] else ''}" for e in placed]
    shown = ", ".join(ids[:LISTED]) + (f" and {len(ids) - LISTED:,} more" if len(ids) > LISTED
                                       else "")
    yield Statement(None, f"Its containers ({len(ids):,}): {shown}.",
                    tuple(e["seq"] for e in placed[:LISTED]))


def _recovered(placed: list[dict[str, Any]]) -> Iterator[Statement]:
    """An app that was running when the run started (an imported cluster, docs/import.md)."""
    taken = [e for e in placed if e["type"] == "container-recovered"]
    if not taken:
        return
    am = next((e for e in taken if e["am"]), None)
    where = f", its AM on {am['node']}" if am is not None else ""
    yield Statement(taken[0]["t"], f"It was running when the run started: {len(taken)} "
                    f"container{'' if len(taken) == 1 else 's'} taken over where they ran"
                    f"{where} (YARN's work-preserving recovery), not scheduled.",
                    tuple(e["seq"] for e in taken))


def _timed_changes(run: Run, mine: list[dict[str, Any]], app: str, queue: str, start: int,
                   end: int) -> Iterator[Statement]:
    """Reloads that changed its queue's settings while it ran; nodes lost under it."""
    lost = [e for e in mine if e["type"] == "container-completed" and e["app"] == app
            and e["status"] == "lost"]
    for t, text, seqs in explain_changes.node_losses(run.summary, lost):
        yield Statement(t, text, seqs)
    for t, text in explain_changes.reloads_touching(run.summary, queue, start, end):
        yield Statement(t, text)


def _admission(run: Run, mine: list[dict[str, Any]]) -> Iterator[Statement]:
    for e in mine:
        if e["type"] == "app-not-runnable":
            yield Statement(e["t"], f"Held, not runnable: {e['reason']}.", (e["seq"],))
        elif e["type"] == "app-runnable" and e["promoted"]:
            left = _cause_event(run, e)
            if left is not None and left.get("app"):
                how = {"app-finished": f" ({left.get('state', 'finished')})",
                       "app-moved": " (moved away)"}.get(left["type"], "")
                yield Statement(e["t"], f"Made runnable when {left['app']} left{how}: the "
                                f"limit that held it had room again.", (left["seq"], e["seq"]))
            else:  # a reload that raised the limit (updateRunnabilityOnReload), or no cause
                yield Statement(e["t"], "Made runnable when another app left or the "
                                        "configuration was reloaded.", (e["seq"],))


def _cause_event(run: Run, e: dict[str, Any]) -> dict[str, Any] | None:
    """The event ``e`` names as its cause (another app's: a second pass over the events; its
    line holds ``"seq":N,`` as fairshare writes it)."""
    cause = e.get("cause")
    if not isinstance(cause, int):
        return None
    needle = f'"seq":{cause},'
    return next((x for x in events_mentioning(run.outdir / EVENTS, (needle,))
                 if x["seq"] == cause), None)


def _why_it_waited(run: Run, mine: list[dict[str, Any]], app: str, queue: str, start: int,
                   end: int) -> Iterator[Statement]:
    """Between submission and the container that served it: starvation, the gate, rounds."""
    preemption = run.summary.cluster.preemption
    gates = [e for e in run.events if e["type"] == "starvation-gate" and e["t"] <= end]
    starved = [e for e in mine if e["type"] == "starvation" and e["app"] == app
               and start <= e["t"] <= end]
    if end - start <= 0:
        return
    held = [e for e in mine if e["type"] == "app-not-runnable" and e["app"] == app]
    if held and not starved:
        yield Statement(held[0]["t"], "Held not runnable, it was given no share and no "
                        "container, and was never considered for starvation: its wait was the "
                        "limit's, not preemption's.", (held[0]["seq"],))
        return
    if not preemption.enabled:
        yield Statement(None, "Preemption is off (yarn.scheduler.fair.preemption), so nothing "
                              "was taken from other apps for it: it waited for containers to "
                              "finish.")
        return
    if not starved:
        closed = gates[-1] if gates and not gates[-1]["open"] else None
        if closed is not None:
            yield Statement(closed["t"], f"It was never found starved: the utilization gate "
                            f"was closed (cluster utilization {pct(closed['utilization'])} "
                            f"≤ threshold {pct(closed['threshold'])}; starvation is only "
                            f"evaluated above it).", (closed["seq"],))
        else:
            yield Statement(None, "It was never found starved before it was served (it got "
                                  "room before its preemption timeout passed, or stayed at or "
                                  "above threshold × its fair share).")
        return
    first = starved[0]
    yield Statement(first["t"], _starvation_text(run, queue, first), (first["seq"],))
    if len(starved) > 1:
        times = ", ".join(at(e["t"]) for e in starved[1:6])
        more = f" and {len(starved) - 6} more" if len(starved) > 6 else ""
        yield Statement(starved[1]["t"], f"Found starved again at {times}{more}: after a "
                        f"round YARN waits (waitTimeBeforeKill + allocation delay + "
                        f"waitTimeBeforeNextStarvationCheck) before looking again.",
                        tuple(e["seq"] for e in starved[1:6]))
    open_gate = next((g for g in reversed(gates) if g["t"] <= first["t"]), None)
    if open_gate is not None and open_gate["open"]:
        yield Statement(first["t"], f"The utilization gate was open (since "
                        f"{at(open_gate['t'])}: cluster utilization "
                        f"{pct(open_gate['utilization'])}, above the threshold of "
                        f"{pct(open_gate['threshold'])}), so starvation was evaluated.",
                        (open_gate["seq"],))


def _reservations(run: Run, mine: list[dict[str, Any]], app: str, start: int, served: int,
                  until: int) -> Iterator[Statement]:
    """Reserved nodes: its own until its first task (it was too big for a node's free space),
    and other apps' while it waited to be served (a reserved node serves that app alone:
    ``FairScheduler.attemptScheduling`` offers it to no other app)."""
    made = [e for e in mine if e["type"] == "container-reserved" and e["app"] == app
            and start <= e["t"] <= until]
    for e in made[:3]:
        ended = next((u for u in mine if u["type"] == "container-unreserved"
                      and u["app"] == app and u["node"] == e["node"] and u["seq"] > e["seq"]),
                     None)
        after = (f" It was unreserved at {at(ended['t'])} ({ended['reason']})." if ended
                 else " It still held it when the run ended.")
        yield Statement(e["t"], f"It reserved {e['node']} for a container of "
                        f"{res(e['resource'])}: the node's free space was too small, and a "
                        f"reserved node is offered to the reserving app alone until the "
                        f"container fits.{after}",
                        (e["seq"],) + ((ended["seq"],) if ended else ()))
    if len(made) > 3:
        yield Statement(made[3]["t"], f"It made {len(made) - 3} more reservation(s).",
                        tuple(e["seq"] for e in made[3:9]))
    held = _others_reservations(run.outdir, app, start, served)
    if held:
        nodes = {e["node"] for e in held}
        by_app = Counter(e["app"] for e in held).most_common(3)
        who = ", ".join(f"{name} {n}" for name, n in by_app)
        yield Statement(start, f"While it waited, other apps held reservations on "
                        f"{len(nodes)} node(s) (reservations by app, most first: {who}); a "
                        f"reserved node is offered to no other app.",
                        tuple(e["seq"] for e in held[:6]))


def _others_reservations(outdir: Path, app: str, start: int, end: int) -> list[dict[str, Any]]:
    """The ``container-reserved`` events of other apps whose reservation overlapped
    [start, end): made before ``end`` and not unreserved by ``start``. A second pass over the
    events, streamed: only the reservations open at ``start`` and those made after are kept."""
    wanted = ('"container-reserved"', '"container-unreserved"')
    held: dict[str, dict[str, Any]] = {}  # node -> the event of its reservation before start
    made: list[dict[str, Any]] = []
    for e in events_mentioning(outdir / EVENTS, wanted):
        if e["type"] == "container-reserved" and e["t"] < start:
            held[e["node"]] = e
        elif e["type"] == "container-unreserved" and e["t"] < start:
            held.pop(e["node"], None)
        elif e["type"] == "container-reserved" and e["t"] < end and e["app"] != app:
            made.append(e)
    overlapping = [e for e in held.values() if e["app"] != app] + made
    return sorted(overlapping, key=lambda e: e["seq"])


def _starvation_text(run: Run, queue: str, e: dict[str, Any]) -> str:
    entry = run.summary.queues.get(queue)
    settings = None if entry is None else entry.settings  # None: not known at the end
    kind = parse_member(StarvationKind, e["kind"])
    parts = [f"Found {kind} starved by {res(e['amount'])}: usage {res(e['usage'])} against "
             f"an instantaneous fair share of {res(e['fair-share'])}"]
    if kind in (StarvationKind.FAIR_SHARE, StarvationKind.BOTH):
        threshold = None if settings is None else settings.fair_share_preemption_threshold
        capped = _capped_by_demand(e, threshold)
        if capped:
            parts.append(f"the amount is capped by its demand ({capped}): YARN starves an app "
                         f"for min(threshold × fair share, demand) less its usage")
        if settings is not None and threshold is not None and (
                timeout := settings.fair_share_preemption_timeout_ms) is not None:
            parts.append(
                f"below {threshold:g} × that share since {at(e['since-ms'])}, longer than its "
                f"fairSharePreemptionTimeout of {at(timeout)} (threshold set in "
                f"{settings.set_in.fair_share_preemption_threshold}, timeout in "
                f"{settings.set_in.fair_share_preemption_timeout_ms})")
    if kind in (StarvationKind.MIN_SHARE, StarvationKind.BOTH):
        min_timeout = None if settings is None else settings.min_share_preemption_timeout_ms
        origin = None if settings is None else settings.set_in.min_share_preemption_timeout_ms
        parts.append(f"below its min share since {at(e['since-ms'])}, longer than its "
                     f"minSharePreemptionTimeout of "
                     f"{at(min_timeout) if min_timeout else '?'} (set in {origin})")
    return "; ".join(parts) + "."


def _capped_by_demand(e: dict[str, Any], threshold: float | None) -> str:
    """The resources whose fair-share starvation its demand capped
    (``FSAppAttempt.fairShareStarvation``: ``componentwiseMin(threshold × fair share, demand)``
    less usage), as "memory-mb 2,048", or "" — also for events without ``demand``."""
    demand, share, usage = e.get("demand"), e["fair-share"], e["usage"]
    starved = e["fairshare-starvation"]
    if not isinstance(demand, dict) or threshold is None:
        return ""
    capped = [f"{'memory' if k == 'memory-mb' else k} {v:,}{' MB' if k == 'memory-mb' else ''}"
              for k, v in demand.items()
              if starved.get(k, 0) > 0 and v < threshold * share.get(k, 0)
              and starved.get(k) == v - usage.get(k, 0)]
    return ", ".join(capped)


def _preemption_for(mine: list[dict[str, Any]], app: str, told: set[int]
                    ) -> Iterator[Statement]:
    """Rounds: what each wanted and found (by cause), victims warned, killed, space served."""
    for e in mine:
        if e["type"] == "no-preemption" and e["app"] == app:
            wanted, found = e["containers-wanted"], e["containers-found"]
            blocked = record_reasons(e).get("blocked", {})
            causes = "; ".join(f"{n} {phrase(c)}" for c, n in blocked.items())
            text = (f"A preemption round wanted {wanted} container(s) for it and found victims "
                    f"for {found}" + (f": {causes}." if causes else f" ({e['reason']})."))
            yield Statement(e["t"], text, (e["seq"],))
    warned = [e for e in mine if e["type"] == "preemption-warned" and e["beneficiary-app"] == app]
    for t, batch in by_time(warned):
        from_apps = Counter(f"{e['app']} ({e['queue']})" for e in batch)
        who = ", ".join(f"{n} of {name}" for name, n in from_apps.items())
        yield Statement(t, f"{len(batch)} container(s) warned for it — {who} on "
                        f"{', '.join(sorted({e['node'] for e in batch}))} — to be killed at "
                        f"{at(batch[0]['kill-at-ms'])} (waitTimeBeforeKill later), each "
                        f"victim app staying at or above its fair share.",
                        tuple(e["seq"] for e in batch))
    killed = [e for e in mine if e["type"] == "container-preempted" and e["beneficiary-app"] == app]
    for t, batch in by_time(killed):
        yield Statement(t, f"{len(batch)} of them killed; the freed space is earmarked for it.",
                        tuple(e["seq"] for e in batch))
    earmarked = [e for e in mine if e["type"] == "container-allocated" and e["app"] == app
                 and e["via"] == "earmark" and e["seq"] not in told]  # not told twice
    for t, batch in by_time(earmarked):
        more = " more" if any(e["t"] == t for e in mine if e["seq"] in told) else ""
        yield Statement(t, f"{len(batch)}{more} container(s) placed for it on the earmarked "
                        f"space.", tuple(e["seq"] for e in batch))


def _preempted_from(mine: list[dict[str, Any]], app: str) -> Iterator[Statement]:
    lost = [e for e in mine if e["type"] == "container-preempted" and e["app"] == app]
    for t, batch in by_time(lost):
        to = Counter(f"{e['beneficiary-app']} ({e['beneficiary-queue']})" for e in batch)
        yield Statement(t, f"{len(batch)} of its containers were preempted for "
                        f"{', '.join(to)}.", tuple(e["seq"] for e in batch))


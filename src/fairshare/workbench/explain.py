"""``fairshare explain OUTDIR --app A | --container C | --queue Q``: why, in plain words.

Reads only a run's outputs: ``events.jsonl`` (every decision, with its ``seq``) and
``summary.json`` (settings, where each came from, the metrics). Each statement carries its
time and the ``seq`` of the events behind it, so every claim can be checked in the events.

The chains follow what the scheduler did, in order:

* an app: submitted → placed (by which rule) → runnable or held (and why) → its AM and why it
  waited (the cluster full; starved from when, under which threshold and timeout, set where;
  the utilization gate; preemption rounds and what they found, by cause) → victims warned and
  killed → served → finished; a rejected app: why;
* a container: placed → chosen as a victim, for whom and which starvation, the victim app's
  usage against its fair share, the node → killed, and the work lost;
* a queue: whether it was ever starved and why not (preemption off, the gate closed, no
  timeout, a threshold its demand never reached) → whom it took from and lost to.
"""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.core import record_problem
from fairshare.sim.outputs import EVENTS, SUMMARY
from fairshare.sim.units import duration, percent
from fairshare.workbench import explain_changes
from fairshare.workbench.compare import load_summary

__all__ = ["Explanation", "Statement", "explain_app", "explain_container", "explain_queue",
           "load_run"]




@dataclass(frozen=True, slots=True)
class Statement:
    time_ms: int | None
    text: str
    seqs: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class Explanation:
    subject: str  # "app adhoc", "container …", "queue root.tenant3"
    statements: tuple[Statement, ...]

    def as_json(self) -> dict[str, Any]:
        return {"subject": self.subject,
                "statements": [{"t": s.time_ms, "text": s.text, "seq": list(s.seqs)}
                               for s in self.statements]}


@dataclass
class Run:
    """What explain reads of a run: its summary and the events that concern the subject."""

    outdir: Path
    summary: dict[str, Any]
    events: list[dict[str, Any]] = field(default_factory=list)


def load_run(outdir: Path, mentions: str) -> Run:
    """The run's summary, and its events that mention ``mentions`` (an app, a container, a
    queue) or the utilization gate. Lines are filtered as text before they are parsed."""
    summary = load_summary(outdir)
    path = outdir / EVENTS
    if not path.is_file():
        raise ConfigError("no events.jsonl here (give a run's output directory, its -o)",
                          str(outdir))
    needle = json.dumps(mentions)  # as it appears in the file: quoted, escaped
    events = list(_events(path, (needle, '"starvation-gate"')))
    return Run(outdir, summary, events)


def _events(path: Path, needles: Sequence[str]) -> Iterator[dict[str, Any]]:
    """The events whose line holds one of ``needles`` (filtered as text, then parsed), each
    checked to be what fairshare writes: a damaged file is an error at its line."""
    try:
        with path.open(encoding="utf-8") as f:
            for number, line in enumerate(f, start=1):
                if any(needle in line for needle in needles):
                    try:
                        record = json.loads(line)
                    except json.JSONDecodeError as e:
                        raise ConfigError(f"not JSON: {e.msg}", str(path), number) from None
                    problem = record_problem(record)
                    if problem is not None:
                        raise ConfigError(f"not a fairshare event: {problem}", str(path),
                                          number)
                    yield record
    except UnicodeDecodeError:
        raise ConfigError("not UTF-8 text", str(path)) from None


def explain(run: Run, kind: str, name: str) -> Explanation:
    """The chain for ``--app``, ``--container`` or ``--queue`` (``kind``) ``name``.

    The events were checked as they were read; what the chains read from ``summary.json`` is
    not checked beforehand, so a summary that lacks it or holds the wrong kind of value is
    reported here, as the file's error, rather than as a traceback."""
    chain = {"app": explain_app, "container": explain_container, "queue": explain_queue}[kind]
    try:
        return chain(run, name)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        why = f"no key {e.args[0]!r}" if isinstance(e, KeyError) else str(e)
        raise ConfigError(f"not a fairshare summary (docs/outputs.md): {why}",
                          str(run.outdir / SUMMARY)) from None


def _unknown(kind: str, name: str, known: Sequence[str]) -> ConfigError:
    close = difflib.get_close_matches(name, list(known), n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    return ConfigError(f"no {kind} {name} in this run{hint}", f"--{kind} {name}")


# -- apps ------------------------------------------------------------------------------------------


def explain_app(run: Run, app: str) -> Explanation:
    apps = run.summary["apps"]
    entry = apps.get(app)
    mine = [e for e in run.events if e.get("app") == app or e.get("beneficiary-app") == app]
    if entry is None and not mine:
        raise _unknown("app", app, list(apps))
    said: list[Statement] = []
    rejected = _first(mine, "app-rejected")
    if rejected is not None:
        said.append(Statement(rejected["t"], f"Submitted to {rejected['requested-queue']} and "
                              f"rejected: {rejected['reason']}.", (rejected["seq"],)))
        return Explanation(f"app {app}", tuple(said))
    submitted = _first(mine, "app-submitted")
    if submitted is None:
        said.append(Statement(None, f"{app} was not submitted before the run ended "
                                    f"(at {_t(run.summary['span']['end-ms'])})."))
        return Explanation(f"app {app}", tuple(said))
    t0 = submitted["t"]
    queue = submitted["queue"]
    said.append(Statement(t0, f"Submitted by {submitted['user']}, asking for queue "
                          f"{submitted['requested-queue']}; placed in {queue} "
                          f"({submitted['placed-by']}).", (submitted["seq"],)))
    said += _admission(mine)
    # containers it ran when the run started come first (taken over: container-recovered)
    allocated = [e for e in mine if e["type"] in ("container-recovered", "container-allocated")
                 and e["app"] == app]
    am = next((e for e in allocated if e["am"]), None)
    first_task = next((e for e in allocated if not e["am"]), None)
    said += _recovered(allocated)
    served = am if submitted.get("am") is not None else first_task
    end = served["t"] if served is not None else run.summary["span"]["end-ms"]
    said += _why_it_waited(run, mine, app, queue, t0, end)
    last = run.summary["span"]["end-ms"]
    said += _reservations(run, mine, app, t0, end, first_task["t"] if first_task else last)
    if am is not None and am["type"] == "container-allocated":
        said.append(Statement(am["t"], f"Its AM container was placed on {am['node']} "
                              f"({_via(am)}), {_t(am['t'] - t0)} after submission.",
                              (am["seq"],)))
    elif am is None and submitted.get("am") is not None:
        said.append(Statement(end, f"Its AM container was never placed: it waited "
                              f"{_t(end - t0)}, to the end of the run."))
    if first_task is not None and first_task["type"] == "container-allocated":
        said.append(Statement(first_task["t"], f"Its first task container was placed on "
                              f"{first_task['node']} ({_via(first_task)}), "
                              f"{_t(first_task['t'] - t0)} after submission.",
                              (first_task["seq"],)))
    said += _preemption_for(mine, app, after=end)
    said += _preempted_from(mine, app)
    finished = _first(mine, "app-finished")
    said += _timed_changes(run, mine, app, queue, t0, finished["t"] if finished else last)
    if finished is not None:
        said.append(Statement(finished["t"], f"It {finished['state']} at {_t(finished['t'])}: "
                              f"turnaround {_t(finished['t'] - t0)}.", (finished["seq"],)))
    elif entry is not None:
        said.append(Statement(last, f"It had not finished when the run ended "
                                    f"({entry['tasks-done']} of {entry['tasks-total']} tasks "
                                    f"done)."))
    # in the order things happened (a statement without a time stays after its predecessor)
    timed = sorted(enumerate(said), key=lambda item: (_when(said, item[0]), item[0]))
    return Explanation(f"app {app}", tuple(statement for _, statement in timed))


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


def _when(said: list[Statement], index: int) -> int:
    """A statement's time, or that of the nearest earlier one with a time."""
    for statement in reversed(said[:index + 1]):
        if statement.time_ms is not None:
            return statement.time_ms
    return -1


def _admission(mine: list[dict[str, Any]]) -> Iterator[Statement]:
    for e in mine:
        if e["type"] == "app-not-runnable":
            yield Statement(e["t"], f"Held, not runnable: {e['reason']}.", (e["seq"],))
        elif e["type"] == "app-runnable" and e["promoted"]:
            yield Statement(e["t"], "Made runnable when another app left.", (e["seq"],))


def _why_it_waited(run: Run, mine: list[dict[str, Any]], app: str, queue: str, start: int,
                   end: int) -> Iterator[Statement]:
    """Between submission and the container that served it: starvation, the gate, rounds."""
    preemption = run.summary["cluster"].get("preemption", {})
    gates = [e for e in run.events if e["type"] == "starvation-gate" and e["t"] <= end]
    starved = [e for e in mine if e["type"] == "starvation" and e["app"] == app
               and start <= e["t"] <= end]
    if end - start <= 0:
        return
    if not preemption.get("enabled", True):
        yield Statement(None, "Preemption is off (yarn.scheduler.fair.preemption), so nothing "
                              "was taken from other apps for it: it waited for containers to "
                              "finish.")
        return
    if not starved:
        closed = gates[-1] if gates and not gates[-1]["open"] else None
        if closed is not None:
            yield Statement(closed["t"], f"It was never found starved: the utilization gate "
                            f"was closed (cluster utilization {_pct(closed['utilization'])} "
                            f"≤ threshold {_pct(closed['threshold'])}; starvation is only "
                            f"evaluated above it).", (closed["seq"],))
        else:
            yield Statement(None, "It was never found starved before it was served (it got "
                                  "room before its preemption timeout passed, or stayed at or "
                                  "above threshold × its fair share).")
        return
    first = starved[0]
    yield Statement(first["t"], _starvation_text(run, queue, first), (first["seq"],))
    if len(starved) > 1:
        times = ", ".join(_t(e["t"]) for e in starved[1:6])
        more = f" and {len(starved) - 6} more" if len(starved) > 6 else ""
        yield Statement(starved[1]["t"], f"Found starved again at {times}{more}: after a "
                        f"round YARN waits (waitTimeBeforeKill + allocation delay + "
                        f"waitTimeBeforeNextStarvationCheck) before looking again.",
                        tuple(e["seq"] for e in starved[1:6]))
    open_gate = next((g for g in reversed(gates) if g["t"] <= first["t"]), None)
    if open_gate is not None and open_gate["open"]:
        yield Statement(first["t"], f"The utilization gate was open (since "
                        f"{_t(open_gate['t'])}: cluster utilization "
                        f"{_pct(open_gate['utilization'])}, above the threshold of "
                        f"{_pct(open_gate['threshold'])}), so starvation was evaluated.",
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
        after = (f" It was unreserved at {_t(ended['t'])} ({ended['reason']})." if ended
                 else " It still held it when the run ended.")
        yield Statement(e["t"], f"It reserved {e['node']} for a container of "
                        f"{_res(e['resource'])}: the node's free space was too small, and a "
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
    for e in _events(outdir / EVENTS, wanted):
        if e["type"] == "container-reserved" and e["t"] < start:
            held[e["node"]] = e
        elif e["type"] == "container-unreserved" and e["t"] < start:
            held.pop(e["node"], None)
        elif e["type"] == "container-reserved" and e["t"] < end and e["app"] != app:
            made.append(e)
    overlapping = [e for e in held.values() if e["app"] != app] + made
    return sorted(overlapping, key=lambda e: e["seq"])


def _starvation_text(run: Run, queue: str, e: dict[str, Any]) -> str:
    settings = (run.summary["queues"].get(queue) or {}).get("settings") or {}
    origins = settings.get("set-in", {})
    kind = e["kind"]
    parts = [f"Found {kind} starved by {_res(e['amount'])}: usage {_res(e['usage'])} against "
             f"an instantaneous fair share of {_res(e['fair-share'])}"]
    if "fair-share" in kind:
        threshold = settings.get("fair-share-preemption-threshold")
        timeout = settings.get("fair-share-preemption-timeout-ms")
        if threshold is not None and timeout is not None:
            parts.append(
                f"below {threshold:g} × that share since {_t(e['since-ms'])}, longer than its "
                f"fairSharePreemptionTimeout of {_t(timeout)} (threshold set in "
                f"{origins.get('fair-share-preemption-threshold')}, timeout in "
                f"{origins.get('fair-share-preemption-timeout-ms')})")
    if "min-share" in kind:
        timeout = settings.get("min-share-preemption-timeout-ms")
        parts.append(f"below its min share since {_t(e['since-ms'])}, longer than its "
                     f"minSharePreemptionTimeout of {_t(timeout) if timeout else '?'} (set in "
                     f"{origins.get('min-share-preemption-timeout-ms')})")
    return "; ".join(parts) + "."


def _preemption_for(mine: list[dict[str, Any]], app: str, *, after: int
                    ) -> Iterator[Statement]:
    """Rounds: what each wanted and found (by cause), victims warned, killed, space served."""
    for e in mine:
        if e["type"] == "no-preemption" and e["app"] == app:
            wanted, found = e["containers-wanted"], e["containers-found"]
            causes = "; ".join(f"{n} {_CAUSES.get(c, c)}" for c, n in e["blocked"].items())
            text = (f"A preemption round wanted {wanted} container(s) for it and found victims "
                    f"for {found}" + (f": {causes}." if causes else f" ({e['reason']})."))
            yield Statement(e["t"], text, (e["seq"],))
    warned = [e for e in mine if e["type"] == "preemption-warned" and e["beneficiary-app"] == app]
    for t, batch in _by_time(warned):
        from_apps = Counter(f"{e['app']} ({e['queue']})" for e in batch)
        who = ", ".join(f"{n} of {name}" for name, n in from_apps.items())
        yield Statement(t, f"{len(batch)} container(s) warned for it — {who} on "
                        f"{', '.join(sorted({e['node'] for e in batch}))} — to be killed at "
                        f"{_t(batch[0]['kill-at-ms'])} (waitTimeBeforeKill later), each "
                        f"victim app staying at or above its fair share.",
                        tuple(e["seq"] for e in batch))
    killed = [e for e in mine if e["type"] == "container-preempted" and e["beneficiary-app"] == app]
    for t, batch in _by_time(killed):
        yield Statement(t, f"{len(batch)} of them killed; the freed space is earmarked for it.",
                        tuple(e["seq"] for e in batch))
    earmarked = [e for e in mine if e["type"] == "container-allocated" and e["app"] == app
                 and e["via"] == "earmark"]
    for t, batch in _by_time(earmarked):
        yield Statement(t, f"{len(batch)} container(s) placed for it on the earmarked space.",
                        tuple(e["seq"] for e in batch))


def _preempted_from(mine: list[dict[str, Any]], app: str) -> Iterator[Statement]:
    lost = [e for e in mine if e["type"] == "container-preempted" and e["app"] == app]
    for t, batch in _by_time(lost):
        to = Counter(f"{e['beneficiary-app']} ({e['beneficiary-queue']})" for e in batch)
        yield Statement(t, f"{len(batch)} of its containers were preempted for "
                        f"{', '.join(to)}.", tuple(e["seq"] for e in batch))


_CAUSES = {
    "no-node-fits": "fit on no node even if everything there were freed",
    "non-preemptable-queue": "blocked by containers of non-preemptable queues",
    "am-preemption-off": "could only be made room for by AM containers (AM preemption off)",
    "already-chosen": "blocked by containers already chosen for other apps",
    "victims-at-fair-share": "blocked because what was left to take belonged to apps at or "
                             "below their fair share (its own included)",
    "room-free-already": "needed no victim (the node had room)",
}


# -- containers ------------------------------------------------------------------------------------


def explain_container(run: Run, container: str) -> Explanation:
    mine = [e for e in run.events if e.get("container") == container]
    if not mine:
        raise ConfigError(f"no container {container} in this run's events",
                          f"--container {container}")
    said: list[Statement] = []
    placed = _first(mine, "container-allocated")
    recovered = _first(mine, "container-recovered")
    if recovered is not None:
        placed = recovered
        said.append(Statement(recovered["t"], f"Running on {recovered['node']} for "
                              f"{recovered['app']} ({recovered['queue']})"
                              f"{' as its AM' if recovered['am'] else ''} when the run started, "
                              f"{_res(recovered['resource'])}: taken over where it ran (YARN's "
                              "work-preserving recovery).", (recovered["seq"],)))
    elif placed is not None:
        said.append(Statement(placed["t"], f"Placed on {placed['node']} for {placed['app']} "
                              f"({placed['queue']}){' as its AM' if placed['am'] else ''}, "
                              f"{_res(placed['resource'])} ({_via(placed)}).", (placed["seq"],)))
    warned = _first(mine, "preemption-warned")
    if warned is not None:
        said.append(Statement(warned["t"], (
            f"Chosen as a victim for {warned['beneficiary-app']} ({warned['beneficiary-queue']}), "
            f"{warned['starvation-kind']} starved (fair-share starvation "
            f"{_res(warned['fairshare-starvation'])}, min-share "
            f"{_res(warned['minshare-starvation'])}), to make room for a container of "
            f"{_res(warned['request'])} on {warned['node']}: {_why_this_node(warned)} "
            f"Its app {warned['app']} held "
            f"{_res(warned['victim-usage'])} against a fair share of "
            f"{_res(warned['victim-fair-share'])}, and keeps "
            f"{_res(warned['victim-usage-after'])} after everything chosen so far: not below it."
        ), (warned["seq"],)))
    killed = _first(mine, "container-preempted")
    if killed is not None:
        wait = f" ({_t(killed['t'] - warned['t'])} after the warning)" if warned else ""
        lost = f"; {_t(killed['t'] - placed['t'])} of its work lost" if placed else ""
        said.append(Statement(killed["t"], f"Killed{wait}{lost}.", (killed["seq"],)))
    completed = _first(mine, "container-completed")
    if completed is not None and killed is None:
        said.append(Statement(completed["t"], f"Completed ({completed['status']}); never "
                              f"preempted.", (completed["seq"],)))
        if completed["status"] == "lost":
            said += [Statement(t, text, seqs) for t, text, seqs
                     in explain_changes.node_losses(run.summary, [completed])]
    return Explanation(f"container {container}", tuple(said))


def _why_this_node(warned: Mapping[str, Any]) -> str:
    """``identifyContainersToPreemptForOneContainer`` in words, with the numbers the event
    carries (runs written before they were added lack them)."""
    name = warned.get("request-resource-name")
    if name is None:
        return ("the first node where preempting frees enough with the fewest AM containers.")
    where = ("any node" if name == "*" else f"rack {name}" if name.startswith("/")
             else f"node {name}")
    am, victims = warned["node-am-victims"], warned["node-victims"]
    rule = ("the first node, in its node order, where the containers to take include no AM "
            "container" if am == 0 else
            f"the node needing the fewest AM containers ({am}): none could do without")
    return (f"the request could go to {where}, and YARN takes {rule}. Here {victims} "
            f"container(s) had to be taken, the node having {_res(warned['node-free'])} free.")


# -- queues ----------------------------------------------------------------------------------------


def explain_queue(run: Run, queue: str) -> Explanation:
    queues = run.summary["queues"]
    q = queues.get(queue)
    if q is None:
        raise _unknown("queue", queue, list(queues))
    said: list[Statement] = []
    settings = q.get("settings") or {}
    starved_ms, short_ms = q["time-starved-ms"], q["time-short-of-fair-share-threshold-ms"]
    contention = q["during-contention"]
    said.append(Statement(None, f"{queue} had unmet demand for {_t(contention['ms'])}; it was "
                          f"short of its fair-share threshold for {_t(short_ms)} and starved "
                          f"(YARN's sense, which needs preemption on) for {_t(starved_ms)}."))
    if contention["ms"]:
        said.append(Statement(None, f"During contention it averaged {_pair(contention['usage'])} "
                              f"against an instantaneous fair share of "
                              f"{_pair(contention['fair-share'])} (steady "
                              f"{_pair(contention['steady-fair-share'])})."))
    starvations = [e for e in run.events if e["type"] == "starvation" and e["queue"] == queue]
    if starvations:
        first = starvations[0]
        said.append(Statement(first["t"], f"Its apps were found starved {len(starvations)} "
                              f"time(s), first {first['app']} at {_t(first['t'])}.",
                              tuple(e["seq"] for e in starvations[:10])))
    else:
        said += _why_never_starved(run, q, settings)
    said += _queue_preemptions(run, queue)
    said += [Statement(t, text) for t, text in sorted(
        [*explain_changes.reloads_touching(run.summary, queue),
         *explain_changes.node_changes(run.summary, [
             e for e in run.events if e["type"] == "container-completed"
             and e["queue"] == queue and e["status"] == "lost"])], key=lambda item: item[0])]
    return Explanation(f"queue {queue}", tuple(said))


def _why_never_starved(run: Run, q: Mapping[str, Any], settings: Mapping[str, Any]
                       ) -> Iterator[Statement]:
    preemption = run.summary["cluster"].get("preemption", {})
    gates = [e for e in run.events if e["type"] == "starvation-gate"]
    if not preemption.get("enabled", True):
        yield Statement(None, "It was never starved: preemption is off "
                              "(yarn.scheduler.fair.preemption), and YARN only evaluates "
                              "starvation when it is on.")
        return
    if not any(g["open"] for g in gates):
        seqs = tuple(g["seq"] for g in gates[:1])
        yield Statement(None, f"It was never starved: the utilization gate never opened (the "
                        f"cluster never got busier than "
                        f"{_pct(preemption.get('utilization-threshold'))}).", seqs)
        return
    origins = settings.get("set-in", {})
    if settings.get("fair-share-preemption-timeout-ms") is None and (
            settings.get("min-share-preemption-timeout-ms") is None):
        yield Statement(None, f"It was never starved: no fair-share or min-share preemption "
                        f"timeout applies to it (fair-share: "
                        f"{origins.get('fair-share-preemption-timeout-ms')}, min-share: "
                        f"{origins.get('min-share-preemption-timeout-ms')}).")
        return
    threshold = settings.get("fair-share-preemption-threshold")
    contention = q["during-contention"]
    demand, share = contention["demand"]["memory-mb"], contention["fair-share"]["memory-mb"]
    if threshold is not None and demand is not None and share and demand < threshold * share:
        yield Statement(None, f"It was never starved: its demand during contention "
                        f"({demand:,.0f} MB on average) stayed below threshold {threshold:g} × "
                        f"its fair share ({threshold * share:,.0f} MB), so the threshold could "
                        f"not bind.")
        return
    yield Statement(None, "It was never starved: it stayed at or above threshold × its fair "
                          "share, or got room before its timeout passed.")


def _queue_preemptions(run: Run, queue: str) -> Iterator[Statement]:
    killed = [e for e in run.events if e["type"] == "container-preempted"]
    took = Counter(e["queue"] for e in killed if e["beneficiary-queue"] == queue)
    lost = Counter(e["beneficiary-queue"] for e in killed if e["queue"] == queue)
    if took:
        yield Statement(None, "Containers preempted for it: " + ", ".join(
            f"{n} from {q}" for q, n in took.most_common()) + ".",
            tuple(e["seq"] for e in killed if e["beneficiary-queue"] == queue)[:20])
    if lost:
        yield Statement(None, "Containers preempted from it: " + ", ".join(
            f"{n} for {q}" for q, n in lost.most_common()) + ".",
            tuple(e["seq"] for e in killed if e["queue"] == queue)[:20])
    if not took and not lost:
        yield Statement(None, "Nothing was preempted for it or from it.")


# -- helpers ---------------------------------------------------------------------------------------


def _first(events: list[dict[str, Any]], kind: str) -> dict[str, Any] | None:
    return next((e for e in events if e["type"] == kind), None)


def _by_time(events: list[dict[str, Any]]) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    batch: list[dict[str, Any]] = []
    for e in events:
        if batch and e["t"] != batch[0]["t"]:
            yield batch[0]["t"], batch
            batch = []
        batch.append(e)
    if batch:
        yield batch[0]["t"], batch


_VIA = {"heartbeat": "on a node heartbeat", "reservation": "on its reservation",
        "earmark": "on space freed by preemption"}


def _via(e: Mapping[str, Any]) -> str:
    via = str(e["via"])
    return _VIA.get(via, via)


def _t(ms: int | None) -> str:
    return "never" if ms is None else duration(ms)


def _res(r: Mapping[str, Any]) -> str:
    return ", ".join(f"{v:,} MB" if k == "memory-mb" else f"{v:,} {k}" for k, v in r.items())


def _pair(r: Mapping[str, Any]) -> str:
    mb, vc = r.get("memory-mb"), r.get("vcores")
    return "–" if mb is None else f"{mb:,.0f} MB, {vc:,.1f} vcores"


def _pct(x: float | None) -> str:
    return "?" if x is None else percent(x)

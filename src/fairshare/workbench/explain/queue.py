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

from collections import Counter
from collections.abc import Iterator, Mapping
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.sim.record.outputs import EVENTS
from fairshare.sim.record.summary_model import QueueEntry, Settings
from fairshare.workbench.explain import changes as explain_changes
from fairshare.workbench.explain.app import explain_app
from fairshare.workbench.explain.model import (
    Explanation,
    Run,
    Statement,
    at,
    first_event,
    load_run,
    pair,
    pct,
    res,
    unknown_subject,
    via_text,
)
from fairshare.workbench.explain.waiting import held_by_other_than_preemption, waiting_statements

__all__ = ["Explanation", "Statement", "explain", "explain_app", "explain_container",
           "explain_queue", "load_run"]


def explain(run: Run, kind: str, name: str) -> Explanation:
    """The chain for ``--app``, ``--container`` or ``--queue`` (``kind``) ``name``.

    The summary was checked whole as it was read (its model, sim/record/summary_model.py);
    the events were checked line by line against their classes, but as records: keys an
    event gained later may be missing, and a type this version does not know is checked for
    its frame only. What a chain then finds missing or of another kind in them is reported
    here, as the events' error, rather than as a traceback."""
    chain = {"app": explain_app, "container": explain_container, "queue": explain_queue}[kind]
    try:
        return chain(run, name)
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        why = f"no key {e.args[0]!r}" if isinstance(e, KeyError) else str(e)
        raise ConfigError(f"not a fairshare event: {why}", str(run.outdir / EVENTS)) from None


# -- containers ------------------------------------------------------------------------------------


def explain_container(run: Run, container: str) -> Explanation:
    mine = [e for e in run.events if e.get("container") == container]
    if not mine:
        raise ConfigError(f"no container {container} in this run's events",
                          f"--container {container}")
    said: list[Statement] = []
    placed = first_event(mine, "container-allocated")
    recovered = first_event(mine, "container-recovered")
    if recovered is not None:
        placed = recovered
        said.append(Statement(recovered["t"], f"Running on {recovered['node']} for "
                              f"{recovered['app']} ({recovered['queue']})"
                              f"{' as its AM' if recovered['am'] else ''} when the run started, "
                              f"{res(recovered['resource'])}: taken over where it ran (YARN's "
                              "work-preserving recovery).", (recovered["seq"],)))
    elif placed is not None:
        said.append(Statement(placed["t"], f"Placed on {placed['node']} for {placed['app']} "
                              f"({placed['queue']}){' as its AM' if placed['am'] else ''}, "
                              f"{res(placed['resource'])} ({via_text(placed)}).", (placed["seq"],)))
    warned = first_event(mine, "preemption-warned")
    if warned is not None:
        said.append(Statement(warned["t"], (
            f"Chosen as a victim for {warned['beneficiary-app']} ({warned['beneficiary-queue']}), "
            f"{warned['starvation-kind']} starved (fair-share starvation "
            f"{res(warned['fairshare-starvation'])}, min-share "
            f"{res(warned['minshare-starvation'])}), to make room for a container of "
            f"{res(warned['request'])} on {warned['node']}: {_why_this_node(warned)} "
            f"Its app {warned['app']} held "
            f"{res(warned['victim-usage'])} against a fair share of "
            f"{res(warned['victim-fair-share'])}, and keeps "
            f"{res(warned['victim-usage-after'])} after everything chosen so far: not below it."
        ), (warned["seq"],)))
    killed = first_event(mine, "container-preempted")
    if killed is not None:
        wait = f" ({at(killed['t'] - warned['t'])} after the warning)" if warned else ""
        lost = f"; {at(killed['t'] - placed['t'])} of its work lost" if placed else ""
        said.append(Statement(killed["t"], f"Killed{wait}{lost}.", (killed["seq"],)))
    completed = first_event(mine, "container-completed")
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
            f"container(s) had to be taken, the node having {res(warned['node-free'])} free.")


# -- queues ----------------------------------------------------------------------------------------


def explain_queue(run: Run, queue: str) -> Explanation:
    queues = run.summary.queues
    q = queues.get(queue)
    if q is None:
        raise unknown_subject("queue", queue, list(queues))
    said: list[Statement] = []
    starved_ms, short_ms = q.time_starved_ms, q.time_short_of_fair_share_threshold_ms
    contention = q.during_contention
    said.append(Statement(None, f"{queue} had unmet demand for {at(contention.ms)}; it was "
                          f"short of its fair-share threshold for {at(short_ms)} and starved "
                          f"(YARN's sense, which needs preemption on) for {at(starved_ms)}."))
    if contention.ms:
        said.append(Statement(None, f"During contention it averaged {pair(contention.usage)} "
                              f"against an instantaneous fair share of "
                              f"{pair(contention.fair_share)} (steady "
                              f"{pair(contention.steady_fair_share)})."))
    said += waiting_statements(q)
    starvations = [e for e in run.events if e["type"] == "starvation" and e["queue"] == queue]
    if starvations:
        first = starvations[0]
        said.append(Statement(first["t"], f"Its apps were found starved {len(starvations)} "
                              f"time(s), first {first['app']} at {at(first['t'])}.",
                              tuple(e["seq"] for e in starvations[:10])))
    elif (held := held_by_other_than_preemption(q)) is not None:
        said.append(Statement(None, f"It was never starved, and preemption was not what it "
                                    f"waited for: it was held by {held}."))
    else:
        said += _why_never_starved(run, q, q.settings)
    said += _queue_preemptions(run, queue)
    said += [Statement(t, text) for t, text in sorted(
        [*explain_changes.reloads_touching(run.summary, queue),
         *explain_changes.node_changes(run.summary, [
             e for e in run.events if e["type"] == "container-completed"
             and e["queue"] == queue and e["status"] == "lost"])], key=lambda item: item[0])]
    return Explanation(f"queue {queue}", tuple(said))


def _why_never_starved(run: Run, q: QueueEntry, settings: Settings | None
                       ) -> Iterator[Statement]:
    """Why a queue was never starved; ``settings`` None: the queue was gone by the end."""
    preemption = run.summary.cluster.preemption
    gates = [e for e in run.events if e["type"] == "starvation-gate"]
    if not preemption.enabled:
        yield Statement(None, "It was never starved: preemption is off "
                              "(yarn.scheduler.fair.preemption), and YARN only evaluates "
                              "starvation when it is on.")
        return
    if not any(g["open"] for g in gates):
        seqs = tuple(g["seq"] for g in gates[:1])
        yield Statement(None, f"It was never starved: the utilization gate never opened (the "
                        f"cluster never got busier than "
                        f"{pct(preemption.utilization_threshold)}).", seqs)
        return
    if settings is None or (settings.fair_share_preemption_timeout_ms is None
                            and settings.min_share_preemption_timeout_ms is None):
        origins = None if settings is None else settings.set_in  # None: gone, nothing known
        yield Statement(None, f"It was never starved: no fair-share or min-share preemption "
                        f"timeout applies to it (fair-share: "
                        f"{origins and origins.fair_share_preemption_timeout_ms}, min-share: "
                        f"{origins and origins.min_share_preemption_timeout_ms}).")
        return
    threshold = settings.fair_share_preemption_threshold
    contention = q.during_contention
    demand, share = contention.demand.memory_mb, contention.fair_share.memory_mb
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

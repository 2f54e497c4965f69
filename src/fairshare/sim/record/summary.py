"""``summary.json``: what a simulation's recorder and app model add up to (docs/outputs.md).

:func:`build_summary` reads the engine at the end of the run (through its public questions),
the :class:`~fairshare.sim.record.recorder.SimRecorder`'s integrals and counts, and each app's
progress from the loop's app model (anything shaped as :class:`Progress`: this layer does not
import the loop), into the typed :class:`~fairshare.sim.record.summary_model.Summary`.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from fairshare.config.model import TIMEOUT_NEVER_MS, UNSET_THRESHOLD, UNSET_TIMEOUT_MS
from fairshare.core import AppState, Engine
from fairshare.resources.vector import float32_decimal
from fairshare.sim.record.recorder import SimRecorder
from fairshare.sim.record.summary_model import (
    AppEntry,
    ChangeRecord,
    Cluster,
    ClusterPreemption,
    Contention,
    Counts,
    IdleTail,
    MaybePair,
    Pair,
    Percentiles,
    QueueEntry,
    ScenarioEntry,
    Settings,
    SettingsOrigins,
    Span,
    Summary,
    WaitCause,
    Waiting,
)
from fairshare.sim.record.waiting import waiting_entry
from fairshare.sim.sources.workload import AppSpec


class Progress(Protocol):
    """What the summary reads of one app's progress (the loop's ``AppProgress``)."""

    @property
    def spec(self) -> AppSpec: ...
    @property
    def submitted_ms(self) -> int | None: ...
    @property
    def started_ms(self) -> int | None: ...  # first container (the AM, for a managed app)
    @property
    def first_task_ms(self) -> int | None: ...
    @property
    def finished_ms(self) -> int | None: ...
    @property
    def tasks_done(self) -> int: ...
    @property
    def total_tasks(self) -> int: ...
    @property
    def preempted_containers(self) -> int: ...
    @property
    def lost_work_ms(self) -> int: ...


def build_summary(engine: Engine, recorder: SimRecorder,
                  apps: Mapping[str, Progress | AppEntry], scenario: ScenarioEntry, *,
                  events_before: int = 0, changes: tuple[ChangeRecord, ...] = ()) -> Summary:
    """The ``summary.json`` document; ``apps``: each app's progress, or the entry made for it
    already (an ended app the engine has forgotten, :func:`app_entry`); ``scenario``: the
    name, description, seed and overrides the run was made with; ``events_before``: the
    lines of ``events.jsonl`` written before the simulation (the scenario's steps, its
    nodes), so that ``counts.events`` is the file's line count, as the terminal says;
    ``changes``: the timed changes as they happened.

    Fields come in a fixed order and queues in tree order, so a run gives the same bytes again.
    """
    app_entries = {app_id: p if isinstance(p, AppEntry) else app_entry(engine, recorder, p)
                   for app_id, p in apps.items()}
    return Summary(
        scenario=scenario,
        span=Span(recorder.start_ms, recorder.end_ms, recorder.snapshot_every_ms,
                  recorder.samples),
        counts=_counts(recorder, app_entries, events_before),
        cluster=_cluster(engine, recorder),
        idle_tail=_idle_tail(recorder),
        queues=_queues(engine, recorder, app_entries),
        apps=app_entries,
        changes=changes,
    )


def app_entry(engine: Engine, recorder: SimRecorder, p: Progress) -> AppEntry:
    spec, app = p.spec, engine.state.apps.get(p.spec.id)
    state = "not-submitted" if p.submitted_ms is None or app is None else str(app.state)
    submit, start, finish = p.submitted_ms, p.started_ms, p.finished_ms
    am_start = start if spec.am is not None else None
    return AppEntry(
        queue=(app.queue or None) if app is not None else None,
        requested_queue=spec.queue,
        user=spec.user,
        managed=spec.am is not None,
        state=state,
        rejected_reason=recorder.apps.rejected.get(spec.id),
        submit_ms=submit,
        start_ms=start,
        finish_ms=finish,
        wait_ms=_since(submit, start),
        run_ms=_since(start, finish),
        am_wait_ms=_since(submit, am_start),
        first_task_wait_ms=_since(submit, p.first_task_ms),
        turnaround_ms=_since(submit, finish),
        unmet_demand_ms=recorder.apps.unmet_ms[spec.id] if submit is not None else None,
        tasks_done=p.tasks_done,
        tasks_total=p.total_tasks,
        preempted_containers=p.preempted_containers,
        lost_work_ms=p.lost_work_ms,
    )


def _since(start: int | None, end: int | None) -> int | None:
    return None if start is None or end is None else end - start


def _counts(recorder: SimRecorder, apps: Mapping[str, AppEntry], events_before: int
            ) -> Counts:
    states = Counter(entry.state for entry in apps.values())
    submitted = len(apps) - states["not-submitted"]
    return Counts(
        apps=len(apps),
        apps_submitted=submitted,
        apps_rejected=states[str(AppState.REJECTED)],
        apps_finished=states[str(AppState.FINISHED)],
        apps_unfinished=submitted - states[str(AppState.REJECTED)]
        - states[str(AppState.FINISHED)],
        containers_allocated=sum(recorder.allocated.values()),
        # running when the simulation started (an imported cluster): they complete and are
        # preempted like the others, so the totals add up only with them
        containers_recovered=sum(recorder.recovered.values()),
        containers_completed=sum(recorder.completed.values()),
        containers_preempted=sum(recorder.preempted_from.values()),
        events=events_before + recorder.events,
        lost_work_ms=sum(entry.lost_work_ms for entry in apps.values()),
        preempted_container_ms=recorder.apps.preempted_container_ms,
    )


def _cluster(engine: Engine, recorder: SimRecorder) -> Cluster:
    state, types = engine.state, engine.types
    cap_mb, cap_vc, alloc_mb, alloc_vc = (int(v) for v in recorder.cluster_sums)
    weight = recorder.weight_ms or 1
    return Cluster(
        capacity=types.as_dict(state.capacity),
        nodes=len(state.nodes),
        utilization=MaybePair(_ratio(alloc_mb, cap_mb, 4), _ratio(alloc_vc, cap_vc, 4)),
        average_allocated=Pair(round(alloc_mb / weight, 3), round(alloc_vc / weight, 3)),
        # what the report draws the utilization gate with (docs/semantics.md §4.1)
        preemption=ClusterPreemption(engine.site.preemption, float32_decimal(
            engine.site.preemption_cluster_utilization_threshold)),
    )


def _idle_tail(recorder: SimRecorder) -> IdleTail | None:
    """The end of the run in which the cluster had nothing left to run (an explicit end past
    the last app): every time average includes it. How long it was, and the averages without
    it: the utilization, and the factor the queues' usage averages grow by (usage is 0 in it)."""
    tail = recorder.idle_tail()
    if tail is None or recorder.end_ms is None:
        return None
    start, sums, weight = tail
    cap_mb, cap_vc, alloc_mb, alloc_vc = (int(v) for v in sums)
    return IdleTail(start_ms=start, ms=recorder.end_ms - start, span_without_ms=weight,
                    utilization_without=MaybePair(_ratio(alloc_mb, cap_mb, 4),
                                                  _ratio(alloc_vc, cap_vc, 4)),
                    usage_factor_without=round(recorder.weight_ms / weight, 4))


def _ratio(part: int, whole: int, digits: int) -> float | None:
    return None if whole <= 0 else round(part / whole, digits)


def _queues(engine: Engine, recorder: SimRecorder, apps: Mapping[str, AppEntry]
            ) -> dict[str, QueueEntry]:
    counts = {name: _subtree(engine, counter) for name, counter in (
        ("allocated", recorder.allocated), ("recovered", recorder.recovered),
        ("completed", recorder.completed),
        ("from", recorder.preempted_from), ("for", recorder.preempted_for))}
    seen = set(recorder.integrals.index).union(*counts.values())  # every count is ≥ 1
    waits = _app_waits(engine, apps, recorder.end_ms)
    return {name: _queue_entry(recorder, name, counts, waits.get(name, {}),
                               _waiting(waiting_entry(recorder.waiting, name)),
                               _settings(engine, name))
            for name in _queue_order(engine, recorder, seen)}


def _waiting(entry: Mapping[str, Any]) -> Waiting:
    """sim/record/waiting.py's account of a queue's waiting, as the model's values."""
    return Waiting(entry["app-ms"], tuple(
        WaitCause(c["cause"], c["limit"], c["ms"], c["share"], tuple(c["seqs"]))
        for c in entry["causes"]))


# summary key, QueueConfig attribute, AllocationConfig default attribute, its element
_PREEMPTION_SETTINGS = (
    ("fair-share-preemption-timeout-ms", "fair_share_preemption_timeout_ms",
     "default_fair_share_preemption_timeout_ms", "defaultFairSharePreemptionTimeout"),
    ("fair-share-preemption-threshold", "fair_share_preemption_threshold",
     "default_fair_share_preemption_threshold", "defaultFairSharePreemptionThreshold"),
    ("min-share-preemption-timeout-ms", "min_share_preemption_timeout_ms",
     "default_min_share_preemption_timeout_ms", "defaultMinSharePreemptionTimeout"),
)


def _settings(engine: Engine, name: str) -> Settings | None:
    """The queue's effective preemption settings at the end, and where each comes from: the
    queue itself or the ancestor that sets it (inherited, §1.3.3), the file's top-level
    default, or YARN's default — what ``fairshare explain`` tells a starved queue by. A
    timeout of ``null`` never expires (Long.MAX_VALUE: unset in the whole file)."""
    if name not in engine.tree:
        return None  # gone by the end (a reload, an emptied dynamic queue)
    settings = engine.settings(name)
    values: dict[str, Any] = {}
    origins: dict[str, str] = {}
    for key, attr, default_attr, element in _PREEMPTION_SETTINGS:
        value = getattr(settings, attr)
        if key.endswith("-ms"):
            value = None if value in (TIMEOUT_NEVER_MS, UNSET_TIMEOUT_MS) else value
        else:
            value = None if value == UNSET_THRESHOLD else float32_decimal(value)
        values[attr] = value
        origins[attr] = _origin(engine, name, attr, default_attr, element)
    return Settings(weight=float32_decimal(settings.weight), policy=str(settings.policy),
                    min_share=engine.types.as_dict(settings.min_share),
                    preemptable=settings.preemptable, **values,
                    set_in=SettingsOrigins(**origins))


def _origin(engine: Engine, queue: str, attr: str, default_attr: str, element: str) -> str:
    allocations = engine.allocations
    for name in engine.ancestry(queue):  # the queue first, then up to root
        own = allocations.queue(name)
        if own is not None and getattr(own, attr) is not None:
            return name
    if not allocations.has_file:
        return "no allocation file"
    if getattr(allocations, default_attr) is not None:
        return f"<{element}>"
    return "YARN default"


# An app's times that a queue reports percentiles of (AM waits: managed apps only)
_WAITS = ("am-wait-ms", "first-task-wait-ms", "turnaround-ms")


def _app_waits(engine: Engine, apps: Mapping[str, AppEntry], end_ms: int | None
               ) -> dict[str, dict[str, list[tuple[int, bool]]]]:
    """Per queue (an app counts in its queue and every ancestor), per wait: (ms, reached?)
    of each submitted app placed there; an app that has not reached the point by the end
    (no AM, no task, not finished) counts with its wait so far, as not reached. An app that
    has no AM (unmanaged) has no AM wait, and one with no task no first-task wait: there is
    nothing to wait for, not a wait as long as the run."""
    out: dict[str, dict[str, list[tuple[int, bool]]]] = {}
    for entry in apps.values():
        queue, submit = entry.queue, entry.submit_ms
        if queue is None or submit is None or end_ms is None:
            continue
        queues = engine.ancestry(queue) if queue in engine.tree else (queue,)
        app_waits = entry.waits()
        for key in _WAITS:
            if (key == "am-wait-ms" and not entry.managed) or (
                    key == "first-task-wait-ms" and not entry.tasks_total):
                continue
            value = app_waits[key]
            sample = (value, True) if value is not None else (end_ms - submit, False)
            for name in queues:
                out.setdefault(name, {}).setdefault(key, []).append(sample)
    return out


def percentiles(samples: Iterable[tuple[int, bool]]) -> Percentiles:
    """Nearest-rank percentiles (the smallest value at or above p % of them) and the maximum,
    in ms; ``apps`` counted, ``not-reached`` of them counted with their wait so far."""
    samples = list(samples)
    ordered = sorted(value for value, _ in samples)

    def rank(p: int) -> int | None:
        return ordered[max(0, math.ceil(p * len(ordered) / 100) - 1)] if ordered else None

    return Percentiles(rank(50), rank(95), ordered[-1] if ordered else None, len(samples),
                       sum(not reached for _, reached in samples))


def _queue_order(engine: Engine, recorder: SimRecorder, seen: set[str]) -> list[str]:
    """The final tree depth-first, then queues gone by then (a reload, an emptied dynamic
    queue) in the order they were first sampled, then any seen in events only, by name."""
    order = [node.name for node in engine.tree.tree_view() if node.name in seen]
    listed = set(order)
    order += [name for name in recorder.integrals.index if name not in listed]
    listed.update(order)
    return order + sorted(seen - listed)


def _subtree(engine: Engine, counter: Counter[str]) -> Counter[str]:
    """Per-leaf counts added up to every ancestor, as YARN's queue metrics do."""
    total: Counter[str] = Counter()
    for leaf, n in counter.items():
        for name in engine.ancestry(leaf):
            total[name] += n
    return total


def _pair(recorder: SimRecorder, queue: str, prefix: str) -> Pair:
    return Pair(round(recorder.average(queue, f"{prefix}_mb"), 3),
                round(recorder.average(queue, f"{prefix}_vcores"), 3))


def _ratios(recorder: SimRecorder, queue: str, share: str) -> MaybePair:
    return MaybePair(*(_ratio(recorder.integral(queue, f"usage_{suffix}"),
                              recorder.integral(queue, f"{share}_{suffix}"), 4)
                       for suffix in ("mb", "vcores")))


def _contention_pair(recorder: SimRecorder, queue: str, prefix: str) -> MaybePair:
    values = (recorder.contention_average(queue, f"{prefix}_{suffix}")
              for suffix in ("mb", "vcores"))
    return MaybePair(*(None if value is None else round(value, 3) for value in values))


def _queue_entry(recorder: SimRecorder, name: str, counts: Mapping[str, Counter[str]],
                 waits: Mapping[str, list[tuple[int, bool]]], waiting: Waiting,
                 settings: Settings | None) -> QueueEntry:
    return QueueEntry(
        usage=_pair(recorder, name, "usage"),
        steady_fair_share=_pair(recorder, name, "steady_fair_share"),
        fair_share=_pair(recorder, name, "fair_share"),
        usage_to_steady_fair_share=_ratios(recorder, name, "steady_fair_share"),
        usage_to_fair_share=_ratios(recorder, name, "fair_share"),
        demand=_pair(recorder, name, "demand"),
        time_starved_ms=recorder.time_starved_ms(name),
        time_short_of_fair_share_threshold_ms=recorder.time_short_ms(name),
        during_contention=Contention(
            ms=recorder.time_in_contention_ms(name),
            usage=_contention_pair(recorder, name, "usage"),
            steady_fair_share=_contention_pair(recorder, name, "steady_fair_share"),
            fair_share=_contention_pair(recorder, name, "fair_share"),
            demand=_contention_pair(recorder, name, "demand"),
        ),
        am_wait_ms=percentiles(waits.get("am-wait-ms", ())),
        first_task_wait_ms=percentiles(waits.get("first-task-wait-ms", ())),
        turnaround_ms=percentiles(waits.get("turnaround-ms", ())),
        containers_allocated=counts["allocated"][name],
        containers_recovered=counts["recovered"][name],
        containers_completed=counts["completed"][name],
        containers_preempted_from=counts["from"][name],
        containers_preempted_for=counts["for"][name],
        waiting=waiting,
        settings=settings,
    )


__all__ = ["Progress", "app_entry", "build_summary", "percentiles"]

"""What the history database answers: the records the pages, ``/metrics``, ``watch status``
and ``watch fork`` read (the history store writes and queries them).

Times are Unix ms, resources MB and vcores, as the RM reports them. A *tally* is what a
window of samples adds up to: per queue, for every :data:`~fairshare.web.sample.QUEUE_COLUMNS`
column, Σ value × interval over all samples and over those *in contention*, the time covered,
the time in contention and the time short of threshold × fair share
(:mod:`fairshare.sim.record.contention`), and the extremes. Buckets of every resolution keep
exactly these sums, so a window's averages are the same whatever resolution answers it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Window:
    """A span of time with Cloudera's filters: only the samples on ``weekdays`` (0 = Monday)
    and in ``hours`` (0–23) of the day, in ``timezone`` (an IANA name); None keeps all."""

    start_ms: int
    end_ms: int
    weekdays: frozenset[int] | None = None
    hours: frozenset[int] | None = None
    timezone: str = "UTC"


@dataclass(frozen=True, slots=True)
class QueueTally:
    """One queue over a window (see the module docstring); ``*_ms`` are sums of intervals."""

    name: str
    samples: int
    weight_ms: int  # the time the samples stand for
    contention_samples: int
    contention_ms: int
    short_ms: int  # in contention and below threshold × instantaneous fair share
    sums: Mapping[str, int]  # column → Σ value × ms
    contention_sums: Mapping[str, int]  # the same over the samples in contention
    minima: Mapping[str, int]
    maxima: Mapping[str, int]

    def average(self, column: str) -> float | None:
        return self.sums[column] / self.weight_ms if self.weight_ms else None

    def contention_average(self, column: str) -> float | None:
        return (self.contention_sums[column] / self.contention_ms if self.contention_ms
                else None)


@dataclass(frozen=True, slots=True)
class Series:
    """A queue's columns over time at one resolution: per point the bucket's start, and per
    column the time average, minimum and maximum in that bucket."""

    queue: str
    resolution_ms: int  # 0: raw samples
    times_ms: tuple[int, ...]
    averages: Mapping[str, tuple[float, ...]]
    minima: Mapping[str, tuple[int, ...]]
    maxima: Mapping[str, tuple[int, ...]]
    short: tuple[bool, ...]  # in contention and short of threshold × share in that bucket


@dataclass(frozen=True, slots=True)
class Preemption:
    """Containers the RM preempted from an app between two samples (its
    numAMContainerPreempted + numNonAMContainerPreempted rose)."""

    time_ms: int  # the sample that saw it
    app: str
    queue: str
    containers: int
    am_containers: int
    memory_mb: int  # preemptedResourceMB's rise
    vcores: int


@dataclass(frozen=True, slots=True)
class AppRecord:
    """An app as the samples saw it; its last state, kept after the RM forgets it (the RM
    keeps the last ``yarn.resourcemanager.max-completed-applications`` finished apps)."""

    id: str
    cluster_id: int
    user: str
    name: str
    queue: str
    state: str
    final_status: str
    started_ms: int
    launched_ms: int  # 0: not launched (or not reported)
    finished_ms: int  # 0: not finished
    first_seen_ms: int
    last_seen_ms: int
    first_container_ms: int | None  # the first sample with a container beyond the AM's
    allocated: tuple[int, int]  # at the last sample
    pending_containers: int  # outstanding ANY asks at the last sample
    running_containers: int
    am_preempted: int
    preempted: int  # non-AM containers preempted
    preempted_resources: tuple[int, int]
    memory_seconds: int
    vcore_seconds: int
    preempted_memory_seconds: int  # the work lost to preemption, in MB·s
    preempted_vcore_seconds: int
    diagnostics: str


@dataclass(frozen=True, slots=True)
class Retention:
    """How long each resolution is kept (ms); raw samples first. Defaults in docs/watch.md."""

    raw_ms: int
    tiers: tuple[tuple[int, int], ...]  # (bucket width ms, kept ms), finest first

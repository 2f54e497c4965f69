"""Since when each queue has been in contention and short of its fair-share threshold, from
consecutive samples: what a live diagnosis needs to say "below 0.5 × its fair share for
6 m 20 s" (the RM reports no starvation state of its own).

The tests are :mod:`fairshare.sim.record.contention`'s — the same as the history's and the
simulator's: in contention while pending containers > 0; short while used is below threshold
× instantaneous fair share in memory or vcores. A restarted RM (a new ``clusterId``) starts
every queue afresh.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from fairshare.sim.record.contention import (
    DEFAULT_FAIR_SHARE_THRESHOLD,
    in_contention,
    short_of_threshold,
)
from fairshare.web.diagnosis import QueueFacts
from fairshare.web.sample import COLUMN, Sample, queue_rows

_PENDING = [COLUMN["pending_containers"]]
_USED = [COLUMN["used_mb"], COLUMN["used_vcores"]]
_FAIR = [COLUMN["fair_share_mb"], COLUMN["fair_share_vcores"]]


def advance(previous: Mapping[str, QueueFacts], previous_cluster: int | None, sample: Sample,
            thresholds: Mapping[str, float]) -> dict[str, QueueFacts]:
    """The facts after ``sample``: a run that goes on keeps its start, one that begins starts
    at this sample's time."""
    names, rows = queue_rows(sample)
    if not names:
        return {}
    values = np.array(rows, dtype=np.int64)
    limits = np.array([thresholds.get(n, DEFAULT_FAIR_SHARE_THRESHOLD) for n in names],
                      dtype=np.float64)
    contended = in_contention(values[:, _PENDING])
    short = contended & short_of_threshold(values[:, _USED], values[:, _FAIR], limits)
    carry = previous if previous_cluster == sample.cluster_id else {}
    facts: dict[str, QueueFacts] = {}
    for name, c, s in zip(names, contended.tolist(), short.tolist(), strict=True):
        before = carry.get(name, QueueFacts())
        facts[name] = QueueFacts(
            short_since_ms=_run(before.short_since_ms, s, sample.time_ms),
            contention_since_ms=_run(before.contention_since_ms, c, sample.time_ms))
    return facts


def _run(since: int | None, now_true: bool, time_ms: int) -> int | None:
    if not now_true:
        return None
    return time_ms if since is None else since

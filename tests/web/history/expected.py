"""The tally the history must give, computed independently: plain Python over the samples as
generated, with the rules of docs/watch.md — a sample stands for the time to the next one,
at most twice the poll interval; it belongs to the window when its time does; in
contention when pendingContainers > 0; short when, in contention, used < threshold × the
instantaneous fair share in memory or in vcores."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from tests.web.history.synthetic import QUEUE_COLUMNS, Values

C = {name: i for i, name in enumerate(QUEUE_COLUMNS)}


@dataclass
class Expected:
    samples: int = 0
    weight_ms: int = 0
    contention_samples: int = 0
    contention_ms: int = 0
    short_ms: int = 0
    sums: dict[str, int] = field(default_factory=lambda: dict.fromkeys(QUEUE_COLUMNS, 0))
    contention_sums: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(QUEUE_COLUMNS, 0))
    minima: dict[str, int] = field(default_factory=dict)
    maxima: dict[str, int] = field(default_factory=dict)


Stream = Sequence[tuple[int, Sequence[tuple[str, Values]], dict[str, float]]]


def expected_tally(stream: Stream, start_ms: int, end_ms: int, cap_ms: int,
                   keep: Callable[[int], bool] = lambda _t: True) -> dict[str, Expected]:
    """``stream``: (time, rows (name, values), thresholds) oldest first."""
    out: dict[str, Expected] = {}
    for (time_ms, rows, thresholds), (next_ms, _, _) in pairwise(stream):
        if not (start_ms <= time_ms < end_ms and keep(time_ms)):
            continue
        weight = min(next_ms - time_ms, cap_ms)
        for name, v in rows:
            e = out.setdefault(name, Expected())
            contended = v[C["pending_containers"]] > 0
            threshold = thresholds.get(name, 0.5)
            short = contended and (
                v[C["used_mb"]] < threshold * v[C["fair_share_mb"]]
                or v[C["used_vcores"]] < threshold * v[C["fair_share_vcores"]])
            e.samples += 1
            e.weight_ms += weight
            e.contention_samples += contended
            e.contention_ms += weight * contended
            e.short_ms += weight * short
            for column in QUEUE_COLUMNS:
                value = v[C[column]]
                e.sums[column] += value * weight
                e.contention_sums[column] += value * weight * contended
                e.minima[column] = min(e.minima.get(column, value), value)
                e.maxima[column] = max(e.maxima.get(column, value), value)
    return out

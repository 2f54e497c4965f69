"""How long the history keeps each resolution, and how often it keeps the RM's answers.

Defaults (docs/watch.md, "Retention"; sizes measured by tests/web/history/bench_history.py
for 1,000 queues polled every 5 s): raw samples 2 days — every poll, for the queue page's
finest zoom and exact windows over the last days; 1-minute buckets 7 days — the queue page
over a week, and filters in zones offset by 30 or 45 minutes from UTC; 1-hour buckets 400
days — a year of Preemption Tuning with Cloudera's weekday and hour filters, and a month
more to compare with; 1-day buckets 3 years — unfiltered tallies over long windows read 30
rows a month instead of 720. Checkpoints of the raw answers every 15 minutes, kept as long
as raw samples.
"""

from __future__ import annotations

from fairshare.web.history.model import Retention

MINUTE_MS = 60_000
HOUR_MS = 3_600_000
DAY_MS = 86_400_000
DEFAULT_RETENTION = Retention(raw_ms=2 * DAY_MS,
                              tiers=((MINUTE_MS, 7 * DAY_MS), (HOUR_MS, 400 * DAY_MS),
                                     (DAY_MS, 1096 * DAY_MS)))
DEFAULT_CHECKPOINT_EVERY_MS = 15 * MINUTE_MS


def check(retention: Retention) -> None:
    """A retention the rollup can honour, else a ValueError naming the field: widths grow
    finest first, each a multiple of the one before; every resolution is kept for at least
    two buckets of the next coarser one (which is built from it)."""
    widths = [w for w, _ in retention.tiers]
    if not widths:
        raise ValueError("Retention.tiers: at least one bucket resolution is needed")
    for (width, kept), (coarser, _) in zip(retention.tiers, retention.tiers[1:], strict=False):
        if coarser <= width or coarser % width:
            raise ValueError(f"Retention.tiers: width {coarser} ms is not a multiple of "
                             f"the finer {width} ms")
        if kept < 2 * coarser:
            raise ValueError(f"Retention.tiers: {width}-ms buckets kept {kept} ms, less than "
                             f"two {coarser}-ms buckets built from them")
    if any(w <= 0 or k <= 0 for w, k in retention.tiers):
        raise ValueError("Retention.tiers: widths and times kept must be positive")
    if retention.raw_ms < 2 * widths[0]:
        raise ValueError(f"Retention.raw_ms: {retention.raw_ms} ms is less than two "
                         f"{widths[0]}-ms buckets built from the raw samples")

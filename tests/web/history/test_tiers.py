"""Buckets keep exact sums: over random sample streams, a window's tally from the buckets of
every resolution equals the tally computed from the raw samples (exact integers), also once
the raw samples are pruned, and with weekday/hour filters in zones offset by whole and by
half hours."""

from __future__ import annotations

import os
from collections.abc import Callable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from fairshare.web.history.model import QueueTally, Retention, Window
from fairshare.web.history.store import History
from tests.web.history.expected import Expected, expected_tally
from tests.web.history.synthetic import QUEUE_COLUMNS, expected_rows, flat_sample

POLL = 5_000
MINUTE, HOUR, DAY = 60_000, 3_600_000, 86_400_000
T0 = 1_767_225_600_000  # 2026-01-01 00:00 UTC, a Thursday
EXAMPLES = int(os.environ.get("HISTORY_EXAMPLES", "25"))
# each example opens a database: shrinking takes minutes, so it is on request only
PHASES = [p for p in Phase if p is not Phase.shrink or os.environ.get("HISTORY_SHRINK")]
SETTINGS = settings(max_examples=EXAMPLES, deadline=None, phases=PHASES,
                    derandomize=not os.environ.get("HYPOTHESIS_RANDOM"),
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])
NCOL = len(QUEUE_COLUMNS)
values = st.tuples(*([st.integers(0, 5)] * NCOL)).map(
    lambda v: tuple(x * 1024 if i < 18 else x for i, x in enumerate(v)))


@st.composite
def streams(draw: st.DrawFn, span_ms: int) -> list[tuple[int, list, dict[str, float]]]:
    """Samples over about ``span_ms``: gaps around the poll interval with outages now and
    then; the queue set changing; thresholds per queue."""
    n = draw(st.integers(2, 40))
    gaps = draw(st.lists(st.one_of(st.integers(1, 2 * span_ms // n),
                                   st.sampled_from([POLL, 3 * POLL, 20 * POLL])),
                         min_size=n, max_size=n))
    out = []
    time_ms = T0 + draw(st.integers(0, HOUR))
    for gap in gaps:
        time_ms += gap
        leaves = draw(st.lists(st.sampled_from("abc"), min_size=1, max_size=3, unique=True))
        rows = [(name, draw(values)) for name in sorted(leaves)]
        root = draw(values)
        thresholds = {f"root.{name}": draw(st.sampled_from([0.5, 0.8, 1.0])) for name in leaves}
        out.append((time_ms, rows, root, thresholds))
    stream = []
    for time_ms, rows, root, thresholds in out:
        stream.append((time_ms, expected_rows(rows, root), thresholds, rows, root))
    return stream  # type: ignore[return-value]


def _load(history: History, stream: list) -> None:  # type: ignore[type-arg]
    for time_ms, _rows, thresholds, leaves, root in stream:
        history.add(flat_sample(time_ms, leaves, root), thresholds)


def _same(got: list[QueueTally], want: dict[str, Expected]) -> None:
    assert {q.name for q in got} == set(want)
    for q in got:
        e = want[q.name]
        assert (q.samples, q.weight_ms, q.contention_samples, q.contention_ms, q.short_ms) == (
            e.samples, e.weight_ms, e.contention_samples, e.contention_ms, e.short_ms), q.name
        assert dict(q.sums) == e.sums
        assert dict(q.contention_sums) == e.contention_sums
        assert dict(q.minima) == e.minima
        assert dict(q.maxima) == e.maxima


RETENTION = Retention(raw_ms=2 * HOUR, tiers=((MINUTE, 4 * HOUR), (10 * MINUTE, 400 * DAY)))


@SETTINGS
@given(data=st.data())
def test_a_bucket_aligned_window_tallies_the_same_from_raw_samples_and_from_every_tier(
        history_url: Callable[[], str], data: st.DataObject) -> None:
    stream = data.draw(streams(3 * HOUR))
    history = History.open(history_url(), RETENTION, poll_interval_ms=POLL)
    try:
        _load(history, stream)
        triples = [(t, rows, thr) for t, rows, thr, _, _ in stream]
        first, last = stream[0][0], stream[-1][0]
        for width in (MINUTE, 10 * MINUTE):
            start = (first // width) * width + data.draw(st.integers(0, 3)) * width
            end = start + data.draw(st.integers(1, 40)) * width
            window = Window(start, end)
            _same(history.tally(window), expected_tally(triples, start, end, 2 * POLL))
        whole = Window(first, last + 1)
        _same(history.tally(whole), expected_tally(triples, first, last + 1, 2 * POLL))
        # without the raw samples (and then the minute buckets), the coarser tiers answer
        # the same for windows aligned to them
        history.prune(last + RETENTION.tiers[0][1] + 11 * MINUTE)
        start = (first // (10 * MINUTE)) * 10 * MINUTE
        end = ((last // (10 * MINUTE)) + 1) * 10 * MINUTE
        with history.engine.connect() as connection:
            kept = connection.execute(text("SELECT min(time_ms) FROM sample")).scalar_one()
            minutes = connection.execute(text(
                "SELECT count(*) FROM bucket WHERE width_ms = :w"), {"w": MINUTE}).scalar_one()
        # what is left: the newest minute's samples, the minutes of the newest 10 minutes
        assert kept >= (last // MINUTE) * MINUTE
        assert minutes <= 10
        _same(history.tally(Window(start, end)),
              expected_tally(triples, start, end, 2 * POLL))
    finally:
        history.close()


@settings(SETTINGS, max_examples=EXAMPLES // 2 + 1)
@given(data=st.data(), zone=st.sampled_from(["UTC", "Europe/Paris", "Asia/Kolkata",
                                             "America/New_York"]))
def test_weekday_and_hour_filters_count_the_buckets_and_samples_that_start_in_them(
        history_url: Callable[[], str], data: st.DataObject, zone: str) -> None:
    """Hour buckets answer whole-hour zones, minute buckets the half-hour one (Kolkata)."""
    stream = data.draw(streams(2 * DAY))
    hours = frozenset(data.draw(st.lists(st.integers(0, 23), min_size=1, max_size=6)))
    weekdays = frozenset(data.draw(st.lists(st.integers(0, 6), min_size=1, max_size=7)))
    retention = Retention(raw_ms=4 * DAY, tiers=((MINUTE, 10 * DAY), (HOUR, 400 * DAY)))
    history = History.open(history_url(), retention, poll_interval_ms=POLL)
    tz = ZoneInfo(zone)

    def keep(t: int) -> bool:
        local = datetime.fromtimestamp(t / 1000, UTC).astimezone(tz)
        return local.hour in hours and local.weekday() in weekdays

    try:
        _load(history, stream)
        triples = [(t, rows, thr) for t, rows, thr, _, _ in stream]
        start = (stream[0][0] // HOUR) * HOUR
        end = ((stream[-1][0] // HOUR) + 1) * HOUR
        window = Window(start, end, weekdays=weekdays, hours=hours, timezone=zone)
        _same(history.tally(window), expected_tally(triples, start, end, 2 * POLL, keep))
    finally:
        history.close()

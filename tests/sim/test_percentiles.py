"""Nearest-rank percentiles of the summary's waits, against their definition."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from fairshare.sim.record.summary import percentiles
from fairshare.sim.record.summary_model import Percentiles


@given(st.lists(st.tuples(st.integers(0, 10**9), st.booleans()), min_size=1, max_size=60))
def test_a_percentile_is_the_smallest_value_with_p_percent_at_or_below_it(
        samples: list[tuple[int, bool]]) -> None:
    values = [v for v, _ in samples]
    got = percentiles(samples)
    for chosen, p in ((got.p50, 50), (got.p95, 95)):
        assert chosen in values
        at_or_below = sum(v <= chosen for v in values)  # type: ignore[operator]
        assert 100 * at_or_below >= p * len(values)
        below = [v for v in values if v < chosen]  # type: ignore[operator]
        assert all(100 * sum(w <= v for w in values) < p * len(values) for v in below)
    assert got.max == max(values)
    assert (got.apps, got.not_reached) == (len(samples), sum(not r for _, r in samples))


def test_no_apps_no_percentiles() -> None:
    assert percentiles([]) == Percentiles(p50=None, p95=None, max=None, apps=0, not_reached=0)

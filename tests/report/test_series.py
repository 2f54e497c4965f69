"""The series behind the charts, on small timelines worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from fairshare.report.events import CapacityChange
from fairshare.report.series import bands, episodes, steps, utilization
from fairshare.report.timeline import COLUMNS, Timeline


def timeline(times: list[int], end_ms: int, **columns: list[int]) -> Timeline:
    """One queue ("root.q", and root with the same values) with the given columns, 0 for the
    others."""
    series = {c: np.asarray(columns.get(c, [0] * len(times)), dtype=np.int64) for c in COLUMNS}
    return Timeline("timeline.csv", np.asarray(times, dtype=np.int64), end_ms,
                    {"root": series, "root.q": series})


def test_few_samples_are_drawn_as_they_are() -> None:
    t = timeline([0, 10, 30], 40, usage_mb=[1, 2, 3])
    drawn = steps(t, {"u": t.series["root.q"]["usage_mb"]})
    assert drawn.edges.tolist() == [0, 10, 30, 40]
    assert drawn.values["u"].tolist() == [1, 2, 3]


def test_many_samples_become_time_averages_per_bucket() -> None:
    # 0 for 0-10 ms, 10 for 10-20, 20 for 20-30, 30 for 30-40; two buckets of 20 ms:
    # (0 × 10 + 10 × 10) / 20 = 5 and (20 × 10 + 30 × 10) / 20 = 25
    t = timeline([0, 10, 20, 30], 40, usage_mb=[0, 10, 20, 30])
    drawn = steps(t, {"u": t.series["root.q"]["usage_mb"]}, max_points=2)
    assert drawn.edges.tolist() == [0, 20, 40]
    assert drawn.values["u"].tolist() == [5, 25]


def test_buckets_that_cut_a_sample_weigh_its_parts() -> None:
    # 6 for 0-30 ms, 0 for 30-40; three buckets of 40/3 ms: 6, 6, then 6 × (30 − 80/3) / (40/3)
    t = timeline([0, 30], 40, usage_mb=[6, 0])
    drawn = steps(t, {"u": t.series["root.q"]["usage_mb"]}, max_points=1)
    assert drawn.values["u"].tolist() == pytest.approx([6 * 30 / 40])
    t3 = timeline([0, 10, 30, 35], 40, usage_mb=[6, 6, 0, 0])
    drawn3 = steps(t3, {"u": t3.series["root.q"]["usage_mb"]}, max_points=3)
    assert drawn3.values["u"].tolist() == pytest.approx([6, 6, 6 * (30 - 80 / 3) / (40 / 3)])


def test_bands_merge_neighbouring_samples_and_end_at_the_next_sample() -> None:
    t = timeline([0, 5, 10, 15, 20], 30)
    assert bands(t, np.asarray([False, True, True, False, True])) == [(5, 15), (20, 30)]
    assert bands(t, np.zeros(5, dtype=bool)) == []


def queue_series(**columns: list[int]) -> Timeline:
    return timeline([0, 10, 20, 30, 40, 50], 60, **columns)


def test_an_episode_ends_at_the_first_sample_at_the_share_after_its_kills() -> None:
    # share 4 vcores; usage 0, 0, 2, 4, 4, 4; kills at 15 and 25 (seen by the samples at 20
    # and 30): back at its share at 30, both kills in one episode
    t = queue_series(fair_share_vcores=[4] * 6, usage_vcores=[0, 0, 2, 4, 4, 4],
                     pending_vcores=[4, 4, 2, 0, 0, 0], fair_share_mb=[4096] * 6,
                     usage_mb=[0] * 6, pending_mb=[4096, 4096, 2048, 0, 0, 0])
    found = episodes(t, t.series["root.q"], [15, 25])
    assert [(e.first_kill_ms, e.last_kill_ms, e.kills, e.restored_ms, e.how)
            for e in found] == [(15, 25, 2, 30, "at its fair share")]


def test_a_kill_at_a_sample_s_time_is_seen_by_that_sample() -> None:
    t = queue_series(fair_share_mb=[100] * 6, usage_mb=[0, 0, 100, 100, 0, 100],
                     pending_mb=[100] * 6)
    found = episodes(t, t.series["root.q"], [20, 40])
    assert [(e.first_kill_ms, e.restored_ms) for e in found] == [(20, 20), (40, 50)]


def test_memory_only_shares_ignore_vcores_and_no_demand_ends_an_episode() -> None:
    # under `fair` the vcore share is 0: usage 1 vcore ≥ 0 must not count as "at its share"
    t = queue_series(fair_share_mb=[100] * 6, usage_mb=[0, 50, 50, 50, 50, 50],
                     usage_vcores=[1] * 6, pending_mb=[100, 50, 50, 0, 0, 0])
    found = episodes(t, t.series["root.q"], [5])
    assert [(e.restored_ms, e.how) for e in found] == [(30, "no pending demand")]


def test_an_episode_may_not_end() -> None:
    t = queue_series(fair_share_mb=[100] * 6, pending_mb=[100] * 6)
    found = episodes(t, t.series["root.q"], [5, 45])
    assert [(e.kills, e.restored_ms, e.how) for e in found] == [
        (2, None, "not restored by the end")]


def test_utilization_uses_the_capacity_in_effect_at_each_sample() -> None:
    # 8 GB from 0, 16 GB from 20 ms (a node added at a sample's time counts for it)
    t = timeline([0, 10, 20, 30], 40, usage_mb=[0, 4096, 8192, 16384],
                 usage_vcores=[0, 2, 2, 8])
    capacity = [CapacityChange(0, 8192, 4, 1), CapacityChange(20, 16384, 8, 2)]
    memory, vcores, cap_mb, _ = utilization(t, capacity)
    assert memory.tolist() == [0, 0.5, 0.5, 1.0]
    assert vcores.tolist() == [0, 0.5, 0.25, 1.0]
    assert cap_mb.tolist() == [8192, 8192, 16384, 16384]


def test_utilization_without_capacity_is_undefined_not_zero() -> None:
    t = timeline([0, 10], 20, usage_mb=[0, 0])
    memory, _, _, _ = utilization(t, [])
    assert np.isnan(memory).all()


def test_undefined_values_are_left_out_of_bucket_averages() -> None:
    # utilization 50 % for 0-10 ms, undefined (no capacity) 10-30, 100 % for 30-40; two
    # buckets of 20 ms: the first is 50 (its defined part), the second 100 (10 ms of it)
    t = timeline([0, 10, 30], 40)
    drawn = steps(t, {"u": np.asarray([50.0, np.nan, 100.0])}, max_points=2)
    assert drawn.values["u"].tolist() == [50.0, 100.0]
    gap = steps(t, {"u": np.asarray([np.nan, np.nan, 100.0])}, max_points=2)
    assert np.isnan(gap.values["u"][0]) and gap.values["u"][1] == 100.0

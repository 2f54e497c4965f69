"""An imported running task's remaining time: drawn from a stated, seeded distribution
(docs/import.md, "Running forward"), not one value for every task."""

from __future__ import annotations

import math
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fairshare.sim.importer.build import import_dump
from fairshare.sim.importer.remaining import RemainingTimes
from fairshare.sim.importer.scenario_text import Choices

DRF12 = Path(__file__).resolve().parent / "dumps" / "drf12"


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["uniform", "exponential", "fixed"]), st.integers(0, 10**9),
       st.integers(-(2**63), 2**63 - 1))
def test_draws_are_in_range_and_repeat_with_the_seed(dist: str, mean: int, seed: int) -> None:
    a, b = RemainingTimes(dist, mean, seed), RemainingTimes(dist, mean, seed)
    first = [a.draw() for _ in range(20)]
    assert first == [b.draw() for _ in range(20)]
    if dist == "fixed" or mean == 0:
        assert set(first) == {mean}
    elif dist == "uniform":
        assert all(1 <= x <= 2 * mean for x in first)
    else:
        assert all(x >= 1 for x in first)


def test_the_draws_have_the_stated_mean() -> None:
    # 20,000 draws: the sample mean of a uniform on [1, 1,200,000] is within 1 % of 600,000
    # (its standard error is 346,410 / √20,000 ≈ 2,449 ms); an exponential's standard error is
    # 600,000 / √20,000 ≈ 4,243 ms, so 3 % is over four of them
    for dist, within in (("uniform", 0.01), ("exponential", 0.03)):
        times = RemainingTimes(dist, 600_000, 7)
        mean = sum(times.draw() for _ in range(20_000)) / 20_000
        assert math.isclose(mean, 600_000, rel_tol=within), (dist, mean)


def _remaining(text: str) -> list[int]:
    return [int(m) for m in re.findall(r"remaining-ms: (\d+)", text)]


def test_imported_tasks_do_not_all_end_at_one_instant(tmp_path: Path) -> None:
    choices = Choices(remaining_ms=60_000, remaining_dist="uniform", seed=3)
    import_dump(DRF12, tmp_path / "a", choices)
    text = (tmp_path / "a" / "scenario.yaml").read_text()
    times = _remaining(text)
    assert len(times) == 14  # the 14 running tasks of the two running apps (their AMs: none)
    assert len(set(times)) == 14 and all(1 <= t <= 120_000 for t in times)
    assert "#   uniform between 1 and 120,000 ms (mean 60,000 ms), seed 3;" in text
    # the same seed gives the same scenario byte for byte; another seed other times
    import_dump(DRF12, tmp_path / "b", choices)
    assert (tmp_path / "b" / "scenario.yaml").read_text() == text
    import_dump(DRF12, tmp_path / "c", Choices(remaining_ms=60_000, remaining_dist="uniform",
                                               seed=4))
    assert _remaining((tmp_path / "c" / "scenario.yaml").read_text()) != times


def test_fixed_keeps_one_value_for_every_task(tmp_path: Path) -> None:
    import_dump(DRF12, tmp_path / "a", Choices(remaining_ms=45_000, remaining_dist="fixed"))
    text = (tmp_path / "a" / "scenario.yaml").read_text()
    assert set(_remaining(text)) == {45_000}
    assert "#   45,000 ms for every running task (fixed);" in text

"""How every tool writes simulated time and resources for people
(``fairshare.resources.display``)."""

from __future__ import annotations

import pytest

from fairshare.cli.format import mb_vc
from fairshare.report import units as report_units
from fairshare.resources.display import duration, memory, vcores_number


@pytest.mark.parametrize(("ms", "text"), [
    (0, "0 ms"), (850, "850 ms"), (999, "999 ms"), (1000, "1.0 s"), (12_500, "12.5 s"),
    (999.7, "1.0 s"), (59_949, "59.9 s"), (59_970, "1 m 00 s"), (60_000, "1 m 00 s"),
    (200_000, "3 m 20 s"), (200_499, "3 m 20 s"), (3_599_400, "59 m 59 s"),
    (3_599_600, "1 h 00 m"), (7_529_999, "2 h 05 m"), (7_530_000, "2 h 06 m"),
    (3_600_000, "1 h 00 m"), (7_500_000, "2 h 05 m"), (90_000_000_000, "25,000 h 00 m"),
])
def test_duration(ms: int, text: str) -> None:
    assert duration(ms) == text


@pytest.mark.parametrize(("mb", "text"), [
    (0, "0 MB"), (6144, "6,144 MB"), (99_999, "99,999 MB"), (2047.6, "2,048 MB"),
    (100_000, "98 GB"),  # 100,000 / 1024 = 97.66
    (81_920 * 1024, "81,920 GB"),
])
def test_memory_switches_to_gb_at_100_000_mb(mb: float, text: str) -> None:
    assert memory(mb) == text


@pytest.mark.parametrize(("count", "text"), [
    (0, "0"), (2.5, "2.5"), (3.0, "3"), (9.94, "9.9"), (10, "10"), (12.6, "13"),
    (40_000, "40,000"),
])
def test_vcores_whole_from_ten(count: float, text: str) -> None:
    assert vcores_number(count) == text


def test_the_terminal_and_the_report_write_resources_alike() -> None:
    assert mb_vc(6144, 2.5) == "6,144 MB, 2.5 vc"
    assert mb_vc(81_920 * 1024, 40_000) == "81,920 GB, 40,000 vc"
    assert report_units.memory(6144) == "6,144 MB" and report_units.memory(None) == "–"
    assert report_units.vcores(2.5) == "2.5 vcores" and report_units.vcores(None) == "–"

"""One reader of moments and durations for the pages, ``watch fork`` and ``watch``'s options;
the expected values are worked out from the calendar."""

from __future__ import annotations

from zoneinfo import ZoneInfo

import pytest

from fairshare.web.moments import duration_ms, moment_ms

NOW = 1_700_000_400_000  # 2023-11-14 22:20:00 UTC
CP = 1_700_000_400_000


def test_moments_in_every_form() -> None:
    assert moment_ms("now", NOW) == NOW
    assert moment_ms("now-1d2h", NOW) == NOW - 26 * 3_600_000
    assert moment_ms("-90m", NOW) == NOW - 5_400_000
    assert moment_ms("2023-11-14T22:20", NOW) == CP
    assert moment_ms("2023-11-14 22:20 UTC", NOW) == CP
    assert moment_ms("2023-11-14T22:20Z", NOW) == CP
    assert moment_ms("2023-11-14T23:20+01:00", NOW) == CP
    assert moment_ms(str(CP), NOW) == CP
    # without an offset, in the zone given: 23:20 in Paris (CET, +1 in November) is 22:20 UTC
    assert moment_ms("2023-11-14T23:20", NOW, ZoneInfo("Europe/Paris")) == CP


@pytest.mark.parametrize("text", ["yesterday", "now-", "-", "now-2x", "2023-13-01", ""])
def test_bad_moments_say_what_was_expected(text: str) -> None:
    with pytest.raises(ValueError, match="expected"):
        moment_ms(text, NOW)


def test_durations() -> None:
    assert duration_ms("5s") == 5_000
    assert duration_ms("500ms") == 500
    assert duration_ms("2m") == 120_000
    assert duration_ms("1.5h") == 5_400_000
    assert duration_ms("7d") == 604_800_000
    assert duration_ms("30") == 30_000
    for bad in ("0s", "5x", "-5s", ""):
        with pytest.raises(ValueError):
            duration_ms(bad)

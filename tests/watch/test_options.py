"""What ``fairshare watch``'s options say, and their errors naming the option."""

from __future__ import annotations

import pytest

from fairshare.config.errors import ConfigError
from fairshare.watch.options import listen_address, retention, rm_urls
from fairshare.web.history.model import Retention

DAY, HOUR, MINUTE = 86_400_000, 3_600_000, 60_000


def test_retention_reads_widths_and_how_long_each_is_kept() -> None:
    assert retention("raw=1d, 1m=3d, 1h=90d") == Retention(DAY, ((MINUTE, 3 * DAY),
                                                                 (HOUR, 90 * DAY)))


@pytest.mark.parametrize("text", ["1m=7d", "raw", "raw=2d,1h=7d,1m=1d", "raw=0s", "raw=2x"])
def test_a_retention_the_rollup_cannot_honour_names_the_option(text: str) -> None:
    with pytest.raises(ConfigError) as e:
        retention(text)
    assert str(e.value).startswith("--retention: ")


def test_listen_and_rm_urls() -> None:
    assert listen_address(":8089") == ("127.0.0.1", 8089)
    assert listen_address("[::1]:0") == ("::1", 0)
    assert rm_urls("rm1:8088, https://rm2:8090/") == ["http://rm1:8088", "https://rm2:8090"]
    for bad in ("localhost", "h:99999"):
        with pytest.raises(ConfigError, match="--listen"):
            listen_address(bad)
    with pytest.raises(ConfigError, match="RM_URL"):
        rm_urls(" , ")

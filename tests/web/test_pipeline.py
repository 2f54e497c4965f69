"""The sample pipeline (web/pipeline.py) both live commands feed: a sample is stored, the
queues' runs carried forward and a new state published; a database that refuses a sample is
that step's error with the last good sample kept; pruning is paced."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.exc import OperationalError

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.yarnsite import SiteConfig
from fairshare.web.history.store import History
from fairshare.web.pipeline import PRUNE_EVERY_S, SamplePipeline
from tests.web.dumps import NOW_MS, sample_of


class Clock:
    def __init__(self) -> None:
        self.now = NOW_MS / 1000

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def pipeline(tmp_path: Path) -> Iterator[SamplePipeline]:
    history = History.open(str(tmp_path / "h.db"), poll_interval_ms=5_000)
    yield SamplePipeline(history, "http://rm:8088", Clock())
    history.close()


def test_a_sample_is_stored_and_published(pipeline: SamplePipeline) -> None:
    assert pipeline.latest().sample is None and pipeline.latest().rm == "http://rm:8088"
    site = SiteConfig.default()
    config = parse_allocations_text("<allocations/>", "a.xml", site.resource_types)
    first = pipeline.accept(sample_of("basic", NOW_MS), {}, started_s=NOW_MS / 1000 - 0.25,
                            allocations=config, site=site, notes=["a note"])
    assert first.sample is not None and first.sample.time_ms == NOW_MS
    assert first.stats.polls == 1 and first.stats.up and first.stats.last_poll_seconds == 0.25
    assert first.allocations is config and first.site is site and first.notes == ("a note",)
    assert pipeline.history.last_time_ms() == NOW_MS
    # basic: root has 8 pending containers: in contention since this sample
    assert first.facts["root"].contention_since_ms == NOW_MS
    second = pipeline.accept(sample_of("basic", NOW_MS + 5_000), {}, started_s=NOW_MS / 1000)
    assert second.facts["root"].contention_since_ms == NOW_MS  # the run goes on
    assert second.stats.polls == 2 and pipeline.latest() is second


def test_a_refused_sample_keeps_the_last_good_one(pipeline: SamplePipeline) -> None:
    site = SiteConfig.default()
    good = pipeline.accept(sample_of("basic", NOW_MS), {}, started_s=NOW_MS / 1000, site=site)

    def broken(*args: object, **kwargs: object) -> bool:
        raise OperationalError("INSERT", {}, Exception("database or disk is full"))

    pipeline.history.add = broken  # type: ignore[method-assign]
    failed = pipeline.accept(sample_of("basic", NOW_MS + 5_000), {}, started_s=NOW_MS / 1000)
    assert failed.sample is good.sample and not failed.stats.up
    assert failed.stats.errors_total == 1 and failed.stats.last_error is not None
    assert failed.stats.last_error.startswith("history database ")
    assert "database or disk is full" in failed.stats.last_error
    assert failed.site is site  # a step without configuration keeps the one in force


def test_pruning_is_paced_by_the_clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                       ) -> None:
    clock = Clock()
    pipeline = SamplePipeline(History.open(str(tmp_path / "h.db")), "http://rm:8088", clock)
    pipeline.accept(sample_of("basic", NOW_MS), {}, started_s=clock())
    pruned: list[int] = []
    monkeypatch.setattr(pipeline.history, "prune", pruned.append)
    assert pipeline.prune_if_due(NOW_MS) is None and pruned == [NOW_MS]  # the first at once
    clock.now += PRUNE_EVERY_S - 1
    assert pipeline.prune_if_due(NOW_MS + 1) is None and pruned == [NOW_MS]
    clock.now += 1
    assert pipeline.prune_if_due(NOW_MS + 2) is None and pruned == [NOW_MS, NOW_MS + 2]
    pipeline.history.close()

"""The watcher's loop: a failing RM leaves the last good sample with its error and says when
it answers again; a database that fails, or a bug, is an error of that poll, not the end of
the watch; the allocation file's failed reload is shown until a good one."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from sqlalchemy.exc import OperationalError

from fairshare.watch.allocations import AllocationWatch
from fairshare.watch.client import RMClient
from fairshare.watch.service import Watcher
from fairshare.web.history.store import History
from tests.watch.fake_rm import FakeRM, serving

RECORDED = Path(__file__).resolve().parent / "recorded" / "fair-preempted"


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def _watcher(rm: FakeRM, tmp: Path, told: list[str], allocations: AllocationWatch | None = None
             ) -> tuple[Watcher, Clock]:
    clock = Clock()
    client = RMClient([rm.url], timeout_s=2, retries=0, clock=clock, sleep=lambda s: None)
    history = History.open(str(tmp / "h.db"), poll_interval_ms=5000)
    return Watcher(client, history, allocations, 5.0, clock=clock, tell=told.append), clock


def test_a_failing_rm_keeps_the_last_sample_and_says_when_it_is_back(tmp_path: Path) -> None:
    told: list[str] = []
    with serving(FakeRM.from_folder(RECORDED)) as rm:
        watcher, clock = _watcher(rm, tmp_path, told)
        first = watcher.poll_once()
        assert first.sample is not None and first.stats.up
        rm.behaviour.mode, rm.behaviour.only = "html", "/scheduler"
        clock.now += 5
        failed = watcher.poll_once()
        assert failed.sample is first.sample  # the last good one, still shown
        assert not failed.stats.up and failed.stats.errors_total == 1
        assert "HTML" in (failed.stats.last_error or "")
        assert failed.age_s(int(clock.now * 1000)) == 5.0
        clock.now += 5
        watcher.poll_once()  # the same error again is not told twice
        assert sum("HTML" in line for line in told) == 1
        rm.behaviour.mode = "normal"
        clock.now += 5
        back = watcher.poll_once()
        assert back.stats.up and back.sample is not first.sample
        assert any(line.startswith("the RM answers again") for line in told)
        watcher.history.close()


def test_a_database_that_fails_is_that_polls_error(tmp_path: Path) -> None:
    told: list[str] = []
    with serving(FakeRM.from_folder(RECORDED)) as rm:
        watcher, _clock = _watcher(rm, tmp_path, told)

        def broken(*args: object, **kwargs: object) -> bool:
            raise OperationalError("INSERT", {}, Exception("database or disk is full"))

        watcher.history.add = broken  # type: ignore[method-assign]
        latest = watcher.poll_once()
        assert not latest.stats.up
        assert "history database sqlite:///" in (latest.stats.last_error or "")
        assert "disk is full" in (latest.stats.last_error or "")
        watcher.history.close()


def test_a_bug_in_a_poll_does_not_end_the_loop(tmp_path: Path) -> None:
    told: list[str] = []
    with serving(FakeRM.from_folder(RECORDED)) as rm:
        watcher, _clock = _watcher(rm, tmp_path, told)
        calls = []
        stop = threading.Event()

        def poll_once() -> object:
            calls.append(1)
            if len(calls) == 1:
                raise KeyError("boom")
            stop.set()
            return watcher.latest()

        watcher.poll_once = poll_once  # type: ignore[method-assign]
        watcher.interval_s = 0.0
        watcher.run(stop)
        assert len(calls) == 2
        assert watcher.latest().stats.last_error == "internal error: KeyError: 'boom'"
        watcher.history.close()


def test_a_broken_allocation_file_is_shown_until_fixed(tmp_path: Path) -> None:
    told: list[str] = []
    good = (Path(__file__).resolve().parents[2] / "rmharness" / "scripts"
            / "contention.xml").read_text()
    path = tmp_path / "fair-scheduler.xml"
    path.write_text(good)
    with serving(FakeRM.from_folder(RECORDED)) as rm:
        watch = AllocationWatch(path)
        watcher, clock = _watcher(rm, tmp_path, told, watch)
        watcher.poll_once()
        path.write_text(good.replace("<weight>1.0</weight>", "<weight>heavy</weight>", 1))
        clock.now += 10  # the file is older than AllocationFileLoaderService's 5 s wait
        os.utime(path, (clock.now - 6, clock.now - 6))
        broken = watcher.poll_once()
        assert broken.stats.up  # the RM's sample is fine: the old file stays in force
        assert any("heavy" in note for note in broken.notes), broken.notes
        path.write_text(good)
        os.utime(path, (clock.now - 6, clock.now - 6))
        clock.now += 5
        fixed = watcher.poll_once()
        assert not any("heavy" in note for note in fixed.notes)
        watcher.history.close()

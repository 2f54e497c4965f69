"""The serve process's collector on a clock (server/collector.py): automatic collections off
while it runs, cyclic garbage still found by its steps, the collector given back as it was."""

from __future__ import annotations

import gc
import time
import weakref

import pytest

from fairshare.server.collector import PacedCollector


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    """A pair that refers to itself: only the cyclic collector frees it."""
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


def test_a_step_frees_young_cycles_and_every_nth_is_a_full_collection() -> None:
    collector = PacedCollector(young_every_s=3600, full_every=3)
    collector.start()
    try:
        assert not gc.isenabled()
        garbage = _cycle()
        for _ in range(20_000):  # what would have set off many automatic collections
            _cycle()
        assert garbage() is not None  # nothing collects it but a step
        assert [collector.step() for _ in range(6)] == [1, 1, 2, 1, 1, 2]
        assert garbage() is None
    finally:
        collector.stop()
    assert gc.isenabled()
    assert gc.get_freeze_count() == 0


def test_the_thread_steps_on_its_clock_and_stop_ends_it() -> None:
    collector = PacedCollector(young_every_s=0.02)
    collector.start()
    try:
        garbage = _cycle()
        deadline = time.monotonic() + 10
        while garbage() is not None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert garbage() is None and collector.steps >= 1
    finally:
        collector.stop()
    steps = collector.steps
    time.sleep(0.1)
    assert collector.steps == steps  # no step after stop


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    try:
        collector = PacedCollector(young_every_s=3600)
        collector.start()
        collector.stop()
        assert not gc.isenabled()
    finally:
        gc.enable()


@pytest.mark.parametrize("every, full", [(0, 1), (-1.0, 1), (1.0, 0)])
def test_impossible_settings_are_refused(every: float, full: int) -> None:
    with pytest.raises(ValueError):
        PacedCollector(young_every_s=every, full_every=full)

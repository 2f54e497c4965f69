"""Fixtures that run Hadoop's own ResourceManager (rmharness) for the rm_tests.

``rmharness_jar`` builds rmharness/target/rmharness.jar once per session if it is missing
(Maven, offline first). ``fair_rm`` starts one FairScheduler RM per module running the
built-in ``contention`` script; ``start_rm`` starts any other. Every process is ended by its
own pid in ``finally`` (Harness.stop: ``quit`` on stdin, then kill if the JVM lingers).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from rm_tests.harness import CONTENTION_XML, Harness, build


@pytest.fixture(scope="session")
def rmharness_jar() -> Path:
    return build()


@pytest.fixture(scope="module")
def fair_rm(rmharness_jar: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Harness]:
    """A FairScheduler RM with the contention allocation file, running the contention script."""
    log = tmp_path_factory.mktemp("rm") / "fair-rm.log"
    harness = Harness.start(
        "--allocations", str(CONTENTION_XML), "--script", "contention", stderr_path=log
    )
    try:
        yield harness
    finally:
        harness.stop()


@pytest.fixture()
def start_rm(
    rmharness_jar: Path, tmp_path: Path
) -> Iterator[Callable[..., Harness]]:
    """Starts harnesses with the given arguments; stops them all at the end of the test."""
    started: list[Harness] = []

    def start(*args: str) -> Harness:
        harness = Harness.start(*args, stderr_path=tmp_path / f"rm-{len(started)}.log")
        started.append(harness)
        return harness

    try:
        yield start
    finally:
        for harness in started:
            harness.stop()

"""An engine loop on a hand-moved clock, for the server's tests: the clock moves only when a
test says, so what the loop did at each reading is known."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.yarnsite import load_site
from fairshare.core import Engine
from fairshare.resources.vector import Resource
from fairshare.server.executors.base import Executor
from fairshare.server.executors.virtual import VirtualExecutor
from fairshare.server.journal import Journal
from fairshare.server.loop import EngineLoop, NodeSpec, ServerClock
from fairshare.server.submission import Submission
from fairshare.sim.sources.workload import TaskGroup

TS = 1_800_000_000_000  # the test RM's cluster timestamp

ALLOCATIONS = """<?xml version="1.0"?>
<allocations>
  <queue name="a"><weight>1</weight></queue>
  <queue name="b"><weight>1</weight></queue>
  <defaultFairSharePreemptionTimeout>2</defaultFairSharePreemptionTimeout>
  <defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>
</allocations>
"""
SITE = {"yarn.scheduler.fair.preemption": "true",
        "yarn.scheduler.fair.waitTimeBeforeKill": "1000",
        "yarn.scheduler.fair.preemption.cluster-utilization-threshold": "0.5"}


class HandClock(ServerClock):
    """A clock at ``t`` ms, moved by :meth:`to`."""

    def __init__(self) -> None:
        self.t = 0.0
        super().__init__(1.0, monotonic=lambda: self.t / 1000)

    def to(self, ms: int) -> None:
        self.t = float(ms)


def mb(memory: int, vcores: int = 1) -> Resource:
    return Resource((memory, vcores))


def submission(app_id: str, queue: str, *, user: str = "alice",
               tasks: tuple[TaskGroup, ...] = (), am: Resource | None = None,
               **kw: object) -> Submission:
    fields: dict[str, object] = dict(
        application_id=app_id, name=f"{app_id}-job", queue=queue, user=user, priority=0,
        am_resource=am or mb(1024), unmanaged=False, max_attempts=2,
        application_type="YARN", tags=(), am_command=None, tasks=tasks)
    fields.update(kw)
    return Submission(**fields)  # type: ignore[arg-type]


@contextmanager
def running_loop(tmp: Path, *, nodes: int = 2, executor: Executor | None = None,
                 journal: bool = True, allocations: str = ALLOCATIONS,
                 settings: dict[str, str] | None = None
                 ) -> Iterator[tuple[EngineLoop, HandClock]]:
    properties = {**SITE, **(settings or {})}
    site = load_site(None, properties)
    config = parse_allocations_text(allocations, "fair-scheduler.xml", site.resource_types)
    engine = Engine(site, config)
    clock = HandClock()
    writer = (Journal(tmp / "session.yaml", engine.types, allocations, None, properties)
              if journal else None)
    try:
        loop = EngineLoop(engine, executor or VirtualExecutor(),
                          [NodeSpec(f"node{i}:45454", mb(8192, 8)) for i in range(1, nodes + 1)],
                          cluster_timestamp=TS, clock=clock, work_dir=tmp / "work",
                          journal=writer)
        loop.start()
        try:
            yield loop, clock
        finally:
            loop.stop()
    finally:
        if writer is not None:
            writer.close()


def settle(loop: EngineLoop, clock: HandClock, ms: int) -> None:
    """Move the clock to ``ms`` and wait until the loop has run everything due by then."""
    clock.to(ms)
    assert loop.sync() == ms

"""An EngineDriver over a real engine (what the loop is to the AM hub), an executor that keeps
what it was told, and a hub on them, for the AM protocol's tests."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fairshare.core import Engine, apply_command
from fairshare.resources.vector import Resource
from fairshare.server.am import AMHub
from fairshare.server.control import EventListener
from fairshare.server.executors.base import ExecutorHost, Launch, NodeOffer
from fairshare.server.submission import Submission
from tests.core.engine_builders import GB, PREEMPTION_ON, make_engine, r

NODE = "host1:8041"
# two equal queues, b starved after 1 s below half its fair share (docs/semantics.md §4.2)
QUEUES = ("<queue name='a'/><queue name='b'>"
          "<fairSharePreemptionTimeout>1</fairSharePreemptionTimeout></queue>")
SITE = {**PREEMPTION_ON, "yarn.scheduler.fair.assignmultiple": "true",
        "yarn.scheduler.fair.dynamic.max.assign": "false",
        "yarn.scheduler.fair.waitTimeBeforeKill": "1000"}


class EngineDriverOnEngine:
    """``EngineDriver`` as the loop implements it: commands applied one at a time, each
    command's events handed to the listeners and returned."""

    def __init__(self, engine: Engine, epoch_ms: int = 1_700_000_000_000) -> None:
        self.engine = engine
        self.epoch_ms = epoch_ms
        self.listeners: list[EventListener] = []
        self.commands: list[object] = []
        self._lock = threading.Lock()

    def command(self, command: object) -> Sequence[object]:
        with self._lock:
            start = len(self.engine.events)
            apply_command(self.engine, command)  # type: ignore[call-overload]
            self.commands.append(command)
            events = list(self.engine.events[start:])
            for listener in self.listeners:
                listener(events)
            return events

    def add_listener(self, listener: EventListener) -> None:
        self.listeners.append(listener)

    def now_ms(self) -> int:
        return self.epoch_ms + self.engine.now


@dataclass
class RecordingExecutor:
    kind: str = "recording"
    launches: list[Launch] = field(default_factory=list)
    stops: list[tuple[str, str, int]] = field(default_factory=list)

    def start(self, host: ExecutorHost) -> None:
        pass

    def nodes(self) -> Sequence[NodeOffer] | None:
        return None

    def launch(self, launch: Launch) -> None:
        self.launches.append(launch)

    def stop(self, app: str, container: str, grace_ms: int) -> None:
        self.stops.append((app, container, grace_ms))

    def close(self) -> None:
        pass


def submission(app: str = "application_1700000000000_0001", *, queue: str = "root.a",
               command: str = "python3 my_am.py", max_attempts: int = 2,
               environment: tuple[tuple[str, str], ...] = (),
               am: Resource | None = None) -> Submission:
    return Submission(app, "my-am", queue, "alice", 0, am or r(GB, 1), False, max_attempts,
                      "YARN", (), command, environment)


def make_hub(tmp: Path, executor: object, *, nodes: Sequence[tuple[str, int, int]] = (
        (NODE, 8 * GB, 8),), base_url: str = "http://127.0.0.1:1", finish_wait_ms: int = 10_000
             ) -> tuple[AMHub, EngineDriverOnEngine]:
    engine = make_engine(QUEUES, site=SITE, nodes=nodes)
    driver = EngineDriverOnEngine(engine)
    hub = AMHub(driver, executor, types=engine.types,  # type: ignore[arg-type]
                maximum_allocation=engine.site.maximum_allocation, base_url=base_url,
                work_root=tmp / "local", log_root=tmp / "logs", grace_ms=250,
                finish_wait_ms=finish_wait_ms)
    hub.start()
    return hub, driver

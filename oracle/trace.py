"""A workload scenario, replayed for the driver as the steps fairshare's simulator took.

The driver replays steps; the simulator's app model (tasks that end ``duration-ms`` after their
container starts, asks after the AM, …) lives in Python. So fairshare simulates the workload
with every heartbeat run (the fixed-interval loop), and each call the loop makes on the engine
— submit, request, update, heartbeat, advance, a finished task's container, finish, a node
added or lost, a reload — is recorded as a step, with the events it produced. The driver then gives
Hadoop's scheduler exactly those inputs.

That is a sound comparison up to the first difference, and only the first difference is
reported: until then both schedulers saw the same inputs in the same order, so a difference is
the scheduler's own. After it, the inputs were chosen by fairshare's decisions and mean nothing
for Hadoop's run. A final snapshot (``end``) compares the state when both runs agree to the
end.

A timed reload is given to the driver as the file YARN would read (overrides written in). A
call the driver cannot replay (a graceful decommission, a recovered container) ends the
recording: the run is compared up to it, with the ``end`` snapshot taken just before it
(``Trace.stopped`` says why).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fairshare.config.allocation import allocation_text
from fairshare.config.overrides import Override
from fairshare.core import ContainerRequest, Engine, Event, event_record
from fairshare.sim.parse.steps import Scenario
from fairshare.sim.record.snapshot import snapshot
from fairshare.sim.run.scripted import ScriptRunner
from oracle.normalise import NotComparable

ReloadInputs = tuple[str | None, Path | None, tuple[Override, ...]]

# engine methods the simulation loop calls, and how each becomes a step
RECORDED = ("submit", "request", "update", "heartbeat", "advance_to", "complete_container",
            "finish", "add_node", "remove_node", "reload", "reload_failed",
            "decommission_node", "recover_container")


class _NotReplayed(Exception):
    """An engine call the driver does not replay: the recording ends before it."""


@dataclass
class Trace:
    steps: list[dict[str, Any]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)  # each with its "step"
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    stopped: str | None = None  # why the recording ended before the run did, with when

    def end(self, engine: Engine) -> None:
        self.steps.append({"step": "snapshot", "line": 0, "label": "end"})
        self.snapshots.append(snapshot(engine, "end"))


def trace_workload(scenario: Scenario) -> Trace:
    """fairshare's simulation of ``scenario`` (no scripted steps), as steps and records."""
    if scenario.steps:
        raise NotComparable("it has both steps and a workload")
    if scenario.overrides:
        raise NotComparable("it is run with --set options")
    runner = ScriptRunner(scenario, None, event_driven=False)
    trace = Trace()
    reloads = [c.reload.inputs for c in runner.timed.changes if c.reload is not None]
    _Recorder(runner.engine, trace, reloads).install()
    runner.run()
    # the initial nodes registered before the recorder was installed: step -1
    trace.records[:0] = [{**r, "step": -1} for r in runner.result.records]
    if trace.stopped is None:
        trace.end(runner.engine)
    return trace


class _Recorder:
    def __init__(self, engine: Engine, trace: Trace, reloads: list[ReloadInputs]) -> None:
        self.engine, self.trace = engine, trace
        self.depth = 0  # engine methods call each other: only the loop's calls are steps
        self.reloads = iter(reloads)  # the timed reloads' files, in the order they happen

    def install(self) -> None:
        def record(event: Event) -> None:
            if self.trace.stopped is None:
                step = len(self.trace.steps) - 1
                self.trace.records.append({**event_record(event, self.engine.types),
                                           "step": step})

        self.engine.subscribe(record)
        for name in RECORDED:
            setattr(self.engine, name, self._wrap(name, getattr(self.engine, name)))

    def _wrap(self, name: str, method: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(method)

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.depth == 0 and self.trace.stopped is None:
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                try:
                    step = self._step(name, bound.arguments)
                except _NotReplayed as e:
                    self.trace.end(self.engine)
                    self.trace.stopped = f"{e} at {self.engine.now:,} ms"
                else:
                    self.trace.steps.append({"step": "", "line": 0, **step})
            self.depth += 1
            try:
                return method(*args, **kwargs)
            finally:
                self.depth -= 1
        return call

    def _step(self, name: str, a: dict[str, Any]) -> dict[str, Any]:
        types = self.engine.types
        if name == "submit":
            if a["recovering"]:
                raise _NotReplayed("its workload recovers a running app")
            return {"step": "submit", "app": a["app_id"], "queue": a["queue"],
                    "user": a["user"],
                    "am": None if a["am"] is None else types.as_dict(a["am"]),
                    "requests": [self._request(r) for r in a["requests"]],
                    "recovering": False}
        if name == "request":
            return {"step": "request", "app": a["app_id"],
                    "requests": [self._request(r) for r in a["requests"]]}
        if name == "update":
            return {"step": "update"}
        if name == "heartbeat":
            return {"step": "heartbeat", "node": a["name"], "times": 1}
        if name == "advance_to":
            return {"step": "advance", "ms": a["time_ms"] - self.engine.now}
        if name == "complete_container":
            return {"step": "release-container", "app": a["app_id"],
                    "container": a["container_id"]}
        if name == "finish":
            return {"step": "finish", "app": a["app_id"]}
        if name == "add_node":
            return {"step": "add-node", "name": a["name"], "rack": a["rack"],
                    "resources": types.as_dict(a["capacity"])}
        if name == "remove_node":
            return {"step": "remove-node", "name": a["name"]}
        if name in ("reload", "reload_failed"):  # YARN reads the file, whether it is good
            text, path, overrides = next(self.reloads)
            return {"step": "reload", "allocations": allocation_text(text or None, path,
                                                                     overrides)}
        raise _NotReplayed(f"the engine's {name.replace('_', ' ')}, which the driver does not "
                           "replay,")

    def _request(self, r: ContainerRequest) -> dict[str, Any]:
        return {"count": r.count, "resources": self.engine.types.as_dict(r.resource),
                "priority": r.priority, "locality": r.locality,
                "relax-locality": r.relax_locality}

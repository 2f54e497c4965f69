"""A workload scenario, replayed for the driver as the steps fairshare's simulator took.

The driver replays steps; the simulator's app model (tasks that end ``duration-ms`` after their
container starts, asks after the AM, …) lives in Python. So fairshare simulates the workload
with every heartbeat run (the fixed-interval loop), and each call the loop makes on the engine
— submit, request, update, heartbeat, advance, a finished task's container, finish, a node
added or lost, a reload — is recorded as the command it carries out
(:mod:`fairshare.core.commands`), then as the driver's step, with the events it produced. The
driver then gives Hadoop's scheduler exactly those inputs.

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
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from fairshare.config.errors import ConfigError
from fairshare.core import (
    AddNode,
    AdvanceTo,
    Ask,
    Command,
    CompleteContainer,
    ContainerRequest,
    Decommission,
    Engine,
    Event,
    Finish,
    Heartbeat,
    RecoverContainer,
    Reload,
    ReloadFailed,
    RemoveNode,
    Submit,
    Update,
    event_record,
)
from fairshare.sim.parse.steps import Scenario
from fairshare.sim.record.snapshot import snapshot
from fairshare.sim.run.scripted import ScriptRunner
from oracle.normalise import NotComparable

# The engine methods the simulation loop and the timed changes reach (through
# fairshare.core.apply_command), and the command each call carries out, from its arguments.
# A reload's command is given the file YARN read: the timed reloads' texts, in order.
_Arguments = dict[str, Any]
RECORDED: dict[str, Callable[[_Arguments, Iterator[str | None]], Command]] = {
    "submit": lambda a, _: Submit(a["app_id"], a["queue"], a["user"], a["am"],
                                  tuple(a["requests"]), a["recovering"]),
    "request": lambda a, _: Ask(a["app_id"], tuple(a["requests"])),
    "update": lambda a, _: Update(a["preempt"]),
    "heartbeat": lambda a, _: Heartbeat(a["name"]),
    "advance_to": lambda a, _: AdvanceTo(a["time_ms"]),
    "complete_container": lambda a, _: CompleteContainer(a["app_id"], a["container_id"]),
    "finish": lambda a, _: Finish(a["app_id"]),
    "add_node": lambda a, _: AddNode(a["name"], a["capacity"], a["rack"]),
    "remove_node": lambda a, _: RemoveNode(a["name"]),
    "reload": lambda a, texts: Reload(a["allocations"], a["source"], next(texts) or ""),
    "reload_failed": lambda a, texts: ReloadFailed(a["source"], a["message"], next(texts)),
    "decommission_node": lambda a, _: Decommission(a["name"], a["timeout_ms"]),
    "recover_container": lambda a, _: RecoverContainer(
        a["app_id"], a["node"], a["resource"], a["am"], a["priority"], a["container_id"]),
}


class _NotReplayed(Exception):
    """An engine command the driver does not replay: the recording ends before it."""


@dataclass
class Trace:
    steps: list[dict[str, Any]] = field(default_factory=list)
    records: list[dict[str, Any]] = field(default_factory=list)  # each with its "step"
    snapshots: list[dict[str, Any]] = field(default_factory=list)
    stopped: str | None = None  # why the recording ended before the run did, with when
    # told of the end snapshot with the engine and every record so far (the REST answers)
    on_snapshot: Callable[[Engine, list[dict[str, Any]]], None] | None = None
    initial: list[dict[str, Any]] | None = None  # the initial nodes' records, until moved in

    def end(self, engine: Engine) -> None:
        self.steps.append({"step": "snapshot", "line": 0, "label": "end"})
        self.snapshots.append(snapshot(engine, "end"))
        if self.on_snapshot is not None:
            self.on_snapshot(engine, [*(self.initial or []), *self.records])


def trace_workload(scenario: Scenario,
                   on_snapshot: Callable[[Engine, list[dict[str, Any]]], None] | None = None
                   ) -> Trace:
    """fairshare's simulation of ``scenario`` (no scripted steps), as steps and records;
    ``on_snapshot`` is called at the end snapshot with the engine and the records so far
    (the REST answers)."""
    if scenario.steps:
        raise NotComparable("it has both steps and a workload")
    if scenario.overrides:
        raise NotComparable("it is run with --set options")
    runner = ScriptRunner(scenario, None, event_driven=False)
    trace = Trace(on_snapshot=on_snapshot, initial=runner.result.records)
    texts = [c.command.text for c in runner.timed.changes
             if isinstance(c.command, Reload | ReloadFailed)]
    _Recorder(runner.engine, trace, texts).install()
    runner.run()
    # the initial nodes registered before the recorder was installed: step -1
    trace.records[:0] = [{**r, "step": -1} for r in runner.result.records]
    trace.initial = None
    if trace.stopped is None:
        trace.end(runner.engine)
    return trace


class _Recorder:
    def __init__(self, engine: Engine, trace: Trace, texts: list[str | None]) -> None:
        self.engine, self.trace = engine, trace
        self.depth = 0  # engine methods call each other: only the loop's calls are steps
        self.texts = iter(texts)  # the timed reloads' files, in the order they happen

    def install(self) -> None:
        def record(event: Event) -> None:
            if self.trace.stopped is None:
                step = len(self.trace.steps) - 1
                self.trace.records.append({**event_record(event, self.engine.types),
                                           "step": step})

        self.engine.subscribe(record)
        for name, command in RECORDED.items():
            setattr(self.engine, name, self._wrap(command, getattr(self.engine, name)))

    def _wrap(self, command: Callable[[_Arguments, Iterator[str | None]], Command],
              method: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(method)

        def call(*args: Any, **kwargs: Any) -> Any:
            if self.depth == 0 and self.trace.stopped is None:
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                try:
                    step = self._step(command(bound.arguments, self.texts))
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

    def _step(self, command: Command) -> dict[str, Any]:
        """The driver's step (oracle/driver) for ``command``."""
        types = self.engine.types
        match command:
            case Submit(recovering=True):
                raise _NotReplayed("its workload recovers a running app")
            case Submit():
                return {"step": "submit", "app": command.app, "queue": command.queue,
                        "user": command.user,
                        "am": None if command.am is None else types.as_dict(command.am),
                        "requests": [self._request(r) for r in command.requests],
                        "recovering": False}
            case Ask():
                return {"step": "request", "app": command.app,
                        "requests": [self._request(r) for r in command.requests]}
            case Update():
                return {"step": "update"}
            case Heartbeat():
                return {"step": "heartbeat", "node": command.node, "times": 1}
            case AdvanceTo():
                return {"step": "advance", "ms": command.time_ms - self.engine.now}
            case CompleteContainer():
                return {"step": "release-container", "app": command.app,
                        "container": command.container}
            case Finish():
                return {"step": "finish", "app": command.app}
            case AddNode():
                return {"step": "add-node", "name": command.node, "rack": command.rack,
                        "resources": types.as_dict(command.capacity)}
            case RemoveNode():
                return {"step": "remove-node", "name": command.node}
            case Reload() | ReloadFailed():  # YARN reads the file, whether it is good
                if command.text is None:
                    raise ConfigError(command.message)
                return {"step": "reload", "allocations": command.text}
        name = {Decommission: "decommission node", RecoverContainer: "recover container"}
        raise _NotReplayed(f"the engine's {name[type(command)]}, which the driver does not "
                           "replay,")

    def _request(self, r: ContainerRequest) -> dict[str, Any]:
        return {"count": r.count, "resources": self.engine.types.as_dict(r.resource),
                "priority": r.priority, "locality": r.locality,
                "relax-locality": r.relax_locality}

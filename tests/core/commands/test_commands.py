"""The command vocabulary (core/commands.py): each command applied has exactly the effect of the
Engine call it names, and its JSON form reads back as the same command."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.errors import ConfigError
from fairshare.core import (
    AddNode,
    AddNodes,
    Advance,
    AdvanceTo,
    Ask,
    Command,
    CompleteContainer,
    ContainerRequest,
    Decommission,
    Engine,
    EngineError,
    Finish,
    Forget,
    Heartbeat,
    HeartbeatAll,
    HeartbeatTick,
    Kill,
    Move,
    Node,
    Preempt,
    RecoverContainer,
    Release,
    Reload,
    ReloadFailed,
    RemoveNode,
    ResizeNode,
    Restart,
    Submit,
    Update,
    apply_command,
    command_from_json,
    command_to_json,
    event_record,
)
from fairshare.core.commands import COMMAND_KINDS
from fairshare.resources.vector import DEFAULT_TYPES, ResourceTypes
from tests.core.engine_builders import GB, PREEMPTION_ON, allocations_xml, make_engine, r

TYPES = DEFAULT_TYPES
QUEUES = ("<defaultFairSharePreemptionTimeout>60</defaultFairSharePreemptionTimeout>"
          "<queue name='a'><weight>1</weight></queue><queue name='b'><weight>3</weight></queue>")
RELOADED = allocations_xml(
    "<queue name='a'><weight>2</weight></queue><queue name='b'><weight>1</weight></queue>")
ONE = (ContainerRequest(1, r(GB)),)
FOUR = (ContainerRequest(4, r(2 * GB), priority=2),)

# (command, the Engine call it stands for) — every kind, in an order that makes each one do
# something: allocations, preemption, a decommission, a recovery, reloads. A command that
# names a container is made from the engine's state (the same on both engines).
Direct = Callable[[Engine], object]
Made = Command | Callable[[Engine], Command]


def _task(engine: Engine, app: str) -> str:
    return next(c.id for c in engine.app(app).containers.values() if not c.is_am)


SCENARIO: list[tuple[Made, Direct]] = [
    (AddNode("n2", r(8 * GB, 8), "/rack2"), lambda e: e.add_node("n2", r(8 * GB, 8), "/rack2")),
    (Submit("app1", "a", "ann", r(GB), FOUR), lambda e: e.submit("app1", "a", "ann", r(GB), FOUR)),
    (Update(), lambda e: e.update()),
    (HeartbeatAll(), lambda e: e.heartbeat_all()),
    (Heartbeat("n1"), lambda e: e.heartbeat("n1")),
    (HeartbeatTick(), lambda e: list(e.heartbeat_tick())),
    (Ask("app1", (ContainerRequest(6, r(GB), 3, "/rack2", True),)),
     lambda e: e.request("app1", (ContainerRequest(6, r(GB), 3, "/rack2", True),))),
    (Heartbeat("n2"), lambda e: e.heartbeat("n2")),
    (HeartbeatAll(), lambda e: e.heartbeat_all()),
    (Submit("app2", "b", "bob", None, FOUR), lambda e: e.submit("app2", "b", "bob", None, FOUR)),
    (Update(preempt=False), lambda e: e.update(preempt=False)),
    (Advance(70_000), lambda e: e.advance(70_000)),
    (Update(), lambda e: e.update()),
    (Preempt(), lambda e: e.preempt()),
    (AdvanceTo(90_000), lambda e: e.advance_to(90_000)),
    (HeartbeatAll(), lambda e: e.heartbeat_all()),
    (Release("app1", 1, "oldest"), lambda e: e.release("app1", 1, "oldest")),
    (lambda e: CompleteContainer("app1", _task(e, "app1")),
     lambda e: e.complete_container("app1", _task(e, "app1"))),
    (Reload.of_text(RELOADED, "reload.xml", TYPES),
     lambda e: e.reload(parse_allocations_text(RELOADED, "reload.xml", TYPES), "reload.xml")),
    (ReloadFailed("bad.xml", "bad.xml:1: not well-formed"),
     lambda e: e.reload_failed("bad.xml", "bad.xml:1: not well-formed")),
    (Move("app2", "a"), lambda e: e.move("app2", "a")),
    (ResizeNode("n2", r(4 * GB, 4)), lambda e: e.resize_node("n2", r(4 * GB, 4))),
    (Restart(1, 5_000), lambda e: e.restart(1, 5_000)),
    (Submit("app3", "a", "cy", r(GB), (), recovering=True),
     lambda e: e.submit("app3", "a", "cy", r(GB), (), True)),
    (RecoverContainer("app3", "n1", r(GB), am=True, priority=0, container="c-am"),
     lambda e: e.recover_container("app3", "n1", r(GB), am=True, priority=0,
                                   container_id="c-am")),
    (RecoverContainer("app3", "n2", r(2 * GB), priority=1),
     lambda e: e.recover_container("app3", "n2", r(2 * GB), priority=1)),
    (Decommission("n2", 30_000), lambda e: e.decommission_node("n2", 30_000)),
    (Advance(40_000), lambda e: e.advance(40_000)),
    (Kill("app2"), lambda e: e.kill("app2")),
    (Finish("app1"), lambda e: e.finish("app1")),
    (Forget("app2"), lambda e: e.forget("app2")),
    (AddNode("n3", r(GB)), lambda e: e.add_node("n3", r(GB))),
    (AddNodes((AddNode("n4", r(2 * GB, 2)), AddNode("n5", r(GB), "/rack2"))),
     lambda e: e.add_nodes([("n4", r(2 * GB, 2), "/default-rack"), ("n5", r(GB), "/rack2")])),
    (HeartbeatTick(skip_quiet=False), lambda e: list(e.heartbeat_tick(skip_quiet=False))),
    (RemoveNode("n3"), lambda e: e.remove_node("n3")),
    (Decommission("n1", None), lambda e: e.decommission_node("n1", None)),
    (HeartbeatAll(), lambda e: e.heartbeat_all()),
]


def _engine() -> Engine:
    return make_engine(QUEUES, site=PREEMPTION_ON)


def _returned(value: object) -> object:
    """What a call returned, compared by what it names (records are the engine's own)."""
    return getattr(value, "id", getattr(value, "name", value))


def _made(made: Made, engine: Engine) -> Command:
    return made(engine) if callable(made) else made


def test_every_kind_is_in_the_scenario() -> None:
    kinds = {type(m) for m, _ in SCENARIO if not callable(m)} | {CompleteContainer}
    assert kinds == set(COMMAND_KINDS.values())


def test_each_command_has_the_effect_and_events_of_its_engine_call() -> None:
    by_command, direct = _engine(), _engine()
    for made, call in SCENARIO:
        command = _made(made, by_command)
        got, expected = apply_command(by_command, command), call(direct)
        if isinstance(command, HeartbeatTick):  # the tick runs as its iterator is consumed
            got = list(cast(Iterator[str], got))
        if isinstance(command, AddNodes):
            got, expected = ([_returned(n) for n in cast(list[Node], x)] for x in (got, expected))
        assert _returned(got) == _returned(expected), command
        assert [event_record(e, TYPES) for e in by_command.events] == \
            [event_record(e, TYPES) for e in direct.events], command
    kinds = {e.type for e in direct.events}  # the scenario exercised what it meant to
    assert {"container-allocated", "container-preempted", "config-reloaded", "config-error",
            "app-moved", "node-decommissioned", "container-recovered"} <= kinds


def test_a_refused_command_raises_what_the_engine_raises() -> None:
    engine = _engine()
    with pytest.raises(EngineError, match="app9"):
        apply_command(engine, Finish("app9"))
    with pytest.raises(EngineError, match="already registered"):
        apply_command(engine, AddNode("n1", r(GB)))


# -- the JSON form -----------------------------------------------------------------------------

names = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1,
                max_size=8)
amounts = st.integers(min_value=0, max_value=2**63 - 1)
resources = st.builds(lambda m, v: TYPES.of({"memory-mb": m, "vcores": v}), amounts, amounts)
requests = st.tuples(*[st.builds(ContainerRequest, st.integers(0, 10**6), resources,
                                 st.integers(0, 100), st.one_of(st.just("*"), names),
                                 st.booleans())]) | st.just(())
times = st.integers(min_value=0, max_value=2**53 - 1)
reloads = st.builds(
    lambda weights, source: Reload.of_text(allocations_xml("".join(
        f"<queue name='q{i}'><weight>{w}</weight></queue>" for i, w in enumerate(weights))),
        source, TYPES),
    st.lists(st.integers(1, 9), max_size=3), names)
commands = st.one_of(
    st.builds(AddNode, names, resources, names), st.builds(RemoveNode, names),
    st.builds(ResizeNode, names, resources), st.builds(Decommission, names, times | st.none()),
    st.builds(Heartbeat, names), st.just(HeartbeatAll()),
    st.builds(HeartbeatTick, st.booleans(), st.booleans()),
    st.builds(AddNodes, st.lists(st.builds(AddNode, names, resources, names), max_size=3)
              .map(tuple)),
    st.builds(Submit, names, names, names, resources | st.none(), requests, st.booleans()),
    st.builds(RecoverContainer, names, names, resources, st.booleans(), st.integers(0, 100),
              names | st.none()),
    st.builds(Ask, names, requests),
    st.builds(Release, names, st.integers(0, 100), st.sampled_from(["newest", "oldest", "am"])),
    st.builds(CompleteContainer, names, names), st.builds(Finish, names),
    st.builds(Kill, names), st.builds(Forget, names), st.builds(Move, names, names),
    st.builds(Update, st.booleans()),
    st.just(Preempt()), st.builds(Advance, times), st.builds(AdvanceTo, times), reloads,
    st.builds(ReloadFailed, names, names, names | st.none()),
)


@given(commands)
def test_a_command_reads_back_from_its_json_form(command: Command) -> None:
    data = json.loads(json.dumps(command_to_json(command, TYPES)))  # through real JSON text
    assert next(iter(data)) == "kind" and data["kind"] == command.kind
    assert command_from_json(data, TYPES) == command


def test_the_json_form_names_every_field_in_kebab_case() -> None:
    command = RecoverContainer("app1", "n1", r(GB, 2), am=True, priority=0, container="c1")
    assert command_to_json(command, TYPES) == {
        "kind": "recover-container", "app": "app1", "node": "n1",
        "resource": {"memory-mb": GB, "vcores": 2}, "am": True, "priority": 0,
        "container": "c1"}
    ask = command_to_json(Ask("app1", ONE), TYPES)
    assert ask["requests"] == [{"count": 1, "resource": {"memory-mb": GB, "vcores": 1},
                                "priority": 1, "locality": "*", "relax-locality": True}]
    reload = command_to_json(Reload.of_text(RELOADED, "r.xml", TYPES), TYPES)
    assert reload == {"kind": "reload", "source": "r.xml", "text": RELOADED}


def test_fields_left_out_take_their_defaults() -> None:
    assert command_from_json({"kind": "submit", "app": "a1"}, TYPES) == Submit("a1")
    assert command_from_json({"kind": "request", "app": "a1", "requests": [
        {"count": 2, "resource": {"memory-mb": GB}}]}, TYPES) == \
        Ask("a1", (ContainerRequest(2, r(GB, 0)),))


@pytest.mark.parametrize(("data", "message"), [
    ({"kind": "launch"}, "unknown command kind 'launch'"),
    ({"app": "a"}, "unknown command kind None"),
    ({"kind": "finish"}, "finish: missing field app"),
    ({"kind": "finish", "app": "a", "queue": "q"}, "finish: unknown field"),
    ({"kind": "finish", "app": 3}, "finish.app: expected str"),
    ({"kind": "advance", "ms": True}, "advance.ms: expected int"),
    ({"kind": "release", "app": "a", "which": "middle"}, "release.which: 'middle' is not one"),
    ({"kind": "add-node", "node": "n", "capacity": {"gpu": 1}}, "add-node.capacity: unknown"),
    ({"kind": "add-node", "node": "n", "capacity": [1, 2]}, "add-node.capacity: expected"),
    ({"kind": "request", "app": "a", "requests": {}}, "request.requests: expected a list"),
    ({"kind": "request", "app": "a", "requests": [{"count": 1}]},
     r"request.requests\[0\]: missing field resource"),
    ({"kind": "request", "app": "a", "requests": [{"count": 1, "resource": {}, "size": 1}]},
     r"request.requests\[0\]: unknown field"),
])
def test_a_malformed_command_is_refused_with_the_field_that_is_wrong(
        data: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        command_from_json(data, TYPES)


def test_a_reload_whose_text_does_not_parse_is_refused() -> None:
    with pytest.raises(ConfigError):
        command_from_json({"kind": "reload", "source": "r.xml", "text": "<allocations"}, TYPES)


def test_resources_are_read_in_the_engines_types() -> None:
    gpu = ResourceTypes(("memory-mb", "vcores", "yarn.io/gpu"))
    command = command_from_json({"kind": "resize-node", "node": "n1", "capacity": {
        "memory-mb": GB, "yarn.io/gpu": 2}}, gpu)
    assert command == ResizeNode("n1", gpu.of({"memory-mb": GB, "yarn.io/gpu": 2}))

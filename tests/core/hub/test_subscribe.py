"""Listeners of an engine's events can leave: ``Engine.subscribe`` returns what unsubscribes.

A live watcher subscribes while it is connected and must stop receiving events when it goes;
the engine's own sink (the ``events`` list) is unaffected either way.
"""

from __future__ import annotations

from fairshare.core import Engine, Event
from tests.core.engine_builders import make_engine, r


def _engine() -> Engine:
    return make_engine(nodes=())


def test_unsubscribed_listener_hears_nothing_more() -> None:
    engine = _engine()
    first: list[Event] = []
    second: list[Event] = []
    leave_first = engine.subscribe(first.append)
    engine.subscribe(second.append)
    engine.add_node("n1", r(8192, 8))
    leave_first()
    engine.add_node("n2", r(8192, 8))
    engine.unsubscribe(second.append)  # equal to, not the same object as, the one given
    engine.add_node("n3", r(8192, 8))
    assert [e.node for e in first] == ["n1"]  # type: ignore[attr-defined]
    assert [e.node for e in second] == ["n1", "n2"]  # type: ignore[attr-defined]
    assert [e.node for e in engine.events] == ["n1", "n2", "n3"]  # type: ignore[attr-defined]


def test_listeners_hear_in_subscription_order_and_after_the_sink() -> None:
    engine = _engine()
    heard: list[tuple[str, int]] = []

    def a(event: Event) -> None:
        heard.append(("a", len(engine.events)))

    def b(event: Event) -> None:
        heard.append(("b", len(engine.events)))

    engine.subscribe(a)
    leave_b = engine.subscribe(b)
    engine.add_node("n1", r(1024, 1))
    leave_b()
    leave_b()  # twice: nothing more to undo
    engine.unsubscribe(a)
    engine.add_node("n2", r(1024, 1))
    assert heard == [("a", 1), ("b", 1)]

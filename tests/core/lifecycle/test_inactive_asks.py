"""A scheduler key whose ANY ask ran out keeps its host and rack asks (docs/semantics.md §3.6.6).

Expected values from Hadoop's ``LocalityAppPlacementAllocator``: ``allocateOffSwitch`` takes one
off the ANY request only; ``decrementOutstanding`` at 0 removes the key and the ANY request and
leaves the host and rack requests; a new ANY request for the key finds them in the same map
(``AppSchedulingInfo.getAndAddAppPlacementAllocatorIfNotExist``); ``getStarvedResourceRequests``
reads every allocator's requests (``getAllResourceRequests``). The heartbeat-level consequence
(a node-local reservation) is ``tests/scenarios/20-inactive-host-asks-come-back.yaml``.
"""

from __future__ import annotations

from fairshare.core.engine import Engine
from fairshare.core.model.records import Ask
from fairshare.core.preemption.plan import app_request_asks
from tests.core.engine_builders import GB, ask, make_engine

KEY = (1, 0)  # priority 1, allocation-request id 0


def two_racks() -> Engine:
    engine = make_engine('<queue name="a"/>', nodes=())
    engine.add_node("n1", ask(1, 2 * GB).resource, "/r1")
    engine.add_node("n2", ask(1, 4 * GB).resource, "/r2")
    return engine


def off_switch_on_n1(engine: Engine) -> None:
    """a1 asks once at host n2 (n2, /r2, ANY at 1); n1 (another rack) takes it off-switch."""
    engine.submit("a1", "a", "u", requests=[ask(1, 2 * GB, locality="n2")])
    engine.update()
    engine.heartbeat("n1")


def counts(table: dict[str, Ask]) -> dict[str, int]:
    return {name: a.count for name, a in table.items()}


def test_the_host_and_rack_asks_outlive_the_any_ask() -> None:
    engine = two_racks()
    off_switch_on_n1(engine)
    app = engine.app("a1")
    assert len(app.containers) == 1
    assert KEY not in app.asks  # no scheduler key: nothing pending, no demand
    assert counts(app.inactive_asks[KEY]) == {"n2": 1, "/r2": 1}
    engine.update()
    assert app.demand.memory == 2 * GB  # the one container it holds


def test_asking_again_at_any_brings_them_back() -> None:
    engine = two_racks()
    off_switch_on_n1(engine)
    engine.request("a1", [ask(2, 2 * GB)])  # ANY only, priority 1: the same key
    app = engine.app("a1")
    assert counts(app.asks[KEY]) == {"*": 2, "n2": 1, "/r2": 1}
    assert next(iter(app.asks[KEY])) == "*"  # ANY first (the §5.2 order)
    assert KEY not in app.inactive_asks
    # n2 is node-local for the key again: its container takes the n2, /r2 and ANY asks
    engine.update()
    engine.heartbeat("n2")
    assert counts(app.asks[KEY]) == {"*": 1}


def test_an_ask_at_the_host_adds_to_the_inactive_count() -> None:
    engine = two_racks()
    off_switch_on_n1(engine)
    engine.request("a1", [ask(1, 2 * GB, locality="n2")])
    assert counts(engine.app("a1").asks[KEY]) == {"*": 1, "n2": 2, "/r2": 2}


def test_the_starved_requests_read_the_inactive_asks() -> None:
    engine = two_racks()
    off_switch_on_n1(engine)
    places = [(a.priority, a.resource_name, a.count) for a in app_request_asks(engine.app("a1"))]
    assert places == [(1, "n2", 1), (1, "/r2", 1)]


def test_an_ended_app_keeps_none() -> None:
    engine = two_racks()
    off_switch_on_n1(engine)
    engine.finish("a1")
    assert engine.app("a1").inactive_asks == {}


def test_another_size_gets_its_own_key() -> None:
    """fairshare's numbering of sizes (docs/fidelity.md, "Two requests … different sizes"): an
    inactive key's id stays taken by its size, so a new size never takes over its asks."""
    engine = two_racks()
    off_switch_on_n1(engine)
    engine.request("a1", [ask(1, GB)])
    app = engine.app("a1")
    assert counts(app.asks[(1, 1)]) == {"*": 1}
    assert counts(app.inactive_asks[KEY]) == {"n2": 1, "/r2": 1}

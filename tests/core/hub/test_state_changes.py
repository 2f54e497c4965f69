"""Each writer records the kinds of change its table (``RECORDS`` of
:mod:`fairshare.core.hub.state`) declares, and only those.

Every public writer of :class:`StateWriter` runs here on a small state (a node, a parent with a
leaf, another leaf, an app or two), once per branch that records something different, with a
change log that notes each kind recorded; the kinds one writer recorded over its runs must equal
its table entry. A writer without an entry, or without a run here, fails the test, so a new
writer cannot be added without saying what it records: the caches (order index, update pass,
preemption search) read exactly these records to know what to recompute.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import pytest

from fairshare.config.allocation import parse_allocations_text
from fairshare.config.yarnsite import load_site
from fairshare.core.hub.scheduler import Scheduler
from fairshare.core.hub.state import RECORDS, QueueCounter, StateWriter
from fairshare.core.model.changes import Change, ChangeLog
from fairshare.core.model.records import (
    ANY,
    App,
    AppState,
    Container,
    KillTimer,
    Node,
    StarvationWrites,
    StarvedApps,
)
from fairshare.core.rules.locality import Locality, LocalityState
from fairshare.resources.vector import DEFAULT_TYPES, Resource

GB = 1024
LEAF, PARENT, OTHER = "root.p.a", "root.p", "root.b"
KEY = (0, 0)


def r(memory: int, vcores: int = 1) -> Resource:
    return DEFAULT_TYPES.of({"memory-mb": memory, "vcores": vcores})


class NotingLog(ChangeLog):
    """A change log that also notes which kinds were recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.kinds: set[Change] = set()

    def app(self, app: App) -> None:
        self.kinds.add(Change.APP)
        super().app(app)

    def membership(self, app: App) -> None:
        self.kinds.add(Change.MEMBERSHIP)
        super().membership(app)

    def queue(self, name: str) -> None:
        self.kinds.add(Change.QUEUE)
        super().queue(name)

    def am_limit(self, leaf: str) -> None:
        self.kinds.add(Change.AM_LIMIT)
        super().am_limit(leaf)

    def node(self, name: str) -> None:
        self.kinds.add(Change.NODE)
        super().node(name)

    def tree(self) -> None:
        self.kinds.add(Change.TREE)
        super().tree()

    def cluster(self) -> None:
        self.kinds.add(Change.CLUSTER)
        super().cluster()


class World:
    """A scheduler's state with a node ``n1`` and a writer whose log notes what it records."""

    def __init__(self, writer: type[StateWriter] = StateWriter) -> None:
        xml = ("<?xml version='1.0'?><allocations><queue name='p'><queue name='a'/></queue>"
               "<queue name='b'/></allocations>")
        site = load_site(None, {})
        self.s = Scheduler(site, parse_allocations_text(xml, "test.xml", site.resource_types))
        self.log = NotingLog()
        self.w = writer(self.s.state, self.s, self.log)
        self.node = Node("n1", "/rack", r(8 * GB, 8), self.s.none)
        self.w.add_node(self.node)

    def app(self, app_id: str = "app_1", *, am: bool = True, runnable: bool = True) -> App:
        app = App(app_id, "", "alice", 0, r(GB) if am else None, True, self.s.none)
        self.w.add_app(app)
        self.w.place_app(app, LEAF, True, False)
        if runnable:
            self.w.track_runnable(app)
        return app

    def container(self, app: App) -> Container:
        return self.container_of(self.w, app, Locality.NODE_LOCAL)

    @staticmethod
    def container_of(writer: StateWriter, app: App, kind: Locality | None) -> Container:
        """A container of ``app`` allocated on ``n1`` (``kind`` None: recovered)."""
        container = Container(writer.new_container_id(app), app.id, "n1", r(GB),
                              not app.am_running and not app.unmanaged, KEY,
                              kind or Locality.NODE_LOCAL, 0)
        writer.allocate(app, writer.state.nodes["n1"], container, kind)
        return container

    def recorded(self, call: Callable[[StateWriter], object]) -> set[Change]:
        """The kinds ``call`` records (nothing the world's preparation recorded)."""
        self.log.kinds = set()
        call(self.w)
        return self.log.kinds


Call = Callable[[StateWriter], object]
Run = Callable[[World], Call]  # prepares a fresh world; the call whose records are checked
RUNS: dict[str, list[Run]] = {}


def runs(writer: str, *more: Run) -> Callable[[Run], Run]:
    """Register ``more`` and the decorated run as runs of ``writer``."""
    RUNS.setdefault(writer, []).extend(more)

    def register(run: Run) -> Run:
        RUNS[writer].append(run)
        return run
    return register


def _with_am(w: World) -> App:
    app = w.app()
    w.container(app)  # its AM
    return app


def _waiting(w: World) -> App:
    app = w.app(runnable=False)
    w.w.track_non_runnable(app)
    return app


def _reserved(w: World) -> App:
    app = w.app()
    w.w.reserve(app, w.node, KEY, r(2 * GB))
    return app


def _marked(w: World) -> tuple[App, Container]:
    owner = w.app()
    container = w.container(owner)
    w.w.mark_for_preemption(w.node, owner, container, ("app_2", 1))
    return owner, container


def _ended(w: World) -> App:
    app = w.app()
    w.w.untrack(app)
    w.w.end_app(app, AppState.FINISHED, 7)
    return app


def _on_app(writer: str, call: Callable[[StateWriter, App], object],
            make: Callable[[World], App] = World.app) -> None:
    """A run of ``writer``: ``call`` on the app ``make`` prepares."""
    def run(w: World) -> Call:
        app = make(w)
        return lambda x: call(x, app)
    runs(writer, run)


# queues
runs("sync_queues", lambda w: lambda x: x.sync_queues(w.s.tree, 5))
runs("add_usage", lambda w: lambda x: x.add_usage(LEAF, r(GB)))
runs("change_reserved", lambda w: lambda x: x.change_reserved(LEAF, r(GB), 1))
for _counter in QueueCounter:
    runs("count", lambda w, c=_counter: lambda x: x.count(LEAF, c))
runs("set_max_am_share_metric", lambda w: lambda x: x.set_max_am_share_metric(LEAF, r(GB)))
runs("set_queue_demand", lambda w: lambda x: x.set_queue_demand(PARENT, r(GB)))
runs("set_queue_fair_share", lambda w: lambda x: x.set_queue_fair_share(LEAF, r(GB), True),
     lambda w: lambda x: x.set_queue_fair_share(PARENT, r(GB), False))
runs("set_steady_fair_shares", lambda w: lambda x: x.set_steady_fair_shares({LEAF: r(GB)}))
runs("update_root_queue_metrics", lambda w: lambda x: x.update_root_queue_metrics())
# nodes
runs("add_node", lambda w: lambda x: x.add_node(Node("n2", "/rack", r(GB), w.s.none)))
runs("remove_node", lambda w: lambda x: x.remove_node(w.node))
runs("resize_node", lambda w: lambda x: x.resize_node(w.node, r(GB)))
runs("start_decommission", lambda w: lambda x: x.start_decommission(w.node, 9))
runs("note_app_ran", lambda w: lambda x: x.note_app_ran(w.node, "app_1"))
runs("start_epoch", lambda w: lambda x: x.start_epoch(1, 10_000))
runs("end_scheduling_wait", lambda w: lambda x: x.end_scheduling_wait())
# apps
runs("add_app", lambda w: lambda x: x.add_app(App("app_9", "", "bob", 0, None, True, w.s.none)))
_on_app("place_app", lambda x, app: x.place_app(app, OTHER, False, False),
        lambda w: App("app_9", "", "bob", 0, None, True, w.s.none))
_on_app("reject_app", lambda x, app: x.reject_app(app, "no such queue"))
_on_app("move_app", lambda x, app: x.move_app(app, OTHER))
_on_app("end_app", lambda x, app: x.end_app(app, AppState.FINISHED, 7))
_on_app("end_app", lambda x, app: x.end_app(app, AppState.KILLED, 7))
_on_app("new_attempt", lambda x, app: x.new_attempt(app, 7, True), _with_am)
_on_app("forget_app", lambda x, app: x.forget_app(app), _ended)
_on_app("new_container_id", lambda x, app: x.new_container_id(app))
_on_app("set_app_demand", lambda x, app: x.set_app_demand(app, r(GB)))
_on_app("set_app_fair_share", lambda x, app: x.set_app_fair_share(app, r(GB)))
_on_app("set_locality", lambda x, app: x.set_locality(app, KEY, LocalityState(Locality.NODE_LOCAL)))
_on_app("track_runnable", lambda x, app: x.track_runnable(app), lambda w: w.app(runnable=False))
_on_app("track_non_runnable", lambda x, app: x.track_non_runnable(app),
        lambda w: w.app(runnable=False))
_on_app("promote", lambda x, app: x.promote(app), _waiting)
_on_app("untrack", lambda x, app: x.untrack(app), _with_am)  # runnable, its AM running
_on_app("untrack", lambda x, app: x.untrack(app), _waiting)
_on_app("add_asks", lambda x, app: x.add_asks(app, KEY, [(ANY, True)], r(GB), 2))


@runs("decrement_asks")
def _decrement(w: World) -> Call:
    app = w.app()
    w.w.add_asks(app, KEY, [(ANY, True), ("n1", True)], r(GB), 1)
    return lambda x: x.decrement_asks(app, KEY, ["n1", ANY])


# containers
_on_app("allocate", lambda x, app: World.container_of(x, app, Locality.NODE_LOCAL))
_on_app("allocate", lambda x, app: World.container_of(x, app, None))  # a recovered AM


@runs("free_container")
def _free(w: World) -> Call:
    container = w.container(w.app())
    return lambda x: x.free_container(container)


_on_app("reserve", lambda x, app: x.reserve(app, x.state.nodes["n1"], KEY, r(GB)))  # new
_on_app("reserve", lambda x, app: x.reserve(app, x.state.nodes["n1"], KEY, r(GB)), _reserved)
_on_app("unreserve", lambda x, app: x.unreserve(app, x.state.nodes["n1"]), _reserved)
_on_app("unreserve", lambda x, app: x.unreserve(app, x.state.nodes["n1"]))  # none there
_on_app("move_reservations", lambda x, app: x.move_reservations(app, LEAF, OTHER), _reserved)


# preemption
@runs("mark_for_preemption")
def _mark(w: World) -> Call:
    app = w.app()
    container = w.container(app)
    return lambda x: x.mark_for_preemption(w.node, app, container, ("app_2", 1))


@runs("drop_earmark")
def _drop(w: World) -> Call:
    _marked(w)
    return lambda x: x.drop_earmark(w.node, ("app_2", 1))


@runs("count_preempted")
def _count_preempted(w: World) -> Call:
    owner, container = _marked(w)
    return lambda x: x.count_preempted(owner, container)


runs("add_kill_timer", lambda w: lambda x: x.add_kill_timer(5, 1, KillTimer((), "app_2", (1,))))


@runs("pop_kill_timer")
def _pop(w: World) -> Call:
    w.w.add_kill_timer(5, 1, KillTimer((), "app_2", (1,)))
    return lambda x: x.pop_kill_timer()


# starvation
runs("open_starvation_gate", lambda w: lambda x: x.open_starvation_gate(True))
runs("set_starved", lambda w: lambda x: x.set_starved(StarvedApps(("app_1",))))
_on_app("apply_starvation", lambda x, app: x.apply_starvation(
    StarvationWrites(minshare={app: r(GB)})))
_on_app("apply_starvation", lambda x, app: x.apply_starvation(StarvationWrites(
    fairshare={app: (r(GB), 3)}, clock=3, stamp_min_share=[x.state.queues[LEAF]])))
_on_app("set_next_starvation_check", lambda x, app: x.set_next_starvation_check(app, 9))


def _public(names: Iterable[str]) -> set[str]:
    return {n for n in names if not n.startswith("_") and callable(getattr(StateWriter, n))}


def test_every_writer_has_a_table_entry_and_runs_here() -> None:
    declared = {writer.__name__ for writer in RECORDS}
    assert _public(dir(StateWriter)) == declared == set(RUNS)


def test_the_table_names_the_writers_of_state_writer() -> None:
    """An entry is the function ``StateWriter`` calls (not one a later mixin overrides)."""
    assert all(getattr(StateWriter, writer.__name__) is writer for writer in RECORDS)


def recorded_by(writer: str, cls: type[StateWriter] = StateWriter) -> set[Change]:
    """The kinds ``writer`` of ``cls`` recorded over all its runs."""
    recorded: set[Change] = set()
    for run in RUNS[writer]:
        world = World(cls)
        recorded |= world.recorded(run(world))
    return recorded


def declared(writer: str) -> set[Change] | None:
    return {w.__name__: set(kinds) for w, kinds in RECORDS.items()}.get(writer)


@pytest.mark.parametrize("writer", sorted(RUNS))
def test_a_writer_records_what_its_table_says(writer: str) -> None:
    assert recorded_by(writer) == declared(writer)


class RecordsMore(StateWriter):
    def change_reserved(self, queue: str, delta: Resource, count: int) -> None:
        super().change_reserved(queue, delta, count)
        self.log.queue(queue)


class RecordsLess(StateWriter):
    def set_queue_demand(self, name: str, demand: Resource) -> None:
        self.state.queues[name].demand = demand


@pytest.mark.parametrize("cls, writer", [(RecordsMore, "change_reserved"),
                                         (RecordsLess, "set_queue_demand")])
def test_a_writer_recording_other_kinds_than_its_entry_is_found(
        cls: type[StateWriter], writer: str) -> None:
    assert recorded_by(writer, cls) != declared(writer)


@pytest.mark.parametrize("counter, field", [
    (QueueCounter.APPS_SUBMITTED, "apps_submitted"),
    (QueueCounter.APPS_COMPLETED, "apps_completed"),
    (QueueCounter.APPS_KILLED, "apps_killed"),
    (QueueCounter.CONTAINERS_PREEMPTED, "containers_preempted"),
])
def test_count_adds_one_to_its_counter_in_the_leaf_and_its_parents(
        counter: QueueCounter, field: str) -> None:
    """``QueueMetrics`` counts an event in the queue's metrics and each parent's (its
    ``parent`` chain), nowhere else."""
    world = World()
    world.w.count(LEAF, counter)
    world.w.count(LEAF, counter)
    counts = {name: {f: getattr(q, f) for f in (
        "apps_submitted", "apps_completed", "apps_killed", "containers_preempted",
        "containers_allocated", "containers_released")} for name, q in world.s.state.queues.items()}
    for name, numbers in counts.items():
        expected = 2 if name in ("root", PARENT, LEAF) else 0
        assert numbers == {f: expected if f == field else 0 for f in numbers}, name


def test_a_container_s_allocation_and_release_count_in_the_leaf_and_its_parents() -> None:
    """``QueueMetrics.allocateResources`` / ``releaseResources``: every queue up the chain."""
    world = World()
    app = world.app()
    world.w.free_container(world.container(app))
    world.container(app)
    for name, q in world.s.state.queues.items():
        chain = name in ("root", PARENT, LEAF)
        assert (q.containers_allocated, q.containers_released) == ((2, 1) if chain else (0, 0))

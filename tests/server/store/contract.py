"""The state store's contract, which every backend passes (as Hadoop's
``RMStateStoreTestBase`` is run against each of YARN's stores): each check takes a function
that gives the URL of a new, empty store. ``test_store_contract.py`` runs them on SQLite,
``postgres_tests/test_state_store_postgres.py`` on a real PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from fairshare.server.store.store import Batch, StateStore, StateStoreError

NewStore = Callable[[], str]


def _app(app_id: str, state: str = "RUNNING", finished_ms: int = 0, **extra: object
         ) -> dict[str, object]:
    return {"id": app_id, "state": state, "finished_ms": finished_ms,
            "queue": "root.a", "attempts": [{"number": 1}], **extra}


def epoch_is_taken_and_incremented_at_each_start(new_store: NewStore) -> None:
    # RMStateStoreTestBase.testEpoch: getAndIncrementEpoch gives the stored epoch and stores
    # the next; a new store starts at 0
    url = new_store()
    store = StateStore(url)
    assert [store.start().epoch for _ in range(3)] == [0, 1, 2]
    store.close()
    reopened = StateStore(url)  # the epoch is in the store, not in the process
    assert reopened.start().epoch == 3
    reopened.close()


def apps_containers_and_nodes_come_back_as_written(new_store: NewStore) -> None:
    # testRMAppStateStore: apps and attempts stored, then loaded in ApplicationId order
    url = new_store()
    store = StateStore(url)
    assert store.start().empty
    later, first = "application_1700000000500_0002", "application_1700000000500_0010"
    older = "application_1600000000000_9999"
    store.write(Batch(app_records={a: _app(a) for a in (first, later, older)},
                      container_records={"c1": {"id": "c1", "app": first, "node": "n1"},
                                         "c2": {"id": "c2", "app": later, "node": "n2"}},
                      node_records={"n2": {"id": "n2", "position": 2, "rack": "/r"},
                                    "n1": {"id": "n1", "position": 1, "rack": "/r"}}))
    store.close()
    state = StateStore(url).start()
    # ApplicationId.compareTo: the cluster timestamp first, then the number (as numbers)
    assert [a["id"] for a in state.apps] == [older, later, first]
    assert state.apps[0] == _app(older)
    assert sorted(c["id"] for c in state.containers) == ["c1", "c2"]
    assert [n["id"] for n in state.nodes] == ["n1", "n2"]


def updates_replace_and_removals_remove(new_store: NewStore) -> None:
    store = StateStore(new_store())
    store.write(Batch(app_records={"a1": _app("a1")}, container_records={
        "c1": {"id": "c1", "app": "a1"}, "c2": {"id": "c2", "app": "a1"}},
        node_records={"n1": {"id": "n1", "position": 1}, "n2": {"id": "n2", "position": 2}}))
    store.write(Batch(app_records={"a1": _app("a1", "FINISHED", 5, diagnostics="done")},
                      removed_containers={"c1"},
                      container_records={"c2": {"id": "c2", "app": "a1", "process": {"pid": 7}}},
                      removed_nodes={"n1"}))
    state = store.start()
    assert state.apps == (_app("a1", "FINISHED", 5, diagnostics="done"),)
    assert state.containers == ({"id": "c2", "app": "a1", "process": {"pid": 7}},)
    assert [n["id"] for n in state.nodes] == ["n2"]


def a_failed_write_leaves_nothing_of_its_batch(new_store: NewStore) -> None:
    store = StateStore(new_store())
    store.write(Batch(app_records={"a1": _app("a1")},
                      container_records={"c1": {"id": "c1", "app": "a1"}}))
    # an app without a state breaks a NOT NULL column: the whole transaction is refused,
    # the container removal and the other app in it included
    broken = Batch(app_records={"a2": _app("a2"), "a3": _app("a3", state=None)},  # type: ignore[arg-type]
                   removed_containers={"c1"})
    with pytest.raises(StateStoreError, match="refused a write"):
        store.write(broken)
    state = store.start()
    assert [a["id"] for a in state.apps] == ["a1"]
    assert [c["id"] for c in state.containers] == ["c1"]


def completed_apps_beyond_the_limit_are_forgotten_oldest_first(new_store: NewStore) -> None:
    # yarn.resourcemanager.state-store.max-completed-applications: RMAppManager removes the
    # oldest completed apps from the store (their containers with them)
    store = StateStore(new_store(), max_completed=2)
    finished = {f"f{i}": _app(f"f{i}", "FINISHED", 100 - i) for i in range(4)}
    store.write(Batch(app_records={"r": _app("r"), **finished},
                      container_records={"k": {"id": "k", "app": "f3"}}))
    state = store.start()
    # finished at 100, 99, 98, 97: the two that finished last stay, the running one too
    assert sorted(a["id"] for a in state.apps) == ["f0", "f1", "r"]
    assert state.containers == ()


def opening_twice_migrates_once_and_a_history_can_share_the_database(
        new_store: NewStore) -> None:
    from fairshare.web.history.store import History

    url = new_store()
    StateStore(url).close()
    history = History.open(url)  # its own Alembic version table: no clash
    history.close()
    store = StateStore(url)
    assert store.start().epoch == 0
    store.close()


CHECKS = [epoch_is_taken_and_incremented_at_each_start,
          apps_containers_and_nodes_come_back_as_written, updates_replace_and_removals_remove,
          a_failed_write_leaves_nothing_of_its_batch,
          completed_apps_beyond_the_limit_are_forgotten_oldest_first,
          opening_twice_migrates_once_and_a_history_can_share_the_database]

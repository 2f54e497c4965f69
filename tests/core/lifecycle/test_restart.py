"""A ResourceManager restarted on its state store (``Engine.restart``): new containers carry
the new epoch in their ids (``container_e<epoch>_…``, ``AppSchedulingInfo``'s counter from
``epoch << 40``), and heartbeats allocate nothing until the recovery wait has passed
(``FairScheduler.attemptScheduling``; ``TestWorkPreservingRMRestart.
testNewContainersNotAllocatedDuringSchedulerRecovery``)."""

from __future__ import annotations

import pytest

from fairshare.core import Engine, Restart, apply_command, command_from_json, command_to_json
from fairshare.core.rules.yarn_order import CLUSTER_TIMESTAMP_MS, container_hash
from tests.core.engine_builders import GB, ask, make_engine, r, records


def _int32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def java_container_hash(cluster_timestamp: int, app: int, attempt: int, container_id: int
                        ) -> int:
    """``ContainerId.hashCode`` as Java computes it (ApplicationId's prime 371237 and seed
    6521, ApplicationAttemptId's 347671 and 5501, then ``31 * (int) (id ^ id >>> 32)``),
    written out here from those classes' definitions."""
    app_hash = _int32(371237 * 6521 + _int32(cluster_timestamp ^ (cluster_timestamp >> 32)))
    app_hash = _int32(371237 * app_hash + app)
    attempt_hash = _int32(347671 * 5501 + app_hash)
    attempt_hash = _int32(347671 * attempt_hash + attempt)
    return _int32(31 * _int32(container_id ^ (container_id >> 32)) + attempt_hash)


def one_node_engine() -> Engine:
    return make_engine("<queue name='a'/>", nodes=(("n1", 8 * GB, 8),))


def test_containers_after_a_restart_carry_the_epoch_in_two_digits_at_least() -> None:
    engine = one_node_engine()
    engine.restart(1, None)
    engine.submit("app_1", "a", "alice", r(GB), [ask(1, GB)])
    engine.update()  # (an attempt's demand is 0 until the update pass)
    engine.heartbeat("n1")  # the AM
    engine.update()
    engine.heartbeat("n1")  # its task (asked with the submission)
    ids = [e["container"] for e in records(engine, "container-allocated")]
    # ContainerId.toString: "e" and the epoch in at least two digits, the sequence in six
    assert ids == ["container_e01_app_1_01_000001", "container_e01_app_1_01_000002"]
    engine.restart(123, None)
    engine.submit("app_2", "a", "alice", r(GB))
    engine.update()
    engine.heartbeat("n1")
    assert records(engine, "container-allocated")[-1]["container"] == (
        "container_e123_app_2_01_000001")


def test_an_epoch_id_hashes_as_java_hashes_its_long_with_the_epoch_in_its_upper_bits() -> None:
    ts = CLUSTER_TIMESTAMP_MS  # the engine hashes every app id with this cluster timestamp
    for epoch, attempt, seq in ((0, 1, 1), (1, 1, 1), (17, 2, 5), (255, 3, 999_999)):
        name = (f"container_e{epoch:02d}_application_{ts}_0007_{attempt:02d}_{seq:06d}"
                if epoch else f"container_application_{ts}_0007_{attempt:02d}_{seq:06d}")
        assert container_hash(name, 7) == java_container_hash(ts, 7, attempt,
                                                              epoch << 40 | seq), name
    # the epoch changes the hash (so HashMap orders of a node's containers differ)
    plain = container_hash(f"container_application_{ts}_0007_01_000001", 7)
    assert container_hash(f"container_e01_application_{ts}_0007_01_000001", 7) != plain


def test_no_container_is_allocated_during_the_recovery_wait() -> None:
    # TestWorkPreservingRMRestart.testNewContainersNotAllocatedDuringSchedulerRecovery: a 4 s
    # wait; a heartbeat 2 s after the restart allocates nothing, one at 8 s does
    engine = one_node_engine()
    engine.restart(1, 4000)
    engine.submit("app_1", "a", "alice", r(GB))
    engine.update()
    engine.advance_to(2000)
    engine.heartbeat("n1")
    assert records(engine, "container-allocated") == []
    engine.advance_to(4000)  # not yet: YARN waits until more than the wait has passed
    engine.heartbeat("n1")
    assert records(engine, "container-allocated") == []
    engine.advance_to(8000)
    engine.heartbeat("n1")
    assert [e["node"] for e in records(engine, "container-allocated")] == ["n1"]


def test_the_wait_counts_from_the_restart_and_ends_just_after_it() -> None:
    engine = one_node_engine()
    engine.advance_to(10_000)
    engine.restart(2, 1000)
    engine.submit("app_1", "a", "alice", r(GB))
    engine.update()
    engine.advance_to(11_000)
    engine.heartbeat("n1")
    assert records(engine, "container-allocated") == []
    engine.advance_to(11_001)
    engine.heartbeat("n1")
    assert len(records(engine, "container-allocated")) == 1


def _ticks(skip_quiet: bool) -> list[dict[str, object]]:
    engine = make_engine("<queue name='a'/>", nodes=(("n1", 4 * GB, 4), ("n2", 4 * GB, 4)))
    engine.restart(1, 1500)
    engine.submit("app_1", "a", "alice", r(GB), [ask(3, GB)])
    for t in range(1000, 6000, 1000):
        engine.advance_to(t)
        engine.update()
        list(engine.heartbeat_tick(skip_quiet=skip_quiet))
    return records(engine)


def test_ticks_that_skip_quiet_heartbeats_decide_as_every_heartbeat_does_across_the_wait(
) -> None:
    # Engine.heartbeat_tick's promise (the same decisions with or without skipping), kept
    # when heartbeats during the wait allocate nothing although they could
    quiet, every = _ticks(True), _ticks(False)
    assert quiet == every
    allocated = [e for e in every if e["type"] == "container-allocated"]
    # nothing before the first heartbeat after the wait (2000), then the AM and its tasks
    assert [e["t"] for e in allocated][:1] == [2000] and len(allocated) == 4


def test_the_restart_command_round_trips_and_refuses_impossible_values() -> None:
    engine = one_node_engine()
    command = Restart(3, 10_000)
    types = engine.types
    assert command_to_json(command, types) == {"kind": "restart", "epoch": 3,
                                               "scheduling-wait-ms": 10_000}
    assert command_from_json(command_to_json(command, types), types) == command
    apply_command(engine, command)
    assert engine.state.rm_epoch == 3
    with pytest.raises(ValueError, match="epoch"):
        engine.restart(1 << 23, None)
    with pytest.raises(ValueError, match="wait"):
        engine.restart(1, -1)

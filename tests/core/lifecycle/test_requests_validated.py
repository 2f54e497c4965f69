"""An AM's allocate call is validated before the scheduler sees it
(ApplicationMasterService → SchedulerUtils.normalizeAndValidateRequest): an ask above the
maximum allocation fails the whole call, and nothing of it is recorded."""

from __future__ import annotations

from tests.core.engine_builders import GB, ask, make_engine, records


def test_an_ask_above_the_maximum_allocation_fails_the_whole_call() -> None:
    engine = make_engine('<queue name="a"/>',
                         site={"yarn.scheduler.maximum-allocation-mb": 4 * GB})
    engine.submit("x", "root.a", "u", requests=[ask(1)])
    engine.request("x", [ask(2, 2 * GB), ask(1, 4 * GB + 1)])
    [rejected] = records(engine, "requests-rejected")
    assert rejected["reason"].startswith("memory-mb 4097 is above the maximum allocation, 4096")
    # only the submission's ask was recorded: 1 container of 1 GB
    assert len(records(engine, "containers-requested")) == 1
    engine.request("x", [ask(1, 4 * GB)])  # at the maximum: accepted
    assert len(records(engine, "containers-requested")) == 2


def test_the_queues_max_container_allocation_caps_the_maximum_per_type() -> None:
    engine = make_engine('<queue name="a"><maxContainerAllocation>2048 mb, 2 vcores'
                         '</maxContainerAllocation></queue>')
    engine.submit("x", "root.a", "u")
    engine.request("x", [ask(1, 2 * GB, 3)])
    assert records(engine, "requests-rejected")[0]["reason"].startswith(
        "vcores 3 is above the maximum allocation, 2")
